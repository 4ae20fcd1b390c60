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
    check_all(name, call, inputs, std::slice::from_ref(want), tol)
}

/// [`check`] for a result that is a tensor (one `wants`) or a tuple of tensors.
fn check_all(name: &str, call: &str, inputs: &[T], wants: &[T], tol: f64) -> Result<(), String> {
    let params: Vec<String> = inputs
        .iter()
        .enumerate()
        .map(|(i, x)| format!("{}: {}", (b'a' + i as u8) as char, ty(x)))
        .collect();
    let (ret, want) = match wants {
        [w] => (ty(w), tensor_json(w)),
        _ => (
            format!(
                "R.Tuple({})",
                wants.iter().map(ty).collect::<Vec<_>>().join(", ")
            ),
            json!({"tuple": wants.iter().map(tensor_json).collect::<Vec<_>>()}),
        ),
    };
    let src = format!(
        "@I.ir_module\nclass Module:\n    @R.function\n    def main({}) -> {ret}:\n        gv: {ret} = {call}\n        return gv\n",
        params.join(", "),
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
    compare(&got, &want, tol, tol).map_err(|e| format!("{name}: {e}"))
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

fn repeat_ref(x: &T, r: usize, axis: Option<usize>) -> T {
    match axis {
        None => T {
            dtype: x.dtype,
            shape: vec![x.data.len() * r],
            data: x
                .data
                .iter()
                .flat_map(|&v| std::iter::repeat_n(v, r))
                .collect(),
        },
        Some(a) => {
            let mut shape = x.shape.clone();
            shape[a] *= r;
            let data = (0..numel(&shape))
                .map(|k| {
                    let mut idx = unravel(k, &shape);
                    idx[a] /= r;
                    x.data[ravel(&idx, &x.shape)]
                })
                .collect();
            T {
                dtype: x.dtype,
                shape,
                data,
            }
        }
    }
}

/// Sums `x` into `shape` (numpy-broadcast inverse).
fn collapse_ref(x: &T, shape: &[usize]) -> T {
    let mut data = vec![0.0; numel(shape)];
    let off = x.shape.len() - shape.len();
    for (k, v) in x.data.iter().enumerate() {
        let idx = unravel(k, &x.shape);
        let o: Vec<usize> = shape
            .iter()
            .enumerate()
            .map(|(d, &s)| if s == 1 { 0 } else { idx[d + off] })
            .collect();
        data[ravel(&o, shape)] += v;
    }
    T {
        dtype: x.dtype,
        shape: shape.to_vec(),
        data,
    }
}

fn gather_nd_ref(x: &T, ind: &T, b: usize) -> T {
    let m = *ind.shape.last().unwrap_or(&0);
    let k = ind.shape.len() - 1;
    let mut shape = ind.shape[..k].to_vec();
    shape.extend_from_slice(&x.shape[b + m..]);
    let data = (0..numel(&shape))
        .map(|f| {
            let o = unravel(f, &shape);
            let mut idx = o[..b].to_vec();
            for j in 0..m {
                let mut ii = o[..k].to_vec();
                ii.push(j);
                let v = ind.data[ravel(&ii, &ind.shape)] as i64;
                let dim = x.shape[b + j] as i64;
                idx.push((if v < 0 { v + dim } else { v }) as usize);
            }
            idx.extend_from_slice(&o[k..]);
            x.data[ravel(&idx, &x.shape)]
        })
        .collect();
    T {
        dtype: x.dtype,
        shape,
        data,
    }
}

fn scatter_nd_ref(x: &T, ind: &T, upd: &T, f: fn(f64, f64) -> f64) -> T {
    let m = *ind.shape.last().unwrap_or(&0);
    let k = ind.shape.len() - 1;
    let mut out = x.clone();
    for (p, &u) in upd.data.iter().enumerate() {
        let j = unravel(p, &upd.shape);
        let mut idx = Vec::new();
        for d in 0..m {
            let mut ii = j[..k].to_vec();
            ii.push(d);
            let v = ind.data[ravel(&ii, &ind.shape)] as i64;
            let dim = x.shape[d] as i64;
            idx.push((if v < 0 { v + dim } else { v }) as usize);
        }
        idx.extend_from_slice(&j[k..]);
        let at = ravel(&idx, &x.shape);
        out.data[at] = f(out.data[at], u);
    }
    out
}

fn manipulation_cases() -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let x = t("int32", &[2, 3], ints(6, -9, 9, 4));
    cases.push((
        "repeat_axis1".into(),
        "R.repeat(a, repeats=2, axis=1)".into(),
        vec![x.clone()],
        repeat_ref(&x, 2, Some(1)),
    ));
    cases.push((
        "repeat_axis_neg2".into(),
        "R.repeat(a, repeats=3, axis=-2)".into(),
        vec![x.clone()],
        repeat_ref(&x, 3, Some(0)),
    ));
    cases.push((
        "repeat_flat".into(),
        "R.repeat(a, repeats=2)".into(),
        vec![x.clone()],
        repeat_ref(&x, 2, None),
    ));
    let (a, b) = (
        t("float32", &[3], vec![1.0, -2.0, 0.5]),
        t("float32", &[4], seq(4, -1.0, 0.75)),
    );
    let outer = T {
        dtype: "float32",
        shape: vec![3, 4],
        data: a
            .data
            .iter()
            .flat_map(|&p| b.data.iter().map(move |&q| p * q))
            .collect(),
    };
    cases.push(("outer".into(), "R.outer(a, b)".into(), vec![a, b], outer));
    let eye = |n: usize, m: usize, k: i64, dtype: &'static str| T {
        dtype,
        shape: vec![n, m],
        data: (0..n * m)
            .map(|f| f64::from(u8::from((f % m) as i64 - (f / m) as i64 == k)))
            .collect(),
    };
    cases.push((
        "eye".into(),
        "R.eye(3, 4, 1, dtype=\"float32\")".into(),
        vec![],
        eye(3, 4, 1, "float32"),
    ));
    cases.push((
        "eye_like".into(),
        "R.eye_like(a, -1)".into(),
        vec![t("int32", &[4, 3], vec![7.0; 12])],
        eye(4, 3, -1, "int32"),
    ));
    let x = t("float32", &[2, 4, 3], seq(24, -3.0, 0.5));
    cases.push((
        "collapse_sum_to".into(),
        "R.collapse_sum_to(a, R.shape([1, 3]))".into(),
        vec![x.clone()],
        collapse_ref(&x, &[1, 3]),
    ));
    cases.push((
        "collapse_sum_like".into(),
        "R.collapse_sum_like(a, b)".into(),
        vec![x.clone(), t("float32", &[4, 1], vec![0.0; 4])],
        collapse_ref(&x, &[4, 1]),
    ));
    let data = t("float32", &[2, 3, 4], seq(24, 0.0, 1.0));
    let ind = t("int64", &[3, 2], vec![0.0, 2.0, 1.0, -1.0, 1.0, 0.0]);
    cases.push((
        "gather_nd".into(),
        "R.gather_nd(a, b)".into(),
        vec![data.clone(), ind.clone()],
        gather_nd_ref(&data, &ind, 0),
    ));
    let ind1 = t("int32", &[2, 1], vec![2.0, 0.0]);
    cases.push((
        "gather_nd_batch".into(),
        "R.gather_nd(a, b, batch_dims=1)".into(),
        vec![data.clone(), ind1.clone()],
        gather_nd_ref(&data, &ind1, 1),
    ));
    let x = t("float32", &[4, 3], seq(12, 1.0, 1.0));
    let ind = t("int64", &[3, 1], vec![1.0, 3.0, 1.0]);
    let upd = t("float32", &[3, 3], seq(9, -4.0, 1.0));
    for (red, f) in [
        ("update", (|_, u| u) as fn(f64, f64) -> f64),
        ("add", |a, u| a + u),
        ("mul", |a, u| a * u),
        ("max", f64::max),
        ("min", f64::min),
    ] {
        cases.push((
            format!("scatter_nd_{red}"),
            format!("R.scatter_nd(a, b, c, reduction=\"{red}\")"),
            vec![x.clone(), ind.clone(), upd.clone()],
            scatter_nd_ref(&x, &ind, &upd, f),
        ));
    }
    let ind2 = t("int64", &[2, 2], vec![0.0, 1.0, 3.0, -1.0]);
    let upd2 = t("float32", &[2], vec![10.0, 20.0]);
    cases.push((
        "scatter_nd_elements".into(),
        "R.scatter_nd(a, b, c)".into(),
        vec![x.clone(), ind2.clone(), upd2.clone()],
        scatter_nd_ref(&x, &ind2, &upd2, |_, u| u),
    ));
    let x = t("float32", &[3, 4], seq(12, 0.0, 1.0));
    let lens = t("int64", &[3], vec![2.0, 4.0, 1.0]);
    let mut rs = x.clone();
    for b in 0..3 {
        let l = lens.data[b] as usize;
        for s in 0..l {
            rs.data[b * 4 + s] = x.data[b * 4 + (l - 1 - s)];
        }
    }
    cases.push((
        "reverse_sequence".into(),
        "R.reverse_sequence(a, b, seq_axis=1, batch_axis=0)".into(),
        vec![x.clone(), lens],
        rs,
    ));
    let lens_t = t("int32", &[4], vec![3.0, 0.0, 1.0, 2.0]);
    let mut rt = x.clone();
    for b in 0..4 {
        let l = lens_t.data[b] as usize;
        for s in 0..l {
            rt.data[s * 4 + b] = x.data[(l - 1 - s) * 4 + b];
        }
    }
    cases.push((
        "reverse_sequence_t".into(),
        "R.reverse_sequence(a, b, seq_axis=0, batch_axis=1)".into(),
        vec![x.clone(), lens_t],
        rt,
    ));
    let w = t("float16", &[2, 2], vec![0.5, -1.25, 3.0, 8.0]);
    cases.push((
        "wrap_param".into(),
        "R.wrap_param(a, dtype=\"float32\")".into(),
        vec![w.clone()],
        T {
            dtype: "float32",
            ..w
        },
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

#[test]
fn manipulation_and_creation_operators() {
    run_cases(manipulation_cases(), 1e-5);
}

#[test]
fn a_wrong_expectation_is_detected() {
    // The harness itself: a perturbed reference must fail.
    let x = t("int32", &[2, 3], ints(6, -9, 9, 4));
    let mut want = repeat_ref(&x, 2, Some(1));
    want.data[5] += 1.0;
    let err = check("repeat", "R.repeat(a, repeats=2, axis=1)", &[x], &want, 0.0);
    assert!(err.is_err_and(|e| e.contains("element 5")));
}

/// The lower median of `x` along `axis` (all elements when `None`) and, with an axis, its
/// index in a stable ascending sort.
fn median_ref(x: &T, axis: Option<usize>, keepdims: bool) -> Vec<T> {
    let (outer_shape, len): (Vec<usize>, usize) = match axis {
        None => (vec![], x.data.len()),
        Some(a) => {
            let mut s = x.shape.clone();
            let l = s.remove(a);
            (s, l)
        }
    };
    let mut vals = Vec::new();
    let mut idxs = Vec::new();
    for o in 0..numel(&outer_shape) {
        let oi = unravel(o, &outer_shape);
        let mut items: Vec<(f64, usize)> = (0..len)
            .map(|j| match axis {
                None => (x.data[j], j),
                Some(a) => {
                    let mut idx = oi.clone();
                    idx.insert(a, j);
                    (x.data[ravel(&idx, &x.shape)], j)
                }
            })
            .collect();
        items.sort_by(|p, q| p.0.total_cmp(&q.0));
        let (v, j) = items[(len - 1) / 2];
        vals.push(v);
        idxs.push(j as f64);
    }
    let shape = match (axis, keepdims) {
        (None, true) => vec![1; x.shape.len()],
        (Some(a), true) => {
            let mut s = x.shape.clone();
            s[a] = 1;
            s
        }
        _ => outer_shape,
    };
    let mut out = vec![T {
        dtype: x.dtype,
        shape: shape.clone(),
        data: vals,
    }];
    if axis.is_some() {
        out.push(T {
            dtype: "int64",
            shape,
            data: idxs,
        });
    }
    out
}

#[test]
fn median() {
    let x = t(
        "float32",
        &[3, 4],
        vec![2.0, 1.0, 2.0, 1.0, 5.0, -1.0, 3.0, 0.5, 7.0, 7.0, 7.0, 6.0],
    );
    let xi = t("int32", &[2, 3, 2], ints(12, -5, 5, 7));
    let cases: Vec<(&str, String, &T, Option<usize>, bool)> = vec![
        ("all", "R.median(a)".into(), &x, None, false),
        (
            "all_keep",
            "R.median(a, keepdims=True)".into(),
            &x,
            None,
            true,
        ),
        ("axis1", "R.median(a, axis=1)".into(), &x, Some(1), false),
        (
            "axis0_keep",
            "R.median(a, axis=0, keepdims=True)".into(),
            &x,
            Some(0),
            true,
        ),
        (
            "int_axis_neg2",
            "R.median(a, axis=-2)".into(),
            &xi,
            Some(1),
            false,
        ),
    ];
    let mut failures = Vec::new();
    for (name, call, x, axis, keep) in cases {
        let want = median_ref(x, axis, keep);
        if let Err(e) = check_all(name, &call, std::slice::from_ref(x), &want, 0.0) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A direct einsum: every assignment of the letters, products summed into the output.
fn einsum_ref(spec: &str, ops: &[&T], dtype: &'static str) -> T {
    let (lhs, rhs) = spec.split_once("->").unwrap_or((spec, ""));
    let ins: Vec<Vec<char>> = lhs.split(',').map(|t| t.chars().collect()).collect();
    let out: Vec<char> = rhs.chars().collect();
    let mut letters: Vec<(char, usize)> = Vec::new();
    for (l, x) in ins.iter().zip(ops) {
        for (ch, &e) in l.iter().zip(&x.shape) {
            if !letters.iter().any(|(c, _)| c == ch) {
                letters.push((*ch, e));
            }
        }
    }
    let all: Vec<usize> = letters.iter().map(|p| p.1).collect();
    let shape: Vec<usize> = out
        .iter()
        .map(|ch| letters.iter().find(|p| p.0 == *ch).map_or(1, |p| p.1))
        .collect();
    let mut data = vec![0.0; numel(&shape)];
    for f in 0..numel(&all) {
        let a = unravel(f, &all);
        let val = |ch: &char| a[letters.iter().position(|p| p.0 == *ch).unwrap_or(0)];
        let prod: f64 = ins
            .iter()
            .zip(ops)
            .map(|(l, x)| x.data[ravel(&l.iter().map(val).collect::<Vec<_>>(), &x.shape)])
            .product();
        let o: Vec<usize> = out.iter().map(val).collect();
        data[ravel(&o, &shape)] += prod;
    }
    T { dtype, shape, data }
}

#[test]
fn einsum() {
    let a = t("float32", &[2, 3], seq(6, -1.0, 0.5));
    let b = t("float32", &[3, 4], seq(12, 2.0, -0.25));
    let sq = t("float32", &[3, 3], seq(9, 1.0, 1.0));
    let ba = t("float32", &[2, 2, 3], seq(12, 0.5, 0.5));
    let bb = t("float32", &[2, 3, 2], seq(12, -2.0, 0.375));
    let v = t("float32", &[3], vec![1.0, -2.0, 3.0]);
    let w = t("float32", &[4], vec![0.5, 1.5, -1.0, 2.0]);
    // (name, explicit subscripts for the reference, subscripts in the call, operands)
    let cases: Vec<(&str, &str, &str, Vec<&T>)> = vec![
        ("matmul", "ij,jk->ik", "ij,jk->ik", vec![&a, &b]),
        ("transpose", "ij->ji", "ij->ji", vec![&a]),
        ("trace", "ii->", "ii", vec![&sq]),
        ("diag", "ii->i", "ii->i", vec![&sq]),
        (
            "batch_matmul",
            "bij,bjk->bik",
            "bij,bjk->bik",
            vec![&ba, &bb],
        ),
        ("outer_implicit", "i,j->ij", "i,j", vec![&v, &w]),
        ("dot", "i,i->", "i,i->", vec![&v, &v]),
        ("sum_all", "ij->", "ij->", vec![&a]),
        ("three", "ij,jk,k->i", "ij,jk,k->i", vec![&a, &b, &w]),
    ];
    let mut failures = Vec::new();
    for (name, spec, call_spec, ops) in cases {
        let want = einsum_ref(spec, &ops, "float32");
        let names: Vec<String> = (0..ops.len())
            .map(|i| ((b'a' + i as u8) as char).to_string())
            .collect();
        let call = format!(
            "R.einsum(({},), subscripts=\"{call_spec}\")",
            names.join(", ")
        );
        let inputs: Vec<T> = ops.into_iter().cloned().collect();
        if let Err(e) = check(name, &call, &inputs, &want, 1e-4) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `R.size(a)` is a scalar int64 tensor holding the product of `a`'s shape (TVM 0.27's type),
/// symbolic dimensions included.
#[test]
fn size_is_the_product_of_the_shape() {
    for (param, input, want) in [
        (
            "R.Tensor((2, 3, 4), dtype=\"float32\")",
            t("float32", &[2, 3, 4], seq(24, 0.0, 1.0)),
            24,
        ),
        (
            "R.Tensor((), dtype=\"int32\")",
            t("int32", &[], vec![7.0]),
            1,
        ),
        (
            "R.Tensor((\"n\", 3), dtype=\"float32\")",
            t("float32", &[5, 3], seq(15, 0.0, 1.0)),
            15,
        ),
        (
            "R.Tensor((\"n\", 3), dtype=\"float32\")",
            t("float32", &[0, 3], vec![]),
            0,
        ),
    ] {
        let src = format!(
            "@I.ir_module\nclass Module:\n    @R.function\n    def main(a: {param}) -> R.Tensor((), dtype=\"int64\"):\n        gv: R.Tensor((), dtype=\"int64\") = R.size(a)\n        return gv\n"
        );
        let module = relax::script::parse_module(&src).expect("parses");
        let lowered = relax::legalize::legalize_ops(&module).expect("legalizes");
        let arg = value_from_json(&tensor_json(&input)).expect("input");
        let got = run_main(&lowered, &[arg]).expect("runs");
        let want = tensor_json(&t("int64", &[], vec![want as f64]));
        compare(&got, &want, 0.0, 0.0).unwrap_or_else(|e| panic!("size of {param}: {e}"));
    }
}

#[test]
fn unsupported_dtypes_are_errors_naming_the_operator() {
    let i = t("int32", &[3], vec![1.0, 2.0, 3.0]);
    let f = t("float32", &[3], vec![1.0, 2.0, 3.0]);
    for (call, inputs, want, op) in [
        (
            "R.log_add_exp(a, b)",
            vec![i.clone(), i.clone()],
            &i,
            "log_add_exp",
        ),
        ("R.atan2(a, b)", vec![i.clone(), i.clone()], &i, "atan2"),
        (
            "R.bitwise_and(a, b)",
            vec![f.clone(), f.clone()],
            &f,
            "bitwise_and",
        ),
        (
            "R.left_shift(a, b)",
            vec![f.clone(), f.clone()],
            &f,
            "left_shift",
        ),
    ] {
        let err = check(op, call, &inputs, want, 0.0).expect_err("refused");
        assert!(
            err.contains("legalize")
                && err.contains(&format!("relax.{op}"))
                && err.contains("dtype"),
            "{err}"
        );
    }
}
