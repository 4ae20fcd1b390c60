//! Data movement: reshape/flatten, permute_dims, expand_dims, squeeze, concat, split, stack,
//! strided_slice, take, broadcast_to, tile, flip, gather_elements, scatter_elements, one_hot,
//! tril/triu, layout_transform, meshgrid.

use tir::{CmpOp, DataType, ForKind, PrimExpr, Stmt, Var};

use super::elementwise::bcast_index;
use super::te::{self, Te};
use super::{Lowered, OpCall, Result, Rule, TArg, unsupported};
use crate::ir::{AttrValue, Expr, ExprKind};

pub(super) fn rule(name: &str) -> Option<Rule> {
    let r: Rule = match name {
        "reshape" | "flatten" => reshape,
        "permute_dims" => permute_dims,
        "expand_dims" => expand_dims,
        "squeeze" => squeeze,
        "concat" => concat,
        "split" => split,
        "stack" => stack,
        "strided_slice" => strided_slice,
        "dynamic_strided_slice" => dynamic_strided_slice,
        "take" => take,
        "broadcast_to" => broadcast_to,
        "tile" => tile,
        "flip" => flip,
        "gather_elements" => gather_elements,
        "scatter_elements" => scatter_elements,
        "one_hot" => one_hot,
        "repeat" => repeat,
        "size" => size,
        "reverse_sequence" => reverse_sequence,
        "collapse_sum_to" | "collapse_sum_like" => collapse_sum,
        "gather_nd" => gather_nd,
        "scatter_nd" => scatter_nd,
        "layout_transform" => layout_transform,
        "meshgrid" => meshgrid,
        // Markers of the Gradient pass (checkpoints, a value that takes no gradient) and of
        // LiftTransformParams (a value not to lift) are their argument when the function
        // runs, as TVM legalizes them.
        "grad.start_checkpoint"
        | "grad.end_checkpoint"
        | "grad.no_grad"
        | "builtin.stop_lift_params" => |c| Ok(Lowered::Expr(c.call.args[0].clone())),
        "tril" => |c| trilu(c, false),
        "triu" => |c| trilu(c, true),
        _ => return None,
    };
    Some(r)
}

fn norm(a: i64, n: usize) -> usize {
    if a < 0 { a + n as i64 } else { a }.max(0) as usize
}

/// Integers of a tuple of prim values or a shape expression.
fn ints_of(e: &Expr) -> Option<Vec<i64>> {
    match e.kind() {
        ExprKind::ShapeExpr(d) => d.iter().map(PrimExpr::as_int).collect(),
        ExprKind::Tuple(items) => items
            .iter()
            .map(|i| match i.kind() {
                ExprKind::PrimValue(p) => p.as_int(),
                _ => None,
            })
            .collect(),
        ExprKind::PrimValue(p) => p.as_int().map(|v| vec![v]),
        _ => None,
    }
}

fn reshape(c: &OpCall) -> Result<Lowered> {
    // A target shape whose values are known only at run time (`R.tensor_to_shape` of a
    // tensor, a shape parameter of unknown dimensions): left for LowerRuntimeBuiltin, which
    // calls the runtime's `vm.builtin.reshape` (a view of the same data), as TVM does.
    if matches!(c.out, crate::ir::StructInfo::Tensor { .. })
        && c.out.tensor_shape().is_none()
        && c.sinfo.first().and_then(|s| s.tensor_shape()).is_some()
    {
        return Ok(Lowered::Expr(Expr::new(ExprKind::Call(c.call.clone()))));
    }
    let x = c.tensor(0)?;
    let (shape, _) = c.out_tensor()?;
    let ins = x.shape().to_vec();
    let mut te = Te::new();
    let out = te.compute("T_reshape", "ax", &shape, |i| {
        let mut flat = i.first().cloned().unwrap_or_else(|| te::i64c(0));
        for (d, v) in i.iter().enumerate().skip(1) {
            flat = te::add(te::mul(flat, shape[d].clone()), v.clone());
        }
        let idx = (0..ins.len())
            .map(|d| {
                te::floordiv(
                    te::floormod(flat.clone(), te::product(&ins[d..])),
                    te::product(&ins[d + 1..]),
                )
            })
            .collect();
        te::load(&x.buf, idx)
    });
    let lowered = c.finish("reshape", te, &[&x], &[out])?;
    Ok(check_element_count(lowered, &ins, &shape))
}

/// A reshape whose element counts are equal only at run time (a `-1` or a symbolic dimension
/// of the new shape: `(n,)` into `(3, n // 3)`, or into `(m,)`) checks them before it copies:
/// the copy wraps its flat index around the input, so a count that differs would drop
/// elements or repeat them. The check is a `T.Assert` at the top of the root block; such a
/// kernel is opaque (its indices use shape variables, which makes it so in TVM too), so
/// fusion never has to merge the assertion into another kernel.
fn check_element_count(lowered: Lowered, ins: &[PrimExpr], outs: &[PrimExpr]) -> Lowered {
    let (n_in, n_out) = (te::product(ins), te::product(outs));
    if crate::struct_info_ops::prove_equal(&n_in, &n_out) {
        return lowered;
    }
    use crate::op::common::shape_str;
    use crate::struct_info_ops::dim_str;
    let message = format!(
        "cannot reshape a tensor of shape {} ({} elements) into shape {} ({} elements): \
         the element counts differ",
        shape_str(ins),
        dim_str(&n_in),
        shape_str(outs),
        dim_str(&n_out)
    );
    super::assert_first(lowered, te::cmp(CmpOp::Eq, n_in, n_out), message)
}

fn permute_dims(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let n = x.ndim();
    let axes: Vec<usize> = match c.attr_ints("axes") {
        Some(a) => a.iter().map(|&v| norm(v, n)).collect(),
        None => (0..n).rev().collect(),
    };
    let (shape, _) = c.out_tensor()?;
    let mut te = Te::new();
    let out = te.compute("T_transpose", "ax", &shape, |i| {
        let mut idx = vec![te::i64c(0); n];
        for (j, &a) in axes.iter().enumerate() {
            if let Some(slot) = idx.get_mut(a) {
                *slot = i[j].clone();
            }
        }
        te::load(&x.buf, idx)
    });
    c.finish("transpose", te, &[&x], &[out])
}

fn expand_dims(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (shape, _) = c.out_tensor()?;
    let n = shape.len();
    let axes: Vec<usize> = c
        .attr_ints("axis")
        .unwrap_or_default()
        .iter()
        .map(|&a| norm(a, n))
        .collect();
    let mut te = Te::new();
    let out = te.compute("expand_dims", "i", &shape, |i| {
        let idx = (0..n)
            .filter(|d| !axes.contains(d))
            .map(|d| i[d].clone())
            .collect();
        te::load(&x.buf, idx)
    });
    c.finish("expand_dims", te, &[&x], &[out])
}

fn squeeze(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let n = x.ndim();
    // TVM's inference removes a given axis of extent 1 or of symbolic extent, and silently
    // keeps one of any other constant extent (PyTorch's rule); the kernel follows it.
    let axes: Vec<usize> = match c.attr_ints("axis") {
        Some(a) => a
            .iter()
            .map(|&v| norm(v, n))
            .filter(|&d| x.shape()[d].as_int().is_none_or(|e| e == 1))
            .collect(),
        None => (0..n)
            .filter(|&d| x.shape()[d].as_int() == Some(1))
            .collect(),
    };
    let (shape, _) = c.out_tensor()?;
    let mut te = Te::new();
    let out = te.compute("T_squeeze", "ax", &shape, |i| {
        let mut k = 0;
        let idx = (0..n)
            .map(|d| {
                if axes.contains(&d) {
                    te::i64c(0)
                } else {
                    k += 1;
                    i[k - 1].clone()
                }
            })
            .collect();
        te::load(&x.buf, idx)
    });
    c.finish("squeeze", te, &[&x], &[out])
}

/// The tensors of a tuple argument (a tuple literal, or a tuple variable indexed).
pub(super) fn tuple_tensors(c: &OpCall, i: usize) -> Result<Vec<TArg>> {
    let Some(e) = c.call.args.get(i) else {
        return unsupported("missing tuple argument");
    };
    let Some(crate::ir::StructInfo::Tuple(fields)) = c.sinfo.get(i) else {
        return unsupported("argument is not a tuple");
    };
    let mut out = Vec::new();
    for (j, si) in fields.iter().enumerate() {
        let (Some(shape), Some(dt)) = (si.tensor_shape(), si.tensor_dtype()) else {
            return unsupported("tuple field of unknown shape");
        };
        let (expr, name) = match e.kind() {
            ExprKind::Tuple(items) => {
                let it = items[j].clone();
                let name = match it.kind() {
                    ExprKind::Var(v) => v.name().to_string(),
                    _ => "rxplaceholder".to_string(),
                };
                (it, name)
            }
            _ => (
                Expr::new(ExprKind::TupleGetItem(e.clone(), j)),
                "rxplaceholder".to_string(),
            ),
        };
        out.push(TArg {
            buf: te::placeholder(&name, shape, dt),
            expr,
        });
    }
    Ok(out)
}

fn concat(c: &OpCall) -> Result<Lowered> {
    let ts = tuple_tensors(c, 0)?;
    let (shape, _) = c.out_tensor()?;
    let axis = norm(c.attr_int("axis").unwrap_or(0), shape.len());
    let mut te = Te::new();
    let out = te.compute("T_concat", "ax", &shape, |i| {
        // Offsets of each input along `axis`; the last input is the default.
        let mut offs = vec![te::i64c(0)];
        for t in &ts {
            let last = offs.last().cloned().unwrap_or_else(|| te::i64c(0));
            offs.push(te::add(last, t.shape()[axis].clone()));
        }
        let at = |j: usize| {
            let mut idx = i.to_vec();
            idx[axis] = te::sub(i[axis].clone(), offs[j].clone());
            te::load(&ts[j].buf, idx)
        };
        let mut v = at(ts.len() - 1);
        for j in (0..ts.len() - 1).rev() {
            v = te::if_then_else(
                te::cmp(CmpOp::Lt, i[axis].clone(), offs[j + 1].clone()),
                at(j),
                v,
            );
        }
        v
    });
    let refs: Vec<&TArg> = ts.iter().collect();
    c.finish("concatenate", te, &refs, &[out])
}

fn split(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let n = x.ndim();
    let axis = norm(c.attr_int("axis").unwrap_or(0), n);
    let outs = match &c.out {
        crate::ir::StructInfo::Tuple(outs) => outs.clone(),
        // One section (or no split index): the result is the tensor itself, a copy here.
        single @ crate::ir::StructInfo::Tensor { .. } => vec![single.clone()],
        _ => return unsupported("split result is neither a tuple nor a tensor"),
    };
    // Where each piece starts: at its split index, clamped into the axis as the inference
    // clamps it (pieces between unsorted indices are empty); equal sections each start where
    // the previous one ended, symbolic extents too.
    let list = match c.attr("indices_or_sections") {
        Some(crate::ir::AttrValue::List(items)) => Some(
            items
                .iter()
                .map(crate::ir::AttrValue::as_int)
                .collect::<Option<Vec<i64>>>()
                .map_or_else(|| unsupported("split indices that are not integers"), Ok)?,
        ),
        _ => None,
    };
    let name = if list.is_some() {
        "T_split"
    } else {
        "T_split_sections"
    };
    let extent = x.shape()[axis].clone();
    let mut te = Te::new();
    let mut bufs = Vec::new();
    let mut start = te::i64c(0);
    for (j, o) in outs.iter().enumerate() {
        let Some(shape) = o.tensor_shape() else {
            return unsupported("split output of unknown shape");
        };
        let Some(len) = shape.get(axis) else {
            return unsupported("split output of another rank than its input");
        };
        if let (Some(list), 1..) = (&list, j) {
            let at = te::i64c(list.get(j - 1).copied().unwrap_or(0));
            start = te::min(te::max(at, te::i64c(0)), extent.clone());
        }
        let at = start.clone();
        bufs.push(te.compute(name, "ax", shape, |i| {
            let mut idx = i.to_vec();
            idx[axis] = te::add(i[axis].clone(), at);
            te::load(&x.buf, idx)
        }));
        start = te::add(start, len.clone());
    }
    c.finish("split", te, &[&x], &bufs)
}

fn stack(c: &OpCall) -> Result<Lowered> {
    let ts = tuple_tensors(c, 0)?;
    let (shape, _) = c.out_tensor()?;
    let axis = norm(c.attr_int("axis").unwrap_or(0), shape.len());
    let mut te = Te::new();
    let out = te.compute("T_stack", "ax", &shape, |i| {
        let mut idx = i.to_vec();
        idx.remove(axis);
        let mut v = te::load(&ts[0].buf, idx.clone());
        for (j, t) in ts.iter().enumerate().skip(1) {
            v = te::if_then_else(
                te::cmp(CmpOp::Eq, i[axis].clone(), te::i64c(j as i64)),
                te::load(&t.buf, idx.clone()),
                v,
            );
        }
        v
    });
    let refs: Vec<&TArg> = ts.iter().collect();
    c.finish("stack", te, &refs, &[out])
}

/// `R.dynamic_strided_slice`: a call of the runtime's `relaxjit.dynamic_strided_slice`, which
/// computes the output shape from the begin, end and stride tensors' values and allocates
/// the result (TVM emits a shape function, converts its result to a shape, match_casts it
/// to fresh variables and passes those to a kernel; the runtime function does the three at
/// once).
fn dynamic_strided_slice(c: &OpCall) -> Result<Lowered> {
    let value = crate::transform::call_pure_packed(
        "relaxjit.dynamic_strided_slice",
        c.call.args.clone(),
        c.out.clone(),
    );
    // As TVM: the result match_cast to fresh dimensions, so that the operators after it
    // have a shape to legalize over.
    let crate::ir::StructInfo::Tensor {
        ndim,
        dtype: Some(dtype),
        ..
    } = &c.out
    else {
        return Ok(Lowered::Expr(value));
    };
    let Ok(ndim) = usize::try_from(*ndim) else {
        return Ok(Lowered::Expr(value));
    };
    let dims = (0..ndim)
        .map(|i| PrimExpr::from(&Var::new(format!("s{i}"), DataType::INT64)))
        .collect();
    Ok(Lowered::MatchCast {
        value,
        struct_info: crate::ir::StructInfo::tensor(dims, *dtype),
    })
}

fn strided_slice(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let n = x.ndim();
    let get = |i: usize| c.call.args.get(i).and_then(ints_of);
    let (Some(axes), Some(begin)) = (get(1), get(2)) else {
        return unsupported("strided_slice with non-constant axes or begin");
    };
    let strides = match c.call.args.get(4) {
        None => vec![1; axes.len()],
        Some(_) => match get(4) {
            Some(s) => s,
            None => return unsupported("strided_slice with non-constant strides"),
        },
    };
    let (shape, _) = c.out_tensor()?;
    let mut te = Te::new();
    let out = te.compute("T_strided_slice_with_axes", "ax", &shape, |i| {
        let mut idx = i.to_vec();
        for (j, &a) in axes.iter().enumerate() {
            let d = norm(a, n);
            let st = strides.get(j).copied().unwrap_or(1);
            let dim = x.shape()[d].clone();
            let b = begin.get(j).copied().unwrap_or(0);
            // A negative begin counts from the end; then it is clamped into the axis (for a
            // negative stride, onto its last element: an empty axis has none, and the result
            // is empty along it). Folds to a literal on a static axis.
            let b = if b < 0 {
                te::add(dim.clone(), te::i64c(b))
            } else {
                te::i64c(b)
            };
            let hi = if st < 0 {
                te::max(te::sub(dim, te::i64c(1)), te::i64c(0))
            } else {
                dim
            };
            let b = te::min(te::max(b, te::i64c(0)), hi);
            idx[d] = te::add(te::mul(i[d].clone(), te::i64c(st)), b);
        }
        te::load(&x.buf, idx)
    });
    c.finish("strided_slice", te, &[&x], &[out])
}

fn take(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (shape, _) = c.out_tensor()?;
    let axis = match c.attr("axis") {
        Some(crate::ir::AttrValue::None) | None => None,
        Some(v) => v.as_int().map(|a| norm(a, x.ndim())),
    };
    // Without an axis TOPI's `take` indexes the flattened data; inference only lets 1-D data
    // through (TVM 0.27's does the same), for which that is axis 0.
    let axis = match axis {
        Some(axis) => axis,
        None if x.ndim() == 1 => 0,
        None => return unsupported("take without an axis of data that is not 1-D"),
    };
    let mode = c.attr_str("mode").unwrap_or("fast").to_string();
    let dim = x.shape()[axis].clone();
    // The index along the axis, as `mode` reads it.
    let normalized = |iv: PrimExpr, dt: DataType| match mode.as_str() {
        "clip" => te::min(
            te::max(iv, te::zero(dt)),
            te::sub(te::cast(dt, dim.clone()), te::one(dt)),
        ),
        "wrap" => te::floormod(iv, te::cast(dt, dim.clone())),
        _ => iv,
    };
    // One index that is a prim value (an `R.Prim("int64")` parameter): the result drops the
    // axis (a tensor of indices of rank 0). In "fast" mode nothing normalizes it, so the
    // kernel first asserts that it lies in the axis, as the bounds of an index read from a
    // tensor are checked.
    let prim = matches!(c.sinfo.get(1), Some(crate::ir::StructInfo::Prim { .. }))
        .then(|| c.scalar(1))
        .flatten();
    let ind = match prim {
        Some(_) => None,
        None => Some(c.tensor(1)?),
    };
    let k = ind.as_ref().map_or(0, TArg::ndim);
    let mut te = Te::new();
    let out = te.compute("T_take", "ax", &shape, |i| {
        let iv = match (&ind, &prim) {
            (Some(ind), _) => {
                normalized(te::load(&ind.buf, i[axis..axis + k].to_vec()), ind.dtype())
            }
            (None, p) => {
                let p = p.clone().unwrap_or_else(|| te::i64c(0));
                normalized(p.clone(), p.dtype())
            }
        };
        let mut idx = i[..axis].to_vec();
        idx.push(iv);
        idx.extend(i[axis + k..].iter().cloned());
        te::load(&x.buf, idx)
    });
    let inputs: Vec<&TArg> = std::iter::once(&x).chain(&ind).collect();
    let lowered = c.finish("take", te, &inputs, &[out])?;
    match prim {
        Some(iv) if mode == "fast" => {
            let dt = iv.dtype();
            let inside = PrimExpr::new(tir::ExprKind::And(
                te::cmp(CmpOp::Ge, iv.clone(), te::zero(dt)),
                te::cmp(CmpOp::Lt, iv, te::cast(dt, dim)),
            ));
            Ok(super::assert_first(
                lowered,
                inside,
                format!(
                    "the index is outside axis {axis} of a tensor of shape {}",
                    crate::op::common::shape_str(x.shape())
                ),
            ))
        }
        _ => Ok(lowered),
    }
}

fn broadcast_to(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (shape, _) = c.out_tensor()?;
    let mut te = Te::new();
    let out = te.compute("T_broadcast_to", "ax", &shape, |i| {
        te::load(&x.buf, bcast_index(x.shape(), &shape, i))
    });
    c.finish("broadcast_to", te, &[&x], &[out])
}

fn tile(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (shape, _) = c.out_tensor()?;
    let off = shape.len().saturating_sub(x.ndim());
    let mut te = Te::new();
    let out = te.compute("T_tile", "ax", &shape, |i| {
        let idx = x
            .shape()
            .iter()
            .enumerate()
            .map(|(d, s)| te::floormod(i[d + off].clone(), s.clone()))
            .collect();
        te::load(&x.buf, idx)
    });
    c.finish("tile", te, &[&x], &[out])
}

fn flip(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let axis = norm(c.attr_int("axis").unwrap_or(0), x.ndim());
    let mut te = Te::new();
    let out = te.compute("T_reverse_sequence", "ax", x.shape(), |i| {
        let mut idx = i.to_vec();
        idx[axis] = te::sub(
            te::sub(x.shape()[axis].clone(), te::i64c(1)),
            i[axis].clone(),
        );
        te::load(&x.buf, idx)
    });
    c.finish("flip", te, &[&x], &[out])
}

fn gather_elements(c: &OpCall) -> Result<Lowered> {
    let (x, ind) = (c.tensor(0)?, c.tensor(1)?);
    let axis = norm(c.attr_int("axis").unwrap_or(0), x.ndim());
    let mut te = Te::new();
    let out = te.compute("T_gather", "ax", ind.shape(), |i| {
        let mut idx = i.to_vec();
        idx[axis] = te::load(&ind.buf, i.to_vec());
        te::load(&x.buf, idx)
    });
    c.finish("gather", te, &[&x, &ind], &[out])
}

/// Nested serial loops over `shape` around `body(indices)`.
fn loop_nest(shape: &[PrimExpr], prefix: &str, body: impl FnOnce(&[PrimExpr]) -> Stmt) -> Stmt {
    let vars: Vec<Var> = (0..shape.len())
        .map(|d| Var::new(format!("{prefix}{d}"), DataType::INT64))
        .collect();
    let idx: Vec<PrimExpr> = vars.iter().map(PrimExpr::from).collect();
    let mut s = body(&idx);
    for (v, e) in vars.iter().zip(shape).rev() {
        s = te::for_loop(v, e.clone(), ForKind::Serial, s);
    }
    s
}

/// TVM's generic scatter: copy the data, then write each update in order (later updates win,
/// negative indices count from the end).
fn scatter_elements(c: &OpCall) -> Result<Lowered> {
    let (x, ind, upd) = (c.tensor(0)?, c.tensor(1)?, c.tensor(2)?);
    let axis = norm(c.attr_int("axis").unwrap_or(0), x.ndim());
    let reduction = c.attr_str("reduction").unwrap_or("update").to_string();
    let out = te::placeholder("out_buf", x.shape(), x.dtype());
    let copy = loop_nest(x.shape(), "i", |i| {
        te::store(&out, i.to_vec(), te::load(&x.buf, i.to_vec()))
    });
    let dim = x.shape()[axis].clone();
    let scatter = loop_nest(ind.shape(), "j", |j| {
        let raw = te::cast(DataType::INT64, te::load(&ind.buf, j.to_vec()));
        let fixed = te::select(
            te::cmp(CmpOp::Lt, raw.clone(), te::i64c(0)),
            te::add(raw.clone(), dim.clone()),
            raw,
        );
        let mut idx = j.to_vec();
        idx[axis] = fixed;
        let u = te::load(&upd.buf, j.to_vec());
        let cur = te::load(&out, idx.clone());
        let v = match reduction.as_str() {
            "add" => te::add(cur, u),
            "mul" => te::mul(cur, u),
            "max" => te::max(cur, u),
            "min" => te::min(cur, u),
            _ => u,
        };
        te::store(&out, idx, v)
    });
    let mut te = Te::new();
    te.opaque(
        "scatter_elements_generic",
        vec![out.clone()],
        Stmt::seq(vec![copy, scatter]),
    );
    c.finish("scatter_elements", te, &[&x, &ind, &upd], &[out])
}

/// `R.layout_transform` with TVM's semantics (its legalization is `sch.transform_layout` with
/// `pad_value`, 0 when `None`): an output element that is the image of an input element under
/// the index map holds that element, every other one (padding) holds the pad value. Lowered as
/// one opaque block, like `scatter_elements`: when the output may have more elements than the
/// input, a loop nest fills it with the pad value; then a loop nest over the input stores
/// `out[map(i)] = x[i]` (stores are bounds-checked at run time, so a map that leaves the
/// output is an error, not a stray write). The axis separators change nothing on flat buffers.
fn layout_transform(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (shape, dt) = c.out_tensor()?;
    let Some(AttrValue::IndexMap(map)) = c.attr("index_map") else {
        return unsupported("the index_map attribute is not `T.index_map(lambda ...)`");
    };
    if map.params.len() != x.ndim() || map.results.len() != shape.len() {
        return unsupported(format!(
            "the index map takes {} indices to {}, but the input has rank {} and the output {}",
            map.params.len(),
            map.results.len(),
            x.ndim(),
            shape.len()
        ));
    }
    let pad = match c.attr("pad_value") {
        Some(AttrValue::PrimValue(p)) => te::cast(dt, p.clone()),
        _ => te::zero(dt),
    };
    let out = te::placeholder("te_layout_transform", &shape, dt);
    let padded =
        !crate::struct_info_ops::prove_equal(&te::product(&shape), &te::product(x.shape()));
    let mut body = Vec::new();
    if padded {
        body.push(loop_nest(&shape, "ax", |i| {
            te::store(&out, i.to_vec(), pad)
        }));
    }
    body.push(loop_nest(x.shape(), "i", |i| {
        te::store(&out, map.apply(i), te::load(&x.buf, i.to_vec()))
    }));
    let name = if padded {
        "te_layout_transform_with_pad"
    } else {
        "te_layout_transform"
    };
    let mut te = Te::new();
    te.opaque(name, vec![out.clone()], Stmt::seq(body));
    c.finish(name, te, &[&x], &[out])
}

fn one_hot(c: &OpCall) -> Result<Lowered> {
    let ind = c.tensor(0)?;
    let (shape, dt) = c.out_tensor()?;
    let axis = norm(c.attr_int("axis").unwrap_or(-1), shape.len());
    let val = |i: usize| -> Result<PrimExpr> {
        match c.call.args.get(i).map(|e| e.kind()) {
            Some(ExprKind::PrimValue(p)) => Ok(te::cast(dt, p.clone())),
            _ => unsupported("one_hot on/off values must be prim values"),
        }
    };
    let (on, off) = (val(1)?, val(2)?);
    let mut te = Te::new();
    let out = te.compute("T_one_hot", "ax", &shape, |i| {
        let mut idx = i.to_vec();
        let k = idx.remove(axis);
        te::select(
            te::cmp(
                CmpOp::Eq,
                te::cast(DataType::INT64, te::load(&ind.buf, idx)),
                k,
            ),
            on,
            off,
        )
    });
    c.finish("one_hot", te, &[&ind], &[out])
}

fn trilu(c: &OpCall, upper: bool) -> Result<Lowered> {
    let x = c.tensor(0)?;
    // The diagonal offset: a literal, or a symbolic value read at run time.
    let k = match c.call.args.get(1).map(|e| e.kind()) {
        Some(ExprKind::PrimValue(p)) => te::cast(DataType::INT64, p.clone()),
        Some(_) => return unsupported("tril/triu with an offset that is not a prim value"),
        None => te::i64c(c.attr_int("k").unwrap_or(0)),
    };
    let n = x.ndim();
    if n < 2 {
        return unsupported("tril/triu of a tensor of rank < 2");
    }
    let mut te = Te::new();
    let out = te.compute("trilu", "i", x.shape(), |i| {
        let (r, col) = (i[n - 2].clone(), i[n - 1].clone());
        let cond = if upper {
            // col - row >= k  ⇔  row + k <= col; TVM prints `row < col` for k = 1.
            if k.as_int() == Some(1) {
                te::cmp(CmpOp::Lt, r, col)
            } else {
                te::cmp(CmpOp::Le, te::add(r, k.clone()), col)
            }
        } else if k.as_int() == Some(0) {
            te::cmp(CmpOp::Le, col, r)
        } else {
            te::cmp(CmpOp::Le, col, te::add(r, k.clone()))
        };
        te::select(cond, te::load(&x.buf, i.to_vec()), te::zero(x.dtype()))
    });
    let name = if upper { "triu" } else { "tril" };
    c.finish(name, te, &[&x], &[out])
}

/// `repeat(x, repeats, axis)`: each element repeated `repeats` times along `axis`; without an
/// axis, over the flattened tensor (TVM: `topi.repeat(reshape(x, (-1,)), repeats, 0)`).
fn repeat(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let Some(r) = c.attr_int("repeats") else {
        return unsupported("repeat: `repeats` must be an integer");
    };
    if r <= 0 {
        return unsupported(format!("repeat: repeats={r} (must be positive)"));
    }
    let (shape, _) = c.out_tensor()?;
    let axis = c.attr_int("axis");
    let mut te = Te::new();
    let out = te.compute("T_repeat", "ax", &shape, |i| {
        let idx = match axis {
            Some(a) => {
                let a = norm(a, x.ndim());
                let mut idx = i.to_vec();
                if let Some(v) = idx.get_mut(a) {
                    *v = te::floordiv(v.clone(), te::i64c(r));
                }
                idx
            }
            None => {
                let flat = te::floordiv(i[0].clone(), te::i64c(r));
                unravel(flat, x.shape())
            }
        };
        te::load(&x.buf, idx)
    });
    c.finish("repeat", te, &[&x], &[out])
}

/// The row-major multi-index of the flat position `flat` in `shape`.
fn unravel(flat: PrimExpr, shape: &[PrimExpr]) -> Vec<PrimExpr> {
    let mut idx = Vec::with_capacity(shape.len());
    let mut stride = te::i64c(1);
    for d in shape.iter().rev() {
        idx.push(te::floormod(
            te::floordiv(flat.clone(), stride.clone()),
            d.clone(),
        ));
        stride = te::mul(stride, d.clone());
    }
    idx.reverse();
    idx
}

/// `collapse_sum_to(x, shape)` / `collapse_sum_like(x, target)`: sums `x` over the axes that
/// numpy broadcasting would expand from the target shape (leading axes, and axes where the
/// target has extent 1).
fn collapse_sum(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (shape, _) = c.out_tensor()?;
    let xn = x.ndim();
    let Some(off) = xn.checked_sub(shape.len()) else {
        return unsupported("collapse_sum: the target has a higher rank than the data");
    };
    // For each data axis: Some(output axis) when kept, None when summed.
    let mut kept: Vec<Option<usize>> = Vec::with_capacity(xn);
    let mut raxes = Vec::new();
    for (d, ext) in x.shape().iter().enumerate() {
        let keep = d >= off && !(shape[d - off].as_int() == Some(1) && ext.as_int() != Some(1));
        if keep {
            kept.push(Some(d - off));
        } else {
            kept.push(None);
            raxes.push((format!("k{d}"), ext.clone()));
        }
    }
    let mut te = Te::new();
    let out = te.reduce("x_red", &shape, &raxes, te::Combiner::Sum, None, |i, k| {
        let mut ks = k.iter();
        let idx: Vec<PrimExpr> = kept
            .iter()
            .map(|o| match o {
                Some(od) => i[*od].clone(),
                None => ks.next().cloned().unwrap_or_else(|| te::i64c(0)),
            })
            .collect();
        te::load(&x.buf, idx)
    });
    let name = c
        .call
        .op()
        .unwrap_or("collapse_sum")
        .trim_start_matches("relax.")
        .to_string();
    c.finish(&name, te, &[&x], &[out])
}

/// An index read from an index tensor as int64, with negative values counting from the end
/// of an axis of extent `dim`.
fn wrap_index(raw: PrimExpr, dim: &PrimExpr) -> PrimExpr {
    let raw = te::cast(DataType::INT64, raw);
    te::select(
        te::cmp(CmpOp::Lt, raw.clone(), te::i64c(0)),
        te::add(raw.clone(), dim.clone()),
        raw,
    )
}

/// The depth `M` (constant last extent) of an ONNX-style `(..., M)` index tensor.
fn index_depth(op: &str, ind: &TArg) -> Result<usize> {
    match ind.shape().last().and_then(PrimExpr::as_int) {
        Some(m) if m >= 0 => Ok(m as usize),
        _ => unsupported(format!(
            "{op}: the last extent of the indices must be a known constant"
        )),
    }
}

/// `gather_nd(data, indices, batch_dims)` (ONNX layout: `indices` is `(..., M)`).
fn gather_nd(c: &OpCall) -> Result<Lowered> {
    let (x, ind) = (c.tensor(0)?, c.tensor(1)?);
    let b = c.attr_int("batch_dims").unwrap_or(0).max(0) as usize;
    let m = index_depth("gather_nd", &ind)?;
    let k = ind.ndim().saturating_sub(1);
    if b + m > x.ndim() || b > k {
        return unsupported(format!("gather_nd: batch_dims={b} with index depth {m}"));
    }
    let (shape, _) = c.out_tensor()?;
    let mut te = Te::new();
    let out = te.compute("T_gather_nd", "ax", &shape, |o| {
        let mut idx: Vec<PrimExpr> = o[..b].to_vec();
        for j in 0..m {
            let mut ii = o[..k].to_vec();
            ii.push(te::i64c(j as i64));
            idx.push(wrap_index(te::load(&ind.buf, ii), &x.shape()[b + j]));
        }
        idx.extend(o[k..].iter().cloned());
        te::load(&x.buf, idx)
    });
    c.finish("gather_nd", te, &[&x, &ind], &[out])
}

/// `scatter_nd(data, indices, updates, reduction)`: a copy of the data, then each update
/// written in order (later updates win for `update`).
fn scatter_nd(c: &OpCall) -> Result<Lowered> {
    let (x, ind, upd) = (c.tensor(0)?, c.tensor(1)?, c.tensor(2)?);
    let m = index_depth("scatter_nd", &ind)?;
    let k = ind.ndim().saturating_sub(1);
    let reduction = c.attr_str("reduction").unwrap_or("update").to_string();
    if !matches!(reduction.as_str(), "update" | "add" | "mul" | "max" | "min") {
        return unsupported(format!("scatter_nd: reduction=\"{reduction}\""));
    }
    if m > x.ndim() || upd.ndim() != k + x.ndim() - m {
        return unsupported("scatter_nd: updates do not match indices and data");
    }
    let out = te::placeholder("out_buf", x.shape(), x.dtype());
    let copy = loop_nest(x.shape(), "i", |i| {
        te::store(&out, i.to_vec(), te::load(&x.buf, i.to_vec()))
    });
    let scatter = loop_nest(upd.shape(), "j", |j| {
        let mut idx = Vec::with_capacity(x.ndim());
        for d in 0..m {
            let mut ii = j[..k].to_vec();
            ii.push(te::i64c(d as i64));
            idx.push(wrap_index(te::load(&ind.buf, ii), &x.shape()[d]));
        }
        idx.extend(j[k..].iter().cloned());
        let u = te::load(&upd.buf, j.to_vec());
        let cur = te::load(&out, idx.clone());
        let v = match reduction.as_str() {
            "add" => te::add(cur, u),
            "mul" => te::mul(cur, u),
            "max" => te::max(cur, u),
            "min" => te::min(cur, u),
            _ => u,
        };
        te::store(&out, idx, v)
    });
    let mut te = Te::new();
    te.opaque(
        "scatter_nd_generic",
        vec![out.clone()],
        Stmt::seq(vec![copy, scatter]),
    );
    c.finish("scatter_nd", te, &[&x, &ind, &upd], &[out])
}

/// `reverse_sequence(data, seq_lengths, seq_axis, batch_axis)`: along `seq_axis`, the first
/// `seq_lengths[b]` elements of batch `b` reversed, the rest kept (`T_reverse_sequence`).
fn reverse_sequence(c: &OpCall) -> Result<Lowered> {
    let (x, lens) = (c.tensor(0)?, c.tensor(1)?);
    let n = x.ndim();
    let seq = norm(c.attr_int("seq_axis").unwrap_or(1), n);
    let batch = norm(c.attr_int("batch_axis").unwrap_or(0), n);
    if seq >= n || batch >= n || seq == batch || lens.ndim() != 1 {
        return unsupported(format!(
            "reverse_sequence: seq_axis={seq}, batch_axis={batch} of a rank-{n} tensor"
        ));
    }
    let mut te = Te::new();
    let out = te.compute("T_reverse_sequence", "ax", x.shape(), |i| {
        let len = te::cast(i[seq].dtype(), te::load(&lens.buf, vec![i[batch].clone()]));
        // The index is selected (not the value), so no read is ever out of bounds.
        let mut idx = i.to_vec();
        idx[seq] = te::select(
            te::cmp(CmpOp::Lt, i[seq].clone(), len.clone()),
            te::sub(te::sub(len, te::i64c(1)), i[seq].clone()),
            i[seq].clone(),
        );
        te::load(&x.buf, idx)
    });
    c.finish("reverse_sequence", te, &[&x, &lens], &[out])
}

/// `size(x)`: the number of elements, a prim value (the product of the known shape).
/// `R.size(x)`: the product of `x`'s shape in a scalar int64 tensor (TVM legalizes it to
/// `prod(shape_to_tensor(shape_of(x)))`; one kernel reading `x`'s shape does the same).
fn size(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let n = x.shape().iter().fold(te::i64c(1), |acc, d| {
        te::mul(acc, te::cast(DataType::INT64, d.clone()))
    });
    let mut te = Te::new();
    let out = te.compute("T_size", "ax", &[], |_| n);
    c.finish("size", te, &[&x], &[out])
}

/// `R.meshgrid(tensors, indexing)`, TVM's `topi.meshgrid`: grid `i` holds `tensors[i][p[i]]`
/// at position `p`, with the first two positions exchanged for `indexing="xy"`.
fn meshgrid(c: &OpCall) -> Result<Lowered> {
    let ts = tuple_tensors(c, 0)?;
    let xy = c.attr_str("indexing") == Some("xy") && ts.len() >= 2;
    let outs = match &c.out {
        crate::ir::StructInfo::Tuple(outs) if outs.len() == ts.len() => outs.clone(),
        _ => return unsupported("meshgrid result is not a tuple of one grid per input"),
    };
    let mut te = Te::new();
    let mut bufs = Vec::new();
    for (i, (t, o)) in ts.iter().zip(&outs).enumerate() {
        let Some(shape) = o.tensor_shape() else {
            return unsupported("meshgrid output of unknown shape");
        };
        let src = if xy && i < 2 { 1 - i } else { i };
        bufs.push(te.compute("T_meshgrid", "ax", shape, |p| {
            te::load(&t.buf, vec![p[src].clone()])
        }));
    }
    let refs: Vec<&TArg> = ts.iter().collect();
    c.finish("meshgrid", te, &refs, &bufs)
}
