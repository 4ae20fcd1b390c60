//! Values for and from a run: deterministic generated inputs from a function's parameter
//! struct info (for `relaxjit run` and the demo), and one-line summaries of results.

use relax::{Function, StructInfo};
use vm::{DataType, Tensor, TypeCode, Value};

use crate::error::{Error, Result};

/// SplitMix64: a tiny, seedable, good-enough generator, so generated inputs are the same on
/// every run and every machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[-1, 1)`.
    pub fn next_signed_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// A tensor of `shape` and `dtype` with deterministic values: floats uniform in `[-1, 1)`,
/// integers in `[0, 10)`, bools either way.
pub fn random_tensor(shape: &[i64], dtype: DataType, rng: &mut Rng) -> Result<Tensor> {
    let numel = vm::tensor::checked_numel(shape)?;
    let mut bytes = Vec::with_capacity(numel * dtype.bytes());
    for _ in 0..numel {
        match (dtype.type_code(), dtype.bits, dtype.lanes) {
            (Some(TypeCode::Float), 16, 1) => {
                bytes.extend_from_slice(&half::f16::from_f64(rng.next_signed_unit()).to_le_bytes())
            }
            (Some(TypeCode::Float), 32, 1) => {
                bytes.extend_from_slice(&(rng.next_signed_unit() as f32).to_le_bytes())
            }
            (Some(TypeCode::Float), 64, 1) => {
                bytes.extend_from_slice(&rng.next_signed_unit().to_le_bytes())
            }
            (Some(TypeCode::BFloat), 16, 1) => {
                bytes.extend_from_slice(&half::bf16::from_f64(rng.next_signed_unit()).to_le_bytes())
            }
            (Some(TypeCode::Bool), 8, 1) => bytes.push((rng.next_u64() & 1) as u8),
            (Some(TypeCode::Int | TypeCode::UInt), bits @ (8 | 16 | 32 | 64), 1) => {
                let v = rng.next_u64() % 10;
                bytes.extend_from_slice(&v.to_le_bytes()[..bits as usize / 8]);
            }
            _ => {
                return Err(Error::Unsupported(format!(
                    "cannot generate values of dtype {dtype}"
                )));
            }
        }
    }
    Ok(Tensor::from_bytes(shape, dtype, &bytes)?)
}

/// Generated arguments for `func`, one per parameter, from their struct info. Every shape must
/// be static; the error names the parameter otherwise.
pub fn random_inputs(func: &Function, seed: u64) -> Result<Vec<Value>> {
    let mut rng = Rng::new(seed);
    func.params
        .iter()
        .map(|p| random_value(p.struct_info(), &mut rng, p.name()))
        .collect()
}

/// A generated value of struct info `si`; `what` names it in errors.
pub fn random_value(si: &StructInfo, rng: &mut Rng, what: &str) -> Result<Value> {
    let static_dims = |dims: &Option<Vec<tir::PrimExpr>>| -> Option<Vec<i64>> {
        dims.as_ref()?.iter().map(|d| d.as_int()).collect()
    };
    let cannot = |why: &str| {
        Error::InvalidArgument(format!(
            "cannot generate a value for `{what}`: {why}; give it as an input"
        ))
    };
    match si {
        StructInfo::Tensor { shape, dtype, .. } => {
            let shape = static_dims(shape).ok_or_else(|| cannot("its shape is not static"))?;
            let dtype = dtype.ok_or_else(|| cannot("its dtype is unknown"))?;
            let dtype: DataType = dtype
                .to_string()
                .parse()
                .map_err(|_| cannot("its dtype is not supported"))?;
            Ok(Value::Tensor(random_tensor(&shape, dtype, rng)?))
        }
        StructInfo::Shape { values, .. } => Ok(Value::shape(
            static_dims(values).ok_or_else(|| cannot("its dimensions are not static"))?,
        )),
        StructInfo::Prim { value: Some(v), .. } if v.as_int().is_some() => {
            Ok(Value::Int(v.as_int().unwrap_or_default()))
        }
        StructInfo::Prim { dtype, .. } if dtype.to_string().starts_with("int") => {
            Ok(Value::Int((rng.next_u64() % 10) as i64))
        }
        StructInfo::Prim { dtype, .. } if dtype.to_string().starts_with("float") => {
            Ok(Value::Float(rng.next_signed_unit()))
        }
        StructInfo::Tuple(fields) => Ok(Value::tuple(
            fields
                .iter()
                .enumerate()
                .map(|(i, f)| random_value(f, rng, &format!("{what}[{i}]")))
                .collect::<Result<Vec<_>>>()?,
        )),
        _ => Err(cannot(
            "it is not a tensor, shape, prim value or tuple of them",
        )),
    }
}

/// A one-line summary: `float32[8, 32] [0.1234, -1.0000, ...]` for tensors, nested for tuples.
pub fn summarize(value: &Value) -> String {
    match value {
        Value::Tensor(t) => summarize_tensor(t, 6),
        Value::Tuple(t) => format!(
            "({})",
            t.fields()
                .iter()
                .map(summarize)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => format!("{other:?}"),
    }
}

/// `dtype[shape] [first `max` values, ...]`.
pub fn summarize_tensor(t: &Tensor, max: usize) -> String {
    let dims = t
        .shape()
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let floating = t.dtype().is_floating();
    let mut items: Vec<String> = (0..t.numel().min(max))
        .map(|i| {
            if floating {
                t.get_f64(i).map_or("?".into(), |v| format!("{v:.4}"))
            } else if t.dtype() == DataType::BOOL {
                t.get_i64(i).map_or("?".into(), |v| (v != 0).to_string())
            } else {
                t.get_i64(i).map_or("?".into(), |v| v.to_string())
            }
        })
        .collect();
    if t.numel() > max {
        items.push("...".into());
    }
    format!("{}[{dims}] [{}]", t.dtype(), items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tensors_are_deterministic_and_in_range() {
        let a = random_tensor(&[4, 5], DataType::F32, &mut Rng::new(7)).unwrap();
        let b = random_tensor(&[4, 5], DataType::F32, &mut Rng::new(7)).unwrap();
        assert_eq!(a.to_bytes(), b.to_bytes());
        assert!(
            a.to_vec::<f32>()
                .unwrap()
                .iter()
                .all(|v| (-1.0..1.0).contains(v))
        );
        let i = random_tensor(&[100], DataType::I64, &mut Rng::new(1)).unwrap();
        assert!(
            i.to_vec::<i64>()
                .unwrap()
                .iter()
                .all(|v| (0..10).contains(v))
        );
        assert!(random_tensor(&[1], DataType::HANDLE, &mut Rng::new(1)).is_err());
    }

    #[test]
    fn summaries() {
        let t = Tensor::from_slice(&[2, 2], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(
            summarize_tensor(&t, 3),
            "float32[2, 2] [1.0000, 2.0000, 3.0000, ...]"
        );
        let b = Tensor::from_slice(&[1], &[true]).unwrap();
        assert_eq!(
            summarize(&Value::tuple(vec![Value::Tensor(b), Value::Int(3)])),
            "(bool[1] [true], 3)"
        );
    }
}
