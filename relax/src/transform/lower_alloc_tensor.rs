//! LowerAllocTensor: lowers each `R.builtin.alloc_tensor(shape, dtype, dev, scope)` that memory
//! planning left (outputs of the function, tensors of unplannable size) to its own
//! `R.memory.alloc_storage(R.shape([nbytes]), dev, scope, dtype)` followed by
//! `R.memory.alloc_tensor(storage, 0, shape, dtype)`. `nbytes` is built as TVM builds it, the
//! element size times each dimension in turn with only constant operands folded, so that
//! symbolic sizes get the same shape-heap slots as TVM's.

use tir::{BinaryOp, PrimExpr};

use crate::ir::{Binding, ExprKind, IRModule, StructInfo};
use crate::transform::{dtype_bytes, op_call, prim_i64, rewrite_module};
use crate::{Error, Result};

pub fn lower_alloc_tensor(module: &IRModule) -> Result<IRModule> {
    rewrite_module(module, |b, em| {
        if let Binding::Var { var, value } = &b
            && let Some(call) = value.as_call()
            && call.op() == Some("relax.builtin.alloc_tensor")
        {
            let [shape, dtype, dev, scope] = call.args.as_slice() else {
                return Err(Error::Unsupported(format!(
                    "R.builtin.alloc_tensor with {} arguments in function `{}`, binding `{}`",
                    call.args.len(),
                    em.func,
                    var.name()
                )));
            };
            let (ExprKind::ShapeExpr(dims), ExprKind::DataTypeImm(dt)) =
                (shape.kind(), dtype.kind())
            else {
                return Err(Error::Unsupported(format!(
                    "R.builtin.alloc_tensor without a literal shape and dtype in function `{}`, binding `{}`",
                    em.func,
                    var.name()
                )));
            };
            let mut size = PrimExpr::i64(dtype_bytes(*dt));
            for d in dims {
                size = mul_folding(&size, d);
            }
            let storage = em.emit(
                "storage",
                op_call(
                    "relax.memory.alloc_storage",
                    vec![
                        crate::ir::Expr::shape(vec![size]),
                        dev.clone(),
                        scope.clone(),
                        dtype.clone(),
                    ],
                    vec![],
                ),
                StructInfo::Any,
            );
            em.push(Binding::Var {
                var: var.clone(),
                value: op_call(
                    "relax.memory.alloc_tensor",
                    vec![
                        crate::ir::Expr::var(&storage),
                        prim_i64(0),
                        shape.clone(),
                        dtype.clone(),
                    ],
                    vec![],
                ),
            });
            return Ok(());
        }
        em.push(b);
        Ok(())
    })
}

/// `a * b`, folded when both are constants (TVM's `operator*` on IntImms).
pub(crate) fn mul_folding(a: &PrimExpr, b: &PrimExpr) -> PrimExpr {
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => PrimExpr::i64(x.wrapping_mul(y)),
        _ => PrimExpr::binary(BinaryOp::Mul, a.clone(), b.clone()),
    }
}
