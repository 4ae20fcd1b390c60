//! `LowerSBlocks`: schedulable blocks become plain statements.
//!
//! A block's iteration variables are replaced by the values its realize binds them to (a large
//! value read more than once is bound once, by a `LetStmt`: see [`COPY_NODES`](crate::transform::COPY_NODES)); its
//! predicate (`T.where`) becomes an `if`; its reduction init runs where TVM's `LowerInitBlock`
//! puts it — guarded by "every reduce iteration variable is at the minimum of its domain" — and
//! its `T.sblock_alloc_buffer`s become `Allocate` + `DeclBuffer` around the lowered body.
//! [`hoist_reduction_init`] then moves such guarded inits out of the reduce loops they guard, so
//! that the common `for i: for k: { if k == 0: C[i] = 0; C[i] += … }` becomes
//! `for i: { C[i] = 0; for k: C[i] += … }` without changing what runs.

use std::collections::HashMap;

use crate::ir::{CmpOp, ExprKind, For, IterVarKind, PrimExpr, Stmt, StmtKind, Var};
use crate::transform::mutator::{
    Mutator, bind_once, read_more_than_once, substitute, substitute_stmt, walk_stmt,
};

struct LowerBlocks;

impl Mutator for LowerBlocks {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let StmtKind::SBlockRealize(r) = s.kind() else {
            return walk_stmt(self, s);
        };
        let block = &r.block;
        let mut map = HashMap::new();
        let mut lets = Vec::new();
        for (iv, value) in block.iter_vars.iter().zip(&r.iter_values) {
            let value = self.expr(value);
            let reads_twice = || {
                read_more_than_once(&block.body, &iv.var)
                    || block
                        .init
                        .as_ref()
                        .is_some_and(|i| read_more_than_once(i, &iv.var))
                    || (block.init.is_some() && iv.kind == IterVarKind::Reduce)
            };
            let (replacement, binding) = bind_once(&iv.var, value, reads_twice);
            map.insert(iv.var.id(), replacement);
            lets.extend(binding);
        }
        let mut stmts = Vec::new();
        if let Some(init) = &block.init {
            let init = self.stmt(&substitute_stmt(init, &map));
            let mut cond: Option<PrimExpr> = None;
            for iv in &block.iter_vars {
                if iv.kind != IterVarKind::Reduce {
                    continue;
                }
                let value = map[&iv.var.id()].clone();
                let min = substitute(&iv.dom.min, &map);
                let min = if min.dtype() == value.dtype() {
                    min
                } else {
                    PrimExpr::cast(value.dtype(), min)
                };
                let eq = PrimExpr::cmp(CmpOp::Eq, value, min);
                cond = Some(match cond {
                    None => eq,
                    Some(c) => PrimExpr::new(ExprKind::And(c, eq)),
                });
            }
            stmts.push(match cond {
                None => init,
                Some(cond) => Stmt::new(StmtKind::IfThenElse {
                    cond,
                    then_case: init,
                    else_case: None,
                }),
            });
        }
        stmts.push(self.stmt(&substitute_stmt(&block.body, &map)));
        let mut out = Stmt::seq(stmts);
        for (var, value) in lets.into_iter().rev() {
            out = Stmt::new(StmtKind::LetStmt {
                var,
                value,
                body: out,
            });
        }
        let predicate = self.expr(&r.predicate);
        if predicate.as_int() != Some(1) {
            out = Stmt::new(StmtKind::IfThenElse {
                cond: predicate,
                then_case: out,
                else_case: None,
            });
        }
        for b in block.alloc_buffers.iter().rev() {
            out = Stmt::new(StmtKind::Allocate {
                buffer_var: b.data.clone(),
                dtype: b.dtype,
                extents: b.shape.clone(),
                scope: b.scope.clone(),
                condition: PrimExpr::bool(true),
                body: Stmt::new(StmtKind::DeclBuffer {
                    buffer: b.clone(),
                    body: out,
                }),
            });
        }
        out
    }
}

/// Replaces every `SBlockRealize` of `body` by plain statements (see the module doc).
pub fn lower_sblocks(body: &Stmt) -> Stmt {
    LowerBlocks.stmt(body)
}

/// Splits a conjunction into its terms.
fn conjuncts(e: &PrimExpr, out: &mut Vec<PrimExpr>) {
    match e.kind() {
        ExprKind::And(a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        _ => out.push(e.clone()),
    }
}

fn same_const_or_node(a: &PrimExpr, b: &PrimExpr) -> bool {
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => x == y,
        _ => a.ptr_eq(b),
    }
}

/// Whether `term` is `loop_var == min`.
fn is_first_iteration_test(term: &PrimExpr, loop_var: &Var, min: &PrimExpr) -> bool {
    match term.kind() {
        ExprKind::Cmp {
            op: CmpOp::Eq,
            a,
            b,
        } => a.as_var() == Some(loop_var) && same_const_or_node(b, min),
        _ => false,
    }
}

fn stmt_uses_var(s: &Stmt, v: &Var) -> bool {
    let mut found = false;
    s.visit(&mut |st| {
        if let StmtKind::For(f) = st.kind()
            && &f.loop_var == v
        {
            found = true;
        }
        for e in st.exprs() {
            found |= e.uses_var(&|x| x == v);
        }
        if let StmtKind::BufferStore { buffer, .. } = st.kind() {
            found |= buffer.shape.iter().any(|d| d.uses_var(&|x| x == v));
        }
    });
    found
}

/// Appends the statements of `s` to `out`, nested `Seq`s flattened.
pub fn flatten_seq(s: &Stmt, out: &mut Vec<Stmt>) {
    match s.kind() {
        StmtKind::Seq(v) => v.iter().for_each(|x| flatten_seq(x, out)),
        _ => out.push(s.clone()),
    }
}

struct HoistInit;

impl Mutator for HoistInit {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let s = walk_stmt(self, s);
        let StmtKind::For(f) = s.kind() else {
            return s;
        };
        let mut body = Vec::new();
        flatten_seq(&f.body, &mut body);
        let Some((first, rest)) = body.split_first() else {
            return s;
        };
        let StmtKind::IfThenElse {
            cond,
            then_case,
            else_case: None,
        } = first.kind()
        else {
            return s;
        };
        if rest.is_empty() || stmt_uses_var(then_case, &f.loop_var) {
            return s;
        }
        let mut terms = Vec::new();
        conjuncts(cond, &mut terms);
        let Some(pos) = terms
            .iter()
            .position(|t| is_first_iteration_test(t, &f.loop_var, &f.min))
        else {
            return s;
        };
        terms.remove(pos);
        if terms.iter().any(|t| t.uses_var(&|x| x == &f.loop_var)) {
            return s;
        }
        // The init ran on the loop's first iteration; before the loop it must still run only
        // if there is a first iteration.
        if f.extent.as_int().is_none_or(|e| e <= 0) {
            let zero = PrimExpr::int(f.extent.dtype(), 0);
            terms.insert(0, PrimExpr::cmp(CmpOp::Gt, f.extent.clone(), zero));
        }
        let hoisted = match terms
            .into_iter()
            .reduce(|a, b| PrimExpr::new(ExprKind::And(a, b)))
        {
            None => then_case.clone(),
            Some(cond) => Stmt::new(StmtKind::IfThenElse {
                cond,
                then_case: then_case.clone(),
                else_case: None,
            }),
        };
        let lp = Stmt::new(StmtKind::For(For {
            body: Stmt::seq(rest.to_vec()),
            ..f.clone()
        }));
        Stmt::seq(vec![hoisted, lp])
    }
}

/// Moves reduction inits guarded by "this loop is at its first iteration" in front of the
/// loop, repeatedly, so an init guarded by several reduce variables leaves all of their loops.
pub fn hoist_reduction_init(body: &Stmt) -> Stmt {
    HoistInit.stmt(body)
}
