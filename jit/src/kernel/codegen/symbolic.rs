//! Symbolic bounds proofs: an access `B[idx]` inside loops with symbolic extents (`for i in
//! range(n)`) is in bounds when `0 <= idx` and `idx < extent(B)` hold for every iteration, which
//! this module proves without knowing the sizes, so symbolic-shape kernels drop their checks.
//!
//! The facts used are few and sound: *shape variables* (dimensions bound from an argument's
//! shape) are non-negative, and each enclosing loop variable `v` lies in
//! `[min_v, min_v + extent_v - 1]` whenever the body runs, where `min_v` and `extent_v` use only
//! shape variables and constants (rectangular nests). Then, reading every expression as a
//! polynomial over ℤ ([`tir::arith::Polynomial`], checked coefficients):
//!
//! 1. `idx` is non-decreasing in every loop variable: `idx[v := v + 1] - idx` is a
//!    *non-negative polynomial* — non-negative coefficients over shape variables;
//! 2. so its least value is `idx` with every `v := min_v` and its greatest with every
//!    `v := min_v + extent_v - 1`; the first must be a non-negative polynomial and
//!    `extent - 1 - greatest` too.
//!
//! The proof is over ℤ; three more facts make it true of the machine's wrapping arithmetic:
//!
//! * `idx` is `+`, `-`, `*` of variables and constants all in its own type, so its run-time value
//!   is congruent to the polynomial's modulo `2^bits`; a value in `[0, extent)` with `extent`
//!   at most `2^(bits-1)` (any buffer for `int64`; a constant extent for narrower types) is then
//!   the run-time value itself.
//! * each used loop's `min` and `extent` cannot wrap when shape variables range over
//!   `[0, 2^63 - 1]` ([`tir::arith::exact_int_bound`]), and `min + extent` cannot either unless
//!   `min >= 0` (then an overflowing end runs no iteration): the loop runs the range the proof
//!   assumes, or part of it.
//! * `extent` is the buffer's element count, the product of dimensions that the kernel prologue
//!   checked against the argument's real shape.
//!
//! `X // c` and `X % c` of a shape variable `X` by a constant `c > 0` become fresh non-negative
//! variables `q` and `r` with `X = c*q + r` (exact for `X >= 0`). Anything outside this shape
//! — an overflowing coefficient, a division of anything else, a load — is simply "not proven"
//! and keeps its check.

use std::collections::{HashMap, HashSet};

use tir::arith::{Polynomial, VarRanges, exact_int_bound};
use tir::transform::mutator::{Mutator, walk_expr};
use tir::{BinaryOp, ExprKind, PrimExpr, Var, VarId};

/// An enclosing loop: its variable, first value and extent.
#[derive(Clone, Debug)]
pub(crate) struct LoopRange {
    pub var: Var,
    pub min: PrimExpr,
    pub extent: PrimExpr,
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

/// A loop as polynomials: variable, `min`, `extent` (over non-negative variables only).
struct PolyLoop {
    var: VarId,
    min: Polynomial,
    extent: Polynomial,
}

/// The expressions of one proof with divisions split and the loops as polynomials.
struct Problem<'a> {
    split: SplitDivisions<'a>,
    /// Shape variables and the split variables: all non-negative.
    nonneg: HashSet<VarId>,
    /// The loops whose bounds are polynomials of non-negative variables that cannot wrap at
    /// run time (others cannot be used by a proven index).
    loops: Vec<PolyLoop>,
}

impl<'a> Problem<'a> {
    fn new(
        exprs: &[&PrimExpr],
        loops: &[LoopRange],
        shape_vars: &'a HashSet<VarId>,
    ) -> Option<Problem<'a>> {
        let mut split = SplitDivisions {
            shape_vars,
            split: HashMap::new(),
            conflict: false,
        };
        for e in exprs {
            split.collect(e);
        }
        for l in loops {
            split.collect(&l.min);
            split.collect(&l.extent);
        }
        if split.conflict {
            return None;
        }
        let mut nonneg = shape_vars.clone();
        for (_, q, r) in split.split.values() {
            nonneg.insert(q.id());
            nonneg.insert(r.id());
        }
        let shape_ranges: VarRanges = shape_vars.iter().map(|v| (*v, (0, i64::MAX))).collect();
        let mut out = Problem {
            split,
            nonneg,
            loops: Vec::new(),
        };
        for l in loops {
            if !runs_its_range(l, &shape_ranges) {
                continue;
            }
            let (Some(min), Some(extent)) = (out.poly(&l.min), out.poly(&l.extent)) else {
                continue;
            };
            if out.only_nonneg_vars(&min) && out.only_nonneg_vars(&extent) {
                out.loops.push(PolyLoop {
                    var: l.var.id(),
                    min,
                    extent,
                });
            }
        }
        Some(out)
    }

    fn poly(&mut self, e: &PrimExpr) -> Option<Polynomial> {
        Polynomial::of(&self.split.expr(e))
    }

    fn only_nonneg_vars(&self, p: &Polynomial) -> bool {
        p.terms()
            .all(|(m, _)| m.iter().all(|v| self.nonneg.contains(v)))
    }

    fn is_nonneg(&self, p: &Polynomial) -> bool {
        p.is_nonneg_over(&|v| self.nonneg.contains(&v))
    }

    /// Whether `0 <= idx < extent` over ℤ for every iteration of the loops (module doc, 1–2).
    fn in_bounds(&self, idx: &Polynomial, extent: &Polynomial) -> Option<bool> {
        let mut least = idx.clone();
        let mut greatest = idx.clone();
        for l in self.loops.iter().filter(|l| idx.uses(l.var)) {
            let next = Polynomial::var(l.var).checked_add(&Polynomial::constant(1), 1)?;
            let step = idx.substitute(l.var, &next)?.checked_add(idx, -1)?;
            if !self.is_nonneg(&step) {
                return Some(false);
            }
            let last = l
                .min
                .checked_add(&l.extent, 1)?
                .checked_add(&Polynomial::constant(1), -1)?;
            least = least.substitute(l.var, &l.min)?;
            greatest = greatest.substitute(l.var, &last)?;
        }
        let room = extent
            .checked_add(&Polynomial::constant(1), -1)?
            .checked_add(&greatest, -1)?;
        Some(self.is_nonneg(&least) && self.is_nonneg(&room))
    }
}

/// Whether loop `l` runs only values in `[min, min + extent - 1]` of the mathematical values of
/// its bounds (module doc): they cannot wrap, and `min + extent` cannot either unless `min`
/// is non-negative.
fn runs_its_range(l: &LoopRange, shape_ranges: &VarRanges) -> bool {
    let dt = l.var.dtype();
    if l.min.dtype() != dt || l.extent.dtype() != dt {
        return false;
    }
    let Some((min_lo, _)) = exact_int_bound(&l.min, shape_ranges) else {
        return false;
    };
    if exact_int_bound(&l.extent, shape_ranges).is_none() {
        return false;
    }
    let end = PrimExpr::binary(BinaryOp::Add, l.min.clone(), l.extent.clone());
    min_lo >= 0 || exact_int_bound(&end, shape_ranges).is_some()
}

/// Whether an index of type-width `bits` whose value over ℤ lies in `[0, extent)` is that
/// value at run time (module doc).
fn fits_index_type(bits: u8, extent: &Polynomial) -> bool {
    bits >= 64
        || extent
            .as_const()
            .is_some_and(|n| bits > 0 && n <= 1i64 << (bits - 1).min(62))
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
    let Some(mut p) = Problem::new(&[index, extent], loops, shape_vars) else {
        return false;
    };
    let (Some(idx), Some(ext)) = (p.poly(index), p.poly(extent)) else {
        return false;
    };
    if !p.only_nonneg_vars(&ext) || !fits_index_type(index.dtype().bits, &ext) {
        return false;
    }
    p.in_bounds(&idx, &ext) == Some(true)
}

/// If `index` is `S * v + r` over ℤ, over the iterations of `inner` loops, with `0 <= r < S`
/// and `S` a non-negative polynomial of shape variables — so that iteration `v` of an outer
/// loop owns the slab `[S*v, S*v + S)` — returns `S` as a key comparable between accesses.
/// Whether the run-time index wraps is the caller's question.
pub(crate) fn slab(
    index: &PrimExpr,
    v: &Var,
    inner: &[LoopRange],
    shape_vars: &HashSet<VarId>,
) -> Option<String> {
    let mut p = Problem::new(&[index], inner, shape_vars)?;
    let idx = p.poly(index)?;
    let x = Polynomial::var(v.id());
    let next = x.checked_add(&Polynomial::constant(1), 1)?;
    let s = idx.substitute(v.id(), &next)?.checked_add(&idx, -1)?;
    if !p.is_nonneg(&s) || s.as_const() == Some(0) {
        return None;
    }
    let r = idx.substitute(v.id(), &Polynomial::constant(0))?;
    // `idx - r` must be exactly `S * v` (no other dependence on `v`).
    let rest = idx
        .checked_add(&r, -1)?
        .checked_add(&s.checked_mul(&x)?, -1)?;
    if rest.as_const() != Some(0) {
        return None;
    }
    if p.in_bounds(&r, &s)? {
        Some(p.key(&s))
    } else {
        None
    }
}

impl Problem<'_> {
    /// A text for `s` that is the same for the same polynomial in another [`Problem`] (whose
    /// split variables are other fresh variables).
    fn key(&self, s: &Polynomial) -> String {
        let name = |v: &VarId| -> String {
            for (x, (c, q, r)) in &self.split.split {
                if q.id() == *v {
                    return format!("v{}//{c}", x.0);
                }
                if r.id() == *v {
                    return format!("v{}%{c}", x.0);
                }
            }
            format!("v{}", v.0)
        };
        let mut terms: Vec<String> = s
            .terms()
            .map(|(m, c)| {
                let mut names: Vec<String> = m.iter().map(name).collect();
                names.sort();
                format!("{c}*{}", names.join("*"))
            })
            .collect();
        terms.sort();
        terms.join(" + ")
    }
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
        let key = slab(&idx, &i, &inner, &shapes);
        assert_eq!(key, Some(format!("1*v{}", m.id().0)));
        // The same stride written another way has the same key.
        let idx2 = add(e(&j), mul(e(&m), e(&i)));
        assert_eq!(slab(&idx2, &i, &inner, &shapes), key);
        assert_eq!(slab(&e(&j), &i, &inner, &shapes), None);
        let wide = [lp(&j, add(e(&m), PrimExpr::i64(1)))];
        assert_eq!(slab(&idx, &i, &wide, &shapes), None);
    }

    #[test]
    fn overflow_and_wrap_are_not_proofs() {
        let (n, m, i, j) = (var("n"), var("m"), var("i"), var("j"));
        let shapes = HashSet::from([n.id(), m.id()]);
        // The (2^62) x 4 copy of 8 elements: (2^62 - 1) * 4 + 3 overflows int64.
        let big = [lp(&i, PrimExpr::i64(1 << 62)), lp(&j, PrimExpr::i64(4))];
        let idx = add(mul(e(&i), PrimExpr::i64(4)), e(&j));
        assert!(!in_bounds(&idx, &PrimExpr::i64(8), &big, &shapes));
        let fits = [lp(&i, PrimExpr::i64(2)), lp(&j, PrimExpr::i64(4))];
        assert!(in_bounds(&idx, &PrimExpr::i64(8), &fits, &shapes));
        // A loop extent that may wrap at run time (`n * m`) bounds nothing.
        let wraps = [lp(&i, mul(e(&n), e(&m)))];
        assert!(!in_bounds(&e(&i), &mul(e(&n), e(&m)), &wraps, &shapes));
        let plain = [lp(&i, e(&n))];
        assert!(in_bounds(&e(&i), &e(&n), &plain, &shapes));
        // An int32 index is its polynomial only below 2^31: a symbolic extent may be larger.
        let k = Var::new("k", DataType::INT32);
        let small = [LoopRange {
            var: k.clone(),
            min: PrimExpr::i32(0),
            extent: PrimExpr::i32(4),
        }];
        assert!(in_bounds(&e(&k), &PrimExpr::i32(4), &small, &shapes));
        let wide = PrimExpr::i32(i32::MAX);
        let k2 = PrimExpr::binary(BinaryOp::Mul, e(&k), PrimExpr::i32(2));
        let big32 = [LoopRange {
            var: k.clone(),
            min: PrimExpr::i32(0),
            extent: wide.clone(),
        }];
        assert!(!in_bounds(&k2, &wide, &big32, &shapes));
    }
}
