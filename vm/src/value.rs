//! `Value`: what a VM register holds — TVM's `ffi::Any` reduced to the kinds the Relax VM uses.
//!
//! Every variant's payload is at most eight bytes (heap kinds are thin `Arc`s), so a `Value` is
//! 16 bytes, the size of TVM's `TVMFFIAny`; a test asserts it. Cloning a heap kind bumps a
//! reference count; nothing is deep-copied.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::packed::PackedFunc;
use crate::tensor::{Device, Storage, Tensor};
use crate::vm::VmRef;
use crate::{DataType, Error, Result};

/// One register slot.
///
/// `repr(u8)`: the kind is the first byte and a payload of eight bytes sits at byte 8, so
/// compiled code may read a register in place ([`layout`]).
#[derive(Clone, Default)]
#[repr(u8)]
pub enum Value {
    /// TVM's `None`: an empty register, `R.null_value()`, the result of a void call.
    #[default]
    Null,
    Int(i64),
    Float(f64),
    Bool(bool),
    DType(DataType),
    Device(Device),
    Str(Str),
    /// `R.Shape` values (TVM's `ffi::Shape`).
    Shape(ShapeTuple),
    Tensor(Tensor),
    /// `vm.Storage`, from `vm.builtin.alloc_storage`.
    Storage(Storage),
    /// `R.Tuple` values (TVM's `ffi::Array<Any>`).
    Tuple(Tuple),
    /// `relax.vm.Closure`: a VM function with bound trailing arguments.
    Closure(Closure),
    /// An `ffi::Function`.
    Func(PackedFunc),
    /// Any other object a packed function may produce.
    Object(Object),
    /// The `%vm` register: the running VM, handed to builtins that need it.
    Vm(VmRef),
}

/// Where compiled code (`__vmtir__<name>`) reads a register (a `Value`) in place.
pub mod layout {
    /// Bytes per register.
    pub const SIZE: i32 = 16;
    /// `u8`: the kind.
    pub const TAG: i32 = 0;
    /// The payload: for a tensor, the address of its object (see `tensor::layout`).
    pub const PAYLOAD: i32 = 8;
    /// The kind byte of `Value::Null`.
    pub const TAG_NULL: u8 = 0;
    /// The kind byte of `Value::Tensor`.
    pub const TAG_TENSOR: u8 = 8;
    /// The kind byte of `Value::Storage`; its payload is the storage handle's eight bytes
    /// (see `tensor::layout::STORAGE`).
    pub const TAG_STORAGE: u8 = 9;
}

/// An immutable shared string.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Str(Arc<String>);

impl Str {
    pub fn new(s: impl Into<String>) -> Str {
        Str(Arc::new(s.into()))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Str {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// An immutable shared shape (`ffi::Shape`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ShapeTuple(Arc<Vec<i64>>);

impl ShapeTuple {
    // On the artifact cache's hit path (shape constants): one linker section for all of it
    // (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn new(dims: impl Into<Vec<i64>>) -> ShapeTuple {
        ShapeTuple(Arc::new(dims.into()))
    }
    pub fn dims(&self) -> &[i64] {
        &self.0
    }
}

impl std::ops::Deref for ShapeTuple {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        &self.0
    }
}

impl fmt::Debug for ShapeTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Shape({:?})", self.dims())
    }
}

/// An immutable shared tuple of values (`ffi::Array<Any>`).
#[derive(Clone, Default)]
pub struct Tuple(Arc<Vec<Value>>);

impl Tuple {
    pub fn new(fields: impl Into<Vec<Value>>) -> Tuple {
        Tuple(Arc::new(fields.into()))
    }
    pub fn fields(&self) -> &[Value] {
        &self.0
    }
    pub fn ptr_eq(&self, other: &Tuple) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
    /// Mutable access, copying the fields first if the tuple is shared.
    pub fn make_mut(&mut self) -> &mut Vec<Value> {
        Arc::make_mut(&mut self.0)
    }
}

impl std::ops::Deref for Tuple {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        &self.0
    }
}

/// What a closure calls.
#[derive(Clone)]
pub enum ClosureTarget {
    /// A function of the executable of the VM that invokes it, by index in its function table.
    VmFunc(usize),
    /// A packed function.
    Packed(PackedFunc),
}

struct ClosureInner {
    func_name: String,
    target: ClosureTarget,
    bound_args: Vec<Value>,
}

/// `relax.vm.Closure`: a function plus arguments bound after the call-time ones
/// (`VMClosure::BindLastArgs`).
#[derive(Clone)]
pub struct Closure(Arc<ClosureInner>);

impl Closure {
    pub fn new(
        func_name: impl Into<String>,
        target: ClosureTarget,
        bound_args: Vec<Value>,
    ) -> Closure {
        Closure(Arc::new(ClosureInner {
            func_name: func_name.into(),
            target,
            bound_args,
        }))
    }
    pub fn func_name(&self) -> &str {
        &self.0.func_name
    }
    pub fn target(&self) -> &ClosureTarget {
        &self.0.target
    }
    pub fn bound_args(&self) -> &[Value] {
        &self.0.bound_args
    }
    /// A closure calling the same function with `more` appended to the bound arguments.
    pub fn bind_last(&self, more: &[Value]) -> Closure {
        let mut bound = self.0.bound_args.clone();
        bound.extend_from_slice(more);
        Closure::new(self.0.func_name.clone(), self.0.target.clone(), bound)
    }
}

struct ObjectInner {
    type_key: String,
    value: Box<dyn Any + Send + Sync>,
}

/// An opaque object with a type key (`"relax.vm.KVState"`-like), for packed functions that
/// return something the VM passes around without looking inside.
#[derive(Clone)]
pub struct Object(Arc<ObjectInner>);

impl Object {
    pub fn new<T: Any + Send + Sync>(type_key: impl Into<String>, value: T) -> Object {
        Object(Arc::new(ObjectInner {
            type_key: type_key.into(),
            value: Box::new(value),
        }))
    }
    pub fn type_key(&self) -> &str {
        &self.0.type_key
    }
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.0.value.downcast_ref()
    }
}

impl Value {
    /// TVM's type key of the value, used in error messages.
    pub fn type_name(&self) -> &str {
        match self {
            Value::Null => "None",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Bool(_) => "bool",
            Value::DType(_) => "DataType",
            Value::Device(_) => "Device",
            Value::Str(_) => "ffi.String",
            Value::Shape(_) => "ffi.Shape",
            Value::Tensor(_) => "ffi.Tensor",
            Value::Storage(_) => "vm.Storage",
            Value::Tuple(_) => "ffi.Array",
            Value::Closure(_) => "relax.vm.Closure",
            Value::Func(_) => "ffi.Function",
            Value::Object(o) => o.type_key(),
            Value::Vm(_) => "void*",
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn str(s: impl Into<String>) -> Value {
        Value::Str(Str::new(s))
    }
    pub fn shape(dims: impl Into<Vec<i64>>) -> Value {
        Value::Shape(ShapeTuple::new(dims))
    }
    pub fn tuple(fields: impl Into<Vec<Value>>) -> Value {
        Value::Tuple(Tuple::new(fields))
    }

    fn mismatch(&self, expected: &str) -> Error {
        Error::type_error(format!(
            "Mismatched type: expected {expected}, but got {}",
            self.type_name()
        ))
    }

    /// An integer, as TVM's `cast<int64_t>` sees it: ints and bools.
    pub fn as_int(&self) -> Result<i64> {
        match self {
            Value::Int(v) => Ok(*v),
            Value::Bool(b) => Ok(*b as i64),
            _ => Err(self.mismatch("int")),
        }
    }
    /// A float, accepting ints as TVM does.
    pub fn as_float(&self) -> Result<f64> {
        match self {
            Value::Float(v) => Ok(*v),
            Value::Int(v) => Ok(*v as f64),
            Value::Bool(b) => Ok(*b as i64 as f64),
            _ => Err(self.mismatch("float")),
        }
    }
    pub fn as_bool(&self) -> Result<bool> {
        match self {
            Value::Bool(b) => Ok(*b),
            Value::Int(v) => Ok(*v != 0),
            _ => Err(self.mismatch("bool")),
        }
    }
    pub fn as_dtype(&self) -> Result<DataType> {
        match self {
            Value::DType(d) => Ok(*d),
            Value::Str(s) => s.parse(),
            _ => Err(self.mismatch("DataType")),
        }
    }
    pub fn as_str(&self) -> Result<&str> {
        match self {
            Value::Str(s) => Ok(s.as_str()),
            _ => Err(self.mismatch("ffi.String")),
        }
    }
    pub fn as_tensor(&self) -> Result<&Tensor> {
        match self {
            Value::Tensor(t) => Ok(t),
            _ => Err(self.mismatch("ffi.Tensor")),
        }
    }
    pub fn as_shape(&self) -> Result<&ShapeTuple> {
        match self {
            Value::Shape(s) => Ok(s),
            _ => Err(self.mismatch("ffi.Shape")),
        }
    }
    pub fn as_tuple(&self) -> Result<&Tuple> {
        match self {
            Value::Tuple(t) => Ok(t),
            _ => Err(self.mismatch("ffi.Array")),
        }
    }
    pub fn as_storage(&self) -> Result<&Storage> {
        match self {
            Value::Storage(s) => Ok(s),
            _ => Err(self.mismatch("vm.Storage")),
        }
    }
    pub fn as_closure(&self) -> Result<&Closure> {
        match self {
            Value::Closure(c) => Ok(c),
            _ => Err(self.mismatch("relax.vm.Closure")),
        }
    }
    pub fn as_func(&self) -> Result<&PackedFunc> {
        match self {
            Value::Func(f) => Ok(f),
            _ => Err(self.mismatch("ffi.Function")),
        }
    }
    pub fn as_vm(&self) -> Result<&VmRef> {
        match self {
            Value::Vm(v) => Ok(v),
            _ => Err(self.mismatch("the VM context (void*)")),
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("None"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v:?}"),
            Value::Bool(v) => write!(f, "{}", if *v { "True" } else { "False" }),
            Value::DType(d) => write!(f, "dtype({d})"),
            Value::Device(d) => write!(f, "{d}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Shape(s) => write!(f, "{s:?}"),
            Value::Tensor(t) => write!(f, "{t:?}"),
            Value::Storage(s) => write!(f, "{s:?}"),
            Value::Tuple(t) => f.debug_list().entries(t.fields()).finish(),
            Value::Closure(c) => write!(f, "Closure({})", c.func_name()),
            Value::Func(p) => write!(f, "Function({})", p.name()),
            Value::Object(o) => write!(f, "Object({})", o.type_key()),
            Value::Vm(_) => f.write_str("<vm>"),
        }
    }
}

macro_rules! value_from {
    ($($t:ty => $v:expr),*) => { $(impl From<$t> for Value { fn from(x: $t) -> Value { $v(x) } })* };
}
value_from!(i64 => Value::Int, f64 => Value::Float, bool => Value::Bool, DataType => Value::DType,
    Device => Value::Device, Str => Value::Str, ShapeTuple => Value::Shape, Tensor => Value::Tensor,
    Storage => Value::Storage, Tuple => Value::Tuple, Closure => Value::Closure,
    PackedFunc => Value::Func, Object => Value::Object);

impl From<i32> for Value {
    fn from(x: i32) -> Value {
        Value::Int(x as i64)
    }
}
impl From<&str> for Value {
    fn from(x: &str) -> Value {
        Value::str(x)
    }
}
impl From<String> for Value {
    fn from(x: String) -> Value {
        Value::str(x)
    }
}
impl From<()> for Value {
    fn from(_: ()) -> Value {
        Value::Null
    }
}
impl From<Vec<Value>> for Value {
    fn from(x: Vec<Value>) -> Value {
        Value::tuple(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_is_sixteen_bytes() {
        assert_eq!(size_of::<Value>(), 16);
        assert_eq!(size_of::<Option<Value>>(), 16);
    }

    /// Compiled code reads registers at the offsets of `layout`.
    #[test]
    fn the_layout_is_where_compiled_code_reads_it() {
        let t = Tensor::zeros(&[2], DataType::F32).unwrap();
        let v = Value::Tensor(t.clone());
        let p = (&v as *const Value).cast::<u8>();
        // SAFETY: `v` is a live 16-byte value; the reads stay within it.
        let (tag, payload) = unsafe {
            (
                p.add(layout::TAG as usize).read(),
                p.add(layout::PAYLOAD as usize).cast::<*const u8>().read(),
            )
        };
        assert_eq!(tag, layout::TAG_TENSOR);
        assert_eq!(payload, t.object_address());
        let storage = Value::Storage(t.storage().clone());
        // SAFETY: as above.
        let tag = unsafe { (&storage as *const Value).cast::<u8>().read() };
        assert_eq!(tag, layout::TAG_STORAGE);
        let null = Value::Null;
        // SAFETY: as above.
        let tag = unsafe { (&null as *const Value).cast::<u8>().read() };
        assert_eq!(tag, layout::TAG_NULL);
        assert_eq!(size_of::<Value>(), layout::SIZE as usize);
    }

    #[test]
    fn values_are_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Value>();
    }
}
