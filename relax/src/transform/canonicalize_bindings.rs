//! CanonicalizeBindings: removes trivial variable-to-variable bindings (`y = x`) by replacing
//! every use of `y` with `x` (TVM's `relax.transform.CanonicalizeBindings`, its binding part).
//!
//! A binding is trivial when `x` is a variable with the same struct info as `y` and the
//! replacement keeps scoping: a dataflow `y` is always replaced; a non-dataflow `y` (a block
//! output) only when `x` is not a dataflow variable, since a dataflow variable must not escape
//! its block. Chains `z = y = x` collapse to `x`.
//!
//! Invariants: no binding other than the removed aliases changes; every variable is still
//! defined before use.

use crate::Result;
use crate::ir::{Binding, ExprKind, IRModule};
use crate::structural_eq::struct_info_equal;
use crate::transform::rewrite_module;

pub fn canonicalize_bindings(module: &IRModule) -> Result<IRModule> {
    rewrite_module(module, |b, em| {
        if let Binding::Var { var, value } = &b
            && let ExprKind::Var(x) = value.kind()
            && struct_info_equal(var.struct_info(), x.struct_info())
            && (var.is_dataflow() || !x.is_dataflow())
        {
            em.replace(var, value.clone());
            return Ok(());
        }
        em.push(b);
        Ok(())
    })
}
