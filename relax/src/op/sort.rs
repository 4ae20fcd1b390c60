//! Sorting: `R.sort`, `R.argsort`, `R.topk`.

use tir::DataType;

use crate::Result;
use crate::ir::{Call, StructInfo};
use crate::op::common::{
    attr_int, attr_opt_dtype, attr_str, check_arity, dim, err, normalize_axis, tensor_arg,
};
use crate::struct_info_ops::const_value;

/// `R.sort(x, axis, descending)`: the input's struct info.
pub(super) fn infer_sort(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    if let Some(n) = x.ndim() {
        normalize_axis(call, attr_int(call, "axis")?, n)?;
    }
    Ok(x.to_struct_info())
}

/// `R.argsort(x, axis, descending, dtype)`: indices of dtype `dtype`.
pub(super) fn infer_argsort(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    if let Some(n) = x.ndim() {
        normalize_axis(call, attr_int(call, "axis")?, n)?;
    }
    let dtype = attr_opt_dtype(call, "dtype")?.unwrap_or(DataType::INT32);
    Ok(x.result(x.shape.clone(), x.ndim, Some(dtype)))
}

/// `R.topk(x, k, axis, ret_type, largest, dtype)`: `(values, indices)`, or one of them.
pub(super) fn infer_topk(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let k = attr_int(call, "k")?;
    let dtype = attr_opt_dtype(call, "dtype")?.unwrap_or(DataType::INT32);
    let ret_type = attr_str(call, "ret_type")?;
    let shape = match (x.ndim(), &x.shape) {
        (Some(n), Some(s)) => {
            let a = normalize_axis(call, attr_int(call, "axis")?, n)?;
            let mut out = s.clone();
            if k >= 1 {
                if let Some(d) = const_value(&s[a])
                    && k > d
                {
                    return Err(err(
                        call,
                        format!("k = {k} is larger than axis {a}, which has {d} elements"),
                    ));
                }
                out[a] = dim(k);
            }
            Some(out)
        }
        (Some(n), None) => {
            normalize_axis(call, attr_int(call, "axis")?, n)?;
            None
        }
        _ => None,
    };
    let values = x.result(shape.clone(), x.ndim, x.dtype);
    let indices = x.result(shape, x.ndim, Some(dtype));
    match ret_type.as_str() {
        "both" => Ok(StructInfo::Tuple(vec![values, indices])),
        "values" => Ok(values),
        "indices" => Ok(indices),
        other => Err(err(
            call,
            format!("ret_type must be \"both\", \"values\" or \"indices\", got \"{other}\""),
        )),
    }
}
