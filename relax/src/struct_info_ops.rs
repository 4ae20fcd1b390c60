//! Operations on [`StructInfo`]: provable equality of symbolic dimensions, struct-info
//! equality, the base-of (subtype) relation, compatibility of an annotation with an inferred
//! struct info, the least common ancestor used to unify the branches of an `If` (TVM's
//! `StructInfoLCA`), and a short TVMScript-like rendering for error messages.
//!
//! Dimensions are compared through a canonical polynomial form: sums of integer multiples of
//! products of atoms (variables, and opaque sub-expressions such as `n // 3` keyed by the
//! canonical form of their operands). Two dimensions are provably equal when their forms are
//! identical, so `n * 4` equals `4 * n` and `(n * 4) // 2` equals `n * 2`; anything this
//! cannot decide counts as "not provably equal", as with TVM's analyzer.

use std::collections::{BTreeMap, HashMap};

use tir::{BinaryOp, ExprKind as TirExpr, PrimExpr};

use crate::ir::StructInfo;

/// The polynomial canonical form of an integer expression.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Poly {
    /// Monomial (sorted atom keys; empty for the constant) → coefficient.
    terms: BTreeMap<Vec<String>, i128>,
}

/// Products of sums are expanded only up to this many terms; larger ones become atoms.
const MAX_TERMS: usize = 64;

impl Poly {
    fn constant(c: i128) -> Poly {
        let mut p = Poly::default();
        if c != 0 {
            p.terms.insert(Vec::new(), c);
        }
        p
    }
    fn atom(key: String) -> Poly {
        let mut p = Poly::default();
        p.terms.insert(vec![key], 1);
        p
    }
    fn as_const(&self) -> Option<i128> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }
    fn add(mut self, other: &Poly, sign: i128) -> Poly {
        for (m, c) in &other.terms {
            let e = self.terms.entry(m.clone()).or_insert(0);
            *e = e.saturating_add(c.saturating_mul(sign));
            if *e == 0 {
                self.terms.remove(m);
            }
        }
        self
    }
    fn mul(&self, other: &Poly) -> Option<Poly> {
        if self.terms.len() * other.terms.len() > MAX_TERMS {
            return None;
        }
        let mut out = Poly::default();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &other.terms {
                let mut m: Vec<String> = ma.iter().chain(mb).cloned().collect();
                m.sort();
                let e = out.terms.entry(m.clone()).or_insert(0);
                *e = e.saturating_add(ca.saturating_mul(*cb));
                if *e == 0 {
                    out.terms.remove(&m);
                }
            }
        }
        Some(out)
    }
    fn key(&self) -> String {
        let parts: Vec<String> = self
            .terms
            .iter()
            .map(|(m, c)| format!("{c}*[{}]", m.join("*")))
            .collect();
        parts.join("+")
    }
    /// Divides every coefficient by `d` if all are multiples of it.
    fn exact_div(&self, d: i128) -> Option<Poly> {
        if d == 0 || self.terms.values().any(|c| c % d != 0) {
            return None;
        }
        Some(Poly {
            terms: self.terms.iter().map(|(m, c)| (m.clone(), c / d)).collect(),
        })
    }
}

fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn poly(e: &PrimExpr, depth: usize) -> Poly {
    if depth > 64 {
        return Poly::atom(format!("{e:?}"));
    }
    match e.kind() {
        TirExpr::IntImm { value, .. } => Poly::constant(*value as i128),
        TirExpr::Var(v) => Poly::atom(format!("v{}", v.id().0)),
        TirExpr::Cast { dtype, value }
            if dtype.is_int_or_uint() && value.dtype().is_int_or_uint() =>
        {
            poly(value, depth + 1)
        }
        TirExpr::Binary { op, a, b } => {
            let (pa, pb) = (poly(a, depth + 1), poly(b, depth + 1));
            let opaque = |name: &str| Poly::atom(format!("{name}({};{})", pa.key(), pb.key()));
            match op {
                BinaryOp::Add => pa.add(&pb, 1),
                BinaryOp::Sub => pa.add(&pb, -1),
                BinaryOp::Mul => pa.mul(&pb).unwrap_or_else(|| opaque("mul")),
                BinaryOp::FloorDiv | BinaryOp::Div => match (pa.as_const(), pb.as_const()) {
                    (Some(x), Some(y)) if y != 0 => {
                        if *op == BinaryOp::FloorDiv {
                            Poly::constant(floor_div(x, y))
                        } else {
                            Poly::constant(x / y)
                        }
                    }
                    (_, Some(1)) => pa,
                    (_, Some(d)) if d > 0 && pa.exact_div(d).is_some() => {
                        pa.exact_div(d).unwrap_or_default()
                    }
                    _ => opaque(if *op == BinaryOp::FloorDiv {
                        "fdiv"
                    } else {
                        "div"
                    }),
                },
                BinaryOp::FloorMod | BinaryOp::Mod => match (pa.as_const(), pb.as_const()) {
                    (Some(x), Some(y)) if y != 0 => {
                        if *op == BinaryOp::FloorMod {
                            Poly::constant(x - y * floor_div(x, y))
                        } else {
                            Poly::constant(x % y)
                        }
                    }
                    (_, Some(d)) if d > 0 && pa.exact_div(d).is_some() => Poly::default(),
                    _ => opaque(if *op == BinaryOp::FloorMod {
                        "fmod"
                    } else {
                        "mod"
                    }),
                },
                BinaryOp::Min | BinaryOp::Max => match (pa.as_const(), pb.as_const()) {
                    (Some(x), Some(y)) => Poly::constant(if *op == BinaryOp::Min {
                        x.min(y)
                    } else {
                        x.max(y)
                    }),
                    _ if pa == pb => pa,
                    _ => {
                        // Commutative: order the operands by key.
                        let (ka, kb) = (pa.key(), pb.key());
                        let (k1, k2) = if ka <= kb { (ka, kb) } else { (kb, ka) };
                        let name = if *op == BinaryOp::Min { "min" } else { "max" };
                        Poly::atom(format!("{name}({k1};{k2})"))
                    }
                },
            }
        }
        _ => Poly::atom(format!("{e:?}")),
    }
}

/// Whether `a == b` holds for every value of the variables (as far as the canonical form can
/// tell). Float or boolean expressions are compared structurally.
pub fn prove_equal(a: &PrimExpr, b: &PrimExpr) -> bool {
    if a.ptr_eq(b) {
        return true;
    }
    poly(a, 0) == poly(b, 0) || tir::arith::Analyzer::new().prove_equal(a, b)
}

/// The value of `e` if it is provably a constant.
pub fn const_value(e: &PrimExpr) -> Option<i64> {
    poly(e, 0).as_const().and_then(|c| i64::try_from(c).ok())
}

/// Whether two shapes are provably equal dimension by dimension.
pub fn shapes_equal(a: &[PrimExpr], b: &[PrimExpr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| prove_equal(x, y))
}

fn opt_shapes_equal(a: &Option<Vec<PrimExpr>>, b: &Option<Vec<PrimExpr>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => shapes_equal(x, y),
        _ => false,
    }
}

fn opt_prim_equal(a: &Option<PrimExpr>, b: &Option<PrimExpr>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => prove_equal(x, y),
        _ => false,
    }
}

/// Structural equality of struct infos, dimensions compared by [`prove_equal`].
pub fn struct_info_provably_equal(a: &StructInfo, b: &StructInfo) -> bool {
    use StructInfo as S;
    match (a, b) {
        (S::Any, S::Any) => true,
        (
            S::Prim {
                dtype: d1,
                value: v1,
            },
            S::Prim {
                dtype: d2,
                value: v2,
            },
        ) => d1 == d2 && opt_prim_equal(v1, v2),
        (
            S::Shape {
                values: v1,
                ndim: n1,
            },
            S::Shape {
                values: v2,
                ndim: n2,
            },
        ) => n1 == n2 && opt_shapes_equal(v1, v2),
        (
            S::Tensor {
                shape: s1,
                dtype: d1,
                ndim: n1,
                vdevice: v1,
            },
            S::Tensor {
                shape: s2,
                dtype: d2,
                ndim: n2,
                vdevice: v2,
            },
        ) => d1 == d2 && n1 == n2 && v1 == v2 && opt_shapes_equal(s1, s2),
        (S::Tuple(f1), S::Tuple(f2)) => {
            f1.len() == f2.len()
                && f1
                    .iter()
                    .zip(f2)
                    .all(|(x, y)| struct_info_provably_equal(x, y))
        }
        (
            S::Func {
                params: p1,
                ret: r1,
                pure: u1,
            },
            S::Func {
                params: p2,
                ret: r2,
                pure: u2,
            },
        ) => {
            u1 == u2
                && struct_info_provably_equal(r1, r2)
                && match (p1, p2) {
                    (None, None) => true,
                    (Some(x), Some(y)) => {
                        x.len() == y.len()
                            && x.iter()
                                .zip(y)
                                .all(|(a, b)| struct_info_provably_equal(a, b))
                    }
                    _ => false,
                }
        }
        _ => false,
    }
}

/// Whether no value can be described by both `annotation` and `value`'s struct info: tensors
/// or prim values of two known dtypes, two known ranks, a dimension that is a different
/// constant on each side, tuples of other lengths (or with such a field), or different kinds
/// of value. TVM's parser reports the static-type part of this for a binding's annotation
/// (`StructInfoBaseCheck` at `kFailL0`) and leaves differing constant dimensions to the run
/// time's checks; here they are an error at once, since the program's kernels would be built
/// for the annotated shape (a dimension of 2^31 where the value has 3 means a 16 GB buffer and
/// a kernel that reads past its input). Only what both sides know is compared, so that an
/// annotation may still refine what inference leaves open.
pub fn static_types_conflict(annotation: &StructInfo, value: &StructInfo) -> bool {
    use StructInfo as S;
    let known_differ = |a: i64, b: i64| a >= 0 && b >= 0 && a != b;
    let dims_differ = |a: &Option<Vec<PrimExpr>>, b: &Option<Vec<PrimExpr>>| match (a, b) {
        (Some(a), Some(b)) => {
            a.len() != b.len()
                || a.iter()
                    .zip(b)
                    .any(|(x, y)| matches!((x.as_int(), y.as_int()), (Some(p), Some(q)) if p != q))
        }
        _ => false,
    };
    match (annotation, value) {
        (S::Any, _) | (_, S::Any) => false,
        (S::Prim { dtype: a, .. }, S::Prim { dtype: b, .. }) => a != b,
        (
            S::Shape {
                ndim: a,
                values: v1,
            },
            S::Shape {
                ndim: b,
                values: v2,
            },
        ) => known_differ(*a, *b) || dims_differ(v1, v2),
        (
            S::Tensor {
                dtype: d1,
                ndim: n1,
                shape: s1,
                ..
            },
            S::Tensor {
                dtype: d2,
                ndim: n2,
                shape: s2,
                ..
            },
        ) => {
            matches!((d1, d2), (Some(a), Some(b)) if a != b)
                || known_differ(*n1, *n2)
                || dims_differ(s1, s2)
        }
        (S::Tuple(a), S::Tuple(b)) => {
            a.len() != b.len() || a.iter().zip(b).any(|(x, y)| static_types_conflict(x, y))
        }
        (S::Func { .. }, S::Func { .. }) => false,
        _ => true,
    }
}

/// Whether every value described by `derived` is described by `base` (TVM's `IsBaseOf`,
/// with dimensions compared by [`prove_equal`]).
pub fn is_base_of(base: &StructInfo, derived: &StructInfo) -> bool {
    use StructInfo as S;
    match (base, derived) {
        (S::Any, _) => true,
        (
            S::Prim {
                dtype: d1,
                value: v1,
            },
            S::Prim {
                dtype: d2,
                value: v2,
            },
        ) => {
            d1 == d2
                && match (v1, v2) {
                    (None, _) => true,
                    (Some(x), Some(y)) => prove_equal(x, y),
                    _ => false,
                }
        }
        (
            S::Shape {
                values: v1,
                ndim: n1,
            },
            S::Shape {
                values: v2,
                ndim: n2,
            },
        ) => {
            (*n1 < 0 || n1 == n2)
                && match (v1, v2) {
                    (None, _) => true,
                    (Some(x), Some(y)) => shapes_equal(x, y),
                    _ => false,
                }
        }
        (
            S::Tensor {
                shape: s1,
                dtype: d1,
                ndim: n1,
                vdevice: v1,
            },
            S::Tensor {
                shape: s2,
                dtype: d2,
                ndim: n2,
                vdevice: v2,
            },
        ) => {
            (d1.is_none() || d1 == d2)
                && (*n1 < 0 || n1 == n2)
                && (v1.is_none() || v1 == v2)
                && match (s1, s2) {
                    (None, _) => true,
                    (Some(x), Some(y)) => shapes_equal(x, y),
                    _ => false,
                }
        }
        (S::Tuple(f1), S::Tuple(f2)) => {
            f1.len() == f2.len() && f1.iter().zip(f2).all(|(x, y)| is_base_of(x, y))
        }
        (
            S::Func {
                params: p1,
                ret: r1,
                pure: u1,
            },
            S::Func {
                params: p2,
                ret: r2,
                pure: u2,
            },
        ) => {
            (!*u1 || *u2)
                && is_base_of(r1, r2)
                && match (p1, p2) {
                    (None, _) => true,
                    (Some(x), Some(y)) => {
                        x.len() == y.len() && x.iter().zip(y).all(|(a, b)| is_base_of(b, a))
                    }
                    _ => false,
                }
        }
        _ => false,
    }
}

/// How an annotation relates to the struct info inferred for the same value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compatibility {
    /// The annotation describes every value the inferred struct info does.
    Yes,
    /// The annotation is more specific in ways that cannot be proved or refuted statically
    /// (a symbolic dimension against another); TVM accepts it.
    Maybe,
    /// The two contradict each other (different kinds, dtypes, ranks or constant dimensions).
    No,
}

/// Whether annotating a value of inferred struct info `inferred` with `annotation` is
/// consistent.
pub fn compatibility(annotation: &StructInfo, inferred: &StructInfo) -> Compatibility {
    if is_base_of(annotation, inferred) {
        return Compatibility::Yes;
    }
    if contradicts(annotation, inferred) {
        Compatibility::No
    } else {
        Compatibility::Maybe
    }
}

fn dims_contradict(a: &[PrimExpr], b: &[PrimExpr]) -> bool {
    a.len() != b.len()
        || a.iter()
            .zip(b)
            .any(|(x, y)| match (const_value(x), const_value(y)) {
                (Some(p), Some(q)) => p != q,
                _ => false,
            })
}

fn contradicts(a: &StructInfo, b: &StructInfo) -> bool {
    use StructInfo as S;
    match (a, b) {
        (S::Any, _) | (_, S::Any) => false,
        (
            S::Prim {
                dtype: d1,
                value: v1,
            },
            S::Prim {
                dtype: d2,
                value: v2,
            },
        ) => {
            d1 != d2
                || matches!((v1.as_ref().and_then(const_value), v2.as_ref().and_then(const_value)), (Some(x), Some(y)) if x != y)
        }
        (
            S::Shape {
                values: v1,
                ndim: n1,
            },
            S::Shape {
                values: v2,
                ndim: n2,
            },
        ) => {
            (*n1 >= 0 && *n2 >= 0 && n1 != n2)
                || matches!((v1, v2), (Some(x), Some(y)) if dims_contradict(x, y))
        }
        (
            S::Tensor {
                shape: s1,
                dtype: d1,
                ndim: n1,
                ..
            },
            S::Tensor {
                shape: s2,
                dtype: d2,
                ndim: n2,
                ..
            },
        ) => {
            matches!((d1, d2), (Some(x), Some(y)) if x != y)
                || (*n1 >= 0 && *n2 >= 0 && n1 != n2)
                || matches!((s1, s2), (Some(x), Some(y)) if dims_contradict(x, y))
        }
        (S::Tuple(f1), S::Tuple(f2)) => {
            f1.len() != f2.len() || f1.iter().zip(f2).any(|(x, y)| contradicts(x, y))
        }
        (S::Func { .. }, S::Func { .. }) => false,
        _ => true,
    }
}

/// The most specific struct info that describes both `a` and `b` (TVM's `StructInfoLCA`),
/// used for the value of an `If`.
pub fn lca(a: &StructInfo, b: &StructInfo) -> StructInfo {
    use StructInfo as S;
    match (a, b) {
        (
            S::Prim {
                dtype: d1,
                value: v1,
            },
            S::Prim {
                dtype: d2,
                value: v2,
            },
        ) if d1 == d2 => S::Prim {
            dtype: *d1,
            value: if opt_prim_equal(v1, v2) {
                v1.clone()
            } else {
                None
            },
        },
        (
            S::Shape {
                values: v1,
                ndim: n1,
            },
            S::Shape {
                values: v2,
                ndim: n2,
            },
        ) => {
            if n1 != n2 {
                S::Shape {
                    values: None,
                    ndim: -1,
                }
            } else if opt_shapes_equal(v1, v2) {
                a.clone()
            } else {
                S::Shape {
                    values: None,
                    ndim: *n1,
                }
            }
        }
        (
            S::Tensor {
                shape: s1,
                dtype: d1,
                ndim: n1,
                vdevice: v1,
            },
            S::Tensor {
                shape: s2,
                dtype: d2,
                ndim: n2,
                vdevice: v2,
            },
        ) => {
            let dtype = if d1 == d2 { *d1 } else { None };
            let vdevice = if v1 == v2 { v1.clone() } else { None };
            if n1 != n2 {
                S::Tensor {
                    shape: None,
                    dtype,
                    ndim: -1,
                    vdevice,
                }
            } else {
                let shape = if opt_shapes_equal(s1, s2) {
                    s1.clone()
                } else {
                    None
                };
                S::Tensor {
                    shape,
                    dtype,
                    ndim: *n1,
                    vdevice,
                }
            }
        }
        (S::Tuple(f1), S::Tuple(f2)) if f1.len() == f2.len() => {
            S::Tuple(f1.iter().zip(f2).map(|(x, y)| lca(x, y)).collect())
        }
        (
            S::Func {
                params: p1,
                ret: r1,
                pure: u1,
            },
            S::Func {
                params: p2,
                ret: r2,
                pure: u2,
            },
        ) => {
            let same_params = match (p1, p2) {
                (Some(x), Some(y)) => {
                    x.len() == y.len()
                        && x.iter()
                            .zip(y)
                            .all(|(a, b)| struct_info_provably_equal(a, b))
                }
                (None, None) => true,
                _ => false,
            };
            S::Func {
                params: if same_params { p1.clone() } else { None },
                ret: Box::new(lca(r1, r2)),
                pure: *u1 && *u2,
            }
        }
        _ => S::Any,
    }
}

/// `e` with variables replaced by `map` (by identity). Returns `None` when `e` uses a variable
/// that `keep` rejects and `map` does not replace.
pub fn substitute(
    e: &PrimExpr,
    map: &HashMap<tir::VarId, PrimExpr>,
    keep: &dyn Fn(&tir::Var) -> bool,
) -> Option<PrimExpr> {
    use tir::ExprKind as K;
    let sub = |x: &PrimExpr| substitute(x, map, keep);
    Some(match e.kind() {
        K::Var(v) => match map.get(&v.id()) {
            Some(r) => r.clone(),
            None if keep(v) => e.clone(),
            None => return None,
        },
        K::IntImm { .. } | K::FloatImm { .. } | K::StringImm(_) => e.clone(),
        K::Binary { op, a, b } => PrimExpr::binary(*op, sub(a)?, sub(b)?),
        K::Cmp { op, a, b } => PrimExpr::cmp(*op, sub(a)?, sub(b)?),
        K::And(a, b) => PrimExpr::new(K::And(sub(a)?, sub(b)?)),
        K::Or(a, b) => PrimExpr::new(K::Or(sub(a)?, sub(b)?)),
        K::Not(a) => PrimExpr::new(K::Not(sub(a)?)),
        K::Select {
            cond,
            true_value,
            false_value,
        } => PrimExpr::new(K::Select {
            cond: sub(cond)?,
            true_value: sub(true_value)?,
            false_value: sub(false_value)?,
        }),
        K::Cast { dtype, value } => PrimExpr::cast(*dtype, sub(value)?),
        K::Call { dtype, op, args } => {
            let args: Option<Vec<PrimExpr>> = args.iter().map(sub).collect();
            PrimExpr::call(*dtype, op.clone(), args?)
        }
        _ if e.uses_var(&|v: &tir::Var| !keep(v) || map.contains_key(&v.id())) => return None,
        _ => e.clone(),
    })
}

/// `si` with symbolic variables replaced by `map`; a dimension that uses a variable `keep`
/// rejects is forgotten (the shape becomes unknown, its rank kept), as TVM erases variables
/// that are not in scope.
pub fn substitute_struct_info(
    si: &StructInfo,
    map: &HashMap<tir::VarId, PrimExpr>,
    keep: &dyn Fn(&tir::Var) -> bool,
) -> StructInfo {
    use StructInfo as S;
    let dims = |v: &[PrimExpr]| -> Option<Vec<PrimExpr>> {
        v.iter().map(|d| substitute(d, map, keep)).collect()
    };
    match si {
        S::Any => S::Any,
        S::Prim { dtype, value } => S::Prim {
            dtype: *dtype,
            value: value.as_ref().and_then(|v| substitute(v, map, keep)),
        },
        S::Shape { values, ndim } => S::Shape {
            values: values.as_deref().and_then(dims),
            ndim: *ndim,
        },
        S::Tensor {
            shape,
            dtype,
            ndim,
            vdevice,
        } => S::Tensor {
            shape: shape.as_deref().and_then(dims),
            dtype: *dtype,
            ndim: *ndim,
            vdevice: vdevice.clone(),
        },
        S::Tuple(fields) => S::Tuple(
            fields
                .iter()
                .map(|f| substitute_struct_info(f, map, keep))
                .collect(),
        ),
        S::Func { params, ret, pure } => S::Func {
            params: params.as_ref().map(|p| {
                p.iter()
                    .map(|f| substitute_struct_info(f, map, keep))
                    .collect()
            }),
            ret: Box::new(substitute_struct_info(ret, map, keep)),
            pure: *pure,
        },
    }
}

/// Binds the symbolic variables that `param` declares (bare variables as dimensions or prim
/// values) to what `arg` has in the same place; first binding wins.
pub fn bind_symbolic(
    param: &StructInfo,
    arg: &StructInfo,
    map: &mut HashMap<tir::VarId, PrimExpr>,
) {
    use StructInfo as S;
    let mut bind_dims = |p: &[PrimExpr], a: &[PrimExpr]| {
        if p.len() == a.len() {
            for (x, y) in p.iter().zip(a) {
                if let Some(v) = x.as_var() {
                    map.entry(v.id()).or_insert_with(|| y.clone());
                }
            }
        }
    };
    match (param, arg) {
        (S::Tensor { shape: Some(p), .. }, S::Tensor { shape: Some(a), .. }) => bind_dims(p, a),
        (
            S::Shape {
                values: Some(p), ..
            },
            S::Shape {
                values: Some(a), ..
            },
        ) => bind_dims(p, a),
        (S::Prim { value: Some(p), .. }, S::Prim { value: Some(a), .. }) => {
            if let Some(v) = p.as_var() {
                map.entry(v.id()).or_insert_with(|| a.clone());
            }
        }
        (S::Tuple(p), S::Tuple(a)) if p.len() == a.len() => {
            for (x, y) in p.iter().zip(a) {
                bind_symbolic(x, y, map);
            }
        }
        _ => {}
    }
}

/// Calls `f` on every symbolic variable used in `si`.
pub fn visit_symbolic_vars(si: &StructInfo, f: &mut dyn FnMut(&tir::Var)) {
    use StructInfo as S;
    let dims = |v: &[PrimExpr], f: &mut dyn FnMut(&tir::Var)| {
        for d in v {
            d.visit(&mut |e| {
                if let Some(v) = e.as_var() {
                    f(v)
                }
            });
        }
    };
    match si {
        S::Any => {}
        S::Prim { value, .. } => {
            if let Some(v) = value {
                dims(std::slice::from_ref(v), f)
            }
        }
        S::Shape { values, .. } => {
            if let Some(v) = values {
                dims(v, f)
            }
        }
        S::Tensor { shape, .. } => {
            if let Some(v) = shape {
                dims(v, f)
            }
        }
        S::Tuple(fields) => {
            for x in fields {
                visit_symbolic_vars(x, f);
            }
        }
        S::Func { params, ret, .. } => {
            if let Some(p) = params {
                for x in p {
                    visit_symbolic_vars(x, f);
                }
            }
            visit_symbolic_vars(ret, f);
        }
    }
}

/// A dimension as TVMScript prints it inside a shape: integers bare (`3`, not
/// `T.int64(3)`), other expressions as TIR.
pub fn dim_str(d: &PrimExpr) -> String {
    dim_expr_str(d, 0)
}

fn dim_expr_str(e: &PrimExpr, parent: u8) -> String {
    match e.kind() {
        TirExpr::IntImm { dtype, value } if *dtype == tir::DataType::INT64 => value.to_string(),
        TirExpr::Var(v) => v.name().to_string(),
        TirExpr::Binary { op, a, b } => {
            let (sym, prec) = match op {
                BinaryOp::Add => ("+", 1),
                BinaryOp::Sub => ("-", 1),
                BinaryOp::Mul => ("*", 2),
                BinaryOp::FloorDiv => ("//", 2),
                BinaryOp::FloorMod => ("%", 2),
                BinaryOp::Min => return format!("T.min({}, {})", dim_str(a), dim_str(b)),
                BinaryOp::Max => return format!("T.max({}, {})", dim_str(a), dim_str(b)),
                _ => return e.to_string(),
            };
            let s = format!(
                "{} {sym} {}",
                dim_expr_str(a, prec),
                dim_expr_str(b, prec + 1)
            );
            if prec < parent { format!("({s})") } else { s }
        }
        _ => e.to_string(),
    }
}

fn dims_str(shape: &[PrimExpr]) -> String {
    let dims: Vec<String> = shape.iter().map(dim_str).collect();
    dims.join(", ")
}

/// A short TVMScript-like rendering: `R.Tensor((2, 3), dtype="float32")`, `R.Shape`, ...
pub fn describe(si: &StructInfo) -> String {
    match si {
        StructInfo::Any => "R.Any".into(),
        StructInfo::Prim { dtype, value } => match value {
            Some(v) => format!("R.Prim(value={})", dim_str(v)),
            None => format!("R.Prim(\"{dtype}\")"),
        },
        StructInfo::Shape { values, ndim } => match values {
            Some(v) => format!("R.Shape([{}])", dims_str(v)),
            None if *ndim >= 0 => format!("R.Shape(ndim={ndim})"),
            None => "R.Shape".into(),
        },
        StructInfo::Tensor {
            shape, dtype, ndim, ..
        } => {
            let mut parts = Vec::new();
            match shape {
                Some(s) if s.len() == 1 => parts.push(format!("({},)", dims_str(s))),
                Some(s) => parts.push(format!("({})", dims_str(s))),
                None => {}
            }
            if let Some(d) = dtype {
                parts.push(format!("dtype=\"{d}\""));
            }
            if shape.is_none() && *ndim >= 0 {
                parts.push(format!("ndim={ndim}"));
            }
            if parts.is_empty() {
                "R.Tensor".into()
            } else {
                format!("R.Tensor({})", parts.join(", "))
            }
        }
        StructInfo::Tuple(fields) => {
            if fields.is_empty() {
                "R.Tuple".into()
            } else {
                let f: Vec<String> = fields.iter().map(describe).collect();
                format!("R.Tuple({})", f.join(", "))
            }
        }
        StructInfo::Func { params, ret, .. } => match params {
            Some(p) => {
                let p: Vec<String> = p.iter().map(describe).collect();
                format!("R.Callable(({}), {})", p.join(", "), describe(ret))
            }
            None => format!("R.Callable(ret={})", describe(ret)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tir::{DataType, Var};

    #[test]
    fn symbolic_dims_compare_by_canonical_form() {
        let n = PrimExpr::from(Var::new("n", DataType::INT64));
        let m = PrimExpr::from(Var::new("m", DataType::INT64));
        let four = PrimExpr::i64(4);
        let two = PrimExpr::i64(2);
        let n4 = PrimExpr::binary(BinaryOp::Mul, n.clone(), four.clone());
        let four_n = PrimExpr::binary(BinaryOp::Mul, four.clone(), n.clone());
        assert!(prove_equal(&n4, &four_n));
        let half = PrimExpr::binary(BinaryOp::FloorDiv, n4.clone(), two.clone());
        let n2 = PrimExpr::binary(BinaryOp::Mul, n.clone(), two.clone());
        assert!(prove_equal(&half, &n2));
        assert!(!prove_equal(&n, &m));
        let nm = PrimExpr::binary(BinaryOp::Add, n.clone(), m.clone());
        let mn = PrimExpr::binary(BinaryOp::Add, m.clone(), n.clone());
        assert!(prove_equal(&nm, &mn));
        assert_eq!(
            const_value(&PrimExpr::binary(BinaryOp::Sub, n.clone(), n)),
            Some(0)
        );
    }
}
