//! The `vm` crate's error type.
//!
//! The kinds mirror the Python exception classes TVM raises from its runtime (`TypeError`,
//! `ValueError`, `RuntimeError`, `IndexError`, `InternalError`), so that a message written here
//! reads like TVM's for the same failure. Loading corrupt bytes has its own variant.

use std::fmt;

/// What went wrong, in TVM's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A value has the wrong kind (a shape where a tensor was expected, …).
    Type,
    /// A value has the right kind but a wrong property (ndim, dtype, arity, …).
    Value,
    /// A failure found while running (shape mismatch, out of memory, …).
    Runtime,
    /// An index is out of range.
    Index,
    /// The bytes of a serialized executable are malformed.
    Load,
    /// An `R.assert_op` whose condition was false (`relax.run.assert_op`).
    Assertion,
    /// A violated invariant of the VM itself. Always a bug in relaxjit or in the code that built
    /// the executable, never the fault of input data.
    Internal,
}

impl ErrorKind {
    /// The name of the Python exception class TVM raises for this kind.
    pub fn tvm_name(self) -> &'static str {
        match self {
            ErrorKind::Type => "TypeError",
            ErrorKind::Value => "ValueError",
            ErrorKind::Runtime => "RuntimeError",
            ErrorKind::Index => "IndexError",
            ErrorKind::Load => "LoadError",
            ErrorKind::Assertion => "AssertionError",
            ErrorKind::Internal => "InternalError",
        }
    }
}

/// An error from the runtime: a kind and a message.
///
/// Errors raised while running bytecode carry a short trace of the VM functions they crossed
/// (innermost first), added as the error unwinds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    trace: Vec<String>,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            trace: Vec::new(),
        }
    }
    pub fn type_error(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Type, message)
    }
    pub fn value_error(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Value, message)
    }
    pub fn runtime(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Runtime, message)
    }
    pub fn index(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Index, message)
    }
    pub fn load(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Load, message)
    }
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Internal, message)
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    pub fn message(&self) -> &str {
        &self.message
    }
    /// The VM functions the error unwound through, innermost first.
    pub fn trace(&self) -> &[String] {
        &self.trace
    }
    /// Records that the error left the VM function `name`.
    pub fn with_frame(mut self, name: &str) -> Error {
        self.trace.push(name.to_string());
        self
    }
    /// Prefixes the message with some context (`"while loading constant 3: "`).
    pub fn context(mut self, prefix: impl fmt::Display) -> Error {
        self.message = format!("{prefix}: {}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.tvm_name(), self.message)?;
        if !self.trace.is_empty() {
            write!(f, " (in {})", trace_text(&self.trace))?;
        }
        Ok(())
    }
}

/// Frames of a trace shown at each end when there are more distinct runs than twice this.
const TRACE_ENDS: usize = 8;

/// A trace as `inner <- outer`, each run of one repeated frame (a recursion) written once
/// with its count (`loop ×10000`), and the middle of a trace of more than `2 · TRACE_ENDS`
/// runs elided, so that an error from deep recursion stays one readable line.
fn trace_text(trace: &[String]) -> String {
    let mut runs: Vec<(&str, usize)> = Vec::new();
    for frame in trace {
        match runs.last_mut() {
            Some((name, count)) if *name == frame.as_str() => *count += 1,
            _ => runs.push((frame, 1)),
        }
    }
    let text = |(name, count): &(&str, usize)| {
        if *count > 1 {
            format!("{name} ×{count}")
        } else {
            name.to_string()
        }
    };
    if runs.len() <= 2 * TRACE_ENDS {
        return runs.iter().map(text).collect::<Vec<_>>().join(" <- ");
    }
    let hidden: usize = runs[TRACE_ENDS..runs.len() - TRACE_ENDS]
        .iter()
        .map(|r| r.1)
        .sum();
    let head: Vec<String> = runs[..TRACE_ENDS].iter().map(text).collect();
    let tail: Vec<String> = runs[runs.len() - TRACE_ENDS..].iter().map(text).collect();
    format!(
        "{} <- … {hidden} more frames … <- {}",
        head.join(" <- "),
        tail.join(" <- ")
    )
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `bail!(Kind, "fmt", args)` returns an error of that kind from the current function.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::Error::new($crate::ErrorKind::$kind, format!($($arg)*)))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_traces_print_as_one_short_line() {
        let mut e = Error::runtime("too deep");
        for _ in 0..10_000 {
            e = e.with_frame("loop");
        }
        e = e.with_frame("main");
        assert_eq!(
            e.to_string(),
            "RuntimeError: too deep (in loop ×10000 <- main)"
        );
        let mut e = Error::runtime("x");
        for i in 0..40 {
            e = e.with_frame(&format!("f{}", i % 2));
        }
        let text = e.to_string();
        assert!(
            text.contains("f0 <- f1 <- … 24 more frames … <- f0"),
            "{text}"
        );
        assert!(text.len() < 200, "{text}");
    }
}
