//! The root crate's error type: one enum wrapping the errors of the layers below with the stage
//! of the [`Engine`](crate::Engine) (or the file) that failed.
//!
//! The wrapped error is kept as a field, not as a `source()`, because its text is already part
//! of the message: printing the chain (`{:#}` in anyhow) would repeat it.

use std::path::PathBuf;

/// What can go wrong in the engine and the `.npy` reader/writer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A stage of the Relax pipeline rejected the module: text that does not parse (line,
    /// column and caret are in the message), an operator without a legalization, a construct
    /// a pass does not handle (named with its function and variable).
    #[error("{stage}: {error}")]
    Relax {
        /// `parsing TVMScript`, or the pass: `LegalizeOps`, `FuseOps`, `VMShapeLower`, …
        stage: String,
        error: relax::Error,
    },
    /// An ONNX model could not be imported (a malformed file, or an operator, attribute or
    /// data type the importer does not handle, named with its node and opset).
    #[error("importing ONNX: {error}")]
    Onnx { error: onnx::Error },
    /// The kernel JIT could not compile a PrimFunc.
    #[error("compiling kernels: {error}")]
    Jit { error: jit::Error },
    /// The executable could not be linked with its kernels (a function the bytecode calls is
    /// neither a compiled kernel nor a registered builtin).
    #[error("linking: {error}")]
    Link { error: vm::Error },
    /// A run-time error of the VM or a kernel (a shape check, a failed builtin, …).
    #[error("{0}")]
    Runtime(vm::Error),
    /// A configuration or request this build does not support.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// An argument the caller got wrong (a missing function, an input of the wrong kind).
    #[error("{0}")]
    InvalidArgument(String),
    /// A file that could not be read or written.
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// A `.npy` file this reader does not accept (bad header, Fortran order, an unsupported
    /// dtype, a size that does not match the shape).
    #[error("{}: {message}", path.display())]
    Npy { path: PathBuf, message: String },
}

impl Error {
    /// Wraps a Relax error with the stage that raised it.
    pub fn relax(stage: impl Into<String>, error: relax::Error) -> Error {
        Error::Relax {
            stage: stage.into(),
            error,
        }
    }
}

impl From<vm::Error> for Error {
    fn from(error: vm::Error) -> Error {
        Error::Runtime(error)
    }
}

impl From<onnx::Error> for Error {
    fn from(error: onnx::Error) -> Error {
        Error::Onnx { error }
    }
}

impl From<jit::Error> for Error {
    fn from(error: jit::Error) -> Error {
        Error::Jit { error }
    }
}

/// `Result` with the root crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
