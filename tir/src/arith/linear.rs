//! Canonical linear forms of integer expressions: `Σ coeff · monomial + constant`, where a
//! monomial is a product of opaque atoms (variables, or sub-expressions the form does not look
//! into such as `x // 4` or a buffer load).
//!
//! Coefficients and the constant wrap in the expression's type, which keeps the form exact under
//! TVM's wrap-around semantics (addition and multiplication modulo 2^bits form a ring). Terms
//! keep the order of first appearance, so `i * 4 + j` rebuilds as written and `4 * n` as `n * 4`.

use crate::arith::scalar::{int_type_range, wrap_int};
use crate::ir::{BinaryOp, DataType, ExprKind, PrimExpr};

/// An opaque factor of a monomial, identified by its structural key.
#[derive(Clone, Debug)]
pub(crate) struct Atom {
    pub key: String,
    pub expr: PrimExpr,
}

/// A product of atoms, kept sorted by key so that `i * j` and `j * i` are the same monomial.
#[derive(Clone, Debug)]
pub(crate) struct Monomial(pub Vec<Atom>);

impl Monomial {
    fn key(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|a| a.key.as_str())
    }

    fn same(&self, other: &Monomial) -> bool {
        self.0.len() == other.0.len() && self.key().eq(other.key())
    }

    fn times(&self, other: &Monomial) -> Monomial {
        let mut v: Vec<Atom> = self.0.iter().chain(&other.0).cloned().collect();
        v.sort_by(|a, b| a.key.cmp(&b.key));
        Monomial(v)
    }

    /// The single atom if the monomial is one atom.
    pub fn single(&self) -> Option<&Atom> {
        match self.0.as_slice() {
            [a] => Some(a),
            _ => None,
        }
    }
}

/// `Σ coeff · monomial + constant` of integer type `dtype`.
#[derive(Clone, Debug)]
pub(crate) struct Linear {
    pub dtype: DataType,
    pub terms: Vec<(Monomial, i64)>,
    pub constant: i64,
}

/// Products of sums expand only while the result stays this small.
const MAX_EXPANDED_TERMS: usize = 16;

impl Linear {
    pub fn constant(dtype: DataType, c: i64) -> Linear {
        Linear {
            dtype,
            terms: Vec::new(),
            constant: wrap_int(i128::from(c), dtype),
        }
    }

    pub fn atom(e: &PrimExpr) -> Linear {
        Linear {
            dtype: e.dtype(),
            terms: vec![(
                Monomial(vec![Atom {
                    key: expr_key(e),
                    expr: e.clone(),
                }]),
                1,
            )],
            constant: 0,
        }
    }

    pub fn as_const(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    fn wrap(&self, v: i128) -> i64 {
        wrap_int(v, self.dtype)
    }

    fn add_term(&mut self, m: Monomial, c: i64) {
        if let Some(t) = self.terms.iter_mut().find(|(x, _)| x.same(&m)) {
            t.1 = wrap_int(i128::from(t.1) + i128::from(c), self.dtype);
        } else {
            self.terms.push((m, c));
        }
        self.terms.retain(|(_, c)| *c != 0);
    }

    pub fn add(mut self, other: &Linear, sign: i64) -> Linear {
        for (m, c) in &other.terms {
            let c = self.wrap(i128::from(*c) * i128::from(sign));
            self.add_term(m.clone(), c);
        }
        self.constant =
            self.wrap(i128::from(self.constant) + i128::from(other.constant) * i128::from(sign));
        self
    }

    /// `self + sign * other` in unbounded arithmetic: `None` if a coefficient or the constant
    /// leaves the type's range. Bounds must use this rather than [`Linear::add`], whose
    /// wrap-around is right for folding a program's arithmetic but unsound for reasoning about
    /// its values.
    pub fn checked_add(&self, other: &Linear, sign: i64) -> Option<Linear> {
        let (lo, hi) = int_type_range(self.dtype);
        let fits = |v: i128| (i128::from(lo)..=i128::from(hi)).contains(&v);
        let mut out = self.clone();
        for (m, c) in &other.terms {
            let add = i128::from(*c) * i128::from(sign);
            let prev = out.terms.iter().find(|(x, _)| x.same(m)).map_or(0, |t| t.1);
            if !fits(add) || !fits(i128::from(prev) + add) {
                return None;
            }
            out.add_term(m.clone(), add as i64);
        }
        let constant = i128::from(self.constant) + i128::from(other.constant) * i128::from(sign);
        fits(constant).then(|| {
            out.constant = constant as i64;
            out
        })
    }

    /// `k * self` in unbounded arithmetic: `None` if a coefficient or the constant leaves the
    /// type's range (see [`Linear::checked_add`]).
    pub fn checked_scale(&self, k: i64) -> Option<Linear> {
        let (lo, hi) = int_type_range(self.dtype);
        let fits = |v: i128| (i128::from(lo)..=i128::from(hi)).contains(&v);
        let mut out = self.clone();
        for t in &mut out.terms {
            let v = i128::from(t.1) * i128::from(k);
            if !fits(v) {
                return None;
            }
            t.1 = v as i64;
        }
        out.terms.retain(|(_, c)| *c != 0);
        let constant = i128::from(self.constant) * i128::from(k);
        fits(constant).then(|| {
            out.constant = constant as i64;
            out
        })
    }

    pub fn scale(mut self, k: i64) -> Linear {
        let dtype = self.dtype;
        for t in &mut self.terms {
            t.1 = wrap_int(i128::from(t.1) * i128::from(k), dtype);
        }
        self.terms.retain(|(_, c)| *c != 0);
        self.constant = self.wrap(i128::from(self.constant) * i128::from(k));
        self
    }

    /// The product, if it expands to a small sum.
    pub fn mul(&self, other: &Linear) -> Option<Linear> {
        if let Some(k) = other.as_const() {
            return Some(self.clone().scale(k));
        }
        if let Some(k) = self.as_const() {
            return Some(other.clone().scale(k));
        }
        let n = (self.terms.len() + 1) * (other.terms.len() + 1);
        if n > MAX_EXPANDED_TERMS {
            return None;
        }
        let mut out = Linear::constant(self.dtype, 0);
        let unit = Monomial(Vec::new());
        let a: Vec<(Monomial, i64)> = self
            .terms
            .iter()
            .cloned()
            .chain([(unit.clone(), self.constant)])
            .collect();
        let b: Vec<(Monomial, i64)> = other
            .terms
            .iter()
            .cloned()
            .chain([(unit, other.constant)])
            .collect();
        for (ma, ca) in &a {
            for (mb, cb) in &b {
                let c = self.wrap(i128::from(*ca) * i128::from(*cb));
                let m = ma.times(mb);
                if m.0.is_empty() {
                    out.constant = out.wrap(i128::from(out.constant) + i128::from(c));
                } else {
                    out.add_term(m, c);
                }
            }
        }
        Some(out)
    }

    /// Rebuilds an expression: positive terms first, then subtracted ones, then the constant.
    pub fn to_expr(&self) -> PrimExpr {
        let dt = self.dtype;
        let mono = |m: &Monomial| -> PrimExpr {
            let mut it = m.0.iter();
            let first = it
                .next()
                .map(|a| a.expr.clone())
                .unwrap_or_else(|| PrimExpr::int(dt, 1));
            it.fold(first, |acc, a| {
                PrimExpr::binary(BinaryOp::Mul, acc, a.expr.clone())
            })
        };
        let scaled = |m: &Monomial, c: i64| -> PrimExpr {
            if c == 1 {
                mono(m)
            } else {
                PrimExpr::binary(BinaryOp::Mul, mono(m), PrimExpr::int(dt, c))
            }
        };
        let pos: Vec<&(Monomial, i64)> = self.terms.iter().filter(|(_, c)| *c > 0).collect();
        let neg: Vec<&(Monomial, i64)> = self.terms.iter().filter(|(_, c)| *c < 0).collect();
        let mut constant = self.constant;
        let mut acc: Option<PrimExpr> = None;
        for (m, c) in pos {
            let t = scaled(m, *c);
            acc = Some(match acc {
                None => t,
                Some(a) => PrimExpr::binary(BinaryOp::Add, a, t),
            });
        }
        if acc.is_none() && !neg.is_empty() && constant > 0 {
            // `c - x` reads better than `x * -1 + c`.
            acc = Some(PrimExpr::int(dt, constant));
            constant = 0;
        }
        for (m, c) in neg {
            acc = Some(match (acc, c.checked_neg()) {
                (Some(a), Some(n)) => PrimExpr::binary(BinaryOp::Sub, a, scaled(m, n)),
                (Some(a), None) => PrimExpr::binary(BinaryOp::Add, a, scaled(m, *c)),
                (None, _) => scaled(m, *c),
            });
        }
        match acc {
            None => PrimExpr::int(dt, constant),
            Some(a) if constant == 0 => a,
            Some(a) => match constant.checked_neg() {
                Some(n) if constant < 0 && !dt.is_uint() => {
                    PrimExpr::binary(BinaryOp::Sub, a, PrimExpr::int(dt, n))
                }
                _ => PrimExpr::binary(BinaryOp::Add, a, PrimExpr::int(dt, constant)),
            },
        }
    }
}

/// A structural key of an expression: equal keys mean the same tree over the same variables
/// (by identity) and the same buffers.
pub(crate) fn expr_key(e: &PrimExpr) -> String {
    let mut s = String::new();
    write_key(e, &mut s);
    s
}

fn write_key(e: &PrimExpr, s: &mut String) {
    use std::fmt::Write;
    let _ = match e.kind() {
        ExprKind::IntImm { dtype, value } => write!(s, "{value}:{dtype}"),
        ExprKind::FloatImm { dtype, value } => write!(s, "f{:x}:{dtype}", value.to_bits()),
        ExprKind::StringImm(x) => write!(s, "{x:?}"),
        ExprKind::Var(v) => write!(s, "{}#{}", v.name(), v.id().0),
        ExprKind::Binary { op, .. } => write!(s, "{op:?}"),
        ExprKind::Cmp { op, .. } => write!(s, "{op:?}"),
        ExprKind::And(..) => write!(s, "and"),
        ExprKind::Or(..) => write!(s, "or"),
        ExprKind::Not(_) => write!(s, "not"),
        ExprKind::Select { .. } => write!(s, "select"),
        ExprKind::Cast { dtype, .. } => write!(s, "cast:{dtype}"),
        ExprKind::BufferLoad { buffer, .. } => write!(s, "{}@{:x}", buffer.name, buffer.identity()),
        ExprKind::Call { op, dtype, .. } => write!(s, "{op}:{dtype}"),
        ExprKind::Let { var, .. } => write!(s, "let {}#{}", var.name(), var.id().0),
        ExprKind::Ramp { lanes, .. } => write!(s, "ramp{lanes}"),
        ExprKind::Broadcast { lanes, .. } => write!(s, "bcast{lanes}"),
    };
    let children = e.children();
    if !children.is_empty() {
        s.push('(');
        for (i, c) in children.into_iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            write_key(c, s);
        }
        s.push(')');
    }
}

/// Whether `e` is an integer expression a linear form can describe (not `bool`, scalar).
pub(crate) fn is_index_type(dtype: DataType) -> bool {
    dtype.is_int_or_uint() && dtype.lanes == 1
}
