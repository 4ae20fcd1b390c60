//! Generators of kernel *inputs*: tensor elements that are mostly ordinary numbers but often
//! the values kernels get wrong — NaN (quiet, signalling, negative), ±Inf, −0.0, denormals,
//! the largest finite values, and the extreme integers (MIN, MAX, 0, −1).
//!
//! [`fill`] draws from a seeded [`Rng`] (the fuzzer's deterministic path); [`elements`] is the
//! same distribution as a proptest [`Strategy`], for property tests.

use proptest::prelude::*;
use tir::{DataType, TypeCode};

use crate::rng::Rng;

/// Special `f64` values; each is rounded to the element type when stored.
pub const SPECIAL_F64: [f64; 14] = [
    f64::NAN,
    -f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    f64::MIN_POSITIVE,
    -f64::MIN_POSITIVE,
    // The smallest denormal of f64, and a denormal of f32 (as an f64 it is normal).
    f64::from_bits(1),
    1.401298464324817e-45,
    -1.1754942106924411e-38,
    f64::MAX,
    f64::MIN,
    0.5,
];

/// Special `f32` bit patterns beyond what [`SPECIAL_F64`] rounds to: a signalling NaN and a
/// NaN with a payload, the largest finite values and the smallest denormal.
pub const SPECIAL_F32_BITS: [u32; 7] = [
    0x7F80_0001, // signalling NaN
    0xFFC0_1234, // negative quiet NaN with a payload
    0x7F7F_FFFF, // f32::MAX
    0xFF7F_FFFF, // f32::MIN
    0x0000_0001, // smallest positive denormal
    0x8000_0001, // smallest negative denormal
    0x007F_FFFF, // largest denormal
];

/// Special integers: each is wrapped to the element type's width when stored.
pub const SPECIAL_INT: [i64; 12] = [
    0,
    -1,
    1,
    i64::MIN,
    i64::MAX,
    i32::MIN as i64,
    i32::MAX as i64,
    i32::MAX as i64 + 1,
    u32::MAX as i64,
    i8::MIN as i64,
    i8::MAX as i64,
    255,
];

/// The little-endian bytes of `n` elements of `dtype`, about one in four of them special.
pub fn fill(dtype: DataType, n: usize, rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * dtype.bytes());
    for _ in 0..n {
        let e = element(dtype, rng);
        out.extend_from_slice(&e.to_le_bytes()[..dtype.bytes()]);
    }
    out
}

/// One element of `dtype` as its bit pattern in the low bytes of a `u64`.
pub fn element(dtype: DataType, rng: &mut Rng) -> u64 {
    let special = rng.percent(25);
    match dtype.code {
        TypeCode::Float | TypeCode::BFloat => {
            if special && dtype == DataType::FLOAT32 && rng.percent(30) {
                return u64::from(*rng.pick(&SPECIAL_F32_BITS));
            }
            let v = if special {
                *rng.pick(&SPECIAL_F64)
            } else {
                // Small values with a few fractional bits: sums and products stay exact often
                // enough that rounding differences would show.
                rng.range(-64, 64) as f64 / 8.0 * if rng.percent(20) { 1e6 } else { 1.0 }
            };
            float_bits(v, dtype)
        }
        _ if dtype.is_bool() => rng.below(2),
        _ => {
            let v = if special {
                *rng.pick(&SPECIAL_INT)
            } else {
                rng.range(-20, 20)
            };
            int_bits(v, dtype)
        }
    }
}

/// The bits of `v` rounded to the float type `dtype`.
pub fn float_bits(v: f64, dtype: DataType) -> u64 {
    match (dtype.code, dtype.bits) {
        (TypeCode::Float, 64) => v.to_bits(),
        (TypeCode::Float, 32) => u64::from((v as f32).to_bits()),
        (TypeCode::Float, 16) => u64::from(half::f16::from_f64(v).to_bits()),
        _ => u64::from(half::bf16::from_f64(v).to_bits()),
    }
}

/// The bits of `v` wrapped to the integer type `dtype`.
pub fn int_bits(v: i64, dtype: DataType) -> u64 {
    let bits = u32::from(dtype.bits);
    if bits >= 64 {
        v as u64
    } else {
        (v as u64) & ((1u64 << bits) - 1)
    }
}

/// Whether `a` and `b` (bit patterns of `dtype`) are the same value for a differential test:
/// the same bits, or both NaN (NaN payloads and signs are not part of any contract).
pub fn same_element(a: u64, b: u64, dtype: DataType) -> bool {
    a == b || (is_nan(a, dtype) && is_nan(b, dtype))
}

/// Whether the bit pattern `x` of `dtype` is a NaN.
pub fn is_nan(x: u64, dtype: DataType) -> bool {
    match (dtype.code, dtype.bits) {
        (TypeCode::Float, 64) => f64::from_bits(x).is_nan(),
        (TypeCode::Float, 32) => f32::from_bits(x as u32).is_nan(),
        (TypeCode::Float, 16) => half::f16::from_bits(x as u16).is_nan(),
        (TypeCode::BFloat, 16) => half::bf16::from_bits(x as u16).is_nan(),
        _ => false,
    }
}

/// The distribution of [`element`] as a proptest strategy over element bit patterns. It
/// shrinks towards zero.
pub fn elements(dtype: DataType) -> BoxedStrategy<u64> {
    let special_floats: Vec<u64> = SPECIAL_F64
        .iter()
        .map(|v| float_bits(*v, dtype))
        .chain(
            (dtype == DataType::FLOAT32)
                .then_some(SPECIAL_F32_BITS.iter().map(|b| u64::from(*b)))
                .into_iter()
                .flatten(),
        )
        .collect();
    let special_ints: Vec<u64> = SPECIAL_INT.iter().map(|v| int_bits(*v, dtype)).collect();
    match dtype.code {
        TypeCode::Float | TypeCode::BFloat => prop_oneof![
            3 => (-512i64..512).prop_map(move |v| float_bits(v as f64 / 8.0, dtype)),
            1 => proptest::sample::select(special_floats),
        ]
        .boxed(),
        _ if dtype.is_bool() => (0u64..2).boxed(),
        _ => prop_oneof![
            3 => (-20i64..20).prop_map(move |v| int_bits(v, dtype)),
            1 => proptest::sample::select(special_ints),
        ]
        .boxed(),
    }
}
