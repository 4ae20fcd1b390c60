//! Tensor data for a case's arguments and constants: small integers (whose float sums are
//! exact in any order) or uniform floats, with an occasional NaN, ±Inf or −0.0 where the case
//! asks for them; integer tensors in their spec's range.

use kernel_fuzz::rng::Rng;
use relaxjit::{Tensor, Value};

use crate::case::{Case, TensorSpec};

/// The tensor of `spec`, drawn from `rng`.
pub fn tensor(spec: &TensorSpec, rng: &mut Rng, integers: bool, special: bool) -> Tensor {
    let n = spec.numel();
    let float = |rng: &mut Rng| -> f64 {
        if special && rng.percent(4) {
            return *rng.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0]);
        }
        if integers {
            rng.range(-3, 3) as f64
        } else {
            (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    };
    let (lo, hi) = spec.range.unwrap_or((-5, 5));
    // With `special`, a few integers are the dtype's extremes (clamped to it below).
    let int = |rng: &mut Rng| {
        if special && rng.percent(4) {
            *rng.pick(&[i64::MIN, i64::MAX, i64::from(i32::MIN), i64::from(i32::MAX)])
        } else {
            rng.range(lo, hi)
        }
    };
    let shape = &spec.shape;
    let made = match spec.dtype.as_str() {
        "float32" => {
            let v: Vec<f32> = (0..n).map(|_| float(rng) as f32).collect();
            Tensor::from_slice(shape, &v)
        }
        "float64" => {
            let v: Vec<f64> = (0..n).map(|_| float(rng)).collect();
            Tensor::from_slice(shape, &v)
        }
        "float16" => {
            let v: Vec<half::f16> = (0..n).map(|_| half::f16::from_f64(float(rng))).collect();
            Tensor::from_slice(shape, &v)
        }
        "int8" => {
            let v: Vec<i8> = (0..n).map(|_| int(rng).clamp(-128, 127) as i8).collect();
            Tensor::from_slice(shape, &v)
        }
        "int32" => {
            let v: Vec<i32> = (0..n)
                .map(|_| int(rng).clamp(i32::MIN.into(), i32::MAX.into()) as i32)
                .collect();
            Tensor::from_slice(shape, &v)
        }
        "int64" => {
            let v: Vec<i64> = (0..n).map(|_| int(rng)).collect();
            Tensor::from_slice(shape, &v)
        }
        "bool" => {
            let v: Vec<bool> = (0..n).map(|_| rng.percent(50)).collect();
            Tensor::from_slice(shape, &v)
        }
        other => panic!("no inputs of dtype {other}"),
    };
    made.unwrap_or_else(|e| panic!("making an input {spec:?}: {e}"))
}

/// The arguments and the metadata constants of `case`, the same on every call.
pub fn inputs(case: &Case) -> (Vec<Value>, Vec<Tensor>) {
    let mut rng = Rng::new(case.input_seed);
    let args = case
        .args
        .iter()
        .map(|s| Value::Tensor(tensor(s, &mut rng, case.integers, case.special)))
        .collect();
    // Constants are weights: never special (a folded NaN weight says nothing new).
    let consts = case
        .consts
        .iter()
        .map(|s| tensor(s, &mut rng, case.integers, false))
        .collect();
    (args, consts)
}
