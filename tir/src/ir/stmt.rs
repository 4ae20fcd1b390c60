//! [`Stmt`]: TIR statements — loops, schedulable blocks (`T.sblock`), stores, bindings,
//! allocations and control flow.
//!
//! Like expressions, statements are immutable `Arc`-shared trees (TVM's representation): a pass
//! rebuilds the spine it changes and shares the rest, which keeps whole-function rewrites cheap
//! and lets the parser, printer, simplifier and JIT hold the same tree without copying.
//! Statements that bind something (`LetStmt`, `AttrStmt`, `Allocate`, `DeclBuffer`,
//! `AssertStmt`) own the statements of their scope as `body`.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::ir::{Attrs, Buffer, BufferRegion, DataType, PrimExpr, Range, Var};

/// How a `For` loop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForKind {
    /// In order (`range`, `T.serial`, `T.grid`).
    Serial,
    /// Iterations may run concurrently (`T.parallel`).
    Parallel,
    /// To be turned into vector instructions (`T.vectorized`).
    Vectorized,
    /// To be unrolled (`T.unroll`).
    Unrolled,
    /// Bound to a GPU thread axis (`T.thread_binding`).
    ThreadBinding,
}

/// A loop `for loop_var in [min, min + extent)`.
#[derive(Clone, Debug)]
pub struct For {
    /// The loop variable (same type as `min` and `extent`).
    pub loop_var: Var,
    /// First value.
    pub min: PrimExpr,
    /// Number of iterations.
    pub extent: PrimExpr,
    /// How iterations run.
    pub kind: ForKind,
    /// The thread tag for [`ForKind::ThreadBinding`] (`"threadIdx.x"`).
    pub thread_binding: Option<String>,
    /// `annotations=` of the loop.
    pub annotations: Attrs,
    /// The loop body.
    pub body: Stmt,
}

/// The role of a block iteration variable (`T.axis.spatial` / `reduce` / `scan` / `opaque`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IterVarKind {
    /// Data-parallel (`S` in `T.axis.remap`).
    Spatial,
    /// Reduction (`R`).
    Reduce,
    /// Ordered / scan.
    Scan,
    /// Opaque.
    Opaque,
}

/// A block iteration variable with its domain.
#[derive(Clone, Debug)]
pub struct IterVar {
    /// The variable used inside the block.
    pub var: Var,
    /// Its domain.
    pub dom: Range,
    /// Its role.
    pub kind: IterVarKind,
}

/// A schedulable block (`with T.sblock("name"):`): iteration variables, declared accesses, an
/// optional reduction init, block-local buffers and a body.
#[derive(Clone, Debug)]
pub struct SBlock {
    /// The block name.
    pub name: String,
    /// Iteration variables, in declaration order.
    pub iter_vars: Vec<IterVar>,
    /// Regions read (`T.reads`).
    pub reads: Vec<BufferRegion>,
    /// Regions written (`T.writes`).
    pub writes: Vec<BufferRegion>,
    /// The reduction initialization (`with T.init():`), run on the first reduction iteration.
    pub init: Option<Stmt>,
    /// Buffers allocated for the block's lifetime (`T.sblock_alloc_buffer`).
    pub alloc_buffers: Vec<Buffer>,
    /// `T.sblock_attr({...})`.
    pub annotations: Attrs,
    /// The body.
    pub body: Stmt,
}

/// A block together with the values its iteration variables take (`SBlockRealize`).
#[derive(Clone, Debug)]
pub struct SBlockRealize {
    /// One value per iteration variable, usually enclosing loop variables.
    pub iter_values: Vec<PrimExpr>,
    /// The block runs only when this holds (`T.where`); `True` otherwise.
    pub predicate: PrimExpr,
    /// The block.
    pub block: SBlock,
}

/// A TIR statement: a cheap-to-clone handle to an immutable [`StmtKind`].
#[derive(Clone)]
pub struct Stmt(Arc<StmtKind>);

/// The statement forms.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// A loop.
    For(For),
    /// A block and its iteration values.
    SBlockRealize(SBlockRealize),
    /// `buffer[indices] = value`.
    BufferStore {
        /// The written buffer.
        buffer: Buffer,
        /// The stored value (of the buffer's type).
        value: PrimExpr,
        /// One index per dimension.
        indices: Vec<PrimExpr>,
    },
    /// `var: T.let[dtype] = value` followed by the statements of `body`.
    LetStmt {
        /// The bound variable.
        var: Var,
        /// Its value.
        value: PrimExpr,
        /// Where it is visible.
        body: Stmt,
    },
    /// `if cond:` ... `else:` ...
    IfThenElse {
        /// The condition (`bool`).
        cond: PrimExpr,
        /// The `then` branch.
        then_case: Stmt,
        /// The `else` branch.
        else_case: Option<Stmt>,
    },
    /// `while cond:` — `body` runs as long as `cond` holds, `cond` evaluated before each
    /// iteration (TVM's `tir.While`). Only memory changes between iterations, so nothing is
    /// known about a value the body reads from a buffer it also writes.
    While {
        /// The condition (`bool`), read again before every iteration.
        cond: PrimExpr,
        /// The loop body.
        body: Stmt,
    },
    /// Statements in order.
    Seq(Vec<Stmt>),
    /// An expression evaluated for its effect (`T.call_packed(...)`, `T.evaluate(0)`).
    Evaluate(PrimExpr),
    /// `var = T.allocate(extents, dtype, scope)`: memory for the duration of `body`.
    Allocate {
        /// The data pointer (a `handle` variable).
        buffer_var: Var,
        /// Element type.
        dtype: DataType,
        /// Extent per dimension.
        extents: Vec<PrimExpr>,
        /// Storage scope.
        scope: String,
        /// Allocate only if this holds (`True` usually).
        condition: PrimExpr,
        /// Where the memory is live.
        body: Stmt,
    },
    /// `X = T.decl_buffer(...)`: declares a buffer over existing memory for `body`.
    DeclBuffer {
        /// The declared buffer.
        buffer: Buffer,
        /// Where it is visible.
        body: Stmt,
    },
    /// `assert cond, message` followed by `body`.
    AssertStmt {
        /// The checked condition.
        cond: PrimExpr,
        /// The message (a string constant).
        message: PrimExpr,
        /// What runs after the check.
        body: Stmt,
    },
    /// `T.attr(node, key, value)` around `body`; `node` is `None` for the dictionary form
    /// `T.attr({key: value})`.
    AttrStmt {
        /// The annotated object, if any.
        node: Option<PrimExpr>,
        /// The attribute key (`"pragma_scope"`).
        key: String,
        /// The attribute value.
        value: PrimExpr,
        /// The annotated statements.
        body: Stmt,
    },
}

impl Deref for Stmt {
    type Target = StmtKind;

    fn deref(&self) -> &StmtKind {
        &self.0
    }
}

impl fmt::Debug for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Stmt {
    /// Wraps a node.
    pub fn new(kind: StmtKind) -> Stmt {
        Stmt(Arc::new(kind))
    }

    /// The node.
    pub fn kind(&self) -> &StmtKind {
        &self.0
    }

    /// `stmts` as one statement: the statement itself if there is one, else a `Seq`
    /// (an empty `Seq` is a no-op).
    pub fn seq(mut stmts: Vec<Stmt>) -> Stmt {
        if stmts.len() == 1
            && let Some(s) = stmts.pop()
        {
            return s;
        }
        Stmt::new(StmtKind::Seq(stmts))
    }

    /// A no-op (`T.evaluate(0)`).
    pub fn no_op() -> Stmt {
        Stmt::new(StmtKind::Evaluate(PrimExpr::i32(0)))
    }

    /// The direct child statements.
    pub fn children(&self) -> Vec<&Stmt> {
        match &*self.0 {
            StmtKind::For(f) => vec![&f.body],
            StmtKind::SBlockRealize(r) => {
                let mut v = Vec::new();
                if let Some(i) = &r.block.init {
                    v.push(i);
                }
                v.push(&r.block.body);
                v
            }
            StmtKind::BufferStore { .. } | StmtKind::Evaluate(_) => Vec::new(),
            StmtKind::LetStmt { body, .. }
            | StmtKind::Allocate { body, .. }
            | StmtKind::DeclBuffer { body, .. }
            | StmtKind::AssertStmt { body, .. }
            | StmtKind::AttrStmt { body, .. }
            | StmtKind::While { body, .. } => vec![body],
            StmtKind::IfThenElse {
                then_case,
                else_case,
                ..
            } => {
                let mut v = vec![then_case];
                if let Some(e) = else_case {
                    v.push(e);
                }
                v
            }
            StmtKind::Seq(s) => s.iter().collect(),
        }
    }

    /// The expressions held directly by this statement (not those of child statements).
    pub fn exprs(&self) -> Vec<&PrimExpr> {
        match &*self.0 {
            StmtKind::For(f) => vec![&f.min, &f.extent],
            StmtKind::SBlockRealize(r) => {
                let mut v: Vec<&PrimExpr> = r.iter_values.iter().collect();
                v.push(&r.predicate);
                v
            }
            StmtKind::BufferStore { value, indices, .. } => {
                let mut v = vec![value];
                v.extend(indices.iter());
                v
            }
            StmtKind::LetStmt { value, .. } => vec![value],
            StmtKind::IfThenElse { cond, .. } | StmtKind::While { cond, .. } => vec![cond],
            StmtKind::Seq(_) | StmtKind::DeclBuffer { .. } => Vec::new(),
            StmtKind::Evaluate(e) => vec![e],
            StmtKind::Allocate {
                extents, condition, ..
            } => {
                let mut v: Vec<&PrimExpr> = extents.iter().collect();
                v.push(condition);
                v
            }
            StmtKind::AssertStmt { cond, message, .. } => vec![cond, message],
            StmtKind::AttrStmt { node, value, .. } => {
                let mut v: Vec<&PrimExpr> = node.iter().collect();
                v.push(value);
                v
            }
        }
    }

    /// Calls `f` on this statement and every nested statement, parents first.
    pub fn visit(&self, f: &mut impl FnMut(&Stmt)) {
        f(self);
        for c in self.children() {
            c.visit(f);
        }
    }
}
