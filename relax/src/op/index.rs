//! Indexing: `R.take`, `R.strided_slice`, `R.dynamic_strided_slice`.

use tir::PrimExpr;

use crate::Result;
use crate::ir::{Call, StructInfo};
use crate::op::common::{
    add, attr_bool, attr_opt_int, check_arity, dim, err, floordiv, normalize_axis, sub, tensor_arg,
};
use crate::struct_info_ops::{const_value, describe};

/// `R.take(x, indices, axis)`: `x.shape[:axis] + indices.shape + x.shape[axis+1:]`; with
/// `axis=None` the data must be 1-D (of known rank), as TVM's `InferTypeTake` requires, and the
/// result has the indices' shape.
pub(super) fn infer_take(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let (ishape, indim, idtype) = match &args[1] {
        StructInfo::Tensor {
            shape, ndim, dtype, ..
        } => (shape.clone(), *ndim, *dtype),
        StructInfo::Prim { dtype, .. } => (Some(Vec::new()), 0, Some(*dtype)),
        other => {
            return Err(err(
                call,
                format!(
                    "argument 1 (indices) must be a tensor, got {}",
                    describe(other)
                ),
            ));
        }
    };
    if let Some(d) = idtype
        && !d.is_int_or_uint()
    {
        return Err(err(
            call,
            format!("argument 1 (indices) must be an integer tensor, got dtype {d}"),
        ));
    }
    let Some(axis) = attr_opt_int(call, "axis")? else {
        if x.ndim() != Some(1) {
            let rank = x.ndim().map_or("unknown".to_string(), |n| n.to_string());
            return Err(err(
                call,
                format!("without an axis the data must be 1-dimensional, got rank {rank}"),
            ));
        }
        return Ok(x.result(ishape, indim, x.dtype));
    };
    let Some(n) = x.ndim() else {
        return Ok(x.with_ndim(-1, x.dtype));
    };
    let a = normalize_axis(call, axis, n)?;
    let out_ndim = if indim >= 0 { n as i64 - 1 + indim } else { -1 };
    let (Some(xs), Some(is)) = (&x.shape, &ishape) else {
        return Ok(x.with_ndim(out_ndim, x.dtype));
    };
    let mut out: Vec<PrimExpr> = xs[..a].to_vec();
    out.extend(is.iter().cloned());
    out.extend(xs[a + 1..].iter().cloned());
    Ok(x.with_shape(out, x.dtype))
}

/// The integer values of a tuple-of-prim-values argument, each `None` where not constant.
fn int_tuple(call: &Call, args: &[StructInfo], i: usize, what: &str) -> Result<Vec<Option<i64>>> {
    match args.get(i) {
        Some(StructInfo::Tuple(fields)) => Ok(fields
            .iter()
            .map(|f| match f {
                StructInfo::Prim { value: Some(v), .. } => const_value(v),
                _ => None,
            })
            .collect()),
        Some(StructInfo::Shape {
            values: Some(v), ..
        }) => Ok(v.iter().map(const_value).collect()),
        Some(other) => Err(err(
            call,
            format!(
                "{what} must be a tuple of integers, got {}",
                describe(other)
            ),
        )),
        None => Err(err(call, format!("missing {what}"))),
    }
}

/// The number of elements of `range(begin, end, stride)` over an axis of length `n`, with
/// NumPy's clamping (or none when `inbound`).
fn slice_len(b: i64, e: i64, s: i64, n: i64, inbound: bool) -> i64 {
    let ceil_div = |a: i64, d: i64| -> i64 { (a + d - 1).div_euclid(d) };
    if inbound {
        return if s > 0 {
            ceil_div(e - b, s).max(0)
        } else {
            ceil_div(b - e, -s).max(0)
        };
    }
    let norm = |v: i64| if v < 0 { v.saturating_add(n) } else { v };
    if s > 0 {
        let b = norm(b).clamp(0, n);
        let e = norm(e).clamp(0, n);
        ceil_div(e - b, s).max(0)
    } else {
        let b = norm(b).clamp(-1, n - 1);
        let e = norm(e).clamp(-1, n - 1);
        ceil_div(b - e, -s).max(0)
    }
}

/// `R.strided_slice(x, axes, begin, end, strides, assume_inbound)` with constant bounds.
pub(super) fn infer_strided_slice(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 4, 5)?;
    let x = tensor_arg(call, args, 0)?;
    let axes = int_tuple(call, args, 1, "axes")?;
    let begin = int_tuple(call, args, 2, "begin")?;
    let end = int_tuple(call, args, 3, "end")?;
    let strides = if args.len() == 5 {
        int_tuple(call, args, 4, "strides")?
    } else {
        vec![Some(1); axes.len()]
    };
    if begin.len() != axes.len() || end.len() != axes.len() || strides.len() != axes.len() {
        return Err(err(
            call,
            format!(
                "axes, begin, end and strides must have the same length, got {}, {}, {}, {}",
                axes.len(),
                begin.len(),
                end.len(),
                strides.len()
            ),
        ));
    }
    let inbound = attr_bool(call, "assume_inbound")?;
    let Some(n) = x.ndim() else {
        return Ok(x.to_struct_info());
    };
    let mut norm_axes = Vec::with_capacity(axes.len());
    for a in &axes {
        let a = a.ok_or_else(|| err(call, "axes must be constant integers"))?;
        let k = normalize_axis(call, a, n)?;
        if norm_axes.contains(&k) {
            return Err(err(call, format!("axis {a} appears more than once")));
        }
        norm_axes.push(k);
    }
    if strides.contains(&Some(0)) {
        return Err(err(call, "strides must be non-zero"));
    }
    let Some(xs) = &x.shape else {
        return Ok(x.to_struct_info());
    };
    let mut out = xs.clone();
    for (i, &k) in norm_axes.iter().enumerate() {
        let (Some(b), Some(e), Some(s)) = (begin[i], end[i], strides[i]) else {
            return Ok(x.with_ndim(n as i64, x.dtype));
        };
        match const_value(&xs[k]) {
            Some(len) => out[k] = dim(slice_len(b, e, s, len, inbound)),
            None => {
                // A symbolic extent: only the "from a non-negative start to the end" forms.
                let to_end = e >= i32::MAX as i64;
                if s > 0 && b >= 0 && (to_end || inbound) {
                    let stop = if to_end { xs[k].clone() } else { dim(e) };
                    let span = sub(&stop, &dim(b));
                    out[k] = if s == 1 {
                        span
                    } else {
                        floordiv(&add(&span, &dim(s - 1)), &dim(s))
                    };
                } else {
                    return Ok(x.with_ndim(n as i64, x.dtype));
                }
            }
        }
    }
    Ok(x.with_shape(out, x.dtype))
}

/// `R.dynamic_strided_slice(x, begin, end, strides)`: the rank is kept, the shape is not
/// known statically.
pub(super) fn infer_dynamic_strided_slice(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 4, 4)?;
    let x = tensor_arg(call, args, 0)?;
    for i in 1..4 {
        tensor_arg(call, args, i)?;
    }
    Ok(x.with_ndim(x.ndim, x.dtype))
}
