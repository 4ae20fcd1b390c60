//! The `relax` crate's error type.

use thiserror::Error;

/// Errors of the Relax IR, its passes and its TVMScript reader.
#[derive(Debug, Clone, Error)]
pub enum Error {
    /// Text that does not parse; the message carries line, column and a caret.
    #[error("{0}")]
    Parse(String),
    /// An expression whose struct info cannot be inferred (an op given the wrong kind of
    /// argument, incompatible shapes, …): the fault of the input program.
    #[error("{0}")]
    TypeInference(String),
    /// A module that breaks an IR invariant (an undefined variable, a dataflow variable used
    /// outside its block, …).
    #[error("malformed module: {0}")]
    WellFormed(String),
    /// A construct the pipeline does not handle; names the construct and where it is.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// An error from the TIR layer (parsing or analysing a PrimFunc).
    #[error(transparent)]
    Tir(#[from] tir::Error),
    /// An error raised by (or, in debug builds, a malformed module produced by) the named pass.
    #[error("{pass}: {error}")]
    Pass {
        pass: &'static str,
        error: Box<Error>,
    },
    /// A violated invariant inside relaxjit itself: always a bug.
    #[error("internal error: {0}")]
    Internal(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
