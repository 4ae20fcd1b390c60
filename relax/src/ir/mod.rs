//! The Relax IR: expressions, bindings, functions, modules and struct info.

mod attrs;
mod expr;
mod function;
mod struct_info;
pub mod visit;

pub use attrs::{AttrValue, Attrs, IndexMap};
pub use expr::{
    Binding, BindingBlock, Call, Callee, Constant, Expr, ExprKind, If, SeqExpr, Var, VarId,
};
pub use function::{BaseFunc, ExternFunc, Function, IRModule, VDevice};
pub use struct_info::StructInfo;
