//! The jit crate's error type.

/// Everything that can go wrong while building a host ISA or compiling a kernel.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Cranelift rejected a function. A verifier failure here always means a bug in our IR
    /// generation; other variants (code too large, implementation limits) may be input-driven.
    #[error("cranelift codegen: {0}")]
    Codegen(String),
    /// The host or the request needs something this crate does not implement
    /// (an architecture Cranelift cannot target, a type a lowering does not handle).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A Cranelift setting was rejected; always a bug in this crate.
    #[error("cranelift setting: {0}")]
    Settings(String),
    /// The JIT module failed to declare, define or finalize a function.
    #[error("cranelift module: {0}")]
    Module(String),
    /// A function translated to more Cranelift instructions than the compile budget allows
    /// ([`crate::code::MAX_CLIF_INSTRUCTIONS`]): refused before Cranelift's register allocator,
    /// whose time grows faster than the function, could take minutes over it. Input-driven (a
    /// valid but pathological program), never a bug.
    #[error(
        "`{function}` translates to {instructions} Cranelift instructions, more than the compile budget of {limit} per function"
    )]
    TooLarge {
        function: String,
        instructions: usize,
        limit: usize,
    },
}

/// `Result` with the jit crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<cranelift_codegen::CodegenError> for Error {
    fn from(e: cranelift_codegen::CodegenError) -> Self {
        Error::Codegen(e.to_string())
    }
}

impl From<cranelift_codegen::settings::SetError> for Error {
    fn from(e: cranelift_codegen::settings::SetError) -> Self {
        Error::Settings(e.to_string())
    }
}

impl From<cranelift_module::ModuleError> for Error {
    fn from(e: cranelift_module::ModuleError) -> Self {
        Error::Module(e.to_string())
    }
}
