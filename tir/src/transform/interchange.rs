//! Reduction interchange: `for j { init C[j]; for k { C[j] = f(C[j], …) } }` becomes
//! `for j { init C[j] }; for k { for j { C[j] = f(C[j], …) } }`, so that the spatial loop `j`,
//! contiguous in the reduction's output, is innermost and the code generator can vectorize it
//! (TVM's naive matmul: `C[i, j] += A[i, k] * B[k, j]` turns into a broadcast of `A[i, k]`
//! times a contiguous row of `B`).
//!
//! The rewrite is exact: every output element still sees its reduction steps in the original
//! order `k = min, min + 1, …`, so floating-point results are bit-for-bit unchanged (no
//! reassociation — TVM's LLVM backend does not reassociate float reductions unless a fast-math
//! target flag asks for it). It applies to a loop nest when (checked by [`Candidate::of`]):
//!
//! * `j` and `k` are serial loops, and `k`'s bounds do not depend on `j` (a rectangular nest);
//! * the body of `k` is one store `C[idx] = value` where `idx` has no loads, does not use `k`,
//!   and is affine in `j` with coefficient 1 — distinct `j` write distinct elements, so the
//!   `j` iterations are independent, and after the interchange the store is contiguous;
//! * `value` reads `C` only at `idx`, its other loads do not depend on memory (no loads in
//!   their indices) and are contiguous or invariant in `j` (coefficient 0 or 1), so the new
//!   inner loop is vectorizable (otherwise the interchange would only hurt locality);
//! * the statement before `k` (if any) is the reduction's init: a store to `C[idx]` of a value
//!   reading no written buffer, possibly under a condition without loads; splitting it into a
//!   loop of its own (loop distribution) is legal for the same reason.
//!
//! A nest that does not qualify because its reduction reads contiguously along `k` (a row sum,
//! softmax's max and sum) has its rows jammed instead ([`Candidate::jam_rows`]): four rows
//! reduced in one `k` loop, four independent dependency chains.
//!
//! After the interchange a reduction of at least 8 steps from 0 is unrolled and jammed by
//! [`REDUCTION_UNROLL`]: one pass over `j` performs four consecutive steps on each element, so
//! the accumulator is loaded and stored once per four steps (still in order).
//!
//! The loop right around an interchanged nest (matmul's `i`) is then unroll-and-jammed by
//! [`OUTER_JAM`] when its rows are provably independent ([`jam_outer`]), which makes a register
//! tile of four rows by one vector.
//!
//! Distinct buffer parameters must not overlap (`tirx.noalias`); the caller checks that. A
//! kernel that fails a bounds check (only possible here with shapes the prologue did not pin)
//! may report a different first failing access after the rewrite.

use crate::arith::{VarRanges, exact_int_bound, loop_var_range};
use crate::ir::{BinaryOp, ExprKind, For, ForKind, PrimExpr, Stmt, StmtKind, Var, VarId};
use crate::transform::mutator::{Mutator, walk_stmt};

/// Interchanges every eligible reduction nest of `body` (see the module doc).
pub fn interchange_reductions(body: &Stmt) -> Stmt {
    Interchange {
        interchanged: false,
    }
    .stmt(body)
}

struct Interchange {
    /// The statement just rewritten was an interchanged nest.
    interchanged: bool,
}

impl Mutator for Interchange {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let outer = std::mem::take(&mut self.interchanged);
        let s = walk_stmt(self, s);
        let child = std::mem::replace(&mut self.interchanged, outer);
        if let StmtKind::For(j) = s.kind() {
            if let Some(c) = Candidate::of(j, Goal::Interchange) {
                self.interchanged = true;
                return c.rewrite(j);
            }
            if let Some(c) = Candidate::of(j, Goal::JamRows) {
                return c.jam_rows(j);
            }
            if child && let Some(jammed) = jam_outer(j) {
                return jammed;
            }
        }
        s
    }
}

/// How many rows of the loop around an interchanged nest [`jam_outer`] runs together.
pub const OUTER_JAM: i64 = 4;

/// The constant inclusive ranges of the loops inside `s`, if every one has constant bounds of
/// its variable's type.
fn inner_const_ranges(s: &Stmt) -> Option<VarRanges> {
    let mut out = VarRanges::new();
    let mut ok = true;
    s.visit(&mut |st| {
        if let StmtKind::For(f) = st.kind() {
            match loop_var_range(f) {
                Some(r) => {
                    out.insert(f.loop_var.id(), r);
                }
                None => ok = false,
            }
        }
    });
    ok.then_some(out)
}

/// Unroll-and-jam of the loop `i` around an interchanged nest by [`OUTER_JAM`]: every innermost
/// body of its nests runs for rows `4io … 4io + 3` together, so a vector of `B[k, j:j+4]` is
/// loaded once for four rows of `C` (a 4 × 4 register tile; the vectorizer accepts the four
/// stores because their indices are a row, at least four elements, apart). Legal when the rows are
/// independent: every access of a buffer the body writes has the form `c * i + r` with the same
/// `c` per buffer and `0 <= r < |c|` exactly (`r` cannot wrap; row `i` owns the slab
/// `[c*i, c*i + |c|)`) — then any
/// interleaving of different rows' statements that keeps each row's own order is equivalent.
/// All inner loop bounds must be constants; the remaining rows run as they were.
fn jam_outer(i: &For) -> Option<Stmt> {
    if i.kind != ForKind::Serial || i.min.as_int() != Some(0) {
        return None;
    }
    if i.extent.as_int().is_some_and(|n| n < 2 * OUTER_JAM) {
        return None;
    }
    let ranges = inner_const_ranges(&i.body)?;
    let iv = &i.loop_var;
    let rows = loop_var_range(i).map(|r| {
        let mut m = ranges.clone();
        m.insert(iv.id(), r);
        m
    });
    let mut written: std::collections::HashMap<VarId, i64> = std::collections::HashMap::new();
    let mut ok = true;
    let slab = |idx: &PrimExpr| -> Option<i64> {
        let c = affine_coef(idx, iv)?;
        if c == 0 || has_load(idx) {
            return None;
        }
        let zero = std::collections::HashMap::from([(iv.id(), PrimExpr::int(iv.dtype(), 0))]);
        let r = crate::transform::mutator::substitute(idx, &zero);
        let (lo, hi) = exact_int_bound(&r, &ranges)?;
        // With a constant row count the whole index must not wrap either (rows whose indices
        // wrap could meet). A symbolic count is only bounded by the type: an index that wraps
        // there has first left the buffer in an earlier row, which fails its bounds check.
        if let Some(rows) = &rows
            && exact_int_bound(idx, rows).is_none()
        {
            return None;
        }
        (lo >= 0 && hi < c.checked_abs()?).then_some(c)
    };
    i.body.visit(&mut |st| {
        if let StmtKind::BufferStore {
            buffer, indices, ..
        } = st.kind()
        {
            match indices.as_slice() {
                [idx] => match slab(idx) {
                    Some(c) => ok &= *written.entry(buffer.data.id()).or_insert(c) == c,
                    None => ok = false,
                },
                _ => ok = false,
            }
        }
        if matches!(
            st.kind(),
            StmtKind::Allocate { .. } | StmtKind::AssertStmt { .. } | StmtKind::LetStmt { .. }
        ) {
            ok = false;
        }
    });
    if !ok || written.is_empty() {
        return None;
    }
    i.body.visit(&mut |st| {
        for e in st.exprs() {
            e.visit(&mut |x| {
                if let ExprKind::BufferLoad { buffer, indices } = x.kind()
                    && let Some(&c) = written.get(&buffer.data.id())
                {
                    ok &= indices.len() == 1 && slab(&indices[0]) == Some(c);
                }
            });
        }
    });
    if !ok {
        return None;
    }
    let dt = iv.dtype();
    let c = |v: i64| PrimExpr::int(dt, v);
    let io = Var::new(format!("{}_o", iv.name()), dt);
    let rows: Vec<std::collections::HashMap<VarId, PrimExpr>> = (0..OUTER_JAM)
        .map(|u| {
            let e = PrimExpr::binary(
                BinaryOp::Add,
                PrimExpr::binary(BinaryOp::Mul, PrimExpr::from(&io), c(OUTER_JAM)),
                c(u),
            );
            std::collections::HashMap::from([(iv.id(), e)])
        })
        .collect();
    let items: Vec<Stmt> = match i.body.kind() {
        StmtKind::Seq(v) => v.clone(),
        _ => vec![i.body.clone()],
    };
    let jammed: Vec<Stmt> = items.iter().map(|item| jam_nest(item, &rows)).collect();
    let chunks = crate::arith::simplify(&PrimExpr::binary(
        BinaryOp::FloorDiv,
        i.extent.clone(),
        c(OUTER_JAM),
    ));
    let done = crate::arith::simplify(&PrimExpr::binary(
        BinaryOp::Mul,
        chunks.clone(),
        c(OUTER_JAM),
    ));
    let rest = crate::arith::simplify(&PrimExpr::binary(
        BinaryOp::Sub,
        i.extent.clone(),
        done.clone(),
    ));
    let main = Stmt::new(StmtKind::For(For {
        loop_var: io,
        min: c(0),
        extent: chunks,
        body: Stmt::seq(jammed),
        ..i.clone()
    }));
    if rest.as_int() == Some(0) {
        return Some(main);
    }
    let tail = Stmt::new(StmtKind::For(For {
        min: done,
        extent: rest,
        ..i.clone()
    }));
    Some(Stmt::seq(vec![main, tail]))
}

/// A perfect loop nest with its innermost body replaced by one copy per row.
fn jam_nest(s: &Stmt, rows: &[std::collections::HashMap<VarId, PrimExpr>]) -> Stmt {
    match s.kind() {
        StmtKind::For(f) => Stmt::new(StmtKind::For(For {
            body: jam_nest(&f.body, rows),
            ..f.clone()
        })),
        _ => Stmt::new(StmtKind::Seq(
            rows.iter()
                .map(|m| crate::transform::mutator::substitute_stmt(s, m))
                .collect(),
        )),
    }
}

/// The coefficient of `v` in `e` if `e` is affine in `v` with other variables as constants.
pub fn affine_coef(e: &PrimExpr, v: &Var) -> Option<i64> {
    if !e.uses_var(&|x| x == v) {
        return Some(0);
    }
    match e.kind() {
        ExprKind::Var(x) if x == v => Some(1),
        ExprKind::Cast { dtype, value }
            if dtype.is_int() && value.dtype().is_int() && dtype.bits >= value.dtype().bits =>
        {
            affine_coef(value, v)
        }
        ExprKind::Binary { op, a, b } => {
            let (ca, cb) = (affine_coef(a, v)?, affine_coef(b, v)?);
            match op {
                BinaryOp::Add => ca.checked_add(cb),
                BinaryOp::Sub => ca.checked_sub(cb),
                BinaryOp::Mul if cb == 0 => ca.checked_mul(b.as_int()?),
                BinaryOp::Mul if ca == 0 => cb.checked_mul(a.as_int()?),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether evaluating `e` loads from memory.
pub fn has_load(e: &PrimExpr) -> bool {
    let mut found = false;
    e.visit(&mut |x| found |= matches!(x.kind(), ExprKind::BufferLoad { .. }));
    found
}

/// Which rewrite a nest is matched for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Goal {
    /// `j` innermost: needs `idx` and the loads contiguous or invariant in `j`.
    Interchange,
    /// [`Candidate::jam_rows`]: any affine, injective `idx`.
    JamRows,
}

/// A matched nest: the init statement (if any) and the reduction loop `k`.
struct Candidate {
    init: Option<Stmt>,
    k: For,
}

impl Candidate {
    fn of(j: &For, goal: Goal) -> Option<Candidate> {
        if j.kind != ForKind::Serial {
            return None;
        }
        let (init, k) = match j.body.kind() {
            StmtKind::For(k) => (None, k.clone()),
            StmtKind::Seq(v) => match v.as_slice() {
                [init, k] => match k.kind() {
                    StmtKind::For(k) => (Some(init.clone()), k.clone()),
                    _ => return None,
                },
                _ => return None,
            },
            _ => return None,
        };
        let jv = &j.loop_var;
        let uses_j = |e: &PrimExpr| e.uses_var(&|x| x == jv);
        if k.kind != ForKind::Serial || uses_j(&k.min) || uses_j(&k.extent) {
            return None;
        }
        if has_load(&k.min) || has_load(&k.extent) {
            return None;
        }
        let StmtKind::BufferStore {
            buffer,
            value,
            indices,
        } = k.body.kind()
        else {
            return None;
        };
        let [idx] = indices.as_slice() else {
            return None;
        };
        let kv = &k.loop_var;
        let step_ok = match goal {
            Goal::Interchange => affine_coef(idx, jv) == Some(1),
            Goal::JamRows => affine_coef(idx, jv).is_some_and(|c| c != 0),
        };
        if has_load(idx) || idx.uses_var(&|x| x == kv) || !step_ok {
            return None;
        }
        let out = buffer.data.id();
        let mut ok = true;
        let mut reads_out = false;
        value.visit(&mut |x| {
            if let ExprKind::BufferLoad { buffer, indices } = x.kind() {
                let [i] = indices.as_slice() else {
                    ok = false;
                    return;
                };
                if has_load(i) {
                    ok = false;
                } else if buffer.data.id() == out {
                    reads_out = true;
                    ok &= i == idx;
                } else if goal == Goal::Interchange {
                    ok &= matches!(affine_coef(i, jv), Some(0 | 1));
                }
            }
        });
        if !ok || !reads_out {
            return None;
        }
        if let Some(init) = &init {
            let store = match init.kind() {
                StmtKind::IfThenElse {
                    cond,
                    then_case,
                    else_case: None,
                } if !has_load(cond) => then_case,
                _ => init,
            };
            let StmtKind::BufferStore {
                buffer: b,
                value: v,
                indices: ii,
            } = store.kind()
            else {
                return None;
            };
            let [i] = ii.as_slice() else {
                return None;
            };
            if b.data.id() != out || i != idx || v.loads_buffer(out) {
                return None;
            }
        }
        Some(Candidate { init, k })
    }

    /// `for j { init(j); for k { S(j, k) } }` as
    /// `for jo { init(4jo)…init(4jo+3); for k { S(4jo, k); …; S(4jo+3, k) } }` and the remaining
    /// rows as they were: four independent reductions per `k` step, whose accumulators the code
    /// generator keeps in registers, so four dependency chains overlap instead of one running
    /// alone. Each row still sees its init and then its steps in order, and rows touch
    /// distinct elements (`idx` is injective in `j`), so the result is exact.
    fn jam_rows(self, j: &For) -> Stmt {
        let plain = || Stmt::new(StmtKind::For(j.clone()));
        if j.min.as_int() != Some(0) || j.extent.as_int().is_some_and(|n| n < 8) {
            return plain();
        }
        let dt = j.loop_var.dtype();
        let c = |v: i64| PrimExpr::int(dt, v);
        let jo = Var::new(format!("{}_o", j.loop_var.name()), dt);
        let row = |u: i64| {
            let e = PrimExpr::binary(
                BinaryOp::Add,
                PrimExpr::binary(BinaryOp::Mul, PrimExpr::from(&jo), c(ROW_JAM)),
                c(u),
            );
            std::collections::HashMap::from([(j.loop_var.id(), e)])
        };
        let subst = crate::transform::mutator::substitute_stmt;
        let mut body = Vec::new();
        if let Some(init) = &self.init {
            body.extend((0..ROW_JAM).map(|u| subst(init, &row(u))));
        }
        let steps: Vec<Stmt> = (0..ROW_JAM).map(|u| subst(&self.k.body, &row(u))).collect();
        body.push(Stmt::new(StmtKind::For(For {
            body: Stmt::new(StmtKind::Seq(steps)),
            ..self.k.clone()
        })));
        let chunks = crate::arith::simplify(&PrimExpr::binary(
            BinaryOp::FloorDiv,
            j.extent.clone(),
            c(ROW_JAM),
        ));
        let done =
            crate::arith::simplify(&PrimExpr::binary(BinaryOp::Mul, chunks.clone(), c(ROW_JAM)));
        let rest = crate::arith::simplify(&PrimExpr::binary(
            BinaryOp::Sub,
            j.extent.clone(),
            done.clone(),
        ));
        let main = Stmt::new(StmtKind::For(For {
            loop_var: jo,
            min: c(0),
            extent: chunks,
            body: Stmt::seq(body),
            ..j.clone()
        }));
        if rest.as_int() == Some(0) {
            return main;
        }
        let tail = Stmt::new(StmtKind::For(For {
            min: done,
            extent: rest,
            ..j.clone()
        }));
        Stmt::seq(vec![main, tail])
    }

    fn rewrite(self, j: &For) -> Stmt {
        let mut out = Vec::new();
        if let Some(init) = &self.init {
            out.push(Stmt::new(StmtKind::For(For {
                body: init.clone(),
                ..j.clone()
            })));
        }
        out.extend(unroll_and_jam(j, &self.k));
        Stmt::seq(out)
    }
}

/// How many reduction steps one pass over the `j` loop performs after the interchange.
pub const REDUCTION_UNROLL: i64 = 4;

/// How many rows [`Candidate::jam_rows`] reduces together.
pub const ROW_JAM: i64 = 4;

/// Replaces the load of `C[key]` by an expression.
struct ReplaceLoad<'a> {
    out: VarId,
    index: &'a PrimExpr,
    with: &'a PrimExpr,
}

impl Mutator for ReplaceLoad<'_> {
    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        if let ExprKind::BufferLoad { buffer, indices } = e.kind()
            && buffer.data.id() == self.out
            && let [i] = indices.as_slice()
            && i == self.index
        {
            return self.with.clone();
        }
        crate::transform::mutator::walk_expr(self, e)
    }
}

/// `for k { for j { C[idx] = f(C[idx], k) } }` with `k` from 0, as loops of
/// [`REDUCTION_UNROLL`] steps per `j` iteration — `C[idx] = f(f(f(f(C[idx], 4ko), 4ko+1), …)` —
/// then the remaining steps as they were. Each element still sees its steps in order, but the
/// accumulator stays in a register for four steps instead of one. Applies when `f` reads
/// `C[idx]` once; otherwise the plain interchanged nest.
fn unroll_and_jam(j: &For, k: &For) -> Vec<Stmt> {
    let plain = || {
        vec![Stmt::new(StmtKind::For(For {
            body: Stmt::new(StmtKind::For(For {
                body: k.body.clone(),
                ..j.clone()
            })),
            ..k.clone()
        }))]
    };
    let StmtKind::BufferStore {
        buffer,
        value,
        indices,
    } = k.body.kind()
    else {
        return plain();
    };
    let [idx] = indices.as_slice() else {
        return plain();
    };
    let out = buffer.data.id();
    let mut reads = 0;
    value.visit(&mut |x| {
        if let ExprKind::BufferLoad { buffer, .. } = x.kind() {
            reads += (buffer.data.id() == out) as i32;
        }
    });
    if reads != 1 || k.min.as_int() != Some(0) || k.extent.as_int().is_some_and(|n| n < 8) {
        return plain();
    }
    let dt = k.loop_var.dtype();
    let c = |v: i64| PrimExpr::int(dt, v);
    let ko = Var::new(format!("{}_o", k.loop_var.name()), dt);
    let mut acc = PrimExpr::new(ExprKind::BufferLoad {
        buffer: buffer.clone(),
        indices: indices.clone(),
    });
    for u in 0..REDUCTION_UNROLL {
        let step = PrimExpr::binary(
            BinaryOp::Add,
            PrimExpr::binary(BinaryOp::Mul, PrimExpr::from(&ko), c(REDUCTION_UNROLL)),
            c(u),
        );
        let map = std::collections::HashMap::from([(k.loop_var.id(), step)]);
        let v = crate::transform::mutator::substitute(value, &map);
        acc = ReplaceLoad {
            out,
            index: idx,
            with: &acc,
        }
        .expr(&v);
    }
    let chunks = PrimExpr::binary(BinaryOp::FloorDiv, k.extent.clone(), c(REDUCTION_UNROLL));
    let chunks = crate::arith::simplify(&chunks);
    let done = crate::arith::simplify(&PrimExpr::binary(
        BinaryOp::Mul,
        chunks.clone(),
        c(REDUCTION_UNROLL),
    ));
    let store = Stmt::new(StmtKind::BufferStore {
        buffer: buffer.clone(),
        value: acc,
        indices: indices.clone(),
    });
    let main = Stmt::new(StmtKind::For(For {
        loop_var: ko,
        min: c(0),
        extent: chunks,
        body: Stmt::new(StmtKind::For(For {
            body: store,
            ..j.clone()
        })),
        ..k.clone()
    }));
    let rest = crate::arith::simplify(&PrimExpr::binary(
        BinaryOp::Sub,
        k.extent.clone(),
        done.clone(),
    ));
    if rest.as_int() == Some(0) {
        return vec![main];
    }
    let tail = Stmt::new(StmtKind::For(For {
        min: done,
        extent: rest,
        body: Stmt::new(StmtKind::For(For {
            body: k.body.clone(),
            ..j.clone()
        })),
        ..k.clone()
    }));
    vec![main, tail]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::lower;

    const SRC: &str = r#"
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def matmul(a: T.Buffer((T.int64(3), T.int64(4)), "float32"), b: T.Buffer((T.int64(4), T.int64(5)), "float32"), c: T.Buffer((T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i0, i1, k in T.grid(T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                with T.init():
                    c[v_i0, v_i1] = T.float32(0.0)
                c[v_i0, v_i1] = c[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1]

    @T.prim_func(s_tir=True)
    def matmul10(a: T.Buffer((T.int64(3), T.int64(10)), "float32"), b: T.Buffer((T.int64(10), T.int64(5)), "float32"), c: T.Buffer((T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i0, i1, k in T.grid(T.int64(3), T.int64(5), T.int64(10)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                with T.init():
                    c[v_i0, v_i1] = T.float32(0.0)
                c[v_i0, v_i1] = c[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1]

    @T.prim_func(s_tir=True)
    def matmul9(a: T.Buffer((T.int64(9), T.int64(10)), "float32"), b: T.Buffer((T.int64(10), T.int64(5)), "float32"), c: T.Buffer((T.int64(9), T.int64(5)), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i0, i1, k in T.grid(T.int64(9), T.int64(5), T.int64(10)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                with T.init():
                    c[v_i0, v_i1] = T.float32(0.0)
                c[v_i0, v_i1] = c[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1]

    @T.prim_func(s_tir=True)
    def rowsum10(a: T.Buffer((T.int64(10), T.int64(4)), "float32"), s: T.Buffer((T.int64(10),), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, k in T.grid(T.int64(10), T.int64(4)):
            with T.sblock("s"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                with T.init():
                    s[v_i] = T.float32(0.0)
                s[v_i] = s[v_i] + a[v_i, v_k]

    @T.prim_func(s_tir=True)
    def rowsum(a: T.Buffer((T.int64(3), T.int64(4)), "float32"), s: T.Buffer((T.int64(3),), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, k in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("s"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                with T.init():
                    s[v_i] = T.float32(0.0)
                s[v_i] = s[v_i] + a[v_i, v_k]
"#;

    /// Loop variables of the nest, outermost first, along the last statement of each body.
    fn loop_order(s: &Stmt) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = s.clone();
        loop {
            let next = match cur.kind() {
                StmtKind::For(f) => {
                    out.push(f.loop_var.name().to_string());
                    f.body.clone()
                }
                StmtKind::Seq(v) => match v.last() {
                    Some(x) => x.clone(),
                    None => break,
                },
                StmtKind::Allocate { body, .. }
                | StmtKind::DeclBuffer { body, .. }
                | StmtKind::AttrStmt { body, .. }
                | StmtKind::LetStmt { body, .. } => body.clone(),
                _ => break,
            };
            cur = next;
        }
        out
    }

    fn lowered(name: &str) -> Stmt {
        let funcs = crate::parse_module_prim_funcs(SRC).unwrap_or_default();
        let f = funcs.iter().find(|f| f.name == name);
        match f.map(lower) {
            Some(Ok(l)) => l.body,
            _ => Stmt::no_op(),
        }
    }

    #[test]
    fn matmul_reduction_moves_outward() {
        let body = lowered("matmul");
        let before = loop_order(&body);
        let after = loop_order(&interchange_reductions(&body));
        assert_eq!(before.len(), 3, "{before:?}");
        assert_eq!(
            after,
            vec![before[0].clone(), before[2].clone(), before[1].clone()]
        );
    }

    #[test]
    fn long_reductions_are_unrolled_and_jammed() {
        let body = lowered("matmul10");
        let after = interchange_reductions(&body);
        // i0 { init loop; k_o (2 chunks of 4) { i1 }; k (the last 2) { i1 } }
        let StmtKind::For(outer) = after.kind() else {
            panic!("expected a loop, got {after:?}");
        };
        let StmtKind::Seq(parts) = outer.body.kind() else {
            panic!("expected three loops, got {:?}", outer.body);
        };
        let extents: Vec<_> = parts
            .iter()
            .map(|p| match p.kind() {
                StmtKind::For(f) => (f.min.as_int(), f.extent.as_int()),
                _ => (None, None),
            })
            .collect();
        assert_eq!(
            extents,
            vec![(Some(0), Some(5)), (Some(0), Some(2)), (Some(8), Some(2))]
        );
        assert_eq!(loop_order(&parts[1])[0], "k_o");
    }

    #[test]
    fn rows_around_an_interchanged_nest_are_jammed() {
        let after = interchange_reductions(&lowered("matmul9"));
        // i0_o (2 chunks of 4 rows) { … }; i0 (the last row) { … }
        let StmtKind::Seq(parts) = after.kind() else {
            panic!("expected two loops, got {after:?}");
        };
        let ranges: Vec<_> = parts
            .iter()
            .map(|p| match p.kind() {
                StmtKind::For(f) => (f.min.as_int(), f.extent.as_int()),
                _ => (None, None),
            })
            .collect();
        assert_eq!(ranges, vec![(Some(0), Some(2)), (Some(8), Some(1))]);
        // The init loop's body holds the four rows' inits.
        let StmtKind::For(main) = parts[0].kind() else {
            panic!("expected a loop");
        };
        let StmtKind::Seq(nests) = main.body.kind() else {
            panic!("expected nests, got {:?}", main.body);
        };
        let StmtKind::For(init) = nests[0].kind() else {
            panic!("expected the init loop");
        };
        assert!(matches!(init.body.kind(), StmtKind::Seq(v) if v.len() == 4));
    }

    #[test]
    fn strided_reductions_are_not_interchanged() {
        // rowsum's `a[i, k]` is strided in `i`: the rows are too few (3) to jam, so it stays.
        let body = lowered("rowsum");
        assert_eq!(
            loop_order(&interchange_reductions(&body)),
            loop_order(&body)
        );
        assert_eq!(loop_order(&body).len(), 2);
    }

    #[test]
    fn rows_of_a_contiguous_reduction_are_jammed() {
        let body = lowered("rowsum10");
        let after = interchange_reductions(&body);
        // i_o (2 chunks) { 4 inits; k { 4 steps } }; i (the last 2 rows) { … }
        let StmtKind::Seq(parts) = after.kind() else {
            panic!("expected two loops, got {after:?}");
        };
        let ranges: Vec<_> = parts
            .iter()
            .map(|p| match p.kind() {
                StmtKind::For(f) => (f.min.as_int(), f.extent.as_int()),
                _ => (None, None),
            })
            .collect();
        assert_eq!(ranges, vec![(Some(0), Some(2)), (Some(8), Some(2))]);
        let StmtKind::For(main) = parts[0].kind() else {
            panic!("expected a loop");
        };
        let StmtKind::Seq(body) = main.body.kind() else {
            panic!("expected inits and a loop, got {:?}", main.body);
        };
        assert_eq!(body.len(), 5);
        let StmtKind::For(k) = body[4].kind() else {
            panic!("expected the reduction loop");
        };
        assert!(matches!(k.body.kind(), StmtKind::Seq(v) if v.len() == 4));
    }
}
