//! Differential tests of the library kernels (`relax::transform::dispatch_library` +
//! `jit::library`): each case of the table below is a small module, compiled once with
//! `Config::library` (the module must then call a `relaxjit.*` kernel) and once without (the
//! TIR legalization path, the reference), run on the same random inputs; the results must agree
//! within the dtype's tolerance. The cases cover the edges: k, m or n of 1, sizes that are not
//! multiples of any tile, batch broadcast, matrix-vector, a transposed weight, symbolic batch,
//! every epilogue, groups, depthwise, strides, padding and dilation, and the lowering of ONNX
//! `LRN` (window sizes odd and even, wider than the channels, every power form), softmax and
//! layer norm over the last axis (rows of 1, odd lengths, enough rows to run in parallel). The
//! convolutions DispatchLibrary rewrites into a conv2d (conv1d, conv2d_transpose, conv3d) are
//! compared in both exec modes.

use relaxjit::{Config, Engine, ExecMode, Tensor, Value};

/// A dimension: its text in the module and its value at run time (`("n", 5)` is symbolic).
type Dim = (&'static str, i64);

fn d(v: i64) -> Dim {
    // Static dims print as their value; leaking the few strings a test makes is harmless.
    (Box::leak(v.to_string().into_boxed_str()), v)
}

fn dims(vs: &[i64]) -> Vec<Dim> {
    vs.iter().map(|&v| d(v)).collect()
}

#[derive(Clone)]
struct Case {
    name: String,
    dtype: &'static str,
    /// Parameters (name, shape).
    params: Vec<(&'static str, Vec<Dim>)>,
    /// Binding lines of the dataflow block; the last binds `y`.
    body: Vec<String>,
    out: Vec<Dim>,
}

fn shape_text(s: &[Dim]) -> String {
    let items: Vec<&str> = s.iter().map(|d| d.0).collect();
    if items.len() == 1 {
        format!("({},)", items[0])
    } else {
        format!("({})", items.join(", "))
    }
}

impl Case {
    fn script(&self) -> String {
        let mut vars: Vec<&str> = self
            .params
            .iter()
            .flat_map(|(_, s)| s.iter())
            .map(|d| d.0)
            .filter(|t| t.chars().all(|c| c.is_ascii_alphabetic()))
            .collect();
        vars.sort();
        vars.dedup();
        let mut src = String::from("# from typing import TypeVar\n");
        for v in &vars {
            src += &format!("{v} = TypeVar(\"{v}\")\n");
        }
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(n, s)| format!("{n}: R.Tensor({}, dtype=\"{}\")", shape_text(s), self.dtype))
            .collect();
        src += "@I.ir_module\nclass Module:\n    @R.function\n";
        src += &format!(
            "    def main({}) -> R.Tensor({}, dtype=\"{}\"):\n        with R.dataflow():\n",
            params.join(", "),
            shape_text(&self.out),
            self.dtype
        );
        for line in &self.body {
            src += &format!("            {line}\n");
        }
        src += "            R.output(y)\n        return y\n";
        src
    }
}

/// `y = epilogue(R.matmul(a, b))`; `tb` writes the weight as `R.permute_dims` of a `(n, k)`
/// parameter.
fn matmul(a: Vec<Dim>, b: Vec<Dim>, tb: bool, epilogue: &[&str], dtype: &'static str) -> Case {
    let (ab, bb) = (
        &a[..a.len().saturating_sub(2)],
        &b[..b.len().saturating_sub(2)],
    );
    let nd = ab.len().max(bb.len());
    let get = |s: &[Dim], i: usize| (i + s.len()).checked_sub(nd).map(|j| s[j]);
    let mut out: Vec<Dim> = (0..nd)
        .map(|i| match (get(ab, i), get(bb, i)) {
            (Some(x), Some(y)) => {
                if x.1 == 1 {
                    y
                } else {
                    x
                }
            }
            (Some(x), None) | (None, Some(x)) => x,
            (None, None) => unreachable!(),
        })
        .collect();
    if a.len() > 1 {
        out.push(a[a.len() - 2]);
    }
    if b.len() > 1 {
        out.push(b[b.len() - 1]);
    }
    let mut params = vec![("a", a.clone())];
    let mut body = Vec::new();
    if tb {
        params.push(("bt", vec![b[1], b[0]]));
        body.push("b = R.permute_dims(bt, axes=None)".to_string());
    } else {
        params.push(("b", b.clone()));
    }
    body.push("t0 = R.matmul(a, b, out_dtype=None)".to_string());
    let name = format!(
        "matmul {dtype} {} @ {}{} {}",
        shape_text(&a),
        shape_text(&b),
        if tb { " (transposed)" } else { "" },
        epilogue.join("+")
    );
    finish(name, dtype, params, body, out, epilogue)
}

/// Appends the epilogue bindings (`bias`: a row vector over the last dimension, or per
/// channel for a 4-D output; `res`: a full residual; an activation op name) and binds `y`.
fn finish(
    name: String,
    dtype: &'static str,
    mut params: Vec<(&'static str, Vec<Dim>)>,
    mut body: Vec<String>,
    out: Vec<Dim>,
    epilogue: &[&str],
) -> Case {
    let mut last = 0;
    for (i, e) in epilogue.iter().enumerate() {
        let next = format!("t{}", i + 1);
        match *e {
            "bias" => {
                let shape = if out.len() == 4 {
                    vec![d(1), out[1], d(1), d(1)]
                } else {
                    vec![*out.last().unwrap()]
                };
                params.push(("bias", shape));
                body.push(format!("{next} = R.add(t{last}, bias)"));
            }
            "res" => {
                params.push(("res", out.clone()));
                body.push(format!("{next} = R.add(res, t{last})"));
            }
            // A bias over the last dimension of a 4-D output: neither per channel nor full.
            "colbias" => {
                params.push(("colbias", vec![*out.last().unwrap()]));
                body.push(format!("{next} = R.add(t{last}, colbias)"));
            }
            // An inference batch norm over the channels, as TVM's ONNX import writes it: the
            // tuple's moving statistics bound but unused. The variance is made positive.
            "bn" => {
                for n in ["gamma", "beta", "mean", "var"] {
                    params.push((n, vec![out[1]]));
                }
                body.push("vpos = R.abs(var)".to_string());
                body.push(format!(
                    "bnt = R.nn.batch_norm(t{last}, gamma, beta, mean, vpos, axis=1, epsilon=1.0000000656873453e-05, center=True, scale=True, momentum=0.90000000000000002, training=False)"
                ));
                body.push("bn1 = bnt[1]".to_string());
                body.push(format!("{next} = bnt[0]"));
                body.push("bn2 = bnt[2]".to_string());
            }
            // A residual as TVM's ONNX import writes `Sum`: both operands broadcast to their
            // own shape, stacked, summed over the stacked axis.
            "onnxsum" => {
                params.push(("res", out.clone()));
                let shape: Vec<&str> = out.iter().map(|d| d.0).collect();
                let shape = shape.join(", ");
                body.push(format!("ba = R.broadcast_to(res, R.shape([{shape}]))"));
                body.push(format!("bb = R.broadcast_to(t{last}, R.shape([{shape}]))"));
                body.push("st = R.stack((ba, bb), axis=0)".to_string());
                body.push(format!("{next} = R.sum(st, axis=[0], keepdims=False)"));
            }
            // A per-channel bias written as a 3-D `(O, 1, 1)` tensor.
            "bias3" => {
                params.push(("bias3", vec![out[1], d(1), d(1)]));
                body.push(format!("{next} = R.add(bias3, t{last})"));
            }
            act => body.push(format!("{next} = R.nn.{act}(t{last})")),
        }
        last = i + 1;
    }
    body.push(format!("y = R.add(t{last}, R.const(0.5, \"{dtype}\"))"));
    Case {
        name,
        dtype,
        params,
        body,
        out,
    }
}

/// `R.nn.conv1d` (NCW/OIW), which DispatchLibrary runs as a conv2d of rows of height 1.
#[allow(clippy::too_many_arguments)]
fn conv1d(
    x: [i64; 3],
    o: i64,
    k: i64,
    stride: i64,
    pad: [i64; 2],
    dil: i64,
    groups: i64,
    epilogue: &[&str],
) -> Case {
    let w = [o, x[1] / groups, k];
    let out = [
        x[0],
        o,
        (x[2] + pad[0] + pad[1] - dil * (k - 1) - 1) / stride + 1,
    ];
    let body = vec![format!(
        "t0 = R.nn.conv1d(x, w, strides=[{stride}], padding={pad:?}, dilation=[{dil}], groups={groups}, data_layout=\"NCW\", kernel_layout=\"OIW\", out_layout=\"NCW\", out_dtype=\"void\")"
    )];
    let name = format!(
        "conv1d x={x:?} w={w:?} stride={stride} pad={pad:?} dil={dil} groups={groups} {} => relaxjit.conv2d",
        epilogue.join("+")
    );
    finish(
        name,
        "float32",
        vec![("x", dims(&x)), ("w", dims(&w))],
        body,
        dims(&out),
        epilogue,
    )
}

/// `R.nn.conv1d_transpose` (NCW/IOW) of `o` output channels in all, which DispatchLibrary
/// runs as the conv2d_transpose of rows of height 1.
#[allow(clippy::too_many_arguments)]
fn conv1d_transpose(
    x: [i64; 3],
    o: i64,
    k: i64,
    stride: i64,
    pad: [i64; 2],
    out_pad: i64,
    dil: i64,
    groups: i64,
    epilogue: &[&str],
) -> Case {
    let w = [x[1], o / groups, k];
    let out = [
        x[0],
        o,
        (x[2] - 1) * stride - pad[0] - pad[1] + dil * (k - 1) + out_pad + 1,
    ];
    let body = vec![format!(
        "t0 = R.nn.conv1d_transpose(x, w, strides=[{stride}], padding={pad:?}, output_padding=[{out_pad}], dilation=[{dil}], groups={groups}, data_layout=\"NCW\", kernel_layout=\"IOW\", out_layout=\"NCW\", out_dtype=\"void\")"
    )];
    let name = format!(
        "conv1d_transpose x={x:?} w={w:?} stride={stride} pad={pad:?} out_pad={out_pad} dil={dil} groups={groups} {} => relaxjit.conv2d",
        epilogue.join("+")
    );
    finish(
        name,
        "float32",
        vec![("x", dims(&x)), ("w", dims(&w))],
        body,
        dims(&out),
        epilogue,
    )
}

/// `R.nn.conv2d_transpose` (NCHW/IOHW) of `o` output channels in all, which DispatchLibrary
/// runs as a stride-1 conv2d of the zero-inserted image.
#[allow(clippy::too_many_arguments)]
fn conv2d_transpose(
    x: [i64; 4],
    o: i64,
    k: [i64; 2],
    stride: [i64; 2],
    pad: [i64; 4],
    out_pad: [i64; 2],
    dil: [i64; 2],
    groups: i64,
    epilogue: &[&str],
) -> Case {
    let w = [x[1], o / groups, k[0], k[1]];
    let ext = |i: usize| {
        (x[2 + i] - 1) * stride[i] - pad[i] - pad[i + 2] + dil[i] * (k[i] - 1) + out_pad[i] + 1
    };
    let out = [x[0], o, ext(0), ext(1)];
    let body = vec![format!(
        "t0 = R.nn.conv2d_transpose(x, w, strides={stride:?}, padding={pad:?}, output_padding={out_pad:?}, dilation={dil:?}, groups={groups}, data_layout=\"NCHW\", kernel_layout=\"IOHW\", out_layout=\"NCHW\", out_dtype=\"void\")"
    )];
    // The library conv2d takes the epilogue: the activation, or else the add of `finish`.
    let kernel = match epilogue {
        [] => "conv2d_add".to_string(),
        e => format!("conv2d_{}", e.join("_")),
    };
    let name = format!(
        "conv2d_transpose x={x:?} w={w:?} stride={stride:?} pad={pad:?} out_pad={out_pad:?} dil={dil:?} groups={groups} {} => relaxjit.{kernel}",
        epilogue.join("+")
    );
    finish(
        name,
        "float32",
        vec![("x", dims(&x)), ("w", dims(&w))],
        body,
        dims(&out),
        epilogue,
    )
}

/// `R.nn.conv3d` (NCDHW/OIDHW; padding front, top, left, back, bottom, right), which
/// DispatchLibrary runs as a conv2d of the gathered depth slices.
#[allow(clippy::too_many_arguments)]
fn conv3d(
    x: [i64; 5],
    o: i64,
    k: [i64; 3],
    stride: [i64; 3],
    pad: [i64; 6],
    dil: [i64; 3],
    groups: i64,
    epilogue: &[&str],
) -> Case {
    let w = [o, x[1] / groups, k[0], k[1], k[2]];
    let ext = |i: usize| (x[2 + i] + pad[i] + pad[i + 3] - dil[i] * (k[i] - 1) - 1) / stride[i] + 1;
    let out = [x[0], o, ext(0), ext(1), ext(2)];
    let body = vec![format!(
        "t0 = R.nn.conv3d(x, w, strides={stride:?}, padding={pad:?}, dilation={dil:?}, groups={groups}, data_layout=\"NCDHW\", kernel_layout=\"OIDHW\", out_layout=\"NCDHW\", out_dtype=\"void\")"
    )];
    let name = format!(
        "conv3d x={x:?} w={w:?} stride={stride:?} pad={pad:?} dil={dil:?} groups={groups} {} => relaxjit.conv2d",
        epilogue.join("+")
    );
    finish(
        name,
        "float32",
        vec![("x", dims(&x)), ("w", dims(&w))],
        body,
        dims(&out),
        epilogue,
    )
}

#[allow(clippy::too_many_arguments)]
fn conv(
    x: [i64; 4],
    o: i64,
    k: [i64; 2],
    stride: [i64; 2],
    pad: [i64; 4],
    dil: [i64; 2],
    groups: i64,
    epilogue: &[&str],
) -> Case {
    let w = [o, x[1] / groups, k[0], k[1]];
    let ext = |size: i64, lo: i64, hi: i64, k: i64, s: i64, d: i64| {
        (size + lo + hi - d * (k - 1) - 1) / s + 1
    };
    let out = [
        x[0],
        o,
        ext(x[2], pad[0], pad[2], k[0], stride[0], dil[0]),
        ext(x[3], pad[1], pad[3], k[1], stride[1], dil[1]),
    ];
    let body = vec![format!(
        "t0 = R.nn.conv2d(x, w, strides={stride:?}, padding={pad:?}, dilation={dil:?}, groups={groups}, data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", out_dtype=None)"
    )];
    let name = format!(
        "conv2d x={x:?} w={w:?} stride={stride:?} pad={pad:?} dil={dil:?} groups={groups} {}",
        epilogue.join("+")
    );
    finish(
        name,
        "float32",
        vec![("x", dims(&x)), ("w", dims(&w))],
        body,
        dims(&out),
        epilogue,
    )
}

/// `y = R.nn.max_pool2d(x)` or `avg_pool2d`; the output shape is computed as TVM's inference
/// does (ceil mode rounds the window count up).
#[allow(clippy::too_many_arguments)]
fn pool(
    kind: &str,
    x: [i64; 4],
    k: [i64; 2],
    stride: [i64; 2],
    pad: [i64; 4],
    dil: [i64; 2],
    ceil: bool,
    include_pad: bool,
) -> Case {
    let ext = |size: i64, lo: i64, hi: i64, k: i64, s: i64, d: i64| {
        let num = size + lo + hi - d * (k - 1) - 1 + if ceil { s - 1 } else { 0 };
        num.div_euclid(s) + 1
    };
    let out = [
        x[0],
        x[1],
        ext(x[2], pad[0], pad[2], k[0], stride[0], dil[0]),
        ext(x[3], pad[1], pad[3], k[1], stride[1], dil[1]),
    ];
    let py = |b: bool| if b { "True" } else { "False" };
    let body = vec![format!(
        "y = R.nn.{kind}(x, pool_size={k:?}, strides={stride:?}, dilation={dil:?}, padding={pad:?}, ceil_mode={}, count_include_pad={}, layout=\"NCHW\", out_layout=\"NCHW\")",
        py(ceil),
        py(include_pad)
    )];
    Case {
        name: format!(
            "{kind} x={x:?} k={k:?} stride={stride:?} pad={pad:?} dil={dil:?} ceil={ceil} include_pad={include_pad}"
        ),
        dtype: "float32",
        params: vec![("x", dims(&x))],
        body,
        out: dims(&out),
    }
}

/// `y = R.concat((a, b), axis)`.
fn concat(a: &[i64], b: &[i64], axis: i64) -> Case {
    concat_n(&[a, b], axis)
}

/// `y = R.concat((t0, t1, ...), axis)`.
fn concat_n(shapes: &[&[i64]], axis: i64) -> Case {
    concat_typed(shapes, axis, "float32")
}

/// [`concat_n`] of tensors of `dtype` (the library copies any dtype's elements as bytes).
fn concat_typed(shapes: &[&[i64]], axis: i64, dtype: &'static str) -> Case {
    let nd = shapes[0].len() as i64;
    let ax = if axis < 0 { axis + nd } else { axis } as usize;
    let mut out = shapes[0].to_vec();
    out[ax] = shapes.iter().map(|s| s[ax]).sum();
    let names = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"];
    Case {
        name: format!("concat {shapes:?} axis={axis} {dtype}"),
        dtype,
        params: shapes
            .iter()
            .zip(names)
            .map(|(s, n)| (n, dims(s)))
            .collect(),
        body: vec![format!(
            "y = R.concat(({}), axis={axis})",
            names[..shapes.len()].join(", ")
        )],
        out: dims(&out),
    }
}

/// ONNX `LRN` over the channels of `x` as the ONNX frontends lower it (squares, a
/// channel-window `avg_pool3d` counting the padding, scale, bias, power, divide).
fn lrn(x: [i64; 4], size: i64, alpha: f64, beta: f64, bias: f64, dtype: &'static str) -> Case {
    let before = (size - 1) / 2;
    let after = size - 1 - before;
    let t = |s: &[i64]| format!("R.Tensor({}, dtype=\"{dtype}\")", shape_text(&dims(s)));
    let x5 = [x[0], 1, x[1], x[2], x[3]];
    let c = |v: f64| format!("R.const({v:?}, \"{dtype}\")");
    let body = vec![
        format!("sq: {} = R.multiply(x, x)", t(&x)),
        format!("e: {} = R.expand_dims(sq, axis=[1])", t(&x5)),
        format!(
            "p: {} = R.nn.avg_pool3d(e, pool_size=[{size}, 1, 1], strides=[1, 1, 1], dilation=[1, 1, 1], padding=[{before}, 0, 0, {after}, 0, 0], ceil_mode=False, count_include_pad=True, layout=\"NCDHW\", out_layout=\"NCDHW\")",
            t(&x5)
        ),
        format!("a: {} = R.squeeze(p, axis=[1])", t(&x)),
        format!("s: {} = R.multiply(a, {})", t(&x), c(alpha)),
        format!("b: {} = R.add(s, {})", t(&x), c(bias)),
        format!("d: {} = R.power(b, {})", t(&x), c(beta)),
        format!("y: {} = R.divide(x, d)", t(&x)),
    ];
    Case {
        name: format!("lrn x={x:?} size={size} alpha={alpha} beta={beta} bias={bias} {dtype}"),
        dtype,
        params: vec![("x", dims(&x))],
        body,
        out: dims(&x),
    }
}

/// `R.nn.softmax(x, axis=-1)`, or with `ln`, `R.nn.layer_norm(x, g, b, axes=[-1])`.
fn last_axis(ln: bool, x: &[i64], dtype: &'static str) -> Case {
    let n = *x.last().expect("a 1-D or larger shape");
    let (mut params, line) = (vec![("x", dims(x))], String::new());
    let line = if ln {
        params.push(("g", dims(&[n])));
        params.push(("b", dims(&[n])));
        "y = R.nn.layer_norm(x, g, b, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)"
            .to_string()
    } else {
        line + "y = R.nn.softmax(x, axis=-1)"
    };
    Case {
        name: format!(
            "{} x={x:?} {dtype}",
            if ln { "layer_norm" } else { "softmax" }
        ),
        dtype,
        params,
        body: vec![line],
        out: dims(x),
    }
}

/// `y = R.mean(x, axis, keepdims=True)` over the two spatial axes of an NCHW tensor: a global
/// average pool, exact (the name says so to the tolerance check).
fn spatial_mean(x: [i64; 4], axis: [i64; 2], dtype: &'static str) -> Case {
    Case {
        name: format!("mean x={x:?} axis={axis:?} {dtype} => relaxjit.avg_pool2d"),
        dtype,
        params: vec![("x", dims(&x))],
        body: vec![format!(
            "y = R.mean(x, axis=[{}, {}], keepdims=True)",
            axis[0], axis[1]
        )],
        out: dims(&[x[0], x[1], 1, 1]),
    }
}

fn cases() -> Vec<Case> {
    let f32_ = "float32";
    let mut c = vec![
        matmul(dims(&[5, 7]), dims(&[7, 3]), false, &[], f32_),
        matmul(dims(&[1, 9]), dims(&[9, 1]), false, &[], f32_),
        matmul(dims(&[6, 1]), dims(&[1, 4]), false, &[], f32_),
        matmul(dims(&[67, 129]), dims(&[129, 33]), false, &[], f32_),
        matmul(
            dims(&[130, 70]),
            dims(&[70, 90]),
            false,
            &["bias", "relu"],
            f32_,
        ),
        matmul(dims(&[2, 3, 17]), dims(&[17, 5]), false, &["bias"], f32_),
        matmul(dims(&[4, 3, 8]), dims(&[4, 8, 5]), false, &[], f32_),
        matmul(dims(&[1, 3, 8]), dims(&[4, 8, 5]), false, &[], f32_),
        matmul(dims(&[2, 1, 3, 8]), dims(&[5, 8, 6]), false, &[], f32_),
        matmul(dims(&[8]), dims(&[8, 5]), false, &[], f32_),
        matmul(dims(&[4, 8]), dims(&[8]), false, &[], f32_),
        matmul(dims(&[3, 4, 8]), dims(&[8]), false, &[], f32_),
        matmul(dims(&[8]), dims(&[8]), false, &[], f32_),
        // An empty batch broadcast against none (its extent 0 is the output's, not 1).
        matmul(dims(&[0, 4, 4]), dims(&[4, 3]), false, &[], f32_),
        matmul(
            dims(&[2, 0, 1, 5]),
            dims(&[1, 5, 3]),
            false,
            &["bias"],
            f32_,
        ),
        // Batch-1 layers with a weight of over 4 MiB: the matrix-vector product split over
        // the pool in column blocks (the last one partial).
        matmul(
            dims(&[1, 1031]),
            dims(&[1031, 1029]),
            true,
            &["bias", "relu"],
            f32_,
        ),
        matmul(dims(&[1031]), dims(&[1031, 1029]), false, &[], f32_),
        matmul(
            dims(&[1, 1, 1031]),
            dims(&[1031, 1029]),
            false,
            &["bias"],
            f32_,
        ),
        // Batch-1 layers under 4 MiB: one block on this thread, 128 columns at a time, the
        // last ones 16 at a time under a mask (291 = 2·128 + 2·16 + 3).
        matmul(
            dims(&[1, 300]),
            dims(&[300, 291]),
            false,
            &["bias", "relu"],
            f32_,
        ),
        matmul(dims(&[50]), dims(&[50, 144]), false, &[], f32_),
        matmul(
            dims(&[1, 40]),
            dims(&[40, 130]),
            false,
            &["bias"],
            "float64",
        ),
        matmul(
            dims(&[5, 12]),
            dims(&[12, 7]),
            true,
            &["bias", "gelu"],
            f32_,
        ),
        // A transposed weight large enough for the pool: blocks of 32 output columns, one
        // GEMM each (the last block 22 wide), in both float dtypes.
        matmul(
            dims(&[70, 130]),
            dims(&[130, 150]),
            true,
            &["bias", "relu"],
            f32_,
        ),
        matmul(dims(&[3, 70, 130]), dims(&[130, 150]), true, &[], "float64"),
        matmul(
            dims(&[16, 64]),
            dims(&[64, 32]),
            false,
            &["bias", "res"],
            f32_,
        ),
        matmul(
            dims(&[16, 64]),
            dims(&[64, 16]),
            false,
            &["res", "gelu_tanh"],
            f32_,
        ),
        matmul(
            dims(&[300, 257]),
            dims(&[257, 130]),
            false,
            &["bias", "res", "relu"],
            f32_,
        ),
        matmul(
            vec![("n", 5), d(6)],
            dims(&[6, 3]),
            false,
            &["bias", "relu"],
            f32_,
        ),
        matmul(vec![("n", 3), d(4), d(6)], dims(&[6, 3]), false, &[], f32_),
        matmul(
            dims(&[33, 40]),
            dims(&[40, 21]),
            false,
            &["bias", "gelu_tanh"],
            "float64",
        ),
        matmul(
            dims(&[2, 7, 9]),
            dims(&[2, 9, 3]),
            false,
            &["res"],
            "float64",
        ),
        matmul(
            dims(&[1, 784]),
            dims(&[784, 512]),
            false,
            &["bias", "relu"],
            f32_,
        ),
    ];
    c.extend([
        conv(
            [1, 3, 8, 8],
            4,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            1,
            &[],
        ),
        // An inner dimension of 161..=640 over at most 64 output channels, on tiles narrower
        // than 384 positions: the fused kernel rather than the GEMM (SqueezeNet's squeezes).
        conv(
            [1, 384, 13, 13],
            48,
            [1, 1],
            [1, 1],
            [0; 4],
            [1, 1],
            1,
            &["bias", "relu"],
        ),
        conv(
            [1, 24, 11, 9],
            40,
            [3, 3],
            [2, 2],
            [1, 1, 1, 1],
            [1, 1],
            1,
            &["bn", "res", "relu"],
        ),
        conv(
            [2, 4, 9, 7],
            6,
            [3, 2],
            [2, 1],
            [1, 0, 2, 1],
            [1, 2],
            2,
            &["bias", "relu"],
        ),
        conv(
            [1, 8, 10, 10],
            8,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            8,
            &["bias"],
        ),
        conv(
            [1, 4, 11, 11],
            8,
            [3, 3],
            [2, 2],
            [0, 1, 1, 0],
            [2, 1],
            4,
            &["relu"],
        ),
        conv(
            [2, 16, 7, 7],
            12,
            [1, 1],
            [1, 1],
            [0, 0, 0, 0],
            [1, 1],
            1,
            &["bias", "relu"],
        ),
        conv(
            [1, 5, 6, 6],
            3,
            [1, 1],
            [2, 2],
            [0, 0, 0, 0],
            [1, 1],
            1,
            &[],
        ),
        conv(
            [1, 3, 5, 5],
            2,
            [5, 5],
            [1, 1],
            [0, 0, 0, 0],
            [1, 1],
            1,
            &[],
        ),
        conv(
            [1, 64, 20, 20],
            64,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            1,
            &["bias", "relu"],
        ),
        conv(
            [1, 3, 9, 9],
            1,
            [3, 3],
            [3, 3],
            [2, 2, 2, 2],
            [1, 1],
            1,
            &[],
        ),
        // Large enough to run in parallel tiles: a plane split into tiles that cross output
        // rows, a small plane split by output channels, strides with dilation and uneven
        // padding, every epilogue form (per channel, full residual, other broadcasts). (15
        // input channels: with 16, the 3×3 ones would run as Winograd.)
        conv(
            [1, 15, 23, 19],
            24,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            1,
            &["bias", "res", "relu"],
        ),
        conv(
            [1, 64, 6, 6],
            128,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            1,
            &["bias3", "relu"],
        ),
        conv(
            [2, 8, 31, 29],
            48,
            [3, 3],
            [2, 2],
            [1, 2, 0, 1],
            [2, 1],
            1,
            &["colbias", "res", "gelu_tanh"],
        ),
        conv(
            [1, 96, 17, 17],
            64,
            [1, 1],
            [1, 1],
            [0, 0, 0, 0],
            [1, 1],
            2,
            &["res", "relu"],
        ),
        conv(
            [1, 32, 30, 30],
            32,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            32,
            &["bias", "res", "relu"],
        ),
        conv(
            [1, 15, 23, 19],
            24,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            1,
            &["bn", "relu"],
        ),
        conv(
            [2, 8, 9, 7],
            6,
            [1, 1],
            [1, 1],
            [0, 0, 0, 0],
            [1, 1],
            1,
            &["bn"],
        ),
        conv(
            [1, 64, 6, 6],
            128,
            [3, 3],
            [2, 2],
            [1, 1, 1, 1],
            [1, 1],
            1,
            &["bn", "res", "relu"],
        ),
        // A 1×1 conv over 160 channels on a 61×61 plane: each task's columns (a quarter of
        // the plane or more) span two of the small-k kernel's column blocks (416 columns at
        // 160 channels), with 44 output channels (a partial block of 8) and a residual, whose
        // next tile's lines the kernel prefetches past its last column.
        conv(
            [1, 160, 61, 61],
            44,
            [1, 1],
            [1, 1],
            [0, 0, 0, 0],
            [1, 1],
            1,
            &["bn", "res", "relu"],
        ),
        conv(
            [1, 16, 14, 14],
            32,
            [1, 1],
            [1, 1],
            [0, 0, 0, 0],
            [1, 1],
            1,
            &["bn", "onnxsum", "relu"],
        ),
        conv(
            [1, 8, 10, 10],
            8,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            8,
            &["bn", "colbias", "relu"],
        ),
        // Small planes split by output channels over a plane unfolded once: two images of two
        // groups, strided, dilated, unevenly padded; and a strided 1×1 over many channels.
        conv(
            [2, 96, 13, 13],
            96,
            [3, 3],
            [2, 2],
            [1, 0, 2, 1],
            [1, 2],
            2,
            &["bn", "res", "relu"],
        ),
        conv(
            [1, 256, 11, 11],
            160,
            [1, 1],
            [2, 2],
            [0, 0, 0, 0],
            [1, 1],
            1,
            &["bias", "relu"],
        ),
        // Depthwise taps that fall in the padding for every output column: a 5×5 kernel
        // over a one-column image padded by 2 (its first input column would be -1; found by
        // the random-program fuzzer), and one padded wider than the image on both sides.
        conv(
            [1, 6, 5, 1],
            6,
            [5, 5],
            [1, 1],
            [1, 2, 1, 2],
            [1, 1],
            6,
            &[],
        ),
        conv(
            [1, 4, 3, 2],
            8,
            [3, 5],
            [2, 3],
            [3, 4, 2, 4],
            [1, 1],
            4,
            &["bias", "relu"],
        ),
        // 3×3, stride 1, at least 16 input and output channels and 16 output tiles of 4 × 4:
        // Winograd F(4×4, 3×3), the weights transformed on the call (two images, edge tiles
        // cropped; the first with padding, the second without).
        conv(
            [1, 24, 64, 64],
            32,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            1,
            &["bn", "res", "relu"],
        ),
        conv(
            [2, 16, 15, 19],
            20,
            [3, 3],
            [1, 1],
            [0, 0, 0, 0],
            [1, 1],
            1,
            &["bias", "relu"],
        ),
        // Tiles wide enough for the fused kernel at a larger inner dimension (216, 192); fewer
        // than 16 output channels, so not Winograd.
        conv(
            [1, 24, 64, 64],
            12,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            1,
            &["bn", "res", "relu"],
        ),
        conv(
            [1, 192, 64, 64],
            16,
            [1, 1],
            [1, 1],
            [0, 0, 0, 0],
            [1, 1],
            1,
            &["bias", "relu"],
        ),
    ]);
    for kind in ["max_pool2d", "avg_pool2d"] {
        c.extend([
            // A column stride far past the row (2^62: the phase split asked for 2^62 phases
            // and overflowed; found by mutating the ONNX backend models), and stride 3 over a
            // row of 2 columns (more phases than columns).
            pool(
                kind,
                [2, 3, 6, 1],
                [2, 1],
                [2, 1 << 62],
                [0; 4],
                [1, 1],
                false,
                false,
            ),
            pool(
                kind,
                [1, 2, 5, 2],
                [2, 2],
                [1, 3],
                [0, 1, 1, 0],
                [1, 1],
                false,
                true,
            ),
            // Column stride 2 over rows of several 16-column blocks, padded and dilated
            // unevenly, ceil mode: vector blocks and edge blocks in one row.
            pool(
                kind,
                [1, 3, 9, 75],
                [3, 3],
                [2, 2],
                [1, 2, 0, 1],
                [1, 2],
                true,
                false,
            ),
            pool(
                kind,
                [1, 64, 56, 56],
                [2, 2],
                [2, 2],
                [0; 4],
                [1, 1],
                false,
                false,
            ),
            pool(
                kind,
                [2, 3, 13, 11],
                [3, 3],
                [2, 2],
                [1, 1, 1, 1],
                [1, 1],
                false,
                false,
            ),
            pool(
                kind,
                [1, 5, 12, 9],
                [3, 2],
                [1, 2],
                [1, 0, 2, 1],
                [1, 1],
                false,
                true,
            ),
            pool(
                kind,
                [1, 4, 11, 13],
                [3, 3],
                [2, 2],
                [0, 1, 0, 1],
                [2, 2],
                false,
                false,
            ),
            pool(
                kind,
                [1, 7, 13, 13],
                [3, 3],
                [2, 2],
                [0; 4],
                [1, 1],
                true,
                false,
            ),
            pool(
                kind,
                [1, 3, 10, 10],
                [3, 3],
                [3, 3],
                [1, 1, 1, 1],
                [1, 1],
                true,
                false,
            ),
            pool(
                kind,
                [1, 16, 7, 7],
                [7, 7],
                [1, 1],
                [0; 4],
                [1, 1],
                false,
                false,
            ),
            pool(
                kind,
                [1, 96, 55, 55],
                [3, 3],
                [2, 2],
                [1, 1, 1, 1],
                [1, 1],
                false,
                false,
            ),
            // Unit stride over rows of several column blocks (the last partial), padded.
            pool(
                kind,
                [1, 3, 9, 37],
                [3, 3],
                [1, 1],
                [1, 1, 1, 1],
                [1, 1],
                false,
                false,
            ),
            // More taps than a block folds from offsets: the general path.
            pool(
                kind,
                [1, 2, 11, 40],
                [9, 9],
                [2, 2],
                [0; 4],
                [1, 1],
                false,
                false,
            ),
        ]);
    }
    c.extend([
        concat(&[2, 3, 5], &[2, 7, 5], 1),
        concat(&[4, 3], &[1, 3], 0),
        concat(&[3, 2, 5], &[3, 2, 1], -1),
        concat(&[1, 64, 55, 55], &[1, 64, 55, 55], 1),
        concat(&[3, 40, 33, 7], &[3, 24, 33, 7], 1),
        // More than two inputs (an Inception block's four branches; one input of extent 0).
        concat_n(
            &[
                &[1, 64, 28, 28],
                &[1, 128, 28, 28],
                &[1, 32, 28, 28],
                &[1, 32, 28, 28],
            ],
            1,
        ),
        concat_n(
            &[&[2, 3, 4], &[2, 1, 4], &[2, 0, 4], &[2, 5, 4], &[2, 2, 4]],
            1,
        ),
        concat_n(&[&[3, 1], &[3, 2], &[3, 3]], -1),
        // Integer elements (ONNX shape arithmetic concatenates int64 vectors).
        concat_typed(&[&[2, 3], &[2, 1], &[2, 4]], 1, "int32"),
        concat_typed(&[&[3], &[1], &[2]], 0, "int64"),
    ]);
    for ln in [false, true] {
        c.extend([
            last_axis(ln, &[4, 128, 128], "float32"),
            last_axis(ln, &[3, 5, 37], "float32"),
            last_axis(ln, &[7, 1], "float32"),
            last_axis(ln, &[9], "float32"),
            last_axis(ln, &[130, 257], "float64"),
        ]);
    }
    // A layer norm's output (itself a library call) as the residual of a matmul chain.
    c.push(Case {
        name: "layer_norm then matmul + bias + residual => relaxjit.matmul_add_add".into(),
        dtype: f32_,
        params: vec![
            ("x", dims(&[6, 10])),
            ("g", dims(&[10])),
            ("b", dims(&[10])),
            ("w", dims(&[10, 10])),
            ("c", dims(&[10])),
        ],
        body: vec![
            "n = R.nn.layer_norm(x, g, b, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)".into(),
            "t0 = R.matmul(n, w, out_dtype=None)".into(),
            "t1 = R.add(t0, c)".into(),
            "y = R.add(n, t1)".into(),
        ],
        out: dims(&[6, 10]),
    });
    c.extend(view_cases());
    c.extend(concat_in_place_cases());
    c.extend([
        lrn([1, 96, 55, 55], 5, 1e-4, 0.75, 1.0, "float32"),
        lrn([2, 7, 3, 5], 4, 0.5, 0.75, 2.0, "float32"),
        lrn([1, 3, 1, 1], 5, 2.0, 0.6, 1.5, "float32"),
        lrn([1, 6, 4, 3], 1, 0.3, 0.5, 1.0, "float64"),
        lrn([1, 9, 2, 2], 3, 1.0, 1.0, 0.5, "float64"),
    ]);
    c.extend([
        // SqueezeNet's last: more planes than a task takes, in groups of planes folded side
        // by side and a remainder.
        spatial_mean([1, 1000, 13, 13], [2, 3], "float32"),
        spatial_mean([2, 3, 5, 7], [-1, -2], "float32"),
        spatial_mean([1, 11, 1, 9], [3, 2], "float64"),
    ]);
    for kind in ["max_pool2d", "avg_pool2d"] {
        // Column stride 2 over a row narrower than one block of 16 columns, padded on both
        // sides and above and below by whole tap rows.
        c.push(pool(
            kind,
            [1, 2, 5, 6],
            [5, 5],
            [2, 2],
            [2, 2, 2, 2],
            [1, 1],
            false,
            false,
        ));
        // The window is the whole plane, in ceil mode (which pads nothing here), over an odd
        // number of planes.
        c.push(pool(
            kind,
            [3, 5, 6, 4],
            [6, 4],
            [2, 3],
            [0; 4],
            [1, 1],
            true,
            false,
        ));
    }
    c.push(pool(
        "max_pool2d",
        [1, 2, 9, 8],
        [3, 3],
        [2, 2],
        [1, 1, 1, 1],
        [1, 1],
        true,
        true,
    ));
    c
}

/// A case written out: parameters, bindings (the last binds `y`) and the output shape.
fn written(
    name: &str,
    dtype: &'static str,
    params: &[(&'static str, &[i64])],
    body: &[&str],
    out: &[i64],
) -> Case {
    Case {
        name: name.into(),
        dtype,
        params: params.iter().map(|(n, s)| (*n, dims(s))).collect(),
        body: body.iter().map(|l| l.replace("DT", dtype)).collect(),
        out: dims(out),
    }
}

/// Concats whose inputs the memory planner places in the output's storage (the name says
/// `in place`: no `relaxjit.concat` is left) or that stay copies (`copied`): a fire module of
/// odd sizes, an input also read before the concat, an input used after it, a parameter
/// input, a batch of two, and a concat of a concat and one of its inputs (the second is
/// placed, the first copied).
fn concat_in_place_cases() -> Vec<Case> {
    let conv = |x: &str, w: &str, pad: i64| {
        format!(
            "R.nn.conv2d({x}, {w}, strides=[1, 1], padding=[{pad}, {pad}, {pad}, {pad}], dilation=[1, 1], groups=1, data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", out_dtype=None)"
        )
    };
    let fire = |n: i64, name: &str, tail: &[String], out_c: i64| {
        let mut body = vec![
            format!("s0 = {}", conv("x", "ws", 0)),
            "s = R.nn.relu(s0)".to_string(),
            format!("e10 = {}", conv("s", "w1", 0)),
            "e1 = R.nn.relu(e10)".to_string(),
            format!("e30 = {}", conv("s", "w3", 1)),
            "e3 = R.nn.relu(e30)".to_string(),
            "c = R.concat((e1, e3), axis=1)".to_string(),
        ];
        body.extend(tail.iter().cloned());
        let params: Vec<(&'static str, Vec<Dim>)> = vec![
            ("x", dims(&[n, 5, 7, 9])),
            ("ws", dims(&[3, 5, 1, 1])),
            ("w1", dims(&[6, 3, 1, 1])),
            ("w3", dims(&[5, 3, 3, 3])),
            ("wn", dims(&[4, 11, 1, 1])),
        ];
        Case {
            name: name.into(),
            dtype: "float32",
            params,
            body,
            out: dims(&[n, out_c, 7, 9]),
        }
    };
    let next = format!("y = {}", conv("c", "wn", 0));
    vec![
        fire(1, "a fire module, in place", std::slice::from_ref(&next), 4),
        fire(
            1,
            "a fire module whose expand output is also added after the concat, copied",
            &[
                format!("n = {}", conv("c", "wn", 0)),
                "m = R.nn.relu(e3)".to_string(),
                "y = R.concat((n, m), axis=1)".to_string(),
            ],
            9,
        ),
        fire(
            1,
            "a concat of a concat and one of its inputs, copied",
            &[
                "c2 = R.concat((c, e1), axis=1)".to_string(),
                "y = R.nn.relu(c2)".to_string(),
            ],
            17,
        ),
        fire(
            2,
            "a fire module of two images, copied",
            std::slice::from_ref(&next),
            4,
        ),
        written(
            "a concat of a parameter and a producer, copied",
            "float32",
            &[("x", &[1, 3, 4, 5])],
            &[
                "a = R.nn.relu(x)",
                "c = R.concat((x, a), axis=1)",
                "y = R.nn.relu(c)",
            ],
            &[1, 6, 4, 5],
        ),
        written(
            "a dropout whose mask is unused, elided",
            "float32",
            &[("x", &[1, 3, 4, 5])],
            &[
                "a = R.nn.relu(x)",
                "d = R.nn.dropout(a, rate=0.5)",
                "e = d[0]",
                "m = d[1]",
                "y = R.nn.softmax(e, axis=-1)",
            ],
            &[1, 3, 4, 5],
        ),
        written(
            "a concat of three producers, in place",
            "float32",
            &[("x", &[1, 3, 4, 5])],
            &[
                "a = R.nn.softmax(x, axis=-1)",
                "b = R.nn.relu(x)",
                "d = R.nn.softmax(b, axis=2)",
                "c = R.concat((a, d, b), axis=1)",
                "y = R.nn.relu(c)",
            ],
            &[1, 9, 4, 5],
        ),
        written(
            "a concat of three with an input used after it, copied",
            "float32",
            &[("x", &[1, 3, 4, 5])],
            &[
                "a = R.nn.softmax(x, axis=-1)",
                "b = R.nn.relu(x)",
                "d = R.nn.softmax(b, axis=2)",
                "c = R.concat((a, d, b), axis=1)",
                "e = R.nn.relu(c)",
                "f = R.concat((e, b), axis=1)",
                "y = R.nn.relu(f)",
            ],
            &[1, 12, 4, 5],
        ),
        written(
            "a producer read before the concat, in place",
            "float32",
            &[("x", &[1, 3, 4, 5])],
            &[
                "a = R.nn.softmax(x, axis=-1)",
                "b = R.nn.softmax(a, axis=-1)",
                "c = R.concat((a, b), axis=1)",
                "y = R.nn.relu(c)",
            ],
            &[1, 6, 4, 5],
        ),
    ]
}

/// Matmuls that read permuted (and reshaped) operands in place, scale and permute their
/// output: attention heads with odd sizes, a transposed left operand of one row, a 2-D operand
/// broadcast over a permuted batch, an intermediate used twice (no fold), and a permuted output
/// that another matmul reads transposed.
fn view_cases() -> Vec<Case> {
    let attention = |dtype: &'static str, scale_first: bool| {
        let scale = if scale_first {
            "s1 = R.multiply(R.const(0.125, \"DT\"), sc)"
        } else {
            "s1 = R.multiply(sc, R.const(0.125, \"DT\"))"
        };
        written(
            &format!("attention heads {dtype} => relaxjit.matmul_view"),
            dtype,
            &[("q", &[5, 21]), ("k", &[5, 21]), ("v", &[5, 21])],
            &[
                "lv3 = R.reshape(q, R.shape([5, 3, 7]))",
                "qh = R.permute_dims(lv3, axes=[1, 0, 2])",
                "lv5 = R.reshape(k, R.shape([5, 3, 7]))",
                "kh = R.permute_dims(lv5, axes=[1, 2, 0])",
                "lv7 = R.reshape(v, R.shape([5, 3, 7]))",
                "vh = R.permute_dims(lv7, axes=[1, 0, 2])",
                "sc = R.matmul(qh, kh, out_dtype=None)",
                scale,
                "p = R.nn.softmax(s1, axis=-1)",
                "a = R.matmul(p, vh, out_dtype=None)",
                "lv13 = R.permute_dims(a, axes=[1, 0, 2])",
                "y = R.reshape(lv13, R.shape([5, 21]))",
            ],
            &[5, 21],
        )
    };
    vec![
        attention("float32", false),
        attention("float64", true),
        written(
            "transposed left operand of one row => relaxjit.matmul_view",
            "float32",
            &[("at", &[3, 1]), ("b", &[3, 5])],
            &[
                "a = R.permute_dims(at, axes=None)",
                "t = R.matmul(a, b, out_dtype=None)",
                "y = R.add(t, R.const(0.5, \"DT\"))",
            ],
            &[1, 5],
        ),
        written(
            "2-D operand over a permuted batch => relaxjit.matmul_view",
            "float32",
            &[("x", &[3, 5]), ("w", &[4, 7, 5])],
            &[
                "wt = R.permute_dims(w, axes=[0, 2, 1])",
                "y = R.matmul(x, wt, out_dtype=None)",
            ],
            &[4, 3, 7],
        ),
        written(
            "an empty product over a permuted batch => relaxjit.matmul_view",
            "float32",
            &[("x", &[3, 5]), ("w", &[4, 0, 5])],
            &[
                "wt = R.permute_dims(w, axes=[0, 2, 1])",
                "y = R.matmul(x, wt, out_dtype=None)",
            ],
            &[4, 3, 0],
        ),
        written(
            "permuted batch, permuted and reshaped output => relaxjit.matmul_view",
            "float64",
            &[("x", &[5, 2, 3]), ("w", &[2, 3, 4])],
            &[
                "xt = R.permute_dims(x, axes=[1, 0, 2])",
                "t = R.matmul(xt, w, out_dtype=None)",
                "tt = R.permute_dims(t, axes=[1, 0, 2])",
                "y = R.reshape(tt, R.shape([5, 8]))",
            ],
            &[5, 8],
        ),
        written(
            "a transposed 2-D weight of one row, bias, relu => relaxjit.matmul_tb_add_relu",
            "float32",
            &[("x", &[1, 9]), ("w", &[6, 9]), ("b", &[6])],
            &[
                "wt = R.permute_dims(w, axes=None)",
                "t = R.matmul(x, wt, out_dtype=None)",
                "u = R.add(t, b)",
                "y = R.nn.relu(u)",
            ],
            &[1, 6],
        ),
        written(
            "a permuted operand used twice",
            "float32",
            &[("x", &[4, 6])],
            &[
                "xt = R.permute_dims(x, axes=None)",
                "t = R.matmul(xt, x, out_dtype=None)",
                "t2 = R.matmul(xt, x, out_dtype=None)",
                "y = R.add(t, t2)",
            ],
            &[6, 6],
        ),
        written(
            "a permuted view output read transposed by another matmul",
            "float32",
            &[("at", &[3, 4]), ("b", &[3, 5]), ("c", &[2, 5])],
            &[
                "a = R.permute_dims(at, axes=None)",
                "t = R.matmul(a, b, out_dtype=None)",
                "tt = R.permute_dims(t, axes=None)",
                "y = R.matmul(c, tt, out_dtype=None)",
            ],
            &[2, 4],
        ),
    ]
}

/// `c` in `float64`.
fn in_f64(mut c: Case) -> Case {
    c.dtype = "float64";
    c.body = c
        .body
        .iter()
        .map(|l| l.replace("\"float32\"", "\"float64\""))
        .collect();
    c.name = format!("float64 {}", c.name);
    c
}

/// The convolutions DispatchLibrary rewrites into a library conv2d between Relax operators:
/// conv1d, conv1d_transpose and conv2d_transpose (groups, dilation, output padding) and conv3d (strides 1 and 2,
/// asymmetric padding, dilation, depth kernels of 1, 2 and 3, groups, depthwise, odd sizes,
/// batch 2).
fn conv_rewrite_cases() -> Vec<Case> {
    vec![
        conv1d([1, 8, 50], 16, 3, 1, [1, 1], 1, 1, &[]),
        conv1d([2, 6, 37], 4, 5, 2, [2, 1], 2, 1, &["relu"]),
        conv1d([1, 8, 64], 8, 3, 1, [1, 1], 1, 8, &[]),
        conv1d([1, 64, 300], 128, 3, 1, [1, 1], 1, 1, &["relu"]),
        conv1d([1, 12, 40], 6, 1, 1, [0, 0], 1, 3, &[]),
        conv1d_transpose([1, 8, 20], 4, 4, 2, [1, 1], 0, 1, 1, &[]),
        conv2d_transpose(
            [1, 4, 5, 5],
            6,
            [2, 2],
            [3, 3],
            [1; 4],
            [0, 0],
            [1, 1],
            1,
            &[],
        ),
        conv1d_transpose([2, 6, 13], 9, 3, 3, [2, 0], 1, 2, 3, &["relu"]),
        conv1d_transpose([1, 16, 31], 16, 5, 1, [2, 2], 0, 1, 16, &[]),
        conv2d_transpose(
            [1, 8, 6, 6],
            4,
            [4, 4],
            [2, 2],
            [1; 4],
            [0, 0],
            [1, 1],
            1,
            &[],
        ),
        conv2d_transpose(
            [2, 5, 7, 5],
            3,
            [3, 3],
            [2, 2],
            [1; 4],
            [1, 1],
            [1, 1],
            1,
            &["relu"],
        ),
        conv2d_transpose(
            [1, 4, 5, 6],
            6,
            [3, 2],
            [1, 1],
            [0, 1, 2, 0],
            [0, 0],
            [1, 1],
            1,
            &[],
        ),
        conv2d_transpose(
            [1, 3, 4, 5],
            2,
            [3, 3],
            [3, 2],
            [2, 1, 0, 1],
            [2, 1],
            [1, 1],
            1,
            &[],
        ),
        conv2d_transpose(
            [1, 64, 16, 16],
            32,
            [4, 4],
            [2, 2],
            [1; 4],
            [0, 0],
            [1, 1],
            1,
            &["relu"],
        ),
        conv2d_transpose(
            [1, 8, 6, 6],
            4,
            [4, 4],
            [2, 2],
            [1; 4],
            [0, 0],
            [1, 1],
            2,
            &[],
        ),
        conv2d_transpose(
            [2, 6, 5, 7],
            9,
            [3, 3],
            [2, 1],
            [1, 0, 0, 1],
            [1, 0],
            [1, 1],
            3,
            &["relu"],
        ),
        conv2d_transpose(
            [1, 8, 7, 7],
            8,
            [3, 3],
            [2, 2],
            [1; 4],
            [1, 1],
            [1, 1],
            8,
            &[],
        ),
        conv2d_transpose(
            [1, 4, 5, 6],
            6,
            [3, 3],
            [1, 1],
            [1; 4],
            [0, 0],
            [2, 2],
            1,
            &[],
        ),
        conv2d_transpose(
            [2, 6, 5, 4],
            4,
            [3, 2],
            [2, 2],
            [2, 1, 1, 0],
            [1, 1],
            [2, 3],
            2,
            &[],
        ),
        conv2d_transpose(
            [1, 32, 9, 9],
            64,
            [4, 4],
            [2, 2],
            [1; 4],
            [0, 0],
            [1, 1],
            4,
            &["relu"],
        ),
        conv3d(
            [1, 4, 5, 6, 7],
            8,
            [3, 3, 3],
            [1; 3],
            [1; 6],
            [1; 3],
            1,
            &[],
        ),
        conv3d(
            [2, 3, 7, 9, 8],
            5,
            [3, 3, 3],
            [2; 3],
            [1, 0, 1, 0, 1, 2],
            [1; 3],
            1,
            &["relu"],
        ),
        conv3d(
            [1, 4, 9, 8, 8],
            6,
            [3, 3, 3],
            [1; 3],
            [2; 6],
            [2; 3],
            1,
            &[],
        ),
        conv3d(
            [1, 8, 4, 6, 6],
            8,
            [1, 3, 3],
            [1; 3],
            [0, 1, 1, 0, 1, 1],
            [1; 3],
            1,
            &[],
        ),
        conv3d(
            [1, 8, 5, 6, 6],
            4,
            [1, 1, 1],
            [2, 1, 1],
            [0; 6],
            [1; 3],
            1,
            &[],
        ),
        conv3d(
            [1, 3, 6, 7, 5],
            4,
            [2, 3, 2],
            [2, 1, 2],
            [1, 0, 0, 0, 2, 1],
            [1, 2, 1],
            1,
            &[],
        ),
        conv3d(
            [1, 8, 5, 6, 7],
            6,
            [3, 3, 3],
            [1, 2, 1],
            [1; 6],
            [1; 3],
            2,
            &[],
        ),
        conv3d(
            [2, 6, 4, 5, 5],
            6,
            [3, 3, 3],
            [1; 3],
            [1; 6],
            [1; 3],
            6,
            &["relu"],
        ),
        conv3d(
            [1, 5, 1, 6, 6],
            3,
            [1, 3, 3],
            [1; 3],
            [0, 1, 1, 0, 1, 1],
            [1; 3],
            1,
            &[],
        ),
        conv3d(
            [1, 16, 8, 16, 16],
            32,
            [3, 3, 3],
            [1; 3],
            [1; 6],
            [1; 3],
            1,
            &["relu"],
        ),
        conv3d(
            [2, 8, 3, 5, 6],
            16,
            [1, 1, 1],
            [1; 3],
            [0; 6],
            [1; 3],
            1,
            &[],
        ),
        conv3d(
            [1, 6, 4, 5, 9],
            4,
            [1, 1, 3],
            [1, 1, 2],
            [0, 0, 1, 0, 0, 2],
            [1, 1, 2],
            2,
            &["relu"],
        ),
        in_f64(conv3d(
            [2, 4, 5, 6, 5],
            6,
            [3, 2, 3],
            [2, 1, 1],
            [1, 0, 1, 1, 1, 0],
            [1, 2, 1],
            2,
            &[],
        )),
        in_f64(conv2d_transpose(
            [1, 6, 5, 4],
            9,
            [3, 3],
            [2, 2],
            [1; 4],
            [1, 0],
            [2, 1],
            3,
            &[],
        )),
    ]
}

/// Deterministic values in [-1, 1).
fn random(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

fn input(shape: &[Dim], seed: u64, dtype: &str) -> Value {
    let dims: Vec<i64> = shape.iter().map(|d| d.1).collect();
    let n: i64 = dims.iter().product();
    let v = random(n as usize, seed);
    let t = match dtype {
        "float32" => {
            let v: Vec<f32> = v.iter().map(|&x| x as f32).collect();
            Tensor::from_slice(&dims, &v).unwrap()
        }
        "int32" => {
            let v: Vec<i32> = v.iter().map(|&x| (x * 1000.0) as i32).collect();
            Tensor::from_slice(&dims, &v).unwrap()
        }
        "int64" => {
            let v: Vec<i64> = v.iter().map(|&x| (x * 1000.0) as i64).collect();
            Tensor::from_slice(&dims, &v).unwrap()
        }
        _ => Tensor::from_slice(&dims, &v).unwrap(),
    };
    Value::Tensor(t)
}

fn values(v: &Value) -> Vec<f64> {
    let t = v.as_tensor().expect("a tensor result");
    (0..t.numel()).map(|i| t.get_f64(i).unwrap()).collect()
}

#[test]
fn library_kernels_match_the_tir_path() {
    let failures = compare_with_tir(cases(), ExecMode::Bytecode);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn convolution_rewrites_match_the_tir_path_in_both_exec_modes() {
    let mut failures = Vec::new();
    for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        failures.extend(
            compare_with_tir(conv_rewrite_cases(), mode)
                .into_iter()
                .map(|f| format!("{mode:?}: {f}")),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Engines in `exec_mode` with the library (the default) and without it (the TIR path).
fn library_and_tir(exec_mode: ExecMode) -> (Engine, Engine) {
    let engine = |library| {
        Engine::new(Config {
            exec_mode,
            library,
            ..Config::default()
        })
        .unwrap()
    };
    (engine(true), engine(false))
}

/// Runs each case with the library and without (the TIR path) in `exec_mode`, and returns
/// what went wrong: a case whose library path calls no `relaxjit.*` kernel (or not the one its
/// name ends in), or whose results differ beyond the dtype's tolerance.
fn compare_with_tir(cases: Vec<Case>, exec_mode: ExecMode) -> Vec<String> {
    let (lib, tir) = library_and_tir(exec_mode);
    let mut failures = Vec::new();
    for case in cases {
        let src = case.script();
        let args: Vec<Value> = case
            .params
            .iter()
            .enumerate()
            .map(|(i, (_, s))| input(s, i as u64 + 1, case.dtype))
            .collect();
        let run = |engine: &Engine, want_library: bool| -> Result<Vec<f64>, String> {
            let m = engine
                .compile_str(&src)
                .map_err(|e| format!("compile: {e}\n{src}"))?;
            let listing = m.executable().as_text();
            if listing.contains("relaxjit.") != want_library {
                return Err(format!(
                    "library kernel called: {}, expected {want_library}\n{listing}",
                    !want_library
                ));
            }
            // A batch norm after a convolution runs inside the library kernel.
            if want_library && case.name.contains(" bn") && !listing.contains("_bn") {
                return Err(format!("the batch norm was not fused\n{listing}"));
            }
            // A name ending in `=> KERNEL` says which kernel the chain must become (called
            // in the bytecode, or in the function table of compiled code).
            if let Some((_, k)) = case.name.split_once("=> ")
                && want_library
                && !listing.contains(&format!("\"{k}\""))
                && !listing.contains(&format!(" {k} "))
                && !listing.contains(&format!("{k},"))
                && !listing.contains(&format!("@{k} packed_func"))
            {
                return Err(format!("`{k}` is not called\n{listing}"));
            }
            if want_library && case.name.ends_with("elided") && listing.contains("dropout") {
                return Err(format!("the dropout was not elided\n{listing}"));
            }
            let copies = listing.contains("relaxjit.concat");
            if want_library
                && (case.name.ends_with("in place") && copies
                    || case.name.ends_with("copied") && !copies)
            {
                return Err(format!("concat copied: {copies}\n{listing}"));
            }
            if want_library && case.name.contains("onnxsum") && !listing.contains("_bn_add_relu") {
                return Err(format!(
                    "the stacked sum was not fused as an add\n{listing}"
                ));
            }
            let out = m.run("main", &args).map_err(|e| format!("run: {e}"))?;
            Ok(values(&out))
        };
        let (got, want) = match (run(&lib, true), run(&tir, false)) {
            (Ok(g), Ok(w)) => (g, w),
            (g, w) => {
                let first = |r: Result<Vec<f64>, String>| {
                    r.err()
                        .map(|e| e.lines().take(3).collect::<Vec<_>>().join(" | "))
                };
                failures.push(format!(
                    "{}: library: {:?}; TIR: {:?}",
                    case.name,
                    first(g),
                    first(w)
                ));
                continue;
            }
        };
        // Pooling folds its window in the TIR path's order and concat copies: the results
        // are identical.
        let tol = if case.name.contains("pool2d") || case.name.starts_with("concat") {
            0.0
        } else if case.dtype == "float32" {
            1e-4
        } else {
            1e-10
        };
        let bad = got
            .iter()
            .zip(&want)
            .position(|(g, w)| (g - w).abs() > tol * (1.0 + w.abs()) || g.is_nan() != w.is_nan());
        if got.len() != want.len() || bad.is_some() {
            let i = bad.unwrap_or(0);
            failures.push(format!(
                "{}: element {i}: library {:?}, TIR {:?} (lengths {} / {})",
                case.name,
                got.get(i),
                want.get(i),
                got.len(),
                want.len()
            ));
        } else {
            println!("ok {}", case.name);
        }
    }
    failures
}

/// A kernel handed a shape it does not expect fails with an error naming the kernel.
#[test]
fn a_wrong_shape_is_an_error_not_a_crash() {
    let mut lib = vm::Library::new();
    jit::library::add_to(&mut lib);
    let f = lib.get_packed("relaxjit.matmul").unwrap();
    let t = |s: &[i64]| Value::Tensor(Tensor::zeros(s, vm::DataType::F32).unwrap());
    let err = f.call(&[t(&[2, 3]), t(&[4, 5]), t(&[2, 5])]).unwrap_err();
    assert!(err.to_string().contains("reduction"), "{err}");
    let err = f.call(&[t(&[2, 3]), t(&[3, 5]), t(&[2, 4])]).unwrap_err();
    assert!(err.to_string().contains("output shape"), "{err}");
    let conv = lib.get_packed("relaxjit.conv2d").unwrap();
    let ints: Vec<Value> = [1, 1, 0, 0, 0, 0, 1, 1, 1].map(Value::Int).to_vec();
    let mut args = vec![t(&[1, 3, 4, 4]), t(&[2, 3, 3, 3])];
    args.extend(ints);
    args.push(t(&[1, 2, 3, 3]));
    let err = conv.call(&args).unwrap_err();
    assert!(err.to_string().contains("output shape"), "{err}");
    let gather = lib.get_packed("relaxjit.gather_planes").unwrap();
    let table = |v: &[i64]| Value::Tensor(Tensor::from_slice(&[v.len() as i64], v).unwrap());
    let cases = [
        (
            t(&[2, 3, 3]),
            table(&[0, -1, 1]),
            t(&[2, 3, 3]),
            "3 plane indices",
        ),
        (
            t(&[2, 3, 3]),
            table(&[0, 2]),
            t(&[2, 3, 3]),
            "past the 2 planes",
        ),
        (
            t(&[2, 3, 4]),
            table(&[0, 1]),
            t(&[2, 3, 3]),
            "not made of planes",
        ),
        (t(&[2, 3, 3]), t(&[2]), t(&[2, 3, 3]), "int64"),
        (t(&[4]), table(&[0]), t(&[4]), "two axes"),
    ];
    for (x, indices, out, want) in cases {
        let err = gather.call(&[x, indices, out]).unwrap_err();
        assert!(err.to_string().contains(want), "{err}");
    }
    let dilate = lib.get_packed("relaxjit.dilate").unwrap();
    let cases = [
        (t(&[1, 2, 3]), [2, 2], t(&[1, 4, 6]), "expected [1, 3, 5]"),
        (t(&[1, 2, 3]), [0, 2], t(&[1, 1, 5]), "positive strides"),
        (t(&[3]), [2, 2], t(&[5]), "two axes"),
    ];
    for (x, [sh, sw], out, want) in cases {
        let err = dilate
            .call(&[x, Value::Int(sh), Value::Int(sw), out])
            .unwrap_err();
        assert!(err.to_string().contains(want), "{err}");
    }
    let x = Tensor::from_slice(&[1, 2, 2], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let out = Tensor::zeros(&[1, 3, 4], vm::DataType::F32).unwrap();
    dilate
        .call(&[
            Value::Tensor(x),
            Value::Int(2),
            Value::Int(3),
            Value::Tensor(out.clone()),
        ])
        .unwrap();
    let want = [
        1.0f32, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 4.0,
    ];
    assert_eq!(out.to_vec::<f32>().unwrap(), want);
    // A plane gather copies planes and fills zeros.
    let x = Tensor::from_slice(&[2, 1, 2], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let out = Tensor::zeros(&[3, 1, 2], vm::DataType::F32).unwrap();
    gather
        .call(&[
            Value::Tensor(x),
            table(&[1, -1, 0]),
            Value::Tensor(out.clone()),
        ])
        .unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [3.0, 4.0, 0.0, 0.0, 1.0, 2.0]);
}

/// Constant `float32` weights that DispatchLibrary packs (`dispatch_library::pack_conv_weights`)
/// run the kernel vectorized along the output channels. The engine cases above pass weights as
/// parameters, which are never packed; here each case calls the same kernel with the OIHW
/// weights (the path checked against TIR above) and with the packed ones, on the same inputs:
/// channel counts that leave a panel partly empty (16, 40), planes that are not multiples of
/// the register tile, padding, strides, dilation, two images, every epilogue form (batch norm,
/// per-channel bias, full residual, a broadcast that is preloaded, an activation other than
/// ReLU), and sizes big enough to be split over the pool.
#[test]
fn packed_conv_weights_match_oihw_weights() {
    let cases: &[WeightsCase] = &[
        (
            [1, 8, 7, 7],
            32,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            "conv2d",
            &[],
        ),
        (
            [1, 5, 5, 7],
            40,
            [3, 3],
            [1, 1],
            [1, 2, 0, 1],
            [1, 1],
            "conv2d_add_relu",
            &["chan"],
        ),
        (
            [2, 24, 13, 13],
            16,
            [1, 1],
            [1, 1],
            [0, 0, 0, 0],
            [1, 1],
            "conv2d_bn_add_relu",
            &["bn", "full"],
        ),
        (
            [1, 12, 15, 11],
            64,
            [3, 3],
            [2, 2],
            [1, 1, 1, 1],
            [1, 1],
            "conv2d_add_gelu",
            &["full"],
        ),
        (
            [1, 9, 12, 12],
            33,
            [3, 3],
            [1, 1],
            [2, 2, 2, 2],
            [2, 2],
            "conv2d_add",
            &["row"],
        ),
        (
            [1, 6, 9, 9],
            48,
            [5, 5],
            [1, 2],
            [2, 2, 2, 2],
            [1, 1],
            "conv2d_bn_relu",
            &["bn"],
        ),
        (
            [2, 64, 14, 14],
            96,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            "conv2d_bn_add_relu",
            &["bn", "full"],
        ),
        (
            [1, 256, 7, 7],
            512,
            [1, 1],
            [1, 1],
            [0, 0, 0, 0],
            [1, 1],
            "conv2d_add_relu",
            &["chan"],
        ),
        (
            [1, 128, 14, 14],
            64,
            [1, 1],
            [2, 2],
            [0, 0, 0, 0],
            [1, 1],
            "conv2d_add_add",
            &["chan", "full"],
        ),
        // One output channel, then 17: one lane of a panel, a panel and one lane.
        (
            [1, 7, 9, 10],
            1,
            [3, 3],
            [1, 1],
            [1, 1, 1, 1],
            [1, 1],
            "conv2d_add_relu",
            &["chan"],
        ),
        (
            [2, 5, 11, 9],
            17,
            [3, 3],
            [1, 1],
            [0, 1, 2, 0],
            [1, 1],
            "conv2d_bn_add_relu",
            &["bn", "full"],
        ),
        // 1000 output channels, a 1×1 kernel over a plane whose tiles cross rows.
        (
            [1, 3, 5, 5],
            1000,
            [1, 1],
            [1, 1],
            [0, 0, 0, 0],
            [1, 1],
            "conv2d_add",
            &["chan"],
        ),
        // Input rows and columns no tap reaches (read in place), and a stride of 3 (the GEMM
        // reads the packed weights).
        (
            [1, 8, 11, 10],
            33,
            [2, 2],
            [2, 2],
            [0, 0, 0, 0],
            [1, 1],
            "conv2d_relu",
            &[],
        ),
        (
            [2, 6, 13, 14],
            48,
            [3, 3],
            [3, 3],
            [1, 1, 1, 1],
            [1, 1],
            "conv2d_add_relu",
            &["chan"],
        ),
        // Strided and dilated with padding that the bottom and right taps reach.
        (
            [1, 4, 12, 11],
            64,
            [3, 3],
            [2, 2],
            [3, 0, 3, 4],
            [2, 3],
            "conv2d_add",
            &["full"],
        ),
        // A wide plane (tiles of 12 along rows of 60) with its last row partly covered.
        (
            [1, 3, 33, 60],
            32,
            [7, 7],
            [2, 1],
            [3, 3, 3, 3],
            [1, 1],
            "conv2d_bn_relu",
            &["bn"],
        ),
    ];
    compare_weight_forms(cases, WeightForm::Packed);
}

/// Constant 3×3 `float32` weights of stride-1 convolutions that DispatchLibrary transforms for
/// Winograd F(4×4, 3×3) (`dispatch_library::winograd_conv_weights`), against the OIHW weights
/// as in `packed_conv_weights_match_oihw_weights`: odd planes (edge tiles cropped), planes
/// smaller than a tile, padding 0, 1 and uneven, channel counts that are not multiples of 16,
/// two images, a plane small enough for blocks of output channels to share the transformed
/// input, and every epilogue form. Winograd rounds differently from the direct convolution
/// (the transforms' coefficients, up to 8, amplify the rounding of each product), so the
/// tolerance is relative to the largest output magnitude (1e-4 of it; measured errors are
/// below 1e-5 of it), not to each element.
#[test]
fn winograd_conv_weights_match_oihw_weights() {
    let s = [1, 1];
    let cases: &[WeightsCase] = &[
        (
            [1, 16, 13, 13],
            32,
            [3, 3],
            s,
            [1, 1, 1, 1],
            s,
            "conv2d",
            &[],
        ),
        (
            [1, 5, 5, 7],
            40,
            [3, 3],
            s,
            [1, 2, 0, 1],
            s,
            "conv2d_add_relu",
            &["chan"],
        ),
        (
            [2, 24, 17, 15],
            20,
            [3, 3],
            s,
            [1, 1, 1, 1],
            s,
            "conv2d_bn_add_relu",
            &["bn", "full"],
        ),
        (
            [1, 12, 15, 11],
            64,
            [3, 3],
            s,
            [0, 0, 0, 0],
            s,
            "conv2d_add_gelu",
            &["full"],
        ),
        (
            [1, 9, 12, 12],
            33,
            [3, 3],
            s,
            [2, 2, 2, 2],
            s,
            "conv2d_add",
            &["row"],
        ),
        (
            [1, 3, 2, 3],
            17,
            [3, 3],
            s,
            [1, 1, 1, 1],
            s,
            "conv2d_bn_relu",
            &["bn"],
        ),
        (
            [1, 64, 14, 14],
            96,
            [3, 3],
            s,
            [1, 1, 1, 1],
            s,
            "conv2d_add_add",
            &["chan", "full"],
        ),
        (
            [1, 32, 57, 55],
            48,
            [3, 3],
            s,
            [1, 1, 1, 1],
            s,
            "conv2d_add_relu",
            &["chan"],
        ),
    ];
    compare_weight_forms(cases, WeightForm::Winograd);
}

/// (input NCHW, output channels, kernel, stride, padding t/l/b/r, dilation, kernel name, the
/// shapes of its extra tensors after the weights).
type WeightsCase = (
    [i64; 4],
    i64,
    [i64; 2],
    [i64; 2],
    [i64; 4],
    [i64; 2],
    &'static str,
    &'static [&'static str],
);

/// A form DispatchLibrary gives constant conv2d weights.
#[derive(Clone, Copy, PartialEq)]
enum WeightForm {
    Packed,
    Winograd,
}

/// Runs each case's kernel with the weights in `form` and with OIHW `float32` weights, and
/// compares both with the kernel run in `float64` on the same values (the direct path, the
/// reference: the packed and Winograd forms are `float32`'s only).
fn compare_weight_forms(cases: &[WeightsCase], form: WeightForm) {
    use relaxjit::relax::transform::dispatch_library::{
        WINOGRAD_ROWS, pack_conv_weights, winograd_conv_weights,
    };
    let mut lib = vm::Library::new();
    jit::library::add_to(&mut lib);
    // f32 values, as f32 or (for the reference) as f64 tensors.
    let tensor = |shape: &[i64], seed: u64, positive: bool, wide: bool| {
        let n = shape.iter().product::<i64>() as usize;
        let v: Vec<f32> = random(n, seed)
            .iter()
            .map(|&x| {
                if positive {
                    x.abs() as f32 + 0.5
                } else {
                    x as f32
                }
            })
            .collect();
        if wide {
            let v: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
            Tensor::from_slice(shape, &v).unwrap()
        } else {
            Tensor::from_slice(shape, &v).unwrap()
        }
    };
    let mut failures = Vec::new();
    for &(x, o, k, stride, pad, dil, name, extra) in cases {
        let ext = |size: i64, lo: i64, hi: i64, k: i64, s: i64, d: i64| {
            (size + lo + hi - d * (k - 1) - 1) / s + 1
        };
        let out = [
            x[0],
            o,
            ext(x[2], pad[0], pad[2], k[0], stride[0], dil[0]),
            ext(x[3], pad[1], pad[3], k[1], stride[1], dil[1]),
        ];
        let wshape = [o, x[1], k[0], k[1]];
        let w = tensor(&wshape, 2, false, false);
        let dims = wshape.map(|d| d as usize);
        let wv = w.to_vec::<f32>().unwrap();
        let wp = match form {
            WeightForm::Packed => {
                let (packed, pshape) = pack_conv_weights(&wv, dims);
                Tensor::from_slice(&pshape.map(|d| d as i64), &packed).unwrap()
            }
            WeightForm::Winograd => {
                let u = winograd_conv_weights(&wv, [dims[0], dims[1]]);
                Tensor::from_slice(&[WINOGRAD_ROWS as i64, o, x[1]], &u).unwrap()
            }
        };
        let rest = |wide: bool| {
            let mut rest = Vec::new();
            for (i, e) in extra.iter().enumerate() {
                let seed = 10 + 5 * i as u64;
                let mut push = |shape: &[i64], seed: u64, positive: bool| {
                    rest.push(Value::Tensor(tensor(shape, seed, positive, wide)));
                };
                match *e {
                    "bn" => {
                        for (j, positive) in [false, false, false, true].into_iter().enumerate() {
                            push(&[o], seed + j as u64, positive);
                        }
                    }
                    "chan" => push(&[1, o, 1, 1], seed, false),
                    "full" => push(&out, seed, false),
                    _ => push(&[out[3]], seed, false),
                }
            }
            rest
        };
        let mut ints: Vec<Value> = stride
            .iter()
            .chain(&pad)
            .chain(&dil)
            .map(|&v| Value::Int(v))
            .collect();
        ints.push(Value::Int(1));
        if name.contains("_bn") {
            ints.push(Value::Float(1e-5));
        }
        let f = lib.get_packed(&format!("relaxjit.{name}")).unwrap();
        // The reference runs in f64 (the direct path: the fast paths are f32's) on the same
        // values.
        let run = |weights: &Tensor| -> Result<Vec<f64>, String> {
            let wide = weights.dtype() == vm::DataType::F64;
            let y = Tensor::zeros(&out, weights.dtype()).unwrap();
            let mut args = vec![
                Value::Tensor(tensor(&x, 1, false, wide)),
                Value::Tensor(weights.clone()),
            ];
            args.extend(rest(wide));
            args.extend(ints.iter().cloned());
            args.push(Value::Tensor(y.clone()));
            f.call(&args).map_err(|e| e.to_string())?;
            Ok(if wide {
                y.to_vec::<f64>().unwrap()
            } else {
                y.to_vec::<f32>()
                    .unwrap()
                    .into_iter()
                    .map(f64::from)
                    .collect()
            })
        };
        let reference = tensor(&wshape, 2, false, true);
        let label =
            format!("{name} x={x:?} o={o} k={k:?} stride={stride:?} pad={pad:?} dil={dil:?}");
        // OIHW f32 weights too: 3×3 ones may be transformed for Winograd on the call.
        for (form_name, weights) in [("transformed", &wp), ("OIHW f32", &w)] {
            match (run(&reference), run(weights)) {
                (Ok(want), Ok(got)) => {
                    let scale = want.iter().fold(1f64, |m, v| m.max(v.abs()));
                    let bad = got.iter().zip(&want).position(|(g, w)| match form {
                        WeightForm::Packed => (g - w).abs() > 1e-4 * (1.0 + w.abs()),
                        WeightForm::Winograd => (g - w).abs() > 1e-4 * scale || g.is_nan(),
                    });
                    if let Some(i) = bad {
                        failures.push(format!(
                            "{label}: element {i}: {form_name} {}, reference {}",
                            got[i], want[i]
                        ));
                    } else {
                        println!("ok {label} {form_name}");
                    }
                }
                (a, b) => failures.push(format!(
                    "{label}: reference {:?}, {form_name} {:?}",
                    a.err(),
                    b.err()
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Convolutions and matmuls DispatchLibrary rewrites, with constant weights (as an imported
/// model has): the rewrite rearranges the constant itself (conv1d: reshaped to `[O, C, 1, K]`;
/// conv1d_transpose and conv2d_transpose: each group transposed to OIHW and flipped; conv3d:
/// `[O, kd·C/g, kh, kw]`, so that the conv2d dispatch packs it; a transposed matmul weight is
/// read transposed), and the result matches the TIR path in both exec modes.
#[test]
fn constant_weights_match_the_tir_path() {
    // The call, its data shape, weight shape and output shape, and the library call expected.
    type Shaped<'a> = (&'a str, &'a [i64], &'a [i64], &'a [i64], &'a str);
    let tb = r#"R.matmul(x, R.permute_dims(metadata["ir.GenericConst"][0], axes=None), out_dtype="void")"#;
    let cases: [Shaped; 8] = [
        (
            tb,
            &[3, 40, 70],
            &[50, 70],
            &[3, 40, 50],
            "relaxjit.matmul_tb_relu in:",
        ),
        (
            tb,
            &[2, 70],
            &[50, 70],
            &[2, 50],
            "relaxjit.matmul_tb_relu in:",
        ),
        (
            tb,
            &[1, 70],
            &[50, 70],
            &[1, 50],
            "relaxjit.matmul_tb_relu in:",
        ),
        (
            r#"R.nn.conv1d(x, metadata["ir.GenericConst"][0], strides=[1], padding=[1, 1], dilation=[1], groups=1, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype="void")"#,
            &[1, 64, 120],
            &[64, 64, 3],
            &[1, 64, 120],
            "relaxjit.conv2d",
        ),
        (
            r#"R.nn.conv2d_transpose(x, metadata["ir.GenericConst"][0], strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype="void")"#,
            &[1, 16, 9, 7],
            &[16, 24, 4, 4],
            &[1, 24, 18, 14],
            "relaxjit.conv2d",
        ),
        (
            r#"R.nn.conv2d_transpose(x, metadata["ir.GenericConst"][0], strides=[2, 1], padding=[1, 2, 0, 1], output_padding=[1, 0], dilation=[2, 1], groups=4, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype="void")"#,
            &[1, 32, 9, 7],
            &[32, 8, 3, 4],
            &[1, 32, 21, 7],
            "relaxjit.conv2d",
        ),
        (
            r#"R.nn.conv1d_transpose(x, metadata["ir.GenericConst"][0], strides=[2], padding=[1, 0], output_padding=[1], dilation=[2], groups=2, data_layout="NCW", kernel_layout="IOW", out_layout="NCW", out_dtype="void")"#,
            &[1, 16, 30],
            &[16, 12, 3],
            &[1, 24, 63],
            "relaxjit.conv2d",
        ),
        (
            r#"R.nn.conv3d(x, metadata["ir.GenericConst"][0], strides=[1, 2, 1], padding=[1, 1, 1, 1, 0, 1], dilation=[1, 1, 1], groups=2, data_layout="NCDHW", kernel_layout="OIDHW", out_layout="NCDHW", out_dtype="void")"#,
            &[2, 16, 6, 9, 8],
            &[32, 8, 3, 3, 3],
            &[2, 32, 6, 4, 8],
            "relaxjit.conv2d",
        ),
    ];
    for (i, (call, x_shape, w_shape, y_shape, kernel)) in cases.into_iter().enumerate() {
        let tensor = |s: &[i64]| {
            let s: Vec<String> = s.iter().map(i64::to_string).collect();
            format!("R.Tensor(({}), dtype=\"float32\")", s.join(", "))
        };
        let (xt, yt) = (tensor(x_shape), tensor(y_shape));
        let text = format!(
            "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    @R.function\n    def main(x: {xt}) -> {yt}:\n        with R.dataflow():\n            y: {yt} = {call}\n            z: {yt} = R.nn.relu(y)\n            R.output(z)\n        return z\n"
        );
        let n: i64 = w_shape.iter().product();
        let w: Vec<f32> = random(n as usize, 7 + i as u64)
            .iter()
            .map(|&v| v as f32)
            .collect();
        let weights = Tensor::from_slice(w_shape, &w).unwrap();
        let x = input(&dims(x_shape), 3, "float32");
        let run = |library: bool, exec_mode: ExecMode| {
            let engine = Engine::new(Config {
                library,
                exec_mode,
                ..Config::default()
            })
            .unwrap();
            let m = engine
                .compile_str_with_metadata(&text, vec![weights.clone()])
                .unwrap();
            if exec_mode == ExecMode::Bytecode {
                let listing = m.executable().as_text();
                assert_eq!(listing.contains(kernel), library, "{listing}");
            }
            values(&m.run("main", std::slice::from_ref(&x)).unwrap())
        };
        let want = run(false, ExecMode::Bytecode);
        for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
            let got = run(true, mode);
            assert_eq!(got.len(), want.len());
            for (e, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-4 * (1.0 + w.abs()),
                    "{call} ({mode:?}): element {e}: {g} vs {w}"
                );
            }
        }
    }
}

/// Malformed attributes of the convolutions DispatchLibrary rewrites are errors (when the
/// module is read, compiled or run), with the library and without, in both exec modes — never
/// panics.
#[test]
fn malformed_convolution_attributes_are_errors() {
    let conv3d = |attrs: &str| {
        format!(
            r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 5, 6, 7), dtype="float32"), w: R.Tensor((8, 4, 3, 3, 3), dtype="float32")):
        with R.dataflow():
            y = R.nn.conv3d(x, w, {attrs}, data_layout="NCDHW", kernel_layout="OIDHW", out_layout="NCDHW", out_dtype="void")
            R.output(y)
        return y
"#
        )
    };
    let transposed = |attrs: &str| {
        format!(
            r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 5, 6), dtype="float32"), w: R.Tensor((4, 2, 3, 3), dtype="float32")):
        with R.dataflow():
            y = R.nn.conv2d_transpose(x, w, {attrs}, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype="void")
            R.output(y)
        return y
"#
        )
    };
    let transposed1d = |attrs: &str| {
        format!(
            r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 6), dtype="float32"), w: R.Tensor((4, 2, 3), dtype="float32")):
        with R.dataflow():
            y = R.nn.conv1d_transpose(x, w, {attrs}, data_layout="NCW", kernel_layout="IOW", out_layout="NCW", out_dtype="void")
            R.output(y)
        return y
"#
        )
    };
    let modules = [
        conv3d("strides=[0, 1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], groups=1"),
        conv3d("strides=[1, 1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 0, 1], groups=1"),
        conv3d("strides=[1, 1, 1], padding=[1, 1, 1, 1], dilation=[1, 1, 1], groups=1"),
        conv3d("strides=[1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], groups=1"),
        conv3d("strides=[1, 1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], groups=3"),
        conv3d("strides=[1, 1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], groups=0"),
        conv3d("strides=[1, 1, 1], padding=[-5, 1, 1, 1, 1, 1], dilation=[1, 1, 1], groups=1"),
        transposed(
            "strides=[0, 1], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=1",
        ),
        transposed(
            "strides=[1, 1], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[0, 1], groups=1",
        ),
        transposed(
            "strides=[1, 1], padding=[0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=1",
        ),
        transposed(
            "strides=[1, 1], padding=[0, 0, 0, 0], output_padding=[0, 0, 0], dilation=[1, 1], groups=1",
        ),
        transposed(
            "strides=[1, 1], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=3",
        ),
        transposed(
            "strides=[1, 1], padding=[0, 0, 0, 0], output_padding=[0, 0], dilation=[1, 1], groups=0",
        ),
        transposed1d("strides=[1], padding=[0, 0, 0], output_padding=[0], dilation=[1], groups=1"),
        transposed1d("strides=[1, 1], padding=[0, 0], output_padding=[0], dilation=[1], groups=1"),
        transposed1d("strides=[1], padding=[0, 0], output_padding=[0], dilation=[0], groups=1"),
    ];
    let args = [
        input(&dims(&[1, 4, 5, 6, 7]), 1, "float32"),
        input(&dims(&[8, 4, 3, 3, 3]), 2, "float32"),
    ];
    let targs = [
        input(&dims(&[1, 4, 5, 6]), 1, "float32"),
        input(&dims(&[4, 2, 3, 3]), 2, "float32"),
    ];
    let t1args = [
        input(&dims(&[1, 4, 6]), 1, "float32"),
        input(&dims(&[4, 2, 3]), 2, "float32"),
    ];
    let mut failures = Vec::new();
    for src in &modules {
        let args = if src.contains("conv3d") {
            &args[..]
        } else if src.contains("conv1d") {
            &t1args[..]
        } else {
            &targs[..]
        };
        for library in [true, false] {
            for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
                let engine = Engine::new(Config {
                    library,
                    exec_mode,
                    ..Config::default()
                })
                .unwrap();
                let result = engine
                    .compile_str(src)
                    .and_then(|m| m.run("main", args).map(|_| ()));
                if result.is_ok() {
                    let line = src.lines().find(|l| l.contains("R.nn.")).unwrap_or("");
                    failures.push(format!(
                        "library {library}, {exec_mode:?}: no error for {}",
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An infinite or NaN weight meets the zero padding: the TIR legalization multiplies the
/// padded image, so those products are NaN (`0 · inf`, `0 · NaN`), and the library must agree
/// bit for bit. Its depthwise kernel skipped the padding (a NaN weight at a corner gave finite
/// outputs along the border), and its Winograd transform mixed the weight into its
/// neighbours' points. Integer inputs make every finite sum exact in any order, so finite
/// outputs are compared bit for bit too; NaNs compare as NaNs (their payload is the
/// hardware's). Weights passed at run time and as constants (which DispatchLibrary would
/// pack or Winograd-transform), with a bias and with a bias and ReLU, in both exec modes.
#[test]
fn non_finite_weights_at_the_padding_match_the_tir_path() {
    // x shape, output channels, groups.
    let shapes: [([i64; 4], i64, i64); 5] = [
        ([1, 1, 1, 1], 2, 1),
        ([1, 4, 5, 5], 4, 4),
        ([2, 3, 5, 5], 4, 1),
        ([1, 32, 14, 14], 32, 32),
        ([1, 64, 16, 16], 64, 1),
    ];
    let ints = |n: usize, seed: u64, span: f64| -> Vec<f32> {
        random(n, seed)
            .iter()
            .map(|v| (v * span).round() as f32)
            .collect()
    };
    let mut checked = 0;
    for (x_shape, o, groups) in shapes {
        let w_shape = [o, x_shape[1] / groups, 3, 3];
        let x_len = x_shape.iter().product::<i64>() as usize;
        let w_len = w_shape.iter().product::<i64>() as usize;
        let x: Value = Tensor::from_slice(&x_shape, &ints(x_len, 1, 3.0))
            .unwrap()
            .into();
        let b: Value = Tensor::from_slice(&[1, o, 1, 1], &ints(o as usize, 2, 2.0))
            .unwrap()
            .into();
        for special in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            for tap in [0, 8] {
                let mut w = ints(w_len, 3, 2.0);
                // A corner tap of the first channel, and one of the last.
                w[tap] = special;
                w[w_len - 9 + (8 - tap)] = special;
                let weights = Tensor::from_slice(&w_shape, &w).unwrap();
                for relu in [false, true] {
                    for constant in [false, true] {
                        let wt = if constant {
                            r#"metadata["ir.GenericConst"][0]"#
                        } else {
                            "w"
                        };
                        let w_param = if constant {
                            String::new()
                        } else {
                            format!(", w: R.Tensor({w_shape:?}, dtype=\"float32\")")
                                .replace('[', "(")
                                .replace(']', ")")
                        };
                        let act = if relu { "R.nn.relu(z)" } else { "z" };
                        let src = format!(
                            "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor({xs}, dtype=\"float32\"), b: R.Tensor((1, {o}, 1, 1), dtype=\"float32\"){w_param}):\n        with R.dataflow():\n            y = R.nn.conv2d(x, {wt}, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups={groups})\n            z = R.add(y, b)\n            r = {act}\n            R.output(r)\n        return r\n",
                            xs = format!("{x_shape:?}").replace('[', "(").replace(']', ")"),
                        );
                        let mut args = vec![x.clone(), b.clone()];
                        if !constant {
                            args.push(weights.clone().into());
                        }
                        let run = |library: bool, exec_mode: ExecMode| -> Vec<f32> {
                            let engine = Engine::new(Config {
                                library,
                                exec_mode,
                                ..Config::default()
                            })
                            .unwrap();
                            let meta = if constant {
                                vec![weights.clone()]
                            } else {
                                Vec::new()
                            };
                            let m = engine
                                .compile_str_with_metadata(&src, meta)
                                .unwrap_or_else(|e| panic!("{e}\n{src}"));
                            let listing = m.executable().as_text();
                            if exec_mode == ExecMode::Bytecode {
                                assert_eq!(listing.contains("relaxjit.conv2d"), library);
                            }
                            let out = m.run("main", &args).unwrap_or_else(|e| panic!("{e}"));
                            out.as_tensor().unwrap().to_vec::<f32>().unwrap()
                        };
                        let want = run(false, ExecMode::Bytecode);
                        assert!(want.iter().any(|v| !v.is_finite()) || relu);
                        for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
                            let got = run(true, mode);
                            assert_eq!(got.len(), want.len());
                            for (e, (g, w)) in got.iter().zip(&want).enumerate() {
                                assert!(
                                    g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan(),
                                    "x {x_shape:?} groups {groups}, weight {special} at tap {tap}, relu {relu}, constant {constant}, {mode:?}: element {e}: library {g}, TIR {w}"
                                );
                            }
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, 5 * 3 * 2 * 2 * 2 * 2);
}

/// `R.take` of a tensor of indices runs as `relaxjit.take` (a run copied per index) and gives
/// the TIR legalization's result, bit for bit, in both exec modes: every axis of a 3-D tensor,
/// indices of rank 0, 1 and 2, `int32` and `int64`, `float32` and `int8` data, `clip` and
/// `wrap` with negative and past-the-end indices, and a table large enough to be copied in
/// parallel. In `fast` mode an index outside the axis is an error on both paths.
#[test]
fn take_matches_the_tir_path() {
    type Case = (
        &'static str,
        &'static str,
        [i64; 3],
        i64,
        &'static str,
        Vec<i64>,
        Vec<i64>,
    );
    let cases: Vec<Case> = vec![
        (
            "float32",
            "int64",
            [4, 5, 6],
            0,
            "fast",
            vec![3],
            vec![3, 0, 1],
        ),
        (
            "float32",
            "int32",
            [4, 5, 6],
            1,
            "fast",
            vec![2, 2],
            vec![4, 0, 2, 2],
        ),
        ("int8", "int64", [4, 5, 6], 2, "fast", vec![], vec![5]),
        (
            "float32",
            "int64",
            [4, 5, 6],
            1,
            "clip",
            vec![4],
            vec![-3, 7, 4, 1],
        ),
        (
            "int8",
            "int32",
            [4, 5, 6],
            0,
            "wrap",
            vec![5],
            vec![-1, -5, 4, 9, 2],
        ),
        (
            "float32",
            "int64",
            [1000, 64, 1],
            0,
            "fast",
            vec![4096],
            (0..4096).map(|i| (i * 7919) % 1000).collect(),
        ),
    ];
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let (lib, tir) = library_and_tir(exec_mode);
        for (dtype, idt, xs, axis, mode, is, iv) in &cases {
            let ax = *axis as usize;
            let mut out: Vec<i64> = xs[..ax].to_vec();
            out.extend(is);
            out.extend(&xs[ax + 1..]);
            let text = |s: &[i64]| shape_text(&dims(s));
            let src = format!(
                r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor({}, dtype="{dtype}"), i: R.Tensor({}, dtype="{idt}")) -> R.Tensor({}, dtype="{dtype}"):
        with R.dataflow():
            y: R.Tensor({}, dtype="{dtype}") = R.take(x, i, axis={axis}, mode="{mode}")
            R.output(y)
        return y
"#,
                text(xs),
                text(is),
                text(&out),
                text(&out)
            );
            let n: i64 = xs.iter().product();
            let x = match *dtype {
                "float32" => {
                    let v: Vec<f32> = (0..n).map(|k| k as f32 * 0.5 - 3.0).collect();
                    Tensor::from_slice(xs, &v).unwrap()
                }
                _ => {
                    let v: Vec<i8> = (0..n).map(|k| (k % 251 - 125) as i8).collect();
                    Tensor::from_slice(xs, &v).unwrap()
                }
            };
            let indices = |values: &[i64]| match *idt {
                "int64" => Tensor::from_slice(is, values).unwrap(),
                _ => {
                    let v: Vec<i32> = values.iter().map(|&v| v as i32).collect();
                    Tensor::from_slice(is, &v).unwrap()
                }
            };
            let i = indices(iv);
            let what = format!("{exec_mode:?} {dtype} {xs:?} take {idt} {iv:?} axis {axis} {mode}");
            let m = lib
                .compile_str(&src)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(
                m.executable().as_text().contains("relaxjit.take"),
                "{what}: no library call"
            );
            let got = m
                .run("main", &[x.clone().into(), i.clone().into()])
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let want = tir
                .compile_str(&src)
                .unwrap()
                .run("main", &[x.clone().into(), i.clone().into()])
                .unwrap_or_else(|e| panic!("{what} (TIR): {e}"));
            let (got, want) = (got.as_tensor().unwrap(), want.as_tensor().unwrap());
            assert_eq!(got.shape(), want.shape(), "{what}");
            assert_eq!(got.to_bytes(), want.to_bytes(), "{what}");
            // Out of the axis in fast mode: an error on both paths.
            if *mode == "fast" {
                let mut bad = iv.clone();
                if let Some(first) = bad.first_mut() {
                    *first = xs[ax];
                } else {
                    continue;
                }
                let bad_i = indices(&bad);
                for (engine, path) in [(&lib, "library"), (&tir, "TIR")] {
                    let r = engine
                        .compile_str(&src)
                        .unwrap()
                        .run("main", &[x.clone().into(), bad_i.clone().into()]);
                    assert!(r.is_err(), "{what}: {path} path took index {}", xs[ax]);
                }
            }
        }
    }
}

/// `R.argmax` / `R.argmin` run as `relaxjit.argmax` / `relaxjit.argmin` and give the TIR
/// legalization's indices exactly, in both exec modes: over every axis of a 3-D tensor and
/// over all elements, with and without `keepdims`, on values with ties, both zeros, ±inf,
/// NaNs (which the fold replaces by the element after them) and rows where nothing beats
/// the dtype's extreme (−1), for float32, float64, int32 and int64, and on a tensor large
/// enough to be reduced in parallel.
#[test]
fn arg_reductions_match_the_tir_path() {
    let special = [
        1.0,
        -2.0,
        1.0,
        f64::NAN,
        -0.0,
        0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        3.5,
        -f64::from(f32::MAX),
        f64::NAN,
        2.0,
    ];
    let values = |n: usize, dtype: &str| -> Vec<f64> {
        (0..n)
            .map(|k| {
                let v = special[(k * 7 + k / 5) % special.len()];
                if dtype.starts_with("int") && !v.is_finite() {
                    (k % 5) as f64 - 2.0
                } else if dtype.starts_with("int") && v.abs() > 1e9 {
                    if dtype == "int32" {
                        f64::from(i32::MIN)
                    } else {
                        i64::MIN as f64
                    }
                } else {
                    v
                }
            })
            .collect()
    };
    let (libs, tirs): (Vec<Engine>, Vec<Engine>) = [ExecMode::Bytecode, ExecMode::Compiled]
        .into_iter()
        .map(library_and_tir)
        .unzip();
    let shapes: [&[i64]; 3] = [&[3, 4, 5], &[2, 1, 7], &[64, 2048]];
    for dtype in ["float32", "float64", "int32", "int64"] {
        for shape in shapes {
            let n: i64 = shape.iter().product();
            let mut vals = values(n as usize, dtype);
            // Runs without a NaN take the kernel's vectorized path, runs with one its serial
            // fold: every other run along the last axis is made NaN-free.
            let last = *shape.last().unwrap() as usize;
            if shape[0] != 3 {
                for (k, v) in vals.iter_mut().enumerate() {
                    if v.is_nan() && (k / last).is_multiple_of(2) {
                        *v = 0.25;
                    }
                }
            }
            // A run where every element is the extreme the fold starts from.
            if shape[0] == 3 {
                let lowest = match dtype {
                    "float32" => -f64::from(f32::MAX),
                    "float64" => f64::MIN,
                    "int32" => f64::from(i32::MIN),
                    _ => i64::MIN as f64,
                };
                for v in &mut vals[..5] {
                    *v = lowest;
                }
            }
            let x = match dtype {
                "float32" => {
                    let v: Vec<f32> = vals.iter().map(|&v| v as f32).collect();
                    Tensor::from_slice(shape, &v).unwrap()
                }
                "float64" => Tensor::from_slice(shape, &vals).unwrap(),
                "int32" => {
                    let v: Vec<i32> = vals.iter().map(|&v| v as i32).collect();
                    Tensor::from_slice(shape, &v).unwrap()
                }
                _ => {
                    let v: Vec<i64> = vals.iter().map(|&v| v as i64).collect();
                    Tensor::from_slice(shape, &v).unwrap()
                }
            };
            let rank = shape.len() as i64;
            let axes: Vec<Option<i64>> = std::iter::once(None)
                .chain((0..rank).map(Some))
                .chain(std::iter::once(Some(-1)))
                .collect();
            for op in ["argmax", "argmin"] {
                for axis in &axes {
                    for keepdims in [false, true] {
                        let out: Vec<i64> = match axis {
                            None if keepdims => vec![1; shape.len()],
                            None => vec![],
                            Some(a) => {
                                let a = if *a < 0 { a + rank } else { *a } as usize;
                                let mut o = shape.to_vec();
                                if keepdims {
                                    o[a] = 1;
                                } else {
                                    o.remove(a);
                                }
                                o
                            }
                        };
                        let text = |s: &[i64]| shape_text(&dims(s));
                        let axis_text = axis.map_or("None".to_string(), |a| a.to_string());
                        let src = format!(
                            r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor({}, dtype="{dtype}")) -> R.Tensor({}, dtype="int64"):
        with R.dataflow():
            y: R.Tensor({}, dtype="int64") = R.{op}(x, axis={axis_text}, keepdims={})
            R.output(y)
        return y
"#,
                            text(shape),
                            text(&out),
                            text(&out),
                            if keepdims { "True" } else { "False" }
                        );
                        for (lib, tir) in libs.iter().zip(&tirs) {
                            let what = format!(
                                "{op} {dtype} {shape:?} axis {axis_text} keepdims {keepdims}"
                            );
                            let m = lib
                                .compile_str(&src)
                                .unwrap_or_else(|e| panic!("{what}: {e}"));
                            assert!(
                                m.executable().as_text().contains(&format!("relaxjit.{op}")),
                                "{what}: no library call"
                            );
                            let got = m.run("main", &[x.clone().into()]).unwrap();
                            let want = tir
                                .compile_str(&src)
                                .unwrap()
                                .run("main", &[x.clone().into()])
                                .unwrap();
                            let (g, w) = (got.as_tensor().unwrap(), want.as_tensor().unwrap());
                            assert_eq!(g.shape(), w.shape(), "{what}");
                            assert_eq!(
                                g.to_vec::<i64>().unwrap(),
                                w.to_vec::<i64>().unwrap(),
                                "{what}"
                            );
                        }
                    }
                }
            }
        }
    }
}
