//! Attribute values of Relax operator calls and functions (`axis=[1]`, `keepdims=False`,
//! `out_dtype=None`, `R.func_attr({...})`).
//!
//! Operator attributes keep the order the operator declares them in, which is the order TVM
//! prints them in; `Attrs` is therefore an ordered list, not a map.

use tir::{DataType, PrimExpr};

/// TVM's `tir::IndexMap`: a function from indices to indices, written
/// `T.index_map(lambda i, j: (j, i))`. The parameters are variables of the map only (bound by
/// it, like a lambda's); the results may also use the function's symbolic variables.
#[derive(Clone, Debug)]
pub struct IndexMap {
    /// The lambda's parameters, one per input axis (`int64`, TVM's default index type).
    pub params: Vec<tir::Var>,
    /// One index expression per output axis, over `params`.
    pub results: Vec<PrimExpr>,
}

impl IndexMap {
    /// The output indices for the input indices `indices` (one per parameter).
    pub fn apply(&self, indices: &[PrimExpr]) -> Vec<PrimExpr> {
        let map: std::collections::HashMap<tir::VarId, PrimExpr> = self
            .params
            .iter()
            .zip(indices)
            .map(|(p, i)| (p.id(), i.clone()))
            .collect();
        self.results
            .iter()
            .map(|r| tir::transform::mutator::substitute(r, &map))
            .collect()
    }
}

/// One attribute value.
#[derive(Clone, Debug)]
pub enum AttrValue {
    /// Python `None` (an unset optional attribute, printed as `None`).
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    DType(DataType),
    /// A TIR expression (`T.float32(-0.5)`, `T.int64(3)`, a symbolic var).
    Expr(PrimExpr),
    List(Vec<AttrValue>),
    Map(Vec<(String, AttrValue)>),
    /// A Relax prim value held by an attribute (`pad_value=R.prim_value(T.float32(2))`).
    PrimValue(PrimExpr),
    /// An index map (`index_map=T.index_map(lambda a, b: (b, a))`).
    IndexMap(IndexMap),
}

impl AttrValue {
    pub fn as_int(&self) -> Option<i64> {
        match self {
            AttrValue::Int(v) => Some(*v),
            AttrValue::Expr(e) => e.as_int(),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            AttrValue::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            AttrValue::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_float(&self) -> Option<f64> {
        match self {
            AttrValue::Float(v) => Some(*v),
            AttrValue::Int(v) => Some(*v as f64),
            _ => None,
        }
    }
    /// A list of ints (`axis=[0, 1]`).
    pub fn as_int_list(&self) -> Option<Vec<i64>> {
        match self {
            AttrValue::List(items) => items.iter().map(AttrValue::as_int).collect(),
            _ => None,
        }
    }
    pub fn is_none(&self) -> bool {
        matches!(self, AttrValue::None)
    }
}

/// Ordered `name = value` attributes.
#[derive(Clone, Debug, Default)]
pub struct Attrs(pub Vec<(String, AttrValue)>);

impl Attrs {
    pub fn new() -> Attrs {
        Attrs::default()
    }
    pub fn get(&self, name: &str) -> Option<&AttrValue> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
    /// Sets `name`, replacing an existing value in place or appending.
    pub fn set(&mut self, name: &str, value: AttrValue) {
        match self.0.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name.to_string(), value)),
        }
    }
    pub fn with(mut self, name: &str, value: AttrValue) -> Attrs {
        self.set(name, value);
        self
    }
    pub fn iter(&self) -> impl Iterator<Item = &(String, AttrValue)> {
        self.0.iter()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
