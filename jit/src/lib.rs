//! The Cranelift backends.
