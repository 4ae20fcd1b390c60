//! Storage and memory builtins: `alloc_storage` / `alloc_tensor` (the memory planner's output),
//! `memory_manager.clear`, `to_device` and `ensure_zero_offset`.
//!
//! relaxjit computes on the host, so the only memory scope is `"global"` (an empty scope means the
//! same), and a "device copy" is a copy between host buffers.

use super::Args;
use crate::allocator::{alloc_storage as alloc_from, clear_all};
use crate::tensor::{Device, Storage, Tensor, checked_nbytes};
use crate::vm::VmRef;
use crate::{DataType, Error, Result, Value};

fn check_scope(builtin: &str, scope: &str) -> Result<()> {
    if scope.is_empty() || scope == "global" {
        Ok(())
    } else {
        Err(Error::value_error(format!(
            "{builtin}: memory scope \"{scope}\" is not supported; relaxjit allocates host memory, whose only scope is \"global\""
        )))
    }
}

/// `alloc_storage(ctx, shape: Shape, device_index: int, dtype_hint: DataType, scope: str)
/// -> Storage`: `prod(shape) * bytes(dtype_hint)` bytes from the allocator of device
/// `device_index`.
pub(super) fn alloc_storage(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.alloc_storage", args);
    a.expect_len(
        4,
        5,
        "(ctx, buffer_shape: Shape, device_index: int, dtype_hint: DataType, mem_scope: str)",
    )?;
    let vm = a.vm(0)?;
    let shape = a.shape(1, "buffer_shape")?;
    let device_index = a.int(2, "device_index")?;
    let dtype = a.dtype(3, "dtype_hint")?;
    let scope = if a.len() == 5 {
        Some(a.str(4, "mem_scope")?)
    } else {
        None
    };
    Ok(Value::Storage(alloc_storage_with(
        vm,
        shape,
        device_index,
        dtype,
        scope,
    )?))
}

/// What `vm.builtin.alloc_storage` does once its arguments are read: checks the scope and the
/// size and allocates. Compiled functions call it directly when the arguments have their usual
/// kinds.
pub fn alloc_storage_with(
    vm: &VmRef,
    shape: &[i64],
    device_index: i64,
    dtype: DataType,
    scope: Option<&str>,
) -> Result<Storage> {
    const NAME: &str = "vm.builtin.alloc_storage";
    if let Some(scope) = scope {
        check_scope(NAME, scope)?;
    }
    let size = checked_nbytes(shape, dtype).map_err(|e| e.context(NAME))?;
    let (allocator, device) = vm.allocator(device_index)?;
    alloc_from(allocator, size, device)
}

/// `alloc_tensor(storage, offset: int, shape: Shape, dtype: DataType[, scope: str]) -> Tensor`:
/// a tensor viewing `storage` from byte `offset`; it keeps the storage alive.
pub(super) fn alloc_tensor(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.alloc_tensor", args);
    a.expect_len(
        4,
        5,
        "(storage: Storage, offset: int, shape: Shape, dtype: DataType, scope: Optional<str>)",
    )?;
    let storage: &Storage = match a.get(0) {
        Value::Storage(s) => s,
        other => {
            return Err(Error::type_error(format!(
                "Mismatched type on argument #0 (storage) when calling `{}`: expected vm.Storage, but got {}",
                a.name,
                other.type_name()
            )));
        }
    };
    let offset = a.int(1, "offset")?;
    let shape = a.shape(2, "shape")?;
    let dtype = a.dtype(3, "dtype")?;
    if a.len() == 5 {
        check_scope(a.name, a.str(4, "scope")?)?;
    }
    Ok(Value::Tensor(storage.alloc_tensor(offset, shape, dtype)?))
}

/// `memory_manager.clear()`: releases the cached memory of every allocator in the process.
pub(super) fn memory_manager_clear(args: &[Value]) -> Result<Value> {
    Args::new("vm.builtin.memory_manager.clear", args).expect_len(0, 0, "()")?;
    clear_all();
    Ok(Value::Null)
}

/// `to_device(tensor, dev_type: int, dev_id: int[, scope: str]) -> Tensor`: a copy of `tensor`
/// on the given device (always a new tensor, as TVM's `CopyTo`).
pub(super) fn to_device(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.to_device", args);
    a.expect_len(
        3,
        4,
        "(data: Tensor, dev_type: int, dev_id: int, mem_scope: str)",
    )?;
    let data = a.tensor(0, "data")?;
    let dev_type = a.int(1, "dev_type")?;
    let dev_id = a.int(2, "dev_id")?;
    if a.len() == 4 {
        check_scope(a.name, a.str(3, "mem_scope")?)?;
    }
    let device = match (i32::try_from(dev_type), i32::try_from(dev_id)) {
        (Ok(Device::CPU_TYPE), Ok(id)) if id >= 0 => Device::cpu(id),
        _ => {
            return Err(Error::value_error(format!(
                "{}: cannot copy to device (type {dev_type}, id {dev_id}): relaxjit supports only the CPU (device type {})",
                a.name,
                Device::CPU_TYPE
            )));
        }
    };
    // A fresh tensor that no one else holds, so the checked write applies.
    let mut out = Tensor::zeros_on(data.shape(), data.dtype(), device)?;
    out.copy_from(data)?;
    Ok(Value::Tensor(out))
}

/// `ensure_zero_offset(tensor) -> Tensor`: the tensor itself if its data starts at byte 0 of its
/// storage, otherwise a copy that does. (A `Tensor` is storage + offset, so an alias with the
/// pointer advanced — TVM's first choice — is not expressible; TVM's fallback is this copy.)
pub(super) fn ensure_zero_offset(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.ensure_zero_offset", args);
    a.expect_len(1, 1, "(data: Tensor)")?;
    let data: &Tensor = a.tensor(0, "data")?;
    if data.byte_offset() == 0 {
        return Ok(Value::Tensor(data.clone()));
    }
    Ok(Value::Tensor(data.deep_copy()?))
}

/// `runtime.TVMTensorCreateView(data, shape, dtype, relative_byte_offset) -> Tensor`: the bytes
/// of `data` from the offset on, seen with `shape` and `dtype` (no copy); the view must lie
/// within `data` (`R.memory.view`, which LowerRuntimeBuiltin turns into this call).
pub(super) fn tensor_create_view(args: &[Value]) -> Result<Value> {
    let a = Args::new("runtime.TVMTensorCreateView", args);
    a.expect_len(
        4,
        4,
        "(data: Tensor, shape: Shape, dtype: DataType, relative_byte_offset: int)",
    )?;
    let data: &Tensor = a.tensor(0, "data")?;
    let shape = a.shape(1, "shape")?;
    let dtype = a.dtype(2, "dtype")?;
    let offset = a.int(3, "relative_byte_offset")?;
    Ok(Value::Tensor(
        data.view_at(shape, dtype, offset)
            .map_err(|e| e.context(a.name))?,
    ))
}
