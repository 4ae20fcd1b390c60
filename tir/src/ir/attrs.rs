//! [`AttrValue`] and [`Attrs`]: the attribute dictionaries of functions (`T.func_attr`), blocks
//! (`T.sblock_attr`) and loops (`annotations=`).

use std::collections::BTreeMap;

use crate::ir::{Buffer, PrimExpr};

/// An attribute dictionary. Keys are kept sorted, which is also the order TVM prints them in.
pub type Attrs = BTreeMap<String, AttrValue>;

/// One attribute value.
#[derive(Clone, Debug)]
pub enum AttrValue {
    /// `True` / `False`.
    Bool(bool),
    /// A Python integer.
    Int(i64),
    /// A Python float.
    Float(f64),
    /// A string.
    Str(String),
    /// A TIR expression (e.g. `T.int64(4)` or a variable).
    Expr(PrimExpr),
    /// A list `[...]`.
    List(Vec<AttrValue>),
    /// A nested dictionary.
    Map(BTreeMap<String, AttrValue>),
    /// A buffer named as a value (`T.sblock_attr({"layout_free_placeholders": [B]})`).
    Buffer(Buffer),
}

impl AttrValue {
    /// The integer, if this is an `Int` (or an integer constant expression).
    pub fn as_int(&self) -> Option<i64> {
        match self {
            AttrValue::Int(v) => Some(*v),
            AttrValue::Expr(e) => e.as_int(),
            _ => None,
        }
    }

    /// The boolean, if this is a `Bool`.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            AttrValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The string, if this is a `Str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            AttrValue::Str(s) => Some(s),
            _ => None,
        }
    }
}
