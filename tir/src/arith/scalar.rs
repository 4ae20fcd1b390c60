//! Scalar semantics of TIR operators on constants: integer wrap-around in the type's width,
//! floor and truncating division, float arithmetic in the type's precision, and casts.
//!
//! These functions are the single definition shared by the simplifier's constant folding and the
//! reference interpreter ([`crate::interp`]), so that folding never changes what a program
//! computes. Integers of every width are carried in an `i64`: signed values sign-extended,
//! unsigned values zero-extended (`uint64` as its bit pattern), `bool` as 0 or 1.

use crate::ir::{BinaryOp, CmpOp, DataType, TypeCode};

/// `v` reduced to `dtype`'s width: the low `bits` bits, sign-extended for signed types
/// (TVM's `GetFoldResultInt64Repr`). `bool` keeps only the lowest bit.
pub fn wrap_int(v: i128, dtype: DataType) -> i64 {
    let bits = u32::from(dtype.bits).clamp(1, 64);
    let low = (v as u128) & (u128::MAX >> (128 - bits));
    if dtype.code == TypeCode::Int {
        let sign = 1u128 << (bits - 1);
        ((low ^ sign).wrapping_sub(sign)) as i128 as i64
    } else {
        low as u64 as i64
    }
}

/// The smallest and largest value of an integer type, as the `i64` representation
/// (`uint64`'s maximum does not fit and is reported as `i64::MAX`).
pub fn int_type_range(dtype: DataType) -> (i64, i64) {
    let bits = u32::from(dtype.bits).clamp(1, 64);
    match dtype.code {
        TypeCode::Int => {
            if bits == 64 {
                (i64::MIN, i64::MAX)
            } else {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            }
        }
        _ if bits == 64 => (0, i64::MAX),
        _ => (0, (1i64 << bits) - 1),
    }
}

fn is_unsigned(dtype: DataType) -> bool {
    dtype.code == TypeCode::UInt
}

/// `a op b` on integers of type `dtype`, wrapping. `None` for a division or remainder by zero.
///
/// `Div`/`Mod` truncate toward zero (C semantics), `FloorDiv`/`FloorMod` round toward negative
/// infinity (the remainder has the sign of the divisor). `Min`/`Max` are `a < b ? a : b` and
/// `a > b ? a : b`, as TVM's LLVM code generator emits them.
pub fn int_binary(op: BinaryOp, a: i64, b: i64, dtype: DataType) -> Option<i64> {
    if is_unsigned(dtype) {
        let (x, y) = (a as u64, b as u64);
        let r: u128 = match op {
            BinaryOp::Add => u128::from(x) + u128::from(y),
            BinaryOp::Sub => u128::from(x).wrapping_sub(u128::from(y)),
            BinaryOp::Mul => u128::from(x).wrapping_mul(u128::from(y)),
            BinaryOp::Div | BinaryOp::FloorDiv => u128::from(x.checked_div(y)?),
            BinaryOp::Mod | BinaryOp::FloorMod => u128::from(x.checked_rem(y)?),
            BinaryOp::Min => u128::from(if x < y { x } else { y }),
            BinaryOp::Max => u128::from(if x > y { x } else { y }),
        };
        return Some(wrap_int(r as i128, dtype));
    }
    let (x, y) = (i128::from(a), i128::from(b));
    let r = match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x.wrapping_mul(y),
        BinaryOp::Div => x.checked_div(y)?,
        BinaryOp::Mod => x.checked_rem(y)?,
        BinaryOp::FloorDiv => floor_div(x, y)?,
        BinaryOp::FloorMod => floor_mod(x, y)?,
        BinaryOp::Min => x.min(y),
        BinaryOp::Max => x.max(y),
    };
    Some(wrap_int(r, dtype))
}

/// Floor division of `i128`s; `None` when `b == 0`.
pub fn floor_div(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// Floor modulo of `i128`s (sign of `b`); `None` when `b == 0`.
pub fn floor_mod(a: i128, b: i128) -> Option<i128> {
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

/// `a op b` on integers of type `dtype`.
pub fn int_cmp(op: CmpOp, a: i64, b: i64, dtype: DataType) -> bool {
    let ord = if is_unsigned(dtype) {
        (a as u64).cmp(&(b as u64))
    } else {
        a.cmp(&b)
    };
    match op {
        CmpOp::Eq => ord.is_eq(),
        CmpOp::Ne => ord.is_ne(),
        CmpOp::Lt => ord.is_lt(),
        CmpOp::Le => ord.is_le(),
        CmpOp::Gt => ord.is_gt(),
        CmpOp::Ge => ord.is_ge(),
    }
}

/// `a op b` on floats (IEEE: every comparison with NaN is false except `!=`).
pub fn float_cmp(op: CmpOp, a: f64, b: f64) -> bool {
    match op {
        CmpOp::Eq => a == b,
        // Ordered, as TVM's LLVM backend (`fcmp one`) and our kernels: NaN is unequal to
        // nothing.
        CmpOp::Ne => !a.is_nan() && !b.is_nan() && a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

/// `v` rounded to the precision of the float type `dtype` (round to nearest even), returned
/// as the exactly equal `f64`.
pub fn round_to_float(v: f64, dtype: DataType) -> f64 {
    match (dtype.code, dtype.bits) {
        (TypeCode::BFloat, _) => half::bf16::from_f64(v).to_f64(),
        (_, 16) => half::f16::from_f64(v).to_f64(),
        (_, 32) => f64::from(v as f32),
        _ => v,
    }
}

/// Applies a float function in the precision of `dtype`: `f64` runs in `f64`, everything else
/// in `f32` and is then rounded to `dtype` (which is exact for `float16`/`bfloat16` operands, as
/// LLVM's promotion of half-precision arithmetic to `f32` is).
pub fn float_unary(
    dtype: DataType,
    x: f64,
    f32op: impl Fn(f32) -> f32,
    f64op: impl Fn(f64) -> f64,
) -> f64 {
    if dtype.bits == 64 && dtype.code == TypeCode::Float {
        f64op(x)
    } else {
        round_to_float(f64::from(f32op(x as f32)), dtype)
    }
}

/// Applies a float function of two arguments in the precision of `dtype`, as
/// [`float_unary`] does for one.
pub fn float_binary_fn(
    dtype: DataType,
    x: f64,
    y: f64,
    f32op: impl Fn(f32, f32) -> f32,
    f64op: impl Fn(f64, f64) -> f64,
) -> f64 {
    if dtype.bits == 64 && dtype.code == TypeCode::Float {
        f64op(x, y)
    } else {
        round_to_float(f64::from(f32op(x as f32, y as f32)), dtype)
    }
}

/// `a op b` on floats of type `dtype`, computed in that precision. `Div` is true division,
/// `Mod` is C's `fmod`, `FloorDiv` is `floor(a / b)` and `FloorMod` `a - floor(a / b) * b`
/// (TVM's lowering of both for floats).
pub fn float_binary(op: BinaryOp, a: f64, b: f64, dtype: DataType) -> f64 {
    let wide = dtype.bits == 64 && dtype.code == TypeCode::Float;
    if wide {
        float_binary_f64(op, a, b)
    } else {
        let (x, y) = (a as f32, b as f32);
        let r = match op {
            BinaryOp::Add => x + y,
            BinaryOp::Sub => x - y,
            BinaryOp::Mul => x * y,
            BinaryOp::Div => x / y,
            BinaryOp::Mod => x % y,
            BinaryOp::FloorDiv => {
                let q = round32(x / y, dtype);
                q.floor()
            }
            BinaryOp::FloorMod => {
                let q = round32(round32(x / y, dtype).floor() * y, dtype);
                x - q
            }
            BinaryOp::Min => {
                if x < y {
                    x
                } else {
                    y
                }
            }
            BinaryOp::Max => {
                if x > y {
                    x
                } else {
                    y
                }
            }
        };
        round_to_float(f64::from(r), dtype)
    }
}

/// An intermediate `f32` result rounded to a narrower `dtype` (identity for `float32`).
fn round32(v: f32, dtype: DataType) -> f32 {
    round_to_float(f64::from(v), dtype) as f32
}

fn float_binary_f64(op: BinaryOp, x: f64, y: f64) -> f64 {
    match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div => x / y,
        BinaryOp::Mod => x % y,
        BinaryOp::FloorDiv => (x / y).floor(),
        BinaryOp::FloorMod => x - (x / y).floor() * y,
        BinaryOp::Min => {
            if x < y {
                x
            } else {
                y
            }
        }
        BinaryOp::Max => {
            if x > y {
                x
            } else {
                y
            }
        }
    }
}

/// A scalar constant: the value of an integer-like or float expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// An integer or `bool` in the representation described in the module docs.
    Int(i64),
    /// A float, exactly representable in its type.
    Float(f64),
}

/// Converts `v` of type `from` to type `to` (`T.Cast`).
///
/// * integer → integer: wrap-around (truncation or sign/zero extension);
/// * integer → float: correctly rounded conversion straight to the target precision;
/// * float → integer: truncation toward zero, **saturating** at the type's limits, NaN → 0
///   (LLVM's `fptosi` is poison out of range; saturation is Rust's `as` and deterministic);
/// * float → float: round to nearest even;
/// * anything → `bool`: `v != 0`.
pub fn cast(v: Scalar, from: DataType, to: DataType) -> Scalar {
    if to.is_bool() {
        return Scalar::Int(match v {
            Scalar::Int(i) => i64::from(i != 0),
            Scalar::Float(f) => i64::from(f != 0.0),
        });
    }
    match v {
        Scalar::Int(i) => {
            if to.is_float() {
                let unsigned = is_unsigned(from);
                let f = match (to.code, to.bits) {
                    (TypeCode::Float, 64) if unsigned => (i as u64) as f64,
                    (TypeCode::Float, 64) => i as f64,
                    (TypeCode::Float, 32) if unsigned => f64::from((i as u64) as f32),
                    (TypeCode::Float, 32) => f64::from(i as f32),
                    // Half-precision types: via f64, exact for every integer below 2^53;
                    // larger ones are far beyond float16's range and round to inf either way.
                    _ => {
                        let wide = if unsigned {
                            (i as u64) as f64
                        } else {
                            i as f64
                        };
                        round_to_float(wide, to)
                    }
                };
                Scalar::Float(f)
            } else {
                Scalar::Int(wrap_int(
                    if is_unsigned(from) {
                        i128::from(i as u64)
                    } else {
                        i128::from(i)
                    },
                    to,
                ))
            }
        }
        Scalar::Float(f) => {
            if to.is_float() {
                Scalar::Float(round_to_float(f, to))
            } else {
                let t = f.trunc();
                let (lo, hi) = int_type_range(to);
                let r = if f.is_nan() {
                    0
                } else if is_unsigned(to) && to.bits == 64 {
                    (t as u64) as i64
                } else if t <= lo as f64 {
                    lo
                } else if t >= hi as f64 {
                    hi
                } else {
                    t as i64
                };
                Scalar::Int(r)
            }
        }
    }
}

/// `erf(x)` to double precision: the everywhere-convergent series
/// `erf(x) = 2/√π · e^{-x²} · Σ 2ⁿ x^{2n+1} / (1·3·…·(2n+1))` (all terms positive, so no
/// cancellation), and ±1 beyond |x| = 6 where `1 - erf(x) < 2⁻⁵⁵`.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let ax = x.abs();
    if ax >= 6.0 {
        return x.signum();
    }
    let x2 = ax * ax;
    let mut term = ax;
    let mut sum = ax;
    let mut n = 0.0f64;
    while n < 1000.0 {
        n += 1.0;
        term *= 2.0 * x2 / (2.0 * n + 1.0);
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
    }
    let r = 2.0 / std::f64::consts::PI.sqrt() * (-x2).exp() * sum;
    r.min(1.0).copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_and_division() {
        assert_eq!(
            wrap_int(i128::from(i32::MAX) + 1, DataType::INT32),
            i64::from(i32::MIN)
        );
        assert_eq!(wrap_int(-1, DataType::UINT8), 255);
        assert_eq!(
            int_binary(BinaryOp::FloorDiv, -7, 2, DataType::INT32),
            Some(-4)
        );
        assert_eq!(
            int_binary(BinaryOp::FloorMod, -7, 2, DataType::INT32),
            Some(1)
        );
        assert_eq!(int_binary(BinaryOp::Div, -7, 2, DataType::INT32), Some(-3));
        assert_eq!(int_binary(BinaryOp::Mod, -7, 2, DataType::INT32), Some(-1));
        assert_eq!(
            int_binary(BinaryOp::FloorMod, 7, -2, DataType::INT32),
            Some(-1)
        );
        assert_eq!(int_binary(BinaryOp::Div, 1, 0, DataType::INT32), None);
        assert_eq!(
            int_binary(BinaryOp::Div, i64::MIN, -1, DataType::INT64),
            Some(i64::MIN)
        );
    }

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (-3.0, -0.999_977_909_503_001_4),
        ] {
            assert!((erf(x) - want).abs() < 1e-15, "erf({x}) = {}", erf(x));
        }
    }
}
