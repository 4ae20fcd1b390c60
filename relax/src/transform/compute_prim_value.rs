//! ComputePrimValue: in TVM, replaces `R.prim_value(expr)` whose value is a non-int64 symbolic
//! expression (a `bool` condition over shape variables) with a call of a generated PrimFunc.
//! int64 symbolic prim values are computed on the shape heap by VMShapeLower, which covers the
//! corpus; the other kinds are reported as unsupported here, with where they are.

use crate::ir::{Binding, ExprKind, IRModule};
use crate::transform::rewrite_module;
use crate::{Error, Result};

pub fn compute_prim_value(module: &IRModule) -> Result<IRModule> {
    rewrite_module(module, |b, em| {
        if let Binding::Var { var, value } = &b
            && let ExprKind::PrimValue(p) = value.kind()
            && p.as_int().is_none()
            && !matches!(p.kind(), tir::ExprKind::FloatImm { .. })
            && p.dtype() != tir::DataType::INT64
        {
            return Err(Error::Unsupported(format!(
                "the symbolic {} prim value `{p}` in function `{}`, binding `{}`",
                p.dtype(),
                em.func,
                var.name()
            )));
        }
        em.push(b);
        Ok(())
    })
}
