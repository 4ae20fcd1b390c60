//! LegalizeOps rules for the less common non-nn operators: each case is a one-call module in
//! TVMScript, legalized, run through the reference TIR interpreter and compared with a plain
//! Rust reference implementation on small deterministic inputs.

use relaxjit_relax as relax;
use serde_json::{Value as Json, json};

mod corpus;

use corpus::call_tir_runner::*;

/// A tensor in the test: dtype, shape and row-major data (integers are exact in `f64`).
#[derive(Clone, Debug)]
struct T {
    dtype: &'static str,
    shape: Vec<usize>,
    data: Vec<f64>,
}

fn t(dtype: &'static str, shape: &[usize], data: Vec<f64>) -> T {
    T {
        dtype,
        shape: shape.to_vec(),
        data,
    }
}

/// Deterministic data: `n` values `start, start + step, ...`.
fn seq(n: usize, start: f64, step: f64) -> Vec<f64> {
    (0..n).map(|i| start + step * i as f64).collect()
}

/// Deterministic pseudo-random integers in `[lo, hi)`.
fn ints(n: usize, lo: i64, hi: i64, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (lo + ((s >> 33) % (hi - lo) as u64) as i64) as f64
        })
        .collect()
}

fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = flat % shape[d].max(1);
        flat /= shape[d].max(1);
    }
    idx
}

fn ravel(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(strides(shape)).map(|(i, s)| i * s).sum()
}

fn is_float(dtype: &str) -> bool {
    dtype.starts_with("float")
}

fn tensor_json(x: &T) -> Json {
    let data: Vec<Json> = x
        .data
        .iter()
        .map(|&v| {
            if is_float(x.dtype) {
                json!(v)
            } else if x.dtype == "bool" {
                json!(v != 0.0)
            } else {
                json!(v as i64)
            }
        })
        .collect();
    json!({"tensor": {"dtype": x.dtype, "shape": x.shape, "data": data}})
}

fn ty(x: &T) -> String {
    let dims: Vec<String> = x.shape.iter().map(usize::to_string).collect();
    let shape = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    format!("R.Tensor({shape}, dtype=\"{}\")", x.dtype)
}

/// Builds `main(a, b, ...)` returning `call` (which names the inputs `a`, `b`, ...),
/// legalizes it, runs it and compares with `want`.
fn check(name: &str, call: &str, inputs: &[T], want: &T, tol: f64) -> Result<(), String> {
    let params: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(i, x)| format!("{}: {}", (b'a' + i as u8) as char, ty(x)))
        .collect();
    let src = format!(
        "@I.ir_module\nclass Module:\n    @R.function\n    def main({}) -> {}:\n        gv: {} = {call}\n        return gv\n",
        params.join(", "),
        ty(want),
        ty(want)
    );
    let module = relax::script::parse_module(&src).map_err(|e| format!("{name}: parse: {e}"))?;
    let lowered =
        relax::legalize::legalize_ops(&module).map_err(|e| format!("{name}: legalize: {e}"))?;
    let args: Vec<Value> = inputs
        .iter()
        .map(|x| value_from_json(&tensor_json(x)))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{name}: input: {e}"))?;
    let got = run_main(&lowered, &args).map_err(|e| format!("{name}: run: {e}"))?;
    compare(&got, &tensor_json(want), tol, tol).map_err(|e| format!("{name}: {e}"))
}

// ----- reference implementations -----------------------------------------------------------

/// Numpy broadcasting of two shapes.
fn bshape(a: &[usize], b: &[usize]) -> Vec<usize> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let da = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let db = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            da.max(db)
        })
        .collect()
}

fn bget(x: &T, out_idx: &[usize]) -> f64 {
    let off = out_idx.len() - x.shape.len();
    let idx: Vec<usize> = x
        .shape
        .iter()
        .enumerate()
        .map(|(d, &s)| if s == 1 { 0 } else { out_idx[d + off] })
        .collect();
    x.data[ravel(&idx, &x.shape)]
}

fn ewise(xs: &[&T], dtype: &'static str, f: impl Fn(&[f64]) -> f64) -> T {
    let shape = xs.iter().fold(Vec::new(), |s, x| bshape(&s, &x.shape));
    let data = (0..numel(&shape))
        .map(|k| {
            let idx = unravel(k, &shape);
            let vals: Vec<f64> = xs.iter().map(|x| bget(x, &idx)).collect();
            f(&vals)
        })
        .collect();
    T { dtype, shape, data }
}

fn unary_case(op: &str, f: fn(f64) -> f64, lo: f64, hi: f64) -> (String, String, Vec<T>, T) {
    let x = t("float32", &[2, 3], seq(6, lo, (hi - lo) / 6.0));
    let want = ewise(&[&x], "float32", |v| f(f64::from(v[0] as f32)));
    (op.to_string(), format!("R.{op}(a)"), vec![x], want)
}

fn binary_case(
    op: &str,
    dtype: &'static str,
    a: T,
    b: T,
    f: impl Fn(f64, f64) -> f64,
) -> (String, String, Vec<T>, T) {
    let want = ewise(&[&a, &b], dtype, |v| f(v[0], v[1]));
    (
        format!("{op}_{dtype}"),
        format!("R.{op}(a, b)"),
        vec![a, b],
        want,
    )
}

type Case = (String, String, Vec<T>, T);

fn elementwise_cases() -> Vec<Case> {
    let i32a = || t("int32", &[2, 3], ints(6, -50, 50, 1));
    let i32b = || t("int32", &[3], ints(3, -50, 50, 2));
    let sh = || t("int32", &[3], vec![0.0, 3.0, 7.0]);
    let pos = || t("int32", &[2, 3], ints(6, 1, 1000, 3));
    let nz = || t("int32", &[3], vec![3.0, -7.0, 5.0]);
    let fa = || t("float32", &[2, 3], seq(6, -2.5, 1.1));
    let fb = || t("float32", &[3], vec![0.75, -1.5, 2.0]);
    let bits = |f: fn(i64, i64) -> i64| move |a: f64, b: f64| f(a as i64, b as i64) as f64;
    let mut cases = vec![
        unary_case("acos", f64::acos, -0.9, 0.9),
        unary_case("asin", f64::asin, -0.9, 0.9),
        unary_case("atan", f64::atan, -3.0, 3.0),
        unary_case("atanh", f64::atanh, -0.9, 0.9),
        unary_case("acosh", f64::acosh, 1.0, 5.0),
        unary_case("asinh", f64::asinh, -3.0, 3.0),
        unary_case("cosh", f64::cosh, -2.0, 2.0),
        unary_case("sinh", f64::sinh, -2.0, 2.0),
        binary_case("bitwise_and", "int32", i32a(), i32b(), bits(|a, b| a & b)),
        binary_case("bitwise_or", "int32", i32a(), i32b(), bits(|a, b| a | b)),
        binary_case("bitwise_xor", "int32", i32a(), i32b(), bits(|a, b| a ^ b)),
        binary_case("left_shift", "int32", i32a(), sh(), bits(|a, b| a << b)),
        binary_case("right_shift", "int32", i32a(), sh(), bits(|a, b| a >> b)),
        binary_case("mod", "int32", i32a(), nz(), bits(|a, b| a % b)),
        binary_case("mod", "float32", fa(), fb(), |a, b| {
            f64::from((a as f32) % (b as f32))
        }),
        binary_case("atan2", "float32", fa(), fb(), f64::atan2),
        binary_case("log_add_exp", "float32", fa(), fb(), |a, b| {
            (a.exp() + b.exp()).ln()
        }),
    ];
    let x = pos();
    cases.push((
        "bitwise_not".into(),
        "R.bitwise_not(a)".into(),
        vec![x.clone()],
        ewise(&[&x], "int32", |v| !(v[0] as i64) as f64),
    ));
    let (a, b, c) = (
        t("float32", &[2, 3], seq(6, -1.0, 0.5)),
        t("float32", &[2, 3], seq(6, 2.0, -0.25)),
        t("float32", &[2, 3], seq(6, 0.5, 0.125)),
    );
    cases.push((
        "ewise_fma".into(),
        "R.ewise_fma(a, b, c)".into(),
        vec![a.clone(), b.clone(), c.clone()],
        ewise(&[&a, &b, &c], "float32", |v| v[0] * v[1] + v[2]),
    ));
    let x = t("float32", &[2, 3], seq(6, 1.0, 1.0));
    let m = t("bool", &[3], vec![1.0, 0.0, 1.0]);
    let v = t("float32", &[], vec![-4.0]);
    cases.push((
        "masked_fill".into(),
        "R.masked_fill(a, b, c)".into(),
        vec![x.clone(), m.clone(), v],
        ewise(
            &[&x, &m],
            "float32",
            |v| if v[1] != 0.0 { -4.0 } else { v[0] },
        ),
    ));
    cases
}

fn run_cases(cases: Vec<Case>, tol: f64) {
    let mut failures = Vec::new();
    for (name, call, inputs, want) in &cases {
        if let Err(e) = check(name, call, inputs, want, tol) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn elementwise_operators() {
    run_cases(elementwise_cases(), 1e-5);
}
