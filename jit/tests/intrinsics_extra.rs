//! The math and bit intrinsics the newer LegalizeOps rules emit (inverse trigonometric and
//! hyperbolic functions, `atan2`, `fmod`, `log1p`, bitwise operators and shifts), compiled by
//! the JIT in tiny PrimFuncs and compared with Rust's `std` on a few inputs.

use relaxjit_jit::kernel::KernelLibrary;
use vm::{Tensor, Value};

/// A PrimFunc `name(A, B, C)` over 8 elements of `dtype` with `C[i] = expr` (`A[vi]`, `B[vi]`
/// in `expr`).
fn prim_func(name: &str, dtype: &str, expr: &str) -> String {
    format!(
        r#"
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def {name}(A: T.Buffer((T.int64(8),), "{dtype}"), B: T.Buffer((T.int64(8),), "{dtype}"), C: T.Buffer((T.int64(8),), "{dtype}")):
        T.func_attr({{"tirx.noalias": True}})
        for i in range(T.int64(8)):
            with T.sblock("C"):
                vi = T.axis.spatial(T.int64(8), i)
                C[vi] = {expr}
"#
    )
}

fn run<E: Copy + Default + vm::Element>(
    name: &str,
    dtype: &str,
    expr: &str,
    a: &[E],
    b: &[E],
) -> Vec<E> {
    let src = prim_func(name, dtype, expr);
    let funcs = match tir::parse_module_prim_funcs(&src) {
        Ok(f) => f,
        Err(e) => panic!("{name}: {}", e.render(&src)),
    };
    let lib = KernelLibrary::compile(&funcs).unwrap_or_else(|e| panic!("{name}: {e}"));
    let kernel = lib.get(name).unwrap_or_else(|| panic!("{name}: no kernel"));
    let t = |v: &[E]| Value::Tensor(Tensor::from_slice(&[8], v).expect("tensor"));
    let out = t(&[E::default(); 8]);
    kernel
        .call(&[t(a), t(b), out.clone()])
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    out.as_tensor()
        .expect("tensor")
        .to_vec::<E>()
        .expect("data")
}

/// Float inputs in `[lo, hi]`.
fn inputs(lo: f64, hi: f64) -> Vec<f64> {
    (0..8).map(|i| lo + (hi - lo) * i as f64 / 7.0).collect()
}

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got.is_nan() && want.is_nan()) || (got - want).abs() <= rel * want.abs().max(1e-30) + 1e-300
}

type F64Fn = fn(f64, f64) -> f64;

/// `(name, expression, reference, domain of A, domain of B)`.
type FloatCase = (&'static str, &'static str, F64Fn, (f64, f64), (f64, f64));

const FLOAT_CASES: &[FloatCase] = &[
    (
        "asin",
        "T.asin(A[vi])",
        |a, _| a.asin(),
        (-0.99, 0.99),
        (0.0, 1.0),
    ),
    (
        "acos",
        "T.acos(A[vi])",
        |a, _| a.acos(),
        (-0.99, 0.99),
        (0.0, 1.0),
    ),
    (
        "atan",
        "T.atan(A[vi])",
        |a, _| a.atan(),
        (-30.0, 30.0),
        (0.0, 1.0),
    ),
    (
        "asinh",
        "T.asinh(A[vi])",
        |a, _| a.asinh(),
        (-30.0, 30.0),
        (0.0, 1.0),
    ),
    (
        "acosh",
        "T.acosh(A[vi])",
        |a, _| a.acosh(),
        (1.0, 40.0),
        (0.0, 1.0),
    ),
    (
        "atanh",
        "T.atanh(A[vi])",
        |a, _| a.atanh(),
        (-0.99, 0.99),
        (0.0, 1.0),
    ),
    (
        "sinh",
        "T.sinh(A[vi])",
        |a, _| a.sinh(),
        (-5.0, 5.0),
        (0.0, 1.0),
    ),
    (
        "cosh",
        "T.cosh(A[vi])",
        |a, _| a.cosh(),
        (-5.0, 5.0),
        (0.0, 1.0),
    ),
    (
        "log1p",
        "T.log1p(A[vi])",
        |a, _| a.ln_1p(),
        (-0.5, 9.0),
        (0.0, 1.0),
    ),
    (
        "atan2",
        "T.atan2(A[vi], B[vi])",
        f64::atan2,
        (-3.0, 3.0),
        (2.0, -2.5),
    ),
    (
        "fmod",
        "T.fmod(A[vi], B[vi])",
        |a, b| a % b,
        (-7.5, 9.25),
        (2.0, -2.5),
    ),
];

#[test]
fn float_intrinsics_match_std() {
    let mut failures = Vec::new();
    for &(name, expr, f, (alo, ahi), (blo, bhi)) in FLOAT_CASES {
        let (a, b) = (inputs(alo, ahi), inputs(blo, bhi));
        let got = run::<f64>(&format!("{name}_f64"), "float64", expr, &a, &b);
        for i in 0..8 {
            if !close(got[i], f(a[i], b[i]), 1e-13) {
                failures.push(format!(
                    "{name} f64 at {}: {} vs {}",
                    a[i],
                    got[i],
                    f(a[i], b[i])
                ));
            }
        }
        let (a32, b32): (Vec<f32>, Vec<f32>) = (
            a.iter().map(|&v| v as f32).collect(),
            b.iter().map(|&v| v as f32).collect(),
        );
        let got = run::<f32>(&format!("{name}_f32"), "float32", expr, &a32, &b32);
        for i in 0..8 {
            let want = f(f64::from(a32[i]), f64::from(b32[i])) as f32;
            if !close(f64::from(got[i]), f64::from(want), 1e-5) {
                failures.push(format!("{name} f32 at {}: {} vs {want}", a32[i], got[i]));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

type I32Fn = fn(i32, i32) -> i32;

const INT_CASES: &[(&str, &str, I32Fn)] = &[
    ("bitwise_and", "T.bitwise_and(A[vi], B[vi])", |a, b| a & b),
    ("bitwise_or", "T.bitwise_or(A[vi], B[vi])", |a, b| a | b),
    ("bitwise_xor", "T.bitwise_xor(A[vi], B[vi])", |a, b| a ^ b),
    ("bitwise_not", "T.bitwise_not(A[vi])", |a, _| !a),
    ("shift_left", "T.shift_left(A[vi], B[vi])", |a, b| a << b),
    ("shift_right", "T.shift_right(A[vi], B[vi])", |a, b| a >> b),
    ("truncmod", "T.truncmod(A[vi], B[vi] + 1)", |a, b| {
        a % (b + 1)
    }),
];

#[test]
fn integer_intrinsics_match_std() {
    let a: Vec<i32> = vec![-1000, -37, -1, 0, 1, 5, 77, 123_456];
    let b: Vec<i32> = vec![0, 1, 2, 3, 7, 12, 30, 4];
    let mut failures = Vec::new();
    for &(name, expr, f) in INT_CASES {
        let got = run::<i32>(name, "int32", expr, &a, &b);
        for i in 0..8 {
            if got[i] != f(a[i], b[i]) {
                failures.push(format!(
                    "{name}({}, {}): {} vs {}",
                    a[i],
                    b[i],
                    got[i],
                    f(a[i], b[i])
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
