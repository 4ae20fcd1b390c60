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
