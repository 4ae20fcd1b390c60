//! relaxjit's TIR: the tensor-level IR of PrimFuncs, and the TVMScript `T.` dialect.
//!
//! Layers, bottom up:
//! * [`syntax`]: a Python-subset lexer, syntax tree and parser shared with the Relax reader;
//! * [`ir`]: the TIR itself (`DataType`, `Var`, `PrimExpr`, `Buffer`, `Stmt`, `PrimFunc`) and
//!   structural equality modulo variable renaming;
//! * [`script`]: the `T.` dialect reader (syntax tree → `PrimFunc`) and the TVMScript printer.
//!
//! The crate does no IO and depends on no other relaxjit crate.

pub mod arith;
pub mod error;
pub mod interp;
pub mod ir;
pub mod script;
pub mod sort;
pub mod syntax;
pub mod transform;

pub use error::{Error, InterpErrorKind, ParseError, Result};
pub use ir::*;
pub use script::{ModuleContext, parse_module_prim_funcs, prim_func_from_ast, print_prim_func};
