//! The crate's error type: [`Error`], its [`Result`] alias, and the positioned [`ParseError`].

use std::fmt;

use crate::syntax::Span;

/// Everything that can go wrong in this crate.
///
/// None of the variants means a bug in relaxjit: each one describes bad input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// Text that is not valid Python-subset syntax, or TVMScript that the `T.` dialect reader does
    /// not accept. Carries the position.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A data-type string that does not name a TIR data type (`"float33"`).
    #[error("invalid data type {0:?}")]
    InvalidDataType(String),
    /// A run of the reference interpreter ([`crate::interp`]) failed: arguments that do not match
    /// the function (arity, rank, dtype, shape, inconsistent symbolic dimensions), an
    /// out-of-bounds access, a division by zero, a failed `assert`, or a construct the
    /// interpreter does not support. `func` names the PrimFunc.
    #[error("{func}: {message}")]
    Interp {
        /// The PrimFunc that was run.
        func: String,
        /// Which class of failure, for callers that compare it with another executor's.
        kind: InterpErrorKind,
        /// What went wrong, naming the buffer, index or argument.
        message: String,
    },
}

/// The class of an [`Error::Interp`], so that a differential test can tell "both sides reported
/// an out-of-bounds access" from "both sides failed somehow".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InterpErrorKind {
    /// An access whose element lies outside the memory of its buffer.
    OutOfBounds,
    /// An index outside the extent of its dimension whose element still lies inside the
    /// buffer's memory (`A[0, 5]` of a `(4, 4)` buffer is element 5). The interpreter checks
    /// every dimension; compiled kernels check the flat offset, which is what memory safety
    /// needs, so they may run such an access.
    DimensionIndex,
    /// An integer division or modulo by zero.
    DivisionByZero,
    /// The run executed more steps than its budget allowed (see
    /// [`crate::interp::run_with_budget`]); the program may be correct but too long to
    /// interpret.
    StepBudget,
    /// Anything else: arguments that do not match, a failed assertion, an unsupported
    /// construct.
    Other,
}

/// The crate's `Result`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A syntax or dialect error at a position of the source text.
///
/// `message` says what was expected or what is not supported; [`ParseError::render`] shows the
/// offending line with a caret under the column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column in characters.
    pub column: u32,
    /// Byte offset into the source.
    pub offset: usize,
    /// What went wrong, e.g. "expected `)`, found `:`".
    pub message: String,
}

impl ParseError {
    /// An error at the start of `span`.
    pub fn new(span: Span, message: impl Into<String>) -> ParseError {
        ParseError {
            line: span.line,
            column: span.column,
            offset: span.offset,
            message: message.into(),
        }
    }

    /// The error as a multi-line report: `line:col: message`, the source line, and a caret under
    /// the column. `source` must be the text that was parsed.
    pub fn render(&self, source: &str) -> String {
        let line_text = source
            .lines()
            .nth(self.line.saturating_sub(1) as usize)
            .unwrap_or("");
        let gutter = format!("{} | ", self.line);
        let mut caret = String::new();
        caret.push_str(&" ".repeat(gutter.len()));
        for ch in line_text
            .chars()
            .take(self.column.saturating_sub(1) as usize)
        {
            caret.push(if ch == '\t' { '\t' } else { ' ' });
        }
        caret.push('^');
        format!(
            "error: {}:{}: {}\n{}{}\n{}\n",
            self.line, self.column, self.message, gutter, line_text, caret
        )
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}
