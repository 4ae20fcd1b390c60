//! Relax expressions, bindings and blocks.
//!
//! Expressions are immutable `Arc` trees, as in TVM: passes build new trees and share unchanged
//! subtrees (STYLE.md, convention 3). A [`Var`]'s identity is a unique id, never its name. Every
//! variable carries the struct info it was bound with; an expression's struct info is computed
//! by the normalizer (`crate::normalize`) rather than stored in every node.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tir::{DataType, PrimExpr};

use crate::ir::{Attrs, ExternFunc, Function, StructInfo};

static NEXT_VAR_ID: AtomicU64 = AtomicU64::new(1);

/// The identity of a Relax [`Var`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u64);

struct VarNode {
    id: VarId,
    name: String,
    struct_info: StructInfo,
    dataflow: bool,
}

/// A Relax variable (`relax.Var`, or `relax.DataflowVar` when [`Var::is_dataflow`]).
#[derive(Clone)]
pub struct Var(Arc<VarNode>);

impl Var {
    /// A fresh (non-dataflow) variable.
    pub fn new(name: impl Into<String>, struct_info: StructInfo) -> Var {
        Var::make(name, struct_info, false)
    }
    /// A fresh dataflow variable, visible only inside its dataflow block.
    pub fn dataflow(name: impl Into<String>, struct_info: StructInfo) -> Var {
        Var::make(name, struct_info, true)
    }
    fn make(name: impl Into<String>, struct_info: StructInfo, dataflow: bool) -> Var {
        Var(Arc::new(VarNode {
            id: VarId(NEXT_VAR_ID.fetch_add(1, Ordering::Relaxed)),
            name: name.into(),
            struct_info,
            dataflow,
        }))
    }
    pub fn id(&self) -> VarId {
        self.0.id
    }
    pub fn name(&self) -> &str {
        &self.0.name
    }
    pub fn struct_info(&self) -> &StructInfo {
        &self.0.struct_info
    }
    pub fn is_dataflow(&self) -> bool {
        self.0.dataflow
    }
    /// A new variable with the same name and kind but other struct info.
    pub fn with_struct_info(&self, struct_info: StructInfo) -> Var {
        Var::make(self.0.name.clone(), struct_info, self.0.dataflow)
    }
}

impl PartialEq for Var {
    fn eq(&self, other: &Var) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Var {}
impl Hash for Var {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.id.hash(state)
    }
}
impl fmt::Debug for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.0.name, self.0.id.0)
    }
}

/// What a call calls.
#[derive(Clone, Debug)]
pub enum Callee {
    /// A registered operator, by its full name (`"relax.add"`, `"relax.call_tir"`).
    Op(String),
    /// A function of the module (`cls.f`).
    Global(String),
    /// A packed function by name (`R.ExternFunc("name")`, the callee of `R.call_packed`).
    Extern(String),
    /// A value: a local function, a closure, a callback parameter.
    Expr(Expr),
}

/// A call: `callee(args, attrs)`, with `ty_args` (TVM's `sinfo_args`) where the callee's result
/// cannot be inferred (`R.call_packed(..., ty_args=...)`, `R.call_tir(..., out_ty=...)`).
#[derive(Clone, Debug)]
pub struct Call {
    pub callee: Callee,
    pub args: Vec<Expr>,
    pub attrs: Attrs,
    pub ty_args: Vec<StructInfo>,
}

impl Call {
    /// The operator name, if this calls an operator.
    pub fn op(&self) -> Option<&str> {
        match &self.callee {
            Callee::Op(name) => Some(name),
            _ => None,
        }
    }
}

/// A constant tensor. The data is a VM tensor, shared and immutable once built.
#[derive(Clone)]
pub struct Constant {
    pub data: vm::Tensor,
    pub struct_info: StructInfo,
    /// For constants printed as `metadata["ir.GenericConst"][i]`, the index `i`.
    pub metadata_index: Option<usize>,
}

impl Constant {
    /// The constant `metadata["ir.GenericConst"][index]` of a module read without its
    /// metadata table: it prints as that reference and has `struct_info`, but no value
    /// (its data is an empty tensor); compiling it is an error.
    pub fn placeholder(index: usize, struct_info: StructInfo) -> vm::Result<Constant> {
        Ok(Constant {
            data: vm::Tensor::zeros(&[0], vm::DataType::F32)?,
            struct_info,
            metadata_index: Some(index),
        })
    }

    /// Whether this is a [`Constant::placeholder`]: a metadata reference whose data does not
    /// have the shape its struct info promises.
    pub fn is_placeholder(&self) -> bool {
        let Some(_) = self.metadata_index else {
            return false;
        };
        let empty_data = self.data.shape() == [0];
        let promised_empty = matches!(&self.struct_info,
            StructInfo::Tensor { shape: Some(s), .. } if s.len() == 1 && s[0].as_int() == Some(0));
        empty_data && !promised_empty
    }
}

impl fmt::Debug for Constant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Constant({:?})", self.data)
    }
}

/// `if cond: ... else: ...` as an expression; each branch is a [`SeqExpr`].
#[derive(Clone, Debug)]
pub struct If {
    pub cond: Expr,
    pub then_branch: SeqExpr,
    pub else_branch: SeqExpr,
}

/// A Relax expression: a cheap-to-clone handle to an immutable [`ExprKind`] node.
#[derive(Clone)]
pub struct Expr(Arc<ExprKind>);

#[derive(Clone, Debug)]
pub enum ExprKind {
    Constant(Constant),
    Var(Var),
    /// `R.shape([...])`.
    ShapeExpr(Vec<PrimExpr>),
    /// `R.prim_value(e)`, or a bare prim expression where a value is expected.
    PrimValue(PrimExpr),
    /// `R.str("...")`.
    StringImm(String),
    /// `R.dtype("float32")`.
    DataTypeImm(DataType),
    Tuple(Vec<Expr>),
    TupleGetItem(Expr, usize),
    Call(Call),
    If(If),
    Seq(SeqExpr),
    /// A function literal (an inner `@R.function`).
    Function(Box<Function>),
    /// A reference to a module function as a value (`cls.f` not in callee position).
    GlobalVar(String),
    /// `R.ExternFunc("name"[, R.Callable(...)])` as a value: the packed function and its type.
    ExternFunc(ExternFunc),
}

impl Expr {
    pub fn new(kind: ExprKind) -> Expr {
        Expr(Arc::new(kind))
    }
    pub fn kind(&self) -> &ExprKind {
        &self.0
    }
    /// `R.ExternFunc("name")`: a packed function of TVM's default type (opaque, impure).
    pub fn extern_func(name: impl Into<String>) -> Expr {
        Expr::new(ExprKind::ExternFunc(ExternFunc {
            global_symbol: name.into(),
            struct_info: ExternFunc::default_struct_info(),
        }))
    }
    pub fn var(v: &Var) -> Expr {
        Expr::new(ExprKind::Var(v.clone()))
    }
    pub fn call(callee: Callee, args: Vec<Expr>, attrs: Attrs, ty_args: Vec<StructInfo>) -> Expr {
        Expr::new(ExprKind::Call(Call {
            callee,
            args,
            attrs,
            ty_args,
        }))
    }
    /// A call of operator `op` with no attributes.
    pub fn op(op: &str, args: Vec<Expr>) -> Expr {
        Expr::call(Callee::Op(op.to_string()), args, Attrs::new(), Vec::new())
    }
    pub fn tuple(fields: Vec<Expr>) -> Expr {
        Expr::new(ExprKind::Tuple(fields))
    }
    pub fn shape(dims: Vec<PrimExpr>) -> Expr {
        Expr::new(ExprKind::ShapeExpr(dims))
    }
    pub fn prim(value: PrimExpr) -> Expr {
        Expr::new(ExprKind::PrimValue(value))
    }
    pub fn as_var(&self) -> Option<&Var> {
        match self.kind() {
            ExprKind::Var(v) => Some(v),
            _ => None,
        }
    }
    pub fn as_call(&self) -> Option<&Call> {
        match self.kind() {
            ExprKind::Call(c) => Some(c),
            _ => None,
        }
    }
    /// Whether both handles are the same node.
    pub fn ptr_eq(&self, other: &Expr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for Expr {
    type Target = ExprKind;
    fn deref(&self) -> &ExprKind {
        &self.0
    }
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<Var> for Expr {
    fn from(v: Var) -> Expr {
        Expr::new(ExprKind::Var(v))
    }
}

/// One binding of a block.
#[derive(Clone, Debug)]
pub enum Binding {
    /// `var = value`
    Var { var: Var, value: Expr },
    /// `var = R.match_cast(value, struct_info)`: checks `value` against `struct_info` at run
    /// time and binds its symbolic dimensions.
    MatchCast {
        var: Var,
        value: Expr,
        struct_info: StructInfo,
    },
}

impl Binding {
    pub fn var(&self) -> &Var {
        match self {
            Binding::Var { var, .. } | Binding::MatchCast { var, .. } => var,
        }
    }
    pub fn value(&self) -> &Expr {
        match self {
            Binding::Var { value, .. } | Binding::MatchCast { value, .. } => value,
        }
    }
}

/// A sequence of bindings; a dataflow block (`with R.dataflow():`) is pure and its
/// dataflow variables do not escape it except through `R.output`.
#[derive(Clone, Debug, Default)]
pub struct BindingBlock {
    pub bindings: Vec<Binding>,
    pub dataflow: bool,
}

/// Blocks followed by a result expression: a function body or an `if` branch.
#[derive(Clone, Debug)]
pub struct SeqExpr {
    pub blocks: Vec<BindingBlock>,
    pub body: Expr,
}

impl SeqExpr {
    /// A sequence with no bindings.
    pub fn just(body: Expr) -> SeqExpr {
        SeqExpr {
            blocks: Vec::new(),
            body,
        }
    }
}
