//! The operator registry: for each Relax operator, its TVMScript name, its parameters (which
//! are expression arguments and which are attributes, with their defaults, in TVM's order) and
//! its struct-info inference.
//!
//! The TVMScript reader binds `R.op(args, key=value)` through [`OpDef::params`]; the printer
//! prints every attribute in declaration order (TVM prints defaults too); the normalizer calls
//! [`OpDef::infer`].

use crate::Result;
use crate::ir::{AttrValue, Call, StructInfo};

/// Whether a parameter is an expression argument or an attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A Relax expression (tensor, shape, tuple, prim value…), an element of `Call::args`.
    Expr,
    /// Any number of trailing expression arguments (`R.call_packed(name, *args)`).
    VariadicExpr,
    /// An attribute, an entry of `Call::attrs`.
    Attr,
}

/// One parameter of an operator.
#[derive(Clone, Copy, Debug)]
pub struct OpParam {
    pub name: &'static str,
    pub kind: ParamKind,
    /// The default, if the parameter may be omitted (for attributes: the value TVM prints when
    /// the user left it out).
    pub default: Option<fn() -> AttrValue>,
}

/// Infers the struct info of a call from its arguments' struct info.
pub type InferFn = fn(call: &Call, args: &[StructInfo]) -> Result<StructInfo>;

/// An operator.
#[derive(Clone, Copy, Debug)]
pub struct OpDef {
    /// The registered name, e.g. `"relax.add"`, `"relax.nn.softmax"`.
    pub name: &'static str,
    /// The TVMScript spelling, e.g. `"R.add"`, `"R.nn.softmax"`.
    pub script_name: &'static str,
    pub params: &'static [OpParam],
    pub infer: InferFn,
}

/// The operator registered under `name` (`"relax.add"`).
pub fn lookup(name: &str) -> Option<&'static OpDef> {
    registry::OPS.iter().find(|op| op.name == name)
}

/// The operator spelled `script_name` in TVMScript (`"R.add"`).
pub fn lookup_script(script_name: &str) -> Option<&'static OpDef> {
    registry::OPS
        .iter()
        .find(|op| op.script_name == script_name)
}

/// Every registered operator.
pub fn all() -> &'static [OpDef] {
    registry::OPS
}

mod registry {
    //! The table of operators.
    use super::OpDef;

    pub(super) static OPS: &[OpDef] = &[];
}
