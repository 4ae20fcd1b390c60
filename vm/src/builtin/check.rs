//! Run-time type checks that `VMShapeLower` emits at function boundaries and `match_cast`s:
//! `check_{tensor,shape,prim_value,tuple,func,string}_info`. A wrong kind is a `TypeError`, a
//! wrong property (ndim, dtype, length) a `ValueError`, each prefixed by the error context.

use super::{Args, with_ctx};
use crate::{DataType, Error, Result, TypeCode, Value};

/// `check_tensor_info(arg, ndim: int, [dtype: Optional<DataType>], err_ctx: Optional<str>)`.
/// With three arguments there is no dtype; `ndim == -1` means any rank.
pub(super) fn check_tensor_info(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.check_tensor_info", args);
    a.expect_len(
        3,
        4,
        "(arg, ndim: int, dtype: Optional<DataType>, err_ctx: Optional<str>)",
    )?;
    let ndim = a.int(1, "ndim")?;
    let (dtype, err_ctx) = if a.len() == 3 {
        (None, a.opt_str(2, "err_ctx")?)
    } else {
        (a.opt_dtype(2, "dtype")?, a.opt_str(3, "err_ctx")?)
    };
    let Value::Tensor(t) = a.get(0) else {
        return Err(Error::type_error(with_ctx(
            err_ctx,
            format!("expect a Tensor but get {}", a.get(0).type_name()),
        )));
    };
    if ndim != -1 && t.ndim() as i64 != ndim {
        return Err(Error::value_error(with_ctx(
            err_ctx,
            format!("expect Tensor with ndim {ndim} but get {}", t.ndim()),
        )));
    }
    if let Some(d) = dtype
        && t.dtype() != d
    {
        return Err(Error::value_error(with_ctx(
            err_ctx,
            format!("expect Tensor with dtype {d} but get {}", t.dtype()),
        )));
    }
    Ok(Value::Null)
}

/// `check_shape_info(arg, ndim: int, err_ctx: Optional<str>)`.
pub(super) fn check_shape_info(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.check_shape_info", args);
    a.expect_len(2, 3, "(arg, ndim: int, err_ctx: Optional<str>)")?;
    let ndim = a.int(1, "ndim")?;
    let err_ctx = a.opt_str(2, "err_ctx")?;
    let Value::Shape(s) = a.get(0) else {
        return Err(Error::type_error(with_ctx(
            err_ctx,
            format!("expect a Shape but get {}", a.get(0).type_name()),
        )));
    };
    if ndim != -1 && s.len() as i64 != ndim {
        return Err(Error::value_error(with_ctx(
            err_ctx,
            format!("expect Shape with ndim {ndim} but get {}", s.len()),
        )));
    }
    Ok(Value::Null)
}

/// `check_prim_value_info(arg, dtype: DataType, err_ctx: Optional<str>)`: `arg` must be a POD
/// value convertible to `dtype`'s kind. `void` (handle, 0 bits, 0 lanes) is "unknown" and is
/// rejected, as in TVM.
pub(super) fn check_prim_value_info(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.check_prim_value_info", args);
    a.expect_len(2, 3, "(arg, dtype: DataType, err_ctx: Optional<str>)")?;
    let dtype = a.dtype(1, "dtype")?;
    let err_ctx = a.opt_str(2, "err_ctx")?;
    let arg = a.get(0);
    let is_object = !matches!(
        arg,
        Value::Null
            | Value::Int(_)
            | Value::Float(_)
            | Value::Bool(_)
            | Value::DType(_)
            | Value::Device(_)
            | Value::Vm(_)
    );
    if is_object {
        return Err(Error::type_error(format!(
            "{}, expected dtype {dtype}, but received ObjectRef of type {}",
            err_ctx.trim_end(),
            arg.type_name()
        )));
    }
    let converts = match dtype.type_code() {
        Some(TypeCode::Bool) => arg.as_bool().is_ok(),
        Some(TypeCode::Int | TypeCode::UInt) => arg.as_int().is_ok(),
        Some(TypeCode::Float) => arg.as_float().is_ok(),
        Some(TypeCode::OpaqueHandle) if dtype != DataType::VOID => {
            matches!(arg, Value::Null | Value::Vm(_))
        }
        _ => {
            return Err(Error::type_error(format!(
                "{}, unsupported dtype {dtype}",
                err_ctx.trim_end()
            )));
        }
    };
    if !converts {
        return Err(Error::type_error(with_ctx(
            err_ctx,
            format!(
                "expect a {dtype} value but get {}",
                if arg.is_null() {
                    "None"
                } else {
                    arg.type_name()
                }
            ),
        )));
    }
    Ok(Value::Null)
}

/// `check_tuple_info(arg, size: int, err_ctx: Optional<str>)`.
pub(super) fn check_tuple_info(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.check_tuple_info", args);
    a.expect_len(2, 3, "(arg, size: int, err_ctx: Optional<str>)")?;
    let size = a.int(1, "size")?;
    let err_ctx = a.opt_str(2, "err_ctx")?;
    let Value::Tuple(t) = a.get(0) else {
        return Err(Error::type_error(with_ctx(
            err_ctx,
            format!("expect a Tuple but get {}", a.get(0).type_name()),
        )));
    };
    if t.len() as i64 != size {
        return Err(Error::value_error(with_ctx(
            err_ctx,
            format!(
                "expect a Tuple with {size} elements, but get a Tuple with {} elements.",
                t.len()
            ),
        )));
    }
    Ok(Value::Null)
}

/// `check_func_info(arg, err_ctx: Optional<str>)`: a packed function or a VM closure.
pub(super) fn check_func_info(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.check_func_info", args);
    a.expect_len(1, 2, "(arg, err_ctx: Optional<str>)")?;
    let err_ctx = a.opt_str(1, "err_ctx")?;
    match a.get(0) {
        Value::Func(_) | Value::Closure(_) => Ok(Value::Null),
        other => Err(Error::type_error(with_ctx(
            err_ctx,
            format!("expect a Function but get {}", other.type_name()),
        ))),
    }
}

/// `check_string_info(arg, err_ctx: Optional<str>)` (added in TVM 0.27).
pub(super) fn check_string_info(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.check_string_info", args);
    a.expect_len(1, 2, "(arg, err_ctx: Optional<str>)")?;
    let err_ctx = a.opt_str(1, "err_ctx")?;
    match a.get(0) {
        Value::Str(_) => Ok(Value::Null),
        other => Err(Error::type_error(with_ctx(
            err_ctx,
            format!("expect a String but get {}", other.type_name()),
        ))),
    }
}
