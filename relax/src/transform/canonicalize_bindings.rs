//! CanonicalizeBindings: removes trivial variable-to-variable bindings (`y = x`) by replacing
//! every use of `y` with `x`, and reads fields of tuples built in the function directly
//! (TVM's `relax.transform.CanonicalizeBindings`, its binding and known-tuple parts).
//!
//! A binding is trivial when `x` is a variable with the same struct info as `y` and the
//! replacement keeps scoping: a dataflow `y` is always replaced; a non-dataflow `y` (a block
//! output) only when `x` is not a dataflow variable, since a dataflow variable must not escape
//! its block. Chains `z = y = x` collapse to `x`.
//!
//! `y = t[i]`, where `t` is bound to a tuple literal `(a, b, ...)` (directly or through trivial
//! bindings), is `y = a` for field `i`, and is then replaced as a trivial binding when that field
//! is a variable under the same rules, and a dataflow field only through a dataflow tuple (which
//! lives in the field's block, as the read then does). TVM's `KillAfterLastUse` canonicalizes this way first, so
//! `t[0]` never reaches the VM as a `vm.builtin.tuple_getitem` there either.
//!
//! Invariants: no binding other than the removed ones changes; every variable is still
//! defined before use; the tuple itself stays bound (it may have other uses).

use std::collections::HashMap;

use crate::Result;
use crate::ir::{Binding, Expr, ExprKind, IRModule, Var, VarId};
use crate::structural_eq::struct_info_identical;
use crate::transform::rewrite_module;

pub fn canonicalize_bindings(module: &IRModule) -> Result<IRModule> {
    // Tuple literals by the variable bound to them. Variable ids are unique in a module, so one
    // map serves every function and branch (a tuple bound in a branch is not visible outside).
    let mut tuples: HashMap<VarId, Vec<Expr>> = HashMap::new();
    rewrite_module(module, |b, em| {
        if let Binding::Var { var, value } = &b {
            match value.kind() {
                ExprKind::Var(x) if replaces(var, x) => {
                    em.replace(var, value.clone());
                    return Ok(());
                }
                ExprKind::TupleGetItem(t, i) => {
                    if let Some(field) = t
                        .as_var()
                        .and_then(|t| tuples.get(&t.id()))
                        .and_then(|fields| fields.get(*i))
                        && let Some(x) = field.as_var()
                        && replaces(var, x)
                        && t.as_var()
                            .is_some_and(|t| t.is_dataflow() || !x.is_dataflow())
                    {
                        em.replace(var, field.clone());
                        return Ok(());
                    }
                }
                ExprKind::Tuple(fields) => {
                    tuples.insert(var.id(), fields.clone());
                }
                _ => {}
            }
        }
        em.push(b);
        Ok(())
    })
}

/// Whether the binding `var = x` is trivial: uses of `var` may read `x` instead.
fn replaces(var: &Var, x: &Var) -> bool {
    struct_info_identical(var.struct_info(), x.struct_info())
        && (var.is_dataflow() || !x.is_dataflow())
}
