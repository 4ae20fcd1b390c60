//! Creation operators: `full`, `zeros`, `ones` (a `T_full` block), their `_like` forms,
//! `arange` (`T_arange`), and `shape_to_tensor` (a small kernel when the shape's values are
//! known, else the runtime's `relax.run.shape_to_tensor`).

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

/// `shape_to_tensor(s)`: the shape's dimensions as a 1-D int64 tensor. As in TVM, a shape whose
/// values are known (a literal, or a variable whose struct info lists them) becomes a small
/// kernel `shape_to_tensor` (an `if_then_else` chain over the index, its symbolic dimensions
/// passed as prim values); a shape of unknown values stays a call of the runtime's
/// `relax.run.shape_to_tensor`.
fn shape_to_tensor(c: &OpCall) -> Result<Lowered> {
    let Some(s) = c.call.args.first() else {
        return unsupported("shape_to_tensor without an argument");
    };
    let values = match (s.kind(), c.sinfo.first()) {
        (ExprKind::ShapeExpr(d), _) => Some(d.clone()),
        (_, Some(crate::ir::StructInfo::Shape { values, .. })) => values.clone(),
        _ => None,
    };
    let Some(values) = values else {
        return Ok(Lowered::Expr(crate::transform::call_pure_packed(
            "relax.run.shape_to_tensor",
            vec![s.clone()],
            c.out.clone(),
        )));
    };
    let n = values.len() as i64;
    let mut te = Te::new();
    let out = te.compute("shape_to_tensor", "i", &[te::i64c(n)], |i| {
        let i = &i[0];
        values
            .iter()
            .enumerate()
            .rev()
            .fold(te::i64c(0), |rest, (k, v)| {
                let at = te::cmp(tir::CmpOp::Eq, i.clone(), te::i64c(k as i64));
                te::if_then_else(at, te::cast(tir::DataType::INT64, v.clone()), rest)
            })
    });
    c.finish("shape_to_tensor", te, &[], &[out])
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
