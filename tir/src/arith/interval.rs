//! Sound integer bounds for safety proofs: the one analysis the code generator's bounds-check
//! elimination, the symbolic bounds prover, the parallel slab proof and the loop transforms use
//! to decide that an index stays inside a buffer.
//!
//! Two questions are answered about an integer expression `e` of type `T`, given inclusive
//! constant ranges of some variables ([`VarRanges`]):
//!
//! * [`int_bound`]: an interval containing every value `e` takes *at run time*, where every
//!   operation wraps modulo `2^bits(T)` as the generated code and the interpreter compute it.
//!   Each sub-expression is bounded in unbounded (`i128`) arithmetic and then compared with
//!   the range of its own type: if it may leave it, the operation may wrap and its bound is the
//!   whole type (any value of `T`), which is sound and usually too wide to prove anything.
//! * [`exact_int_bound`]: the same, but `Some` only when no sub-expression can wrap. Then the
//!   run-time value of `e` equals its mathematical value (the expression read over ℤ), which
//!   is what the symbolic prover and the slab proof reason about.
//!
//! Casts follow their real semantics: a widening integer cast keeps the bound; a narrowing one
//! keeps it only when every value fits, else the target's whole range; a cast from a float
//! saturates (the target's whole range); a cast to `bool` is `[0, 1]`. Division and modulo
//! by a divisor range that contains zero bound the non-zero divisors only (a zero divisor
//! stops the kernel with an error before any access uses the result); `MIN / -1` is an
//! overflow like any other. Variables without a range, loads and calls are the whole range of
//! their type. `uint64` values above `i64::MAX` are not representable here: any `uint64`
//! expression that is not a constant in range has no bound (`None`).
//!
//! [`Polynomial`] is the exact algebra of the symbolic prover: an expression of `+`, `-`, `*`
//! over variables and constants read as a polynomial over ℤ with checked coefficients. It also
//! says when the run-time value is congruent to the polynomial's value (every operation in one
//! type, leaves exact), the fact that links a proof over ℤ to the wrapped machine value.
//!
//! Where soundness ends: a variable's range must be true of its run-time value (the caller
//! binds loop variables only inside their loop, and a loop whose end overflows runs no
//! iteration); `Select` and `if_then_else` are bounded by the union of their branches, whatever
//! the condition. Everything uses checked arithmetic: an overflow in the analysis means "no
//! bound", never a wrong one.

use std::collections::{BTreeMap, HashMap};

use crate::arith::scalar::int_type_range;
use crate::ir::{BinaryOp, DataType, ExprKind, For, PrimExpr, TypeCode, VarId};

/// Inclusive constant ranges of variables.
pub type VarRanges = HashMap<VarId, (i64, i64)>;

/// An interval of mathematical values (wider than `i64` while an operation is checked).
type Iv = (i128, i128);

/// The values a scalar integer (or `bool`) type holds, or `None` for types whose values are
/// not all `i64`s (`uint64`) or that are not integers.
fn type_range(dt: DataType) -> Option<Iv> {
    if dt.lanes != 1 {
        return None;
    }
    if dt.is_bool() {
        return Some((0, 1));
    }
    if !dt.is_int_or_uint() || dt.bits == 0 || dt.bits > 64 {
        return None;
    }
    if dt.code == TypeCode::UInt && dt.bits == 64 {
        return None;
    }
    let (lo, hi) = int_type_range(dt);
    Some((i128::from(lo), i128::from(hi)))
}

/// The inclusive range of `f`'s variable inside its body when its bounds are constants that fit
/// the variable's type and it runs at least once: the [`VarRanges`] entry a loop contributes.
/// (Bounds that do not fit would be truncated to the variable's type at run time.)
pub fn loop_var_range(f: &For) -> Option<(i64, i64)> {
    let (lo, n) = (f.min.as_int()?, f.extent.as_int()?);
    let hi = lo.checked_add(n.checked_sub(1)?)?;
    let dt = f.loop_var.dtype();
    let (tlo, thi) = int_type_range(dt);
    (n > 0 && dt.is_int() && lo >= tlo && hi <= thi).then_some((lo, hi))
}

fn to_i64(b: Iv) -> Option<(i64, i64)> {
    Some((i64::try_from(b.0).ok()?, i64::try_from(b.1).ok()?))
}

/// An interval containing every run-time value of the integer expression `e`, or `None` when
/// nothing is known (see the module doc). Never narrower than the truth.
pub fn int_bound(e: &PrimExpr, ranges: &VarRanges) -> Option<(i64, i64)> {
    Bounder {
        ranges,
        exact: false,
    }
    .bound(e)
    .and_then(to_i64)
}

/// Like [`int_bound`], but `None` unless no operation of `e` can wrap around its type, so that
/// the run-time value of `e` is its mathematical value.
pub fn exact_int_bound(e: &PrimExpr, ranges: &VarRanges) -> Option<(i64, i64)> {
    Bounder {
        ranges,
        exact: true,
    }
    .bound(e)
    .and_then(to_i64)
}

/// Whether every run-time value of `e` lies in `[lo, hi)`.
pub fn proves_in_range(e: &PrimExpr, ranges: &VarRanges, lo: i64, hi: i64) -> bool {
    int_bound(e, ranges).is_some_and(|(a, b)| a >= lo && b < hi)
}

struct Bounder<'r> {
    ranges: &'r VarRanges,
    /// Give up instead of widening to the type when an operation may wrap.
    exact: bool,
}

impl Bounder<'_> {
    /// `b` as the value of an operation of type `dt`: itself if it fits, else the type's range
    /// (the operation wraps), or nothing in exact mode.
    fn fit(&self, b: Iv, dt: DataType) -> Option<Iv> {
        let t = type_range(dt)?;
        if b.0 >= t.0 && b.1 <= t.1 {
            Some(b)
        } else if self.exact {
            None
        } else {
            Some(t)
        }
    }

    fn bound(&self, e: &PrimExpr) -> Option<Iv> {
        let dt = e.dtype();
        let whole = type_range(dt)?;
        match e.kind() {
            ExprKind::IntImm { value, .. } => {
                let v = i128::from(*value);
                (v >= whole.0 && v <= whole.1).then_some((v, v))
            }
            ExprKind::Var(v) => match self.ranges.get(&v.id()) {
                // A range wider than the type is intersected with it: the value is of the type.
                Some(&(lo, hi)) => {
                    let (lo, hi) = (i128::from(lo).max(whole.0), i128::from(hi).min(whole.1));
                    // An empty range is a loop that does not run: anything is true of it.
                    Some(if lo <= hi { (lo, hi) } else { whole })
                }
                None => Some(whole),
            },
            ExprKind::Binary { op, a, b } if a.dtype() == dt && b.dtype() == dt => {
                let (x, y) = (self.bound(a)?, self.bound(b)?);
                let r = match op {
                    BinaryOp::Add => (x.0 + y.0, x.1 + y.1),
                    BinaryOp::Sub => (x.0 - y.1, x.1 - y.0),
                    BinaryOp::Mul => interval_mul(x, y)?,
                    BinaryOp::Min => (x.0.min(y.0), x.1.min(y.1)),
                    BinaryOp::Max => (x.0.max(y.0), x.1.max(y.1)),
                    BinaryOp::FloorDiv | BinaryOp::Div | BinaryOp::FloorMod | BinaryOp::Mod => {
                        div_bound(*op, x, y)?
                    }
                };
                self.fit(r, dt)
            }
            ExprKind::Cast { dtype, value } => {
                let from = value.dtype();
                if dtype.is_bool() {
                    return Some((0, 1));
                }
                if from.is_float() || from.code == TypeCode::BFloat {
                    // Float-to-int conversions saturate (NaN gives zero): a value of the type,
                    // not a wrapped one.
                    return Some(whole);
                }
                let inner = self.bound(value)?;
                // A narrowing cast of a value that may not fit wraps: the whole target range.
                self.fit(inner, *dtype)
            }
            ExprKind::Select {
                true_value,
                false_value,
                ..
            } => union(self.bound(true_value)?, self.bound(false_value)?),
            ExprKind::Call { op, args, .. } if op == "if_then_else" && args.len() == 3 => {
                union(self.bound(&args[1])?, self.bound(&args[2])?)
            }
            ExprKind::Let { var, value, body } => {
                let mut ranges = self.ranges.clone();
                match self.bound(value).and_then(to_i64) {
                    Some(b) => ranges.insert(var.id(), b),
                    None => ranges.remove(&var.id()),
                };
                Bounder {
                    ranges: &ranges,
                    exact: self.exact,
                }
                .bound(body)
            }
            // Loads, calls and anything else: a value of the type, which may be anything (but
            // not a wrapped one: such a leaf is exact).
            _ => Some(whole),
        }
    }
}

fn union(a: Iv, b: Iv) -> Option<Iv> {
    Some((a.0.min(b.0), a.1.max(b.1)))
}

fn interval_mul(a: Iv, b: Iv) -> Option<Iv> {
    let c = [
        a.0.checked_mul(b.0)?,
        a.0.checked_mul(b.1)?,
        a.1.checked_mul(b.0)?,
        a.1.checked_mul(b.1)?,
    ];
    Some((*c.iter().min()?, *c.iter().max()?))
}

/// Division and modulo of `a` by every non-zero divisor in `b` (see the module doc).
fn div_bound(op: BinaryOp, a: Iv, b: Iv) -> Option<Iv> {
    let neg = (b.0 <= -1).then(|| (b.0, b.1.min(-1)));
    let pos = (b.1 >= 1).then(|| (b.0.max(1), b.1));
    match (neg, pos) {
        (Some(n), Some(p)) => union(div_same_sign(op, a, n)?, div_same_sign(op, a, p)?),
        (Some(n), None) => div_same_sign(op, a, n),
        (None, Some(p)) => div_same_sign(op, a, p),
        // Only a zero divisor: the kernel stops before the value is used.
        (None, None) => Some((0, 0)),
    }
}

/// [`div_bound`] for a divisor range of one sign (no zero).
fn div_same_sign(op: BinaryOp, a: Iv, b: Iv) -> Option<Iv> {
    let floor = matches!(op, BinaryOp::FloorDiv | BinaryOp::FloorMod);
    match op {
        BinaryOp::FloorDiv | BinaryOp::Div => {
            // With the divisor of one sign, `a / b` is monotone in each operand: the extremes
            // are at the corners (floor and truncation are monotone too).
            let q = |x: i128, y: i128| {
                if floor {
                    crate::arith::scalar::floor_div(x, y)
                } else {
                    x.checked_div(y)
                }
            };
            let c = [q(a.0, b.0)?, q(a.0, b.1)?, q(a.1, b.0)?, q(a.1, b.1)?];
            Some((*c.iter().min()?, *c.iter().max()?))
        }
        _ => {
            // |result| < max |divisor|.
            let m = b.0.abs().max(b.1.abs()) - 1;
            if floor {
                // The sign of the divisor; `a` itself when it already lies in `[0, b)`.
                if b.0 > 0 {
                    if a.0 >= 0 && a.1 < b.0 {
                        Some(a)
                    } else if a.0 >= 0 {
                        Some((0, a.1.min(m)))
                    } else {
                        Some((0, m))
                    }
                } else if a.1 <= 0 && a.0 > b.1 {
                    Some(a)
                } else if a.1 <= 0 {
                    Some((a.0.max(-m), 0))
                } else {
                    Some((-m, 0))
                }
            } else {
                // The sign of the dividend, magnitude below the divisor's and the dividend's.
                let lo = if a.0 >= 0 { 0 } else { a.0.max(-m) };
                let hi = if a.1 <= 0 { 0 } else { a.1.min(m) };
                Some((lo, hi))
            }
        }
    }
}

/// How many terms a [`Polynomial`] may have before the analysis gives up.
const MAX_TERMS: usize = 64;

/// An integer polynomial over variables with `i64` coefficients: monomial (sorted variable ids,
/// repeated for powers; empty for the constant) → non-zero coefficient. Read over ℤ.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Polynomial {
    terms: BTreeMap<Vec<VarId>, i64>,
}

impl Polynomial {
    /// The constant `c`.
    pub fn constant(c: i64) -> Polynomial {
        let mut p = Polynomial::default();
        if c != 0 {
            p.terms.insert(Vec::new(), c);
        }
        p
    }

    /// The variable `v`.
    pub fn var(v: VarId) -> Polynomial {
        Polynomial {
            terms: BTreeMap::from([(vec![v], 1)]),
        }
    }

    /// `e` as a polynomial, if it is built from integer constants and variables with `+`, `-`
    /// and `*` (a widening integer cast of a variable or constant is that leaf) and no
    /// coefficient overflows. Every operation must be of `e`'s own type: then the run-time
    /// value of `e` is congruent to the polynomial's value modulo `2^bits`, since wrapping
    /// addition and multiplication are a ring homomorphism from ℤ.
    pub fn of(e: &PrimExpr) -> Option<Polynomial> {
        let dt = e.dtype();
        if !dt.is_int() || dt.lanes != 1 {
            return None;
        }
        Polynomial::of_typed(e, dt)
    }

    fn of_typed(e: &PrimExpr, dt: DataType) -> Option<Polynomial> {
        match e.kind() {
            ExprKind::IntImm { value, dtype } if *dtype == dt => Some(Polynomial::constant(*value)),
            ExprKind::Var(v) if v.dtype() == dt => Some(Polynomial::var(v.id())),
            ExprKind::Cast { dtype, value }
                if *dtype == dt && value.dtype().is_int() && value.dtype().bits <= dt.bits =>
            {
                // The value of a leaf of a narrower signed type is the same in the wider type.
                match value.kind() {
                    ExprKind::IntImm { value, .. } => Some(Polynomial::constant(*value)),
                    ExprKind::Var(v) => Some(Polynomial::var(v.id())),
                    _ => None,
                }
            }
            ExprKind::Binary { op, a, b } if e.dtype() == dt => {
                let (x, y) = (Polynomial::of_typed(a, dt)?, Polynomial::of_typed(b, dt)?);
                match op {
                    BinaryOp::Add => x.checked_add(&y, 1),
                    BinaryOp::Sub => x.checked_add(&y, -1),
                    BinaryOp::Mul => x.checked_mul(&y),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The constant value, if the polynomial has no variable.
    pub fn as_const(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    /// The terms: (variables of the monomial, coefficient).
    pub fn terms(&self) -> impl Iterator<Item = (&[VarId], i64)> {
        self.terms.iter().map(|(m, c)| (m.as_slice(), *c))
    }

    /// Whether the polynomial is non-negative for all non-negative values of its variables
    /// because every coefficient is, and every variable is one of `nonneg_vars`.
    pub fn is_nonneg_over(&self, nonneg_vars: &dyn Fn(VarId) -> bool) -> bool {
        self.terms
            .iter()
            .all(|(m, c)| *c >= 0 && m.iter().all(|v| nonneg_vars(*v)))
    }

    /// Whether `v` occurs.
    pub fn uses(&self, v: VarId) -> bool {
        self.terms.keys().any(|m| m.contains(&v))
    }

    /// `self + sign * other`, `None` on overflow.
    pub fn checked_add(&self, other: &Polynomial, sign: i64) -> Option<Polynomial> {
        let mut out = self.clone();
        for (m, c) in &other.terms {
            let add = c.checked_mul(sign)?;
            let slot = out.terms.entry(m.clone()).or_insert(0);
            *slot = slot.checked_add(add)?;
            if *slot == 0 {
                out.terms.remove(m);
            }
        }
        (out.terms.len() <= MAX_TERMS).then_some(out)
    }

    /// `self * other`, `None` on overflow or when the product has too many terms.
    pub fn checked_mul(&self, other: &Polynomial) -> Option<Polynomial> {
        if self.terms.len().checked_mul(other.terms.len())? > MAX_TERMS * MAX_TERMS {
            return None;
        }
        let mut out = Polynomial::default();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &other.terms {
                let mut m: Vec<VarId> = ma.iter().chain(mb).copied().collect();
                m.sort();
                let term = Polynomial {
                    terms: BTreeMap::from([(m, ca.checked_mul(*cb)?)]),
                };
                out = out.checked_add(&term, 1)?;
            }
        }
        Some(out)
    }

    /// The polynomial with `v` replaced by `by`, `None` on overflow.
    pub fn substitute(&self, v: VarId, by: &Polynomial) -> Option<Polynomial> {
        let mut out = Polynomial::default();
        for (m, c) in &self.terms {
            let mut term = Polynomial::constant(*c);
            for x in m {
                let f = if *x == v {
                    by.clone()
                } else {
                    Polynomial::var(*x)
                };
                term = term.checked_mul(&f)?;
            }
            out = out.checked_add(&term, 1)?;
        }
        Some(out)
    }
}
