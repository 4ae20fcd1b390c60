//! Reductions (`R.sum`, `R.mean`, `R.max`, `R.std`, ...), `R.argmax`/`R.argmin` and scans
//! (`R.cumsum`, `R.cumprod`).

use tir::{DataType, PrimExpr};

use crate::Result;
use crate::ir::{AttrValue, Attrs, Call, Expr, StructInfo};
use crate::op::common::{
    TensorInfo, attr_bool, attr_opt_dtype, attr_opt_int, attr_opt_int_list, check_arity, dim,
    normalize_axes, normalize_axis, product, tensor_arg,
};

/// The result of reducing `x` over `axes` (`None`: all axes).
fn reduce(
    call: &Call,
    x: &TensorInfo,
    axes: Option<&[i64]>,
    keepdims: bool,
    dtype: Option<DataType>,
) -> Result<StructInfo> {
    let Some(ndim) = x.ndim() else {
        // Unknown rank: the result's rank is unknown too, unless everything is reduced away.
        return Ok(match (axes, keepdims) {
            (None, false) => x.with_shape(Vec::new(), dtype),
            _ => x.with_ndim(-1, dtype),
        });
    };
    let reduced: Vec<usize> = match axes {
        Some(a) => normalize_axes(call, a, ndim)?,
        None => (0..ndim).collect(),
    };
    let out_ndim = if keepdims { ndim } else { ndim - reduced.len() };
    let Some(shape) = &x.shape else {
        return Ok(x.with_ndim(out_ndim as i64, dtype));
    };
    let mut out = Vec::with_capacity(out_ndim);
    for (i, d) in shape.iter().enumerate() {
        if reduced.contains(&i) {
            if keepdims {
                out.push(dim(1));
            }
        } else {
            out.push(d.clone());
        }
    }
    Ok(x.with_shape(out, dtype))
}

/// `R.sum(x, axis, keepdims)` and the other statistical reductions: the input's dtype.
pub(super) fn infer_stat(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let axes = attr_opt_int_list(call, "axis")?;
    let keepdims = attr_bool(call, "keepdims")?;
    reduce(call, &x, axes.as_deref(), keepdims, x.dtype)
}

/// `R.median`: a tensor when reducing everything, else `(values, indices)`.
pub(super) fn infer_median(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let axes = attr_opt_int_list(call, "axis")?;
    let keepdims = attr_bool(call, "keepdims")?;
    let values = reduce(call, &x, axes.as_deref(), keepdims, x.dtype)?;
    if axes.is_none() {
        return Ok(values);
    }
    let indices = reduce(call, &x, axes.as_deref(), keepdims, Some(DataType::INT64))?;
    Ok(StructInfo::Tuple(vec![values, indices]))
}

/// `R.argmax(x, axis, keepdims)`: `int64` indices.
pub(super) fn infer_argmax(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let axis = attr_opt_int(call, "axis")?;
    let keepdims = attr_bool(call, "keepdims")?;
    let axes = axis.map(|a| vec![a]);
    reduce(call, &x, axes.as_deref(), keepdims, Some(DataType::INT64))
}

/// `R.cumsum(data, axis, dtype, exclusive)`: same shape along an axis, or flattened to 1-D
/// when `axis` is `None`.
pub(super) fn infer_scan(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let dtype = attr_opt_dtype(call, "dtype")?.or(x.dtype);
    match attr_opt_int(call, "axis")? {
        Some(axis) => {
            if let Some(n) = x.ndim() {
                normalize_axis(call, axis, n)?;
            }
            Ok(x.result(x.shape.clone(), x.ndim, dtype))
        }
        None => Ok(match &x.shape {
            Some(s) => x.with_shape(vec![product(s)], dtype),
            None => x.with_ndim(1, dtype),
        }),
    }
}

/// An `int` axis of a reduction becomes a list of one, as TVM's Python wrapper does.
pub(super) fn canon_stat(_args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    if let Some(AttrValue::Int(a)) = attrs.get("axis") {
        let a = *a;
        attrs.set("axis", AttrValue::List(vec![AttrValue::Int(a)]));
    }
    if let Some(AttrValue::Expr(e)) = attrs.get("axis")
        && let Some(a) = PrimExpr::as_int(e)
    {
        attrs.set("axis", AttrValue::List(vec![AttrValue::Int(a)]));
    }
    Ok(())
}
