//! relaxjit: a JIT-centric tensor compiler and Relax virtual machine driven by Cranelift.

pub mod conformance;
pub mod tvm_bytecode;

pub use jit;
pub use relax;
pub use tir;
pub use vm;
