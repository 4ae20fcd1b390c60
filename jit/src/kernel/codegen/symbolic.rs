//! Symbolic bounds proofs: an access `B[idx]` inside loops with symbolic extents (`for i in
//! range(n)`) is in bounds when `0 <= idx` and `idx < extent(B)` hold for every iteration, which
//! this module proves without knowing the sizes, so symbolic-shape kernels drop their checks.
//!
//! The facts used are few and sound: *shape variables* (dimensions bound from an argument's
//! shape) are non-negative, and each enclosing loop variable `v` lies in
//! `[min_v, min_v + extent_v - 1]` whenever the body runs, where `min_v` and `extent_v` use only
//! shape variables and constants (rectangular nests). Then:
//!
//! 1. `idx` is non-decreasing in every loop variable: `idx[v := v + 1] - idx` simplifies to a
//!    *non-negative polynomial* — constants ≥ 0 and shape variables combined by `+` and `*`;
//! 2. so its least value is `idx` with every `v := min_v` and its greatest with every
//!    `v := min_v + extent_v - 1`; the first must be a non-negative polynomial and
//!    `extent - 1 - greatest` too.
//!
//! The algebra is `tir::arith::Analyzer::simplify` with nothing bound (so it assumes nothing
//! about any variable); index arithmetic does not overflow because every value is at most the
//! buffer's element count. Anything outside this shape is simply "not proven" and keeps its check.

use std::collections::{HashMap, HashSet};

use tir::arith::Analyzer;
use tir::transform::mutator::substitute;
use tir::{BinaryOp, ExprKind, PrimExpr, Var, VarId};

/// An enclosing loop: its variable, first value and extent.
#[derive(Clone, Debug)]
pub(crate) struct LoopRange {
    pub var: Var,
    pub min: PrimExpr,
    pub extent: PrimExpr,
}

/// Whether `e` is built from non-negative constants and shape variables with `+` and `*`
/// (integer casts that widen are transparent).
fn nonneg_poly(e: &PrimExpr, shape_vars: &HashSet<VarId>) -> bool {
    match e.kind() {
        ExprKind::IntImm { value, .. } => *value >= 0,
        ExprKind::Var(v) => shape_vars.contains(&v.id()),
        ExprKind::Cast { dtype, value }
            if dtype.is_int() && value.dtype().is_int() && dtype.bits >= value.dtype().bits =>
        {
            nonneg_poly(value, shape_vars)
        }
        ExprKind::Binary {
            op: BinaryOp::Add | BinaryOp::Mul,
            a,
            b,
        } => nonneg_poly(a, shape_vars) && nonneg_poly(b, shape_vars),
        _ => false,
    }
}

/// Whether every variable of `e` is a shape variable (or one of `also`).
fn only_vars(e: &PrimExpr, shape_vars: &HashSet<VarId>, also: &HashSet<VarId>) -> bool {
    let mut ok = true;
    e.visit(&mut |x| match x.kind() {
        ExprKind::Var(v) => ok &= shape_vars.contains(&v.id()) || also.contains(&v.id()),
        ExprKind::BufferLoad { .. } | ExprKind::Call { .. } | ExprKind::Let { .. } => ok = false,
        _ => {}
    });
    ok
}

fn sub(a: &PrimExpr, b: &PrimExpr) -> PrimExpr {
    PrimExpr::binary(BinaryOp::Sub, a.clone(), b.clone())
}

fn add_const(a: &PrimExpr, c: i64) -> PrimExpr {
    PrimExpr::binary(BinaryOp::Add, a.clone(), PrimExpr::int(a.dtype(), c))
}

/// The loops `e` uses, if every loop is rectangular and `e` uses nothing else than their
/// variables and shape variables.
fn used_loops<'l>(
    e: &PrimExpr,
    loops: &'l [LoopRange],
    shape_vars: &HashSet<VarId>,
) -> Option<Vec<&'l LoopRange>> {
    let ids: HashSet<VarId> = loops.iter().map(|l| l.var.id()).collect();
    if !only_vars(e, shape_vars, &ids) {
        return None;
    }
    let used: Vec<&LoopRange> = loops
        .iter()
        .filter(|l| e.uses_var(&|x| x == &l.var))
        .collect();
    let none = HashSet::new();
    for l in &used {
        if !only_vars(&l.min, shape_vars, &none) || !only_vars(&l.extent, shape_vars, &none) {
            return None;
        }
    }
    Some(used)
}

/// Whether `0 <= index < extent` for every iteration of `loops` (see the module doc).
pub(crate) fn in_bounds(
    index: &PrimExpr,
    extent: &PrimExpr,
    loops: &[LoopRange],
    shape_vars: &HashSet<VarId>,
) -> bool {
    if !index.dtype().is_int() || !extent.dtype().is_int() {
        return false;
    }
    let none = HashSet::new();
    if !only_vars(extent, shape_vars, &none) {
        return false;
    }
    let Some(used) = used_loops(index, loops, shape_vars) else {
        return false;
    };
    let an = Analyzer::new();
    let nonneg = |e: &PrimExpr| nonneg_poly(&an.simplify(e), shape_vars);
    let mut lo = HashMap::new();
    let mut hi = HashMap::new();
    for l in &used {
        let v = PrimExpr::from(&l.var);
        let step = HashMap::from([(l.var.id(), add_const(&v, 1))]);
        if !nonneg(&sub(&substitute(index, &step), index)) {
            return false;
        }
        let last = add_const(
            &PrimExpr::binary(BinaryOp::Add, l.min.clone(), l.extent.clone()),
            -1,
        );
        lo.insert(l.var.id(), l.min.clone());
        hi.insert(l.var.id(), last);
    }
    let least = substitute(index, &lo);
    let greatest = substitute(index, &hi);
    let ext = match extent.dtype() == greatest.dtype() {
        true => extent.clone(),
        false => PrimExpr::cast(greatest.dtype(), extent.clone()),
    };
    nonneg(&least) && nonneg(&add_const(&sub(&ext, &greatest), -1))
}

/// If `index` is `S * v + r` over the iterations of `inner` loops with `0 <= r < S` and `S` a
/// non-negative polynomial of shape variables — so that iteration `v` of an outer loop owns
/// the slab `[S*v, S*v + S)` — returns `S` simplified (for comparing slabs of other accesses).
pub(crate) fn slab(
    index: &PrimExpr,
    v: &Var,
    inner: &[LoopRange],
    shape_vars: &HashSet<VarId>,
) -> Option<String> {
    let an = Analyzer::new();
    let x = PrimExpr::from(v);
    let step = HashMap::from([(v.id(), add_const(&x, 1))]);
    let s = an.simplify(&sub(&substitute(index, &step), index));
    if !nonneg_poly(&s, shape_vars) || s.is_zero() {
        return None;
    }
    let zero = HashMap::from([(v.id(), PrimExpr::int(v.dtype(), 0))]);
    let r = substitute(index, &zero);
    if r.uses_var(&|y| y == v) {
        return None;
    }
    // `index - r` must be exactly `S * v` (no other dependence on `v`).
    let linear = an.simplify(&sub(
        &sub(index, &r),
        &PrimExpr::binary(BinaryOp::Mul, s.clone(), PrimExpr::cast(s.dtype(), x)),
    ));
    if linear.as_int() != Some(0) {
        return None;
    }
    in_bounds(&r, &s, inner, shape_vars).then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tir::DataType;

    fn var(n: &str) -> Var {
        Var::new(n, DataType::INT64)
    }

    fn e(v: &Var) -> PrimExpr {
        PrimExpr::from(v)
    }

    fn mul(a: PrimExpr, b: PrimExpr) -> PrimExpr {
        PrimExpr::binary(BinaryOp::Mul, a, b)
    }

    fn add(a: PrimExpr, b: PrimExpr) -> PrimExpr {
        PrimExpr::binary(BinaryOp::Add, a, b)
    }

    fn lp(v: &Var, extent: PrimExpr) -> LoopRange {
        LoopRange {
            var: v.clone(),
            min: PrimExpr::i64(0),
            extent,
        }
    }

    #[test]
    fn row_major_symbolic_accesses_are_in_bounds() {
        let (n, m, i, j) = (var("n"), var("m"), var("i"), var("j"));
        let shapes = HashSet::from([n.id(), m.id()]);
        let loops = [lp(&i, e(&n)), lp(&j, e(&m))];
        let idx = add(mul(e(&i), e(&m)), e(&j));
        let numel = mul(e(&n), e(&m));
        assert!(in_bounds(&idx, &numel, &loops, &shapes));
        // Broadcast along rows: B[j] with extent m.
        assert!(in_bounds(&e(&j), &e(&m), &loops, &shapes));
        // One past the end, the transposed access, and an unknown (maybe negative) scalar.
        assert!(!in_bounds(
            &add(idx.clone(), PrimExpr::i64(1)),
            &numel,
            &loops,
            &shapes
        ));
        assert!(!in_bounds(
            &add(mul(e(&j), e(&n)), e(&i)),
            &e(&n),
            &loops,
            &shapes
        ));
        let s = var("s");
        assert!(!in_bounds(
            &add(idx.clone(), e(&s)),
            &numel,
            &loops,
            &HashSet::from([n.id(), m.id()])
        ));
        // Rows of 4: i * 4 + j with j < 4.
        let loops4 = [lp(&i, e(&n)), lp(&j, PrimExpr::i64(4))];
        let idx4 = add(mul(e(&i), PrimExpr::i64(4)), e(&j));
        assert!(in_bounds(
            &idx4,
            &mul(e(&n), PrimExpr::i64(4)),
            &loops4,
            &shapes
        ));
        assert!(!in_bounds(
            &idx4,
            &mul(e(&n), PrimExpr::i64(3)),
            &loops4,
            &shapes
        ));
    }

    #[test]
    fn symbolic_slabs() {
        let (n, m, i, j) = (var("n"), var("m"), var("i"), var("j"));
        let shapes = HashSet::from([n.id(), m.id()]);
        let idx = add(mul(e(&i), e(&m)), e(&j));
        let inner = [lp(&j, e(&m))];
        assert_eq!(slab(&idx, &i, &inner, &shapes), Some(e(&m).to_string()));
        assert_eq!(slab(&e(&j), &i, &inner, &shapes), None);
        let wide = [lp(&j, add(e(&m), PrimExpr::i64(1)))];
        assert_eq!(slab(&idx, &i, &wide, &shapes), None);
    }
}
