//! Bounds-check soundness end to end: the issue-table kernels whose indices wrap around
//! their integer type, or overflow the symbolic prover's arithmetic, run through `Engine` in
//! the engine and give a run-time out-of-bounds error, never corrupted memory or a crash.

use relaxjit::{Engine, Error, Tensor, Value};

/// A module calling `kernel(A) -> B` with `A` and `B` of `shape`.
fn module(kernel: &str, shape: &str) -> String {
    format!(
        r#"# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
{kernel}
    @R.function
    def main(x: R.Tensor({shape}, dtype="float32")) -> R.Tensor({shape}, dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.f, (x,), out_ty=R.Tensor({shape}, dtype="float32"))
            R.output(gv)
        return gv
"#
    )
}

/// `(what, kernel text, shape)`.
const CASES: &[(&str, &str, &str, &[i64])] = &[
    (
        "int32 index wraparound (write)",
        r#"    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            B[(i * 1073741825) // 268435456] = A[0]
"#,
        "(16,)",
        &[16],
    ),
    (
        "int32 index wraparound (read)",
        r#"    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            B[i] = A[(i * 1073741825) // 268435456]
"#,
        "(16,)",
        &[16],
    ),
    (
        "symbolic prover overflow",
        r#"    @T.prim_func(private=True, s_tir=True)
    def f(A: T.Buffer((T.int64(2), T.int64(4)), "float32"), B: T.Buffer((T.int64(2), T.int64(4)), "float32")):
        for i, j in T.grid(T.int64(4611686018427387904), T.int64(4)):
            B[i, j] = A[i, j]
"#,
        "(2, 4)",
        &[2, 4],
    ),
];

#[test]
fn wrapping_indices_are_run_time_errors() {
    for (what, kernel, shape, dims) in CASES {
        let text = module(kernel, shape);
        let compiled = Engine::default()
            .compile_str(&text)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let vm = compiled.vm().unwrap();
        let n: i64 = dims.iter().product();
        let data: Vec<f32> = (0..n).map(|x| x as f32).collect();
        let x: Value = Tensor::from_slice(dims, &data).unwrap().into();
        match compiled.invoke(&vm, "main", &[x]) {
            Err(Error::Runtime(e)) => {
                let msg = e.to_string();
                assert!(msg.contains("out of bounds"), "{what}: {msg}");
            }
            other => panic!("{what}: want an out-of-bounds error, got {other:?}"),
        }
    }
}

/// Gathers and scatters whose indices come from a tensor: an index outside its dimension
/// must be an error even where the flat offset it makes lies inside the buffer (`x[0, 4]` of
/// a 3×4 `x` is where `x[1, 0]` lives), in both exec modes, fused and not.
/// `(what, expression, index shape, index values)`; `x` is 3×4 float32, `i` int64.
const AXIS_CASES: &[(&str, &str, &[i64], &[i64])] = &[
    (
        "gather_elements, index = extent",
        "R.gather_elements(x, i, axis=1)",
        &[2, 1],
        &[4, 0],
    ),
    (
        "gather_elements, negative index",
        "R.gather_elements(x, i, axis=1)",
        &[3, 1],
        &[0, -1, 0],
    ),
    (
        "gather_nd, index past the second axis",
        "R.gather_nd(x, i, batch_dims=0)",
        &[1, 2],
        &[0, 5],
    ),
    (
        "scatter_elements, index = extent",
        "R.scatter_elements(x, i, R.ones(R.shape([2, 1]), dtype=\"float32\"), axis=1, reduction=\"update\")",
        &[2, 1],
        &[4, 0],
    ),
    (
        "scatter_nd, index past the second axis",
        "R.scatter_nd(x, i, R.ones(R.shape([1]), dtype=\"float32\"), reduction=\"update\")",
        &[1, 2],
        &[0, 6],
    ),
];

#[test]
fn indices_outside_their_axis_are_run_time_errors() {
    use relaxjit::{Config, ExecMode};
    let data: Vec<f32> = (0..12).map(|x| x as f32).collect();
    for (what, expr, ishape, ivals) in AXIS_CASES {
        let ishape_text: Vec<String> = ishape.iter().map(i64::to_string).collect();
        let text = format!(
            r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), i: R.Tensor(({}), dtype="int64")):
        with R.dataflow():
            y = {expr}
            R.output(y)
        return y
"#,
            ishape_text.join(", ")
        );
        for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
            for fusion in [true, false] {
                let config = format!("{what} ({exec_mode:?}, fusion {fusion})");
                let engine = Engine::new(Config {
                    exec_mode,
                    fusion,
                    ..Config::default()
                })
                .unwrap();
                let compiled = engine
                    .compile_str(&text)
                    .unwrap_or_else(|e| panic!("{config}: {e}"));
                let x: Value = Tensor::from_slice(&[3, 4], &data).unwrap().into();
                let i: Value = Tensor::from_slice(ishape, ivals).unwrap().into();
                match compiled.run("main", &[x, i]) {
                    Err(e) => {
                        let msg = e.to_string();
                        assert!(msg.contains("out of bounds"), "{config}: {msg}");
                    }
                    Ok(v) => panic!("{config}: want an out-of-bounds error, got {v:?}"),
                }
            }
        }
    }
}

/// `R.nn.nll_loss` reads the prediction and the weight of a target only when the target is
/// not `ignore_index`, which is usually no class at all (PyTorch's -100): a loss over targets
/// with ignored ones is their mean, not an out-of-bounds error.
#[test]
fn nll_loss_does_not_read_at_ignored_targets() {
    use relaxjit::{Config, ExecMode};
    let text = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((3, 5), dtype="float32"), t: R.Tensor((3,), dtype="int64"), w: R.Tensor((5,), dtype="float32")):
        with R.dataflow():
            mean = R.nn.nll_loss(p, t, w, reduction="mean", ignore_index=-100)
            each = R.nn.nll_loss(p, t, w, reduction="none", ignore_index=-100)
            gv = (mean, each)
            R.output(gv)
        return gv
"#;
    let data: Vec<f32> = (0..15).map(|x| x as f32).collect();
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = Engine::new(Config {
            exec_mode,
            ..Config::default()
        })
        .unwrap();
        let p: Value = Tensor::from_slice(&[3, 5], &data).unwrap().into();
        let t: Value = Tensor::from_slice(&[3], &[1i64, -100, 3]).unwrap().into();
        let w: Value = Tensor::from_slice(&[5], &[1.0f32, 2.0, 1.0, 0.5, 1.0])
            .unwrap()
            .into();
        let out = engine
            .compile_str(text)
            .unwrap()
            .run("main", &[p, t, w])
            .unwrap_or_else(|e| panic!("{exec_mode:?}: {e}"));
        let Value::Tuple(items) = &out else {
            panic!("{exec_mode:?}: expected a tuple, got {out:?}");
        };
        let f = |i: usize| items[i].as_tensor().unwrap().to_vec::<f32>().unwrap();
        // Rows 0 and 2: -p[0, 1] * 2 = -2, -p[2, 13] * 0.5 = -6.5; weights 2 + 0.5.
        assert_eq!(f(0), [-8.5 / 2.5], "{exec_mode:?}");
        assert_eq!(f(1), [-2.0, 0.0, -6.5], "{exec_mode:?}");
    }
}
