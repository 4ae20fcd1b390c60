//! relaxjit: a JIT-centric tensor compiler and Relax virtual machine driven by Cranelift.

pub mod bytecode_mode;
pub mod conformance;
pub mod demo;
pub mod engine;
pub mod error;
pub mod npy;
pub mod tvm_bytecode;
pub mod values;

pub use engine::{CompiledModule, Config, Engine, ExecMode, MAX_THREADS};
pub use error::{Error, Result};
pub use vm::{Tensor, Value};

pub use jit;
pub use relax;
pub use tir;
pub use vm;
