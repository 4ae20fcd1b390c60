//! Calling builtins: closures (`make_closure`, `invoke_closure`), `call_tir_dyn`, the debug hook
//! `invoke_debug_func`, and the host-function registry behind `call_py_func` (TVM keeps Python
//! callables there; here any packed function registered from the host).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::Args;
use crate::packed::{PackedFunc, Registry};
use crate::value::{Closure, ClosureTarget};
use crate::{Error, Result, Value};

/// `make_closure(closure, *captured) -> Closure`: binds `captured` after the call-time arguments
/// (`VMClosure::BindLastArgs`). A packed function is accepted as well and wrapped.
pub(super) fn make_closure(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.make_closure", args);
    a.expect_len(1, usize::MAX, "(closure: Closure, *captured)")?;
    let captured = &a.all()[1..];
    let closure = match a.get(0) {
        Value::Closure(c) => c.bind_last(captured),
        Value::Func(f) => Closure::new(
            f.name(),
            ClosureTarget::Packed(f.clone()),
            captured.to_vec(),
        ),
        other => {
            return Err(Error::type_error(format!(
                "Mismatched type on argument #0 (closure) when calling `{}`: expected relax.vm.Closure, but got {}",
                a.name,
                other.type_name()
            )));
        }
    };
    Ok(Value::Closure(closure))
}

/// `invoke_closure(ctx, callee, *args)`: calls a closure or a packed function.
pub(super) fn invoke_closure(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.invoke_closure", args);
    a.expect_len(2, usize::MAX, "(ctx, closure, *args)")?;
    let vm = a.vm(0)?;
    match a.get(1) {
        callee @ (Value::Closure(_) | Value::Func(_)) => vm.invoke_closure(callee, &a.all()[2..]),
        other => Err(Error::type_error(format!(
            "Mismatched type on argument #1 (closure) when calling `{}`: expected relax.vm.Closure or ffi.Function, but got {}",
            a.name,
            other.type_name()
        ))),
    }
}

/// `call_tir_dyn(f, *tensors, shape: Shape)`: calls `f(*tensors, *shape)`, the trailing shape
/// unpacked into ints (for kernels with symbolic dimensions).
pub(super) fn call_tir_dyn(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.call_tir_dyn", args);
    a.expect_len(2, usize::MAX, "(func: Function, *tensors, shape: Shape)")?;
    let Value::Func(f) = a.get(0) else {
        return Err(Error::type_error(format!(
            "Mismatched type on argument #0 (func) when calling `{}`: expected ffi.Function, but got {}",
            a.name,
            a.get(0).type_name()
        )));
    };
    let last = a.len() - 1;
    let to_unpack = a.shape(last, "shape")?;
    let mut call_args = Vec::with_capacity(last - 1 + to_unpack.len());
    call_args.extend_from_slice(&a.all()[1..last]);
    call_args.extend(to_unpack.iter().map(|&d| Value::Int(d)));
    f.call(&call_args)
}

/// `invoke_debug_func(io_effect, debug_func_name: str, line_info: str, *args)`: calls the global
/// function `debug_func_name(line_info, *args)` and returns `io_effect` (None).
pub(super) fn invoke_debug_func(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.invoke_debug_func", args);
    a.expect_len(
        3,
        usize::MAX,
        "(io_effect, debug_func_name: str, line_info: str, *args)",
    )?;
    if !a.get(0).is_null() {
        return Err(Error::value_error(
            "IOEffect is expected to be lowered to None.",
        ));
    }
    let name = a.str(1, "debug_func_name")?;
    let line_info = a.str(2, "line_info")?;
    let debug_func = Registry::global().get(name).ok_or_else(|| {
        Error::value_error(format!(
            "{name} is not found. Use the decorator `@tvm.register_global_func(\"{name}\")` to register it."
        ))
    })?;
    let mut call_args = Vec::with_capacity(a.len() - 2);
    call_args.push(Value::str(line_info));
    call_args.extend_from_slice(&a.all()[3..]);
    debug_func.call(&call_args)?;
    Ok(Value::Null)
}

fn host_funcs() -> &'static Mutex<HashMap<String, PackedFunc>> {
    static FUNCS: OnceLock<Mutex<HashMap<String, PackedFunc>>> = OnceLock::new();
    FUNCS.get_or_init(Default::default)
}

fn lookup_host_func(name: &str) -> Result<PackedFunc> {
    host_funcs()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(name)
        .cloned()
        .ok_or_else(|| Error::internal(format!("Python function '{name}' not found in registry")))
}

/// `register_py_func(name: str, func: Function)`.
pub(super) fn register_py_func(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.register_py_func", args);
    a.expect_len(2, 2, "(name: str, func: Function)")?;
    let name = a.str(0, "name")?;
    let Value::Func(f) = a.get(1) else {
        return Err(Error::type_error(format!(
            "Mismatched type on argument #1 (func) when calling `{}`: expected ffi.Function, but got {}",
            a.name,
            a.get(1).type_name()
        )));
    };
    host_funcs()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(name.to_string(), f.clone());
    Ok(Value::Null)
}

/// `get_py_func(name: str) -> Function`.
pub(super) fn get_py_func(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.get_py_func", args);
    a.expect_len(1, 1, "(name: str)")?;
    Ok(Value::Func(lookup_host_func(a.str(0, "name")?)?))
}

/// `clear_py_func_registry()`.
pub(super) fn clear_py_func_registry(args: &[Value]) -> Result<Value> {
    Args::new("vm.builtin.clear_py_func_registry", args).expect_len(0, 0, "()")?;
    host_funcs()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
    Ok(Value::Null)
}

/// `call_py_func((name: str, args: Tuple))`: calls the registered host function `name(*args)`.
pub(super) fn call_py_func(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.call_py_func", args);
    if a.len() != 1 {
        return Err(Error::internal(
            "vm.builtin.call_py_func expects exactly 1 argument (tuple)",
        ));
    }
    let Value::Tuple(t) = a.get(0) else {
        return Err(Error::type_error(format!(
            "vm.builtin.call_py_func expects a tuple (func_name, args), but got {}",
            a.get(0).type_name()
        )));
    };
    let (Some(Value::Str(name)), Some(Value::Tuple(call_args)), 2) = (t.first(), t.get(1), t.len())
    else {
        return Err(Error::internal(
            "vm.builtin.call_py_func tuple should contain (func_name, args)",
        ));
    };
    lookup_host_func(name)?.call(call_args)
}
