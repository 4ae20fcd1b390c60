//! `matmul`: TVM's legalization as one reduction block `matmul` over axes `i0, ...` and `k`,
//! with numpy semantics for 1-D operands and broadcast batch dimensions.

use tir::PrimExpr;

use super::elementwise::bcast_index;
use super::te::{self, Combiner, Te};
use super::{Lowered, OpCall, Result, Rule, unsupported};

pub(super) fn rule(name: &str) -> Option<Rule> {
    let r: Rule = match name {
        "matmul" => matmul,
        "outer" => outer,
        "einsum" => einsum,
        _ => return None,
    };
    Some(r)
}

fn matmul(c: &OpCall) -> Result<Lowered> {
    let (a, b) = (c.tensor(0)?, c.tensor(1)?);
    let (out_shape, out_dt) = c.out_tensor()?;
    let (ra, rb) = (a.ndim(), b.ndim());
    if ra == 0 || rb == 0 {
        return unsupported("matmul of a rank-0 tensor");
    }
    let k_extent = a.shape()[ra - 1].clone();
    let out_rank = out_shape.len();
    // Batch dims of the output are those before the matrix dims.
    let matrix_dims = usize::from(ra > 1) + usize::from(rb > 1);
    let batch = out_rank - matrix_dims;
    let batch_shape = out_shape[..batch].to_vec();
    let mut te = Te::new();
    let raxes = vec![("k".to_string(), k_extent)];
    let out = te.reduce_named(
        "matmul",
        "i",
        &out_shape,
        &raxes,
        Combiner::Sum,
        None,
        |i, k| {
            let k = k[0].clone();
            let bi = &i[..batch];
            let mut ai: Vec<PrimExpr> = if ra > 2 {
                bcast_index(&a.shape()[..ra - 2], &batch_shape, bi)
            } else {
                Vec::new()
            };
            if ra > 1 {
                ai.push(i[batch].clone());
            }
            ai.push(k.clone());
            let mut bidx: Vec<PrimExpr> = if rb > 2 {
                bcast_index(&b.shape()[..rb - 2], &batch_shape, bi)
            } else {
                Vec::new()
            };
            bidx.push(k);
            if rb > 1 {
                bidx.push(i[out_rank - 1].clone());
            }
            let (x, y) = (te::load(&a.buf, ai), te::load(&b.buf, bidx));
            te::mul(te::cast(out_dt, x), te::cast(out_dt, y))
        },
    );
    c.finish("matmul", te, &[&a, &b], &[out])
}

/// `outer(x1, x2)`: `out[i..., j...] = x1[i...] * x2[j...]` (`T_outer`).
fn outer(c: &OpCall) -> Result<Lowered> {
    let (a, b) = (c.tensor(0)?, c.tensor(1)?);
    let (shape, dt) = c.out_tensor()?;
    if shape.len() != a.ndim() + b.ndim() {
        return unsupported("outer: the result rank is not the sum of the operand ranks");
    }
    let mut te = Te::new();
    let out = te.compute("T_outer", "ax", &shape, |i| {
        let x = te::cast(dt, te::load(&a.buf, i[..a.ndim()].to_vec()));
        let y = te::cast(dt, te::load(&b.buf, i[a.ndim()..].to_vec()));
        te::mul(x, y)
    });
    c.finish("outer", te, &[&a, &b], &[out])
}

/// `einsum(operands, subscripts)` without ellipses: one reduction block (`T_einsum`) over the
/// letters absent from the output (a plain `compute` when there are none). Without `->`, the
/// output letters are those that appear once, in alphabetical order (numpy's implicit mode).
fn einsum(c: &OpCall) -> Result<Lowered> {
    let ops = super::manipulate::tuple_tensors(c, 0)?;
    let Some(subscripts) = c.attr_str("subscripts").map(|s| s.replace(' ', "")) else {
        return unsupported("einsum: `subscripts` must be a string");
    };
    if subscripts.contains('.') {
        return unsupported(format!(
            "einsum: subscripts \"{subscripts}\" with an ellipsis"
        ));
    }
    let (lhs, rhs) = match subscripts.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (subscripts.clone(), None),
    };
    let inputs: Vec<Vec<char>> = lhs.split(',').map(|t| t.chars().collect()).collect();
    if inputs.len() != ops.len()
        || inputs.iter().flatten().any(|ch| !ch.is_ascii_alphabetic())
        || inputs.iter().zip(&ops).any(|(l, t)| l.len() != t.ndim())
    {
        return unsupported(format!(
            "einsum: subscripts \"{subscripts}\" do not match the {} operands",
            ops.len()
        ));
    }
    let output: Vec<char> = match rhs {
        Some(r) => r.chars().collect(),
        None => {
            let mut once: Vec<char> = inputs
                .iter()
                .flatten()
                .copied()
                .filter(|ch| inputs.iter().flatten().filter(|x| *x == ch).count() == 1)
                .collect();
            once.sort_unstable();
            once
        }
    };
    // The extent of each letter: the first operand dimension it labels that is not 1
    // (a dimension of extent 1 broadcasts).
    let mut extent: Vec<(char, PrimExpr)> = Vec::new();
    for (labels, t) in inputs.iter().zip(&ops) {
        for (ch, e) in labels.iter().zip(t.shape()) {
            match extent.iter_mut().find(|(x, _)| x == ch) {
                Some(slot) if slot.1.as_int() == Some(1) => slot.1 = e.clone(),
                Some(_) => {}
                None => extent.push((*ch, e.clone())),
            }
        }
    }
    let ext = |ch: char| {
        extent
            .iter()
            .find(|(x, _)| *x == ch)
            .map(|(_, e)| e.clone())
    };
    let mut out_shape = Vec::new();
    for ch in &output {
        match ext(*ch) {
            Some(e) => out_shape.push(e),
            None => {
                return unsupported(format!(
                    "einsum: output letter `{ch}` labels no operand dimension"
                ));
            }
        }
    }
    let reduced: Vec<(char, PrimExpr)> = extent
        .iter()
        .filter(|(ch, _)| !output.contains(ch))
        .cloned()
        .collect();
    let (_, dt) = c.out_tensor()?;
    let body = |i: &[PrimExpr], k: &[PrimExpr]| -> PrimExpr {
        let var = |ch: char| -> PrimExpr {
            if let Some(p) = output.iter().position(|x| *x == ch) {
                return i[p].clone();
            }
            let p = reduced.iter().position(|(x, _)| *x == ch).unwrap_or(0);
            k.get(p).cloned().unwrap_or_else(|| te::i64c(0))
        };
        let mut prod: Option<PrimExpr> = None;
        for (labels, t) in inputs.iter().zip(&ops) {
            let idx: Vec<PrimExpr> = labels
                .iter()
                .zip(t.shape())
                .map(|(ch, e)| {
                    if e.as_int() == Some(1) {
                        te::i64c(0)
                    } else {
                        var(*ch)
                    }
                })
                .collect();
            let v = te::cast(dt, te::load(&t.buf, idx));
            prod = Some(match prod {
                Some(p) => te::mul(p, v),
                None => v,
            });
        }
        prod.unwrap_or_else(|| te::one(dt))
    };
    let mut te = Te::new();
    let out = if reduced.is_empty() {
        te.compute("T_einsum", "ax", &out_shape, |i| body(i, &[]))
    } else {
        let raxes: Vec<(String, PrimExpr)> = reduced
            .iter()
            .map(|(ch, e)| (format!("k_{ch}"), e.clone()))
            .collect();
        te.reduce("T_einsum", &out_shape, &raxes, Combiner::Sum, None, body)
    };
    let refs: Vec<&super::TArg> = ops.iter().collect();
    c.finish("einsum", te, &refs, &[out])
}
