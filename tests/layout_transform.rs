//! `R.layout_transform` end to end, in both exec modes, against a reference computed here: the
//! output starts as the pad value everywhere, then every input element `x[i]` is written to
//! `out[map(i)]` (TVM's semantics: `sch.transform_layout` with `pad_value`, 0 when `None`).
//! Static and symbolic shapes, with and without padding, splits, fusions, NCHW ↔ NCHW16c, and
//! a transform fused with its neighbours; malformed calls are compile-time errors.

use relaxjit::{Config, Engine, ExecMode, Tensor, Value};

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// The reference: `out` of `out_shape` filled with `pad`, then `out[map(i)] = x[i]` for every
/// index `i` of `in_shape`.
fn reference(
    x: &[f32],
    in_shape: &[usize],
    out_shape: &[usize],
    map: impl Fn(&[usize]) -> Vec<usize>,
    pad: f32,
) -> Vec<f32> {
    let mut out = vec![pad; out_shape.iter().product()];
    let (si, so) = (strides(in_shape), strides(out_shape));
    for (flat, v) in x.iter().enumerate() {
        let idx: Vec<usize> = (0..in_shape.len())
            .map(|d| flat / si[d] % in_shape[d])
            .collect();
        let o = map(&idx);
        assert_eq!(o.len(), out_shape.len());
        let k: usize = o.iter().zip(&so).map(|(a, b)| a * b).sum();
        out[k] = *v;
    }
    out
}

fn iota(n: usize) -> Vec<f32> {
    (0..n).map(|v| v as f32 + 1.0).collect()
}

/// Runs `main` of `src` on one float32 input in both exec modes; the output's shape and values.
fn run_both(src: &str, x: &[f32], shape: &[usize]) -> Vec<(Vec<usize>, Vec<f32>)> {
    [ExecMode::Bytecode, ExecMode::Compiled]
        .into_iter()
        .map(|exec_mode| {
            let engine = Engine::new(Config {
                exec_mode,
                ..Config::default()
            })
            .unwrap();
            let compiled = engine
                .compile_str(src)
                .unwrap_or_else(|e| panic!("{exec_mode:?}: {e}\n{src}"));
            let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            let arg = Value::Tensor(Tensor::from_slice(&dims, x).unwrap());
            let out = compiled
                .run("main", &[arg])
                .unwrap_or_else(|e| panic!("{exec_mode:?}: {e}"));
            let t = out.as_tensor().unwrap();
            let dims = t.shape().iter().map(|&d| d as usize).collect();
            (dims, t.to_vec::<f32>().unwrap())
        })
        .collect()
}

/// A module whose `main` takes `x` of `input` (an annotation) and returns
/// `R.layout_transform(x, <args>)` annotated as `output`.
fn module(input: &str, output: &str, args: &str) -> String {
    format!(
        r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor({input}, dtype="float32")) -> R.Tensor({output}, dtype="float32"):
        with R.dataflow():
            gv: R.Tensor({output}, dtype="float32") = R.layout_transform(x, {args})
            R.output(gv)
        return gv
"#
    )
}

/// Runs `src` on `1, 2, 3, ...` of `in_shape` in both modes.
fn check(src: &str, in_shape: &[usize], out_shape: &[usize], want: &[f32]) {
    check_on(
        src,
        &iota(in_shape.iter().product()),
        in_shape,
        out_shape,
        want,
    );
}

fn check_on(src: &str, x: &[f32], in_shape: &[usize], out_shape: &[usize], want: &[f32]) {
    for (shape, got) in run_both(src, x, in_shape) {
        assert_eq!(shape, out_shape, "{src}");
        assert_eq!(got, want, "{src}");
    }
}

const SPLIT3: &str = "index_map=T.index_map(lambda a, b, c: (a, c, b // 3, b % 3)), \
                      pad_value=R.prim_value(T.float32(2)), axis_separators=[]";

fn split3(i: &[usize]) -> Vec<usize> {
    vec![i[0], i[2], i[1] / 3, i[1] % 3]
}

#[test]
fn split_an_axis_without_padding() {
    let src = module("(2, 21, 3)", "(2, 3, 7, 3)", SPLIT3);
    let want = reference(&iota(126), &[2, 21, 3], &[2, 3, 7, 3], split3, 2.0);
    // No padding: the output is a permutation of the input.
    let mut sorted = want.clone();
    sorted.sort_by(f32::total_cmp);
    assert_eq!(sorted, iota(126));
    check(&src, &[2, 21, 3], &[2, 3, 7, 3], &want);
}

#[test]
fn split_an_axis_with_padding() {
    let src = module("(2, 20, 3)", "(2, 3, 7, 3)", SPLIT3);
    let want = reference(&iota(120), &[2, 20, 3], &[2, 3, 7, 3], split3, 2.0);
    // b = 20 is padding: out[a, c, 6, 2] for every a, c.
    let so = strides(&[2, 3, 7, 3]);
    for a in 0..2 {
        for c in 0..3 {
            assert_eq!(want[a * so[0] + c * so[1] + 6 * so[2] + 2], 2.0);
        }
    }
    check(&src, &[2, 20, 3], &[2, 3, 7, 3], &want);
}

/// TVM's printed form for symbolic shapes: its ceil division `(b - b % -3) // 3` in the
/// annotation, run at a size that splits evenly and one that is padded.
#[test]
fn split_a_symbolic_axis() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("a", "b", "c"), dtype="float32")) -> R.Tensor(("a", "c", "(b - b % -3) // 3", 3), dtype="float32"):
        a = T.int64()
        c = T.int64()
        b = T.int64()
        gv: R.Tensor((a, c, (b - b % -3) // 3, 3), dtype="float32") = R.layout_transform(x, index_map=T.index_map(lambda a_1, b_1, c_1: (a_1, c_1, b_1 // 3, b_1 % 3)), pad_value=R.prim_value(T.float32(2)), axis_separators=[])
        return gv
"#;
    for b in [21usize, 20, 1] {
        let in_shape = [2, b, 3];
        let out_shape = [2, 3, b.div_ceil(3), 3];
        let want = reference(&iota(6 * b), &in_shape, &out_shape, split3, 2.0);
        check(src, &in_shape, &out_shape, &want);
    }
}

#[test]
fn fuse_two_axes() {
    let src = module(
        "(4, 4)",
        "(16,)",
        "index_map=T.index_map(lambda axis0, axis1: (axis0 * 4 + axis1,)), pad_value=None, \
         axis_separators=[]",
    );
    check(&src, &[4, 4], &[16], &iota(16));
}

#[test]
fn split_one_axis_in_two() {
    let src = module(
        "(16,)",
        "(4, 4)",
        "index_map=T.index_map(lambda i: (i // 4, i % 4)), pad_value=None, axis_separators=[1]",
    );
    check(&src, &[16], &[4, 4], &iota(16));
}

/// A transposing map, and a map that pads a short axis with zeros (pad_value None).
#[test]
fn transpose_and_zero_padding() {
    let src = module(
        "(3, 5)",
        "(5, 3)",
        "index_map=T.index_map(lambda i, j: (j, i))",
    );
    let want = reference(&iota(15), &[3, 5], &[5, 3], |i| vec![i[1], i[0]], 0.0);
    check(&src, &[3, 5], &[5, 3], &want);
    let src = module(
        "(14,)",
        "(16,)",
        "index_map=T.index_map(lambda i: (i % 16,)), pad_value=None, axis_separators=[]",
    );
    let mut want = iota(14);
    want.extend([0.0, 0.0]);
    check(&src, &[14], &[16], &want);
}

fn nchw16c(i: &[usize]) -> Vec<usize> {
    vec![i[0], i[1] / 16, i[2], i[3], i[1] % 16]
}

#[test]
fn nchw_to_nchw16c_and_back() {
    let to = "index_map=T.index_map(lambda n, c, h, w: (n, c // 16, h, w, c % 16)), \
              pad_value=None, axis_separators=[]";
    let back = "index_map=T.index_map(lambda n, c, h, w, c16: (n, c * 16 + c16, h, w)), \
                pad_value=None, axis_separators=[]";
    let x = iota(2 * 32 * 2 * 3);
    let want = reference(&x, &[2, 32, 2, 3], &[2, 2, 2, 3, 16], nchw16c, 0.0);
    check(
        &module("(2, 32, 2, 3)", "(2, 2, 2, 3, 16)", to),
        &[2, 32, 2, 3],
        &[2, 2, 2, 3, 16],
        &want,
    );
    let inverse = |i: &[usize]| vec![i[0], i[1] * 16 + i[4], i[2], i[3]];
    let want_back = reference(&want, &[2, 2, 2, 3, 16], &[2, 32, 2, 3], inverse, 0.0);
    assert_eq!(want_back, x);
    check_on(
        &module("(2, 2, 2, 3, 16)", "(2, 32, 2, 3)", back),
        &want,
        &[2, 2, 2, 3, 16],
        &[2, 32, 2, 3],
        &want_back,
    );
    // 20 channels: the second block of 16 is padded with zeros.
    let x = iota(20 * 2 * 3);
    let want = reference(&x, &[1, 20, 2, 3], &[1, 2, 2, 3, 16], nchw16c, 0.0);
    check(
        &module("(1, 20, 2, 3)", "(1, 2, 2, 3, 16)", to),
        &[1, 20, 2, 3],
        &[1, 2, 2, 3, 16],
        &want,
    );
}

/// A round trip NCHW → NCHW16c → NCHW between elementwise operators, through the whole
/// pipeline (fusion included), over a symbolic batch.
#[test]
fn transforms_between_other_operators() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 32, 2, 2), dtype="float32")) -> R.Tensor(("n", 32, 2, 2), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            a = R.negative(x)
            b = R.layout_transform(a, index_map=T.index_map(lambda n_1, c, h, w: (n_1, c // 16, h, w, c % 16)), pad_value=None, axis_separators=[])
            c = R.nn.relu(b)
            d = R.layout_transform(c, index_map=T.index_map(lambda n_1, c_1, h, w, c16: (n_1, c_1 * 16 + c16, h, w)), pad_value=None, axis_separators=[])
            e = R.add(d, x)
            R.output(e)
        return e
"#;
    for n in [1usize, 3] {
        let x: Vec<f32> = (0..n * 128)
            .map(|v| if v % 3 == 0 { -(v as f32) } else { v as f32 })
            .collect();
        let want: Vec<f32> = x.iter().map(|v| (-v).max(0.0) + v).collect();
        for (shape, got) in run_both(src, &x, &[n, 32, 2, 2]) {
            assert_eq!(shape, [n, 32, 2, 2]);
            assert_eq!(got, want);
        }
    }
}

/// An integer tensor pads with the integer pad value.
#[test]
fn integer_tensors() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5,), dtype="int32")) -> R.Tensor((2, 3), dtype="int32"):
        gv: R.Tensor((2, 3), dtype="int32") = R.layout_transform(x, index_map=T.index_map(lambda i: (i // 3, i % 3)), pad_value=R.prim_value(T.int32(-7)), axis_separators=[])
        return gv
"#;
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = Engine::new(Config {
            exec_mode,
            ..Config::default()
        })
        .unwrap();
        let arg = Value::Tensor(Tensor::from_slice(&[5], &[1i32, 2, 3, 4, 5]).unwrap());
        let out = engine
            .compile_str(src)
            .unwrap()
            .run("main", &[arg])
            .unwrap();
        let got = out.as_tensor().unwrap().to_vec::<i32>().unwrap();
        assert_eq!(got, [1, 2, 3, 4, 5, -7], "{exec_mode:?}");
    }
}

/// A lambda whose arity is not the input's rank, and an annotation that contradicts the
/// inferred shape, are compile-time errors that say what is wrong and where.
#[test]
fn malformed_transforms_are_compile_time_errors() {
    let arity = module(
        "(4, 4)",
        "(16,)",
        "index_map=T.index_map(lambda i: (i,)), pad_value=None, axis_separators=[]",
    );
    let shape = module(
        "(4, 4)",
        "(15,)",
        "index_map=T.index_map(lambda i, j: (i * 4 + j,)), pad_value=None, axis_separators=[]",
    );
    let cases: [(&str, &[&str]); 2] = [
        (
            &arity,
            &[
                "6:",
                "R.layout_transform",
                "the index map `T.index_map(lambda i: (i,))` takes 1 indices, but the input has rank 2",
            ],
        ),
        (&shape, &["6:", "contradicts"]),
    ];
    for (src, wants) in cases {
        let e = Engine::default().compile_str(src).unwrap_err().to_string();
        for w in wants {
            assert!(e.contains(w), "{e:?} should mention {w:?}");
        }
    }
}

/// A symbolic annotation smaller than the map's range (not provably wrong when read) makes
/// stores leave the output: a run-time error in both modes, never a stray write.
#[test]
fn stores_outside_the_output_are_run_time_errors() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n // 4", 4), dtype="float32"):
        n = T.int64()
        gv: R.Tensor((n // 4, 4), dtype="float32") = R.layout_transform(x, index_map=T.index_map(lambda i: (i // 4, i % 4)), pad_value=None, axis_separators=[])
        return gv
"#;
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = Engine::new(Config {
            exec_mode,
            ..Config::default()
        })
        .unwrap();
        let compiled = engine.compile_str(src).unwrap();
        let ok = Value::Tensor(Tensor::from_slice(&[8], &iota(8)).unwrap());
        let out = compiled.run("main", &[ok]).unwrap();
        assert_eq!(out.as_tensor().unwrap().to_vec::<f32>().unwrap(), iota(8));
        let bad = Value::Tensor(Tensor::from_slice(&[10], &iota(10)).unwrap());
        let e = compiled
            .run("main", &[bad])
            .expect_err("x[8] is stored at out[2, 0] of a (2, 4) output");
        assert!(
            e.to_string().contains("out of bounds"),
            "{exec_mode:?}: {e}"
        );
    }
}

/// Modules printed by TVM for its DeadCodeElimination tests (the OATest corpus, an older
/// release's `T.block` spelling): `x + y` computed on a (4, 4) layout between a split and a
/// fusion, and `relu` on a padded (16,) layout between `i % 16` and a `remove_pad` kernel.
const TVM_ADD_THROUGH_LAYOUTS: &str = r#"# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(arg0: T.Buffer((16,), "float32"), arg1: T.Buffer((16,), "float32"), output: T.Buffer((16,), "float32")):
        T.func_attr({"operator_name": "relax.add"})
        # with T.block("root"):
        for ax0 in range(16):
            with T.block("T_add"):
                v_ax0 = T.axis.spatial(16, ax0)
                T.reads(arg0[v_ax0], arg1[v_ax0])
                T.writes(output[v_ax0])
                output[v_ax0] = arg0[v_ax0] + arg1[v_ax0]

    @T.prim_func(private=True)
    def relax_add_replacement(arg0: T.Buffer((4, 4), "float32"), arg1: T.Buffer((4, 4), "float32"), output: T.Buffer((4, 4), "float32")):
        T.func_attr({"operator_name": "relax.add"})
        # with T.block("root"):
        for ax0, ax1 in T.grid(4, 4):
            with T.block("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(arg0[v_ax0, v_ax1], arg1[v_ax0, v_ax1])
                T.writes(output[v_ax0, v_ax1])
                output[v_ax0, v_ax1] = arg0[v_ax0, v_ax1] + arg1[v_ax0, v_ax1]

    @R.function
    def main(x: R.Tensor((16,), dtype="float32"), y: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((4, 4), dtype="float32") = R.layout_transform(x, index_map=T.index_map(lambda i: (i // 4, i % 4)), pad_value=None, axis_separators=[])
            lv1: R.Tensor((4, 4), dtype="float32") = R.layout_transform(y, index_map=T.index_map(lambda i: (i // 4, i % 4)), pad_value=None, axis_separators=[])
            lv2 = R.call_tir(cls.relax_add_replacement, (lv, lv1), out_sinfo=R.Tensor((4, 4), dtype="float32"))
            lv_1: R.Tensor((16,), dtype="float32") = R.layout_transform(lv2, index_map=T.index_map(lambda axis0, axis1: (axis0 * 4 + axis1,)), pad_value=None, axis_separators=[])
            gv: R.Tensor((16,), dtype="float32") = lv_1
            R.output(gv)
        return gv
"#;

const TVM_RELU_THROUGH_PADDING: &str = r#"# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def relax_relu_replacement(arg0: T.Buffer((16,), "float32"), output: T.Buffer((16,), "float32")):
        T.func_attr({"operator_name": "relax.relu"})
        # with T.block("root"):
        for ax0 in range(16):
            with T.block("T_add"):
                v_ax0 = T.axis.spatial(16, ax0)
                T.reads(arg0[v_ax0])
                T.writes(output[v_ax0])
                output[v_ax0] = T.max(arg0[v_ax0], T.float32(0))

    @T.prim_func(private=True)
    def relu(arg0: T.Buffer((14,), "float32"), output: T.Buffer((14,), "float32")):
        T.func_attr({"operator_name": "relax.relu"})
        # with T.block("root"):
        for ax0 in range(14):
            with T.block("T_add"):
                v_ax0 = T.axis.spatial(14, ax0)
                T.reads(arg0[v_ax0])
                T.writes(output[v_ax0])
                output[v_ax0] = T.max(arg0[v_ax0], T.float32(0))

    @T.prim_func(private=True)
    def remove_pad(var_input: T.handle, var_output: T.handle):
        T.func_attr({"operator_name": "remove_pad", "tir.noalias": T.bool(True)})
        p0 = T.int64()
        input = T.match_buffer(var_input, (p0,))
        i0 = T.int64()
        output = T.match_buffer(var_output, (i0,))
        # with T.block("root"):
        for ax0 in range(i0):
            with T.block("output"):
                v_ax0 = T.axis.spatial(i0, ax0)
                T.reads(input[v_ax0])
                T.writes(output[v_ax0])
                output[v_ax0] = input[v_ax0]

    @R.function
    def foo(x: R.Tensor((14,), dtype="float32")) -> R.Tensor((14,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((16,), dtype="float32") = R.layout_transform(x, index_map=T.index_map(lambda i: (i % 16,)), pad_value=None, axis_separators=[])
            lv1 = R.call_tir(cls.relax_relu_replacement, (lv,), out_sinfo=R.Tensor((16,), dtype="float32"))
            lv2: R.Tensor((16,), dtype="float32") = R.layout_transform(lv1, index_map=T.index_map(lambda axis0: (axis0,)), pad_value=None, axis_separators=[])
            lv_1 = R.call_tir(cls.remove_pad, (lv2,), out_sinfo=R.Tensor((14,), dtype="float32"))
            gv: R.Tensor((14,), dtype="float32") = lv_1
            R.output(gv)
        return gv
"#;

#[test]
fn modules_printed_by_tvm() {
    let x: Vec<f32> = (0..16).map(|v| v as f32 - 7.5).collect();
    let y: Vec<f32> = (0..16).map(|v| (v * v) as f32 * 0.25).collect();
    let sum: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    let relu: Vec<f32> = x[..14].iter().map(|v| v.max(0.0)).collect();
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = Engine::new(Config {
            exec_mode,
            ..Config::default()
        })
        .unwrap();
        let t = |v: &[f32]| Value::Tensor(Tensor::from_slice(&[v.len() as i64], v).unwrap());
        let out = engine
            .compile_str(TVM_ADD_THROUGH_LAYOUTS)
            .unwrap()
            .run("main", &[t(&x), t(&y)])
            .unwrap();
        assert_eq!(
            out.as_tensor().unwrap().to_vec::<f32>().unwrap(),
            sum,
            "{exec_mode:?}"
        );
        let out = engine
            .compile_str(TVM_RELU_THROUGH_PADDING)
            .unwrap()
            .run("foo", &[t(&x[..14])])
            .unwrap();
        assert_eq!(
            out.as_tensor().unwrap().to_vec::<f32>().unwrap(),
            relu,
            "{exec_mode:?}"
        );
    }
}
