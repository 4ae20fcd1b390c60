//! `FlattenBuffer`: every multi-dimensional buffer access becomes a one-dimensional access of a
//! flat view of the same memory.
//!
//! `B[i, j, k]` of a buffer with shape `(n0, n1, n2)`, no explicit strides and element offset
//! `o` becomes `B_flat[o + (i * n1 + j) * n2 + k]` (row-major), or `o + i*s0 + j*s1 + k*s2` with
//! explicit strides. Indices are computed in `int64`. The flat view keeps the buffer's data
//! variable, so code generation needs one pointer per data variable; its single dimension is the
//! number of addressable elements, which is what a bounds check compares against.
//! `Allocate` extents shrink to that one dimension too.

use std::collections::HashMap;

use crate::ir::{
    BinaryOp, Buffer, BufferNode, CmpOp, DataType, ExprKind, PrimExpr, Stmt, StmtKind, Var, VarId,
};
use crate::transform::has_load;
use crate::transform::mutator::{Mutator, substitute, walk_stmt};

/// `e` as an `int64` expression (constants re-typed, other types cast).
pub fn to_i64(e: &PrimExpr) -> PrimExpr {
    if e.dtype() == DataType::INT64 {
        return e.clone();
    }
    match e.kind() {
        ExprKind::IntImm { value, .. } => PrimExpr::i64(*value),
        _ => PrimExpr::cast(DataType::INT64, e.clone()),
    }
}

/// `a + b` with the obvious constant folding.
pub fn add(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    match (a.as_int(), b.as_int()) {
        (Some(0), _) => b,
        (_, Some(0)) => a,
        (Some(x), Some(y)) if x.checked_add(y).is_some() => PrimExpr::i64(x + y),
        _ => PrimExpr::binary(BinaryOp::Add, a, b),
    }
}

/// `a * b` with the obvious constant folding.
pub fn mul(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    match (a.as_int(), b.as_int()) {
        (Some(1), _) => b,
        (_, Some(1)) => a,
        (Some(0), _) | (_, Some(0)) => PrimExpr::i64(0),
        (Some(x), Some(y)) if x.checked_mul(y).is_some() => PrimExpr::i64(x * y),
        _ => PrimExpr::binary(BinaryOp::Mul, a, b),
    }
}

/// The flat element count of `shape` (`int64`).
pub fn numel(shape: &[PrimExpr]) -> PrimExpr {
    shape
        .iter()
        .fold(PrimExpr::i64(1), |acc, d| mul(acc, to_i64(d)))
}

struct FlatView {
    flat: Buffer,
    strides: Vec<PrimExpr>,
    elem_offset: PrimExpr,
}

/// The flattening pass. Element offsets that are variables bound to a constant (function
/// parameters' `elem_offset`, which the kernel ABI fixes at 0) are folded through `bound`.
pub struct Flatten<'a> {
    views: HashMap<usize, FlatView>,
    bound: &'a HashMap<VarId, PrimExpr>,
}

impl<'a> Flatten<'a> {
    /// A pass that replaces the variables of `bound` in offsets and strides.
    pub fn new(bound: &'a HashMap<VarId, PrimExpr>) -> Flatten<'a> {
        Flatten {
            views: HashMap::new(),
            bound,
        }
    }

    /// The flat view of `b`, created on first use.
    pub fn flat(&mut self, b: &Buffer) -> Buffer {
        self.view(b).flat.clone()
    }

    fn view(&mut self, b: &Buffer) -> &FlatView {
        let bound = self.bound;
        self.views.entry(b.identity()).or_insert_with(|| {
            let shape: Vec<PrimExpr> = b
                .shape
                .iter()
                .map(|d| substitute(&to_i64(d), bound))
                .collect();
            let strides: Vec<PrimExpr> = if b.strides.len() == shape.len() {
                b.strides
                    .iter()
                    .map(|s| substitute(&to_i64(s), bound))
                    .collect()
            } else {
                let mut st = vec![PrimExpr::i64(1); shape.len()];
                for i in (0..shape.len().saturating_sub(1)).rev() {
                    st[i] = mul(st[i + 1].clone(), shape[i + 1].clone());
                }
                st
            };
            let elem_offset = substitute(&to_i64(&b.elem_offset), bound);
            // Elements reachable: offset + 1 + Σ (n_i - 1) * s_i, or 0 if any n_i is 0. For
            // compact row-major buffers that is offset + Π n_i, which is what we use then.
            let extent = if b.strides.len() == shape.len() && !shape.is_empty() {
                let mut last = PrimExpr::i64(1);
                for (n, s) in shape.iter().zip(&strides) {
                    let n1 = PrimExpr::binary(BinaryOp::Sub, n.clone(), PrimExpr::i64(1));
                    last = add(last, mul(n1, s.clone()));
                }
                add(elem_offset.clone(), last)
            } else {
                add(elem_offset.clone(), numel(&shape))
            };
            let flat = Buffer::new(BufferNode {
                name: b.name.clone(),
                data: b.data.clone(),
                dtype: b.dtype,
                shape: vec![extent],
                strides: Vec::new(),
                elem_offset: PrimExpr::i64(0),
                scope: b.scope.clone(),
                data_alignment: b.data_alignment,
                offset_factor: b.offset_factor,
            });
            FlatView {
                flat,
                strides,
                elem_offset,
            }
        })
    }
}

impl Mutator for Flatten<'_> {
    /// An index read from memory (a gather's, a scatter's) may lie outside its dimension while
    /// the flat index stays inside the buffer: `x[0, 4]` of a 3×4 `x` is `x[1, 0]`. Such an
    /// index is checked against its dimension here; out of range, the flat index becomes one
    /// outside the buffer (the index itself if negative, else past the end by as much as it is
    /// past its dimension), which code generation's bounds check rejects.
    ///
    /// The check reads the index five times, so the index is bound once to a fresh variable
    /// (`T.Let`) and the check reads the variable. **Bound:** the flat access is the original
    /// indices, each appearing once, plus a constant number of nodes per dimension
    /// (`O(dims)` and the buffer's shape), so flattening grows an expression tree linearly.
    /// Reading the index itself five times instead made the tree grow by a factor of six per
    /// level of nested gathers (`A[0, A[0, A[0, …]]]`): every pass walking the tree and the
    /// translator, which emits a tree node by node, took time exponential in the nesting
    /// depth (a fuzzed kernel of depth 6 gave Cranelift a function of a million
    /// instructions). The checked indices are evaluated in dimension order, before the rest of
    /// the flat index, as before.
    fn access(&mut self, buffer: &Buffer, indices: Vec<PrimExpr>) -> (Buffer, Vec<PrimExpr>) {
        let bound = self.bound;
        let view = self.view(buffer);
        let mut index = view.elem_offset.clone();
        // Per checked dimension: its variable, the index (`int64`) and the dimension's extent.
        let mut checked: Vec<(Var, PrimExpr, PrimExpr)> = Vec::new();
        for (d, (i, s)) in indices.iter().zip(&view.strides).enumerate() {
            let gather = indices.len() > 1 && i.dtype().lanes == 1 && has_load(i);
            let i = to_i64(i);
            let term = if gather {
                let v = Var::new(format!("{}_i{d}", buffer.name), DataType::INT64);
                let n = substitute(&to_i64(&buffer.shape[d]), bound);
                checked.push((v.clone(), i, n));
                PrimExpr::from(&v)
            } else {
                i
            };
            // A vector index (a `Ramp`) keeps its lanes: scale the stride, not the lanes.
            index = add(index, mul(term, s.clone()));
        }
        let extent = view.flat.shape[0].clone();
        for (v, value, n) in checked.into_iter().rev() {
            let i = PrimExpr::from(&v);
            let inside = PrimExpr::new(ExprKind::And(
                PrimExpr::cmp(CmpOp::Ge, i.clone(), PrimExpr::i64(0)),
                PrimExpr::cmp(CmpOp::Lt, i.clone(), n.clone()),
            ));
            let past_end = add(
                extent.clone(),
                PrimExpr::binary(BinaryOp::Sub, i.clone(), n),
            );
            let outside = PrimExpr::new(ExprKind::Select {
                cond: PrimExpr::cmp(CmpOp::Lt, i.clone(), PrimExpr::i64(0)),
                true_value: i,
                false_value: past_end,
            });
            index = PrimExpr::new(ExprKind::Let {
                var: v,
                value,
                body: PrimExpr::new(ExprKind::Select {
                    cond: inside,
                    true_value: index,
                    false_value: outside,
                }),
            });
        }
        (view.flat.clone(), vec![index])
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::Allocate {
                buffer_var,
                dtype,
                extents,
                scope,
                condition,
                body,
            } => Stmt::new(StmtKind::Allocate {
                buffer_var: buffer_var.clone(),
                dtype: *dtype,
                extents: vec![numel(extents)],
                scope: scope.clone(),
                condition: self.expr(condition),
                body: self.stmt(body),
            }),
            StmtKind::DeclBuffer { buffer, body } => {
                let flat = self.flat(buffer);
                Stmt::new(StmtKind::DeclBuffer {
                    buffer: flat,
                    body: self.stmt(body),
                })
            }
            _ => walk_stmt(self, s),
        }
    }
}
