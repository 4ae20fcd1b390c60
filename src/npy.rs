//! NumPy `.npy` files ↔ [`Tensor`]s, through the `npyz` crate: versions 1.0–3.0, C order,
//! either byte order, `float16/32/64`, `int8..int64`, `uint8..uint64` and `bool`.
//!
//! npyz parses the header and decodes the elements (byte-swapping big-endian files, checking
//! that bools are 0 or 1); this module maps numpy's dtypes to ours and turns what a tensor
//! cannot be — Fortran order, structured or complex dtypes, a data size that does not match
//! the shape — into errors. Bad files give an [`Error::Npy`], never a panic or an allocation
//! the file's size does not justify.

use std::path::Path;

use npyz::{DType, Endianness, NpyFile, NpyHeader, Order, TypeChar, TypeStr, WriterBuilder};
use vm::{DataType, Tensor};

use crate::error::{Error, Result};

/// Runs `$body` with `$t` bound to the Rust element type of `$dtype` (every dtype `.npy` holds
/// here), or evaluates `$otherwise`.
macro_rules! with_element_type {
    ($dtype:expr, $t:ident => $body:expr, _ => $otherwise:expr) => {
        match $dtype {
            DataType::F16 => {
                type $t = half::f16;
                $body
            }
            DataType::F32 => {
                type $t = f32;
                $body
            }
            DataType::F64 => {
                type $t = f64;
                $body
            }
            DataType::I8 => {
                type $t = i8;
                $body
            }
            DataType::I16 => {
                type $t = i16;
                $body
            }
            DataType::I32 => {
                type $t = i32;
                $body
            }
            DataType::I64 => {
                type $t = i64;
                $body
            }
            DataType::U8 => {
                type $t = u8;
                $body
            }
            DataType::U16 => {
                type $t = u16;
                $body
            }
            DataType::U32 => {
                type $t = u32;
                $body
            }
            DataType::U64 => {
                type $t = u64;
                $body
            }
            DataType::BOOL => {
                type $t = bool;
                $body
            }
            _ => $otherwise,
        }
    };
}

/// Our dtype of a numpy type string (`<f4`, `>i8`, `|b1`, …), or `None`.
fn dtype_of(ts: &TypeStr) -> Option<DataType> {
    Some(match (ts.type_char(), ts.size_field()) {
        (TypeChar::Float, 2) => DataType::F16,
        (TypeChar::Float, 4) => DataType::F32,
        (TypeChar::Float, 8) => DataType::F64,
        (TypeChar::Int, 1) => DataType::I8,
        (TypeChar::Int, 2) => DataType::I16,
        (TypeChar::Int, 4) => DataType::I32,
        (TypeChar::Int, 8) => DataType::I64,
        (TypeChar::Uint, 1) => DataType::U8,
        (TypeChar::Uint, 2) => DataType::U16,
        (TypeChar::Uint, 4) => DataType::U32,
        (TypeChar::Uint, 8) => DataType::U64,
        (TypeChar::Bool, 1) => DataType::BOOL,
        _ => return None,
    })
}

/// The numpy type string we write for a dtype: little-endian, `|` for one-byte types.
fn type_str_of(dtype: DataType) -> Option<TypeStr> {
    let descr = with_element_type!(dtype, T => {
        let order = if size_of::<T>() == 1 { "|" } else { "<" };
        let code = match dtype {
            DataType::F16 | DataType::F32 | DataType::F64 => "f",
            DataType::BOOL => "b",
            d if d.is_int() => "i",
            _ => "u",
        };
        format!("{order}{code}{}", size_of::<T>())
    }, _ => return None);
    descr.parse().ok()
}

/// Encodes a tensor as the bytes of a `.npy` file.
pub fn to_npy_bytes(tensor: &Tensor) -> Result<Vec<u8>> {
    let unsupported = || {
        Error::Unsupported(format!(
            "a {} tensor cannot be written as .npy",
            tensor.dtype()
        ))
    };
    let ts = type_str_of(tensor.dtype()).ok_or_else(unsupported)?;
    let shape: Vec<u64> = tensor.shape().iter().map(|&d| d as u64).collect();
    let mut out = Vec::new();
    out.try_reserve_exact(tensor.nbytes() + 128)
        .map_err(|_| Error::Unsupported(format!("cannot allocate {} bytes", tensor.nbytes())))?;
    let io_error = |e: std::io::Error| Error::Unsupported(format!("encoding .npy: {e}"));
    with_element_type!(tensor.dtype(), T => {
        let mut writer = npyz::WriteOptions::<T>::new()
            .dtype(DType::Plain(ts))
            .shape(&shape)
            .writer(&mut out)
            .begin_nd()
            .map_err(io_error)?;
        writer.extend(tensor.to_vec::<T>()?).map_err(io_error)?;
        writer.finish().map_err(io_error)?;
    }, _ => return Err(unsupported()));
    Ok(out)
}

/// Checks the header length a file claims against the file's size before npyz reads it: npyz
/// allocates the claimed length (up to 4 GiB in a version 2/3 file) before reading.
fn check_header_length(bytes: &[u8]) -> std::result::Result<(), String> {
    let claimed = match bytes {
        [_, _, _, _, _, _, 1, _, a, b, ..] => u16::from_le_bytes([*a, *b]) as usize + 10,
        [_, _, _, _, _, _, 2 | 3, _, a, b, c, d, ..] => {
            u32::from_le_bytes([*a, *b, *c, *d]) as usize + 12
        }
        // Too short or an unknown version: npyz says which.
        _ => return Ok(()),
    };
    if claimed > bytes.len() {
        return Err(format!(
            "truncated .npy header: it claims {claimed} bytes, the file has {}",
            bytes.len()
        ));
    }
    Ok(())
}

/// Decodes the bytes of a `.npy` file; errors are plain messages (the caller adds the path).
pub fn from_npy_bytes(bytes: &[u8]) -> std::result::Result<Tensor, String> {
    check_header_length(bytes)?;
    let mut data = bytes;
    // npyz multiplies the dimensions unchecked, which panics on overflow where overflow checks
    // are on (debug builds); a file must never panic this reader.
    let header = std::panic::catch_unwind(move || {
        let header = NpyHeader::from_reader(&mut data);
        (header, data)
    });
    let (header, data) =
        header.map_err(|_| "the .npy header is corrupt (its shape overflows)".to_string())?;
    let header = header.map_err(|e| format!("not a valid .npy file: {e}"))?;
    if header.order() == Order::Fortran {
        return Err(
            "Fortran-order arrays are not supported (save a C-order array: np.ascontiguousarray)"
                .into(),
        );
    }
    let dtype = match header.dtype() {
        DType::Plain(ts) => {
            dtype_of(&ts).ok_or_else(|| format!("unsupported .npy dtype '{ts}'"))?
        }
        other => {
            return Err(format!(
                "unsupported .npy dtype {} (a structured array)",
                other.descr()
            ));
        }
    };
    let shape = header
        .shape()
        .iter()
        .map(|&d| i64::try_from(d))
        .collect::<std::result::Result<Vec<i64>, _>>()
        .map_err(|_| format!("the shape {:?} is too large", header.shape()))?;
    let want = vm::tensor::checked_nbytes(&shape, dtype).map_err(|e| e.to_string())?;
    if data.len() != want {
        return Err(format!(
            "shape {shape:?} of {dtype} needs {want} data bytes, the file has {}",
            data.len()
        ));
    }
    let native = matches!(
        header.dtype(),
        DType::Plain(ts) if ts.endianness() != Endianness::Big || dtype.bytes() == 1
    );
    if native && dtype != DataType::BOOL {
        // The common case: the bytes already are the tensor's (little-endian); npyz's
        // per-element decoding would only copy them more slowly.
        return Tensor::from_bytes(&shape, dtype, data).map_err(|e| e.to_string());
    }
    let file = NpyFile::with_header(header, data);
    with_element_type!(dtype, T => {
        let elements: Vec<T> = file.into_vec().map_err(|e| format!("bad .npy data: {e}"))?;
        Tensor::from_slice(&shape, &elements).map_err(|e| e.to_string())
    }, _ => Err(format!("unsupported .npy dtype {dtype}")))
}

/// Reads a `.npy` file.
pub fn read_npy(path: &Path) -> Result<Tensor> {
    let bytes = std::fs::read(path).map_err(|error| Error::Io {
        path: path.to_path_buf(),
        error,
    })?;
    from_npy_bytes(&bytes).map_err(|message| Error::Npy {
        path: path.to_path_buf(),
        message,
    })
}

/// Writes a tensor as a `.npy` file.
pub fn write_npy(path: &Path, tensor: &Tensor) -> Result<()> {
    let bytes = to_npy_bytes(tensor).map_err(|e| Error::Npy {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    std::fs::write(path, bytes).map_err(|error| Error::Io {
        path: path.to_path_buf(),
        error,
    })
}
