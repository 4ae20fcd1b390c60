//! Tensors written as JSON in the corpus format (`{"dtype", "shape", "data"}`, see
//! `tests/conformance/README.md`) and a case's metadata constants: the one reader of both,
//! used by `support::case` and mounted by the `relaxjit` binary as its own module (for
//! `--metadata CASE.json`), so it needs nothing of this crate but its own items.

use std::fmt;

use serde_json::Value as Json;
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
