//! Struct-info inference of `R.bucketize` (TVM's `InferTypeBucketize`, `search.cc`),
//! `R.multinomial_from_uniform` (`InferTypeMultinomialFromUniform`, `sampling.cc`) and
//! `R.nonzero` and `R.unique` (`InferTypeNonzero`, `InferTypeUnique`, `set.cc`).

use tir::DataType;

use super::common::{arg_name, attr_bool, attr_opt_dtype, check_arity, err, shape_str, tensor_arg};
use crate::Result;
use crate::ir::{Call, StructInfo};
use crate::struct_info_ops::prove_equal;

/// `R.bucketize(input_tensor, boundaries, out_int32, right)`: the bucket of each input value
/// among the 1-D `boundaries`; the input's shape, `int32` or `int64` by `out_int32`.
pub(super) fn infer_bucketize(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let b = tensor_arg(call, args, 1)?;
    if let Some(n) = b.ndim()
        && n != 1
    {
        return Err(err(
            call,
            format!("boundaries must be a 1-D tensor, got rank {n}"),
        ));
    }
    let dtype = if attr_bool(call, "out_int32")? {
        DataType::INT32
    } else {
        DataType::INT64
    };
    Ok(x.result(x.shape.clone(), x.ndim, Some(dtype)))
}

/// `R.multinomial_from_uniform(prob, uniform_sample, sample_indices, dtype)`: `prob` `(batch,
/// vocab)` of floats, `uniform_sample` and `sample_indices` `(n, 1)` of floats and integers;
/// the result is `(n, 1)` of `dtype`.
pub(super) fn infer_multinomial_from_uniform(
    call: &Call,
    args: &[StructInfo],
) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let prob = tensor_arg(call, args, 0)?;
    let sample = tensor_arg(call, args, 1)?;
    let indices = tensor_arg(call, args, 2)?;
    let dtype = attr_opt_dtype(call, "dtype")?.unwrap_or(DataType::INT64);
    for (i, t, want) in [
        (0, &prob, "float"),
        (1, &sample, "float"),
        (2, &indices, "int"),
    ] {
        if let Some(d) = t.dtype {
            let ok = if want == "float" {
                d.is_float()
            } else {
                d.is_int()
            };
            if !ok {
                return Err(err(
                    call,
                    format!("{} must have a {want} dtype, got {d}", arg_name(call, i)),
                ));
            }
        }
    }
    let (Some(pn), Some(sn), Some(inn)) = (prob.ndim(), sample.ndim(), indices.ndim()) else {
        return Ok(prob.with_ndim(-1, Some(dtype)));
    };
    for (i, n) in [(0, pn), (1, sn), (2, inn)] {
        if n != 2 {
            return Err(err(
                call,
                format!("{} must be a 2-D tensor, got rank {n}", arg_name(call, i)),
            ));
        }
    }
    let (Some(_), Some(ss), Some(is)) = (&prob.shape, &sample.shape, &indices.shape) else {
        return Ok(prob.with_ndim(2, Some(dtype)));
    };
    if !prove_equal(&ss[0], &is[0]) {
        return Err(err(
            call,
            format!(
                "uniform_sample {} and sample_indices {} must have the same number of rows",
                shape_str(ss),
                shape_str(is)
            ),
        ));
    }
    if ss[1].as_int() != Some(1) || is[1].as_int() != Some(1) {
        return Err(err(
            call,
            format!(
                "uniform_sample {} and sample_indices {} must have shape (n, 1)",
                shape_str(ss),
                shape_str(is)
            ),
        ));
    }
    Ok(prob.with_shape(vec![ss[0].clone(), ss[1].clone()], Some(dtype)))
}

/// `R.nonzero(x)`: an `int64` tensor of rank 2, `(rank of x, number of non-zero elements)`,
/// whose shape is known only when it runs (TVM infers no shape either; its frontends
/// `R.match_cast` the result to name the count).
pub(super) fn infer_nonzero(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    Ok(x.with_ndim(2, Some(DataType::INT64)))
}

/// A flag or axis argument of `R.unique` as a constant (`R.prim_value(True)`, `1`).
fn unique_const(call: &Call, args: &[StructInfo], i: usize) -> Result<i64> {
    match super::common::prim_value_of(call, args, i).and_then(|v| v.as_int()) {
        Some(v) => Ok(v),
        None => Err(err(
            call,
            format!(
                "{} must be a constant prim value (True/False, or an integer axis)",
                arg_name(call, i)
            ),
        )),
    }
}

/// `R.unique(x, sorted, return_index, return_inverse, return_counts[, axis])`, TVM's
/// `InferTypeUnique`: the unique values (1-D, or `x`'s rank along `axis`; `(1,)` for a
/// rank-0 `x`), followed, if asked for, by the `int64` index, inverse and counts (1-D); one
/// tensor when nothing else is asked for, else a tuple. The lengths are known only when it
/// runs.
pub(super) fn infer_unique(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 5, 6)?;
    let x = tensor_arg(call, args, 0)?;
    unique_const(call, args, 1)?;
    let flags = [
        unique_const(call, args, 2)?,
        unique_const(call, args, 3)?,
        unique_const(call, args, 4)?,
    ];
    let axis = if args.len() == 6 {
        let a = unique_const(call, args, 5)?;
        if let Some(n) = x.ndim() {
            super::common::normalize_axis(call, a, n)?;
        }
        true
    } else {
        false
    };
    let one = || vec![tir::PrimExpr::i64(1)];
    let scalar = x.ndim() == Some(0);
    let mut fields = vec![if scalar {
        x.with_shape(one(), x.dtype)
    } else if axis {
        x.with_ndim(x.ndim, x.dtype)
    } else {
        x.with_ndim(1, x.dtype)
    }];
    for _ in flags.iter().filter(|&&f| f != 0) {
        fields.push(if scalar {
            x.with_shape(one(), Some(DataType::INT64))
        } else {
            x.with_ndim(1, Some(DataType::INT64))
        });
    }
    Ok(if fields.len() == 1 {
        fields.remove(0)
    } else {
        StructInfo::Tuple(fields)
    })
}
