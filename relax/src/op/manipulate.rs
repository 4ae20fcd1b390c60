//! Shape manipulation and data movement: reshape, permute_dims, expand_dims, squeeze,
//! flatten, concat, stack, split, broadcast_to, tile, repeat, flip, gathers and scatters,
//! one_hot, layout_transform, meshgrid.

use tir::{BinaryOp, DataType, PrimExpr};

use crate::Result;
use crate::ir::{AttrValue, Attrs, Call, Expr, IndexMap, StructInfo};
use crate::op::common::{
    TensorInfo, add, arith, attr, attr_int, attr_int_list, attr_opt_int, attr_opt_int_list,
    check_arity, dim, err, floordiv, mul, normalize_axes, normalize_axis, prim_arg, product,
    shape_arg, shape_str, sub, tensor_arg, tuple_arg,
};
use crate::struct_info_ops::{const_value, describe, prove_equal};

/// `R.reshape(x, shape)`: a `-1` entry is inferred from the element count.
pub(super) fn infer_reshape(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let (values, ndim) = shape_arg(call, args, 1)?;
    let Some(mut values) = values else {
        return Ok(x.with_ndim(ndim, x.dtype));
    };
    let holes: Vec<usize> = values
        .iter()
        .enumerate()
        .filter(|(_, d)| const_value(d) == Some(-1))
        .map(|(i, _)| i)
        .collect();
    if holes.len() > 1 {
        return Err(err(
            call,
            format!(
                "at most one -1 allowed in the new shape {}",
                shape_str(&values)
            ),
        ));
    }
    if let Some(&bad) = values
        .iter()
        .filter_map(|d| const_value(d).filter(|&v| v < -1))
        .collect::<Vec<_>>()
        .first()
    {
        return Err(err(
            call,
            format!(
                "the new shape {} has a negative dimension {bad}",
                shape_str(&values)
            ),
        ));
    }
    if let Some(xs) = &x.shape {
        let total = product(xs);
        if let Some(&h) = holes.first() {
            let mut rest: Vec<PrimExpr> = values.clone();
            rest.remove(h);
            let known = product(&rest);
            if const_value(&known) == Some(0) {
                return Err(err(
                    call,
                    "cannot infer -1 in a shape with a zero dimension",
                ));
            }
            if let (Some(t), Some(k)) = (const_value(&total), const_value(&known))
                && t % k != 0
            {
                return Err(err(
                    call,
                    format!(
                        "cannot reshape {} ({t} elements) into {}: {t} is not a multiple of {k}",
                        shape_str(xs),
                        shape_str(&values)
                    ),
                ));
            }
            values[h] = floordiv(&total, &known);
        } else {
            // Counted without wrapping: a product that overflows i64 is no element count.
            let exact = |dims: &[PrimExpr]| {
                dims.iter()
                    .try_fold(1i64, |acc, d| acc.checked_mul(const_value(d)?))
            };
            if let (Some(a), None) = (exact(xs), exact(&values))
                && values.iter().all(|d| const_value(d).is_some())
            {
                return Err(err(
                    call,
                    format!(
                        "cannot reshape {} ({a} elements) into {}: more elements than an i64 counts",
                        shape_str(xs),
                        shape_str(&values)
                    ),
                ));
            }
            let new_total = product(&values);
            if let (Some(a), Some(b)) = (const_value(&total), const_value(&new_total))
                && a != b
            {
                return Err(err(
                    call,
                    format!(
                        "cannot reshape {} ({a} elements) into {} ({b} elements)",
                        shape_str(xs),
                        shape_str(&values)
                    ),
                ));
            }
        }
    } else if !holes.is_empty() {
        return Ok(x.with_ndim(values.len() as i64, x.dtype));
    }
    Ok(x.with_shape(values, x.dtype))
}

/// `R.permute_dims(x, axes)`: `axes=None` reverses the dimensions.
pub(super) fn infer_permute_dims(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let axes = attr_opt_int_list(call, "axes")?;
    let Some(n) = x.ndim() else {
        return Ok(match &axes {
            Some(a) => x.with_ndim(a.len() as i64, x.dtype),
            None => x.to_struct_info(),
        });
    };
    let perm: Vec<usize> = match &axes {
        Some(a) => {
            if a.len() != n {
                return Err(err(
                    call,
                    format!("axes {a:?} must list each of the {n} dimensions once"),
                ));
            }
            normalize_axes(call, a, n)?
        }
        None => (0..n).rev().collect(),
    };
    Ok(match &x.shape {
        Some(s) => x.with_shape(perm.iter().map(|&i| s[i].clone()).collect(), x.dtype),
        None => x.to_struct_info(),
    })
}

/// `R.expand_dims(x, axis)`: inserts unit dimensions at `axis` (positions in the result).
pub(super) fn infer_expand_dims(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let axes = attr_int_list(call, "axis")?;
    let Some(n) = x.ndim() else {
        return Ok(x.to_struct_info());
    };
    let out_n = n + axes.len();
    let inserted = normalize_axes(call, &axes, out_n)?;
    let Some(s) = &x.shape else {
        return Ok(x.with_ndim(out_n as i64, x.dtype));
    };
    let mut it = s.iter();
    let out = (0..out_n)
        .map(|i| {
            if inserted.contains(&i) {
                dim(1)
            } else {
                it.next().cloned().unwrap_or_else(|| dim(1))
            }
        })
        .collect();
    Ok(x.with_shape(out, x.dtype))
}

/// `R.squeeze(x, axis)`, following TVM: listed axes whose length is not a constant 1 are
/// kept; with `axis=None` all constant unit dimensions go, and a symbolic dimension makes
/// the rank unknown.
pub(super) fn infer_squeeze(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let axes = attr_opt_int_list(call, "axis")?;
    if matches!(&axes, Some(a) if a.is_empty()) {
        return Ok(x.to_struct_info());
    }
    let Some(n) = x.ndim() else {
        return Ok(x.with_ndim(-1, x.dtype));
    };
    let mut remove = vec![false; n];
    match &axes {
        Some(a) => {
            let axes = normalize_axes(call, a, n)?;
            let Some(s) = &x.shape else {
                return Ok(x.with_ndim((n - axes.len()) as i64, x.dtype));
            };
            for i in axes {
                match const_value(&s[i]) {
                    Some(1) | None => remove[i] = true,
                    Some(_) => {}
                }
            }
        }
        None => {
            let Some(s) = &x.shape else {
                return Ok(x.with_ndim(-1, x.dtype));
            };
            for (i, d) in s.iter().enumerate() {
                match const_value(d) {
                    None => return Ok(x.with_ndim(-1, x.dtype)),
                    Some(1) => remove[i] = true,
                    Some(_) => {}
                }
            }
        }
    }
    let s = x.shape.clone().unwrap_or_default();
    let out = s
        .into_iter()
        .zip(remove)
        .filter(|(_, r)| !r)
        .map(|(d, _)| d)
        .collect();
    Ok(x.with_shape(out, x.dtype))
}

/// An `int` axis becomes a list of one.
pub(super) fn canon_axis_list(_args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    if let Some(AttrValue::Int(a)) = attrs.get("axis") {
        let a = *a;
        attrs.set("axis", AttrValue::List(vec![AttrValue::Int(a)]));
    }
    Ok(())
}

/// An `int` repeats becomes a list of one.
pub(super) fn canon_repeats(_args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    if let Some(AttrValue::Int(a)) = attrs.get("repeats") {
        let a = *a;
        attrs.set("repeats", AttrValue::List(vec![AttrValue::Int(a)]));
    }
    Ok(())
}

/// `R.flatten(x)`: 1-D with all the elements (a scalar becomes `(1,)`).
pub(super) fn infer_flatten(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    Ok(match &x.shape {
        Some(s) => x.with_shape(vec![product(s)], x.dtype),
        None => x.with_ndim(1, x.dtype),
    })
}

fn tensors_of(call: &Call, args: &[StructInfo]) -> Result<Vec<TensorInfo>> {
    let fields = tuple_arg(call, args, 0)?;
    if fields.is_empty() {
        return Err(err(call, "needs at least one tensor"));
    }
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| match f {
            StructInfo::Tensor {
                shape,
                dtype,
                ndim,
                vdevice,
            } => Ok(TensorInfo {
                shape: shape.clone(),
                dtype: *dtype,
                ndim: *ndim,
                vdevice: vdevice.clone(),
            }),
            other => Err(err(
                call,
                format!("tensors[{i}] must be a tensor, got {}", describe(other)),
            )),
        })
        .collect()
}

fn common_of(call: &Call, ts: &[TensorInfo]) -> Result<(Option<DataType>, i64)> {
    let mut dtype = ts[0].dtype;
    let mut ndim = -1;
    for (i, t) in ts.iter().enumerate() {
        if i > 0 {
            dtype = match (dtype, t.dtype) {
                (Some(a), Some(b)) if a != b => {
                    return Err(err(
                        call,
                        format!("tensors[{i}] has dtype {b} but tensors[0] has {a}"),
                    ));
                }
                (Some(a), Some(_)) => Some(a),
                _ => None,
            };
        }
        if t.ndim >= 0 {
            if ndim >= 0 && ndim != t.ndim {
                return Err(err(
                    call,
                    format!(
                        "tensors[{i}] has rank {} but another has rank {ndim}",
                        t.ndim
                    ),
                ));
            }
            ndim = t.ndim;
        }
    }
    Ok((dtype, ndim))
}

/// `R.concat((a, b, ...), axis)`: dimensions other than `axis` must agree.
pub(super) fn infer_concat(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let ts = tensors_of(call, args)?;
    let (dtype, ndim) = common_of(call, &ts)?;
    let Some(axis) = attr_opt_int(call, "axis")? else {
        let shapes: Option<Vec<&Vec<PrimExpr>>> = ts.iter().map(|t| t.shape.as_ref()).collect();
        return Ok(match shapes {
            Some(ss) => ts[0].with_shape(
                vec![ss.iter().fold(dim(0), |acc, s| add(&acc, &product(s)))],
                dtype,
            ),
            None => ts[0].with_ndim(1, dtype),
        });
    };
    if ndim < 0 {
        return Ok(ts[0].with_ndim(-1, dtype));
    }
    let a = normalize_axis(call, axis, ndim as usize)?;
    let shapes: Option<Vec<&Vec<PrimExpr>>> = ts.iter().map(|t| t.shape.as_ref()).collect();
    let Some(ss) = shapes else {
        return Ok(ts[0].with_ndim(ndim, dtype));
    };
    let mut out = ss[0].clone();
    for (i, s) in ss.iter().enumerate().skip(1) {
        for d in 0..out.len() {
            if d == a {
                out[d] = add(&out[d], &s[d]);
            } else if let (Some(p), Some(q)) = (const_value(&out[d]), const_value(&s[d]))
                && p != q
            {
                return Err(err(
                    call,
                    format!(
                        "tensors[{i}] has shape {} which differs from {} outside axis {a}",
                        shape_str(s),
                        shape_str(ss[0])
                    ),
                ));
            }
        }
    }
    Ok(ts[0].with_shape(out, dtype))
}

/// `R.stack((a, b, ...), axis)`: equal shapes, a new axis of length `len(tensors)`.
pub(super) fn infer_stack(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let ts = tensors_of(call, args)?;
    let (dtype, ndim) = common_of(call, &ts)?;
    let axis = attr_opt_int(call, "axis")?.unwrap_or(0);
    if ndim < 0 {
        return Ok(ts[0].with_ndim(-1, dtype));
    }
    let a = normalize_axis(call, axis, ndim as usize + 1)?;
    let shapes: Option<Vec<&Vec<PrimExpr>>> = ts.iter().map(|t| t.shape.as_ref()).collect();
    let Some(ss) = shapes else {
        return Ok(ts[0].with_ndim(ndim + 1, dtype));
    };
    for (i, s) in ss.iter().enumerate().skip(1) {
        if s.iter()
            .zip(ss[0].iter())
            .any(|(x, y)| matches!((const_value(x), const_value(y)), (Some(p), Some(q)) if p != q))
        {
            return Err(err(
                call,
                format!(
                    "tensors[{i}] has shape {} but tensors[0] has {}",
                    shape_str(s),
                    shape_str(ss[0])
                ),
            ));
        }
    }
    let mut out = ss[0].clone();
    out.insert(a, dim(ts.len() as i64));
    Ok(ts[0].with_shape(out, dtype))
}

/// `R.split(x, indices_or_sections, axis)`: a tuple of pieces (TVM's rules: `n` sections
/// of `ceildiv(len, n)` with a shorter last one; indices clamped to `[0, len]`).
pub(super) fn infer_split(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let axis = attr_int(call, "axis")?;
    let ios = attr(call, "indices_or_sections")
        .ok_or_else(|| err(call, "missing attribute `indices_or_sections`"))?;
    let axis = match x.ndim() {
        Some(n) => Some(normalize_axis(call, axis, n)?),
        None => None,
    };
    match &ios {
        AttrValue::List(_) => {
            let indices = ios.as_int_list().ok_or_else(|| {
                err(
                    call,
                    format!("indices_or_sections must be an int or a list of ints, got {ios:?}"),
                )
            })?;
            if indices.is_empty() {
                return Ok(x.to_struct_info());
            }
            let (Some(s), Some(a)) = (&x.shape, axis) else {
                return Ok(StructInfo::Tuple(vec![
                    x.with_ndim(x.ndim, x.dtype);
                    indices.len() + 1
                ]));
            };
            let len = &s[a];
            let clamp = |v: PrimExpr| {
                arith(
                    tir::BinaryOp::Min,
                    &arith(tir::BinaryOp::Max, &v, &dim(0)),
                    len,
                )
            };
            let mut out = Vec::with_capacity(indices.len() + 1);
            for i in 0..=indices.len() {
                let left = if i == 0 { dim(0) } else { dim(indices[i - 1]) };
                let right = if i < indices.len() {
                    dim(indices[i])
                } else {
                    len.clone()
                };
                let piece = arith(
                    tir::BinaryOp::Max,
                    &sub(&clamp(right), &clamp(left)),
                    &dim(0),
                );
                let mut shape = s.clone();
                shape[a] = piece;
                out.push(x.with_shape(shape, x.dtype));
            }
            Ok(StructInfo::Tuple(out))
        }
        other => {
            let n = other.as_int().ok_or_else(|| {
                err(
                    call,
                    format!("indices_or_sections must be an int or a list of ints, got {other:?}"),
                )
            })?;
            if n <= 0 {
                return Err(err(
                    call,
                    format!("the number of sections must be positive, got {n}"),
                ));
            }
            if n == 1 {
                return Ok(x.to_struct_info());
            }
            // One struct info per section is built below: a count from the text must not be
            // able to ask for more memory than the parts could ever be worth.
            if n > MAX_SECTIONS {
                return Err(err(
                    call,
                    format!("{n} sections: at most {MAX_SECTIONS} are supported"),
                ));
            }
            if let (Some(s), Some(a)) = (&x.shape, axis)
                && let Some(len) = const_value(&s[a])
                && len > 0
                && n > len
            {
                return Err(err(
                    call,
                    format!("an axis of {len} elements cannot be split into {n} sections"),
                ));
            }
            let (Some(s), Some(a)) = (&x.shape, axis) else {
                return Ok(StructInfo::Tuple(vec![
                    x.with_ndim(x.ndim, x.dtype);
                    n as usize
                ]));
            };
            let len = &s[a];
            let piece = floordiv(&add(len, &dim(n - 1)), &dim(n));
            let last = sub(len, &mul(&piece, &dim(n - 1)));
            let mut out = Vec::with_capacity(n as usize);
            for i in 0..n {
                let mut shape = s.clone();
                shape[a] = if i + 1 < n {
                    piece.clone()
                } else {
                    last.clone()
                };
                out.push(x.with_shape(shape, x.dtype));
            }
            Ok(StructInfo::Tuple(out))
        }
    }
}

/// The most sections `R.split` takes by count (each is a tensor of the result tuple).
const MAX_SECTIONS: i64 = 1 << 16;

/// `R.broadcast_to(x, shape)`: every input dimension is 1 or the target's.
pub(super) fn infer_broadcast_to(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let (values, ndim) = shape_arg(call, args, 1)?;
    if x.ndim >= 0 && ndim >= 0 && x.ndim > ndim {
        return Err(err(
            call,
            format!("cannot broadcast a rank-{} tensor to rank {ndim}", x.ndim),
        ));
    }
    let Some(target) = values else {
        return Ok(x.with_ndim(ndim, x.dtype));
    };
    if let Some(s) = &x.shape {
        let off = target.len() - s.len();
        for (i, d) in s.iter().enumerate() {
            let t = &target[off + i];
            if let (Some(p), Some(q)) = (const_value(d), const_value(t))
                && p != 1
                && p != q
            {
                return Err(err(
                    call,
                    format!(
                        "cannot broadcast {} to {}: dimension {i} is {p}, target is {q}",
                        shape_str(s),
                        shape_str(&target)
                    ),
                ));
            }
        }
    }
    Ok(x.with_shape(target, x.dtype))
}

/// `R.tile(x, repeats)`.
pub(super) fn infer_tile(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let reps = attr_int_list(call, "repeats")?;
    if let Some(&r) = reps.iter().find(|&&r| r < 0) {
        return Err(err(call, format!("repeats must be non-negative, got {r}")));
    }
    let Some(n) = x.ndim() else {
        return Ok(x.with_ndim(-1, x.dtype));
    };
    let out_n = n.max(reps.len());
    let Some(s) = &x.shape else {
        return Ok(x.with_ndim(out_n as i64, x.dtype));
    };
    let mut shape: Vec<PrimExpr> = vec![dim(1); out_n - n];
    shape.extend(s.iter().cloned());
    let mut r: Vec<i64> = vec![1; out_n - reps.len()];
    r.extend(reps);
    let out = shape.iter().zip(r).map(|(d, k)| mul(d, &dim(k))).collect();
    Ok(x.with_shape(out, x.dtype))
}

/// `R.repeat(x, repeats, axis)`: flattened when `axis` is `None`.
pub(super) fn infer_repeat(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let r = attr_int(call, "repeats")?;
    if r < 0 {
        return Err(err(call, format!("repeats must be non-negative, got {r}")));
    }
    match attr_opt_int(call, "axis")? {
        None => Ok(match &x.shape {
            Some(s) => x.with_shape(vec![mul(&product(s), &dim(r))], x.dtype),
            None => x.with_ndim(1, x.dtype),
        }),
        Some(axis) => {
            let Some(n) = x.ndim() else {
                return Ok(x.to_struct_info());
            };
            let a = normalize_axis(call, axis, n)?;
            Ok(match &x.shape {
                Some(s) => {
                    let mut out = s.clone();
                    out[a] = mul(&s[a], &dim(r));
                    x.with_shape(out, x.dtype)
                }
                None => x.to_struct_info(),
            })
        }
    }
}

/// `R.flip(x, axis)`.
pub(super) fn infer_flip(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    if let Some(n) = x.ndim() {
        normalize_axis(call, attr_int(call, "axis")?, n)?;
    }
    Ok(x.to_struct_info())
}

/// Operators whose result is shaped like their first argument.
pub(super) fn infer_same_as_data(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    if args.is_empty() {
        return Err(err(call, "missing argument 0"));
    }
    Ok(tensor_arg(call, args, 0)?.to_struct_info())
}

/// `R.collapse_sum_like(data, target)`: the target's shape, the data's dtype.
pub(super) fn infer_collapse_sum_like(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let t = tensor_arg(call, args, 1)?;
    Ok(x.result(t.shape.clone(), t.ndim, x.dtype))
}

/// `R.collapse_sum_to(data, shape)`.
pub(super) fn infer_collapse_sum_to(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let (values, ndim) = shape_arg(call, args, 1)?;
    Ok(x.result(values, ndim, x.dtype))
}

fn require_int_indices(call: &Call, t: &TensorInfo, i: usize) -> Result<()> {
    match t.dtype {
        Some(d) if !d.is_int_or_uint() => Err(err(
            call,
            format!(
                "{} must be an integer tensor, got dtype {d}",
                crate::op::common::arg_name(call, i)
            ),
        )),
        _ => Ok(()),
    }
}

/// `R.gather_elements(data, indices, axis)`: the indices' shape, the data's dtype.
pub(super) fn infer_gather_elements(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let i = tensor_arg(call, args, 1)?;
    require_int_indices(call, &i, 1)?;
    if x.ndim >= 0 && i.ndim >= 0 && x.ndim != i.ndim {
        return Err(err(
            call,
            format!(
                "data and indices must have the same rank, got {} and {}",
                x.ndim, i.ndim
            ),
        ));
    }
    if let Some(n) = x.ndim() {
        normalize_axis(call, attr_int(call, "axis")?, n)?;
    }
    Ok(x.result(i.shape.clone(), i.ndim.max(x.ndim), x.dtype))
}

/// `R.gather_nd(data, indices, batch_dims)`.
pub(super) fn infer_gather_nd(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let i = tensor_arg(call, args, 1)?;
    require_int_indices(call, &i, 1)?;
    let b = attr_int(call, "batch_dims")?.max(0) as usize;
    let (Some(xs), Some(is)) = (&x.shape, &i.shape) else {
        return Ok(x.with_ndim(-1, x.dtype));
    };
    let Some(last) = is.last().and_then(const_value) else {
        return Ok(x.with_ndim(-1, x.dtype));
    };
    let start = b + last.max(0) as usize;
    if start > xs.len() {
        return Err(err(
            call,
            format!(
                "indices address {start} dimensions of a rank-{} tensor",
                xs.len()
            ),
        ));
    }
    let mut out: Vec<PrimExpr> = is[..is.len() - 1].to_vec();
    out.extend(xs[start..].iter().cloned());
    Ok(x.with_shape(out, x.dtype))
}

/// `R.scatter_elements(data, indices, updates, axis, reduction)`: the data's struct info.
pub(super) fn infer_scatter_elements(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let x = tensor_arg(call, args, 0)?;
    let i = tensor_arg(call, args, 1)?;
    let u = tensor_arg(call, args, 2)?;
    require_int_indices(call, &i, 1)?;
    if let (Some(a), Some(b)) = (x.dtype, u.dtype)
        && a != b
    {
        return Err(err(
            call,
            format!("updates have dtype {b} but data has {a}"),
        ));
    }
    if let (Some(a), Some(b)) = (&i.shape, &u.shape)
        && (a.len() != b.len()
            || a.iter().zip(b).any(|(p, q)| {
                !prove_equal(p, q) && const_value(p).is_some() && const_value(q).is_some()
            }))
    {
        return Err(err(
            call,
            format!(
                "indices {} and updates {} must have the same shape",
                shape_str(a),
                shape_str(b)
            ),
        ));
    }
    if let Some(n) = x.ndim() {
        normalize_axis(call, attr_int(call, "axis")?, n)?;
    }
    Ok(x.to_struct_info())
}

/// `R.one_hot(indices, on_value, off_value, depth, axis)`: `depth` inserted at `axis`, the
/// dtype of the on/off values.
pub(super) fn infer_one_hot(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let i = tensor_arg(call, args, 0)?;
    require_int_indices(call, &i, 0)?;
    let (on, _) = prim_arg(call, args, 1)?;
    let (off, _) = prim_arg(call, args, 2)?;
    if on != off {
        return Err(err(
            call,
            format!("on_value ({on}) and off_value ({off}) must have the same dtype"),
        ));
    }
    let depth = attr_int(call, "depth")?;
    if depth <= 0 {
        return Err(err(call, format!("depth must be positive, got {depth}")));
    }
    let axis = attr_int(call, "axis")?;
    let Some(n) = i.ndim() else {
        return Ok(i.with_ndim(-1, Some(on)));
    };
    let a = if axis == -1 {
        n
    } else {
        normalize_axis(call, axis, n + 1)?
    };
    Ok(match &i.shape {
        Some(s) => {
            let mut out = s.clone();
            out.insert(a, dim(depth));
            i.with_shape(out, Some(on))
        }
        None => i.with_ndim(n as i64 + 1, Some(on)),
    })
}

// ----- layout_transform -------------------------------------------------------------------

/// The `index_map` attribute of a call.
fn index_map_attr(call: &Call) -> Result<&IndexMap> {
    match call.attrs.get("index_map") {
        Some(AttrValue::IndexMap(m)) => Ok(m),
        Some(other) => Err(err(
            call,
            format!("attribute `index_map` must be `T.index_map(lambda ...)`, got {other:?}"),
        )),
        None => Err(err(call, "missing attribute `index_map`")),
    }
}

/// `R.layout_transform(x, index_map, pad_value, axis_separators, input_axis_separators)`: the
/// result has one axis per result of the map, each as long as the map's range over the input's
/// domain ([`index_map_shape`]), and the input's dtype. The axis separators only describe a
/// physical (multi-dimensional) memory layout: they are checked, and change nothing here.
pub(super) fn infer_layout_transform(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let map = index_map_attr(call)?;
    // Printed only for an error: inference runs at every normalization.
    let text = || crate::script::printer::index_map_to_string(map);
    if let Some(n) = x.ndim()
        && n != map.params.len()
    {
        return Err(err(
            call,
            format!(
                "the index map `{}` takes {} indices, but the input has rank {n}",
                text(),
                map.params.len()
            ),
        ));
    }
    check_separators(call, "axis_separators", map.results.len())?;
    if let Some(n) = x.ndim() {
        check_separators(call, "input_axis_separators", n)?;
    }
    match call.attrs.get("pad_value") {
        None | Some(AttrValue::None) => {}
        Some(AttrValue::PrimValue(p)) => {
            if let Some(dt) = x.dtype
                && p.dtype() != dt
            {
                return Err(err(
                    call,
                    format!(
                        "pad_value {} is of type {}, but the input is {dt}: they must agree",
                        crate::script::printer::prim_text(p),
                        p.dtype()
                    ),
                ));
            }
        }
        Some(other) => {
            return Err(err(
                call,
                format!("pad_value must be None or `R.prim_value(...)`, got {other:?}"),
            ));
        }
    }
    let Some(shape) = &x.shape else {
        return Ok(x.with_ndim(map.results.len() as i64, x.dtype));
    };
    let out = index_map_shape(map, shape).map_err(|why| {
        err(
            call,
            format!(
                "cannot infer the shape that `{}` maps {} to: {why}",
                text(),
                shape_str(shape)
            ),
        )
    })?;
    Ok(x.with_shape(out, x.dtype))
}

/// `R.layout_transform`'s stored form: `pad_value` a prim value or `None` (a `T.float32(2)`
/// written without `R.prim_value` is accepted as one), `axis_separators` a list (`[]` when
/// unset, as TVM's Python API makes it), `input_axis_separators` absent when unset (TVM 0.27
/// does not print it then).
pub(super) fn canon_layout_transform(_args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    let bad = |m: String| crate::Error::TypeInference(m);
    if let Some(other) = attrs.get("index_map")
        && !matches!(other, AttrValue::IndexMap(_))
    {
        return Err(bad(format!(
            "index_map must be `T.index_map(lambda ...)`, got {other:?}"
        )));
    }
    match attrs.get("pad_value").cloned() {
        None | Some(AttrValue::None) | Some(AttrValue::PrimValue(_)) => {}
        Some(AttrValue::Expr(e)) if e.as_var().is_none() => {
            attrs.set("pad_value", AttrValue::PrimValue(e));
        }
        Some(other) => {
            return Err(bad(format!(
                "pad_value must be None or `R.prim_value(...)` of the input's dtype (as in \
                 `R.prim_value(T.float32(2))`), got {other:?}"
            )));
        }
    }
    if matches!(attrs.get("axis_separators"), None | Some(AttrValue::None)) {
        attrs.set("axis_separators", AttrValue::List(Vec::new()));
    }
    if matches!(attrs.get("input_axis_separators"), Some(AttrValue::None)) {
        attrs.0.retain(|(k, _)| k != "input_axis_separators");
    }
    Ok(())
}

/// Axis separators: strictly increasing positions in `0..=rank`.
fn check_separators(call: &Call, name: &str, rank: usize) -> Result<()> {
    let Some(seps) = attr_opt_int_list(call, name)? else {
        return Ok(());
    };
    for (i, &s) in seps.iter().enumerate() {
        if s < 0 || s as usize > rank {
            return Err(err(
                call,
                format!("{name} {seps:?}: {s} is not an axis position in 0..={rank}"),
            ));
        }
        if i > 0 && seps[i - 1] >= s {
            return Err(err(
                call,
                format!("{name} {seps:?} must be strictly increasing"),
            ));
        }
    }
    Ok(())
}

/// The extent of each result of `map` over the domain `0 <= p_i < shape[i]` of its
/// parameters (TVM's `IndexMap::MapShape`): the range's maximum plus one, its minimum being 0.
///
/// * A result `e % c` (`c` positive and free of the indices: a constant or an expression of
///   dimensions) has extent `c`: TVM's
///   iterator analysis pads `e` to a multiple of `c` (`lambda i: (i % 16,)` maps `(14,)` to
///   `(16,)`).
/// * Over a static shape, the range is the constant bound of [`tir::arith::Analyzer`] with
///   every parameter bound to its axis.
/// * Over a symbolic shape, a result that is non-decreasing in every parameter
///   ([`tir::arith::Analyzer::non_decreasing`], the symbolic variables other than the indices
///   taken to be dimensions: non-negative, and positive where they divide) takes its minimum
///   with every parameter 0 and its maximum with every parameter at its last index; other
///   results are an error, since there is no symbolic range analysis to bound them.
pub(crate) fn index_map_shape(
    map: &IndexMap,
    shape: &[PrimExpr],
) -> std::result::Result<Vec<PrimExpr>, String> {
    use tir::arith::Analyzer;
    let dims: Option<Vec<i64>> = shape.iter().map(PrimExpr::as_int).collect();
    let mut an = Analyzer::new();
    for (p, d) in map.params.iter().zip(shape) {
        an.bind(p, tir::Range::from_extent(d.clone()));
    }
    // Symbolic variables other than the indices are dimensions: non-negative, and positive
    // where they divide.
    for r in &map.results {
        r.visit(&mut |e| {
            if let Some(v) = e.as_var()
                && !map.params.contains(v)
            {
                an.bind_bound(v, 0, i64::MAX);
            }
        });
    }
    for r in &map.results {
        r.visit(&mut |e| {
            if let tir::ExprKind::Binary {
                op: BinaryOp::FloorDiv | BinaryOp::FloorMod,
                b,
                ..
            } = e.kind()
                && let Some(v) = b.as_var()
                && !map.params.contains(v)
            {
                an.bind_bound(v, 1, i64::MAX);
            }
        });
    }
    let text = crate::script::printer::prim_text;
    let mut out = Vec::new();
    for (k, r) in map.results.iter().enumerate() {
        let what = || format!("result {k} `{}`", text(r));
        if let tir::ExprKind::Binary {
            op: BinaryOp::FloorMod,
            b,
            ..
        } = r.kind()
            && !b.uses_var(&|v| map.params.contains(v))
            && an.const_int_bound(b).0 >= 1
        {
            out.push(b.clone());
            continue;
        }
        if let Some(dims) = &dims {
            if dims.contains(&0) {
                // An empty domain: no index is mapped anywhere.
                out.push(dim(0));
                continue;
            }
            let (lo, hi) = an.const_int_bound(r);
            if lo == i64::MIN || hi == i64::MAX {
                return Err(format!("{} is not bounded over the input's domain", what()));
            }
            if lo != 0 {
                return Err(format!(
                    "{} ranges over [{lo}, {hi}], which does not start at 0",
                    what()
                ));
            }
            out.push(dim(hi + 1));
            continue;
        }
        if !an.non_decreasing(r, &map.params) {
            return Err(format!(
                "{} is not a sum, product or floor division of the indices that could be \
                 bounded over a symbolic shape",
                what()
            ));
        }
        let at = |f: &dyn Fn(&PrimExpr) -> PrimExpr| {
            let ends: Vec<PrimExpr> = shape.iter().map(f).collect();
            let one = IndexMap {
                params: map.params.clone(),
                results: vec![r.clone()],
            };
            one.apply(&ends).remove(0)
        };
        let lo = an.simplify(&at(&|_| dim(0)));
        if !prove_equal(&lo, &dim(0)) {
            return Err(format!(
                "{} has the minimum {} over the input's domain, not 0",
                what(),
                text(&lo)
            ));
        }
        let hi = at(&|d| sub(d, &dim(1)));
        out.push(add(&hi, &dim(1)));
    }
    Ok(out)
}

/// `R.meshgrid(tensors, indexing)`: for `k` 1-D tensors of one dtype, a tuple of `k` grids of
/// their lengths (TVM's `InferTypeMeshgrid`). With `indexing="xy"` the first two lengths are
/// swapped, as NumPy, PyTorch and TVM's own kernel (`topi.meshgrid`) arrange the grids; TVM's
/// inference leaves them in order, which contradicts its kernel whenever they differ.
pub(super) fn infer_meshgrid(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let fields = tuple_arg(call, args, 0)?;
    if fields.is_empty() {
        return Err(err(
            call,
            "expects at least one 1-D tensor in the input tuple",
        ));
    }
    let mut lengths = Vec::with_capacity(fields.len());
    let mut dtype: Option<DataType> = None;
    let mut known = true;
    let mut vdevice = None;
    for (i, f) in fields.iter().enumerate() {
        let StructInfo::Tensor {
            shape,
            dtype: d,
            ndim,
            vdevice: v,
        } = f
        else {
            return Err(err(
                call,
                format!(
                    "tensor {i} of the input tuple must be a tensor, got {}",
                    describe(f)
                ),
            ));
        };
        if *ndim != 1 {
            return Err(err(
                call,
                format!("each input tensor must be 1-D, got rank {ndim} at index {i}"),
            ));
        }
        if let Some(d) = d {
            match dtype {
                Some(c) if c != *d => {
                    return Err(err(
                        call,
                        format!("all input tensors must have one dtype, found {d} and {c}"),
                    ));
                }
                _ => dtype = Some(*d),
            }
        }
        if vdevice.is_none() {
            vdevice = v.clone();
        }
        match shape {
            Some(s) if s.len() == 1 => lengths.push(s[0].clone()),
            _ => known = false,
        }
    }
    let n = fields.len();
    let xy = matches!(
        attr(call, "indexing"),
        Some(AttrValue::Str(s)) if s == "xy"
    );
    if known && xy && n >= 2 {
        lengths.swap(0, 1);
    }
    let one = StructInfo::Tensor {
        ndim: n as i64,
        shape: known.then_some(lengths),
        dtype,
        vdevice,
    };
    Ok(StructInfo::Tuple(vec![one; n]))
}
