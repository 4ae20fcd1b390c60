//! The Cranelift backends.

pub mod error;
pub mod isa;
pub mod kernel;
pub mod library;
pub mod math;

pub use error::{Error, Result};
