//! Arithmetic analysis of TIR expressions: constant folding with TVM's semantics, canonical
//! linear forms, constant integer bounds, and a simplifier for index and shape expressions.
//!
//! The entry point is [`Analyzer`], which, like TVM's `arith::Analyzer`, holds what is known
//! about variables (ranges bound from loop extents) and answers queries:
//!
//! ```
//! use relaxjit_tir::arith::Analyzer;
//! use relaxjit_tir::{BinaryOp, DataType, PrimExpr, Range, Var};
//! let i = Var::new("i", DataType::INT32);
//! let j = Var::new("j", DataType::INT32);
//! let mut an = Analyzer::new();
//! an.bind(&j, Range::from_extent(PrimExpr::i32(4)));
//! // (i*4 + j) % 4 → j
//! let e = PrimExpr::binary(
//!     BinaryOp::FloorMod,
//!     PrimExpr::binary(
//!         BinaryOp::Add,
//!         PrimExpr::binary(BinaryOp::Mul, PrimExpr::from(&i), PrimExpr::i32(4)),
//!         PrimExpr::from(&j),
//!     ),
//!     PrimExpr::i32(4),
//! );
//! assert_eq!(an.simplify(&e).to_string(), "j");
//! ```
//!
//! Submodules: [`scalar`] (operator semantics on constants, shared with [`crate::interp`]),
//! `window` ([`SlidingWindow`]: the positions of a convolution's or pool's window along an axis),
//! `linear` (the canonical `Σ coeff·monomial + c` form), `bound` (the simplifier's constant
//! integer bounds), and `interval` ([`int_bound`], [`exact_int_bound`], [`Polynomial`]): the
//! sound bounds that safety proofs (bounds-check elimination, parallel and loop-reordering
//! legality) must use, because they model wrap-around in each expression's own type.
//!
//! Everything here is a pure function of its input: no errors, no panics. What the simplifier
//! cannot improve it returns rebuilt with simplified children. It does not assume anything about
//! variables that were not bound (a free `n` may be negative), and, like TVM, it assumes index
//! arithmetic does not overflow when reasoning with bounds — which is why nothing that decides
//! whether memory may be touched uses it (see `interval`).

mod bound;
mod interval;
mod linear;
pub mod scalar;
mod window;

pub use window::SlidingWindow;

pub use interval::{
    Polynomial, VarRanges, exact_int_bound, int_bound, loop_var_range, proves_in_range,
};

use std::collections::HashMap;

use crate::ir::{BinaryOp, CmpOp, DataType, ExprKind, PrimExpr, Range, Var, VarId};
use bound::{NEG_INF, POS_INF};
use linear::{Linear, expr_key, is_index_type};
use scalar::Scalar;

/// The greatest common divisor of two integers.
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The dividend, operator and constant divisor of a division or modulo atom.
fn div_parts(e: &PrimExpr) -> Option<(BinaryOp, &PrimExpr, i64)> {
    match e.kind() {
        ExprKind::Binary { op, a, b } => Some((*op, a, b.as_int().filter(|c| *c > 0)?)),
        _ => None,
    }
}

/// `l` with every pair of terms that recombines a division merged:
/// `(x // c)·(k·c) + (x % c)·k` is `x·k` (for floor and truncating division alike, the
/// quotient times the divisor plus the remainder is the dividend), and
/// `(x // (a·b))·(k·a) + ((x % (a·b)) // b)·k` is `(x // b)·k` (floor division by positive
/// constants). The identities hold for every `x`, so no bounds are needed; they undo the index
/// arithmetic of a reshape followed by its inverse flattening.
fn merge_div_mod(mut l: Linear, linear: &dyn Fn(&PrimExpr) -> Linear) -> Linear {
    'merged: loop {
        for i in 0..l.terms.len() {
            let Some(atom) = l.terms[i].0.single() else {
                continue;
            };
            let Some((op, x, c)) = div_parts(&atom.expr) else {
                continue;
            };
            let rem_op = match op {
                BinaryOp::FloorDiv => BinaryOp::FloorMod,
                BinaryOp::Div => BinaryOp::Mod,
                _ => continue,
            };
            let x_key = expr_key(x);
            let ki = l.terms[i].1;
            for j in 0..l.terms.len() {
                let kj = l.terms[j].1;
                let Some(other) = l.terms[j].0.single() else {
                    continue;
                };
                let Some((op_j, y, d)) = div_parts(&other.expr) else {
                    continue;
                };
                let merged = if op_j == rem_op && d == c && expr_key(y) == x_key {
                    // (x // c)·(k·c) + (x % c)·k
                    (kj.checked_mul(c) == Some(ki)).then(|| linear(x).scale(kj))
                } else if op == BinaryOp::FloorDiv
                    && op_j == BinaryOp::FloorDiv
                    && c % d == 0
                    && let Some((BinaryOp::FloorMod, z, cz)) = div_parts(y)
                    && cz == c
                    && expr_key(z) == x_key
                {
                    // (x // (a·d))·(k·a) + ((x % (a·d)) // d)·k
                    (kj.checked_mul(c / d) == Some(ki)).then(|| {
                        let q = PrimExpr::binary(
                            BinaryOp::FloorDiv,
                            x.clone(),
                            PrimExpr::int(x.dtype(), d),
                        );
                        Linear::atom(&q).scale(kj)
                    })
                } else {
                    None
                };
                if let Some(replacement) = merged {
                    let (hi, lo) = (i.max(j), i.min(j));
                    l.terms.remove(hi);
                    l.terms.remove(lo);
                    l = l.add(&replacement, 1);
                    continue 'merged;
                }
            }
        }
        return l;
    }
}

/// What is known about variables, and the queries that use it.
#[derive(Clone, Debug, Default)]
pub struct Analyzer {
    /// Constant bounds per variable, inclusive.
    var_bounds: HashMap<VarId, (i64, i64)>,
    /// Symbolic inclusive ranges `[min, max]` per variable.
    var_ranges: HashMap<VarId, (PrimExpr, PrimExpr)>,
}

impl Analyzer {
    /// An analyzer that knows nothing.
    pub fn new() -> Analyzer {
        Analyzer::default()
    }

    /// Records that `var` lies in `[range.min, range.min + range.extent)` (a loop variable).
    /// A range of extent one makes the simplifier replace `var` by `range.min` when that is a
    /// constant. Rebinding a variable replaces what was known.
    pub fn bind(&mut self, var: &Var, range: Range) {
        let dt = var.dtype();
        let min = self.simplify(&range.min);
        let one = PrimExpr::int(range.extent.dtype(), 1);
        let last = PrimExpr::binary(
            BinaryOp::Sub,
            PrimExpr::binary(BinaryOp::Add, range.min.clone(), range.extent.clone()),
            one,
        );
        let max = self.simplify(&last);
        let lo = self.const_int_bound(&min).0;
        let hi = self.const_int_bound(&max).1;
        self.var_bounds.insert(var.id(), (lo, hi));
        if min.dtype() == dt && max.dtype() == dt {
            self.var_ranges.insert(var.id(), (min, max));
        } else {
            self.var_ranges.remove(&var.id());
        }
    }

    /// Records that `min <= var <= max` (both inclusive).
    pub fn bind_bound(&mut self, var: &Var, min: i64, max: i64) {
        self.var_bounds.insert(var.id(), (min, max));
        let dt = var.dtype();
        self.var_ranges
            .insert(var.id(), (PrimExpr::int(dt, min), PrimExpr::int(dt, max)));
    }

    /// The inclusive constant bounds `(min, max)` of an integer (or `bool`) expression;
    /// `i64::MIN` / `i64::MAX` mean unbounded. Non-integer expressions are unbounded.
    pub fn const_int_bound(&self, e: &PrimExpr) -> (i64, i64) {
        self.bound_of(e)
    }

    /// Whether the `bool` expression `cond` holds for every value of the bound variables.
    /// `false` means "could not prove", not "false".
    pub fn can_prove(&self, cond: &PrimExpr) -> bool {
        let s = self.simplify(cond);
        s.dtype().is_bool() && s.as_int() == Some(1)
    }

    /// Whether `a` and `b` always have the same value.
    pub fn prove_equal(&self, a: &PrimExpr, b: &PrimExpr) -> bool {
        let (sa, sb) = (self.simplify(a), self.simplify(b));
        if sa.dtype() != sb.dtype() {
            return false;
        }
        if is_index_type(sa.dtype()) {
            // Without wrap-around (see `Min`/`Max` in `simplify_binary`).
            if let Some(d) = self.to_linear(&sa).checked_add(&self.to_linear(&sb), -1) {
                if d.as_const() == Some(0) {
                    return true;
                }
                return self.linear_bound(&d, 3) == (0, 0);
            }
        }
        expr_key(&sa) == expr_key(&sb)
    }

    /// Whether the integer expression `e` provably does not decrease when any of `params`
    /// grows, every other variable held fixed. Shown by structure, with the bounds known
    /// here for the signs: sums, `min` and `max` of such expressions; a difference whose
    /// right-hand side does not use `params`; a product by a factor that does not use
    /// `params` and is non-negative; a floor division by a divisor that does not use `params`
    /// and is positive. (Sums and differences are taken as mathematical integers, as the
    /// simplifier takes them: this is for shape and index-map reasoning, not for proofs that
    /// memory accesses stay in bounds, which use [`int_bound`].) `false` means "could not
    /// show".
    pub fn non_decreasing(&self, e: &PrimExpr, params: &[Var]) -> bool {
        let free = |x: &PrimExpr| !x.uses_var(&|v| params.contains(v));
        let factor = |x: &PrimExpr| free(x) && self.const_int_bound(x).0 >= 0;
        match e.kind() {
            ExprKind::IntImm { .. } | ExprKind::Var(_) => true,
            ExprKind::Binary { op, a, b } => match op {
                BinaryOp::Add | BinaryOp::Min | BinaryOp::Max => {
                    self.non_decreasing(a, params) && self.non_decreasing(b, params)
                }
                BinaryOp::Sub => self.non_decreasing(a, params) && free(b),
                BinaryOp::Mul => {
                    (self.non_decreasing(a, params) && factor(b))
                        || (self.non_decreasing(b, params) && factor(a))
                }
                BinaryOp::FloorDiv => {
                    self.non_decreasing(a, params) && free(b) && self.const_int_bound(b).0 >= 1
                }
                _ => free(e),
            },
            _ => free(e),
        }
    }

    /// The expression simplified: constants folded, integer sums in canonical order with like
    /// terms combined, divisions and modulos by constants reduced using the variables' bounds,
    /// comparisons, `min`/`max` and selects decided where the bounds allow.
    pub fn simplify(&self, e: &PrimExpr) -> PrimExpr {
        self.simp(e)
    }

    /// `a + sign·b` as a linear form, with divisions that recombine merged
    /// ([`merge_div_mod`]).
    fn sum(&self, a: &PrimExpr, b: &PrimExpr, sign: i64) -> Linear {
        self.merge_div_mod(self.to_linear(a).add(&self.to_linear(b), sign))
    }

    /// [`merge_div_mod`] with this analyzer's linear forms for what a merge leaves.
    fn merge_div_mod(&self, l: Linear) -> Linear {
        merge_div_mod(l, &|e| self.to_linear(e))
    }

    /// The linear form of an (already simplified) integer expression.
    pub(crate) fn to_linear(&self, e: &PrimExpr) -> Linear {
        match e.kind() {
            ExprKind::IntImm { dtype, value } => Linear::constant(*dtype, *value),
            ExprKind::Binary { op, a, b } => match op {
                BinaryOp::Add => self.sum(a, b, 1),
                BinaryOp::Sub => self.sum(a, b, -1),
                BinaryOp::Mul => self
                    .to_linear(a)
                    .mul(&self.to_linear(b))
                    .unwrap_or_else(|| Linear::atom(e)),
                _ => Linear::atom(e),
            },
            _ => Linear::atom(e),
        }
    }

    fn simp(&self, e: &PrimExpr) -> PrimExpr {
        let out = match e.kind() {
            ExprKind::IntImm { .. } | ExprKind::FloatImm { .. } | ExprKind::StringImm(_) => {
                return e.clone();
            }
            ExprKind::Var(v) => match self.var_bounds.get(&v.id()) {
                Some((lo, hi)) if lo == hi && is_index_type(v.dtype()) => {
                    PrimExpr::int(v.dtype(), *lo)
                }
                _ => e.clone(),
            },
            ExprKind::Binary { op, a, b } => self.simp_binary(*op, self.simp(a), self.simp(b)),
            ExprKind::Cmp { op, a, b } => self.simp_cmp(*op, self.simp(a), self.simp(b)),
            ExprKind::And(a, b) => {
                let (a, b) = (self.simp(a), self.simp(b));
                match (bool_const(&a), bool_const(&b)) {
                    (Some(false), _) | (_, Some(false)) => PrimExpr::bool(false),
                    (Some(true), _) => b,
                    (_, Some(true)) => a,
                    _ => PrimExpr::new(ExprKind::And(a, b)),
                }
            }
            ExprKind::Or(a, b) => {
                let (a, b) = (self.simp(a), self.simp(b));
                match (bool_const(&a), bool_const(&b)) {
                    (Some(true), _) | (_, Some(true)) => PrimExpr::bool(true),
                    (Some(false), _) => b,
                    (_, Some(false)) => a,
                    _ => PrimExpr::new(ExprKind::Or(a, b)),
                }
            }
            ExprKind::Not(a) => {
                let a = self.simp(a);
                if let Some(v) = bool_const(&a) {
                    return PrimExpr::bool(!v);
                }
                match a.kind() {
                    ExprKind::Not(x) => x.clone(),
                    ExprKind::Cmp { op, a: x, b: y } if is_index_type(x.dtype()) => {
                        PrimExpr::cmp(negate(*op), x.clone(), y.clone())
                    }
                    _ => PrimExpr::new(ExprKind::Not(a)),
                }
            }
            ExprKind::Select {
                cond,
                true_value,
                false_value,
            } => {
                let c = self.simp(cond);
                let (t, f) = (self.simp(true_value), self.simp(false_value));
                match bool_const(&c) {
                    Some(true) => t,
                    Some(false) => f,
                    None if expr_key(&t) == expr_key(&f) => t,
                    None => PrimExpr::new(ExprKind::Select {
                        cond: c,
                        true_value: t,
                        false_value: f,
                    }),
                }
            }
            ExprKind::Cast { dtype, value } => {
                let v = self.simp(value);
                if v.dtype() == *dtype {
                    v
                } else {
                    match (scalar_of(&v), dtype.lanes) {
                        (Some(s), 1) => scalar_expr(scalar::cast(s, v.dtype(), *dtype), *dtype),
                        _ => PrimExpr::cast(*dtype, v),
                    }
                }
            }
            ExprKind::BufferLoad { buffer, indices } => PrimExpr::load(
                buffer.clone(),
                indices.iter().map(|i| self.simp(i)).collect(),
            ),
            ExprKind::Call { dtype, op, args } => {
                let args: Vec<PrimExpr> = args.iter().map(|a| self.simp(a)).collect();
                if op == "if_then_else"
                    && let [c, t, f] = args.as_slice()
                    && let Some(b) = bool_const(c)
                {
                    return if b { t.clone() } else { f.clone() };
                }
                PrimExpr::call(*dtype, op.clone(), args)
            }
            ExprKind::Let { var, value, body } => PrimExpr::new(ExprKind::Let {
                var: var.clone(),
                value: self.simp(value),
                body: self.simp(body),
            }),
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => PrimExpr::new(ExprKind::Ramp {
                base: self.simp(base),
                stride: self.simp(stride),
                lanes: *lanes,
            }),
            ExprKind::Broadcast { value, lanes } => PrimExpr::new(ExprKind::Broadcast {
                value: self.simp(value),
                lanes: *lanes,
            }),
        };
        // A non-constant integer expression whose bounds collapse is that constant.
        if is_index_type(out.dtype()) && out.as_int().is_none() {
            let (lo, hi) = self.bound_of(&out);
            if lo == hi && lo != NEG_INF && lo != POS_INF {
                return PrimExpr::int(out.dtype(), lo);
            }
        }
        out
    }

    fn simp_binary(&self, op: BinaryOp, a: PrimExpr, b: PrimExpr) -> PrimExpr {
        let dt = a.dtype();
        if dt != b.dtype() || dt.lanes != 1 {
            return PrimExpr::binary(op, a, b);
        }
        match (scalar_of(&a), scalar_of(&b)) {
            (Some(Scalar::Int(x)), Some(Scalar::Int(y))) if !dt.is_float() => {
                if let Some(v) = scalar::int_binary(op, x, y, dt) {
                    return PrimExpr::int(dt, v);
                }
                return PrimExpr::binary(op, a, b);
            }
            (Some(Scalar::Float(x)), Some(Scalar::Float(y))) if dt.is_float() => {
                let (x, y) = (scalar::round_to_float(x, dt), scalar::round_to_float(y, dt));
                return PrimExpr::float(dt, scalar::float_binary(op, x, y, dt));
            }
            _ => {}
        }
        if !is_index_type(dt) {
            return PrimExpr::binary(op, a, b);
        }
        match op {
            BinaryOp::Add => self.sum(&a, &b, 1).to_expr(),
            BinaryOp::Sub => self.sum(&a, &b, -1).to_expr(),
            BinaryOp::Mul => match self.to_linear(&a).mul(&self.to_linear(&b)) {
                Some(l) => l.to_expr(),
                None => PrimExpr::binary(op, a, b),
            },
            BinaryOp::FloorDiv | BinaryOp::FloorMod | BinaryOp::Div | BinaryOp::Mod => {
                self.simp_div(op, a, b)
            }
            BinaryOp::Min | BinaryOp::Max => {
                // The difference decides, taken without wrap-around: `max(x, INT64_MIN)`'s
                // `x − INT64_MIN` wrapped to `x + INT64_MIN` and "proved" `x <= INT64_MIN`
                // (kernel_fuzz seeds 17935 and 30864).
                let Some(d) = self.to_linear(&a).checked_add(&self.to_linear(&b), -1) else {
                    return PrimExpr::binary(op, a, b);
                };
                let (lo, hi) = self.linear_bound(&d, 3);
                let a_le_b = hi <= 0;
                let a_ge_b = lo >= 0 && lo != NEG_INF;
                match (op, a_le_b, a_ge_b) {
                    (BinaryOp::Min, true, _) | (BinaryOp::Max, _, true) => a,
                    (BinaryOp::Min, _, true) | (BinaryOp::Max, true, _) => b,
                    _ => PrimExpr::binary(op, a, b),
                }
            }
        }
    }

    /// Division and modulo of integers by a positive constant: multiples of the divisor are
    /// pulled out of the dividend, and what remains is decided from its bounds.
    fn simp_div(&self, op: BinaryOp, a: PrimExpr, b: PrimExpr) -> PrimExpr {
        let dt = a.dtype();
        let is_div = matches!(op, BinaryOp::FloorDiv | BinaryOp::Div);
        let Some(c) = b.as_int().filter(|c| *c > 0) else {
            return PrimExpr::binary(op, a, b);
        };
        if c == 1 {
            return if is_div { a } else { PrimExpr::int(dt, 0) };
        }
        let floor = matches!(op, BinaryOp::FloorDiv | BinaryOp::FloorMod);
        // Truncating division equals floor division on non-negative dividends.
        if !floor && self.bound_of(&a).0 < 0 {
            return PrimExpr::binary(op, a, b);
        }
        // Nested divisions by constants.
        if let ExprKind::Binary {
            op: inner,
            a: x,
            b: y,
        } = a.kind()
            && let Some(c1) = y.as_int().filter(|c1| *c1 > 0)
        {
            if *inner == BinaryOp::FloorDiv
                && op == BinaryOp::FloorDiv
                && let Some(cc) = c1.checked_mul(c)
            {
                return self.simp_div(op, x.clone(), PrimExpr::int(dt, cc));
            }
            if *inner == BinaryOp::FloorMod && op == BinaryOp::FloorMod && c1 % c == 0 {
                return self.simp_div(op, x.clone(), b.clone());
            }
        }
        let lin = self.to_linear(&a);
        let mut quotient = Linear::constant(dt, 0);
        let mut rest = Linear::constant(dt, 0);
        for (m, k) in &lin.terms {
            let term = Linear {
                dtype: dt,
                terms: vec![(m.clone(), 1)],
                constant: 0,
            };
            if k % c == 0 {
                quotient = quotient.add(&term.scale(k / c), 1);
            } else {
                rest = rest.add(&term.scale(*k), 1);
            }
        }
        let kq = lin.constant.div_euclid(c);
        let kr = lin.constant.rem_euclid(c);
        quotient = quotient.add(&Linear::constant(dt, kq), 1);
        rest = rest.add(&Linear::constant(dt, kr), 1);
        let (lo, hi) = self.linear_bound(&rest, 3);
        if lo != NEG_INF && hi != POS_INF && (floor || lo >= 0) {
            let (ml, mh) = (lo.div_euclid(c), hi.div_euclid(c));
            if ml == mh {
                return if is_div {
                    quotient.add(&Linear::constant(dt, ml), 1).to_expr()
                } else {
                    rest.add(&Linear::constant(dt, ml.wrapping_mul(c)), -1)
                        .to_expr()
                };
            }
        }
        if floor && let Some((s, t, g)) = self.split_common_factor(&rest, c) {
            // rest = g·s + t with 0 <= t < g, and c = g·m: rest // c = s // m and
            // rest % c = (s % m)·g + t (floor division by positive constants).
            let m = PrimExpr::int(dt, c / g);
            let inner = self.simp_div(op, s.to_expr(), m);
            return if is_div {
                quotient.add(&self.to_linear(&inner), 1).to_expr()
            } else {
                self.merge_div_mod(self.to_linear(&inner).scale(g).add(&t, 1))
                    .to_expr()
            };
        }
        let pulled_out = quotient.as_const() != Some(0);
        if pulled_out && (floor || lo >= 0) {
            let r = PrimExpr::binary(op, rest.to_expr(), b);
            return if is_div {
                quotient.add(&Linear::atom(&r), 1).to_expr()
            } else {
                r
            };
        }
        PrimExpr::binary(op, a, b)
    }

    /// `rest` as `g·s + t` where `g` (greater than 1) divides `c` and every coefficient of
    /// `s`'s terms' originals, and `t`, the other terms and the constant, lies in `[0, g)` by
    /// the known bounds: what lets `(i·3136 + j·56 + k) // 12544` become `i // 4` when
    /// `j·56 + k < 3136`. The largest such `g` is taken.
    fn split_common_factor(&self, rest: &Linear, c: i64) -> Option<(Linear, Linear, i64)> {
        let mut candidates: Vec<i64> = rest
            .terms
            .iter()
            // `c > 0`, so every gcd lies in [1, c] and converts back.
            .map(|(_, k)| gcd(c.unsigned_abs(), k.unsigned_abs()) as i64)
            .filter(|&g| g > 1 && g < c)
            .collect();
        candidates.sort_unstable_by(|a, b| b.cmp(a));
        candidates.dedup();
        for g in candidates {
            let (mut s, mut t) = (
                Linear::constant(rest.dtype, 0),
                Linear::constant(rest.dtype, 0),
            );
            for (m, k) in &rest.terms {
                let term = Linear {
                    dtype: rest.dtype,
                    terms: vec![(m.clone(), 1)],
                    constant: 0,
                };
                if k % g == 0 {
                    s = s.add(&term.scale(k / g), 1);
                } else {
                    t = t.add(&term.scale(*k), 1);
                }
            }
            t = t.add(&Linear::constant(rest.dtype, rest.constant), 1);
            let (lo, hi) = self.linear_bound(&t, 3);
            if lo >= 0 && hi < g {
                return Some((s, t, g));
            }
        }
        None
    }

    fn simp_cmp(&self, op: CmpOp, a: PrimExpr, b: PrimExpr) -> PrimExpr {
        let dt = a.dtype();
        if dt != b.dtype() || dt.lanes != 1 {
            return PrimExpr::cmp(op, a, b);
        }
        match (scalar_of(&a), scalar_of(&b)) {
            (Some(Scalar::Int(x)), Some(Scalar::Int(y))) if !dt.is_float() => {
                return PrimExpr::bool(scalar::int_cmp(op, x, y, dt));
            }
            (Some(Scalar::Float(x)), Some(Scalar::Float(y))) if dt.is_float() => {
                let (x, y) = (scalar::round_to_float(x, dt), scalar::round_to_float(y, dt));
                return PrimExpr::bool(scalar::float_cmp(op, x, y));
            }
            _ => {}
        }
        if is_index_type(dt) && !dt.is_uint() {
            let d = self.to_linear(&a).add(&self.to_linear(&b), -1);
            let (lo, hi) = self.linear_bound(&d, 3);
            let decided = match op {
                CmpOp::Lt if hi < 0 => Some(true),
                CmpOp::Lt if lo >= 0 => Some(false),
                CmpOp::Le if hi <= 0 => Some(true),
                CmpOp::Le if lo > 0 => Some(false),
                CmpOp::Gt if lo > 0 => Some(true),
                CmpOp::Gt if hi <= 0 => Some(false),
                CmpOp::Ge if lo >= 0 => Some(true),
                CmpOp::Ge if hi < 0 => Some(false),
                CmpOp::Eq if lo == 0 && hi == 0 => Some(true),
                CmpOp::Eq if hi < 0 || lo > 0 => Some(false),
                CmpOp::Ne if lo == 0 && hi == 0 => Some(false),
                CmpOp::Ne if hi < 0 || lo > 0 => Some(true),
                _ => None,
            };
            if let Some(v) = decided {
                return PrimExpr::bool(v);
            }
        }
        PrimExpr::cmp(op, a, b)
    }
}

/// Simplifies `e` knowing nothing about its variables.
pub fn simplify(e: &PrimExpr) -> PrimExpr {
    Analyzer::new().simplify(e)
}

fn negate(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
    }
}

fn bool_const(e: &PrimExpr) -> Option<bool> {
    match e.kind() {
        ExprKind::IntImm { dtype, value } if dtype.is_bool() => Some(*value != 0),
        _ => None,
    }
}

fn scalar_of(e: &PrimExpr) -> Option<Scalar> {
    match e.kind() {
        ExprKind::IntImm { value, .. } => Some(Scalar::Int(*value)),
        ExprKind::FloatImm { value, .. } => Some(Scalar::Float(*value)),
        _ => None,
    }
}

fn scalar_expr(s: Scalar, dtype: DataType) -> PrimExpr {
    match s {
        Scalar::Int(v) => PrimExpr::int(dtype, v),
        Scalar::Float(v) => PrimExpr::float(dtype, v),
    }
}
