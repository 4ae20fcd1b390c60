//! The Cranelift backends.

pub mod code;
pub mod error;
pub mod isa;
pub mod kernel;
pub mod library;
pub mod math;

pub use error::{Error, Result};
