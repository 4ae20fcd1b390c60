//! Call forms and runtime-level operators: `R.call_tir`, `R.call_dps_packed`,
//! `R.call_pure_packed`, `R.call_builtin_with_ctx`, closures, `R.shape_of`, `R.null_value`,
//! and the `R.vm.*` / `R.memory.*` / `R.builtin.*` allocation operators.

use tir::DataType;

use crate::Result;
use crate::ir::{Call, ExprKind, StructInfo};
use crate::op::common::{check_arity, err, shape_arg, tensor_arg, tuple_arg};
use crate::struct_info_ops::const_value;

/// The struct info given by `ty_args`: one, or a tuple of several.
fn from_ty_args(call: &Call, what: &str) -> Result<StructInfo> {
    match call.ty_args.as_slice() {
        [] => Err(err(
            call,
            format!("missing `{what}` (the result's struct info)"),
        )),
        [one] => Ok(one.clone()),
        many => Ok(StructInfo::Tuple(many.to_vec())),
    }
}

/// `R.call_tir(f, (args...), out_ty)` and the other destination-passing calls: the result is
/// `out_ty`; the arguments must be a tuple.
pub(super) fn infer_call_dps(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 3)?;
    tuple_arg(call, args, 1)?;
    if args.len() == 3 {
        shape_arg(call, args, 2)?;
    }
    let out = from_ty_args(call, "out_ty")?;
    let all_tensors = match &out {
        StructInfo::Tensor { .. } => true,
        StructInfo::Tuple(fields) => fields
            .iter()
            .all(|f| matches!(f, StructInfo::Tensor { .. })),
        _ => false,
    };
    if !all_tensors {
        return Err(err(call, "out_ty must be a tensor or a list of tensors"));
    }
    Ok(out)
}

/// Calls whose result is given by `ty_args` (`R.call_pure_packed`, `R.invoke_closure`).
pub(super) fn infer_ty_args(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    if args.is_empty() {
        return Err(err(call, "missing the callee"));
    }
    from_ty_args(call, "ty_args")
}

/// `R.call_builtin_with_ctx(name, (args...), ty_args)`: `ty_args`, or `R.Any` without.
pub(super) fn infer_builtin_with_ctx(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 2)?;
    match call.ty_args.as_slice() {
        [] => Ok(StructInfo::Any),
        [one] => Ok(one.clone()),
        many => Ok(StructInfo::Tuple(many.to_vec())),
    }
}

/// Operators that give an opaque object (`R.null_value`, `R.make_closure`, storage).
pub(super) fn infer_any(_call: &Call, _args: &[StructInfo]) -> Result<StructInfo> {
    Ok(StructInfo::Any)
}

/// Operators run for their effect: the empty tuple.
pub(super) fn infer_void(_call: &Call, _args: &[StructInfo]) -> Result<StructInfo> {
    Ok(StructInfo::void())
}

/// The struct info of the first argument.
pub(super) fn infer_same_as_arg0(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    args.first()
        .cloned()
        .ok_or_else(|| err(call, "missing argument 0"))
}

/// `R.shape_of(x)`: the tensor's shape as an `R.Shape`.
pub(super) fn infer_shape_of(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    Ok(StructInfo::Shape {
        values: x.shape.clone(),
        ndim: x.ndim,
    })
}

/// `R.size(x)`: the element count, an `int64` prim value.
pub(super) fn infer_size(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    tensor_arg(call, args, 0)?;
    // TVM's `InferTypeSize`: a scalar tensor, not a PrimValue (TVM 0.27 prints
    // `R.Tensor((), dtype="int64")`).
    Ok(StructInfo::tensor(Vec::new(), DataType::INT64))
}

/// `R.tensor_to_shape(t)`: a 1-D integer tensor read as a shape.
pub(super) fn infer_tensor_to_shape(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    if x.ndim >= 0 && x.ndim != 1 {
        return Err(err(
            call,
            format!("requires a 1-D tensor, got rank {}", x.ndim),
        ));
    }
    let ndim = x
        .shape
        .as_ref()
        .and_then(|s| const_value(&s[0]))
        .unwrap_or(-1);
    Ok(StructInfo::Shape { values: None, ndim })
}

/// `R.shape_to_tensor(s)`: a 1-D `int64` tensor.
pub(super) fn infer_shape_to_tensor(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let (_, ndim) = shape_arg(call, args, 0)?;
    Ok(if ndim >= 0 {
        StructInfo::tensor(vec![tir::PrimExpr::i64(ndim)], DataType::INT64)
    } else {
        StructInfo::tensor_ndim(1, Some(DataType::INT64))
    })
}

/// The dtype written as `R.dtype("float32")` in argument `i`.
fn dtype_arg(call: &Call, i: usize) -> Option<DataType> {
    match call.args.get(i)?.kind() {
        ExprKind::DataTypeImm(d) => Some(*d),
        ExprKind::StringImm(s) => DataType::parse(s),
        _ => None,
    }
}

fn alloc_result(
    call: &Call,
    args: &[StructInfo],
    shape_i: usize,
    dtype_i: usize,
) -> Result<StructInfo> {
    let (values, ndim) = shape_arg(call, args, shape_i)?;
    let dtype = dtype_arg(call, dtype_i);
    Ok(match values {
        Some(v) => StructInfo::Tensor {
            ndim: v.len() as i64,
            shape: Some(v),
            dtype,
            vdevice: None,
        },
        None => StructInfo::tensor_ndim(ndim, dtype),
    })
}

/// `R.vm.alloc_tensor(storage, offset, shape, dtype, device)` (also `R.memory.alloc_tensor`).
pub(super) fn infer_alloc_tensor_vm(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 4, 5)?;
    alloc_result(call, args, 2, 3)
}

/// `R.builtin.alloc_tensor(shape, dtype, device, scope)`.
pub(super) fn infer_alloc_tensor_builtin(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 4)?;
    alloc_result(call, args, 0, 1)
}

/// `R.memory.view(data, shape, dtype, offset)`.
///
/// A left-out argument is void (`R.tuple()`): the data's shape, dtype and offset 0. Like TVM's
/// `InferTypeView`, a view that provably reaches past the data's bytes (constant shapes) is an
/// error here; otherwise the run-time view checks it.
pub(super) fn infer_view(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 4)?;
    let x = tensor_arg(call, args, 0)?;
    let dtype = dtype_arg(call, 2).or(x.dtype);
    let (shape, ndim) = match args.get(1) {
        Some(StructInfo::Shape { values, ndim }) => (values.clone(), *ndim),
        _ => (x.shape.clone(), x.ndim),
    };
    let offset = match args.get(3) {
        Some(StructInfo::Prim { value, .. }) => value.as_ref().and_then(|v| v.as_int()),
        _ => Some(0),
    };
    let nbytes = |dims: &Option<Vec<tir::PrimExpr>>, dt: Option<DataType>| -> Option<i128> {
        let dims = dims.as_ref()?;
        let mut n = i128::from(dt?.bytes() as i64);
        for d in dims {
            n = n.checked_mul(i128::from(d.as_int()?))?;
        }
        Some(n)
    };
    if let (Some(view), Some(data), Some(offset)) =
        (nbytes(&shape, dtype), nbytes(&x.shape, x.dtype), offset)
        && (offset < 0 || i128::from(offset) + view > data)
    {
        return Err(err(
            call,
            format!(
                "the view of {view} bytes at byte offset {offset} does not lie within the data's {data} bytes"
            ),
        ));
    }
    Ok(x.result(shape, ndim, dtype))
}
