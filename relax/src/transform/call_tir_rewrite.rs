//! CallTIRRewrite: makes `R.call_tir` / `R.call_tir_inplace` / `R.call_dps_packed`
//! destination-passing. Each output tensor gets `R.builtin.alloc_tensor(shape, dtype, 0,
//! "global")` (an in-place output reuses its input instead), then the callee is called with the
//! inputs followed by the outputs (and the `tir_vars` shape, through `vm.call_tir_dyn`), and the
//! bound variable becomes the output (or a tuple of the outputs).
//!
//! Invariant afterwards: no `call_tir`-family call remains; every output shape is static in the
//! IR (possibly symbolic), which is what memory planning needs.

use crate::ir::{AttrValue, Binding, Callee, Expr, ExprKind, IRModule, StructInfo};
use crate::transform::{dtype_imm, op_call, prim_i64, rewrite_module, str_imm};
use crate::{Error, Result};

pub fn call_tir_rewrite(module: &IRModule) -> Result<IRModule> {
    rewrite_module(module, |b, em| {
        let Binding::Var { var, value } = &b else {
            em.push(b);
            return Ok(());
        };
        let Some(call) = value.as_call() else {
            em.push(b);
            return Ok(());
        };
        let op = call.op().unwrap_or("");
        // `call_tir_with_grad` names the gradient's TE function for the Gradient pass only:
        // at run time it is a `call_tir`.
        if !matches!(
            op,
            "relax.call_tir"
                | "relax.call_tir_inplace"
                | "relax.call_tir_with_grad"
                | "relax.call_dps_packed"
        ) {
            em.push(b);
            return Ok(());
        }
        let func_name = em.func.clone();
        let where_ = || format!("in function `{func_name}`, binding `{}`", var.name());
        let (Some(callee), Some(args)) = (call.args.first(), call.args.get(1)) else {
            return Err(Error::Unsupported(format!(
                "{op} without callee and arguments {}",
                where_()
            )));
        };
        let inputs: Vec<Expr> = match args.kind() {
            ExprKind::Tuple(items) => items.clone(),
            _ => vec![args.clone()],
        };
        let out_si = call.ty_args.first().cloned().unwrap_or(StructInfo::Any);
        let (outs_si, is_tuple) = match &out_si {
            StructInfo::Tuple(items) => (items.clone(), true),
            other => (vec![other.clone()], false),
        };
        let inplace: Vec<i64> = match call.attrs.get("inplace_indices") {
            Some(AttrValue::List(items)) => items.iter().filter_map(AttrValue::as_int).collect(),
            Some(v) => v.as_int().into_iter().collect(),
            None => Vec::new(),
        };
        let mut outs = Vec::with_capacity(outs_si.len());
        // The outputs the callee takes as parameters after the inputs: those not written in
        // place (an in-place output is its input, passed once, as TVM's CallTIRRewrite does).
        let mut allocated = Vec::with_capacity(outs_si.len());
        for (i, si) in outs_si.iter().enumerate() {
            if let Some(&idx) = inplace.get(i)
                && idx >= 0
            {
                let input = inputs.get(idx as usize).cloned().ok_or_else(|| {
                    Error::Unsupported(format!("in-place index {idx} out of range {}", where_()))
                })?;
                outs.push(input);
                continue;
            }
            // An output annotated without dtype (`out_sinfo=R.Tensor((4, 4))`, as TVM's tests
            // write) has the dtype of the callee's output buffer.
            let callee_dtype = || {
                let ExprKind::GlobalVar(g) = callee.kind() else {
                    return None;
                };
                let pf = module.prim_func(g)?;
                let param = pf.params.get(inputs.len() + allocated.len())?;
                Some(pf.buffer_of(param)?.dtype)
            };
            let (Some(shape), Some(dtype)) =
                (si.tensor_shape(), si.tensor_dtype().or_else(callee_dtype))
            else {
                return Err(Error::Unsupported(format!(
                    "{op} with an output of unknown shape or dtype ({}) {}",
                    crate::struct_info_ops::describe(si),
                    where_()
                )));
            };
            let alloc = op_call(
                "relax.builtin.alloc_tensor",
                vec![
                    Expr::shape(shape.to_vec()),
                    dtype_imm(dtype),
                    prim_i64(0),
                    str_imm("global"),
                ],
                vec![],
            );
            let v = em.emit("alloc", alloc, StructInfo::tensor(shape.to_vec(), dtype));
            outs.push(Expr::var(&v));
            allocated.push(Expr::var(&v));
        }
        let mut call_args = inputs;
        call_args.extend(allocated);
        let new_call = if let Some(tir_vars) = call.args.get(2) {
            call_args.push(tir_vars.clone());
            op_call(
                "relax.vm.call_tir_dyn",
                vec![callee.clone(), Expr::tuple(call_args)],
                vec![],
            )
        } else {
            let callee = match callee.kind() {
                ExprKind::GlobalVar(g) => Callee::Global(g.clone()),
                ExprKind::ExternFunc(f) => Callee::Extern(f.global_symbol.clone()),
                ExprKind::StringImm(f) => Callee::Extern(f.clone()),
                _ => Callee::Expr(callee.clone()),
            };
            Expr::call(callee, call_args, Default::default(), vec![])
        };
        em.emit_void(new_call);
        if is_tuple {
            em.push(Binding::Var {
                var: var.clone(),
                value: Expr::tuple(outs),
            });
        } else if let Some(out) = outs.into_iter().next() {
            em.replace(var, out);
        }
        Ok(())
    })
}
