//! [`DataType`]: TIR's scalar and vector element types (`int64`, `float32x4`, `bool`, `handle`).
//!
//! TIR keeps its own small type rather than the VM's because the crates are independent (see
//! DESIGN.md); both follow TVM's DLDataType layout (code, bits, lanes) and spelling.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// The kind of a [`DataType`] (DLPack type codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TypeCode {
    /// Signed integer.
    Int,
    /// Unsigned integer; `bool` is `UInt` with 1 bit.
    UInt,
    /// IEEE float.
    Float,
    /// Opaque pointer (`handle`); with 0 bits it is `void`.
    Handle,
    /// bfloat16.
    BFloat,
}

/// A TIR data type: code, bits per lane, and number of lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DataType {
    /// The kind.
    pub code: TypeCode,
    /// Bits per lane.
    pub bits: u8,
    /// Number of vector lanes (1 for scalars).
    pub lanes: u16,
}

impl DataType {
    /// A scalar type.
    pub const fn new(code: TypeCode, bits: u8) -> DataType {
        DataType {
            code,
            bits,
            lanes: 1,
        }
    }
    /// `int8`.
    pub const INT8: DataType = DataType::new(TypeCode::Int, 8);
    /// `int16`.
    pub const INT16: DataType = DataType::new(TypeCode::Int, 16);
    /// `int32`.
    pub const INT32: DataType = DataType::new(TypeCode::Int, 32);
    /// `int64`.
    pub const INT64: DataType = DataType::new(TypeCode::Int, 64);
    /// `uint8`.
    pub const UINT8: DataType = DataType::new(TypeCode::UInt, 8);
    /// `uint16`.
    pub const UINT16: DataType = DataType::new(TypeCode::UInt, 16);
    /// `bool` (1-bit unsigned).
    pub const BOOL: DataType = DataType::new(TypeCode::UInt, 1);
    /// `float16`.
    pub const FLOAT16: DataType = DataType::new(TypeCode::Float, 16);
    /// `float32`.
    pub const FLOAT32: DataType = DataType::new(TypeCode::Float, 32);
    /// `float64`.
    pub const FLOAT64: DataType = DataType::new(TypeCode::Float, 64);
    /// `bfloat16`.
    pub const BFLOAT16: DataType = DataType::new(TypeCode::BFloat, 16);
    /// `handle` (opaque pointer).
    pub const HANDLE: DataType = DataType::new(TypeCode::Handle, 64);
    /// `void` (the type of calls without a value).
    pub const VOID: DataType = DataType::new(TypeCode::Handle, 0);

    /// The same type with `lanes` lanes.
    pub const fn with_lanes(self, lanes: u16) -> DataType {
        DataType { lanes, ..self }
    }

    /// The scalar type of one lane.
    pub const fn element(self) -> DataType {
        self.with_lanes(1)
    }

    /// Signed or unsigned integer, excluding `bool`.
    pub fn is_int_or_uint(self) -> bool {
        matches!(self.code, TypeCode::Int | TypeCode::UInt) && !self.is_bool()
    }

    /// Signed integer.
    pub fn is_int(self) -> bool {
        self.code == TypeCode::Int
    }

    /// Unsigned integer (including `bool`).
    pub fn is_uint(self) -> bool {
        self.code == TypeCode::UInt
    }

    /// IEEE float or bfloat.
    pub fn is_float(self) -> bool {
        matches!(self.code, TypeCode::Float | TypeCode::BFloat)
    }

    /// `bool` (any lanes).
    pub fn is_bool(self) -> bool {
        self.code == TypeCode::UInt && self.bits == 1
    }

    /// `handle` or `void`.
    pub fn is_handle(self) -> bool {
        self.code == TypeCode::Handle
    }

    /// `void`.
    pub fn is_void(self) -> bool {
        self.code == TypeCode::Handle && self.bits == 0
    }

    /// More than one lane.
    pub fn is_vector(self) -> bool {
        self.lanes > 1
    }

    /// Bytes per element (rounded up for sub-byte types).
    pub fn bytes(self) -> usize {
        (self.bits as usize * self.lanes as usize).div_ceil(8)
    }

    /// Parses a TVM dtype string (`"float32"`, `"int64"`, `"bool"`, `"float32x4"`, `"handle"`).
    pub fn parse(s: &str) -> Option<DataType> {
        match s {
            "bool" => return Some(DataType::BOOL),
            "handle" => return Some(DataType::HANDLE),
            "void" => return Some(DataType::VOID),
            _ => {}
        }
        let (base, lanes) = match s.rfind('x') {
            Some(i)
                if i > 0 && s[i + 1..].chars().all(|c| c.is_ascii_digit()) && i + 1 < s.len() =>
            {
                (&s[..i], s[i + 1..].parse::<u16>().ok()?)
            }
            _ => (s, 1),
        };
        if lanes == 0 {
            return None;
        }
        let (code, digits) = if let Some(rest) = base.strip_prefix("uint") {
            (TypeCode::UInt, rest)
        } else if let Some(rest) = base.strip_prefix("int") {
            (TypeCode::Int, rest)
        } else if let Some(rest) = base.strip_prefix("bfloat") {
            (TypeCode::BFloat, rest)
        } else if let Some(rest) = base.strip_prefix("float") {
            (TypeCode::Float, rest)
        } else if base == "bool" {
            return Some(DataType::BOOL.with_lanes(lanes));
        } else {
            return None;
        };
        let bits: u8 = digits.parse().ok()?;
        let valid = match code {
            TypeCode::Int | TypeCode::UInt => matches!(bits, 1 | 4 | 8 | 16 | 32 | 64),
            TypeCode::Float => matches!(bits, 8 | 16 | 32 | 64),
            TypeCode::BFloat => bits == 16,
            TypeCode::Handle => false,
        };
        if !valid {
            return None;
        }
        Some(DataType { code, bits, lanes })
    }
}

impl FromStr for DataType {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        DataType::parse(s).ok_or_else(|| Error::InvalidDataType(s.to_string()))
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_bool() {
            f.write_str("bool")?;
        } else {
            match self.code {
                TypeCode::Int => write!(f, "int{}", self.bits)?,
                TypeCode::UInt => write!(f, "uint{}", self.bits)?,
                TypeCode::Float => write!(f, "float{}", self.bits)?,
                TypeCode::BFloat => write!(f, "bfloat{}", self.bits)?,
                TypeCode::Handle if self.bits == 0 => return f.write_str("void"),
                TypeCode::Handle => return f.write_str("handle"),
            }
        }
        if self.lanes > 1 {
            write!(f, "x{}", self.lanes)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_print_round_trip() {
        for s in [
            "float32",
            "float16",
            "float64",
            "int8",
            "int32",
            "int64",
            "uint8",
            "bool",
            "handle",
            "float32x4",
            "int64x2",
            "bfloat16",
            "void",
        ] {
            let t = DataType::parse(s).unwrap_or(DataType::VOID);
            assert_eq!(t.to_string(), s);
        }
        for bad in ["float33", "int", "x4", "float32x0", "handle2", ""] {
            assert!(DataType::parse(bad).is_none(), "{bad}");
        }
    }
}
