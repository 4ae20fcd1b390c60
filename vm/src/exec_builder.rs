//! ExecBuilder.
