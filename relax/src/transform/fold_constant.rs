//! FoldConstant: evaluates at compile time every `call_tir` whose inputs are all constant
//! tensors and whose output has a static shape, running the PrimFunc in the reference TIR
//! interpreter (`tir::interp`), and binds the result as a `Constant` (TVM's
//! `relax.transform.FoldConstant`).
//!
//! As in TVM, a variable is looked through to its constant value only if it is a dataflow
//! variable (only those are guaranteed pure and local), so folding happens in dataflow blocks;
//! the bindings of dataflow variables to constants are then propagated into their uses and
//! dropped. A call that fails in the interpreter (an out-of-bounds access, a division by zero)
//! is left alone so that the error surfaces at run time, where TVM reports it.
//!
//! Invariants: the struct info of every remaining variable is unchanged; only dataflow blocks
//! lose bindings.

use std::collections::HashMap;

use tir::interp::InterpArg;

use crate::Result;
use crate::ir::{
    Binding, BindingBlock, Call, Constant, Expr, ExprKind, Function, IRModule, SeqExpr, StructInfo,
    VarId,
};
use crate::transform::{map_functions, substitute, substitute_binding};

pub fn fold_constant(module: &IRModule) -> Result<IRModule> {
    map_functions(module, |_, f| Ok(fold_function(f, module)))
}

fn fold_function(f: &Function, module: &IRModule) -> Function {
    Function {
        body: fold_seq(&f.body, module),
        ..f.clone()
    }
}

fn fold_seq(s: &SeqExpr, module: &IRModule) -> SeqExpr {
    let mut consts: HashMap<VarId, Expr> = HashMap::new();
    let mut blocks = Vec::new();
    for block in &s.blocks {
        let mut out = Vec::new();
        for b in &block.bindings {
            let b = substitute_binding(b, &consts);
            let b = match b {
                Binding::Var { var, value } => {
                    let value = match value.kind() {
                        ExprKind::Call(c) => fold_call(c, module).unwrap_or(value),
                        ExprKind::If(i) => Expr::new(ExprKind::If(crate::ir::If {
                            cond: i.cond.clone(),
                            then_branch: fold_seq(&i.then_branch, module),
                            else_branch: fold_seq(&i.else_branch, module),
                        })),
                        _ => value,
                    };
                    Binding::Var { var, value }
                }
                other => other,
            };
            if let Binding::Var { var, value } = &b
                && var.is_dataflow()
                && matches!(value.kind(), ExprKind::Constant(_))
            {
                consts.insert(var.id(), value.clone());
                continue;
            }
            out.push(b);
        }
        blocks.push(BindingBlock {
            bindings: out,
            dataflow: block.dataflow,
        });
    }
    SeqExpr {
        blocks,
        body: substitute(&s.body, &consts),
    }
}

/// The constant result of `call_tir(f, (constants...), out_ty)`, if it can be computed.
fn fold_call(c: &Call, module: &IRModule) -> Option<Expr> {
    if c.op() != Some("relax.call_tir") || c.args.len() != 2 {
        return None;
    }
    let ExprKind::GlobalVar(g) = c.args[0].kind() else {
        return None;
    };
    let pf = module.prim_func(g)?;
    let ExprKind::Tuple(args) = c.args[1].kind() else {
        return None;
    };
    let mut inputs = Vec::new();
    for a in args {
        match a.kind() {
            ExprKind::Constant(k) => inputs.push(k.data.clone()),
            _ => return None,
        }
    }
    let out_si = c.ty_args.first()?;
    let StructInfo::Tensor {
        shape: Some(shape),
        dtype: Some(dtype),
        ..
    } = out_si
    else {
        return None;
    };
    let shape: Vec<i64> = shape.iter().map(PrimExpr::as_int).collect::<Option<_>>()?;
    let n: i64 = shape.iter().try_fold(1i64, |acc, &d| acc.checked_mul(d))?;
    let mut in_bytes: Vec<Vec<u8>> = inputs.iter().map(|t| t.to_bytes()).collect();
    let mut out = vec![0u8; usize::try_from(n).ok()?.checked_mul(dtype.bytes())?];
    {
        let mut iargs: Vec<InterpArg<'_>> = Vec::new();
        for (t, bytes) in inputs.iter().zip(in_bytes.iter_mut()) {
            iargs.push(InterpArg::Buffer {
                data: bytes,
                shape: t.shape().to_vec(),
                dtype: tir::DataType::parse(&t.dtype().to_string())?,
            });
        }
        iargs.push(InterpArg::Buffer {
            data: &mut out,
            shape: shape.clone(),
            dtype: *dtype,
        });
        tir::interp::run(pf, &mut iargs).ok()?;
    }
    let vdt: vm::DataType = dtype.to_string().parse().ok()?;
    let data = vm::Tensor::from_bytes(&shape, vdt, &out).ok()?;
    Some(Expr::new(ExprKind::Constant(Constant {
        data,
        struct_info: out_si.clone(),
        metadata_index: None,
    })))
}

use tir::PrimExpr;
