//! The Python-subset front end shared by the TVMScript dialects: tokens, syntax tree, parser.
//!
//! This layer knows nothing about TIR or Relax. [`parse_module`] turns text into an
//! [`ast::Module`]; the `T.` reader in [`crate::script`] and the relax crate's `R.` reader walk the
//! tree. Every node has a [`Span`] so that dialect errors point at the source. Both entry points
//! evaluate constant arithmetic between literals as Python would ([`fold`]).

pub mod ast;
pub mod fold;
pub mod lexer;
pub mod parser;
mod span;

pub use parser::{parse_expr, parse_module};
pub use span::Span;
