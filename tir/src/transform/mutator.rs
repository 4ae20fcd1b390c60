//! A rebuilding visitor over expressions and statements: passes override the hooks they care
//! about and inherit a structural walk for everything else.
//!
//! Trees are immutable and `Arc`-shared, so "mutating" means building a new spine; the walk
//! rebuilds a node only when one of its children changed, which keeps untouched subtrees shared.

use std::collections::HashMap;

use crate::ir::{
    Buffer, ExprKind, For, PrimExpr, SBlock, SBlockRealize, Stmt, StmtKind, Var, VarId,
};

/// A rewriting visitor. Every hook defaults to the structural walk ([`walk_expr`],
/// [`walk_stmt`]).
pub trait Mutator {
    /// Rewrites an expression.
    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        walk_expr(self, e)
    }

    /// Rewrites a statement.
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        walk_stmt(self, s)
    }

    /// Rewrites a buffer access (load or store) whose indices were already rewritten; returns
    /// the buffer and indices to use instead.
    fn access(&mut self, buffer: &Buffer, indices: Vec<PrimExpr>) -> (Buffer, Vec<PrimExpr>) {
        (buffer.clone(), indices)
    }
}

fn exprs<M: Mutator + ?Sized>(m: &mut M, es: &[PrimExpr]) -> (Vec<PrimExpr>, bool) {
    let mut changed = false;
    let out = es
        .iter()
        .map(|e| {
            let n = m.expr(e);
            changed |= !n.ptr_eq(e);
            n
        })
        .collect();
    (out, changed)
}

/// Rewrites the children of `e` with `m` and rebuilds it if any changed.
pub fn walk_expr<M: Mutator + ?Sized>(m: &mut M, e: &PrimExpr) -> PrimExpr {
    let k = match e.kind() {
        ExprKind::IntImm { .. }
        | ExprKind::FloatImm { .. }
        | ExprKind::StringImm(_)
        | ExprKind::Var(_) => return e.clone(),
        ExprKind::Binary { op, a, b } => {
            let (na, nb) = (m.expr(a), m.expr(b));
            if na.ptr_eq(a) && nb.ptr_eq(b) {
                return e.clone();
            }
            ExprKind::Binary {
                op: *op,
                a: na,
                b: nb,
            }
        }
        ExprKind::Cmp { op, a, b } => {
            let (na, nb) = (m.expr(a), m.expr(b));
            if na.ptr_eq(a) && nb.ptr_eq(b) {
                return e.clone();
            }
            ExprKind::Cmp {
                op: *op,
                a: na,
                b: nb,
            }
        }
        ExprKind::And(a, b) => {
            let (na, nb) = (m.expr(a), m.expr(b));
            if na.ptr_eq(a) && nb.ptr_eq(b) {
                return e.clone();
            }
            ExprKind::And(na, nb)
        }
        ExprKind::Or(a, b) => {
            let (na, nb) = (m.expr(a), m.expr(b));
            if na.ptr_eq(a) && nb.ptr_eq(b) {
                return e.clone();
            }
            ExprKind::Or(na, nb)
        }
        ExprKind::Not(a) => {
            let na = m.expr(a);
            if na.ptr_eq(a) {
                return e.clone();
            }
            ExprKind::Not(na)
        }
        ExprKind::Select {
            cond,
            true_value,
            false_value,
        } => {
            let (c, t, f) = (m.expr(cond), m.expr(true_value), m.expr(false_value));
            if c.ptr_eq(cond) && t.ptr_eq(true_value) && f.ptr_eq(false_value) {
                return e.clone();
            }
            ExprKind::Select {
                cond: c,
                true_value: t,
                false_value: f,
            }
        }
        ExprKind::Cast { dtype, value } => {
            let v = m.expr(value);
            if v.ptr_eq(value) {
                return e.clone();
            }
            ExprKind::Cast {
                dtype: *dtype,
                value: v,
            }
        }
        ExprKind::BufferLoad { buffer, indices } => {
            let (idx, _) = exprs(m, indices);
            let (buffer, indices) = m.access(buffer, idx);
            ExprKind::BufferLoad { buffer, indices }
        }
        ExprKind::Call { dtype, op, args } => {
            let (args, changed) = exprs(m, args);
            if !changed {
                return e.clone();
            }
            ExprKind::Call {
                dtype: *dtype,
                op: op.clone(),
                args,
            }
        }
        ExprKind::Let { var, value, body } => {
            let (v, b) = (m.expr(value), m.expr(body));
            if v.ptr_eq(value) && b.ptr_eq(body) {
                return e.clone();
            }
            ExprKind::Let {
                var: var.clone(),
                value: v,
                body: b,
            }
        }
        ExprKind::Ramp {
            base,
            stride,
            lanes,
        } => ExprKind::Ramp {
            base: m.expr(base),
            stride: m.expr(stride),
            lanes: *lanes,
        },
        ExprKind::Broadcast { value, lanes } => ExprKind::Broadcast {
            value: m.expr(value),
            lanes: *lanes,
        },
    };
    PrimExpr::new(k)
}

/// Rewrites the expressions and child statements of `s` with `m` and rebuilds it.
pub fn walk_stmt<M: Mutator + ?Sized>(m: &mut M, s: &Stmt) -> Stmt {
    let k = match s.kind() {
        StmtKind::For(f) => StmtKind::For(For {
            loop_var: f.loop_var.clone(),
            min: m.expr(&f.min),
            extent: m.expr(&f.extent),
            kind: f.kind,
            thread_binding: f.thread_binding.clone(),
            annotations: f.annotations.clone(),
            body: m.stmt(&f.body),
        }),
        StmtKind::SBlockRealize(r) => StmtKind::SBlockRealize(SBlockRealize {
            iter_values: exprs(m, &r.iter_values).0,
            predicate: m.expr(&r.predicate),
            block: SBlock {
                name: r.block.name.clone(),
                iter_vars: r.block.iter_vars.clone(),
                reads: r.block.reads.clone(),
                writes: r.block.writes.clone(),
                init: r.block.init.as_ref().map(|i| m.stmt(i)),
                alloc_buffers: r.block.alloc_buffers.clone(),
                annotations: r.block.annotations.clone(),
                body: m.stmt(&r.block.body),
            },
        }),
        StmtKind::BufferStore {
            buffer,
            value,
            indices,
        } => {
            let value = m.expr(value);
            let (idx, _) = exprs(m, indices);
            let (buffer, indices) = m.access(buffer, idx);
            StmtKind::BufferStore {
                buffer,
                value,
                indices,
            }
        }
        StmtKind::LetStmt { var, value, body } => StmtKind::LetStmt {
            var: var.clone(),
            value: m.expr(value),
            body: m.stmt(body),
        },
        StmtKind::IfThenElse {
            cond,
            then_case,
            else_case,
        } => StmtKind::IfThenElse {
            cond: m.expr(cond),
            then_case: m.stmt(then_case),
            else_case: else_case.as_ref().map(|e| m.stmt(e)),
        },
        StmtKind::While { cond, body } => StmtKind::While {
            cond: m.expr(cond),
            body: m.stmt(body),
        },
        StmtKind::Seq(v) => StmtKind::Seq(v.iter().map(|s| m.stmt(s)).collect()),
        StmtKind::Evaluate(e) => StmtKind::Evaluate(m.expr(e)),
        StmtKind::Allocate {
            buffer_var,
            dtype,
            extents,
            scope,
            condition,
            body,
        } => StmtKind::Allocate {
            buffer_var: buffer_var.clone(),
            dtype: *dtype,
            extents: exprs(m, extents).0,
            scope: scope.clone(),
            condition: m.expr(condition),
            body: m.stmt(body),
        },
        StmtKind::DeclBuffer { buffer, body } => StmtKind::DeclBuffer {
            buffer: buffer.clone(),
            body: m.stmt(body),
        },
        StmtKind::AssertStmt {
            cond,
            message,
            body,
        } => StmtKind::AssertStmt {
            cond: m.expr(cond),
            message: m.expr(message),
            body: m.stmt(body),
        },
        StmtKind::AttrStmt {
            node,
            key,
            value,
            body,
        } => StmtKind::AttrStmt {
            node: node.as_ref().map(|n| m.expr(n)),
            key: key.clone(),
            value: m.expr(value),
            body: m.stmt(body),
        },
    };
    Stmt::new(k)
}

/// Replaces variables by expressions.
pub struct Substitute<'a> {
    /// What each variable becomes.
    pub map: &'a HashMap<VarId, PrimExpr>,
}

impl Mutator for Substitute<'_> {
    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        if let ExprKind::Var(v) = e.kind()
            && let Some(r) = self.map.get(&v.id())
        {
            return r.clone();
        }
        walk_expr(self, e)
    }
}

/// A value of more tree nodes than this, read more than once where it is substituted, is bound
/// once (a `LetStmt` of a fresh variable of the value's dtype) instead of copied into every
/// read: copies multiply with each nested binding that reads the previous one several times
/// (`v1 = v0 * 3 + v0 // 2 + v0`, `v2 = …v1…`: the tree grew threefold per level). The
/// bindings of real schedules (`T.axis.remap`, `i0 * 4 + i1`, `(i * 64 + j) // 7 % 3`) are
/// smaller, and stay substituted, so the index analyses of code generation see through them.
pub const COPY_NODES: usize = 24;

/// How `var := value` enters the statements that read `var`: the expression to substitute for
/// `var`, and the `LetStmt` binding to wrap them in when there is one. `value` itself is
/// substituted unless it is larger than [`COPY_NODES`] and `reads_twice` (asked only then)
/// says it would be copied, in which case a fresh variable named as `var` is bound to it once.
/// Evaluation order and values are unchanged: TIR expressions have no side effects.
pub fn bind_once(
    var: &Var,
    value: PrimExpr,
    reads_twice: impl FnOnce() -> bool,
) -> (PrimExpr, Option<(Var, PrimExpr)>) {
    if larger_than(&value, COPY_NODES) && reads_twice() {
        let bound = Var::new(var.name(), value.dtype());
        (PrimExpr::from(&bound), Some((bound, value)))
    } else {
        (value, None)
    }
}

/// Whether `e` has more than `nodes` tree nodes (a subexpression shared `k` times counts `k`
/// times, as a substitution copying `e` would), stopping as soon as it does.
pub fn larger_than(e: &PrimExpr, nodes: usize) -> bool {
    fn walk(e: &PrimExpr, budget: &mut usize) -> bool {
        if *budget == 0 {
            return true;
        }
        *budget -= 1;
        e.children().into_iter().any(|c| walk(c, budget))
    }
    let mut budget = nodes;
    walk(e, &mut budget)
}

/// Whether `v` is read more than once by the expressions of `s` and its nested statements,
/// stopping at the second read.
pub fn read_more_than_once(s: &Stmt, v: &Var) -> bool {
    fn count(e: &PrimExpr, v: &Var, n: &mut usize) {
        if *n >= 2 {
            return;
        }
        match e.as_var() {
            Some(x) if x == v => *n += 1,
            _ => e.children().into_iter().for_each(|c| count(c, v, n)),
        }
    }
    fn walk(s: &Stmt, v: &Var, n: &mut usize) {
        for e in s.exprs() {
            count(e, v, n);
        }
        for c in s.children() {
            if *n >= 2 {
                return;
            }
            walk(c, v, n);
        }
    }
    let mut n = 0;
    walk(s, v, &mut n);
    n >= 2
}

/// `e` with the variables of `map` replaced.
pub fn substitute(e: &PrimExpr, map: &HashMap<VarId, PrimExpr>) -> PrimExpr {
    Substitute { map }.expr(e)
}

/// `s` with the variables of `map` replaced.
pub fn substitute_stmt(s: &Stmt, map: &HashMap<VarId, PrimExpr>) -> Stmt {
    Substitute { map }.stmt(s)
}
