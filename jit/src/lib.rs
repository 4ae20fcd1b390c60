//! The Cranelift backends.

pub mod error;
pub mod isa;
pub mod kernel;
pub mod library;
pub mod math;
pub mod pool;

pub use error::{Error, Result};
