//! NumPy `.npy` files ↔ [`Tensor`]s: versions 1.0–3.0, C order, little-endian (or
//! byte-sized) `float16/32/64`, `int8..int64`, `uint8..uint64` and `bool`.
//!
//! Written by hand rather than through a crate because the format is one small header and the
//! cases a crate would accept silently — Fortran order, big-endian data, object arrays — must be
//! errors here (a tensor is always C-order little-endian bytes).

use std::path::Path;

use vm::{DataType, Tensor};

use crate::error::{Error, Result};

const MAGIC: &[u8] = b"\x93NUMPY";

/// The numpy `descr` of a dtype, or `None` if `.npy` cannot hold it here.
fn descr_of(dtype: DataType) -> Option<&'static str> {
    Some(match dtype {
        DataType::F16 => "<f2",
        DataType::F32 => "<f4",
        DataType::F64 => "<f8",
        DataType::I8 => "|i1",
        DataType::I16 => "<i2",
        DataType::I32 => "<i4",
        DataType::I64 => "<i8",
        DataType::U8 => "|u1",
        DataType::U16 => "<u2",
        DataType::U32 => "<u4",
        DataType::U64 => "<u8",
        DataType::BOOL => "|b1",
        _ => return None,
    })
}

fn dtype_of(descr: &str) -> Option<DataType> {
    // One-byte types may be written with any byte-order mark; wider ones must be
    // little-endian ('<', or '=' which numpy only writes on little-endian machines).
    let (order, code) = descr.split_at(descr.len().min(1));
    let one_byte = matches!(code, "i1" | "u1" | "b1");
    if !(order == "<" || order == "=" || (one_byte && (order == "|" || order == ">"))) {
        return None;
    }
    Some(match code {
        "f2" => DataType::F16,
        "f4" => DataType::F32,
        "f8" => DataType::F64,
        "i1" => DataType::I8,
        "i2" => DataType::I16,
        "i4" => DataType::I32,
        "i8" => DataType::I64,
        "u1" => DataType::U8,
        "u2" => DataType::U16,
        "u4" => DataType::U32,
        "u8" => DataType::U64,
        "b1" => DataType::BOOL,
        _ => return None,
    })
}

/// Encodes a tensor as the bytes of a version-1.0 `.npy` file.
pub fn to_npy_bytes(tensor: &Tensor) -> Result<Vec<u8>> {
    let descr = descr_of(tensor.dtype()).ok_or_else(|| {
        Error::Unsupported(format!(
            "a {} tensor cannot be written as .npy",
            tensor.dtype()
        ))
    })?;
    let shape = match tensor.shape() {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        dims => format!(
            "({})",
            dims.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic (6) + version (2) + length (2) + header + '\n' is padded to a multiple of 64.
    let unpadded = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let len = u16::try_from(header.len())
        .map_err(|_| Error::Unsupported("a .npy header longer than 65535 bytes".into()))?;
    let mut out = Vec::with_capacity(header.len() + 10 + tensor.nbytes());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&tensor.to_bytes());
    Ok(out)
}

/// Decodes the bytes of a `.npy` file; errors are plain messages (the caller adds the path).
pub fn from_npy_bytes(bytes: &[u8]) -> std::result::Result<Tensor, String> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or("not a .npy file (bad magic)")?;
    let (major, rest) = match rest {
        [major, _minor, rest @ ..] => (*major, rest),
        _ => return Err("truncated .npy header".into()),
    };
    let (header_len, rest) = match (major, rest) {
        (1, [a, b, rest @ ..]) => (u16::from_le_bytes([*a, *b]) as usize, rest),
        (2 | 3, [a, b, c, d, rest @ ..]) => (u32::from_le_bytes([*a, *b, *c, *d]) as usize, rest),
        (1..=3, _) => return Err("truncated .npy header".into()),
        _ => return Err(format!("unsupported .npy version {major}")),
    };
    if rest.len() < header_len {
        return Err("truncated .npy header".into());
    }
    let (header, data) = rest.split_at(header_len);
    let header = std::str::from_utf8(header).map_err(|_| "the .npy header is not text")?;
    let header = Header::parse(header)?;
    if header.fortran_order {
        return Err("Fortran-order arrays are not supported (save with C order)".into());
    }
    let dtype = dtype_of(&header.descr)
        .ok_or_else(|| format!("unsupported .npy dtype '{}'", header.descr))?;
    let numel = vm::tensor::checked_numel(&header.shape).map_err(|e| e.to_string())?;
    let want = numel
        .checked_mul(dtype.bytes())
        .ok_or("the array is too large")?;
    if data.len() != want {
        return Err(format!(
            "shape {:?} of {dtype} needs {want} data bytes, the file has {}",
            header.shape,
            data.len()
        ));
    }
    let fixed;
    let data = if dtype == DataType::BOOL {
        fixed = data.iter().map(|&b| (b != 0) as u8).collect::<Vec<u8>>();
        &fixed[..]
    } else {
        data
    };
    Tensor::from_bytes(&header.shape, dtype, data).map_err(|e| e.to_string())
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

/// The three keys of a `.npy` header, a Python dict literal such as
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<i64>,
}

impl Header {
    fn parse(text: &str) -> std::result::Result<Header, String> {
        let bad = || format!("cannot read the .npy header `{}`", text.trim_end());
        let body = text
            .trim()
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
            .ok_or_else(bad)?;
        let mut descr = None;
        let mut fortran_order = None;
        let mut shape = None;
        let mut rest = body.trim_start();
        while !rest.is_empty() {
            let (key, after) = quoted(rest).ok_or_else(bad)?;
            let after = after.trim_start().strip_prefix(':').ok_or_else(bad)?;
            let after = after.trim_start();
            rest = match key {
                "descr" => {
                    let (v, after) = quoted(after).ok_or_else(bad)?;
                    descr = Some(v.to_string());
                    after
                }
                "fortran_order" => {
                    let (v, after) = if let Some(a) = after.strip_prefix("False") {
                        (false, a)
                    } else if let Some(a) = after.strip_prefix("True") {
                        (true, a)
                    } else {
                        return Err(bad());
                    };
                    fortran_order = Some(v);
                    after
                }
                "shape" => {
                    let inner = after.strip_prefix('(').ok_or_else(bad)?;
                    let end = inner.find(')').ok_or_else(bad)?;
                    let dims = inner[..end]
                        .split(',')
                        .map(str::trim)
                        .filter(|d| !d.is_empty())
                        .map(|d| d.trim_end_matches('L').parse::<i64>())
                        .collect::<std::result::Result<Vec<_>, _>>()
                        .map_err(|_| bad())?;
                    shape = Some(dims);
                    &inner[end + 1..]
                }
                _ => return Err(bad()),
            };
            rest = rest.trim_start();
            rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
        }
        match (descr, fortran_order, shape) {
            (Some(descr), Some(fortran_order), Some(shape)) => Ok(Header {
                descr,
                fortran_order,
                shape,
            }),
            _ => Err(bad()),
        }
    }
}

/// A `'...'` or `"..."` string at the start of `s`, and what follows it.
fn quoted(s: &str) -> Option<(&str, &str)> {
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = &s[1..];
    let end = inner.find(q)?;
    Some((&inner[..end], &inner[end + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_dtype() {
        let tensors = [
            Tensor::from_slice(&[2, 3], &[1.0f32, -2.5, 0.0, 3.25, f32::NAN, 7.0]).unwrap(),
            Tensor::from_slice(&[2], &[1.5f64, -0.0]).unwrap(),
            Tensor::from_slice(&[3], &[half::f16::from_f32(0.5); 3]).unwrap(),
            Tensor::from_slice(&[1, 1], &[-7i8]).unwrap(),
            Tensor::from_slice(&[2], &[-7i16, 9]).unwrap(),
            Tensor::from_slice(&[2], &[i32::MIN, 9]).unwrap(),
            Tensor::from_slice(&[], &[i64::MAX]).unwrap(),
            Tensor::from_slice(&[4], &[0u8, 1, 2, 255]).unwrap(),
            Tensor::from_slice(&[3], &[true, false, true]).unwrap(),
            Tensor::from_slice::<f32>(&[0, 3], &[]).unwrap(),
        ];
        for t in tensors {
            let bytes = to_npy_bytes(&t).unwrap();
            let header_end = 10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
            assert_eq!(header_end % 64, 0, "aligned header");
            let back = from_npy_bytes(&bytes).unwrap();
            assert_eq!(back.shape(), t.shape());
            assert_eq!(back.dtype(), t.dtype());
            assert_eq!(back.to_bytes(), t.to_bytes());
        }
    }

    fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn reads_numpy_spellings() {
        let t = from_npy_bytes(&file(
            "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }  \n",
            &[1, 0, 0, 0, 2, 0, 0, 0],
        ))
        .unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), [1, 2]);
        let t = from_npy_bytes(&file(
            "{\"shape\": (), \"fortran_order\": False, \"descr\": \"|b1\"}\n",
            &[3],
        ))
        .unwrap();
        assert_eq!(t.to_vec::<bool>().unwrap(), [true]);
    }

    #[test]
    fn rejects_what_it_cannot_represent() {
        let cases: &[(Vec<u8>, &str)] = &[
            (b"hello".to_vec(), "bad magic"),
            (MAGIC.to_vec(), "truncated"),
            (
                file(
                    "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }\n",
                    &[0; 16],
                ),
                "Fortran-order",
            ),
            (
                file(
                    "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }\n",
                    &[0; 4],
                ),
                "unsupported .npy dtype '>f4'",
            ),
            (
                file(
                    "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }\n",
                    &[0; 8],
                ),
                "unsupported .npy dtype '<c8'",
            ),
            (
                file(
                    "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }\n",
                    &[0; 8],
                ),
                "unsupported .npy dtype '|O'",
            ),
            (
                file(
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n",
                    &[0; 8],
                ),
                "needs 12 data bytes, the file has 8",
            ),
            (
                file(
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n",
                    &[],
                ),
                "",
            ),
            (
                file("{'descr': '<f4'}\n", &[]),
                "cannot read the .npy header",
            ),
            (file("nonsense", &[]), "cannot read the .npy header"),
        ];
        for (bytes, want) in cases {
            let e = from_npy_bytes(bytes).expect_err("an error");
            assert!(e.contains(want), "{e:?} should mention {want:?}");
        }
    }
}
