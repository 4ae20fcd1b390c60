//! The Cranelift backends.

pub mod cache;
pub mod checksum;
pub mod code;
pub mod error;
pub mod isa;
pub mod kernel;
pub mod library;
pub mod math;
pub mod pool;
pub mod sha256;
pub mod vmtir;

pub use error::{Error, Result};
