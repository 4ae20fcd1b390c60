//! Struct-info inference of the operators that write part of a tensor: `R.index_put` and
//! `R.slice_scatter`, as TVM's `InferTypeIndexPut` and `InferTypeSliceScatter`
//! (`src/relax/op/tensor/manipulate.cc`) infer them: the result is the data tensor's struct
//! info, after the checks TVM makes (TVM's warnings, for an unknown dtype, are silent here).

use tir::{DataType, PrimExpr};

use super::common::{
    add, arg_name, attr_int, check_arity, err, floordiv, normalize_axis, prim_value_of, shape_str,
    sub, tensor_arg,
};
use crate::Result;
use crate::ir::{Call, StructInfo};
use crate::struct_info_ops::{const_value, describe, dim_str};

/// Whether `a != b` is provable: their difference folds to a non-zero constant.
fn provably_differ(a: &PrimExpr, b: &PrimExpr) -> bool {
    const_value(&sub(a, b)).is_some_and(|d| d != 0)
}

/// `R.index_put(data, indices, values, accumulate)`: `indices` is one integer tensor or a
/// tuple of them, one per dimension of `data`, each of rank at least 1; `values` has the
/// dtype of `data`. The result is `data`'s struct info.
pub(super) fn infer_index_put(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let data = tensor_arg(call, args, 0)?;
    let values = tensor_arg(call, args, 2)?;
    let indices: Vec<&StructInfo> = match &args[1] {
        StructInfo::Tuple(fields) => fields.iter().collect(),
        t @ StructInfo::Tensor { .. } => vec![t],
        other => {
            return Err(err(
                call,
                format!(
                    "{} must be a tensor or a tuple of tensors, got {}",
                    arg_name(call, 1),
                    describe(other)
                ),
            ));
        }
    };
    let Some(ndim) = data.ndim() else {
        return Ok(data.with_ndim(-1, data.dtype));
    };
    for (i, index) in indices.iter().enumerate() {
        let StructInfo::Tensor {
            ndim: index_ndim,
            dtype,
            ..
        } = index
        else {
            return Err(err(
                call,
                format!(
                    "index {i} of the indices must be a tensor, got {}",
                    describe(index)
                ),
            ));
        };
        if *index_ndim == 0 {
            return Err(err(
                call,
                format!("index tensor {i} must have at least 1 dimension, got rank 0"),
            ));
        }
        if let Some(d) = dtype
            && !d.is_int_or_uint()
        {
            return Err(err(
                call,
                format!("index tensor {i} must have an integer dtype, got {d}"),
            ));
        }
    }
    if indices.len() != ndim {
        return Err(err(
            call,
            format!(
                "the number of index tensors ({}) must match the rank of data ({ndim})",
                indices.len()
            ),
        ));
    }
    if let (Some(a), Some(b)) = (data.dtype, values.dtype)
        && a != b
    {
        return Err(err(call, format!("values have dtype {b} but data has {a}")));
    }
    Ok(data.to_struct_info())
}

/// The integer prim value of argument `i` (`start`, `end` or `step`).
fn int_prim(call: &Call, args: &[StructInfo], i: usize) -> Result<Option<PrimExpr>> {
    let dtype: DataType = match args.get(i) {
        Some(StructInfo::Prim { dtype, .. }) => *dtype,
        Some(other) => {
            return Err(err(
                call,
                format!(
                    "{} must be a prim value, got {}",
                    arg_name(call, i),
                    describe(other)
                ),
            ));
        }
        None => return Err(err(call, format!("missing {}", arg_name(call, i)))),
    };
    if !dtype.is_int_or_uint() {
        return Err(err(
            call,
            format!(
                "{} must be an integer, got dtype {dtype}",
                arg_name(call, i)
            ),
        ));
    }
    Ok(prim_value_of(call, args, i))
}

/// `R.slice_scatter(input, src, start, end, step, axis)`: `src` of `input`'s rank and dtype,
/// equal to it outside `axis` and of extent `ceil((end - start) / step)` along it; `step` at
/// least 1 and `start <= end` where provable. The result is `input`'s struct info.
pub(super) fn infer_slice_scatter(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 5, 5)?;
    let data = tensor_arg(call, args, 0)?;
    let src = tensor_arg(call, args, 1)?;
    let Some(ndim) = data.ndim() else {
        return Ok(data.with_ndim(-1, data.dtype));
    };
    let raw_axis = attr_int(call, "axis")?;
    let axis = normalize_axis(call, raw_axis, ndim)?;
    if let Some(n) = src.ndim()
        && n != ndim
    {
        return Err(err(
            call,
            format!("src has rank {n} but input has rank {ndim}; they must be equal"),
        ));
    }
    if let (Some(a), Some(b)) = (data.dtype, src.dtype)
        && a != b
    {
        return Err(err(call, format!("src has dtype {b} but input has {a}")));
    }
    let start = int_prim(call, args, 2)?;
    let end = int_prim(call, args, 3)?;
    let step = int_prim(call, args, 4)?;
    if let Some(s) = step.as_ref().and_then(const_value)
        && s < 1
    {
        return Err(err(call, format!("step ({s}) must be at least 1")));
    }
    if let (Some(s), Some(e)) = (&start, &end)
        && let Some(d) = const_value(&sub(e, s))
        && d < 0
    {
        return Err(err(
            call,
            format!(
                "start ({}) must not be greater than end ({})",
                dim_str(s),
                dim_str(e)
            ),
        ));
    }
    if let (Some(ds), Some(ss)) = (&data.shape, &src.shape) {
        for i in (0..ndim).filter(|&i| i != axis) {
            if provably_differ(&ds[i], &ss[i]) {
                return Err(err(
                    call,
                    format!(
                        "src {} must have the shape of input {} except at axis {axis}; \
                         dimension {i} differs",
                        shape_str(ss),
                        shape_str(ds)
                    ),
                ));
            }
        }
        if let (Some(s), Some(e), Some(st)) = (&start, &end, &step) {
            let one = PrimExpr::i64(1);
            let count = floordiv(&sub(&add(&sub(e, s), st), &one), st);
            if provably_differ(&ss[axis], &count) {
                return Err(err(
                    call,
                    format!(
                        "src has {} elements along axis {axis}, but the slice [{}:{}:{}] has {}",
                        dim_str(&ss[axis]),
                        dim_str(s),
                        dim_str(e),
                        dim_str(st),
                        dim_str(&count)
                    ),
                ));
            }
        }
    }
    Ok(data.to_struct_info())
}
