//! RewriteDataflowReshape: in dataflow blocks, turns `call_tir` of a PrimFunc that only
//! reshapes its input into `R.reshape(x, shape)` (a view: LowerRuntimeBuiltin makes it
//! `vm.builtin.reshape`, no copy), as TVM's pass of the same name.
//!
//! Detection follows TVM's `HasReshapePattern`: the first parameter is the source buffer and
//! the last the destination; the body is nested loops around one block whose iterators are all
//! data-parallel, reading only the source and writing only the destination, whose body is
//! `dst[...] = src[...]`, and whose row-major flattened store and load indices are equal for
//! every iteration. Equality is proved by `tir::arith` over the loop ranges, or — for constant
//! extents with at most 2^16 iterations, which covers the floor-div/mod forms the simplifier
//! does not normalise — by evaluating both sides at every iteration. Only one tensor argument
//! may be used (FuseTIR may pass unused flattened tuple fields), input and output must have the
//! same dtype and a known output shape. As TVM's corpus output shows, a block output
//! (non-dataflow variable) keeps its copy: only dataflow-variable bindings are rewritten.
//!
//! Invariants: the binding variables and their struct info are unchanged; non-dataflow blocks
//! are untouched.

use std::collections::HashMap;

use tir::arith::Analyzer;
use tir::arith::scalar::Scalar;
use tir::transform::mutator::substitute;
use tir::{
    Buffer, BufferRegion, ExprKind as TExpr, IterVarKind, PrimExpr, PrimFunc, Range, Stmt, StmtKind,
};

use crate::Result;
use crate::ir::{Binding, ExprKind, IRModule};
use crate::transform::{map_functions, op_call};

pub fn rewrite_dataflow_reshape(module: &IRModule) -> Result<IRModule> {
    map_functions(module, |_, f| {
        let mut f = f.clone();
        for block in f.body.blocks.iter_mut().filter(|b| b.dataflow) {
            for b in block.bindings.iter_mut() {
                let Binding::Var { var, value } = b else {
                    continue;
                };
                if !var.is_dataflow() {
                    continue;
                }
                let ExprKind::Call(c) = value.kind() else {
                    continue;
                };
                if c.op() != Some("relax.call_tir") || c.args.len() != 2 {
                    continue;
                }
                let (ExprKind::GlobalVar(g), ExprKind::Tuple(args)) =
                    (c.args[0].kind(), c.args[1].kind())
                else {
                    continue;
                };
                let Some(pf) = module.prim_func(g) else {
                    continue;
                };
                let used = used_tensor_args(pf, args.len());
                let [k] = used.as_slice() else { continue };
                let Some(shape) = c.ty_args.first().and_then(|s| s.tensor_shape()) else {
                    continue;
                };
                let arg = &args[*k];
                let in_dtype = crate::transform::struct_info_of(arg, module).tensor_dtype();
                if in_dtype.is_none()
                    || in_dtype != c.ty_args.first().and_then(|s| s.tensor_dtype())
                    || !has_reshape_pattern(pf)
                {
                    continue;
                }
                let new = op_call(
                    "relax.reshape",
                    vec![arg.clone(), crate::ir::Expr::shape(shape.to_vec())],
                    Vec::new(),
                );
                *b = Binding::Var {
                    var: var.clone(),
                    value: new,
                };
            }
        }
        Ok(f)
    })
}

/// The indices of the input parameters (among the first `n_args`) whose buffers the body
/// reads.
fn used_tensor_args(pf: &PrimFunc, n_args: usize) -> Vec<usize> {
    let mut used = Vec::new();
    for (i, p) in pf.params.iter().take(n_args).enumerate() {
        let Some(b) = pf.buffer_of(p) else { continue };
        let mut hit = false;
        pf.body.visit(&mut |s| {
            for e in s.exprs() {
                e.visit(&mut |x| {
                    if let TExpr::BufferLoad { buffer, .. } = x.kind() {
                        hit |= buffer == b;
                    }
                });
            }
        });
        if hit {
            used.push(i);
        }
    }
    used
}

/// TVM's `HasReshapePattern`.
pub fn has_reshape_pattern(pf: &PrimFunc) -> bool {
    if pf.params.len() < 2 {
        return false;
    }
    let (Some(src), Some(dst)) = (
        pf.params.first().and_then(|p| pf.buffer_of(p)),
        pf.params.last().and_then(|p| pf.buffer_of(p)),
    ) else {
        return false;
    };
    let StmtKind::SBlockRealize(root) = pf.body.kind() else {
        return false;
    };
    let mut loops = Vec::new();
    detect(&root.block.body, src, dst, &mut loops)
}

fn detect(s: &Stmt, src: &Buffer, dst: &Buffer, loops: &mut Vec<(tir::Var, Range)>) -> bool {
    match s.kind() {
        StmtKind::For(f) => {
            if !matches!(f.body.kind(), StmtKind::For(_) | StmtKind::SBlockRealize(_)) {
                return false;
            }
            loops.push((
                f.loop_var.clone(),
                Range::new(f.min.clone(), f.extent.clone()),
            ));
            detect(&f.body, src, dst, loops)
        }
        StmtKind::SBlockRealize(r) => {
            let b = &r.block;
            if b.iter_vars.iter().any(|iv| iv.kind != IterVarKind::Spatial)
                || r.iter_values.len() != b.iter_vars.len()
            {
                return false;
            }
            if matches!(b.body.kind(), StmtKind::For(_)) {
                return b.alloc_buffers.is_empty() && detect(&b.body, src, dst, loops);
            }
            let only =
                |regions: &[BufferRegion], buf: &Buffer| regions.iter().all(|r| &r.buffer == buf);
            if !only(&b.reads, src) || !only(&b.writes, dst) {
                return false;
            }
            let StmtKind::BufferStore {
                buffer,
                value,
                indices,
            } = b.body.kind()
            else {
                return false;
            };
            let TExpr::BufferLoad {
                buffer: lb,
                indices: li,
            } = value.kind()
            else {
                return false;
            };
            if buffer != dst || lb != src {
                return false;
            }
            let (Some(src_idx), Some(dst_idx)) = (flat(src, li), flat(dst, indices)) else {
                return false;
            };
            let map: HashMap<tir::VarId, PrimExpr> = b
                .iter_vars
                .iter()
                .zip(&r.iter_values)
                .map(|(iv, v)| (iv.var.id(), v.clone()))
                .collect();
            let (src_idx, dst_idx) = (substitute(&src_idx, &map), substitute(&dst_idx, &map));
            prove_equal(&src_idx, &dst_idx, loops)
        }
        _ => false,
    }
}

fn flat(b: &Buffer, indices: &[PrimExpr]) -> Option<PrimExpr> {
    if indices.len() != b.shape.len() {
        return None;
    }
    let mut idx = PrimExpr::i64(0);
    for (d, i) in b.shape.iter().zip(indices) {
        idx = tir::transform::add(tir::transform::mul(idx, d.clone()), i.clone());
    }
    Some(idx)
}

/// The most iterations [`prove_equal`] evaluates when the analyzer cannot decide.
const MAX_EXHAUSTIVE: i64 = 1 << 16;

fn prove_equal(a: &PrimExpr, b: &PrimExpr, loops: &[(tir::Var, Range)]) -> bool {
    let mut ana = Analyzer::new();
    for (v, r) in loops {
        ana.bind(v, r.clone());
    }
    let (a, b) = (tir::transform::to_i64(a), tir::transform::to_i64(b));
    if ana.prove_equal(&a, &b) {
        return true;
    }
    let mut extents = Vec::new();
    let mut total: i64 = 1;
    for (_, r) in loops {
        let (Some(min), Some(ext)) = (r.min.as_int(), r.extent.as_int()) else {
            return false;
        };
        match total.checked_mul(ext.max(0)) {
            Some(t) if t <= MAX_EXHAUSTIVE => total = t,
            _ => return false,
        }
        extents.push((min, ext.max(0)));
    }
    for mut k in 0..total {
        let mut bindings = Vec::with_capacity(loops.len());
        for ((v, _), &(min, ext)) in loops.iter().zip(&extents).rev() {
            bindings.push((v.clone(), Scalar::Int(min + k % ext)));
            k /= ext;
        }
        match (
            tir::interp::eval_expr(&a, &bindings),
            tir::interp::eval_expr(&b, &bindings),
        ) {
            (Ok(Scalar::Int(x)), Ok(Scalar::Int(y))) if x == y => {}
            _ => return false,
        }
    }
    true
}
