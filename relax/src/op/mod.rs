//! The operator registry: for each Relax operator, its TVMScript name, its parameters (which
//! are expression arguments and which are attributes, with their defaults, in TVM's order) and
//! its struct-info inference.
//!
//! The TVMScript reader binds `R.op(args, key=value)` through [`OpDef::params`]; the printer
//! prints every attribute in declaration order (TVM prints defaults too); the normalizer calls
//! [`OpDef::infer`].
//!
//! # Parameters
//!
//! * Expression parameters ([`ParamKind::Expr`]) are the elements of `Call::args`, in order.
//!   A default is converted to an expression by the reader: `AttrValue::Int`/`Float`/`Expr`
//!   become `R.prim_value`, `AttrValue::Str` becomes `R.str`, and `AttrValue::None` means the
//!   argument is *omitted* (the call has fewer args: `R.strided_slice` without `strides`,
//!   `R.call_tir` without `tir_vars`).
//! * Attributes ([`ParamKind::Attr`]) are listed in the order TVM's printer prints them (the
//!   order its attrs node declares its fields), which for a few operators differs from the
//!   Python signature's positional order (`R.nn.max_pool2d` prints `dilation` before
//!   `padding`; `R.nn.pad` prints `pad_value` before `pad_mode`); pass those by keyword.
//! * [`ParamKind::TyArgs`] is the keyword that fills `Call::ty_args` (`out_ty=`, `ty_args=`).
//!
//! After binding, [`canonicalize`] puts the attributes in the form TVM's C++ constructors
//! store (an `int` axis becomes a list, conv/pool padding gets all 2·k entries, `out_layout`
//! defaults to the input layout, `R.arange(n)` becomes `R.arange(0, n, 1)`), so that printing
//! gives what TVM prints. Inference accepts both forms.
//!
//! # Not operators
//!
//! These `R.` forms are syntax, not calls of a registered operator: `R.call_packed("f", *args,
//! ty_args=...)` (a call of [`crate::Callee::Extern`]), `R.const`, `R.shape`, `R.prim_value`,
//! `R.str`, `R.dtype`, `R.tuple`, `R.match_cast`, `R.output`, `R.dataflow`, `R.func_attr`,
//! `R.function`, `R.Tensor`/`R.Tuple`/`R.Shape`/`R.Prim`/`R.Object`/`R.Any`/`R.Callable`.

mod binary;
mod call;
pub(crate) mod common;
mod create;
mod grad;
pub(crate) mod image;
mod index;
pub(crate) mod layout;
mod linalg;
mod manipulate;
mod nn;
mod qdq;
mod reduce;
mod registry;
mod scatter;
mod search;
mod sort;
mod unary;
mod vision;

use crate::Result;
use crate::ir::{AttrValue, Attrs, Call, Callee, Expr, StructInfo};

/// Whether a parameter is an expression argument or an attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A Relax expression (tensor, shape, tuple, prim value…), an element of `Call::args`.
    Expr,
    /// Any number of trailing expression arguments (`R.call_pure_packed(name, *args)`).
    VariadicExpr,
    /// An attribute, an entry of `Call::attrs`.
    Attr,
    /// The keyword that gives `Call::ty_args` (`out_ty=` of `R.call_tir`, `ty_args=` of
    /// `R.invoke_pure_closure`): one struct info, or a list of them.
    TyArgs,
}

/// One parameter of an operator.
#[derive(Clone, Copy, Debug)]
pub struct OpParam {
    pub name: &'static str,
    pub kind: ParamKind,
    /// The default, if the parameter may be omitted (for attributes: the value TVM prints when
    /// the user left it out; for expressions see the module docs).
    pub default: Option<fn() -> AttrValue>,
}

/// Infers the struct info of a call from its arguments' struct info.
pub type InferFn = fn(call: &Call, args: &[StructInfo]) -> Result<StructInfo>;

/// Rewrites a freshly bound call into TVM's stored form (see [`canonicalize`]).
pub type CanonicalizeFn = fn(args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()>;

/// An operator.
#[derive(Clone, Copy, Debug)]
pub struct OpDef {
    /// The registered name, e.g. `"relax.add"`, `"relax.nn.softmax"`.
    pub name: &'static str,
    /// The TVMScript spelling, e.g. `"R.add"`, `"R.nn.softmax"`.
    pub script_name: &'static str,
    pub params: &'static [OpParam],
    pub infer: InferFn,
    /// What TVM's C++ constructor of the call normalizes, if anything.
    pub canonicalize: Option<CanonicalizeFn>,
    /// Whether the operator is pure (may appear in a dataflow block). Impure: `R.vm.*` and
    /// `R.memory.*` allocations and kills, `R.call_dps_packed`-free packed calls, ...
    pub pure: bool,
}

impl OpDef {
    /// The parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&'static OpParam> {
        self.params.iter().find(|p| p.name == name)
    }
    /// The attribute parameters, in printing order.
    pub fn attr_params(&self) -> impl Iterator<Item = &'static OpParam> {
        self.params.iter().filter(|p| p.kind == ParamKind::Attr)
    }
    /// The default of attribute `name`, if declared.
    pub fn attr_default(&self, name: &str) -> Option<AttrValue> {
        self.param(name).and_then(|p| p.default).map(|d| d())
    }
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

/// Applies `op`'s canonicalization to a bound call's arguments and attributes, and fills
/// attributes that were left out with their defaults (in declaration order). Attributes that
/// `op` does not declare are kept, after the declared ones.
pub fn canonicalize(op: &OpDef, args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    let mut ordered = Attrs::new();
    for p in op.attr_params() {
        match attrs.get(p.name) {
            Some(v) => ordered.set(p.name, v.clone()),
            None => {
                if let Some(d) = p.default {
                    ordered.set(p.name, d());
                }
            }
        }
    }
    for (k, v) in attrs.iter() {
        if ordered.get(k).is_none() {
            ordered.set(k, v.clone());
        }
    }
    *attrs = ordered;
    if let Some(f) = op.canonicalize {
        f(args, attrs)?;
    }
    Ok(())
}

/// Builds the call `op(args, attrs)` with ty_args, canonicalized as TVM's constructor would
/// (the Rust analogue of `relax.op.add(x, y)`); `op` is the registered name (`"relax.sum"`).
pub fn make_call(
    op: &str,
    args: Vec<Expr>,
    attrs: Attrs,
    ty_args: Vec<StructInfo>,
) -> Result<Expr> {
    let def = lookup(op)
        .ok_or_else(|| crate::Error::TypeInference(format!("unknown operator `{op}`")))?;
    let (mut args, mut attrs) = (args, attrs);
    // Expression parameters left out take their defaults, as the reader does.
    let fixed: Vec<&OpParam> = def
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::Expr)
        .collect();
    if !def.params.iter().any(|p| p.kind == ParamKind::VariadicExpr) {
        for p in fixed.iter().skip(args.len()) {
            match p.default.map(|d| d()) {
                None | Some(AttrValue::None) => {}
                Some(v) => args.push(default_expr(def, p.name, v)?),
            }
        }
    }
    canonicalize(def, &mut args, &mut attrs)?;
    Ok(Expr::call(
        Callee::Op(def.name.to_string()),
        args,
        attrs,
        ty_args,
    ))
}

/// An expression parameter's default as an expression (`0` → `R.prim_value(0)`).
fn default_expr(def: &OpDef, name: &str, v: AttrValue) -> Result<Expr> {
    Ok(match v {
        AttrValue::Int(i) => Expr::prim(tir::PrimExpr::i64(i)),
        AttrValue::Float(f) => Expr::prim(tir::PrimExpr::float(tir::DataType::FLOAT32, f)),
        AttrValue::Bool(b) => Expr::prim(tir::PrimExpr::bool(b)),
        AttrValue::Expr(e) => Expr::prim(e),
        AttrValue::Str(s) => Expr::new(crate::ir::ExprKind::StringImm(s)),
        other => {
            return Err(crate::Error::Internal(format!(
                "{}: default of `{name}` is not an expression: {other:?}",
                def.script_name
            )));
        }
    })
}

/// Infers the struct info of a call of a registered operator from its arguments' struct info.
pub fn infer_call(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    let name = call
        .op()
        .ok_or_else(|| crate::Error::Internal("infer_call on a call of a non-operator".into()))?;
    let def = lookup(name)
        .ok_or_else(|| crate::Error::TypeInference(format!("unknown operator `{name}`")))?;
    (def.infer)(call, args)
}
