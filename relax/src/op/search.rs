//! Struct-info inference of `R.bucketize` (TVM's `InferTypeBucketize`, `search.cc`) and
//! `R.multinomial_from_uniform` (`InferTypeMultinomialFromUniform`, `sampling.cc`).

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
