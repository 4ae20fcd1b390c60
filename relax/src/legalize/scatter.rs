//! `R.index_put` and `R.slice_scatter`, legalized with the semantics of TVM's
//! `topi.index_put` and `topi.slice_scatter` (`python/tvm/topi/index_put.py`,
//! `slice_scatter.py`), which `legalize_ops/manipulate.py` calls.
//!
//! Where TVM's kernels read or write outside a buffer these define the result or fail:
//!
//! * `index_put`: an index outside its axis (after adding the axis extent to a negative one,
//!   as TVM does) is a run-time error of the kernel naming the index tensor, where TVM's
//!   kernel writes outside the result or into another row. TVM reads `values` at the flat
//!   position of each index; a `values` tensor of fewer elements than the broadcast indices is
//!   read out of bounds there, here it broadcasts to the indices' shape (NumPy's and PyTorch's
//!   rule) when it can, and is an error otherwise. The updates run in order, so that with
//!   repeated indices the last one wins (`accumulate=False`) and every one adds
//!   (`accumulate=True`); TVM's loop over them is `T.parallel`, whose order (and, for
//!   accumulation, whose result) is undefined on repeated indices.
//! * `slice_scatter`: TVM takes `start`, `end` and `step` as given (a frontend normalizes
//!   them); a negative `start` makes its kernel read `src` at clipped indices, here it is an
//!   error. An `end` beyond the axis selects up to the axis's end, as in TVM. The extent of
//!   `src` along the axis must be `ceil((end - start) / step)` (TVM's inference rule); when
//!   that is not provable when compiling, the kernel checks it before writing. TVM's
//!   `topi.slice_scatter` needs the axis extent as a constant; here it may be symbolic.

use tir::{CmpOp, DataType, ForKind, PrimExpr, Stmt};

use super::manipulate::tuple_tensors;
use super::te::{self, Te};
use super::{Lowered, OpCall, Result, Rule, TArg};
use crate::Error;
use crate::ir::StructInfo;
use crate::op::common::shape_str;

pub(super) fn rule(name: &str) -> Option<Rule> {
    let r: Rule = match name {
        "index_put" => index_put,
        "slice_scatter" => slice_scatter,
        _ => return None,
    };
    Some(r)
}

/// An error in the program: arguments the operator cannot take.
fn invalid<T>(c: &OpCall, msg: impl std::fmt::Display) -> Result<T> {
    Err(Error::TypeInference(format!(
        "{}: {msg}",
        crate::op::common::script_name(c.call)
    )))
}

/// The NumPy broadcast of `shapes` (right-aligned; a 1 stretches), or `None` where two
/// dimensions other than 1 differ (symbolic ones must be the same expression).
fn broadcast_shape(shapes: &[&[PrimExpr]]) -> Option<Vec<PrimExpr>> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let mut dim = te::i64c(1);
        for s in shapes {
            let Some(d) = (i + s.len()).checked_sub(rank).map(|k| &s[k]) else {
                continue;
            };
            if d.as_int() == Some(1) {
                continue;
            }
            if dim.as_int() == Some(1) {
                dim = d.clone();
            } else if !te::expr_eq(&dim, d) {
                return None;
            }
        }
        out.push(dim);
    }
    Some(out)
}

/// The position in a tensor of `shape` that the broadcast position `idx` (of `out`) reads.
fn broadcast_read(shape: &[PrimExpr], out: &[PrimExpr], idx: &[PrimExpr]) -> Vec<PrimExpr> {
    super::elementwise::bcast_index(shape, out, idx)
}

/// The position in a tensor of `shape` of flat element `flat` (row-major).
fn unflatten(flat: PrimExpr, shape: &[PrimExpr]) -> Vec<PrimExpr> {
    (0..shape.len())
        .map(|d| {
            te::floordiv(
                te::floormod(flat.clone(), te::product(&shape[d..])),
                te::product(&shape[d + 1..]),
            )
        })
        .collect()
}

/// `R.index_put(data, indices, values, accumulate)`: a copy of `data`, then for each position
/// `p` of the broadcast index shape, `out[i0[p], i1[p], ...] = values[p]` (`+=` when
/// `accumulate`), with negative indices counting from the end of their axis.
fn index_put(c: &OpCall) -> Result<Lowered> {
    let data = c.tensor(0)?;
    let values = c.tensor(2)?;
    let indices = match c.sinfo.get(1) {
        Some(StructInfo::Tuple(_)) => tuple_tensors(c, 1)?,
        _ => vec![c.tensor(1)?],
    };
    let accumulate = c.attr_bool("accumulate").unwrap_or(false);
    let shape = data.shape().to_vec();
    if indices.len() != shape.len() {
        return invalid(
            c,
            format!(
                "the number of index tensors ({}) must match the rank of data ({})",
                indices.len(),
                shape.len()
            ),
        );
    }
    for (d, ind) in indices.iter().enumerate() {
        if !ind.dtype().is_int_or_uint() {
            return invalid(
                c,
                format!(
                    "index tensor {d} must have an integer dtype, got {}",
                    ind.dtype()
                ),
            );
        }
    }
    if values.dtype() != data.dtype() {
        return invalid(
            c,
            format!(
                "values have dtype {} but data has {}",
                values.dtype(),
                data.dtype()
            ),
        );
    }
    let index_shapes: Vec<&[PrimExpr]> = indices.iter().map(TArg::shape).collect();
    let Some(bshape) = broadcast_shape(&index_shapes) else {
        let shapes: Vec<String> = index_shapes.iter().map(|s| shape_str(s)).collect();
        return invalid(
            c,
            format!(
                "the index tensors' shapes {} do not broadcast together",
                shapes.join(", ")
            ),
        );
    };
    // How `values` is read at broadcast position `p`: at `p` itself (same shape), at its
    // flat position (same element count, TVM's reading), or broadcast.
    let same_shape = values.shape().len() == bshape.len()
        && values
            .shape()
            .iter()
            .zip(&bshape)
            .all(|(a, b)| te::expr_eq(a, b));
    let count = |s: &[PrimExpr]| tir::arith::simplify(&te::product(s)).as_int();
    let flat_read = !same_shape
        && matches!((count(values.shape()), count(&bshape)), (Some(a), Some(b)) if a == b);
    let broadcasts = broadcast_shape(&[values.shape(), &bshape]).is_some_and(|s| {
        s.len() == bshape.len() && s.iter().zip(&bshape).all(|(a, b)| te::expr_eq(a, b))
    });
    if !same_shape && !flat_read && !broadcasts {
        return invalid(
            c,
            format!(
                "values of shape {} neither have the indices' broadcast shape {} (or its \
                 number of elements) nor broadcast to it",
                shape_str(values.shape()),
                shape_str(&bshape)
            ),
        );
    }

    let out = te::placeholder("out_buf", &shape, data.dtype());
    let copy = nest(&shape, "i", |i| {
        te::store(&out, i.to_vec(), te::load(&data.buf, i.to_vec()))
    });
    let i64t = DataType::INT64;
    let update = nest(&bshape, "k", |k| {
        let mut checks = Vec::new();
        let mut pos = Vec::with_capacity(shape.len());
        for (d, ind) in indices.iter().enumerate() {
            let raw = te::cast(
                i64t,
                te::load(&ind.buf, broadcast_read(ind.shape(), &bshape, k)),
            );
            let fixed = te::select(
                te::cmp(CmpOp::Lt, raw.clone(), te::i64c(0)),
                te::add(raw.clone(), shape[d].clone()),
                raw,
            );
            let inside = te::and(
                te::cmp(CmpOp::Ge, fixed.clone(), te::i64c(0)),
                te::cmp(CmpOp::Lt, fixed.clone(), shape[d].clone()),
            );
            checks.push((
                inside,
                format!(
                    "index_put: an index of index tensor {d} is outside axis {d} of data of \
                     shape {}",
                    shape_str(&shape)
                ),
            ));
            pos.push(fixed);
        }
        let vidx = if same_shape {
            k.to_vec()
        } else if flat_read {
            let mut flat = k.first().cloned().unwrap_or_else(|| te::i64c(0));
            for (d, v) in k.iter().enumerate().skip(1) {
                flat = te::add(te::mul(flat, bshape[d].clone()), v.clone());
            }
            unflatten(flat, values.shape())
        } else {
            broadcast_read(values.shape(), &bshape, k)
        };
        let v = te::load(&values.buf, vidx);
        let v = if accumulate {
            te::add(te::load(&out, pos.clone()), v)
        } else {
            v
        };
        let mut s = te::store(&out, pos, v);
        for (cond, message) in checks.into_iter().rev() {
            s = Stmt::new(tir::StmtKind::AssertStmt {
                cond,
                message: PrimExpr::string(message),
                body: s,
            });
        }
        s
    });
    let mut te = Te::new();
    te.opaque(
        "index_put.generic",
        vec![out.clone()],
        Stmt::seq(vec![copy, update]),
    );
    let mut inputs: Vec<&TArg> = vec![&data];
    inputs.extend(indices.iter());
    inputs.push(&values);
    c.finish("index_put", te, &inputs, &[out])
}

/// Serial loops `prefix0, prefix1, ...` over `shape` around `body`.
fn nest(shape: &[PrimExpr], prefix: &str, body: impl FnOnce(&[PrimExpr]) -> Stmt) -> Stmt {
    let vars: Vec<tir::Var> = (0..shape.len())
        .map(|d| tir::Var::new(format!("{prefix}{d}"), DataType::INT64))
        .collect();
    let idx: Vec<PrimExpr> = vars.iter().map(PrimExpr::from).collect();
    let mut s = body(&idx);
    for (v, e) in vars.iter().zip(shape).rev() {
        s = te::for_loop(v, e.clone(), ForKind::Serial, s);
    }
    s
}

/// The integer value of prim argument `i`, as an int64 expression.
fn prim_arg(c: &OpCall, i: usize, name: &str) -> Result<PrimExpr> {
    match c.scalar(i) {
        Some(v) if v.dtype().is_int_or_uint() => Ok(te::cast(DataType::INT64, v)),
        _ => invalid(c, format!("`{name}` must be an integer prim value")),
    }
}

/// `R.slice_scatter(input, src, start, end, step, axis)`: `input` with the positions
/// `start, start + step, ...` (below `end`) of `axis` replaced by the slices of `src`.
fn slice_scatter(c: &OpCall) -> Result<Lowered> {
    let data = c.tensor(0)?;
    let src = c.tensor(1)?;
    let rank = data.ndim();
    let raw_axis = c.attr_int("axis").unwrap_or(0);
    let axis = if raw_axis < 0 {
        raw_axis + rank as i64
    } else {
        raw_axis
    };
    if axis < 0 || axis >= rank as i64 || src.ndim() != rank {
        return invalid(
            c,
            format!(
                "axis {raw_axis} of input {} and src {}",
                shape_str(data.shape()),
                shape_str(src.shape())
            ),
        );
    }
    let axis = axis as usize;
    let start = prim_arg(c, 2, "start")?;
    let end = prim_arg(c, 3, "end")?;
    let step = prim_arg(c, 4, "step")?;
    if let Some(s) = start.as_int()
        && s < 0
    {
        return invalid(
            c,
            format!("start ({s}) must not be negative (TVM takes it as given)"),
        );
    }
    if let Some(s) = step.as_int()
        && s < 1
    {
        return invalid(c, format!("step ({s}) must be at least 1"));
    }
    let count = te::floordiv(
        te::sub(
            te::add(te::sub(end.clone(), start.clone()), step.clone()),
            te::i64c(1),
        ),
        step.clone(),
    );
    let count = tir::arith::simplify(&count);
    let src_extent = src.shape()[axis].clone();
    let proven = matches!((count.as_int(), src_extent.as_int()), (Some(a), Some(b)) if a == b);
    if let (Some(a), Some(b)) = (count.as_int(), src_extent.as_int())
        && a != b
    {
        return invalid(
            c,
            format!("src has {b} elements along axis {axis}, but the slice selects {a}"),
        );
    }
    let mut te = Te::new();
    let out = te.compute("T_where", "ax", data.shape(), |i| {
        let at = i[axis].clone();
        let offset = te::sub(at.clone(), start.clone());
        let mut mask = te::and(
            te::cmp(CmpOp::Ge, at.clone(), start.clone()),
            te::cmp(CmpOp::Lt, at, end.clone()),
        );
        if step.as_int() != Some(1) {
            mask = te::and(
                mask,
                te::cmp(
                    CmpOp::Eq,
                    te::floormod(offset.clone(), step.clone()),
                    te::i64c(0),
                ),
            );
        }
        let mut sidx = i.to_vec();
        sidx[axis] = te::floordiv(offset, step.clone());
        te::if_then_else(
            mask,
            te::load(&src.buf, sidx),
            te::load(&data.buf, i.to_vec()),
        )
    });
    let lowered = c.finish("slice_scatter", te, &[&data, &src], &[out])?;
    if proven && start.as_int().is_some() && step.as_int().is_some() {
        return Ok(lowered);
    }
    // Known only at run time: the slice's bounds and the extent of `src` along the axis.
    let ok = te::and(
        te::and(
            te::cmp(CmpOp::Ge, start.clone(), te::i64c(0)),
            te::cmp(CmpOp::Ge, step.clone(), te::i64c(1)),
        ),
        te::cmp(CmpOp::Eq, src_extent, count),
    );
    Ok(super::assert_first(
        lowered,
        ok,
        format!(
            "slice_scatter: the slice of axis {axis} needs 0 <= start, 1 <= step and src of \
             ceil((end - start) / step) elements along that axis"
        ),
    ))
}
