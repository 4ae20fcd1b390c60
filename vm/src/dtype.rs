//! `DataType`: DLPack's (code, bits, lanes) triple, printed and parsed as TVM spells it.

use std::fmt;
use std::str::FromStr;

use crate::{Error, Result};

/// DLPack type codes (`DLDataTypeCode`), as TVM 0.27 uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TypeCode {
    Int = 0,
    UInt = 1,
    Float = 2,
    OpaqueHandle = 3,
    BFloat = 4,
    Complex = 5,
    Bool = 6,
}

/// A tensor element type: DLPack's `DLDataType` (`code`, `bits`, `lanes`).
///
/// The code is kept as a raw byte so that any triple read from a serialized executable round-trips,
/// even one this runtime cannot compute with; [`DataType::type_code`] interprets it.
///
/// `repr(C)`: compiled code reads a tensor's dtype as one `u32`, `code | bits << 8 | lanes << 16`
/// (see `tensor::layout`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct DataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

impl DataType {
    pub const fn new(code: TypeCode, bits: u8, lanes: u16) -> DataType {
        DataType {
            code: code as u8,
            bits,
            lanes,
        }
    }
    /// The type packed in one word as `code | bits << 8 | lanes << 16`, the form kernels and
    /// compiled code read (`DataType` is `repr(C)` with these fields in this order, so on a
    /// little-endian host this is also its bytes).
    pub const fn packed(self) -> u32 {
        self.code as u32 | (self.bits as u32) << 8 | (self.lanes as u32) << 16
    }
    /// The type [`packed`](Self::packed) into `p` (the bits above the lanes are ignored).
    pub const fn from_packed(p: u32) -> DataType {
        DataType {
            code: p as u8,
            bits: (p >> 8) as u8,
            lanes: (p >> 16) as u16,
        }
    }
    pub const BOOL: DataType = DataType::new(TypeCode::Bool, 8, 1);
    pub const I8: DataType = DataType::new(TypeCode::Int, 8, 1);
    pub const I16: DataType = DataType::new(TypeCode::Int, 16, 1);
    pub const I32: DataType = DataType::new(TypeCode::Int, 32, 1);
    pub const I64: DataType = DataType::new(TypeCode::Int, 64, 1);
    pub const U8: DataType = DataType::new(TypeCode::UInt, 8, 1);
    pub const U16: DataType = DataType::new(TypeCode::UInt, 16, 1);
    pub const U32: DataType = DataType::new(TypeCode::UInt, 32, 1);
    pub const U64: DataType = DataType::new(TypeCode::UInt, 64, 1);
    pub const F16: DataType = DataType::new(TypeCode::Float, 16, 1);
    pub const BF16: DataType = DataType::new(TypeCode::BFloat, 16, 1);
    pub const F32: DataType = DataType::new(TypeCode::Float, 32, 1);
    pub const F64: DataType = DataType::new(TypeCode::Float, 64, 1);
    /// TVM's `void` / unknown handle type (`kDLOpaqueHandle`, 0 bits, 0 lanes).
    pub const VOID: DataType = DataType::new(TypeCode::OpaqueHandle, 0, 0);
    pub const HANDLE: DataType = DataType::new(TypeCode::OpaqueHandle, 64, 1);

    pub fn type_code(self) -> Option<TypeCode> {
        Some(match self.code {
            0 => TypeCode::Int,
            1 => TypeCode::UInt,
            2 => TypeCode::Float,
            3 => TypeCode::OpaqueHandle,
            4 => TypeCode::BFloat,
            5 => TypeCode::Complex,
            6 => TypeCode::Bool,
            _ => return None,
        })
    }
    pub fn is_int(self) -> bool {
        self.code == TypeCode::Int as u8
    }
    pub fn is_uint(self) -> bool {
        self.code == TypeCode::UInt as u8
    }
    pub fn is_float(self) -> bool {
        self.code == TypeCode::Float as u8
    }
    pub fn is_bfloat(self) -> bool {
        self.code == TypeCode::BFloat as u8
    }
    pub fn is_bool(self) -> bool {
        self.code == TypeCode::Bool as u8
    }
    pub fn is_handle(self) -> bool {
        self.code == TypeCode::OpaqueHandle as u8
    }
    /// Float of any width, bfloat included.
    pub fn is_floating(self) -> bool {
        self.is_float() || self.is_bfloat()
    }
    pub fn is_scalar(self) -> bool {
        self.lanes == 1
    }
    pub fn with_lanes(self, lanes: u16) -> DataType {
        DataType { lanes, ..self }
    }
    pub fn element_of(self) -> DataType {
        self.with_lanes(1)
    }
    /// Bytes one element takes in a tensor, as DLPack rounds it: `(bits * lanes + 7) / 8`.
    pub fn bytes(self) -> usize {
        (self.bits as usize * self.lanes as usize).div_ceil(8)
    }
    /// Bytes per element as TVM's serializer counts them (lanes ignored): `(bits + 7) / 8`.
    pub fn scalar_bytes(self) -> usize {
        (self.bits as usize).div_ceil(8)
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == DataType::VOID {
            return f.write_str("void");
        }
        if (self.is_bool() && self.bits == 8) || (self.is_uint() && self.bits == 1) {
            f.write_str("bool")?;
        } else if self.is_handle() {
            f.write_str("handle")?;
        } else {
            let name = match self.type_code() {
                Some(TypeCode::Int) => "int",
                Some(TypeCode::UInt) => "uint",
                Some(TypeCode::Float) => "float",
                Some(TypeCode::BFloat) => "bfloat",
                Some(TypeCode::Complex) => "complex",
                Some(TypeCode::Bool) => "bool",
                _ => return write!(f, "custom[{}]{}", self.code, self.bits),
            };
            write!(f, "{name}{}", self.bits)?;
        }
        if self.lanes > 1 {
            write!(f, "x{}", self.lanes)?;
        }
        Ok(())
    }
}

impl fmt::Debug for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for DataType {
    type Err = Error;

    /// Parses TVM's spelling: `float32`, `int64`, `bool`, `uint8`, `bfloat16`, `float32x4`,
    /// `handle`, `void`.
    fn from_str(s: &str) -> Result<DataType> {
        let bad = || Error::value_error(format!("cannot parse \"{s}\" as a dtype"));
        let (base, lanes) = match s.rfind('x') {
            Some(i)
                if i > 0 && s[i + 1..].chars().all(|c| c.is_ascii_digit()) && i + 1 < s.len() =>
            {
                let lanes: u16 = s[i + 1..].parse().map_err(|_| bad())?;
                if lanes == 0 {
                    return Err(bad());
                }
                (&s[..i], lanes)
            }
            _ => (s, 1),
        };
        match base {
            "bool" => return Ok(DataType::BOOL.with_lanes(lanes)),
            "handle" => return Ok(DataType::HANDLE.with_lanes(lanes)),
            "void" if lanes == 1 => return Ok(DataType::VOID),
            _ => {}
        }
        let (code, digits) = [
            ("bfloat", TypeCode::BFloat),
            ("float", TypeCode::Float),
            ("uint", TypeCode::UInt),
            ("int", TypeCode::Int),
            ("complex", TypeCode::Complex),
        ]
        .iter()
        .find_map(|(p, c)| base.strip_prefix(p).map(|rest| (*c, rest)))
        .ok_or_else(bad)?;
        let bits: u8 = if digits.is_empty() {
            32
        } else if digits.chars().all(|c| c.is_ascii_digit()) {
            digits.parse().map_err(|_| bad())?
        } else {
            return Err(bad());
        };
        if bits == 0 {
            return Err(bad());
        }
        Ok(DataType::new(code, bits, lanes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_parse_round_trip() {
        for s in [
            "float32",
            "float16",
            "float64",
            "bfloat16",
            "int8",
            "int32",
            "int64",
            "uint8",
            "uint1",
            "bool",
            "float32x4",
            "int64x2",
            "handle",
            "void",
        ] {
            let t: DataType = s.parse().unwrap();
            let printed = t.to_string();
            let expected = if s == "uint1" { "bool" } else { s };
            assert_eq!(printed, expected, "{s}");
        }
        assert_eq!(
            "bool".parse::<DataType>().unwrap(),
            DataType {
                code: 6,
                bits: 8,
                lanes: 1
            }
        );
    }

    #[test]
    fn bad_dtypes_are_errors() {
        for s in [
            "",
            "float",
            "floatx",
            "int0",
            "qint8",
            "float32x0",
            "x4",
            "int999",
        ] {
            if s == "float" {
                assert_eq!(s.parse::<DataType>().unwrap(), DataType::F32);
                continue;
            }
            assert!(s.parse::<DataType>().is_err(), "{s}");
        }
    }
}
