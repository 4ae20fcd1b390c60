//! SimplifyIndices: the flat index of every load and store that divides or takes a remainder
//! is simplified with the ranges of the loops around it (TVM's `Simplify` over the lowered
//! body). A reshape between fused stages indexes its input through `//` and `%` of the output's
//! flat position; with the loop ranges those cancel (`(i // 4)·12544 + (i % 4)·3136 + ...` is
//! `i·3136 + ...`), which spares each element several 64-bit divisions and leaves an index
//! affine in the innermost loop, which the vectorizer can use.
//!
//! Soundness: only indices of integer arithmetic on variables and constants are touched (no
//! loads, calls or selects, and divisions only by positive constants: nothing that can fault,
//! which the simplifier could drop). The simplifier reasons about mathematical integers (it
//! assumes no overflow), so an index is replaced only when the interval analysis proves, for
//! the loop ranges, that neither the original nor the simplified expression wraps in its type
//! at any step ([`exact_int_bound`]); then both compute their mathematical values, which the
//! simplifier keeps equal. Indices with a variable that no enclosing constant loop bounds are
//! left as they are. The kernel's bounds checks apply to whichever index is used.

use std::collections::HashMap;

use crate::arith::{Analyzer, VarRanges, exact_int_bound, loop_var_range};
use crate::ir::{Buffer, ExprKind, PrimExpr, PrimFunc, Range, Stmt, StmtKind, Var, VarId};
use crate::transform::mutator::{Mutator, walk_stmt};

/// `body` with the dividing flat indices of its loads and stores simplified.
pub fn simplify_indices(body: &Stmt) -> Stmt {
    IndexSimplifier::default().stmt(body)
}

/// `func` with the dividing indices of its blocks' loads and stores simplified, before
/// lowering: an iteration variable bound to a loop variable ranges over that loop. A reshape
/// fused after a transpose then reads its input with the innermost iteration variable as the
/// last index, which is what `inline_elementwise` asks of a reader (ShuffleNet's channel
/// shuffle, reshape · transpose · reshape, becomes one pass that copies rows).
pub fn simplify_block_indices(func: &PrimFunc) -> PrimFunc {
    PrimFunc {
        body: simplify_indices(&func.body),
        ..func.clone()
    }
}

#[derive(Default)]
struct IndexSimplifier {
    ranges: VarRanges,
    vars: HashMap<VarId, Var>,
}

impl IndexSimplifier {
    fn simplified(&self, e: &PrimExpr) -> PrimExpr {
        if !divides(e) || !arithmetic(e) || exact_int_bound(e, &self.ranges).is_none() {
            return e.clone();
        }
        let mut an = Analyzer::new();
        for (id, &(lo, hi)) in &self.ranges {
            let v = &self.vars[id];
            let dt = v.dtype();
            an.bind(
                v,
                Range::new(PrimExpr::int(dt, lo), PrimExpr::int(dt, hi - lo + 1)),
            );
        }
        let s = an.simplify(e);
        if s.dtype() != e.dtype() || exact_int_bound(&s, &self.ranges).is_none() {
            return e.clone();
        }
        s
    }
}

/// Whether `e` is made of integer arithmetic on variables and constants only, dividing by
/// positive constants: nothing whose evaluation can fault (an out-of-bounds read, a division
/// by zero), which the simplifier could drop, as it drops `x` from `x % 1`.
fn arithmetic(e: &PrimExpr) -> bool {
    use crate::ir::BinaryOp as B;
    match e.kind() {
        ExprKind::IntImm { .. } | ExprKind::Var(_) => true,
        // A division by anything but a positive constant may fault (by zero), and
        // `(x // 0) * 0` would simplify the fault away.
        ExprKind::Binary {
            op: B::FloorDiv | B::FloorMod | B::Div | B::Mod,
            a,
            b,
        } => b.as_int().is_some_and(|c| c > 0) && arithmetic(a),
        ExprKind::Binary { a, b, .. } => arithmetic(a) && arithmetic(b),
        _ => false,
    }
}

/// Whether `e` divides or takes a remainder anywhere.
fn divides(e: &PrimExpr) -> bool {
    use crate::ir::BinaryOp as B;
    match e.kind() {
        ExprKind::Binary { op, a, b } => {
            matches!(op, B::FloorDiv | B::FloorMod | B::Div | B::Mod) || divides(a) || divides(b)
        }
        _ => false,
    }
}

impl Mutator for IndexSimplifier {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        if let StmtKind::For(f) = s.kind()
            && let Some(range) = loop_var_range(f)
        {
            let id = f.loop_var.id();
            self.ranges.insert(id, range);
            self.vars.insert(id, f.loop_var.clone());
            let out = walk_stmt(self, s);
            self.ranges.remove(&id);
            self.vars.remove(&id);
            return out;
        }
        // A block iteration variable bound to a loop variable takes that loop's range (its
        // value, whatever its declared domain says): its accesses simplify too, so that a
        // reshape's `//` and `%` cancel before lowering (see `simplify_block_indices`).
        if let StmtKind::SBlockRealize(r) = s.kind() {
            let mut bound = Vec::new();
            for (iv, value) in r.block.iter_vars.iter().zip(&r.iter_values) {
                if let ExprKind::Var(v) = value.kind()
                    && let Some(&range) = self.ranges.get(&v.id())
                    && iv.var.dtype() == v.dtype()
                    && !self.ranges.contains_key(&iv.var.id())
                {
                    self.ranges.insert(iv.var.id(), range);
                    self.vars.insert(iv.var.id(), iv.var.clone());
                    bound.push(iv.var.id());
                }
            }
            let out = walk_stmt(self, s);
            for id in bound {
                self.ranges.remove(&id);
                self.vars.remove(&id);
            }
            return out;
        }
        walk_stmt(self, s)
    }

    fn access(&mut self, buffer: &Buffer, indices: Vec<PrimExpr>) -> (Buffer, Vec<PrimExpr>) {
        let indices = indices.iter().map(|i| self.simplified(i)).collect();
        (buffer.clone(), indices)
    }
}

#[cfg(test)]
mod tests {
    use super::simplify_indices;
    use crate::script::parse_module_prim_funcs;
    use crate::transform::lower;

    fn lowered_body(src: &str) -> String {
        let funcs = parse_module_prim_funcs(src).unwrap();
        let lowered = lower(&funcs[0]).unwrap();
        format!("{:?}", simplify_indices(&lowered.body))
    }

    /// A reshape of a (2, 12) buffer read as (2, 3, 4): the index arithmetic cancels; an index
    /// whose division guards a load that may fault is left as written (written with the node
    /// constructor `T.FloorMod`: the `%` operator folds `x % 1` to `0` on reading, as TVM's does).
    #[test]
    fn reshape_indices_cancel_and_faulting_ones_stay() {
        let reshape = r#"@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(2), T.int64(12)), "float32"), B: T.Buffer((T.int64(2), T.int64(3), T.int64(4)), "float32")):
        for i, j, k in T.grid(T.int64(2), T.int64(3), T.int64(4)):
            B[i, j, k] = A[(i * T.int64(12) + j * T.int64(4) + k) // T.int64(12), (i * T.int64(12) + j * T.int64(4) + k) % T.int64(12)]
"#;
        let body = lowered_body(reshape);
        assert!(
            !body.contains("FloorDiv") && !body.contains("FloorMod"),
            "{body}"
        );
        let guarded = r#"@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((T.int64(1),), "float32"), B: T.Buffer((T.int64(1),), "int64")):
        for i in range(T.int64(1)):
            A[T.FloorMod(B[i + T.int64(1)], T.int64(1))] = T.float32(0.0)
"#;
        assert!(lowered_body(guarded).contains("FloorMod"));
    }

    /// A channel shuffle as FuseTIR writes it (reshape, transpose, reshape, over 1 × 6 × 2 × 2
    /// in 2 groups): with the blocks' indices simplified, the last reshape reads the
    /// transpose's buffer with its innermost variable last, so both intermediates inline into
    /// one nest that reads the input at channel `c % 2 · 3 + c // 2`.
    #[test]
    fn a_channel_shuffle_inlines_into_one_nest() {
        let src = r#"@I.ir_module
class Module:
    @T.prim_func
    def f(x: T.Buffer((T.int64(1), T.int64(6), T.int64(2), T.int64(2)), "float32"), y: T.Buffer((T.int64(1), T.int64(6), T.int64(2), T.int64(2)), "float32")):
        T.func_attr({"tirx.noalias": True})
        a = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(3), T.int64(2), T.int64(2)))
        b = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(2), T.int64(2), T.int64(2)))
        for i0, i1, i2, i3, i4 in T.grid(T.int64(1), T.int64(2), T.int64(3), T.int64(2), T.int64(2)):
            with T.sblock("r1"):
                v0, v1, v2, v3, v4 = T.axis.remap("SSSSS", [i0, i1, i2, i3, i4])
                a[v0, v1, v2, v3, v4] = x[((((v0 * T.int64(2) + v1) * T.int64(3) + v2) * T.int64(2) + v3) * T.int64(2) + v4) % T.int64(24) // T.int64(24), ((((v0 * T.int64(2) + v1) * T.int64(3) + v2) * T.int64(2) + v3) * T.int64(2) + v4) % T.int64(24) // T.int64(4), ((((v0 * T.int64(2) + v1) * T.int64(3) + v2) * T.int64(2) + v3) * T.int64(2) + v4) % T.int64(4) // T.int64(2), ((((v0 * T.int64(2) + v1) * T.int64(3) + v2) * T.int64(2) + v3) * T.int64(2) + v4) % T.int64(2)]
        for i0, i1, i2, i3, i4 in T.grid(T.int64(1), T.int64(3), T.int64(2), T.int64(2), T.int64(2)):
            with T.sblock("t"):
                v0, v1, v2, v3, v4 = T.axis.remap("SSSSS", [i0, i1, i2, i3, i4])
                b[v0, v1, v2, v3, v4] = a[v0, v2, v1, v3, v4]
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(6), T.int64(2), T.int64(2)):
            with T.sblock("r2"):
                v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                y[v0, v1, v2, v3] = b[(((v0 * T.int64(6) + v1) * T.int64(2) + v2) * T.int64(2) + v3) % T.int64(24) // T.int64(24), (((v0 * T.int64(6) + v1) * T.int64(2) + v2) * T.int64(2) + v3) % T.int64(24) // T.int64(8), (((v0 * T.int64(6) + v1) * T.int64(2) + v2) * T.int64(2) + v3) % T.int64(8) // T.int64(4), (((v0 * T.int64(6) + v1) * T.int64(2) + v2) * T.int64(2) + v3) % T.int64(4) // T.int64(2), (((v0 * T.int64(6) + v1) * T.int64(2) + v2) * T.int64(2) + v3) % T.int64(2)]
"#;
        let funcs = parse_module_prim_funcs(src).unwrap();
        let unsimplified = crate::transform::inline_elementwise(&funcs[0]);
        let printed = crate::script::print_module_prim_funcs(&[unsimplified]);
        assert!(printed.contains("sblock_alloc_buffer"), "{printed}");
        let f = crate::transform::inline_elementwise(&super::simplify_block_indices(&funcs[0]));
        let printed = crate::script::print_module_prim_funcs(&[f]);
        assert!(!printed.contains("sblock_alloc_buffer"), "{printed}");
        assert!(
            printed
                .contains("x[T.int64(0), v1 % T.int64(2) * T.int64(3) + v1 // T.int64(2), v2, v3]"),
            "{printed}"
        );
    }
}
