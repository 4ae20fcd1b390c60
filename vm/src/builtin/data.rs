//! Data-structure and tensor-metadata builtins: register moves (`copy`, `null_value`), tuples,
//! `read_if_cond`, the no-copy tensor operations `shape_of`, `reshape`, `tensor_to_shape`, and
//! `shape_to_tensor` (TVM's `relax.run.shape_to_tensor`, a new 1-D int64 tensor).

use super::Args;
use crate::{DataType, Error, Result, TypeCode, Value};

/// `copy(a) -> a`: codegen's register move.
pub(super) fn copy(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.copy", args);
    a.expect_len(1, 1, "(a)")?;
    Ok(a.get(0).clone())
}

/// `null_value() -> None`: what `R.vm.kill_object` lowers to.
pub(super) fn null_value(args: &[Value]) -> Result<Value> {
    Args::new("vm.builtin.null_value", args).expect_len(0, 0, "()")?;
    Ok(Value::Null)
}

/// `make_tuple(*fields) -> Tuple`.
pub(super) fn make_tuple(args: &[Value]) -> Result<Value> {
    Ok(Value::tuple(args.to_vec()))
}

fn tuple_index(a: &Args<'_>, len: usize) -> Result<usize> {
    let i = a.int(1, "index")?;
    usize::try_from(i).ok().filter(|&i| i < len).ok_or_else(|| {
        Error::index(format!(
            "{}: index {i} is out of bounds for a tuple of {len} elements",
            a.name
        ))
    })
}

/// `tuple_getitem(tuple, index: int)`.
pub(super) fn tuple_getitem(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.tuple_getitem", args);
    a.expect_len(2, 2, "(arr: Tuple, index: int)")?;
    let Value::Tuple(t) = a.get(0) else {
        return Err(Error::type_error(format!(
            "Mismatched type on argument #0 (arr) when calling `{}`: expected ffi.Array, but got {}",
            a.name,
            a.get(0).type_name()
        )));
    };
    let i = tuple_index(&a, t.len())?;
    Ok(t[i].clone())
}

/// `tuple_reset_item(tuple, index: int)`: TVM nulls the field in place so that its memory can be
/// released before the tuple dies. relaxjit tuples are immutable shared values (a register read
/// hands out another reference), so there is no single place to clear; this validates the
/// arguments and leaves the field to be released with the tuple.
pub(super) fn tuple_reset_item(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.tuple_reset_item", args);
    a.expect_len(2, 2, "(arr: Tuple, index: int)")?;
    let Value::Tuple(t) = a.get(0) else {
        return Err(Error::type_error(format!(
            "Mismatched type on argument #0 (arr) when calling `{}`: expected ffi.Array, but got {}",
            a.name,
            a.get(0).type_name()
        )));
    };
    tuple_index(&a, t.len())?;
    Ok(Value::Null)
}

/// `read_if_cond(cond) -> bool`: a bool or int is used as is; a tensor of int/uint/bool dtype
/// gives `first element != 0`.
pub(super) fn read_if_cond(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.read_if_cond", args);
    a.expect_len(1, 1, "(cond)")?;
    let t = match a.get(0) {
        Value::Bool(b) => return Ok(Value::Bool(*b)),
        Value::Int(v) => return Ok(Value::Bool(*v != 0)),
        Value::Tensor(t) => t,
        other => {
            return Err(Error::type_error(format!(
                "{}: the condition must be a bool, an int or a Tensor, but got {}",
                a.name,
                other.type_name()
            )));
        }
    };
    let d = t.dtype();
    let int_like = matches!(
        d.type_code(),
        Some(TypeCode::Int | TypeCode::UInt | TypeCode::Bool)
    );
    if !int_like || d.lanes != 1 || !matches!(d.bits, 1 | 8 | 16 | 32 | 64) {
        return Err(Error::type_error(format!(
            "{}: a tensor condition must have an int, uint or bool dtype of 1, 8, 16, 32 or 64 bits, but got {d}",
            a.name
        )));
    }
    if t.numel() == 0 {
        return Err(Error::value_error(format!(
            "{}: the condition tensor of shape {:?} has no elements",
            a.name,
            t.shape()
        )));
    }
    // A 1-bit element occupies one byte; read it through a u8 view of the first byte.
    let first = if d.bits == 1 {
        t.view(&[], DataType::U8)?.get_i64(0)
    } else {
        t.get_i64(0)
    };
    let first =
        first.ok_or_else(|| Error::internal(format!("{}: cannot read a {d} element", a.name)))?;
    Ok(Value::Bool(first != 0))
}

/// `shape_of(tensor) -> Shape`.
pub(super) fn shape_of(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.shape_of", args);
    a.expect_len(1, 1, "(data: Tensor)")?;
    match a.get(0) {
        Value::Tensor(t) => Ok(Value::shape(t.shape())),
        other => Err(Error::type_error(format!(
            "vm.builtin.shape_of expects a Tensor or DLTensor*, but get {}",
            other.type_name()
        ))),
    }
}

/// `reshape(tensor, shape: Shape) -> Tensor`: a view of the same bytes, no copy.
pub(super) fn reshape(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.reshape", args);
    a.expect_len(2, 2, "(data: Tensor, new_shape: Shape)")?;
    let t = match a.get(0) {
        Value::Tensor(t) => t,
        other => {
            return Err(Error::type_error(format!(
                "vm.builtin.reshape expects a Tensor or DLTensor*, but get {}",
                other.type_name()
            )));
        }
    };
    let shape = a.shape(1, "new_shape")?;
    Ok(Value::Tensor(
        t.view(shape, t.dtype()).map_err(|e| e.context(a.name))?,
    ))
}

/// `shape_to_tensor(shape) -> Tensor`: the dimensions as a new 1-D int64 tensor.
pub(super) fn shape_to_tensor(args: &[Value]) -> Result<Value> {
    let a = Args::new("relax.run.shape_to_tensor", args);
    a.expect_len(1, 1, "(shape: Shape)")?;
    let dims = a.shape(0, "shape")?;
    let t = crate::Tensor::from_slice(&[dims.len() as i64], dims.dims())
        .map_err(|e| e.context(a.name))?;
    Ok(Value::Tensor(t))
}

/// `tensor_to_shape(tensor) -> Shape`: the elements of a 1-D int16/int32/int64 tensor.
pub(super) fn tensor_to_shape(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.tensor_to_shape", args);
    a.expect_len(1, 1, "(data: Tensor)")?;
    let t = a.tensor(0, "data")?;
    let d = t.dtype();
    if t.ndim() != 1 {
        return Err(Error::value_error(format!(
            "{}: expects a 1-D tensor, but got shape {:?}",
            a.name,
            t.shape()
        )));
    }
    if !(d.is_int() && d.lanes == 1 && matches!(d.bits, 16 | 32 | 64)) {
        return Err(Error::value_error(format!(
            "{}: expects an int16, int32 or int64 tensor, but got {d}",
            a.name
        )));
    }
    let dims = (0..t.numel())
        .map(|i| t.get_i64(i).expect("index in range of an int tensor"))
        .collect::<Vec<i64>>();
    Ok(Value::shape(dims))
}

/// `relaxjit.dynamic_strided_slice(data, begin, end, strides) -> Tensor`: `R.dynamic_strided_slice`
/// run at run time, its result allocated here since its shape is known only now. `begin`,
/// `end` and `strides` are 1-D integer tensors of one length `k` (at most the rank): axis
/// `i < k` keeps the elements `begin[i], begin[i] + strides[i], …` before `end[i]`, the
/// others are kept whole. Indices are normalized as TVM's legalization computes the output
/// shape: a negative index counts from the end, then it is clamped to `[0, dim]` for a
/// positive stride and `[-1, dim - 1]` for a negative one (numpy's slicing). TVM's kernel
/// then reads from the raw `begin`, which for a negative one reads outside the tensor; here
/// the normalized one is used, as the shape was computed from it. A zero stride is an error.
pub(super) fn dynamic_strided_slice(args: &[Value]) -> Result<Value> {
    let a = Args::new("relaxjit.dynamic_strided_slice", args);
    a.expect_len(
        4,
        4,
        "(data: Tensor, begin: Tensor, end: Tensor, strides: Tensor)",
    )?;
    let x = a.tensor(0, "data")?;
    let shape = x.shape().to_vec();
    let mut params = Vec::with_capacity(3);
    for (i, name) in [(1, "begin"), (2, "end"), (3, "strides")] {
        let t = a.tensor(i, name)?;
        let d = t.dtype();
        if t.ndim() != 1 || !(d.is_int() || d.is_uint()) || d.lanes != 1 {
            return Err(Error::value_error(format!(
                "{}: {name} must be a 1-D integer tensor, but got shape {:?} and dtype {d}",
                a.name,
                t.shape()
            )));
        }
        let values: Vec<i64> = (0..t.numel())
            .map(|k| t.get_i64(k))
            .collect::<Option<_>>()
            .ok_or_else(|| Error::internal(format!("{}: cannot read {name}", a.name)))?;
        params.push(values);
    }
    let (begin, end, strides) = (&params[0], &params[1], &params[2]);
    if begin.len() != end.len() || begin.len() != strides.len() || begin.len() > shape.len() {
        return Err(Error::value_error(format!(
            "{}: begin, end and strides must have one length, at most the rank {} of the data; got {}, {} and {}",
            a.name,
            shape.len(),
            begin.len(),
            end.len(),
            strides.len()
        )));
    }
    // Per axis: the first index read, the step, and the output length.
    let mut first = Vec::with_capacity(shape.len());
    let mut step = Vec::with_capacity(shape.len());
    let mut out_shape = Vec::with_capacity(shape.len());
    for (axis, &dim) in shape.iter().enumerate() {
        if axis >= begin.len() {
            first.push(0i128);
            step.push(1i128);
            out_shape.push(dim);
            continue;
        }
        let s = strides[axis] as i128;
        if s == 0 {
            return Err(Error::value_error(format!(
                "{}: the stride of axis {axis} is 0",
                a.name
            )));
        }
        let dim = dim as i128;
        let canonical = |index: i64| -> i128 {
            let index = index as i128;
            let index = if index < 0 { index + dim } else { index };
            let (lo, hi) = if s < 0 { (-1, dim - 1) } else { (0, dim) };
            index.clamp(lo, hi)
        };
        let (b, e) = (canonical(begin[axis]), canonical(end[axis]));
        // The span and step both positive: a ceiling division of non-negatives.
        let (span, by) = if s < 0 { (b - e, -s) } else { (e - b, s) };
        let len = if span <= 0 { 0 } else { (span + by - 1) / by };
        first.push(b);
        step.push(s);
        out_shape.push(len as i64);
    }
    let dtype = x.dtype();
    if dtype.bits % 8 != 0 {
        return Err(Error::value_error(format!(
            "{}: data of dtype {dtype}, whose elements are not whole bytes",
            a.name
        )));
    }
    let mut out = crate::Tensor::zeros(&out_shape, dtype).map_err(|e| e.context(a.name))?;
    let elem = dtype.bytes();
    let count = out.numel();
    if count == 0 {
        return Ok(Value::Tensor(out));
    }
    // Row-major strides of the input, in elements.
    let mut in_strides = vec![1i128; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        in_strides[axis] = in_strides[axis + 1] * shape[axis + 1] as i128;
    }
    let dst = out.bytes_mut()?;
    // SAFETY: a tensor's storage holds `nbytes` bytes from its data pointer, every byte
    // pattern is a valid `u8`, and `x` is not written while this runs (`out` is a fresh
    // tensor, so the two do not overlap).
    let src = unsafe { std::slice::from_raw_parts(x.as_ptr(), x.nbytes()) };
    let mut index = vec![0i64; shape.len()];
    for k in 0..count {
        // Every `first + i·step` with `i` below the output length lies in `[0, dim)`: the
        // clamping above keeps the first index inside and the length ends the run inside.
        let at: i128 = (0..shape.len())
            .map(|axis| (first[axis] + index[axis] as i128 * step[axis]) * in_strides[axis])
            .sum();
        // Checked all the same (a slice range), so that a flaw in that reasoning is an error,
        // not a read outside `x`.
        let from = usize::try_from(at)
            .ok()
            .and_then(|at| src.get(at * elem..(at + 1) * elem));
        let (Some(from), Some(to)) = (from, dst.get_mut(k * elem..(k + 1) * elem)) else {
            return Err(Error::internal(format!(
                "{}: element {at} of the data for output element {k} is outside the tensors",
                a.name
            )));
        };
        to.copy_from_slice(from);
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            if index[axis] < out_shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    Ok(Value::Tensor(out))
}
