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
use tir::transform::mutator::{Mutator, substitute, walk_expr};
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

/// Rewrites `X // c` and `X % c` of a shape variable `X` and a constant `c > 0` (loops split
/// by a constant factor, such as the reduction unroll-and-jam) by writing `X = c*q + r` with
/// fresh non-negative `q` and `r` (`r < c` is forgotten, which only weakens what is proven).
struct SplitDivisions<'a> {
    shape_vars: &'a HashSet<VarId>,
    /// Per shape variable: divisor, `q`, `r`.
    split: HashMap<VarId, (i64, Var, Var)>,
    /// A variable was divided by two different constants.
    conflict: bool,
}

impl SplitDivisions<'_> {
    fn collect(&mut self, e: &PrimExpr) {
        e.visit(&mut |x| {
            if let ExprKind::Binary {
                op: BinaryOp::FloorDiv | BinaryOp::FloorMod,
                a,
                b,
            } = x.kind()
                && let (ExprKind::Var(v), Some(c)) = (a.kind(), b.as_int())
                && c > 0
                && self.shape_vars.contains(&v.id())
            {
                match self.split.get(&v.id()) {
                    Some((d, _, _)) => self.conflict |= *d != c,
                    None => {
                        let q = Var::new(format!("{}_q", v.name()), v.dtype());
                        let r = Var::new(format!("{}_r", v.name()), v.dtype());
                        self.split.insert(v.id(), (c, q, r));
                    }
                }
            }
        });
    }
}

impl Mutator for SplitDivisions<'_> {
    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        match e.kind() {
            ExprKind::Binary {
                op: op @ (BinaryOp::FloorDiv | BinaryOp::FloorMod),
                a,
                b,
            } => {
                if let ExprKind::Var(v) = a.kind()
                    && let Some((c, q, r)) = self.split.get(&v.id())
                    && b.as_int() == Some(*c)
                {
                    return PrimExpr::from(if *op == BinaryOp::FloorDiv { q } else { r });
                }
                walk_expr(self, e)
            }
            ExprKind::Var(v) => match self.split.get(&v.id()) {
                Some((c, q, r)) => PrimExpr::binary(
                    BinaryOp::Add,
                    PrimExpr::binary(BinaryOp::Mul, PrimExpr::int(v.dtype(), *c), q.into()),
                    r.into(),
                ),
                None => e.clone(),
            },
            _ => walk_expr(self, e),
        }
    }
}

/// Whether `0 <= index < extent` for every iteration of `loops` (see the module doc).
pub(crate) fn in_bounds(
    index: &PrimExpr,
    extent: &PrimExpr,
    loops: &[LoopRange],
    shape_vars: &HashSet<VarId>,
) -> bool {
    let mut split = SplitDivisions {
        shape_vars,
        split: HashMap::new(),
        conflict: false,
    };
    split.collect(index);
    split.collect(extent);
    for l in loops {
        split.collect(&l.min);
        split.collect(&l.extent);
    }
    if split.conflict {
        return false;
    }
    if split.split.is_empty() {
        return in_bounds_poly(index, extent, loops, shape_vars);
    }
    let mut vars = shape_vars.clone();
    for (_, q, r) in split.split.values() {
        vars.insert(q.id());
        vars.insert(r.id());
    }
    let loops: Vec<LoopRange> = loops
        .iter()
        .map(|l| LoopRange {
            var: l.var.clone(),
            min: split.expr(&l.min),
            extent: split.expr(&l.extent),
        })
        .collect();
    let (index, extent) = (split.expr(index), split.expr(extent));
    in_bounds_poly(&index, &extent, &loops, &vars)
}

/// [`in_bounds`] once divisions are gone.
fn in_bounds_poly(
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
) -> Option<PrimExpr> {
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
    in_bounds(&r, &s, inner, shape_vars).then_some(s)
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
    fn loops_split_by_a_constant_are_in_bounds() {
        // for ko in range(k // 4): for u in range(4): B[(4*ko + u) * n + j], B has k*n elements;
        // then for t in range(k // 4 * 4, k % 4 + k // 4 * 4): B[t * n + j].
        let (k, n, ko, u, j, t) = (var("k"), var("n"), var("ko"), var("u"), var("j"), var("t"));
        let shapes = HashSet::from([k.id(), n.id()]);
        let four = || PrimExpr::i64(4);
        let kdiv = PrimExpr::binary(BinaryOp::FloorDiv, e(&k), four());
        let kmod = PrimExpr::binary(BinaryOp::FloorMod, e(&k), four());
        let numel = mul(e(&k), e(&n));
        let loops = [lp(&ko, kdiv.clone()), lp(&u, four()), lp(&j, e(&n))];
        let row = add(mul(e(&ko), four()), e(&u));
        assert!(in_bounds(
            &add(mul(row.clone(), e(&n)), e(&j)),
            &numel,
            &loops,
            &shapes
        ));
        assert!(!in_bounds(
            &add(mul(add(row, PrimExpr::i64(1)), e(&n)), e(&j)),
            &numel,
            &loops,
            &shapes
        ));
        let start = mul(kdiv, four());
        let tail = [
            LoopRange {
                var: t.clone(),
                min: start.clone(),
                extent: kmod,
            },
            lp(&j, e(&n)),
        ];
        assert!(in_bounds(
            &add(mul(e(&t), e(&n)), e(&j)),
            &numel,
            &tail,
            &shapes
        ));
    }

    #[test]
    fn symbolic_slabs() {
        let (n, m, i, j) = (var("n"), var("m"), var("i"), var("j"));
        let shapes = HashSet::from([n.id(), m.id()]);
        let idx = add(mul(e(&i), e(&m)), e(&j));
        let inner = [lp(&j, e(&m))];
        assert_eq!(slab(&idx, &i, &inner, &shapes), Some(e(&m)));
        assert_eq!(slab(&e(&j), &i, &inner, &shapes), None);
        let wide = [lp(&j, add(e(&m), PrimExpr::i64(1)))];
        assert_eq!(slab(&idx, &i, &wide, &shapes), None);
    }
}
