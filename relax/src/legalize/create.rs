//! Creation operators: `full`, `zeros`, `ones` (a `T_full` block), their `_like` forms,
//! `arange` (`T_arange`), and `shape_to_tensor` (the runtime's `relax.run.shape_to_tensor`).

use tir::PrimExpr;

use super::te::{self, Te};
use super::{Lowered, OpCall, Result, Rule, TArg, unsupported};
use crate::ir::ExprKind;

pub(super) fn rule(name: &str) -> Option<Rule> {
    let r: Rule = match name {
        "full" => |c| full(c, "full", Some(1), None),
        "zeros" => |c| full(c, "zeros", None, Some(0.0)),
        "ones" => |c| full(c, "ones", None, Some(1.0)),
        "full_like" => |c| full(c, "full_like", Some(1), None),
        "zeros_like" => |c| full(c, "zeros_like", None, Some(0.0)),
        "ones_like" => |c| full(c, "ones_like", None, Some(1.0)),
        "arange" => arange,
        "eye" => |c| eye(c, "eye", 2),
        "eye_like" => |c| eye(c, "eye_like", 1),
        "shape_to_tensor" => shape_to_tensor,
        _ => return None,
    };
    Some(r)
}

/// `R.call_pure_packed("relax.run.shape_to_tensor", s)`: the shape value's dimensions as a
/// 1-D int64 tensor, read at run time. TVM emits this call when the shape's values are unknown;
/// for known values it builds a small kernel, but the packed call computes the same tensor
/// for both without compiling one.
fn shape_to_tensor(c: &OpCall) -> Result<Lowered> {
    let Some(s) = c.call.args.first() else {
        return unsupported("shape_to_tensor without an argument");
    };
    Ok(Lowered::Expr(crate::ir::Expr::call(
        crate::ir::Callee::Op("relax.call_pure_packed".to_string()),
        vec![
            crate::ir::Expr::new(ExprKind::ExternFunc("relax.run.shape_to_tensor".into())),
            s.clone(),
        ],
        crate::ir::Attrs::new(),
        vec![c.out.clone()],
    )))
}

/// A tensor of the result's shape filled with `value` (a constant) or with the rank-0 tensor
/// argument `fill_arg`.
fn full(c: &OpCall, name: &str, fill_arg: Option<usize>, value: Option<f64>) -> Result<Lowered> {
    let (shape, dt) = c.out_tensor()?;
    let mut inputs: Vec<TArg> = Vec::new();
    let fill = match (fill_arg, value) {
        (_, Some(v)) => te::constf(dt, v),
        (Some(i), None) => match c.scalar(i) {
            Some(s) => te::cast(dt, s),
            None => {
                let t = c.tensor(i)?;
                if t.ndim() != 0 {
                    return unsupported("fill value must be a rank-0 tensor");
                }
                let v = te::cast(dt, te::load(&t.buf, Vec::new()));
                inputs.push(t);
                v
            }
        },
        (None, None) => return unsupported("no fill value"),
    };
    let mut te = Te::new();
    let out = te.compute("T_full", "ax", &shape, |_| fill);
    let refs: Vec<&TArg> = inputs.iter().collect();
    c.finish(name, te, &refs, &[out])
}

fn arange(c: &OpCall) -> Result<Lowered> {
    let (shape, dt) = c.out_tensor()?;
    let val = |i: usize| -> Result<PrimExpr> {
        match c.call.args.get(i).map(|e| e.kind()) {
            Some(ExprKind::PrimValue(p)) => Ok(te::cast(dt, p.clone())),
            _ => unsupported("arange bounds must be prim values"),
        }
    };
    let (start, step) = (val(0)?, val(2)?);
    let mut te = Te::new();
    let out = te.compute("T_arange", "ax", &shape, |i| {
        te::add(start, te::mul(te::cast(dt, i[0].clone()), step))
    });
    c.finish("arange", te, &[], &[out])
}

/// `eye(n, m, k)` / `eye_like(x, k)`: ones on the `k`-th diagonal (`T_eye`); `k` is the
/// prim-value argument `k_arg`.
fn eye(c: &OpCall, name: &str, k_arg: usize) -> Result<Lowered> {
    let (shape, dt) = c.out_tensor()?;
    if shape.len() != 2 {
        return unsupported(format!("{name}: the result must be 2-D"));
    }
    let k = match c.call.args.get(k_arg).map(|e| e.kind()) {
        Some(ExprKind::PrimValue(p)) => p.clone(),
        None => te::i64c(0),
        _ => return unsupported(format!("{name}: `k` must be a prim value")),
    };
    let mut te = Te::new();
    let out = te.compute("T_eye", "ax", &shape, |i| {
        let diag = te::cmp(
            tir::CmpOp::Eq,
            te::add(i[0].clone(), te::cast(i[0].dtype(), k)),
            i[1].clone(),
        );
        te::select(diag, te::one(dt), te::zero(dt))
    });
    c.finish(name, te, &[], &[out])
}
