//! NumPy `.npy` files ↔ [`Tensor`]s: versions 1.0–3.0, C order, either byte order,
//! `float16/32/64`, `int8..int64`, `uint8..uint64` and `bool`.
//!
//! Reading is this module's own (`npyz` multiplies the dimensions unchecked: an overflow panic
//! where overflow checks are on, a wrapped size where not): the header is a small Python
//! dictionary, read here by a parser that knows only the three keys numpy writes and checks
//! every dimension, then the elements are the data bytes, byte-swapped for big-endian files and
//! checked to be 0 or 1 for bools. What a tensor cannot be — Fortran order, structured or complex dtypes, a data size
//! that does not match the shape — is an error. Bad files give an [`Error::Npy`], never a
//! panic or an allocation the file's size does not justify. Writing is this module's too.

use std::path::Path;

use vm::{DataType, Tensor};

use crate::error::{Error, Result};

/// The numpy type string of a dtype as this module writes it: little-endian, `|` for one-byte
/// types; `None` for a dtype `.npy` cannot hold.
fn type_str_of(dtype: DataType) -> Option<&'static str> {
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

/// Encodes a tensor as the bytes of a `.npy` file, with the header numpy writes: version 1.0
/// (2.0 for a header beyond 64 KiB), `{'descr': '<f4', 'fortran_order': False, 'shape': (2,
/// 3), }` padded with spaces and a newline so that the data starts 64-byte aligned.
pub fn to_npy_bytes(tensor: &Tensor) -> Result<Vec<u8>> {
    let descr = type_str_of(tensor.dtype()).ok_or_else(|| {
        Error::Unsupported(format!(
            "a {} tensor cannot be written as .npy",
            tensor.dtype()
        ))
    })?;
    let dims: Vec<String> = tensor.shape().iter().map(|d| d.to_string()).collect();
    let shape = match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}").into_bytes();
    let (version, prefix) = if header.len() + 64 <= usize::from(u16::MAX) {
        (1u8, 10)
    } else {
        (2, 12)
    };
    let padded = (prefix + header.len() + 1).next_multiple_of(64) - prefix;
    header.resize(padded - 1, b' ');
    header.push(b'\n');
    let mut out = Vec::new();
    out.try_reserve_exact(prefix + header.len() + tensor.nbytes())
        .map_err(|_| Error::Unsupported(format!("cannot allocate {} bytes", tensor.nbytes())))?;
    out.extend_from_slice(b"\x93NUMPY");
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        let len = u32::try_from(header.len())
            .map_err(|_| Error::Unsupported("a .npy header beyond 4 GiB".into()))?;
        out.extend_from_slice(&len.to_le_bytes());
    }
    out.extend_from_slice(&header);
    // Tensors hold their elements little-endian, as the header says.
    out.extend_from_slice(&tensor.to_bytes());
    Ok(out)
}

/// What a `.npy` header says about the array.
#[derive(Debug)]
struct Header {
    /// The `descr` value as written: a type string, or for a structured dtype its list.
    descr: Descr,
    fortran_order: bool,
    shape: Vec<u64>,
}

#[derive(Debug)]
enum Descr {
    TypeStr(String),
    /// A structured dtype's field list, as written.
    Fields(String),
}

/// Splits a file into its header and its data, checking the magic string, the version and the
/// header length against the file's size.
fn split_file(bytes: &[u8]) -> std::result::Result<(&str, &[u8]), String> {
    const MAGIC: &[u8] = b"\x93NUMPY";
    let invalid = |what: &str| format!("not a valid .npy file: {what}");
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(invalid("magic not found for NPY file"));
    }
    let (len_bytes, start) = match bytes.get(6..8) {
        Some([1, 0]) => (2, 10),
        Some([2 | 3, 0]) => (4, 12),
        Some([major, minor]) => {
            return Err(invalid(&format!("unsupported version: ({major}, {minor})")));
        }
        _ => return Err(invalid("the file ends inside the version")),
    };
    let Some(len) = bytes.get(8..8 + len_bytes) else {
        return Err(invalid("the file ends inside the header length"));
    };
    let len = len
        .iter()
        .rev()
        .fold(0usize, |n, &b| (n << 8) | usize::from(b));
    let claimed = start + len;
    if claimed > bytes.len() {
        return Err(format!(
            "truncated .npy header: it claims {claimed} bytes, the file has {}",
            bytes.len()
        ));
    }
    // Versions 1 and 2 are Latin-1 and 3 is UTF-8, but every header numpy writes for a dtype
    // read here is ASCII.
    let text = std::str::from_utf8(&bytes[start..claimed])
        .map_err(|_| invalid("the header is not UTF-8 text"))?;
    Ok((text, &bytes[claimed..]))
}

/// Reads a header's dictionary (`{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`
/// padded with spaces and a newline): string keys; string, bool, tuple-of-integers values, and
/// a list (a structured dtype) kept as text, its nesting counted rather than recursed into, so
/// that no header can exhaust the stack.
fn parse_header(text: &str) -> std::result::Result<Header, String> {
    let mut p = HeaderParser { text, pos: 0 };
    let (mut descr, mut fortran_order, mut shape) = (None, None, None);
    p.expect('{')?;
    loop {
        if p.eat('}') {
            break;
        }
        let key = p.string()?;
        p.expect(':')?;
        match key.as_str() {
            "descr" => {
                let value = if p.peek() == Some('[') {
                    Descr::Fields(p.list_text()?.to_string())
                } else {
                    Descr::TypeStr(p.string()?)
                };
                set_once(&mut descr, value, &key)?;
            }
            "fortran_order" => set_once(&mut fortran_order, p.bool()?, &key)?,
            "shape" => set_once(&mut shape, p.shape()?, &key)?,
            _ => return Err(p.error(&format!("unexpected key '{key}'"))),
        }
        if !p.eat(',') {
            p.expect('}')?;
            break;
        }
    }
    p.skip_space();
    if p.pos != text.len() {
        return Err(p.error("text after the dictionary"));
    }
    let missing = |key: &str| format!("the header has no '{key}'");
    Ok(Header {
        descr: descr.ok_or_else(|| missing("descr"))?,
        fortran_order: fortran_order.ok_or_else(|| missing("fortran_order"))?,
        shape: shape.ok_or_else(|| missing("shape"))?,
    })
}

fn set_once<T>(slot: &mut Option<T>, value: T, key: &str) -> std::result::Result<(), String> {
    if slot.replace(value).is_some() {
        return Err(format!("the header gives '{key}' twice"));
    }
    Ok(())
}

/// A cursor over a header's text.
struct HeaderParser<'a> {
    text: &'a str,
    pos: usize,
}

impl HeaderParser<'_> {
    fn error(&self, what: &str) -> String {
        format!("{what} at byte {} of the header", self.pos)
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            return true;
        }
        false
    }

    fn expect(&mut self, c: char) -> std::result::Result<(), String> {
        if self.eat(c) {
            return Ok(());
        }
        Err(self.error(&format!("expected '{c}'")))
    }

    /// A quoted string without escapes (numpy writes none in the keys and type strings).
    fn string(&mut self) -> std::result::Result<String, String> {
        let quote = match self.peek() {
            Some(q @ ('\'' | '"')) => q,
            _ => return Err(self.error("expected a string")),
        };
        let start = self.pos + 1;
        let Some(len) = self.text[start..].find(quote) else {
            return Err(self.error("unterminated string"));
        };
        let s = &self.text[start..start + len];
        if s.contains('\\') {
            return Err(self.error("a string with escapes"));
        }
        self.pos = start + len + 1;
        Ok(s.to_string())
    }

    fn bool(&mut self) -> std::result::Result<bool, String> {
        self.skip_space();
        for (word, value) in [("True", true), ("False", false)] {
            if self.text[self.pos..].starts_with(word) {
                self.pos += word.len();
                return Ok(value);
            }
        }
        Err(self.error("expected True or False"))
    }

    /// `()`, `(n,)`, `(n, m)`, … of non-negative integers.
    fn shape(&mut self) -> std::result::Result<Vec<u64>, String> {
        self.expect('(')?;
        let mut dims = Vec::new();
        loop {
            if self.eat(')') {
                break;
            }
            self.skip_space();
            let rest = &self.text[self.pos..];
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits == 0 {
                return Err(self.error("expected a non-negative integer dimension"));
            }
            let dim = rest[..digits].parse::<u64>().map_err(|_| {
                self.error(&format!("the dimension {} is too large", &rest[..digits]))
            })?;
            self.pos += digits;
            dims.push(dim);
            if !self.eat(',') {
                self.expect(')')?;
                break;
            }
        }
        Ok(dims)
    }

    /// The text of a bracketed list, nesting and quotes respected.
    fn list_text(&mut self) -> std::result::Result<&str, String> {
        self.skip_space();
        let start = self.pos;
        let mut depth = 0usize;
        let mut quote = None;
        for (i, c) in self.text[start..].char_indices() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '[' | '(') => depth += 1,
                (None, ']' | ')') => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos = start + i + 1;
                        return Ok(&self.text[start..self.pos]);
                    }
                }
                (None, _) => {}
            }
        }
        Err(self.error("unterminated list"))
    }
}

/// Our dtype and whether the data is big-endian, for a numpy type string (`<f4`, `>i8`,
/// `|b1`), or `None`.
fn dtype_of(descr: &str) -> Option<(DataType, bool)> {
    let (big_endian, code) = match descr.as_bytes().first()? {
        b'>' => (true, &descr[1..]),
        b'<' | b'|' | b'=' => (false, &descr[1..]),
        _ => return None,
    };
    let dtype = match code {
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
    };
    Some((dtype, big_endian && dtype.bytes() > 1))
}

/// Decodes the bytes of a `.npy` file; errors are plain messages (the caller adds the path).
pub fn from_npy_bytes(bytes: &[u8]) -> std::result::Result<Tensor, String> {
    let (text, data) = split_file(bytes)?;
    let header = parse_header(text).map_err(|e| format!("not a valid .npy file: {e}"))?;
    let (dtype, big_endian) = match &header.descr {
        Descr::TypeStr(ts) => {
            dtype_of(ts).ok_or_else(|| format!("unsupported .npy dtype '{ts}'"))?
        }
        Descr::Fields(fields) => {
            let shown: String = fields.chars().take(80).collect();
            let more = if shown.len() < fields.len() {
                "…"
            } else {
                ""
            };
            return Err(format!(
                "unsupported .npy dtype {shown}{more} (a structured array)"
            ));
        }
    };
    // After the dtype: a one-dimensional Fortran array is also a C array, but numpy writes
    // those as C order, so the flag means a layout not read here.
    if header.fortran_order {
        return Err(
            "Fortran-order arrays are not supported (save a C-order array: np.ascontiguousarray)"
                .into(),
        );
    }
    let shape = header
        .shape
        .iter()
        .map(|&d| i64::try_from(d))
        .collect::<std::result::Result<Vec<i64>, _>>()
        .map_err(|_| format!("the shape {:?} is too large", header.shape))?;
    let want = vm::tensor::checked_nbytes(&shape, dtype).map_err(|e| e.to_string())?;
    if data.len() != want {
        return Err(format!(
            "shape {shape:?} of {dtype} needs {want} data bytes, the file has {}",
            data.len()
        ));
    }
    if dtype == DataType::BOOL
        && let Some(b) = data.iter().find(|&&b| b > 1)
    {
        return Err(format!("bad .npy data: invalid value for bool: {b}"));
    }
    if !big_endian {
        return Tensor::from_bytes(&shape, dtype, data).map_err(|e| e.to_string());
    }
    let mut swapped = Vec::new();
    swapped
        .try_reserve_exact(data.len())
        .map_err(|_| format!("cannot allocate {} bytes", data.len()))?;
    for element in data.chunks_exact(dtype.bytes()) {
        swapped.extend(element.iter().rev());
    }
    Tensor::from_bytes(&shape, dtype, &swapped).map_err(|e| e.to_string())
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
