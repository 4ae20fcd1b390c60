//! Values for and from a run: deterministic generated inputs from a function's parameter
//! struct info (for `relaxjit run`, the demo and the tests), bounded in size, and one-line
//! summaries of results.
//!
//! The `relaxjit` binary compiles this file as its own module (`#[path]`): it cannot depend on
//! this crate, which depends on the `relaxjit` library. So the file names only crates both
//! sides have (`relax`, `tir`, `vm`, `half`, `thiserror`) and defines its own error type.

use relax::{Function, StructInfo};
use vm::{DataType, Tensor, TypeCode, Value};

/// The largest tensor generated for a parameter unless the caller allows more: 1 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// Why a parameter has no generated value.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The parameter's struct info does not determine a value (a symbolic shape, an unknown
    /// dtype, an object).
    #[error("cannot generate a value for `{name}`: {why}; give it as an input")]
    Unsupported { name: String, why: String },
    /// The tensor would be larger than the limit (or than the address space).
    #[error(
        "cannot generate a value for `{name}`: a tensor of shape {shape:?} and dtype {dtype} needs {size}, \
         over the limit of {limit} for generated inputs; give it as an input or raise the limit"
    )]
    TooLarge {
        name: String,
        dtype: DataType,
        shape: Vec<i64>,
        /// The size in bytes, or `at least 2^63 bytes`.
        size: String,
        limit: String,
    },
    /// The memory could not be allocated.
    #[error("cannot generate a value for `{name}`: cannot allocate {bytes} bytes")]
    OutOfMemory { name: String, bytes: usize },
    #[error("cannot generate a value for `{name}`: {error}")]
    Tensor { name: String, error: vm::Error },
}

/// `Result` with this module's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

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

/// `1073741824` as `1 GiB`, `1536` as `1536 bytes`: exact, in the largest binary unit that
/// divides it.
pub fn format_bytes(n: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} bytes")
}

/// Parses a size: a number of bytes, optionally with a binary unit (`512MiB`, `4 GiB`, `64K`).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(digits);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("`{s}` is not a size (a number of bytes, e.g. 4096, 512MiB, 4GiB)"))?;
    let shift = match unit.trim() {
        "" | "B" => 0,
        "K" | "KiB" => 10,
        "M" | "MiB" => 20,
        "G" | "GiB" => 30,
        "T" | "TiB" => 40,
        other => {
            return Err(format!(
                "unknown size unit `{other}` (use KiB, MiB, GiB or TiB)"
            ));
        }
    };
    number
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("`{s}` is more than 2^64 bytes"))
}

/// Generates deterministic values for parameters from their struct info: floats uniform in
/// `[-1, 1)`, integers in `[0, 10)`, bools either way; no tensor beyond `max_bytes`.
#[derive(Clone, Debug)]
pub struct InputGenerator {
    rng: Rng,
    max_bytes: u64,
}

impl InputGenerator {
    /// A generator with the default size limit ([`DEFAULT_MAX_BYTES`]).
    pub fn new(seed: u64) -> InputGenerator {
        InputGenerator {
            rng: Rng::new(seed),
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }

    /// The largest tensor this generator makes, in bytes.
    pub fn with_max_bytes(self, max_bytes: u64) -> InputGenerator {
        InputGenerator { max_bytes, ..self }
    }

    /// A tensor of `shape` and `dtype` for the parameter `name`.
    pub fn tensor(&mut self, name: &str, shape: &[i64], dtype: DataType) -> Result<Tensor> {
        let name_of = || name.to_string();
        let too_large = |size: String| Error::TooLarge {
            name: name_of(),
            dtype,
            shape: shape.to_vec(),
            size,
            limit: format_bytes(self.max_bytes),
        };
        let numel = vm::tensor::checked_numel(shape).map_err(|error| Error::Tensor {
            name: name_of(),
            error,
        })?;
        let nbytes = vm::tensor::checked_nbytes(shape, dtype)
            .map_err(|_| too_large("at least 2^63 bytes".into()))?;
        if nbytes as u64 > self.max_bytes {
            return Err(too_large(format_bytes(nbytes as u64)));
        }
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(nbytes)
            .map_err(|_| Error::OutOfMemory {
                name: name_of(),
                bytes: nbytes,
            })?;
        /// How one element is drawn.
        enum Draw {
            F16,
            F32,
            F64,
            BF16,
            Bool,
            /// An integer in `[0, 10)` of this many bytes.
            Int(usize),
        }
        let draw = match (dtype.type_code(), dtype.bits, dtype.lanes) {
            (Some(TypeCode::Float), 16, 1) => Draw::F16,
            (Some(TypeCode::Float), 32, 1) => Draw::F32,
            (Some(TypeCode::Float), 64, 1) => Draw::F64,
            (Some(TypeCode::BFloat), 16, 1) => Draw::BF16,
            (Some(TypeCode::Bool), 8, 1) => Draw::Bool,
            (Some(TypeCode::Int | TypeCode::UInt), bits @ (8 | 16 | 32 | 64), 1) => {
                Draw::Int(bits as usize / 8)
            }
            _ => {
                return Err(Error::Unsupported {
                    name: name_of(),
                    why: format!("values of dtype {dtype} cannot be generated"),
                });
            }
        };
        let rng = &mut self.rng;
        for _ in 0..numel {
            match draw {
                Draw::F16 => bytes
                    .extend_from_slice(&half::f16::from_f64(rng.next_signed_unit()).to_le_bytes()),
                Draw::F32 => {
                    bytes.extend_from_slice(&(rng.next_signed_unit() as f32).to_le_bytes())
                }
                Draw::F64 => bytes.extend_from_slice(&rng.next_signed_unit().to_le_bytes()),
                Draw::BF16 => bytes
                    .extend_from_slice(&half::bf16::from_f64(rng.next_signed_unit()).to_le_bytes()),
                Draw::Bool => bytes.push((rng.next_u64() & 1) as u8),
                Draw::Int(n) => bytes.extend_from_slice(&(rng.next_u64() % 10).to_le_bytes()[..n]),
            }
        }
        Tensor::from_bytes(shape, dtype, &bytes).map_err(|error| Error::Tensor {
            name: name_of(),
            error,
        })
    }

    /// A value of struct info `si` for the parameter `name` (which names it in errors).
    pub fn value(&mut self, name: &str, si: &StructInfo) -> Result<Value> {
        let static_dims = |dims: &Option<Vec<tir::PrimExpr>>| -> Option<Vec<i64>> {
            dims.as_ref()?.iter().map(|d| d.as_int()).collect()
        };
        let cannot = |why: &str| Error::Unsupported {
            name: name.to_string(),
            why: why.to_string(),
        };
        match si {
            StructInfo::Tensor { shape, dtype, .. } => {
                let shape = static_dims(shape).ok_or_else(|| cannot("its shape is not static"))?;
                let dtype = dtype.ok_or_else(|| cannot("its dtype is unknown"))?;
                let dtype: DataType = dtype
                    .to_string()
                    .parse()
                    .map_err(|_| cannot("its dtype is not supported"))?;
                Ok(Value::Tensor(self.tensor(name, &shape, dtype)?))
            }
            StructInfo::Shape { values, .. } => Ok(Value::shape(
                static_dims(values).ok_or_else(|| cannot("its dimensions are not static"))?,
            )),
            StructInfo::Prim { value: Some(v), .. } if v.as_int().is_some() => {
                Ok(Value::Int(v.as_int().unwrap_or_default()))
            }
            StructInfo::Prim { dtype, .. } if dtype.to_string().starts_with("int") => {
                Ok(Value::Int((self.rng.next_u64() % 10) as i64))
            }
            StructInfo::Prim { dtype, .. } if dtype.to_string().starts_with("float") => {
                Ok(Value::Float(self.rng.next_signed_unit()))
            }
            StructInfo::Tuple(fields) => Ok(Value::tuple(
                fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| self.value(&format!("{name}[{i}]"), f))
                    .collect::<Result<Vec<_>>>()?,
            )),
            _ => Err(cannot(
                "it is not a tensor, shape, prim value or tuple of them",
            )),
        }
    }
}

/// Generated arguments for `func`, one per parameter, with the default size limit.
pub fn random_inputs(func: &Function, seed: u64) -> Result<Vec<Value>> {
    let mut generator = InputGenerator::new(seed);
    func.params
        .iter()
        .map(|p| generator.value(p.name(), p.struct_info()))
        .collect()
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
    // `get_i64` wraps uint64 values above i64::MAX.
    let u64s = (t.dtype() == DataType::U64)
        .then(|| t.to_vec::<u64>().ok())
        .flatten();
    let mut items: Vec<String> = (0..t.numel().min(max))
        .map(|i| {
            if let Some(v) = &u64s {
                v[i].to_string()
            } else if floating {
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
        let g = InputGenerator::new;
        let a = g(7).tensor("a", &[4, 5], DataType::F32).unwrap();
        let b = g(7).tensor("b", &[4, 5], DataType::F32).unwrap();
        assert_eq!(a.to_bytes(), b.to_bytes());
        assert!(
            a.to_vec::<f32>()
                .unwrap()
                .iter()
                .all(|v| (-1.0..1.0).contains(v))
        );
        let i = g(1).tensor("i", &[100], DataType::I64).unwrap();
        assert!(
            i.to_vec::<i64>()
                .unwrap()
                .iter()
                .all(|v| (0..10).contains(v))
        );
        assert!(g(1).tensor("h", &[1], DataType::HANDLE).is_err());
    }

    #[test]
    fn generated_tensors_are_bounded() {
        let mut g = InputGenerator::new(1).with_max_bytes(64);
        assert!(g.tensor("x", &[16], DataType::F32).is_ok());
        let e = g.tensor("x", &[17], DataType::F32).unwrap_err().to_string();
        assert!(
            e.contains("`x`") && e.contains("68 bytes") && e.contains("64 bytes"),
            "{e}"
        );
        let e = g
            .tensor("huge", &[i64::MAX], DataType::F32)
            .unwrap_err()
            .to_string();
        assert!(e.contains("at least 2^63 bytes"), "{e}");
    }

    #[test]
    fn sizes() {
        assert_eq!(format_bytes(1 << 30), "1 GiB");
        assert_eq!(format_bytes(1536), "1536 bytes");
        assert_eq!(format_bytes(3 << 20), "3 MiB");
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("512MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("4 GiB"), Ok(4 << 30));
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("4 PB").is_err());
        assert!(parse_bytes("99999999999 TiB").is_err());
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
