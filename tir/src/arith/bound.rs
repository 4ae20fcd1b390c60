//! Constant integer bounds: the interval `[min, max]` an integer expression can take given the
//! analyzer's variable ranges, computed by interval arithmetic on the canonical linear form
//! (so that `(i*4 + j) - j` is bounded like `i*4`) plus symbolic substitution of ranged
//! variables (so that `i - n` with `i` in `[0, n)` is at most `-1` for any `n`).
//!
//! `i64::MIN` and `i64::MAX` stand for −∞ and +∞ and absorb any further arithmetic, as TVM's
//! `kNegInf`/`kPosInf` do. Overflow of the analysed type is assumed not to happen (TVM's
//! assumption too): bounds are computed in unbounded arithmetic and then clamped to the type.

use crate::arith::Analyzer;
use crate::arith::linear::{Linear, is_index_type};
use crate::arith::scalar::{floor_div, int_type_range};
use crate::ir::{BinaryOp, DataType, ExprKind, PrimExpr};

pub(crate) const NEG_INF: i64 = i64::MIN;
pub(crate) const POS_INF: i64 = i64::MAX;

/// How many rounds of symbolic substitution a bound query may do.
const SUBSTITUTION_DEPTH: u32 = 3;

fn sat(v: i128) -> i64 {
    v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

fn is_inf(v: i64) -> bool {
    v == NEG_INF || v == POS_INF
}

fn add(a: i64, b: i64) -> i64 {
    if a == NEG_INF || b == NEG_INF {
        NEG_INF
    } else if a == POS_INF || b == POS_INF {
        POS_INF
    } else {
        sat(i128::from(a) + i128::from(b))
    }
}

fn mul(a: i64, b: i64) -> i64 {
    if a == 0 || b == 0 {
        0
    } else if is_inf(a) || is_inf(b) {
        if (a < 0) == (b < 0) { POS_INF } else { NEG_INF }
    } else {
        sat(i128::from(a) * i128::from(b))
    }
}

fn neg(a: i64) -> i64 {
    match a {
        NEG_INF => POS_INF,
        POS_INF => NEG_INF,
        _ => -a,
    }
}

/// `[lo, hi] * [x, y]`.
pub(crate) fn interval_mul(a: (i64, i64), b: (i64, i64)) -> (i64, i64) {
    let c = [mul(a.0, b.0), mul(a.0, b.1), mul(a.1, b.0), mul(a.1, b.1)];
    let lo = c.iter().copied().min().unwrap_or(NEG_INF);
    let hi = c.iter().copied().max().unwrap_or(POS_INF);
    (lo, hi)
}

/// `floor(v / c)` for `c > 0`, keeping infinities.
fn div_floor(v: i64, c: i64) -> i64 {
    if is_inf(v) {
        v
    } else {
        floor_div(i128::from(v), i128::from(c))
            .map(sat)
            .unwrap_or(v)
    }
}

fn clamp_to(b: (i64, i64), dtype: DataType) -> (i64, i64) {
    if !dtype.is_int_or_uint() && !dtype.is_bool() {
        return b;
    }
    let (tlo, thi) = int_type_range(dtype);
    let lo = if b.0 < tlo { tlo } else { b.0 };
    let hi = if b.1 > thi { thi } else { b.1 };
    if lo > hi { (tlo, thi) } else { (lo, hi) }
}

/// The full range of `dtype` (−∞..+∞ for the 64-bit types).
pub(crate) fn type_bound(dtype: DataType) -> (i64, i64) {
    if dtype.is_bool() {
        return (0, 1);
    }
    if !dtype.is_int_or_uint() {
        return (NEG_INF, POS_INF);
    }
    int_type_range(dtype)
}

impl Analyzer {
    /// The bound of an integer expression (see the module docs).
    pub(crate) fn bound_of(&self, e: &PrimExpr) -> (i64, i64) {
        self.bound_depth(e, SUBSTITUTION_DEPTH)
    }

    fn bound_depth(&self, e: &PrimExpr, depth: u32) -> (i64, i64) {
        let dt = e.dtype();
        let b = match e.kind() {
            ExprKind::IntImm { value, .. } => (*value, *value),
            ExprKind::Var(v) => self
                .var_bounds
                .get(&v.id())
                .copied()
                .unwrap_or_else(|| type_bound(dt)),
            ExprKind::Binary {
                op: BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul,
                ..
            } if is_index_type(dt) => {
                let lin = self.to_linear(e);
                self.linear_bound(&lin, depth)
            }
            ExprKind::Binary { op, a, b } if is_index_type(dt) => {
                let ba = self.bound_depth(a, depth);
                let bb = self.bound_depth(b, depth);
                div_like_bound(*op, ba, bb).unwrap_or_else(|| type_bound(dt))
            }
            ExprKind::Select {
                true_value,
                false_value,
                ..
            } => union(
                self.bound_depth(true_value, depth),
                self.bound_depth(false_value, depth),
            ),
            ExprKind::Call { op, args, .. } if op == "if_then_else" && args.len() == 3 => union(
                self.bound_depth(&args[1], depth),
                self.bound_depth(&args[2], depth),
            ),
            ExprKind::Cast { value, .. }
                if is_index_type(value.dtype()) || value.dtype().is_bool() =>
            {
                let inner = self.bound_depth(value, depth);
                let (tlo, thi) = type_bound(dt);
                if inner.0 >= tlo && inner.1 <= thi && !(dt.is_uint() && inner.0 < 0) {
                    inner
                } else {
                    (tlo, thi)
                }
            }
            ExprKind::Let { body, .. } => self.bound_depth(body, depth),
            _ => type_bound(dt),
        };
        clamp_to(b, dt)
    }

    /// The bound of a linear form: interval arithmetic over its terms, tightened by substituting
    /// each variable with a symbolic range by its extreme values.
    pub(crate) fn linear_bound(&self, lin: &Linear, depth: u32) -> (i64, i64) {
        let mut lo = lin.constant;
        let mut hi = lin.constant;
        for (m, c) in &lin.terms {
            let mut mb = (1, 1);
            for a in &m.0 {
                mb = interval_mul(mb, self.atom_bound(&a.expr, depth));
            }
            let tb = interval_mul(mb, (*c, *c));
            lo = add(lo, tb.0);
            hi = add(hi, tb.1);
        }
        if depth > 0 && !lin.terms.is_empty() {
            if let Some(up) = self.substitute_extreme(lin, true) {
                hi = hi.min(self.linear_bound(&up, depth - 1).1);
            }
            if let Some(down) = self.substitute_extreme(lin, false) {
                lo = lo.max(self.linear_bound(&down, depth - 1).0);
            }
        }
        clamp_to((lo, hi), lin.dtype)
    }

    /// The bound of an atom of a linear form. A sum or product is an atom only when the linear
    /// form gave up on expanding it, so it is bounded from its operands (going through
    /// [`Analyzer::to_linear`] again would find the same atom).
    fn atom_bound(&self, e: &PrimExpr, depth: u32) -> (i64, i64) {
        match e.kind() {
            ExprKind::Binary { op, a, b }
                if matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul) =>
            {
                let (x, y) = (self.bound_depth(a, depth), self.bound_depth(b, depth));
                let r = match op {
                    BinaryOp::Add => (add(x.0, y.0), add(x.1, y.1)),
                    BinaryOp::Sub => (add(x.0, neg(y.1)), add(x.1, neg(y.0))),
                    _ => interval_mul(x, y),
                };
                clamp_to(r, e.dtype())
            }
            _ => self.bound_depth(e, depth),
        }
    }

    /// `lin` with every single-variable term whose variable has a symbolic range replaced by the
    /// range end that maximises (`upper`) or minimises the term; `None` if no term qualifies or
    /// the substituted form's arithmetic would overflow.
    fn substitute_extreme(&self, lin: &Linear, upper: bool) -> Option<Linear> {
        let mut out = Linear::constant(lin.dtype, lin.constant);
        let mut changed = false;
        for (m, c) in &lin.terms {
            let replacement = m
                .single()
                .and_then(|a| a.expr.as_var())
                .and_then(|v| self.var_ranges.get(&v.id()))
                .map(|(min, max)| if (*c > 0) == upper { max } else { min })
                // A constant end is what interval arithmetic already uses; substituting it
                // would only lose cancellations with other terms (`p - q` with `p < q`).
                .filter(|r| r.as_int().is_none());
            match replacement {
                Some(r) if r.dtype() == lin.dtype => {
                    changed = true;
                    // A substitution whose arithmetic would overflow tells nothing.
                    out = self
                        .to_linear(r)
                        .checked_scale(*c)
                        .and_then(|t| out.checked_add(&t, 1))?;
                }
                _ => {
                    let term = Linear {
                        dtype: lin.dtype,
                        terms: vec![(m.clone(), *c)],
                        constant: 0,
                    };
                    out = out.checked_add(&term, 1)?;
                }
            }
        }
        changed.then_some(out)
    }
}

fn union(a: (i64, i64), b: (i64, i64)) -> (i64, i64) {
    (a.0.min(b.0), a.1.max(b.1))
}

/// Bounds of the division-like operators and min/max from the operands' bounds.
fn div_like_bound(op: BinaryOp, a: (i64, i64), b: (i64, i64)) -> Option<(i64, i64)> {
    match op {
        BinaryOp::Min => Some((a.0.min(b.0), a.1.min(b.1))),
        BinaryOp::Max => Some((a.0.max(b.0), a.1.max(b.1))),
        BinaryOp::FloorDiv | BinaryOp::Div if b.0 > 0 && !is_inf(b.0) => {
            if op == BinaryOp::Div && a.0 < 0 {
                // Truncation rounds negative quotients up: widen toward zero.
                let lo = div_floor(a.0, b.0).min(0);
                let hi = if a.1 >= 0 { div_floor(a.1, b.0) } else { 0 };
                return Some((lo, hi));
            }
            let c = [
                div_floor(a.0, b.0),
                div_floor(a.0, b.1),
                div_floor(a.1, b.0),
                div_floor(a.1, b.1),
            ];
            let lo = c.iter().copied().min().unwrap_or(NEG_INF);
            let hi = c.iter().copied().max().unwrap_or(POS_INF);
            Some((lo, hi))
        }
        BinaryOp::FloorMod | BinaryOp::Mod if b.0 > 0 && !is_inf(b.0) => {
            // The result is `a` itself only when `a` is below every possible divisor.
            let m = if b.1 == POS_INF { POS_INF } else { b.1 - 1 };
            if a.0 >= 0 && a.1 < b.0 {
                Some(a)
            } else if a.0 >= 0 || op == BinaryOp::FloorMod {
                Some((0, if a.0 >= 0 { a.1.min(m) } else { m }))
            } else if a.1 <= 0 {
                Some(((-m).max(a.0), 0))
            } else {
                Some(((-m).max(a.0), m.min(a.1)))
            }
        }
        _ => None,
    }
}
