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
