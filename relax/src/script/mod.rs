//! TVMScript for whole modules: the `@I.ir_module` reader ([`parse_module`]) and printer
//! ([`print_module`]) for the `R.` and `I.` dialects, delegating `@T.prim_func` members to the
//! `tir` crate.
//!
//! The accepted syntax is what TVM 0.27 prints (`mod.script()`) plus the hand-written forms its
//! tests use; see `tests/conformance/README.md`, "TVMScript forms that occur". The printer
//! reproduces TVM's layout (header comments, `TypeVar` declarations, `cls = Module`, function
//! order, annotations, the metadata comment) so that printing a module TVM printed gives back
//! the same text.
//!
//! Operator calls `R.op(args, key=value)` are bound generically through the operator registry
//! ([`crate::op`]): expression parameters become `Call::args`, attribute parameters
//! `Call::attrs`, with defaults filled in declaration order. The call forms with fixed shapes
//! (`R.call_tir`, `R.call_packed`, closures, `R.match_cast`, memory builtins…) are read and
//! printed here ([`builtins`]).

mod builtins;
pub(crate) mod printer;
mod reader;

pub use printer::{print_module, print_module_with_metadata, print_standalone_function};
pub use reader::{is_standalone_function, parse_module, parse_module_with};

/// Options of the reader.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// The tensor constants that the text refers to as `metadata["ir.GenericConst"][i]` (TVM
    /// prints them out of line; the conformance corpus keeps them in `case.json`).
    pub metadata: Vec<vm::Tensor>,
}

impl ReadOptions {
    /// Options with a metadata table.
    pub fn with_metadata(metadata: Vec<vm::Tensor>) -> ReadOptions {
        ReadOptions { metadata }
    }
}
