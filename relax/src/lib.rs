//! relaxjit's Relax layer: the high-level IR users write (functions over tensors with symbolic
//! shapes), its operators and struct-info inference, its TVMScript `R.` dialect, the pass
//! pipeline and VMCodeGen to a `vm::Executable`.
//!
//! TIR lives in the `tir` crate; a module holds both kinds of function ([`ir::BaseFunc`]).
//! Passes are pure functions from module to module and do no IO.

pub mod block_builder;
pub mod codegen;
pub mod error;
pub mod ir;
pub mod legalize;
pub mod normalize;
pub mod op;
pub mod pipeline;
pub mod script;
pub mod struct_info_ops;
pub mod structural_eq;
pub mod transform;
pub mod well_formed;

pub use error::{Error, Result};
pub use ir::*;
pub use script::{parse_module, print_module};
pub use structural_eq::structural_equal;
