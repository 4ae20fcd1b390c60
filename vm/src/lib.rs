//! relaxjit's runtime: tensors, register values, packed functions, TVM-compatible bytecode
//! executables and the Relax VM interpreter with its `vm.builtin.*` library.
//!
//! This crate knows no IR: it runs executables whose kernels arrive as packed functions (from
//! the JIT, or registered by hand), which is what keeps the runtime usable without the JIT.

pub mod allocator;
pub mod builtin;
pub mod bytecode;
mod dtype;
mod error;
pub mod exec_builder;
pub mod executable;
pub mod hit;
pub mod inline;
mod name_map;
pub mod packed;
pub mod serialize;
pub mod tensor;
pub mod text;
pub mod value;
pub mod vm;

pub use allocator::{Allocator, AllocatorKind};
pub use dtype::{DataType, TypeCode};
pub use error::{Error, ErrorKind, Result};

pub use exec_builder::ExecBuilder;
pub use executable::{Executable, FixedState, FuncInfo, FuncKind};
pub use inline::{InlineBuiltin, Spare};
pub use name_map::NameMap;
pub use packed::{PackedFunc, Registry};
pub use tensor::{Device, Element, SharedBytes, Storage, Tensor};
pub use value::{Closure, ClosureTarget, Object, ShapeTuple, Str, Tuple, Value};
pub use vm::{Library, VirtualMachine, VmConfig, VmRef, VmTirFunc};
