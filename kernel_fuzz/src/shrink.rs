//! Shrinking: reduces a failing case to a small program that still fails the same way.
//!
//! Greedy, one step at a time: a step drops a statement of a sequence, replaces a loop by its
//! body at the first iteration, shortens a loop, makes a parallel loop serial, keeps one branch
//! of an `if`, or replaces an expression by one of its operands of the same type or by zero.
//! The first step after which the case still fails the same way is taken, until none is.
//!
//! A step never produces a loop that could run for ever: every loop longer than
//! [`LONG_LOOP`] must keep a body that is one store with an index moving with the loop
//! variable (see [`crate::program`]), which fails within the size of its buffer.

use std::collections::HashMap;

use tir::transform::mutator::substitute_stmt;
use tir::{BinaryOp, CmpOp, ExprKind, For, ForKind, PrimExpr, Stmt, StmtKind, Var};

use crate::program::Case;

/// Loops longer than this must fail at an early iteration.
pub const LONG_LOOP: i64 = 1 << 16;

/// Reduces `case` while `fails` holds, trying at most `budget` candidates.
pub fn shrink(case: &Case, budget: usize, mut fails: impl FnMut(&Case) -> bool) -> Case {
    let mut current = case.clone();
    let mut tries = 0;
    'outer: loop {
        for body in stmt_variants(&current.func.body) {
            if !terminates(&body) {
                continue;
            }
            if tries >= budget {
                break 'outer;
            }
            tries += 1;
            let mut candidate = current.clone();
            candidate.func.body = body;
            if fails(&candidate) {
                current = candidate;
                continue 'outer;
            }
        }
        break;
    }
    current
}

/// Whether `s` has a loop longer than [`LONG_LOOP`] (such a loop ends only at a fault).
pub fn has_long_loop(s: &Stmt) -> bool {
    let mut found = false;
    s.visit(&mut |x| {
        if let StmtKind::For(f) = x.kind() {
            found |= f.extent.as_int().is_some_and(|n| n > LONG_LOOP);
        }
    });
    found
}

/// Whether every loop longer than [`LONG_LOOP`] has a single store with a moving index, and
/// every `while` loop is bounded by a counter it increments (see [`counted_while`]).
pub fn terminates(s: &Stmt) -> bool {
    let mut ok = true;
    s.visit(&mut |x| match x.kind() {
        StmtKind::For(f) => {
            let long = f.extent.as_int().is_some_and(|n| n > LONG_LOOP);
            if long && !moving_access(&f.body, &f.loop_var) {
                ok = false;
            }
        }
        StmtKind::While { cond, body } => ok &= counted_while(cond, body),
        _ => {}
    });
    ok
}

/// `while w[0] < n (and ...)` whose body ends with `w[0] = w[0] + 1` and stores `w` nowhere
/// else: it runs at most `n` iterations (`n` a small constant, so the counter cannot wrap).
fn counted_while(cond: &PrimExpr, body: &Stmt) -> bool {
    let bound = match cond.kind() {
        ExprKind::And(a, _) => a,
        _ => cond,
    };
    let ExprKind::Cmp {
        op: CmpOp::Lt,
        a,
        b,
        ..
    } = bound.kind()
    else {
        return false;
    };
    let (ExprKind::BufferLoad { buffer, .. }, Some(n)) = (a.kind(), b.as_int()) else {
        return false;
    };
    let StmtKind::Seq(items) = body.kind() else {
        return false;
    };
    let Some((last, rest)) = items.split_last() else {
        return false;
    };
    let increments = matches!(last.kind(), StmtKind::BufferStore { buffer: w, value, .. }
        if w.data.id() == buffer.data.id()
            && matches!(value.kind(), ExprKind::Binary { op: BinaryOp::Add, a: x, b: one }
                if x == a && one.as_int() == Some(1)));
    let mut other_store = false;
    for s in rest {
        s.visit(&mut |x| {
            if let StmtKind::BufferStore { buffer: w, .. } = x.kind() {
                other_store |= w.data.id() == buffer.data.id();
            }
        });
    }
    increments && !other_store && n <= 1 << 20
}

fn moving_access(body: &Stmt, v: &Var) -> bool {
    let StmtKind::BufferStore { value, indices, .. } = body.kind() else {
        return false;
    };
    let mut found = indices.iter().any(|i| moving(i, v));
    value.visit(&mut |e| {
        if let ExprKind::BufferLoad { indices, .. } = e.kind() {
            found |= indices.iter().any(|i| moving(i, v));
        }
    });
    found
}

/// `v`, `v ± c`, `c ± v` or `v * c` (`c` a nonzero constant), under casts.
fn moving(e: &PrimExpr, v: &Var) -> bool {
    let is_v = |x: &PrimExpr| strip_casts(x).as_var().is_some_and(|x| x == v);
    let is_c = |x: &PrimExpr| x.as_int().is_some();
    let e = strip_casts(e);
    match e.kind() {
        ExprKind::Var(x) => x == v,
        ExprKind::Binary { op, a, b } => match op {
            BinaryOp::Add | BinaryOp::Sub => is_v(a) && is_c(b) || is_c(a) && is_v(b),
            BinaryOp::Mul => {
                is_v(a) && b.as_int().is_some_and(|c| c != 0)
                    || is_v(b) && a.as_int().is_some_and(|c| c != 0)
            }
            _ => false,
        },
        _ => false,
    }
}

fn strip_casts(e: &PrimExpr) -> &PrimExpr {
    match e.kind() {
        ExprKind::Cast { value, .. } => strip_casts(value),
        _ => e,
    }
}

/// Every statement one step smaller than `s`.
fn stmt_variants(s: &Stmt) -> Vec<Stmt> {
    let mut out = Vec::new();
    match s.kind() {
        StmtKind::Seq(items) => {
            out.extend(items.iter().cloned());
            for i in 0..items.len() {
                let mut rest = items.clone();
                rest.remove(i);
                out.push(Stmt::seq(rest));
            }
            for i in 0..items.len() {
                for v in stmt_variants(&items[i]) {
                    let mut changed = items.clone();
                    changed[i] = v;
                    out.push(Stmt::seq(changed));
                }
            }
        }
        StmtKind::For(f) => {
            let first: HashMap<_, _> = [(f.loop_var.id(), f.min.clone())].into_iter().collect();
            out.push(substitute_stmt(&f.body, &first));
            if let Some(n) = f.extent.as_int()
                && n > 1
            {
                for m in [1, n / 2] {
                    out.push(with_for(f, |g| {
                        g.extent = PrimExpr::int(f.extent.dtype(), m)
                    }));
                }
            }
            if f.kind != ForKind::Serial {
                out.push(with_for(f, |g| g.kind = ForKind::Serial));
            }
            if !f.min.is_zero() {
                out.push(with_for(f, |g| g.min = PrimExpr::int(f.min.dtype(), 0)));
            }
            for b in stmt_variants(&f.body) {
                out.push(with_for(f, |g| g.body = b.clone()));
            }
        }
        StmtKind::IfThenElse {
            cond,
            then_case,
            else_case,
        } => {
            out.push(then_case.clone());
            if let Some(e) = else_case {
                out.push(e.clone());
                out.push(Stmt::new(StmtKind::IfThenElse {
                    cond: cond.clone(),
                    then_case: then_case.clone(),
                    else_case: None,
                }));
            }
            for c in expr_variants(cond) {
                out.push(Stmt::new(StmtKind::IfThenElse {
                    cond: c,
                    then_case: then_case.clone(),
                    else_case: else_case.clone(),
                }));
            }
            for t in stmt_variants(then_case) {
                out.push(Stmt::new(StmtKind::IfThenElse {
                    cond: cond.clone(),
                    then_case: t,
                    else_case: else_case.clone(),
                }));
            }
        }
        StmtKind::BufferStore {
            buffer,
            value,
            indices,
        } => {
            for v in expr_variants(value) {
                out.push(Stmt::new(StmtKind::BufferStore {
                    buffer: buffer.clone(),
                    value: v,
                    indices: indices.clone(),
                }));
            }
            for (i, index) in indices.iter().enumerate() {
                for v in expr_variants(index) {
                    let mut changed = indices.clone();
                    changed[i] = v;
                    out.push(Stmt::new(StmtKind::BufferStore {
                        buffer: buffer.clone(),
                        value: value.clone(),
                        indices: changed,
                    }));
                }
            }
        }
        StmtKind::While { cond, body } => {
            // Once, without the counter's increment (the last statement), or with a smaller
            // statement before the increment (still a counted loop: see `terminates`).
            if let StmtKind::Seq(items) = body.kind()
                && let Some((_, rest)) = items.split_last()
            {
                out.push(Stmt::seq(rest.to_vec()));
                for (i, item) in rest.iter().enumerate() {
                    for v in stmt_variants(item) {
                        let mut changed = items.clone();
                        changed[i] = v;
                        out.push(Stmt::new(StmtKind::While {
                            cond: cond.clone(),
                            body: Stmt::seq(changed),
                        }));
                    }
                }
            }
        }
        StmtKind::Allocate {
            buffer_var,
            dtype,
            extents,
            scope,
            condition,
            body,
        } => {
            let inner = match body.kind() {
                StmtKind::DeclBuffer { body, .. } => body,
                _ => body,
            };
            if !uses_memory(inner, buffer_var) {
                out.push(inner.clone());
            }
            for v in stmt_variants(body) {
                out.push(Stmt::new(StmtKind::Allocate {
                    buffer_var: buffer_var.clone(),
                    dtype: *dtype,
                    extents: extents.clone(),
                    scope: scope.clone(),
                    condition: condition.clone(),
                    body: v,
                }));
            }
        }
        StmtKind::DeclBuffer { buffer, body } => {
            for v in stmt_variants(body) {
                out.push(Stmt::new(StmtKind::DeclBuffer {
                    buffer: buffer.clone(),
                    body: v,
                }));
            }
        }
        _ => {}
    }
    out
}

/// Whether `s` loads or stores through the data pointer `data`.
fn uses_memory(s: &Stmt, data: &Var) -> bool {
    let mut found = false;
    s.visit(&mut |x| {
        if let StmtKind::BufferStore { buffer, .. } = x.kind() {
            found |= buffer.data == *data;
        }
        for e in x.exprs() {
            e.visit(&mut |y| {
                if let ExprKind::BufferLoad { buffer, .. } = y.kind() {
                    found |= buffer.data == *data;
                }
            });
        }
    });
    found
}

fn with_for(f: &For, change: impl FnOnce(&mut For)) -> Stmt {
    let mut g = f.clone();
    change(&mut g);
    Stmt::new(StmtKind::For(g))
}

/// Every expression one step smaller than `e`, of the same type.
fn expr_variants(e: &PrimExpr) -> Vec<PrimExpr> {
    let dt = e.dtype();
    let mut out: Vec<PrimExpr> = Vec::new();
    let children = children(e);
    for c in &children {
        if c.dtype() == dt {
            out.push(c.clone());
        }
    }
    let is_const = matches!(
        e.kind(),
        ExprKind::IntImm { .. } | ExprKind::FloatImm { .. }
    );
    if !is_const && dt.lanes == 1 {
        if dt.is_float() {
            out.push(PrimExpr::float(dt, 0.0));
        } else if dt.is_int_or_uint() && !dt.is_bool() {
            out.push(PrimExpr::int(dt, 0));
        }
    }
    for (i, c) in children.iter().enumerate() {
        for v in expr_variants(c) {
            let mut changed = children.clone();
            changed[i] = v;
            if let Some(r) = rebuild(e, changed) {
                out.push(r);
            }
        }
    }
    out
}

fn children(e: &PrimExpr) -> Vec<PrimExpr> {
    match e.kind() {
        ExprKind::Binary { a, b, .. } | ExprKind::Cmp { a, b, .. } => vec![a.clone(), b.clone()],
        ExprKind::And(a, b) | ExprKind::Or(a, b) => vec![a.clone(), b.clone()],
        ExprKind::Not(a) => vec![a.clone()],
        ExprKind::Select {
            cond,
            true_value,
            false_value,
        } => vec![cond.clone(), true_value.clone(), false_value.clone()],
        ExprKind::Cast { value, .. } => vec![value.clone()],
        ExprKind::BufferLoad { indices, .. } => indices.clone(),
        ExprKind::Call { args, .. } => args.clone(),
        _ => Vec::new(),
    }
}

/// `e` with its children replaced by `c` (in the order of [`children`]).
fn rebuild(e: &PrimExpr, c: Vec<PrimExpr>) -> Option<PrimExpr> {
    let mut c = c.into_iter();
    let mut next = || c.next();
    Some(match e.kind() {
        ExprKind::Binary { op, .. } => PrimExpr::binary(*op, next()?, next()?),
        ExprKind::Cmp { op, .. } => PrimExpr::cmp(*op, next()?, next()?),
        ExprKind::And(..) => PrimExpr::new(ExprKind::And(next()?, next()?)),
        ExprKind::Or(..) => PrimExpr::new(ExprKind::Or(next()?, next()?)),
        ExprKind::Not(_) => PrimExpr::new(ExprKind::Not(next()?)),
        ExprKind::Select { .. } => PrimExpr::new(ExprKind::Select {
            cond: next()?,
            true_value: next()?,
            false_value: next()?,
        }),
        ExprKind::Cast { dtype, .. } => PrimExpr::cast(*dtype, next()?),
        ExprKind::BufferLoad { buffer, indices } => PrimExpr::load(
            buffer.clone(),
            (0..indices.len()).map(|_| next()).collect::<Option<_>>()?,
        ),
        ExprKind::Call { dtype, op, args } => PrimExpr::call(
            *dtype,
            op.clone(),
            (0..args.len()).map(|_| next()).collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}
