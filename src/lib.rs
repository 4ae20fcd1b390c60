//! relaxjit: a JIT-centric tensor compiler and Relax virtual machine driven by Cranelift.

mod cache;
pub mod engine;
pub mod error;
pub mod npy;

pub use engine::{BUILD, CompiledModule, Config, Engine, ExecMode, MAX_THREADS, OnnxModel};
pub use error::{Error, Result};
pub use jit::cache::ArtifactCache;
pub use vm::{Tensor, Value};

pub use jit;
pub use onnx;
pub use relax;
pub use tir;
pub use vm;
