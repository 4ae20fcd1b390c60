//! The TIR: data types, variables, expressions, buffers, statements and functions, one file per
//! concept, plus structural equality modulo variable renaming.

mod attrs;
mod buffer;
mod dtype;
mod expr;
mod function;
mod stmt;
pub mod structural_eq;
mod var;

pub use attrs::{AttrValue, Attrs};
pub use buffer::{Buffer, BufferNode, BufferRegion, DEFAULT_ALIGNMENT};
pub use dtype::{DataType, TypeCode};
pub use expr::{BinaryOp, CmpOp, ExprKind, PrimExpr, Range};
pub use function::PrimFunc;
pub use stmt::{For, ForKind, IterVar, IterVarKind, SBlock, SBlockRealize, Stmt, StmtKind};
pub use structural_eq::{structural_diff, structural_equal};
pub use var::{Var, VarId};
