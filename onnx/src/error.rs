//! The ONNX frontend's error type.

use std::path::PathBuf;

/// What can go wrong importing an ONNX model.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes are not a valid protobuf encoding of the message.
    #[error("cannot decode {what}: {error}")]
    Decode {
        what: &'static str,
        error: prost::DecodeError,
    },
    /// A file (the model or an external-data file) could not be read.
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The model is malformed: a missing graph, an undefined value, a tensor whose data does
    /// not match its shape, an attribute of the wrong type.
    #[error("invalid model: {0}")]
    Invalid(String),
    /// An operator, attribute value or data type this importer does not handle. The message
    /// names the operator, the node and the opset.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// Building the Relax function failed (struct-info inference rejected a call). The
    /// message names the node.
    #[error("{context}: {error}")]
    Relax {
        context: String,
        error: relax::Error,
    },
}

/// `Result` with the ONNX frontend's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
