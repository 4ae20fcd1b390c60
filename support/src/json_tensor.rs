//! Tensors written as JSON in the corpus format (`{"dtype", "shape", "data"}`, see
//! `tests/conformance/README.md`) and a case's metadata constants: the one reader and writer
//! of both, used by `support::case`, by `program_fuzz`'s corpus writer, and mounted by the
//! `relaxjit` binary as its own module (for `--metadata CASE.json`), so it needs nothing of
//! this crate but its own items.

use std::fmt;

use serde_json::{Value as Json, json};
use vm::{DataType, Tensor, TypeCode};

/// Why a case could not be read or a result does not match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseError(pub String);

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CaseError {}

pub(crate) fn err<T>(msg: impl Into<String>) -> Result<T, CaseError> {
    Err(CaseError(msg.into()))
}

pub(crate) fn int_list(v: &Json) -> Result<Vec<i64>, CaseError> {
    v.as_array()
        .ok_or_else(|| CaseError(format!("expected a list of ints, got {v}")))?
        .iter()
        .map(|d| {
            d.as_i64()
                .ok_or_else(|| CaseError(format!("expected an int, got {d}")))
        })
        .collect()
}

pub(crate) fn float_of(v: &Json) -> Result<f64, CaseError> {
    match v {
        Json::Bool(b) => Ok(f64::from(u8::from(*b))),
        Json::Number(n) => n
            .as_f64()
            .ok_or_else(|| CaseError(format!("bad number {n}"))),
        Json::String(s) => match s.as_str() {
            "nan" => Ok(f64::NAN),
            "inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            _ => err(format!("bad float string {s:?}")),
        },
        _ => err(format!("expected a float, got {v}")),
    }
}

/// Builds a tensor from `{"dtype", "shape", "data"}`.
pub fn tensor_from_json(v: &Json) -> Result<Tensor, CaseError> {
    let dtype: DataType = v["dtype"]
        .as_str()
        .ok_or_else(|| CaseError("tensor without dtype".into()))?
        .parse()
        .map_err(|e: vm::Error| CaseError(e.to_string()))?;
    let shape = int_list(&v["shape"])?;
    let data = v["data"]
        .as_array()
        .ok_or_else(|| CaseError("tensor without data".into()))?;
    let numel = vm::tensor::checked_numel(&shape).map_err(|e| CaseError(e.to_string()))?;
    if data.len() != numel {
        return err(format!(
            "tensor of shape {shape:?} has {} data elements",
            data.len()
        ));
    }
    let mut bytes = Vec::with_capacity(data.len() * dtype.bytes());
    for x in data {
        encode_element(dtype, x, &mut bytes)?;
    }
    Tensor::from_bytes(&shape, dtype, &bytes).map_err(|e| CaseError(e.to_string()))
}

fn encode_element(dtype: DataType, x: &Json, out: &mut Vec<u8>) -> Result<(), CaseError> {
    // Integers are written as JSON integers (bools as JSON bools, either accepted for the
    // other); a uint64 above i64::MAX only fits `as_u64`.
    let int = || match x {
        Json::Bool(b) => Some(i64::from(*b)),
        _ => x.as_i64().or_else(|| x.as_u64().map(|u| u as i64)),
    };
    let int = || int().ok_or_else(|| CaseError(format!("expected an integer element, got {x}")));
    match (dtype.type_code(), dtype.bits) {
        (Some(TypeCode::Float), 64) => out.extend(float_of(x)?.to_le_bytes()),
        (Some(TypeCode::Float), 32) => out.extend((float_of(x)? as f32).to_le_bytes()),
        (Some(TypeCode::Float), 16) => out.extend(half::f16::from_f64(float_of(x)?).to_le_bytes()),
        (Some(TypeCode::BFloat), 16) => {
            out.extend(half::bf16::from_f64(float_of(x)?).to_le_bytes())
        }
        (Some(TypeCode::Bool), 8) => out.push(u8::from(int()? != 0)),
        (Some(TypeCode::Int | TypeCode::UInt), bits @ (8 | 16 | 32 | 64)) => {
            out.extend(&int()?.to_le_bytes()[..bits as usize / 8])
        }
        _ => return err(format!("dtype {dtype} is not supported in case files")),
    }
    Ok(())
}

/// `t` as `{"dtype", "shape", "data"}`, what [`tensor_from_json`] reads back bit for bit:
/// integers as JSON integers (uint64 above `i64::MAX` too), bools as JSON bools, floats as
/// numbers in their shortest round-trip form (`-0.0` keeps its sign) or the strings `nan`,
/// `inf`, `-inf` (a NaN reads back as the quiet NaN: the format keeps neither its sign nor
/// its payload).
pub fn tensor_to_json(t: &Tensor) -> Result<Json, CaseError> {
    let dtype = t.dtype();
    let width = dtype.bytes();
    if dtype.lanes != 1 || !matches!(width, 1 | 2 | 4 | 8) {
        return err(format!("dtype {dtype} is not supported in case files"));
    }
    let data = t
        .to_bytes()
        .chunks_exact(width)
        .map(|b| decode_element(dtype, b))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({"dtype": dtype.to_string(), "shape": t.shape(), "data": data}))
}

/// The element of `dtype` in the little-endian bytes `b` (1, 2, 4 or 8 of them), as
/// [`encode_element`] reads it.
fn decode_element(dtype: DataType, b: &[u8]) -> Result<Json, CaseError> {
    let mut le = [0u8; 8];
    le[..b.len()].copy_from_slice(b);
    let raw = u64::from_le_bytes(le);
    let float = |x: f64| {
        if x.is_nan() {
            json!("nan")
        } else if x.is_infinite() {
            json!(if x > 0.0 { "inf" } else { "-inf" })
        } else {
            json!(x)
        }
    };
    // Truncations to the element's width keep exactly its bits (`raw` is zero-extended).
    Ok(match (dtype.type_code(), dtype.bits) {
        (Some(TypeCode::Float), 64) => float(f64::from_bits(raw)),
        (Some(TypeCode::Float), 32) => float(f64::from(f32::from_bits(raw as u32))),
        (Some(TypeCode::Float), 16) => float(half::f16::from_bits(raw as u16).to_f64()),
        (Some(TypeCode::BFloat), 16) => float(half::bf16::from_bits(raw as u16).to_f64()),
        (Some(TypeCode::Bool), 8) => json!(raw != 0),
        (Some(TypeCode::Int), bits @ (8 | 16 | 32 | 64)) => {
            let shift = 64 - u32::from(bits);
            json!(((raw << shift) as i64) >> shift)
        }
        (Some(TypeCode::UInt), 8 | 16 | 32 | 64) => json!(raw),
        _ => return err(format!("dtype {dtype} is not supported in case files")),
    })
}

/// The tensors of `metadata[file]["ir.GenericConst"]` in a case's JSON: the constants that
/// `metadata["ir.GenericConst"][i]` in the printed `file` refers to (none if it has none).
pub fn metadata_from_json(json: &Json, file: &str) -> Result<Vec<Tensor>, CaseError> {
    json["metadata"][file]["ir.GenericConst"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(i, v)| match v.as_object().filter(|o| o.len() == 1) {
            Some(o) if o.contains_key("tensor") => tensor_from_json(&o["tensor"])
                .map_err(|e| CaseError(format!("metadata constant {i} of {file}: {e}"))),
            _ => err(format!(
                "metadata constant {i} of {file} is not a tensor: {v}"
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every dtype of the format, with the values that stress it, written and read back.
    #[test]
    fn tensors_round_trip_bit_for_bit() {
        let specials = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            0.0,
            0.1,
            -1.5e-7,
        ];
        let f64s: Vec<f64> = specials.iter().copied().chain([1.0e300, -5e-324]).collect();
        let f32s: Vec<f32> = specials
            .iter()
            .map(|&x| x as f32)
            .chain([3.0e38, 1e-45])
            .collect();
        let f16s: Vec<half::f16> = specials.iter().map(|&x| half::f16::from_f64(x)).collect();
        let bf16s: Vec<half::bf16> = specials.iter().map(|&x| half::bf16::from_f64(x)).collect();
        let tensors = [
            Tensor::from_slice(&[3, 3], &f64s).unwrap(),
            Tensor::from_slice(&[9], &f32s).unwrap(),
            Tensor::from_slice(&[7, 1], &f16s).unwrap(),
            Tensor::from_slice(&[7], &bf16s).unwrap(),
            Tensor::from_slice(&[2, 2], &[i8::MIN, -1, 0, i8::MAX]).unwrap(),
            Tensor::from_slice(&[3], &[i16::MIN, -2, i16::MAX]).unwrap(),
            Tensor::from_slice(&[3], &[i32::MIN, -3, i32::MAX]).unwrap(),
            Tensor::from_slice(&[3], &[i64::MIN, -4, i64::MAX]).unwrap(),
            Tensor::from_slice(&[3], &[0u8, 200, u8::MAX]).unwrap(),
            Tensor::from_slice(&[2], &[40000u16, u16::MAX]).unwrap(),
            Tensor::from_slice(&[2], &[3_000_000_000u32, u32::MAX]).unwrap(),
            Tensor::from_slice(&[3], &[0u64, 1 << 63, u64::MAX]).unwrap(),
            Tensor::from_slice(&[2, 1], &[true, false]).unwrap(),
            Tensor::from_slice::<f32>(&[0, 4], &[]).unwrap(),
            Tensor::from_slice(&[], &[2.5f32]).unwrap(),
        ];
        for t in &tensors {
            let j = tensor_to_json(t).unwrap();
            // Through the text, as the corpus stores it.
            let text = serde_json::to_string(&j).unwrap();
            let back = tensor_from_json(&serde_json::from_str(&text).unwrap()).unwrap();
            assert_eq!(back.dtype(), t.dtype(), "{text}");
            assert_eq!(back.shape(), t.shape(), "{text}");
            assert_eq!(back.to_bytes(), t.to_bytes(), "{text}");
        }
    }

    #[test]
    fn special_floats_are_strings_and_bools_are_bools() {
        let t = Tensor::from_slice(
            &[5],
            &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 1.5],
        )
        .unwrap();
        let j = tensor_to_json(&t).unwrap();
        assert_eq!(j["data"], json!(["nan", "inf", "-inf", -0.0, 1.5]));
        assert_eq!(
            serde_json::to_string(&j["data"]).unwrap(),
            r#"["nan","inf","-inf",-0.0,1.5]"#
        );
        let b = Tensor::from_slice(&[2], &[true, false]).unwrap();
        assert_eq!(tensor_to_json(&b).unwrap()["data"], json!([true, false]));
        let u = Tensor::from_slice(&[1], &[u64::MAX]).unwrap();
        assert_eq!(
            serde_json::to_string(&tensor_to_json(&u).unwrap()["data"]).unwrap(),
            "[18446744073709551615]"
        );
    }
}
