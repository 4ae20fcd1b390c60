//! `TensorProto` ⇄ `vm::Tensor`: element types, the typed data fields, `raw_data` and
//! external data files.

use std::path::{Path, PathBuf};

use prost::Message;
use vm::{DataType, Tensor};

use crate::error::{Error, Result};
use crate::proto::{DATA_LOCATION_EXTERNAL, TensorProto};

/// The VM data type of ONNX element type `code` (`TensorProto.DataType`).
pub fn vm_dtype(code: i32) -> Result<DataType> {
    Ok(match code {
        1 => DataType::F32,
        2 => DataType::U8,
        3 => DataType::I8,
        4 => DataType::U16,
        5 => DataType::I16,
        6 => DataType::I32,
        7 => DataType::I64,
        9 => DataType::BOOL,
        10 => DataType::F16,
        11 => DataType::F64,
        12 => DataType::U32,
        13 => DataType::U64,
        16 => DataType::BF16,
        other => {
            return Err(Error::Unsupported(format!(
                "ONNX element type {other} ({})",
                elem_type_name(other)
            )));
        }
    })
}

/// The ONNX spelling of element type `code`, for messages.
pub fn elem_type_name(code: i32) -> &'static str {
    match code {
        0 => "UNDEFINED",
        1 => "FLOAT",
        2 => "UINT8",
        3 => "INT8",
        4 => "UINT16",
        5 => "INT16",
        6 => "INT32",
        7 => "INT64",
        8 => "STRING",
        9 => "BOOL",
        10 => "FLOAT16",
        11 => "DOUBLE",
        12 => "UINT32",
        13 => "UINT64",
        14 => "COMPLEX64",
        15 => "COMPLEX128",
        16 => "BFLOAT16",
        17..=20 => "FLOAT8",
        21 | 22 => "INT4/UINT4",
        _ => "unknown",
    }
}

/// The TIR data type of a VM data type (they share TVM's spelling).
pub fn tir_dtype(dt: DataType) -> Result<tir::DataType> {
    let name = dt.to_string();
    tir::DataType::parse(&name)
        .ok_or_else(|| Error::Unsupported(format!("data type {name} in the Relax IR")))
}

/// The VM data type of a TIR data type.
pub fn vm_of(dt: tir::DataType) -> Result<DataType> {
    dt.to_string()
        .parse()
        .map_err(|_| Error::Unsupported(format!("data type {dt} for a constant")))
}

/// Decodes a serialized `TensorProto` (a backend test's `input_0.pb`), whose data must be in
/// the message itself.
pub fn decode_tensor(bytes: &[u8]) -> Result<Tensor> {
    let proto = TensorProto::decode(bytes).map_err(|error| Error::Decode {
        what: "TensorProto",
        error,
    })?;
    to_tensor(&proto, None)
}

fn invalid(proto: &TensorProto, msg: impl std::fmt::Display) -> Error {
    Error::Invalid(format!(
        "tensor `{}`: {msg}",
        proto.name.as_deref().unwrap_or("")
    ))
}

/// Converts a `TensorProto` to a tensor. External data is read relative to `base_dir`
/// (the model's folder); without one, a tensor with external data is an error.
pub fn to_tensor(proto: &TensorProto, base_dir: Option<&Path>) -> Result<Tensor> {
    let code = proto.data_type.unwrap_or(0);
    let dtype = vm_dtype(code).map_err(|e| invalid(proto, e))?;
    let shape = proto.dims.clone();
    if shape.iter().any(|&d| d < 0) {
        return Err(invalid(proto, format!("negative dimension in {shape:?}")));
    }
    let numel = vm::tensor::checked_numel(&shape).map_err(|e| invalid(proto, e))?;
    let nbytes = vm::tensor::checked_nbytes(&shape, dtype).map_err(|e| invalid(proto, e))?;
    let external;
    let raw: Option<&[u8]> = if proto.data_location == Some(DATA_LOCATION_EXTERNAL) {
        external = read_external(proto, base_dir, nbytes)?;
        Some(&external)
    } else {
        proto.raw_data.as_deref()
    };
    let tensor = if let Some(raw) = raw {
        if raw.len() != nbytes {
            return Err(invalid(
                proto,
                format!(
                    "{} bytes of data for shape {shape:?} of {dtype} ({nbytes} bytes)",
                    raw.len()
                ),
            ));
        }
        Tensor::from_bytes(&shape, dtype, raw)
    } else {
        let mut bytes = Vec::with_capacity(nbytes);
        let count = match code {
            1 => push_all(&mut bytes, &proto.float_data, |v, b| {
                b.extend(v.to_le_bytes())
            }),
            11 => push_all(&mut bytes, &proto.double_data, |v, b| {
                b.extend(v.to_le_bytes())
            }),
            7 => push_all(&mut bytes, &proto.int64_data, |v, b| {
                b.extend(v.to_le_bytes())
            }),
            12 => push_all(&mut bytes, &proto.uint64_data, |v, b| {
                b.extend((*v as u32).to_le_bytes())
            }),
            13 => push_all(&mut bytes, &proto.uint64_data, |v, b| {
                b.extend(v.to_le_bytes())
            }),
            // Narrow types live in int32_data, one element per entry (float16 and bfloat16
            // as their bit patterns).
            6 => push_all(&mut bytes, &proto.int32_data, |v, b| {
                b.extend(v.to_le_bytes())
            }),
            2 | 3 | 9 => push_all(&mut bytes, &proto.int32_data, |v, b| b.push(*v as u8)),
            4 | 5 | 10 | 16 => push_all(&mut bytes, &proto.int32_data, |v, b| {
                b.extend((*v as u16).to_le_bytes())
            }),
            _ => return Err(invalid(proto, "no data for this element type")),
        };
        if count != numel {
            return Err(invalid(
                proto,
                format!("{count} elements of data for shape {shape:?} ({numel} elements)"),
            ));
        }
        Tensor::from_bytes(&shape, dtype, &bytes)
    };
    tensor.map_err(|e| invalid(proto, e))
}

fn push_all<T>(out: &mut Vec<u8>, data: &[T], f: impl Fn(&T, &mut Vec<u8>)) -> usize {
    for v in data {
        f(v, out);
    }
    data.len()
}

/// Reads the bytes of an external-data tensor: `location` (a path relative to the model's
/// folder), `offset` and `length` from its `external_data` entries.
/// The entry `key` of `proto`'s external-data table.
fn external_entry(proto: &TensorProto, key: &str) -> Option<String> {
    proto
        .external_data
        .iter()
        .find(|e| e.key.as_deref() == Some(key))
        .and_then(|e| e.value.clone())
}

/// The file `proto`'s data is read from, relative to the model's folder, if it is stored as
/// external data (and names one: without a `location` the conversion is an error).
pub fn external_location(proto: &TensorProto) -> Option<String> {
    if proto.data_location != Some(DATA_LOCATION_EXTERNAL) {
        return None;
    }
    external_entry(proto, "location")
}

/// The file an external-data `location` names, in the model's `folder`; `None` if the
/// location leaves that folder (an absolute path, or one through `..`), which is never read.
pub fn external_path(folder: &Path, location: &str) -> Option<PathBuf> {
    let rel = Path::new(location);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return None;
    }
    Some(folder.join(rel))
}

fn read_external(proto: &TensorProto, base_dir: Option<&Path>, nbytes: usize) -> Result<Vec<u8>> {
    let entry = |key: &str| external_entry(proto, key);
    let Some(location) = entry("location") else {
        return Err(invalid(proto, "external data without a `location`"));
    };
    let Some(base) = base_dir else {
        return Err(invalid(
            proto,
            format!(
                "its data is in the external file `{location}`; import the model from its path \
                 so that the file can be found"
            ),
        ));
    };
    let Some(path) = external_path(base, &location) else {
        return Err(invalid(
            proto,
            format!("external data location `{location}` leaves the model's folder"),
        ));
    };
    let parse = |key: &str| -> Result<Option<usize>> {
        entry(key)
            .map(|v| {
                v.parse::<usize>()
                    .map_err(|_| invalid(proto, format!("external data `{key}` is `{v}`")))
            })
            .transpose()
    };
    let offset = parse("offset")?.unwrap_or(0);
    let length = parse("length")?.unwrap_or(nbytes);
    let io = |error| Error::Io {
        path: path.clone(),
        error,
    };
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(&path).map_err(io)?;
    file.seek(SeekFrom::Start(offset as u64)).map_err(io)?;
    let mut bytes = vec![0u8; length];
    file.read_exact(&mut bytes).map_err(io)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_data_stays_in_the_models_folder() {
        let folder = Path::new("models");
        assert_eq!(
            external_path(folder, "weights/w.bin"),
            Some(folder.join("weights/w.bin"))
        );
        assert_eq!(external_path(folder, "../w.bin"), None);
        assert_eq!(external_path(folder, "weights/../../w.bin"), None);
        assert_eq!(external_path(folder, "/etc/passwd"), None);
        // The import refuses it with the location in the message.
        let proto = TensorProto {
            dims: vec![1],
            data_type: Some(1),
            data_location: Some(DATA_LOCATION_EXTERNAL),
            external_data: vec![crate::proto::StringStringEntryProto {
                key: Some("location".into()),
                value: Some("../w.bin".into()),
            }],
            ..Default::default()
        };
        let err = to_tensor(&proto, Some(folder)).unwrap_err().to_string();
        assert!(
            err.contains("`../w.bin` leaves the model's folder"),
            "{err}"
        );
    }

    #[test]
    fn typed_fields_and_raw_data_agree() {
        let typed = TensorProto {
            dims: vec![2],
            data_type: Some(1),
            float_data: vec![1.5, -2.0],
            ..Default::default()
        };
        let raw = TensorProto {
            dims: vec![2],
            data_type: Some(1),
            raw_data: Some(
                [1.5f32.to_le_bytes(), (-2.0f32).to_le_bytes()]
                    .concat()
                    .into(),
            ),
            ..Default::default()
        };
        let a = to_tensor(&typed, None).unwrap();
        let b = to_tensor(&raw, None).unwrap();
        assert_eq!(a.to_vec::<f32>().unwrap(), vec![1.5, -2.0]);
        assert_eq!(a.to_bytes(), b.to_bytes());
    }

    #[test]
    fn data_that_does_not_fit_the_shape_is_an_error() {
        let t = TensorProto {
            dims: vec![3],
            data_type: Some(7),
            int64_data: vec![1, 2],
            name: Some("w".into()),
            ..Default::default()
        };
        let e = to_tensor(&t, None).unwrap_err().to_string();
        assert!(e.contains("tensor `w`") && e.contains("2 elements"), "{e}");
    }

    #[test]
    fn external_data_is_read_from_the_model_folder() {
        let dir = std::env::temp_dir().join(format!("relaxjit-onnx-ext-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data: Vec<u8> = [0u8; 4]
            .into_iter()
            .chain([7i64, -3].iter().flat_map(|v| v.to_le_bytes()))
            .collect();
        std::fs::write(dir.join("w.bin"), &data).unwrap();
        let kv = |k: &str, v: &str| crate::proto::StringStringEntryProto {
            key: Some(k.into()),
            value: Some(v.into()),
        };
        let t = TensorProto {
            dims: vec![2],
            data_type: Some(7),
            data_location: Some(DATA_LOCATION_EXTERNAL),
            external_data: vec![
                kv("location", "w.bin"),
                kv("offset", "4"),
                kv("length", "16"),
            ],
            ..Default::default()
        };
        let got = to_tensor(&t, Some(&dir)).unwrap();
        assert_eq!(got.to_vec::<i64>().unwrap(), vec![7, -3]);
        let escape = TensorProto {
            external_data: vec![kv("location", "../w.bin")],
            ..t.clone()
        };
        assert!(to_tensor(&escape, Some(&dir)).is_err());
        assert!(to_tensor(&t, None).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
