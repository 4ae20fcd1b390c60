//! Convolutions and pools written in other layouts than the canonical NCW/NCHW/NCDHW (NHWC
//! data, OHWI and HWIO kernels, NWC, NDHWC, the kernels of transposed convolutions as
//! TensorFlow writes them), which ConvertLayout rewrites: each case of the table is run next
//! to the same computation written in the canonical layouts with explicit `R.permute_dims`
//! around it, on the same random inputs, in both exec modes, with and without the library
//! kernels; the results must agree within 1e-4. Convolutions and pools also match a naive
//! evaluation written here from the layout letters alone, so that the reference module is
//! checked too. With the library on, a conv2d in any layout must run on the library's kernel.
//! A constant weight in HWIO must reach the convolution as an OIHW constant. Layouts with
//! split axes (`NCHW16c`, `OIHW8i8o`) run against the same computation with explicit
//! permutations and reshapes around it.

use std::collections::HashMap;

use relaxjit::relax::ir::{Binding, ExprKind};
use relaxjit::{Config, Engine, ExecMode, Tensor, Value};

/// A shape as text in the module (`(1, 8, 8, 3)`).
fn shape_text(s: &[i64]) -> String {
    let items: Vec<String> = s.iter().map(i64::to_string).collect();
    if items.len() == 1 {
        format!("({},)", items[0])
    } else {
        format!("({})", items.join(", "))
    }
}

/// A module whose `main(params)` runs the binding lines `body`, the last binding `y`.
fn module(params: &[(&str, Vec<i64>)], out: &[i64], body: &[String]) -> String {
    let params: Vec<String> = params
        .iter()
        .map(|(n, s)| format!("{n}: R.Tensor({}, dtype=\"float32\")", shape_text(s)))
        .collect();
    let mut src = String::from("@I.ir_module\nclass Module:\n    @R.function\n");
    src += &format!(
        "    def main({}) -> R.Tensor({}, dtype=\"float32\"):\n        with R.dataflow():\n",
        params.join(", "),
        shape_text(out)
    );
    for line in body {
        src += &format!("            {line}\n");
    }
    src + "            R.output(y)\n        return y\n"
}

/// What the naive evaluation computes.
#[derive(Clone, Copy)]
enum Naive {
    /// `conv(data_layout, kernel_layout, out_layout, strides, padding, dilation, groups)`.
    Conv {
        data: &'static str,
        kernel: &'static str,
        out: &'static str,
        strides: &'static [i64],
        padding: &'static [i64],
        dilation: &'static [i64],
        groups: i64,
    },
    /// Max or average (padding excluded) pooling.
    Pool {
        max: bool,
        layout: &'static str,
        size: &'static [i64],
        strides: &'static [i64],
        padding: &'static [i64],
    },
}

struct Case {
    name: &'static str,
    params: Vec<(&'static str, Vec<i64>)>,
    out: Vec<i64>,
    /// The computation in the layout under test.
    body: Vec<String>,
    /// The same in the canonical layouts, between explicit `R.permute_dims`.
    reference: Vec<String>,
    naive: Option<Naive>,
}

fn lines(ls: &[&str]) -> Vec<String> {
    ls.iter().map(|l| l.to_string()).collect()
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "conv2d NHWC/OHWI, stride 2, padding 1",
            params: vec![("x", vec![1, 8, 9, 3]), ("w", vec![4, 3, 3, 3])],
            out: vec![1, 4, 5, 4],
            body: lines(&[
                "y = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], data_layout=\"NHWC\", kernel_layout=\"OHWI\", out_layout=\"NHWC\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 3, 1, 2])",
                "wt = R.permute_dims(w, axes=[0, 3, 1, 2])",
                "c = R.nn.conv2d(xt, wt, strides=[2, 2], padding=[1, 1, 1, 1])",
                "y = R.permute_dims(c, axes=[0, 2, 3, 1])",
            ]),
            naive: Some(Naive::Conv {
                data: "NHWC",
                kernel: "OHWI",
                out: "NHWC",
                strides: &[2, 2],
                padding: &[1, 1, 1, 1],
                dilation: &[1, 1],
                groups: 1,
            }),
        },
        Case {
            name: "conv2d NHWC/HWIO, groups 2, dilation 2, bias and relu",
            params: vec![
                ("x", vec![2, 9, 9, 6]),
                ("w", vec![3, 3, 3, 8]),
                ("b", vec![8]),
            ],
            out: vec![2, 5, 5, 8],
            body: lines(&[
                "c = R.nn.conv2d(x, w, dilation=[2, 2], groups=2, data_layout=\"NHWC\", kernel_layout=\"HWIO\", out_layout=\"NHWC\")",
                "a = R.add(c, b)",
                "y = R.nn.relu(a)",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 3, 1, 2])",
                "wt = R.permute_dims(w, axes=[3, 2, 0, 1])",
                "c = R.nn.conv2d(xt, wt, dilation=[2, 2], groups=2)",
                "ct = R.permute_dims(c, axes=[0, 2, 3, 1])",
                "a = R.add(ct, b)",
                "y = R.nn.relu(a)",
            ]),
            naive: None,
        },
        Case {
            name: "conv2d NHWC/HWIO, groups 2, dilation 2",
            params: vec![("x", vec![2, 9, 9, 6]), ("w", vec![3, 3, 3, 8])],
            out: vec![2, 5, 5, 8],
            body: lines(&[
                "y = R.nn.conv2d(x, w, dilation=[2, 2], groups=2, data_layout=\"NHWC\", kernel_layout=\"HWIO\", out_layout=\"NHWC\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 3, 1, 2])",
                "wt = R.permute_dims(w, axes=[3, 2, 0, 1])",
                "c = R.nn.conv2d(xt, wt, dilation=[2, 2], groups=2)",
                "y = R.permute_dims(c, axes=[0, 2, 3, 1])",
            ]),
            naive: Some(Naive::Conv {
                data: "NHWC",
                kernel: "HWIO",
                out: "NHWC",
                strides: &[1, 1],
                padding: &[0, 0, 0, 0],
                dilation: &[2, 2],
                groups: 2,
            }),
        },
        Case {
            name: "conv2d NHWC/OIHW to NCHW",
            params: vec![("x", vec![1, 6, 7, 3]), ("w", vec![4, 3, 3, 2])],
            out: vec![1, 4, 4, 6],
            body: lines(&[
                "y = R.nn.conv2d(x, w, data_layout=\"NHWC\", kernel_layout=\"OIHW\", out_layout=\"NCHW\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 3, 1, 2])",
                "y = R.nn.conv2d(xt, w)",
            ]),
            naive: Some(Naive::Conv {
                data: "NHWC",
                kernel: "OIHW",
                out: "NCHW",
                strides: &[1, 1],
                padding: &[0, 0, 0, 0],
                dilation: &[1, 1],
                groups: 1,
            }),
        },
        Case {
            name: "conv2d NCHW/OIHW (unchanged)",
            params: vec![("x", vec![1, 3, 7, 6]), ("w", vec![5, 3, 2, 3])],
            out: vec![1, 5, 3, 6],
            body: lines(&["y = R.nn.conv2d(x, w, padding=[0, 1, 0, 1], strides=[2, 1])"]),
            reference: lines(&["y = R.nn.conv2d(x, w, padding=[0, 1, 0, 1], strides=[2, 1])"]),
            naive: Some(Naive::Conv {
                data: "NCHW",
                kernel: "OIHW",
                out: "NCHW",
                strides: &[2, 1],
                padding: &[0, 1, 0, 1],
                dilation: &[1, 1],
                groups: 1,
            }),
        },
        Case {
            name: "conv1d NWC/WIO, padding 1",
            params: vec![("x", vec![2, 10, 3]), ("w", vec![3, 3, 5])],
            out: vec![2, 10, 5],
            body: lines(&[
                "y = R.nn.conv1d(x, w, padding=[1, 1], data_layout=\"NWC\", kernel_layout=\"WIO\", out_layout=\"NWC\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 2, 1])",
                "wt = R.permute_dims(w, axes=[2, 1, 0])",
                "c = R.nn.conv1d(xt, wt, padding=[1, 1])",
                "y = R.permute_dims(c, axes=[0, 2, 1])",
            ]),
            naive: Some(Naive::Conv {
                data: "NWC",
                kernel: "WIO",
                out: "NWC",
                strides: &[1],
                padding: &[1, 1],
                dilation: &[1],
                groups: 1,
            }),
        },
        Case {
            name: "conv3d NDHWC/DHWIO",
            params: vec![("x", vec![1, 5, 6, 7, 2]), ("w", vec![3, 3, 3, 2, 4])],
            out: vec![1, 3, 4, 5, 4],
            body: lines(&[
                "y = R.nn.conv3d(x, w, data_layout=\"NDHWC\", kernel_layout=\"DHWIO\", out_layout=\"NDHWC\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 4, 1, 2, 3])",
                "wt = R.permute_dims(w, axes=[4, 3, 0, 1, 2])",
                "c = R.nn.conv3d(xt, wt)",
                "y = R.permute_dims(c, axes=[0, 2, 3, 4, 1])",
            ]),
            naive: Some(Naive::Conv {
                data: "NDHWC",
                kernel: "DHWIO",
                out: "NDHWC",
                strides: &[1, 1, 1],
                padding: &[0, 0, 0, 0, 0, 0],
                dilation: &[1, 1, 1],
                groups: 1,
            }),
        },
        Case {
            name: "conv1d_transpose NWC/WIO, stride 2",
            params: vec![("x", vec![1, 5, 3]), ("w", vec![3, 3, 2])],
            out: vec![1, 11, 2],
            body: lines(&[
                "y = R.nn.conv1d_transpose(x, w, strides=[2], data_layout=\"NWC\", kernel_layout=\"WIO\", out_layout=\"NWC\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 2, 1])",
                "wt = R.permute_dims(w, axes=[1, 2, 0])",
                "c = R.nn.conv1d_transpose(xt, wt, strides=[2])",
                "y = R.permute_dims(c, axes=[0, 2, 1])",
            ]),
            naive: None,
        },
        Case {
            name: "conv2d_transpose NHWC/HWOI, stride 2, padding 1, output padding 1",
            params: vec![("x", vec![1, 4, 4, 3]), ("w", vec![3, 3, 2, 3])],
            out: vec![1, 8, 8, 2],
            body: lines(&[
                "y = R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1], data_layout=\"NHWC\", kernel_layout=\"HWOI\", out_layout=\"NHWC\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 3, 1, 2])",
                "wt = R.permute_dims(w, axes=[3, 2, 0, 1])",
                "c = R.nn.conv2d_transpose(xt, wt, strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1])",
                "y = R.permute_dims(c, axes=[0, 2, 3, 1])",
            ]),
            naive: None,
        },
        Case {
            name: "conv3d_transpose NDHWC/DHWOI, strides 2, 1, 1",
            params: vec![("x", vec![1, 3, 3, 2, 3]), ("w", vec![2, 2, 2, 2, 3])],
            out: vec![1, 6, 4, 3, 2],
            body: lines(&[
                "y = R.nn.conv3d_transpose(x, w, strides=[2, 1, 1], data_layout=\"NDHWC\", kernel_layout=\"DHWOI\", out_layout=\"NDHWC\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 4, 1, 2, 3])",
                "wt = R.permute_dims(w, axes=[4, 3, 0, 1, 2])",
                "c = R.nn.conv3d_transpose(xt, wt, strides=[2, 1, 1])",
                "y = R.permute_dims(c, axes=[0, 2, 3, 4, 1])",
            ]),
            naive: None,
        },
        Case {
            name: "max_pool2d NHWC, 3x3 stride 2 padding 1",
            params: vec![("x", vec![1, 9, 9, 4])],
            out: vec![1, 5, 5, 4],
            body: lines(&[
                "y = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], layout=\"NHWC\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 3, 1, 2])",
                "c = R.nn.max_pool2d(xt, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])",
                "y = R.permute_dims(c, axes=[0, 2, 3, 1])",
            ]),
            naive: Some(Naive::Pool {
                max: true,
                layout: "NHWC",
                size: &[3, 3],
                strides: &[2, 2],
                padding: &[1, 1, 1, 1],
            }),
        },
        Case {
            name: "avg_pool2d NHWC, 2x3 stride 2 padding 1, padding excluded",
            params: vec![("x", vec![2, 8, 7, 3])],
            out: vec![2, 5, 4, 3],
            body: lines(&[
                "y = R.nn.avg_pool2d(x, pool_size=[2, 3], strides=[2, 2], padding=[1, 1, 1, 1], count_include_pad=False, layout=\"NHWC\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 3, 1, 2])",
                "c = R.nn.avg_pool2d(xt, pool_size=[2, 3], strides=[2, 2], padding=[1, 1, 1, 1], count_include_pad=False)",
                "y = R.permute_dims(c, axes=[0, 2, 3, 1])",
            ]),
            naive: Some(Naive::Pool {
                max: false,
                layout: "NHWC",
                size: &[2, 3],
                strides: &[2, 2],
                padding: &[1, 1, 1, 1],
            }),
        },
        Case {
            name: "max_pool1d NWC",
            params: vec![("x", vec![2, 9, 3])],
            out: vec![2, 4, 3],
            body: lines(&["y = R.nn.max_pool1d(x, pool_size=[3], strides=[2], layout=\"NWC\")"]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 2, 1])",
                "c = R.nn.max_pool1d(xt, pool_size=[3], strides=[2])",
                "y = R.permute_dims(c, axes=[0, 2, 1])",
            ]),
            naive: Some(Naive::Pool {
                max: true,
                layout: "NWC",
                size: &[3],
                strides: &[2],
                padding: &[0, 0],
            }),
        },
        Case {
            name: "avg_pool3d NDHWC",
            params: vec![("x", vec![1, 4, 6, 6, 2])],
            out: vec![1, 2, 3, 3, 2],
            body: lines(&[
                "y = R.nn.avg_pool3d(x, pool_size=[2, 2, 2], strides=[2, 2, 2], layout=\"NDHWC\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 4, 1, 2, 3])",
                "c = R.nn.avg_pool3d(xt, pool_size=[2, 2, 2], strides=[2, 2, 2])",
                "y = R.permute_dims(c, axes=[0, 2, 3, 4, 1])",
            ]),
            naive: Some(Naive::Pool {
                max: false,
                layout: "NDHWC",
                size: &[2, 2, 2],
                strides: &[2, 2, 2],
                padding: &[0, 0, 0, 0, 0, 0],
            }),
        },
        Case {
            name: "adaptive_avg_pool2d NHWC to 3x2",
            params: vec![("x", vec![1, 7, 5, 4])],
            out: vec![1, 3, 2, 4],
            body: lines(&["y = R.nn.adaptive_avg_pool2d(x, output_size=[3, 2], layout=\"NHWC\")"]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 3, 1, 2])",
                "c = R.nn.adaptive_avg_pool2d(xt, output_size=[3, 2])",
                "y = R.permute_dims(c, axes=[0, 2, 3, 1])",
            ]),
            naive: None,
        },
        Case {
            name: "adaptive_avg_pool1d NWC to 3",
            params: vec![("x", vec![2, 8, 3])],
            out: vec![2, 3, 3],
            body: lines(&["y = R.nn.adaptive_avg_pool1d(x, output_size=[3], layout=\"NWC\")"]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 2, 1])",
                "c = R.nn.adaptive_avg_pool1d(xt, output_size=[3])",
                "y = R.permute_dims(c, axes=[0, 2, 1])",
            ]),
            naive: None,
        },
        Case {
            name: "conv2d NHWC/HWIO then max_pool2d NHWC",
            params: vec![("x", vec![1, 8, 8, 3]), ("w", vec![3, 3, 3, 4])],
            out: vec![1, 3, 3, 4],
            body: lines(&[
                "c = R.nn.conv2d(x, w, data_layout=\"NHWC\", kernel_layout=\"HWIO\", out_layout=\"NHWC\")",
                "y = R.nn.max_pool2d(c, pool_size=[2, 2], strides=[2, 2], layout=\"NHWC\")",
            ]),
            reference: lines(&[
                "xt = R.permute_dims(x, axes=[0, 3, 1, 2])",
                "wt = R.permute_dims(w, axes=[3, 2, 0, 1])",
                "c = R.nn.conv2d(xt, wt)",
                "p = R.nn.max_pool2d(c, pool_size=[2, 2], strides=[2, 2])",
                "y = R.permute_dims(p, axes=[0, 2, 3, 1])",
            ]),
            naive: None,
        },
        Case {
            name: "max_pool2d NCHW16c, stride 2, padding 1",
            params: vec![("x", vec![1, 2, 9, 9, 16])],
            out: vec![1, 2, 5, 5, 16],
            body: lines(&[
                "y = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], layout=\"NCHW16c\", out_layout=\"NCHW16c\")",
            ]),
            reference: lines(&[
                "xp = R.permute_dims(x, axes=[0, 1, 4, 2, 3])",
                "xt = R.reshape(xp, R.shape([1, 32, 9, 9]))",
                "p = R.nn.max_pool2d(xt, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])",
                "ps = R.reshape(p, R.shape([1, 2, 16, 5, 5]))",
                "y = R.permute_dims(ps, axes=[0, 1, 3, 4, 2])",
            ]),
            naive: None,
        },
        Case {
            name: "avg_pool2d NCHW4c, padding excluded",
            params: vec![("x", vec![2, 3, 6, 7, 4])],
            out: vec![2, 3, 6, 7, 4],
            body: lines(&[
                "y = R.nn.avg_pool2d(x, pool_size=[3, 3], padding=[1, 1, 1, 1], layout=\"NCHW4c\")",
            ]),
            reference: lines(&[
                "xp = R.permute_dims(x, axes=[0, 1, 4, 2, 3])",
                "xt = R.reshape(xp, R.shape([2, 12, 6, 7]))",
                "p = R.nn.avg_pool2d(xt, pool_size=[3, 3], padding=[1, 1, 1, 1])",
                "ps = R.reshape(p, R.shape([2, 3, 4, 6, 7]))",
                "y = R.permute_dims(ps, axes=[0, 1, 3, 4, 2])",
            ]),
            naive: None,
        },
        Case {
            name: "adaptive_avg_pool2d NCHW16c to NCHW",
            params: vec![("x", vec![1, 2, 7, 7, 16])],
            out: vec![1, 32, 1, 1],
            body: lines(&[
                "y = R.nn.adaptive_avg_pool2d(x, output_size=[1, 1], layout=\"NCHW16c\", out_layout=\"NCHW\")",
            ]),
            reference: lines(&[
                "xp = R.permute_dims(x, axes=[0, 1, 4, 2, 3])",
                "xt = R.reshape(xp, R.shape([1, 32, 7, 7]))",
                "y = R.nn.adaptive_avg_pool2d(xt, output_size=[1, 1])",
            ]),
            naive: None,
        },
        Case {
            name: "conv2d NCHW8c/OIHW8i8o, padding 1, bias and relu",
            params: vec![
                ("x", vec![1, 2, 7, 7, 8]),
                ("w", vec![3, 2, 3, 3, 8, 8]),
                ("b", vec![1, 3, 1, 1, 8]),
            ],
            out: vec![1, 3, 7, 7, 8],
            body: lines(&[
                "c = R.nn.conv2d(x, w, padding=[1, 1, 1, 1], data_layout=\"NCHW8c\", kernel_layout=\"OIHW8i8o\", out_layout=\"NCHW8c\")",
                "a = R.add(c, b)",
                "y = R.nn.relu(a)",
            ]),
            reference: lines(&[
                "xp = R.permute_dims(x, axes=[0, 1, 4, 2, 3])",
                "xt = R.reshape(xp, R.shape([1, 16, 7, 7]))",
                "wp = R.permute_dims(w, axes=[0, 5, 1, 4, 2, 3])",
                "wt = R.reshape(wp, R.shape([24, 16, 3, 3]))",
                "c = R.nn.conv2d(xt, wt, padding=[1, 1, 1, 1])",
                "cs = R.reshape(c, R.shape([1, 3, 8, 7, 7]))",
                "ct = R.permute_dims(cs, axes=[0, 1, 3, 4, 2])",
                "a = R.add(ct, b)",
                "y = R.nn.relu(a)",
            ]),
            naive: None,
        },
        Case {
            name: "conv2d NHWC4c data to NCHW, OIHW kernel",
            params: vec![("x", vec![1, 5, 6, 2, 4]), ("w", vec![6, 8, 1, 1])],
            out: vec![1, 6, 5, 6],
            body: lines(&[
                "y = R.nn.conv2d(x, w, data_layout=\"NHWC4c\", kernel_layout=\"OIHW\", out_layout=\"NCHW\")",
            ]),
            reference: lines(&[
                "xp = R.permute_dims(x, axes=[0, 3, 4, 1, 2])",
                "xt = R.reshape(xp, R.shape([1, 8, 5, 6]))",
                "y = R.nn.conv2d(xt, w)",
            ]),
            naive: None,
        },
    ]
}

/// Deterministic values in [-1, 1).
fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0) as f32
        })
        .collect()
}

/// The flat row-major offset of the element at `at` (a value per layout letter) in a tensor
/// of `shape` laid out in `layout`.
fn offset(layout: &str, shape: &[i64], at: &HashMap<char, i64>) -> usize {
    layout
        .chars()
        .zip(shape)
        .fold(0, |acc, (c, &n)| acc * n as usize + at[&c] as usize)
}

/// Every index of a tensor of `shape` in `layout`, as a value per letter, in row-major order.
fn indices(layout: &str, shape: &[i64]) -> Vec<HashMap<char, i64>> {
    let mut out = vec![HashMap::new()];
    for (c, &n) in layout.chars().zip(shape) {
        out = out
            .into_iter()
            .flat_map(|m| {
                (0..n).map(move |i| {
                    let mut m = m.clone();
                    m.insert(c, i);
                    m
                })
            })
            .collect();
    }
    out
}

/// The spatial letters of a layout of `k` spatial dimensions, in the order of the attributes.
fn spatial(k: usize) -> &'static [char] {
    &['D', 'H', 'W'][3 - k..]
}

fn size(layout: &str, shape: &[i64], c: char) -> i64 {
    shape[layout.find(c).expect("a layout letter")]
}

/// The naive evaluation of `naive` on `args` (shapes from the case), in the case's output
/// shape.
fn evaluate(naive: Naive, case: &Case, args: &[Vec<f32>]) -> Vec<f32> {
    let out_shape = &case.out;
    match naive {
        Naive::Conv {
            data,
            kernel,
            out,
            strides,
            padding,
            dilation,
            groups,
        } => {
            let (xs, ws) = (&case.params[0].1, &case.params[1].1);
            let k = strides.len();
            let cin_g = size(kernel, ws, 'I');
            let cout_g = size(kernel, ws, 'O') / groups;
            indices(out, out_shape)
                .iter()
                .map(|o| {
                    let g = o[&'C'] / cout_g;
                    let mut sum = 0f32;
                    for kk in indices(&spatial(k).iter().collect::<String>(), &{
                        spatial(k)
                            .iter()
                            .map(|&c| size(kernel, ws, c))
                            .collect::<Vec<_>>()
                    }) {
                        'channel: for ci in 0..cin_g {
                            let mut xi = HashMap::from([('N', o[&'N']), ('C', g * cin_g + ci)]);
                            let mut wi = HashMap::from([('O', o[&'C']), ('I', ci)]);
                            for (d, &c) in spatial(k).iter().enumerate() {
                                let p = o[&c] * strides[d] + kk[&c] * dilation[d] - padding[d];
                                if p < 0 || p >= size(data, xs, c) {
                                    continue 'channel;
                                }
                                xi.insert(c, p);
                                wi.insert(c, kk[&c]);
                            }
                            sum +=
                                args[0][offset(data, xs, &xi)] * args[1][offset(kernel, ws, &wi)];
                        }
                    }
                    sum
                })
                .collect()
        }
        Naive::Pool {
            max,
            layout,
            size: window,
            strides,
            padding,
        } => {
            let xs = &case.params[0].1;
            let k = strides.len();
            let letters: String = spatial(k).iter().collect();
            indices(layout, out_shape)
                .iter()
                .map(|o| {
                    let (mut acc, mut count) = (if max { f32::MIN } else { 0.0 }, 0);
                    for kk in indices(&letters, window) {
                        let mut xi = o.clone();
                        let inside = spatial(k).iter().enumerate().all(|(d, &c)| {
                            let p = o[&c] * strides[d] + kk[&c] - padding[d];
                            xi.insert(c, p);
                            (0..size(layout, xs, c)).contains(&p)
                        });
                        if inside {
                            let v = args[0][offset(layout, xs, &xi)];
                            acc = if max { acc.max(v) } else { acc + v };
                            count += 1;
                        }
                    }
                    if max { acc } else { acc / count as f32 }
                })
                .collect()
        }
    }
}

fn values(v: &Value) -> Result<Vec<f32>, String> {
    let t = v.as_tensor().map_err(|e| e.to_string())?;
    (0..t.numel())
        .map(|i| {
            t.get_f64(i)
                .map(|x| x as f32)
                .ok_or_else(|| format!("no element {i}"))
        })
        .collect()
}

/// The largest difference between `got` and `want`, which must have the same length.
fn max_diff(got: &[f32], want: &[f32]) -> Result<f32, String> {
    if got.len() != want.len() {
        return Err(format!("{} values, expected {}", got.len(), want.len()));
    }
    Ok(got
        .iter()
        .zip(want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max))
}

/// The four configurations: both exec modes, with and without the library kernels.
fn engines() -> Vec<(String, Engine)> {
    let mut out = Vec::new();
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        for library in [true, false] {
            let config = Config {
                exec_mode,
                library,
                ..Config::default()
            };
            let name = format!("{exec_mode:?}, library {library}");
            out.push((name, Engine::new(config).expect("an engine")));
        }
    }
    out
}

fn run(
    engine: &Engine,
    src: &str,
    args: &[Value],
    metadata: &[Tensor],
) -> Result<Vec<f32>, String> {
    let m = engine
        .compile_str_with_metadata(src, metadata.to_vec())
        .map_err(|e| format!("compile: {e}\n{src}"))?;
    // A conv2d in any layout runs on the library kernel when the library is on.
    let listing = m.executable().as_text();
    if engine.config().library
        && src.contains("R.nn.conv2d(")
        && !listing.contains("relaxjit.conv2d")
    {
        return Err(format!("the library's conv2d is not called\n{listing}"));
    }
    let y = m.run("main", args).map_err(|e| format!("run: {e}"))?;
    values(&y)
}

#[test]
fn other_layouts_match_the_canonical_ones() {
    let engines = engines();
    let mut failures = Vec::new();
    for case in cases() {
        let inputs: Vec<Vec<f32>> = case
            .params
            .iter()
            .enumerate()
            .map(|(i, (_, s))| random(s.iter().product::<i64>() as usize, i as u64 + 7))
            .collect();
        let args: Vec<Value> = case
            .params
            .iter()
            .zip(&inputs)
            .map(|((_, s), v)| Value::Tensor(Tensor::from_slice(s, v).expect("an input")))
            .collect();
        let src = module(&case.params, &case.out, &case.body);
        let reference = module(&case.params, &case.out, &case.reference);
        let naive = case.naive.map(|n| evaluate(n, &case, &inputs));
        for (config, engine) in &engines {
            let check = || -> Result<(), String> {
                let got = run(engine, &src, &args, &[])?;
                let want = run(engine, &reference, &args, &[])?;
                let d = max_diff(&got, &want)?;
                if d > 1e-4 {
                    return Err(format!("differs from the reference module by {d}"));
                }
                if let Some(naive) = &naive {
                    let d = max_diff(&got, naive)?;
                    if d > 1e-4 {
                        return Err(format!("differs from the naive evaluation by {d}"));
                    }
                }
                Ok(())
            };
            if let Err(e) = check() {
                failures.push(format!("{} ({config}): {e}", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A constant HWIO weight: the compiled module computes what the reference does, and after
/// ConvertLayout and the FoldConstant ahead of DispatchLibrary the convolution reads an OIHW
/// constant holding the weight's values transposed, not a permutation left to run.
#[test]
fn a_constant_weight_is_permuted_at_compile_time() {
    let (xs, ws) = (vec![1i64, 7, 6, 3], vec![3i64, 3, 3, 5]);
    let w = random(ws.iter().product::<i64>() as usize, 3);
    let weight = Tensor::from_slice(&ws, &w).expect("the weight");
    let x = random(xs.iter().product::<i64>() as usize, 4);
    let args = [Value::Tensor(Tensor::from_slice(&xs, &x).expect("x"))];
    let params = [("x", xs.clone())];
    let out = [1, 5, 4, 5];
    let w_text = "metadata[\"ir.GenericConst\"][0]";
    let src = module(
        &params,
        &out,
        &[format!(
            "y = R.nn.conv2d(x, {w_text}, data_layout=\"NHWC\", kernel_layout=\"HWIO\", out_layout=\"NHWC\")"
        )],
    );
    let reference = module(
        &params,
        &out,
        &lines(&[
            "xt = R.permute_dims(x, axes=[0, 3, 1, 2])",
            &format!("wt = R.permute_dims({w_text}, axes=[3, 2, 0, 1])"),
            "c = R.nn.conv2d(xt, wt)",
            "y = R.permute_dims(c, axes=[0, 2, 3, 1])",
        ]),
    );
    let metadata = [weight.clone()];
    for (config, engine) in &engines() {
        let got = run(engine, &src, &args, &metadata).unwrap_or_else(|e| panic!("{config}: {e}"));
        let want =
            run(engine, &reference, &args, &metadata).unwrap_or_else(|e| panic!("{config}: {e}"));
        let d = max_diff(&got, &want).unwrap_or_else(|e| panic!("{config}: {e}"));
        assert!(d <= 1e-4, "{config}: differs from the reference by {d}");
    }

    let mut m = Engine::parse_with_metadata(&src, metadata.to_vec()).expect("the module parses");
    for wanted in ["ConvertLayout", "FoldConstant"] {
        let (_, pass, _) = relaxjit::relax::pipeline::OPT_PASSES
            .iter()
            .find(|(n, _, _)| *n == wanted)
            .expect("the pass is in the pipeline");
        m = pass(&m, &Default::default()).expect("the pass runs");
    }
    let main = m.relax_function("main").expect("main");
    let conv_weight = main
        .body
        .blocks
        .iter()
        .flat_map(|b| &b.bindings)
        .find_map(|b| match b {
            Binding::Var { value, .. } => value
                .as_call()
                .filter(|c| c.op() == Some("relax.nn.conv2d"))
                .and_then(|c| c.args.get(1).cloned()),
            _ => None,
        })
        .expect("a conv2d");
    let ExprKind::Constant(k) = conv_weight.kind() else {
        panic!("the conv2d's weight is not a constant: {conv_weight:?}");
    };
    assert_eq!(k.data.shape().to_vec(), vec![5, 3, 3, 3]);
    // OIHW[o, i, h, w] = HWIO[h, w, i, o].
    for (flat, at) in indices("OIHW", &[5, 3, 3, 3]).iter().enumerate() {
        let v = k.data.get_f64(flat).expect("a value") as f32;
        assert_eq!(v, w[offset("HWIO", &ws, at)], "at {at:?}");
    }
}

/// Layouts with split axes on tensors of unknown shape cannot be reshaped into the canonical
/// layouts: ConvertLayout leaves them, and compiling fails with an error naming them, never a
/// panic or a wrong result.
#[test]
fn split_layouts_of_unknown_shape_are_rejected_by_name() {
    let cases = [
        (
            "y = R.nn.conv2d(x, w, data_layout=\"NCHW\", kernel_layout=\"OIHW4o\", out_layout=\"NCHW\")",
            [4, 5, 4],
            "NCHW/OIHW4o/NCHW",
        ),
        (
            "y = R.nn.max_pool2d(x, pool_size=[2, 2], layout=\"NCHW4c\")",
            [5, 4, 5],
            "NCHW4c/NCHW4c",
        ),
        (
            "y = R.nn.adaptive_avg_pool2d(x, output_size=[1, 1], layout=\"NHWC\", out_layout=\"NCHW4c\")",
            [4, 4, 5],
            "NHWC/NCHW4c",
        ),
    ];
    for (line, [x, w, y], named) in cases {
        let src = format!(
            "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor(dtype=\"float32\", ndim={x}), w: R.Tensor(dtype=\"float32\", ndim={w})) -> R.Tensor(dtype=\"float32\", ndim={y}):\n        with R.dataflow():\n            {line}\n            R.output(y)\n        return y\n"
        );
        let engine = Engine::new(Config::default()).expect("an engine");
        let Err(e) = engine.compile_str(&src) else {
            panic!("`{line}` compiled");
        };
        let e = e.to_string();
        assert!(
            e.contains(named) && e.contains("split axes on tensors of known shape"),
            "`{line}`: {e}"
        );
    }
}
