//! Elementwise unary operators (`R.exp`, `R.abs`, `R.isnan`, `R.clip`, `R.astype`, the
//! elementwise activations of `R.nn`): the result has the input's shape.

use crate::Result;
use crate::ir::{Call, StructInfo};
use crate::op::common::{attr_opt_dtype, check_arity, err, prim_arg, tensor_arg};

/// Same struct info as the input, any dtype (TVM's `InferStructInfoUnaryArith<false>`).
pub(super) fn infer_arith(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    Ok(tensor_arg(call, args, 0)?.to_struct_info())
}

/// Same struct info as the input, which must have a float dtype when the dtype is known.
pub(super) fn infer_float(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    if let Some(d) = x.dtype
        && !d.is_float()
    {
        return Err(err(call, format!("requires a float tensor, got dtype {d}")));
    }
    Ok(x.to_struct_info())
}

/// `R.isnan` and friends: the input's shape, dtype `bool`.
pub(super) fn infer_check(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    Ok(x.result(x.shape.clone(), x.ndim, Some(tir::DataType::BOOL)))
}

/// `R.clip(x, min, max)` with prim-value bounds.
pub(super) fn infer_clip(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let x = tensor_arg(call, args, 0)?;
    prim_arg(call, args, 1)?;
    prim_arg(call, args, 2)?;
    Ok(x.to_struct_info())
}

/// `R.astype(x, dtype)`: the input's shape with the new dtype.
pub(super) fn infer_astype(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let dtype =
        attr_opt_dtype(call, "dtype")?.ok_or_else(|| err(call, "missing attribute `dtype`"))?;
    Ok(x.result(x.shape.clone(), x.ndim, Some(dtype)))
}
