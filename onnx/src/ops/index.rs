//! Indexing and data movement beyond [`super::shape`]: DepthToSpace and SpaceToDepth (a
//! reshape, a transpose and a reshape), GatherND, the scatters, OneHot, EyeLike, NonZero and
//! Compress, as TVM's frontend converts them.

use relax::ir::{AttrValue, Attrs, Expr, StructInfo};
use tir::{BinaryOp, DataType, PrimExpr};

use super::shape::from_end;
use super::{attrs, dtype_of, ints, norm_axis, rank, shape_expr, shape_of};
use crate::error::Result;
use crate::importer::{Importer, Val};
use crate::node::{Node, or_str};

fn times(a: &PrimExpr, k: i64) -> PrimExpr {
    tir::arith::simplify(&PrimExpr::binary(
        BinaryOp::Mul,
        a.clone(),
        PrimExpr::i64(k),
    ))
}

fn over(a: &PrimExpr, k: i64) -> PrimExpr {
    tir::arith::simplify(&PrimExpr::binary(
        BinaryOp::FloorDiv,
        a.clone(),
        PrimExpr::i64(k),
    ))
}

fn reshape(imp: &mut Importer, x: &Val, dims: Vec<PrimExpr>) -> Result<Val> {
    imp.op(
        "relax.reshape",
        vec![x.expr.clone(), shape_expr(dims)],
        Attrs::new(),
    )
}

fn permute(imp: &mut Importer, x: &Val, axes: &[i64]) -> Result<Val> {
    imp.op(
        "relax.permute_dims",
        vec![x.expr.clone()],
        attrs(&[("axes", ints(axes))]),
    )
}

/// The required positive `blocksize` and the `(N, C, H, W)` dimensions of input 0.
fn blocks(node: &Node) -> Result<(i64, Vec<PrimExpr>)> {
    let bs = node
        .opt_i("blocksize")?
        .ok_or_else(|| node.invalid("attribute `blocksize` is missing"))?;
    if bs <= 0 {
        return Err(node.invalid(format!("blocksize {bs} is not positive")));
    }
    let s = shape_of(node, node.input(0)?)?;
    if s.len() != 4 {
        return Err(node.unsupported(format!(
            "a rank-{} input (the operator takes N, C, H, W)",
            s.len()
        )));
    }
    Ok((bs, s))
}

/// A known extent that `k` does not divide is an import error naming it.
fn check_divides(node: &Node, what: &str, d: &PrimExpr, k: i64) -> Result<()> {
    match d.as_int() {
        Some(v) if v % k != 0 => Err(node.invalid(format!("{what} {v} is not a multiple of {k}"))),
        _ => Ok(()),
    }
}

pub(crate) fn depth_to_space(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let (bs, s) = blocks(node)?;
    let mode = if node.opset >= 11 {
        or_str(node.attr_s("mode")?, "DCR")
    } else {
        "DCR".to_string()
    };
    let (b, c, h, w) = (&s[0], &s[1], &s[2], &s[3]);
    check_divides(node, "the channel count", c, bs * bs)?;
    let c2 = over(c, bs * bs);
    let k = PrimExpr::i64(bs);
    let (dims, perm) = match mode.as_str() {
        "DCR" => (
            vec![b.clone(), k.clone(), k, c2.clone(), h.clone(), w.clone()],
            [0, 3, 4, 1, 5, 2],
        ),
        "CRD" => (
            vec![b.clone(), c2.clone(), k.clone(), k, h.clone(), w.clone()],
            [0, 1, 4, 2, 5, 3],
        ),
        m => return Err(node.unsupported(format!("mode `{m}` (DCR or CRD)"))),
    };
    let y = reshape(imp, x, dims)?;
    let y = permute(imp, &y, &perm)?;
    reshape(imp, &y, vec![b.clone(), c2, times(h, bs), times(w, bs)])
}

pub(crate) fn space_to_depth(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let (bs, s) = blocks(node)?;
    let (b, c, h, w) = (&s[0], &s[1], &s[2], &s[3]);
    check_divides(node, "the height", h, bs)?;
    check_divides(node, "the width", w, bs)?;
    let (h2, w2) = (over(h, bs), over(w, bs));
    let k = PrimExpr::i64(bs);
    let y = reshape(
        imp,
        x,
        vec![b.clone(), c.clone(), h2.clone(), k.clone(), w2.clone(), k],
    )?;
    let y = permute(imp, &y, &[0, 3, 5, 1, 2, 4])?;
    reshape(imp, &y, vec![b.clone(), times(c, bs * bs), h2, w2])
}

/// Index tensors must be int64 (the spec's only index type for these operators).
fn int64_indices<'v>(node: &Node, v: &'v Val) -> Result<&'v Val> {
    match dtype_of(node, v)? {
        DataType::INT64 => Ok(v),
        dt => Err(node.invalid(format!("indices of type {dt} (int64 is required)"))),
    }
}

pub(crate) fn gather_nd(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let ind = int64_indices(node, node.input(1)?)?;
    let batch_dims = if node.opset >= 12 {
        node.attr_i("batch_dims", 0)?
    } else {
        0
    };
    let (r, q) = (rank(node, x)?, rank(node, ind)?);
    if batch_dims < 0 || batch_dims as usize >= r.min(q) {
        return Err(node.invalid(format!(
            "batch_dims {batch_dims} is outside [0, min(rank of data {r}, rank of indices {q}))"
        )));
    }
    imp.op(
        "relax.gather_nd",
        vec![x.expr.clone(), ind.expr.clone()],
        attrs(&[("batch_dims", AttrValue::Int(batch_dims))]),
    )
}

/// The `reduction` attribute of ScatterND and ScatterElements: none (Relax's `update`), add
/// and mul from opset 16, max and min from 18.
fn reduction(node: &Node) -> Result<String> {
    if node.opset < 16 {
        return Ok("update".into());
    }
    let r = or_str(node.attr_s("reduction")?, "none");
    let ok: &[&str] = if node.opset >= 18 {
        &["none", "add", "mul", "max", "min"]
    } else {
        &["none", "add", "mul"]
    };
    if !ok.contains(&r.as_str()) {
        return Err(node.unsupported(format!("reduction `{r}`")));
    }
    Ok(if r == "none" { "update".into() } else { r })
}

pub(crate) fn scatter(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let ind = node.input(1)?;
    let upd = node.input(2)?;
    let args = vec![x.expr.clone(), ind.expr.clone(), upd.expr.clone()];
    if node.op == "ScatterND" {
        let red = reduction(node)?;
        int64_indices(node, ind)?;
        return imp.op(
            "relax.scatter_nd",
            args,
            attrs(&[("reduction", AttrValue::Str(red))]),
        );
    }
    if node.op == "Scatter" && node.opset >= 11 {
        return Err(node.unsupported("Scatter is deprecated since opset 11 (use ScatterElements)"));
    }
    let red = if node.op == "Scatter" {
        "update".to_string()
    } else {
        reduction(node)?
    };
    let axis = norm_axis(node, node.attr_i("axis", 0)?, rank(node, x)?)?;
    imp.op(
        "relax.scatter_elements",
        args,
        attrs(&[
            ("axis", AttrValue::Int(axis as i64)),
            ("reduction", AttrValue::Str(red)),
        ]),
    )
}

/// A prim value of `dt` holding `v`.
fn prim_of(dt: DataType, v: f64) -> Expr {
    Expr::prim(if dt.is_float() {
        PrimExpr::float(dt, v)
    } else if dt.is_bool() {
        PrimExpr::bool(v != 0.0)
    } else {
        PrimExpr::int(dt, v as i64)
    })
}

pub(crate) fn one_hot(imp: &mut Importer, node: &Node) -> Result<Val> {
    let ind = node.input(0)?;
    let depth = match node.input(1)?.floats().as_deref() {
        Some([d]) => *d as i64,
        Some(_) => return Err(node.invalid("depth must have exactly one element")),
        None => return Err(node.unsupported("a depth computed at run time")),
    };
    if depth < 1 {
        return Err(node.invalid(format!("depth {depth} is not positive")));
    }
    let values = node.input(2)?;
    let (off, on) = match values.floats().as_deref() {
        Some([off, on]) => (*off, *on),
        Some(v) => {
            return Err(node.invalid(format!(
                "values has {} elements (off and on values are two)",
                v.len()
            )));
        }
        None => return Err(node.unsupported("values computed at run time")),
    };
    let dt = dtype_of(node, values)?;
    let r = rank(node, ind)?;
    let axis = norm_axis(node, node.attr_i("axis", -1)?, r + 1)?;
    // ONNX counts negative indices from the end of the depth; Relax's one_hot does not.
    let ind = from_end(imp, node, ind, depth)?;
    imp.op(
        "relax.one_hot",
        vec![ind.expr.clone(), prim_of(dt, on), prim_of(dt, off)],
        attrs(&[
            ("depth", AttrValue::Int(depth)),
            ("axis", AttrValue::Int(axis as i64)),
        ]),
    )
}

pub(crate) fn eye_like(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    if rank(node, x)? != 2 {
        return Err(node.invalid(format!(
            "a rank-{} input (EyeLike takes 2-D)",
            rank(node, x)?
        )));
    }
    let k = node.attr_i("k", 0)?;
    let dt = match node.opt_i("dtype")? {
        Some(code) => crate::tensor::tir_dtype(
            crate::tensor::vm_dtype(code as i32)
                .map_err(|_| node.unsupported(format!("dtype {code}")))?,
        )?,
        None => dtype_of(node, x)?,
    };
    imp.op(
        "relax.eye_like",
        vec![x.expr.clone(), Expr::prim(PrimExpr::i64(k))],
        attrs(&[("dtype", AttrValue::DType(dt))]),
    )
}

/// `R.nonzero(x)` with its run-time count bound to a fresh dimension: `(rank, n)` int64.
fn nonzero_of(imp: &mut Importer, node: &Node, x: &Val) -> Result<Val> {
    let r = rank(node, x)?;
    if r == 0 {
        return Err(node.unsupported("a rank-0 input"));
    }
    let nz = imp.op0("relax.nonzero", &[x])?;
    let n = imp.fresh_dim("nonzero");
    let si = StructInfo::tensor(vec![PrimExpr::i64(r as i64), n.into()], DataType::INT64);
    let var = imp
        .bb
        .match_cast(nz.expr, si.clone())
        .map_err(|e| imp.relax_error(e))?;
    Ok(Val::new(Expr::var(&var), si))
}

pub(crate) fn nonzero(imp: &mut Importer, node: &Node) -> Result<Val> {
    nonzero_of(imp, node, node.input(0)?)
}

pub(crate) fn compress(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let cond = node.input(1)?;
    if dtype_of(node, cond)? != DataType::BOOL || rank(node, cond)? != 1 {
        return Err(node.invalid("the condition must be a 1-D bool tensor"));
    }
    let nz = nonzero_of(imp, node, cond)?;
    let n = shape_of(node, &nz)?[1].clone();
    let idx = reshape(imp, &nz, vec![n])?;
    let (x, axis) = match node.opt_i("axis")? {
        Some(a) => (x.clone(), norm_axis(node, a, rank(node, x)?)?),
        None => {
            let n = shape_of(node, x)?.iter().fold(PrimExpr::i64(1), |a, d| {
                PrimExpr::binary(BinaryOp::Mul, a, d.clone())
            });
            (reshape(imp, x, vec![tir::arith::simplify(&n)])?, 0)
        }
    };
    imp.op(
        "relax.take",
        vec![x.expr.clone(), idx.expr.clone()],
        attrs(&[("axis", AttrValue::Int(axis as i64))]),
    )
}

/// `e` bound with struct info `si` (its shape read when it runs).
fn cast_to(imp: &mut Importer, e: Expr, si: StructInfo) -> Result<Val> {
    let var = imp
        .bb
        .match_cast(e, si.clone())
        .map_err(|e| imp.relax_error(e))?;
    Ok(Val::new(Expr::var(&var), si))
}

/// Unique as `R.unique`, asking for the index, inverse and counts outputs only when the node
/// has them; the number of unique values (along `axis`, or of the flattened input) is a
/// fresh dimension.
pub(crate) fn unique(imp: &mut Importer, node: &Node) -> Result<Vec<Val>> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let dt = dtype_of(node, x)?;
    let sorted = node.attr_i("sorted", 1)? != 0;
    let axis = match node.opt_i("axis")? {
        Some(a) => Some(norm_axis(node, a, r)?),
        None => None,
    };
    if r == 0 {
        return Err(node.unsupported("a rank-0 input"));
    }
    let n_out = node.proto.output.len();
    let flag = |v: bool| Expr::prim(PrimExpr::bool(v));
    let mut args = vec![
        x.expr.clone(),
        flag(sorted),
        flag(n_out > 1),
        flag(n_out > 2),
        flag(n_out > 3),
    ];
    if let Some(a) = axis {
        args.push(Expr::prim(PrimExpr::i64(a as i64)));
    }
    let u = imp.op("relax.unique", args, Attrs::new())?;
    let k: PrimExpr = imp.fresh_dim("unique").into();
    let y_shape = match axis {
        None => vec![k.clone()],
        Some(a) => {
            let mut s = shape_of(node, x)?;
            s[a] = k.clone();
            s
        }
    };
    let y_si = StructInfo::tensor(y_shape, dt);
    if n_out == 1 {
        return Ok(vec![cast_to(imp, u.expr, y_si)?]);
    }
    let item = |imp: &mut Importer, i: usize| -> Result<Val> {
        imp.emit(Expr::new(relax::ir::ExprKind::TupleGetItem(
            u.expr.clone(),
            i,
        )))
    };
    let y = item(imp, 0)?;
    let mut outs = vec![cast_to(imp, y.expr, y_si)?];
    for i in 1..n_out.min(4) {
        let v = item(imp, i)?;
        let n: PrimExpr = if i == 2 {
            imp.fresh_dim("inverse").into()
        } else {
            k.clone()
        };
        outs.push(cast_to(
            imp,
            v.expr,
            StructInfo::tensor(vec![n], DataType::INT64),
        )?);
    }
    Ok(outs)
}
