//! Kernel tests: every argument check names the argument and refuses to run; runtime failures
//! (out-of-bounds, division by zero, helpers) are errors, not crashes; and property tests
//! compare the JIT with the TIR reference interpreter (`tir::interp`) on random shapes and data
//! for elementwise, broadcast, reduction and matmul kernels.

use std::collections::HashMap;
use std::sync::OnceLock;

use proptest::prelude::*;
use relaxjit_jit::kernel::{CompileOptions, Kernel, KernelLibrary};
use tir::PrimFunc;
use tir::interp::InterpArg;
use vm::{DataType, Tensor, Value};

const MODULE: &str = r#"
n = TypeVar("n")
m = TypeVar("m")
k = TypeVar("k")
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def add(A: T.Buffer((n, T.int64(4)), "float32"), B: T.Buffer((n, T.int64(4)), "float32"), C: T.Buffer((n, T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j in T.grid(n, T.int64(4)):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]

    @T.prim_func(s_tir=True)
    def ew(A: T.Buffer((m, n), "float32"), B: T.Buffer((m, n), "float32"), C: T.Buffer((m, n), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j in T.grid(m, n):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.exp(A[vi, vj]) * B[vi, vj] - T.max(A[vi, vj], T.float32(0.5))

    @T.prim_func(s_tir=True)
    def bcast(A: T.Buffer((m, n), "float32"), B: T.Buffer((n,), "float32"), C: T.Buffer((m, n), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j in T.grid(m, n):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] / (B[vj] + T.float32(3.0))

    @T.prim_func(s_tir=True)
    def rowsum(A: T.Buffer((m, n), "float32"), S: T.Buffer((m,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j in T.grid(m, n):
            with T.sblock("S"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    S[vi] = T.float32(0.0)
                S[vi] = S[vi] + A[vi, vj]

    @T.prim_func(s_tir=True)
    def matmul(A: T.Buffer((m, k), "float32"), B: T.Buffer((k, n), "float32"), C: T.Buffer((m, n), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, r in T.grid(m, n, k):
            with T.sblock("C"):
                vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vr] * B[vr, vj]

    @T.prim_func(s_tir=True)
    def imath(A: T.Buffer((n,), "int32"), B: T.Buffer((n,), "int32"), C: T.Buffer((n,), "int32")):
        for i in range(n):
            with T.sblock("C"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] // B[vi] + A[vi] % B[vi] * T.int32(7) + T.truncdiv(A[vi], T.int32(3))

    @T.prim_func(s_tir=True)
    def gather(A: T.Buffer((T.int64(4),), "float32"), I: T.Buffer((T.int64(3),), "int64"), B: T.Buffer((T.int64(3),), "float32")):
        for i in range(T.int64(3)):
            with T.sblock("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[I[vi]]

    @T.prim_func(s_tir=True)
    def big_add(A: T.Buffer((T.int64(512), T.int64(301)), "float32"), B: T.Buffer((T.int64(512), T.int64(301)), "float32"), C: T.Buffer((T.int64(512), T.int64(301)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j in T.grid(T.int64(512), T.int64(301)):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]

    @T.prim_func(s_tir=True)
    def big_rowmax(A: T.Buffer((T.int64(1024), T.int64(100)), "float32"), M: T.Buffer((T.int64(1024),), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j in T.grid(T.int64(1024), T.int64(100)):
            with T.sblock("M"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    M[vi] = T.float32(-3.4e38)
                M[vi] = T.max(M[vi], A[vi, vj])

    @T.prim_func(s_tir=True)
    def big_scan(A: T.Buffer((T.int64(100001),), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(T.int64(100000)):
            A[i + T.int64(1)] = A[i] + T.float32(1.0)

    @T.prim_func(s_tir=True)
    def lazy(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            B[i] = T.Select(i > T.int64(0) and A[i - T.int64(1)] > T.float32(0.0), T.float32(1.0), T.float32(0.0))

    @T.prim_func(s_tir=True)
    def softmax(x: T.Buffer((m, n), "float32"), T_softmax_norm: T.Buffer((m, n), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        T_softmax_maxelem = T.sblock_alloc_buffer((m,))
        T_softmax_exp = T.sblock_alloc_buffer((m, n))
        T_softmax_expsum = T.sblock_alloc_buffer((m,))
        for i0, k in T.grid(m, n):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                with T.init():
                    T_softmax_maxelem[v_i0] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], x[v_i0, v_k])
        for i0, i1 in T.grid(m, n):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T_softmax_exp[v_i0, v_i1] = T.exp(x[v_i0, v_i1] - T_softmax_maxelem[v_i0])
        for i0, k in T.grid(m, n):
            with T.sblock("T_softmax_expsum"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                with T.init():
                    T_softmax_expsum[v_i0] = T.float32(0.0)
                T_softmax_expsum[v_i0] = T_softmax_expsum[v_i0] + T_softmax_exp[v_i0, v_k]
        for i0, i1 in T.grid(m, n):
            with T.sblock("T_softmax_norm"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T_softmax_norm[v_i0, v_i1] = T_softmax_exp[v_i0, v_i1] / T_softmax_expsum[v_i0]

    @T.prim_func(s_tir=True)
    def big_matmul(A: T.Buffer((T.int64(97), T.int64(42)), "float32"), B: T.Buffer((T.int64(42), T.int64(75)), "float32"), C: T.Buffer((T.int64(97), T.int64(75)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, r in T.grid(T.int64(97), T.int64(75), T.int64(42)):
            with T.sblock("C"):
                vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vr] * B[vr, vj]

    @T.prim_func(s_tir=True)
    def matmul_nt(A: T.Buffer((m, k), "float32"), B: T.Buffer((n, k), "float32"), C: T.Buffer((m, n), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, r in T.grid(m, n, k):
            with T.sblock("C"):
                vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vr] * B[vj, vr]

    @T.prim_func(s_tir=True)
    def mul_add(A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32"), C: T.Buffer((n,), "float32"), D: T.Buffer((n,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(n):
            with T.sblock("D"):
                vi = T.axis.remap("S", [i])
                D[vi] = A[vi] * B[vi] + C[vi]

    @T.prim_func(s_tir=True)
    def scale_by_last(A: T.Buffer((n,), "float32"), S: T.Buffer((n,), "float32"), C: T.Buffer((n,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(n):
            C[i] = A[i] * S[n - T.int64(1)]

    @T.prim_func(s_tir=True)
    def shifted_stores(B: T.Buffer((T.int64(11),), "float32"), C: T.Buffer((T.int64(11),), "float32"), A: T.Buffer((T.int64(16),), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(T.int64(11)):
            A[i] = B[i]
            A[i + T.int64(1)] = C[i]

    @T.prim_func(s_tir=True)
    def far_stores(B: T.Buffer((T.int64(11),), "float32"), C: T.Buffer((T.int64(11),), "float32"), A: T.Buffer((T.int64(16),), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(T.int64(11)):
            A[i] = B[i]
            A[i + T.int64(5)] = C[i] + A[i]

    @T.prim_func(s_tir=True)
    def matmul_aliased(A: T.Buffer((m, k), "float32"), B: T.Buffer((k, n), "float32"), C: T.Buffer((m, n), "float32")):
        for i, j, r in T.grid(m, n, k):
            with T.sblock("C"):
                vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vr] * B[vr, vj]

    @T.prim_func(s_tir=True)
    def fused_chain(A: T.Buffer((m, n), "float32"), B: T.Buffer((m, n), "float32"), C: T.Buffer((m, n), "float32")):
        T.func_attr({"tirx.noalias": True})
        t0 = T.sblock_alloc_buffer((m, n))
        t1 = T.sblock_alloc_buffer((m, n))
        for i, j in T.grid(m, n):
            with T.sblock("t0"):
                vi, vj = T.axis.remap("SS", [i, j])
                t0[vi, vj] = T.exp(A[vi, vj])
        for i, j in T.grid(m, n):
            with T.sblock("t1"):
                vi, vj = T.axis.remap("SS", [i, j])
                t1[vi, vj] = t0[vi, vj] + B[vi, vj]
        for i, j in T.grid(m, n):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(t1[vi, vj], T.float32(0.0)) * A[vi, vj]

    @T.prim_func(s_tir=True)
    def fused_transpose_reader(A: T.Buffer((T.int64(6), T.int64(10)), "float32"), C: T.Buffer((T.int64(10), T.int64(6)), "float32")):
        T.func_attr({"tirx.noalias": True})
        t0 = T.sblock_alloc_buffer((T.int64(6), T.int64(10)))
        for i, j in T.grid(T.int64(6), T.int64(10)):
            with T.sblock("t0"):
                vi, vj = T.axis.remap("SS", [i, j])
                t0[vi, vj] = A[vi, vj] * T.float32(2.0)
        for j, i in T.grid(T.int64(10), T.int64(6)):
            with T.sblock("C"):
                vj, vi = T.axis.remap("SS", [j, i])
                C[vj, vi] = t0[vi, vj]

    @T.prim_func(s_tir=True)
    def fused_broadcast_reader(A: T.Buffer((m, n), "float32"), b: T.Buffer((n,), "float32"), D: T.Buffer((m, n), "float32")):
        T.func_attr({"tirx.noalias": True})
        eb = T.sblock_alloc_buffer((n,))
        for j in range(n):
            with T.sblock("eb"):
                vj = T.axis.remap("S", [j])
                eb[vj] = T.exp(b[vj])
        for i, j in T.grid(m, n):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = eb[vj] + A[vi, vj]

    @T.prim_func(s_tir=True)
    def fused_two_readers(A: T.Buffer((m, n), "float32"), E: T.Buffer((m, n), "float32")):
        T.func_attr({"tirx.noalias": True})
        t2 = T.sblock_alloc_buffer((m, n))
        s = T.sblock_alloc_buffer((m,))
        for i, j in T.grid(m, n):
            with T.sblock("t2"):
                vi, vj = T.axis.remap("SS", [i, j])
                t2[vi, vj] = T.exp(A[vi, vj])
        for i, j in T.grid(m, n):
            with T.sblock("s"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    s[vi] = T.float32(0.0)
                s[vi] = s[vi] + t2[vi, vj]
        for i, j in T.grid(m, n):
            with T.sblock("E"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = t2[vi, vj] / s[vi]

    @T.prim_func(s_tir=True)
    def scale(A: T.Buffer((T.int64(3),), "float32"), s: T.float32):
        for i in range(T.int64(3)):
            A[i] = A[i] * s
"#;

fn funcs() -> &'static HashMap<String, PrimFunc> {
    static F: OnceLock<HashMap<String, PrimFunc>> = OnceLock::new();
    F.get_or_init(|| match tir::parse_module_prim_funcs(MODULE) {
        Ok(f) => f.into_iter().map(|f| (f.name.clone(), f)).collect(),
        Err(e) => panic!("{}", e.render(MODULE)),
    })
}

/// The compile settings the differential tests run: everything on, the scalar serial
/// reference, each optimization alone, and everything but FMA contraction (the one setting
/// that changes rounding).
const CONFIGS: [(&str, CompileOptions); 6] = [
    ("default", options(true, true, true, true)),
    ("reference", options(false, false, false, false)),
    ("vectorize", options(true, false, false, false)),
    ("parallel", options(false, true, false, false)),
    ("loop_transforms", options(false, false, true, false)),
    ("exact", options(true, true, true, false)),
];

const fn options(
    vectorize: bool,
    parallel: bool,
    loop_transforms: bool,
    contract_fma: bool,
) -> CompileOptions {
    CompileOptions {
        vectorize,
        parallel,
        loop_transforms,
        contract_fma,
    }
}

fn library(config: usize) -> &'static KernelLibrary {
    static K: [OnceLock<KernelLibrary>; CONFIGS.len()] = [const { OnceLock::new() }; CONFIGS.len()];
    K[config].get_or_init(|| {
        let mut fs: Vec<PrimFunc> = funcs().values().cloned().collect();
        fs.sort_by(|a, b| a.name.cmp(&b.name));
        KernelLibrary::compile_with(&fs, CONFIGS[config].1).expect("the test kernels compile")
    })
}

fn kernels() -> &'static KernelLibrary {
    library(0)
}

fn kernel(name: &str) -> &'static Kernel {
    kernels().get(name).expect("kernel exists")
}

#[test]
fn default_options_are_everything_on() {
    assert_eq!(CompileOptions::default(), CONFIGS[0].1);
    assert_eq!(CompileOptions::reference(), CONFIGS[1].1);
}

#[test]
fn reductions_keep_accumulators_in_registers_and_matmul_is_interchanged() {
    // rowsum: one reduction; softmax: maxelem and expsum; matmul: the interchanged `j` loop is
    // vector code, once for four reduction steps and once for the remaining steps (with a
    // constant reduction extent, the init loop is vector code too); the reduction is no longer
    // innermost, so nothing is promoted; without `noalias` nothing moves.
    for (name, promoted, vector) in [
        ("rowsum", 2, 0),
        ("softmax", 4, 2),
        ("big_rowmax", 1, 0),
        ("matmul", 0, 2),
        // Four rows jammed (96 of them) and the last row alone: the init, main and tail `j`
        // loops of each.
        ("big_matmul", 0, 6),
        ("matmul_aliased", 0, 0),
        // `B[j, r]` is contiguous along the reduction: four columns are jammed (plus the tail).
        ("matmul_nt", 2, 0),
    ] {
        let m = kernel(name).meta();
        assert_eq!(
            (m.promoted_loops, m.vector_loops),
            (promoted, vector),
            "{name}"
        );
    }
    for name in ["rowsum", "softmax", "matmul"] {
        let m = library(1).get(name).expect("kernel exists").meta();
        assert_eq!((m.promoted_loops, m.vector_loops), (0, 0), "{name}");
    }
}

fn f32s(shape: &[i64], data: &[f32]) -> Value {
    Value::Tensor(Tensor::from_slice(shape, data).unwrap())
}

fn zeros(shape: &[i64], dtype: DataType) -> Value {
    Value::Tensor(Tensor::zeros(shape, dtype).unwrap())
}

/// Calls `name` expecting an error, and returns its message.
fn error_of(name: &str, args: &[Value]) -> String {
    match kernel(name).call(args) {
        Ok(()) => panic!("{name} accepted bad arguments"),
        Err(e) => e.to_string(),
    }
}

fn assert_mentions(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "message {msg:?} does not mention {p:?}");
    }
}

#[test]
fn good_arguments_run() {
    let a = f32s(&[2, 4], &[1., 2., 3., 4., 5., 6., 7., 8.]);
    let b = f32s(&[2, 4], &[8., 7., 6., 5., 4., 3., 2., 1.]);
    let c = zeros(&[2, 4], DataType::F32);
    kernel("add").call(&[a, b, c.clone()]).unwrap();
    assert_eq!(
        c.as_tensor().unwrap().to_vec::<f32>().unwrap(),
        vec![9.0; 8]
    );
}

#[test]
fn wrong_arity_is_an_error() {
    let a = zeros(&[2, 4], DataType::F32);
    let msg = error_of("add", &[a.clone(), a]);
    assert_mentions(&msg, &["add", "expected 3 arguments, got 2"]);
}

#[test]
fn wrong_rank_names_the_argument() {
    let a = zeros(&[2, 4], DataType::F32);
    let msg = error_of("add", &[a.clone(), zeros(&[8], DataType::F32), a]);
    assert_mentions(&msg, &["add", "`B`", "rank 1", "expected rank 2"]);
}

#[test]
fn wrong_dtype_names_the_argument() {
    let a = zeros(&[2, 4], DataType::F32);
    let msg = error_of("add", &[zeros(&[2, 4], DataType::F64), a.clone(), a]);
    assert_mentions(&msg, &["`A`", "float64", "expected float32"]);
}

#[test]
fn wrong_constant_dimension_names_the_argument() {
    let a = zeros(&[2, 4], DataType::F32);
    let msg = error_of("add", &[a.clone(), a, zeros(&[2, 5], DataType::F32)]);
    assert_mentions(&msg, &["`C`", "5 at dimension 1", "expected 4"]);
}

#[test]
fn inconsistent_symbolic_dimensions_name_both_arguments() {
    let a = zeros(&[3, 4], DataType::F32);
    let msg = error_of("add", &[a.clone(), zeros(&[2, 4], DataType::F32), a]);
    assert_mentions(&msg, &["`B`", "2 at dimension 0", "n = 3", "of `A`"]);
}

#[test]
fn a_non_tensor_argument_is_an_error() {
    let a = zeros(&[2, 4], DataType::F32);
    let msg = error_of("add", &[a.clone(), Value::shape(vec![2, 4]), a.clone()]);
    assert_mentions(&msg, &["`B`", "tensor"]);
    let msg = error_of("add", &[a.clone(), Value::Int(3), a]);
    assert_mentions(&msg, &["`B`", "must be a tensor", "an int"]);
}

#[test]
fn scalar_parameters_accept_numbers() {
    let a = f32s(&[3], &[1., 2., 3.]);
    kernel("scale")
        .call(&[a.clone(), Value::Float(2.0)])
        .unwrap();
    kernel("scale").call(&[a.clone(), Value::Int(3)]).unwrap();
    assert_eq!(
        a.as_tensor().unwrap().to_vec::<f32>().unwrap(),
        vec![6., 12., 18.]
    );
    let msg = error_of("scale", &[a.clone(), a]);
    assert_mentions(&msg, &["`s`", "a float"]);
}

#[test]
fn out_of_bounds_gather_is_an_error() {
    let a = f32s(&[4], &[1., 2., 3., 4.]);
    let b = zeros(&[3], DataType::F32);
    let ok = Value::Tensor(Tensor::from_slice(&[3], &[3i64, 0, 1]).unwrap());
    kernel("gather").call(&[a.clone(), ok, b.clone()]).unwrap();
    assert_eq!(
        b.as_tensor().unwrap().to_vec::<f32>().unwrap(),
        vec![4., 1., 2.]
    );
    for bad in [4i64, -1, i64::MAX] {
        let idx = Value::Tensor(Tensor::from_slice(&[3], &[0i64, bad, 1]).unwrap());
        let msg = error_of("gather", &[a.clone(), idx, b.clone()]);
        assert_mentions(
            &msg,
            &["out of bounds", "`A`", "4 elements", &bad.to_string()],
        );
    }
}

#[test]
fn integer_division_by_zero_is_an_error() {
    let a = Value::Tensor(Tensor::from_slice(&[2], &[7i32, i32::MIN]).unwrap());
    let b = Value::Tensor(Tensor::from_slice(&[2], &[2i32, -1]).unwrap());
    let c = zeros(&[2], DataType::I32);
    kernel("imath").call(&[a.clone(), b, c.clone()]).unwrap();
    let zero = Value::Tensor(Tensor::from_slice(&[2], &[2i32, 0]).unwrap());
    let msg = error_of("imath", &[a, zero, c]);
    assert_mentions(&msg, &["division by zero"]);
}

#[test]
fn and_does_not_evaluate_a_load_the_left_side_rules_out() {
    let a = f32s(&[4], &[1., -1., 2., 3.]);
    let b = zeros(&[4], DataType::F32);
    kernel("lazy").call(&[a, b.clone()]).unwrap();
    assert_eq!(
        b.as_tensor().unwrap().to_vec::<f32>().unwrap(),
        vec![0., 1., 0., 1.]
    );
}

#[test]
fn contiguous_innermost_loops_are_vectorized() {
    for (name, vector) in [
        ("ew", 1),
        ("bcast", 1),
        ("add", 1),
        ("rowsum", 0),
        ("gather", 0),
    ] {
        assert_eq!(kernel(name).meta().vector_loops, vector, "{name}");
    }
}

#[test]
fn big_independent_loops_run_in_parallel() {
    for (name, parallel) in [
        ("big_add", 1),
        ("big_rowmax", 1),
        ("big_scan", 0),
        // Symbolic 2-D: row `i` owns the slab `[i*n, i*n + n)`; the work is counted at run time.
        ("ew", 1),
        ("bcast", 1),
    ] {
        assert_eq!(kernel(name).meta().parallel_loops, parallel, "{name}");
    }
    let (m, n) = (512usize, 301usize);
    let a: Vec<f32> = (0..m * n).map(|x| x as f32).collect();
    let b: Vec<f32> = (0..m * n).map(|x| (x % 7) as f32).collect();
    let c = zeros(&[m as i64, n as i64], DataType::F32);
    let args = [
        f32s(&[m as i64, n as i64], &a),
        f32s(&[m as i64, n as i64], &b),
        c.clone(),
    ];
    kernel("big_add").call(&args).unwrap();
    let got = c.as_tensor().unwrap().to_vec::<f32>().unwrap();
    assert!(got.iter().enumerate().all(|(i, &x)| x == a[i] + b[i]));

    let a: Vec<f32> = (0..1024 * 100).map(|x| ((x * 37) % 1000) as f32).collect();
    let mx = zeros(&[1024], DataType::F32);
    kernel("big_rowmax")
        .call(&[f32s(&[1024, 100], &a), mx.clone()])
        .unwrap();
    let got = mx.as_tensor().unwrap().to_vec::<f32>().unwrap();
    for (r, g) in got.iter().enumerate() {
        let want = a[r * 100..(r + 1) * 100]
            .iter()
            .cloned()
            .fold(f32::MIN, f32::max);
        assert_eq!(*g, want, "row {r}");
    }

    let s = zeros(&[100001], DataType::F32);
    kernel("big_scan").call(std::slice::from_ref(&s)).unwrap();
    assert_eq!(
        s.as_tensor().unwrap().to_vec::<f32>().unwrap()[100000],
        100000.0
    );
}

#[test]
fn errors_inside_parallel_loops_are_reported() {
    // Wrong shapes are caught before the loop; this checks the parallel path's status plumbing
    // by running it twice (the second call must not see a stale error).
    let z = zeros(&[512, 301], DataType::F32);
    kernel("big_add")
        .call(&[z.clone(), z.clone(), z.clone()])
        .unwrap();
    let msg = error_of(
        "big_add",
        &[z.clone(), z, zeros(&[512, 300], DataType::F32)],
    );
    assert_mentions(&msg, &["`C`", "300 at dimension 1"]);
}

// ----- JIT vs interpreter ------------------------------------------------------------------

/// Deterministic data in [-2, 2) from a seed.
fn data(seed: u64, len: usize) -> Vec<f32> {
    let mut s = seed | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        })
        .collect()
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_bytes(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Runs `name` on f32 tensors of the given shapes (the last is the output) with the JIT and
/// with the interpreter; returns both outputs. Every optimization but FMA contraction is
/// exact, so every compile setting of [`CONFIGS`] without it must produce bit-for-bit the
/// output of the scalar serial reference; that is checked here too.
fn both(name: &str, shapes: &[Vec<i64>], seed: u64) -> (Vec<f32>, Vec<f32>) {
    let (jit, interp) = both_with(0, name, shapes, seed);
    let (reference, _) = both_with(1, name, shapes, seed);
    for (config, (config_name, o)) in CONFIGS.iter().enumerate().skip(2) {
        if o.contract_fma {
            continue;
        }
        let (other, _) = both_with(config, name, shapes, seed);
        let same = other.len() == reference.len()
            && other
                .iter()
                .zip(&reference)
                .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
        assert!(same, "{name}: `{config_name}` differs from `reference`");
    }
    (jit, interp)
}

fn both_with(config: usize, name: &str, shapes: &[Vec<i64>], seed: u64) -> (Vec<f32>, Vec<f32>) {
    let inputs: Vec<Vec<f32>> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            data(
                seed.wrapping_add(i as u64 * 7919),
                s.iter().product::<i64>() as usize,
            )
        })
        .collect();
    let values: Vec<Value> = shapes
        .iter()
        .zip(&inputs)
        .map(|(s, d)| f32s(s, d))
        .collect();
    library(config)
        .get(name)
        .expect("kernel exists")
        .call(&values)
        .unwrap();
    let jit = values
        .last()
        .unwrap()
        .as_tensor()
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let mut buffers: Vec<Vec<u8>> = inputs.iter().map(|d| bytes(d)).collect();
    let mut args: Vec<InterpArg> = buffers
        .iter_mut()
        .zip(shapes)
        .map(|(b, s)| InterpArg::Buffer {
            data: b,
            shape: s.clone(),
            dtype: tir::DataType::FLOAT32,
        })
        .collect();
    tir::interp::run(&funcs()[name], &mut args).unwrap();
    drop(args);
    (jit, from_bytes(buffers.last().unwrap()))
}

fn close(jit: &[f32], interp: &[f32], rel: f32) -> std::result::Result<(), TestCaseError> {
    prop_assert_eq!(jit.len(), interp.len());
    for (i, (a, b)) in jit.iter().zip(interp).enumerate() {
        let ok = (a - b).abs() <= rel * (1.0 + b.abs()) || (a.is_nan() && b.is_nan());
        prop_assert!(ok, "element {}: jit {} vs interpreter {}", i, a, b);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn elementwise_matches_the_interpreter(m in 1i64..20, n in 1i64..40, seed in any::<u64>()) {
        let (j, i) = both("ew", &[vec![m, n], vec![m, n], vec![m, n]], seed);
        close(&j, &i, 1e-6)?;
    }

    #[test]
    fn broadcast_matches_the_interpreter(m in 1i64..20, n in 1i64..40, seed in any::<u64>()) {
        let (j, i) = both("bcast", &[vec![m, n], vec![n], vec![m, n]], seed);
        close(&j, &i, 1e-6)?;
    }

    #[test]
    fn reduction_matches_the_interpreter(m in 1i64..20, n in 1i64..70, seed in any::<u64>()) {
        let (j, i) = both("rowsum", &[vec![m, n], vec![m]], seed);
        close(&j, &i, 1e-5)?;
    }

    #[test]
    fn softmax_matches_the_interpreter(m in 1i64..12, n in 1i64..70, seed in any::<u64>()) {
        let (j, i) = both("softmax", &[vec![m, n], vec![m, n]], seed);
        close(&j, &i, 1e-5)?;
    }

    #[test]
    fn transposed_matmul_matches_the_interpreter(m in 1i64..6, n in 1i64..20, k in 1i64..9, seed in any::<u64>()) {
        let (j, i) = both("matmul_nt", &[vec![m, k], vec![n, k], vec![m, n]], seed);
        close(&j, &i, 1e-5)?;
    }

    #[test]
    fn aliased_matmul_matches_the_interpreter(m in 1i64..6, n in 1i64..12, k in 1i64..9, seed in any::<u64>()) {
        let (j, i) = both("matmul_aliased", &[vec![m, k], vec![k, n], vec![m, n]], seed);
        close(&j, &i, 1e-5)?;
    }

    #[test]
    fn matmul_matches_the_interpreter(m in 1i64..12, n in 1i64..12, k in 1i64..24, seed in any::<u64>()) {
        let (j, i) = both("matmul", &[vec![m, k], vec![k, n], vec![m, n]], seed);
        close(&j, &i, 1e-5)?;
    }
}

#[test]
fn big_kernels_match_the_interpreter() {
    for seed in [1u64, 2] {
        let (j, i) = both(
            "big_matmul",
            &[vec![97, 42], vec![42, 75], vec![97, 75]],
            seed,
        );
        close(&j, &i, 1e-5).unwrap();
        let (j, i) = both("big_rowmax", &[vec![1024, 100], vec![1024]], seed);
        close(&j, &i, 0.0).unwrap();
        let (j, i) = both("softmax", &[vec![300, 257], vec![300, 257]], seed);
        close(&j, &i, 1e-5).unwrap();
    }
}

#[test]
fn symbolic_shapes_drop_their_bounds_checks() {
    // Every access of these kernels is affine in loops over the shape variables (the proof is
    // sound, so every compile setting uses it); the gather's index is read from memory and
    // keeps its check, and so does `lazy`'s `A[i - 1]`, in bounds only because of the guard.
    for config in 0..CONFIGS.len() {
        for name in ["add", "ew", "bcast", "rowsum", "matmul", "softmax", "imath"] {
            let meta = library(config).get(name).expect("kernel exists").meta();
            assert_eq!(meta.sites, Vec::<String>::new(), "{name}");
        }
        for (name, checked) in [("gather", vec!["A"]), ("lazy", vec!["A"])] {
            let meta = library(config).get(name).expect("kernel exists").meta();
            assert_eq!(meta.sites, checked, "{name}");
        }
    }
}

#[test]
fn big_symbolic_kernels_run_in_parallel_and_match_the_interpreter() {
    for (m, n) in [(300i64, 701i64), (1, 70000), (70000, 1), (3, 5)] {
        let (j, i) = both("ew", &[vec![m, n], vec![m, n], vec![m, n]], 7);
        close(&j, &i, 1e-6).unwrap();
        let (j, i) = both("bcast", &[vec![m, n], vec![n], vec![m, n]], 8);
        close(&j, &i, 1e-6).unwrap();
    }
}

/// Fused kernels as FuseTIR writes them: an elementwise chain becomes one loop nest with the
/// loop transforms on (one vector loop instead of three); a transposing reader, a broadcast
/// reader and two readers of an `exp` keep their intermediate. Every setting agrees with the
/// interpreter.
#[test]
fn fused_elementwise_producers_are_inlined_where_it_costs_nothing() {
    let vector_loops = |config: usize, name: &str| {
        library(config)
            .get(name)
            .expect("kernel exists")
            .meta()
            .vector_loops
    };
    assert_eq!(vector_loops(0, "fused_chain"), 1);
    assert_eq!(vector_loops(2, "fused_chain"), 3);
    // Read transposed, broadcast, or by two statements: the intermediate stays.
    for name in [
        "fused_transpose_reader",
        "fused_broadcast_reader",
        "fused_two_readers",
    ] {
        assert_eq!(vector_loops(0, name), vector_loops(2, name), "{name}");
    }
    let (j, i) = both("fused_transpose_reader", &[vec![6, 10], vec![10, 6]], 12);
    close(&j, &i, 0.0).unwrap();
    for (m, n) in [(3i64, 5i64), (17, 70), (1, 1)] {
        let (j, i) = both("fused_chain", &[vec![m, n], vec![m, n], vec![m, n]], 11);
        close(&j, &i, 1e-6).unwrap();
        let (j, i) = both(
            "fused_broadcast_reader",
            &[vec![m, n], vec![n], vec![m, n]],
            13,
        );
        close(&j, &i, 1e-6).unwrap();
        let (j, i) = both("fused_two_readers", &[vec![m, n], vec![m, n]], 14);
        close(&j, &i, 1e-5).unwrap();
    }
}

#[test]
fn mul_add_is_contracted_only_with_contract_fma_and_a_host_fma() {
    // (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24 exactly; rounding the product first gives 0.
    let x = 1.0 + 2f32.powi(-12);
    let n = 7; // one vector of four and a scalar tail of three
    let run = |config: usize| {
        let d = zeros(&[n], DataType::F32);
        let args = [
            f32s(&[n], &vec![x; n as usize]),
            f32s(&[n], &vec![x; n as usize]),
            f32s(&[n], &vec![-(1.0 + 2f32.powi(-11)); n as usize]),
            d.clone(),
        ];
        library(config)
            .get("mul_add")
            .expect("kernel exists")
            .call(&args)
            .unwrap();
        d.as_tensor().unwrap().to_vec::<f32>().unwrap()
    };
    let host_fma = relaxjit_jit::isa::host_isa()
        .map(|isa| relaxjit_jit::isa::HostFeatures::of_isa(&*isa).has_fma)
        .unwrap_or(false);
    let fused = if host_fma { 2f32.powi(-24) } else { 0.0 };
    assert_eq!(run(0), vec![fused; n as usize]);
    for (config, (name, _)) in CONFIGS.iter().enumerate().skip(1) {
        assert_eq!(run(config), vec![0.0; n as usize], "{name}");
    }
}

#[test]
fn hoisted_uniforms_are_not_evaluated_when_the_loop_does_not_run() {
    // `S[n - 1]` is out of bounds for n = 0, but the loop does not run then; with 1..3
    // elements only the scalar tail runs. Every setting must agree with the interpreter.
    for n in 0..10i64 {
        let (j, i) = both("scale_by_last", &[vec![n], vec![n], vec![n]], n as u64);
        close(&j, &i, 0.0).unwrap();
    }
}

#[test]
fn overlapping_stores_in_one_iteration_keep_scalar_order() {
    // Lanes of `A[i + 1]` overlap those of `A[i]`: vector code would reorder the writes, so
    // the loop must stay scalar (or be equivalent).
    let (j, i) = both("shifted_stores", &[vec![11], vec![11], vec![16]], 3);
    close(&j, &i, 0.0).unwrap();
    assert_eq!(kernel("shifted_stores").meta().vector_loops, 0);
    // Five apart: no vector iteration touches an element twice, so this one is vector code.
    let (j, i) = both("far_stores", &[vec![11], vec![11], vec![16]], 4);
    close(&j, &i, 0.0).unwrap();
    assert_eq!(kernel("far_stores").meta().vector_loops, 1);
}

#[test]
fn only_unprovable_accesses_keep_bounds_checks() {
    // The bounds analysis must keep proving the accesses of constant and symbolic kernels
    // (elementwise, broadcast, reductions, softmax, matmul, the parallel and vector forms) in
    // every configuration; the accesses left checked cannot be proven: a gathered index, `A[i -
    // 1]` behind a condition, and `S[n - 1]` with `n` possibly zero.
    let checked: HashMap<&str, &[&str]> = HashMap::from([
        ("gather", &["A"][..]),
        ("lazy", &["A"][..]),
        ("scale_by_last", &["S"][..]),
    ]);
    let mut names: Vec<&String> = funcs().keys().collect();
    names.sort();
    for name in names {
        for (c, (config, _)) in CONFIGS.iter().enumerate() {
            let sites = &library(c).get(name).expect("kernel exists").meta().sites;
            let want = checked.get(name.as_str()).copied().unwrap_or(&[]);
            assert!(
                sites.iter().all(|s| want.contains(&s.as_str())) && sites.len() <= 2 * want.len(),
                "{name} ({config}): checks at {sites:?}"
            );
        }
    }
}
