//! ElideDropout: at inference `R.nn.dropout(x, rate)` is `(x, ones)`, so a read of its first
//! field is replaced by `x` itself, and a dropout whose only other reads are mask reads that
//! nothing uses is removed with them: no copy of `x`, no mask, the same bits.
//!
//! A field read that is a block output is replaced only when `x` is not a dataflow variable
//! (a dataflow variable must not escape its block), as CanonicalizeBindings does; such a
//! dropout is kept.

use std::collections::{HashMap, HashSet};

use crate::Result;
use crate::ir::{Binding, Expr, ExprKind, Function, IRModule, Var, VarId};
use crate::transform::{count_uses, for_each_binding, map_functions, rewrite_seq};

pub fn elide_dropout(module: &IRModule) -> Result<IRModule> {
    map_functions(module, |name, f| {
        let uses = count_uses(f);
        // Dropout result → its input (a variable).
        let mut inputs: HashMap<VarId, Var> = HashMap::new();
        // Per dropout, its reads that can go: first fields to replace, unused masks.
        let mut removable: HashMap<VarId, usize> = HashMap::new();
        for_each_binding(&f.body, &mut |b| {
            let Binding::Var { var, value } = b else {
                return;
            };
            if let Some(call) = value.as_call()
                && call.op() == Some("relax.nn.dropout")
                && let Some(ExprKind::Var(x)) = call.args.first().map(Expr::kind)
            {
                inputs.insert(var.id(), x.clone());
            }
            if let Some((d, x, d_flow)) = field_of(value, &inputs) {
                let goes = match value.kind() {
                    ExprKind::TupleGetItem(_, 0) => replaceable(var, d_flow, x),
                    _ => uses.get(&var.id()).is_none_or(|&n| n == 0),
                };
                if goes {
                    *removable.entry(d).or_default() += 1;
                }
            }
        });
        let elided: HashSet<VarId> = inputs
            .keys()
            .filter(|d| uses.get(d).copied().unwrap_or(0) == removable.get(d).copied().unwrap_or(0))
            .copied()
            .collect();
        let body = rewrite_seq(&f.body, &Default::default(), name, &mut |b, em| {
            if let Binding::Var { var, value } = &b {
                if elided.contains(&var.id()) {
                    return Ok(());
                }
                if let Some((d, x, d_flow)) = field_of(value, &inputs) {
                    if matches!(value.kind(), ExprKind::TupleGetItem(_, 0))
                        && replaceable(var, d_flow, x)
                    {
                        em.replace(var, Expr::var(x));
                        return Ok(());
                    }
                    if elided.contains(&d) {
                        return Ok(());
                    }
                }
            }
            em.push(b);
            Ok(())
        })?;
        Ok(Function { body, ..f.clone() })
    })
}

/// `(d, x, dataflow)` when `value` reads a field of the dropout `d` of `x`, `dataflow` saying
/// whether `d` is a dataflow variable.
fn field_of<'a>(value: &Expr, inputs: &'a HashMap<VarId, Var>) -> Option<(VarId, &'a Var, bool)> {
    let ExprKind::TupleGetItem(t, _) = value.kind() else {
        return None;
    };
    let ExprKind::Var(d) = t.kind() else {
        return None;
    };
    inputs.get(&d.id()).map(|x| (d.id(), x, d.is_dataflow()))
}

/// Whether uses of `var = d[0]` may read `x` (the dropout's input) instead: as in
/// CanonicalizeBindings, a dataflow `x` only where `var` is a dataflow variable of the same
/// block, which a dataflow dropout `d` guarantees (it lives in `x`'s block).
fn replaceable(var: &Var, d_is_dataflow: bool, x: &Var) -> bool {
    !x.is_dataflow() || (var.is_dataflow() && d_is_dataflow)
}
