//! LowerRuntimeBuiltin: maps the generic memory and runtime operators to the VM's forms —
//! `R.memory.alloc_storage` → `R.vm.alloc_storage(size, dev, "uint8", scope)`,
//! `R.memory.alloc_tensor` → `R.vm.alloc_tensor(storage, offset, shape, dtype, 0)`,
//! `R.memory.kill_*` → `R.vm.kill_object`, `R.reshape` / `R.shape_of` / `R.make_closure` /
//! `R.vm.call_tir_dyn` → packed calls of `vm.builtin.*`, `R.print` / `R.assert_op` → packed
//! calls of `relax.run.print` / `relax.run.assert_op`, `R.invoke_closure` →
//! `call_builtin_with_ctx("vm.builtin.invoke_closure", ...)` (whose result is `R.Any`, as in
//! TVM, so that VMShapeLower checks it where a typed value is needed).
//!
//! Invariant afterwards: only operators VMCodeGen knows remain; a leftover
//! `R.builtin.alloc_tensor` or any other operator is an error naming it.

use tir::DataType;

use crate::ir::{Binding, Call, Callee, Expr, ExprKind, IRModule, StructInfo, Var};
use crate::transform::{
    call_packed, dtype_imm, op_call, prim_i64, rewrite_module, str_imm, struct_info_of,
};
use crate::{Error, Result};

pub fn lower_runtime_builtin(module: &IRModule) -> Result<IRModule> {
    rewrite_module(module, |b, em| {
        let Binding::Var { var, value } = &b else {
            em.push(b);
            return Ok(());
        };
        let Some(call) = value.as_call() else {
            em.push(b);
            return Ok(());
        };
        let Some(op) = call.op() else {
            em.push(b);
            return Ok(());
        };
        let func_name = em.func.clone();
        let where_ = || format!("in function `{func_name}`, binding `{}`", var.name());
        let arg = |i: usize| -> Result<Expr> {
            call.args.get(i).cloned().ok_or_else(|| {
                Error::Unsupported(format!("{op} with too few arguments {}", where_()))
            })
        };
        let tuple_fields = |e: &Expr| -> Result<Vec<Expr>> {
            match e.kind() {
                ExprKind::Tuple(items) => Ok(items.clone()),
                _ => Err(Error::Unsupported(format!(
                    "{op} whose arguments are not a tuple literal {}",
                    where_()
                ))),
            }
        };
        let (new_value, new_si): (Expr, Option<StructInfo>) = match op {
            "relax.memory.alloc_storage" => (
                op_call(
                    "relax.vm.alloc_storage",
                    vec![arg(0)?, arg(1)?, dtype_imm(DataType::UINT8), arg(2)?],
                    vec![],
                ),
                None,
            ),
            "relax.memory.alloc_tensor" => (
                op_call(
                    "relax.vm.alloc_tensor",
                    vec![arg(0)?, arg(1)?, arg(2)?, arg(3)?, prim_i64(0)],
                    vec![],
                ),
                None,
            ),
            "relax.memory.kill_storage" | "relax.memory.kill_tensor" => {
                (op_call("relax.vm.kill_object", vec![arg(0)?], vec![]), None)
            }
            "relax.reshape" => (
                call_packed(
                    "vm.builtin.reshape",
                    vec![arg(0)?, arg(1)?],
                    var.struct_info().clone(),
                ),
                None,
            ),
            "relax.shape_of" => (
                call_packed(
                    "vm.builtin.shape_of",
                    vec![arg(0)?],
                    var.struct_info().clone(),
                ),
                None,
            ),
            "relax.tensor_to_shape" => (
                call_packed(
                    "vm.builtin.tensor_to_shape",
                    vec![arg(0)?],
                    var.struct_info().clone(),
                ),
                None,
            ),
            "relax.make_closure" => {
                let mut args = vec![arg(0)?];
                args.extend(tuple_fields(&arg(1)?)?);
                (
                    call_packed("vm.builtin.make_closure", args, StructInfo::Any),
                    Some(StructInfo::Any),
                )
            }
            "relax.invoke_closure" => {
                let mut fields = vec![arg(0)?];
                fields.extend(tuple_fields(&arg(1)?)?);
                (
                    op_call(
                        "relax.call_builtin_with_ctx",
                        vec![
                            Expr::extern_func("vm.builtin.invoke_closure"),
                            Expr::tuple(fields),
                        ],
                        vec![StructInfo::Any],
                    ),
                    Some(StructInfo::Any),
                )
            }
            "relax.vm.call_tir_dyn" => {
                let mut args = vec![arg(0)?];
                args.extend(tuple_fields(&arg(1)?)?);
                (
                    Expr::new(ExprKind::Call(Call {
                        callee: Callee::Extern("vm.builtin.call_tir_dyn".into()),
                        args,
                        attrs: Default::default(),
                        ty_args: vec![StructInfo::void()],
                    })),
                    None,
                )
            }
            // TVM's `LowerBuiltinView`: left-out arguments (void) become the data's shape and
            // dtype and offset 0; a view that changes nothing is the data itself.
            "relax.memory.view" => {
                let data = arg(0)?;
                // TVM's Python wrapper writes a left-out dtype as a variable bound to
                // `R.null_value()`: unspecified too.
                let is_null = |e: &Expr| {
                    let null =
                        |v: &Expr| v.as_call().and_then(|c| c.op()) == Some("relax.null_value");
                    match e.kind() {
                        ExprKind::Var(v) => em.out.iter().any(
                            |b| matches!(b, Binding::Var { var, value } if var == v && null(value)),
                        ),
                        _ => null(e),
                    }
                };
                let given = |i: usize| {
                    call.args
                        .get(i)
                        .filter(|e| !is_void(e) && !is_null(e))
                        .cloned()
                };
                let (shape, dtype, offset) = (given(1), given(2), given(3));
                if shape.is_none() && dtype.is_none() && offset.is_none() {
                    (data, None)
                } else {
                    let StructInfo::Tensor {
                        shape: data_shape,
                        dtype: data_dtype,
                        ..
                    } = struct_info_of(&data, module)
                    else {
                        return Err(Error::Unsupported(format!(
                            "R.memory.view of a value that is not a tensor {}",
                            where_()
                        )));
                    };
                    let shape = match (shape, data_shape) {
                        (Some(s), _) => s,
                        (None, Some(dims)) => Expr::shape(dims.clone()),
                        (None, None) => {
                            return Err(Error::Unsupported(format!(
                                "R.memory.view without a shape of a tensor of unknown shape {}",
                                where_()
                            )));
                        }
                    };
                    let dtype = match (dtype, data_dtype) {
                        (Some(d), _) => d,
                        (None, Some(d)) => dtype_imm(d),
                        (None, None) => {
                            return Err(Error::Unsupported(format!(
                                "R.memory.view without a dtype of a tensor of unknown dtype {}",
                                where_()
                            )));
                        }
                    };
                    (
                        call_packed(
                            "runtime.TVMTensorCreateView",
                            vec![data, shape, dtype, offset.unwrap_or_else(|| prim_i64(0))],
                            var.struct_info().clone(),
                        ),
                        None,
                    )
                }
            }
            "relax.memory.ensure_zero_offset" => (
                call_packed(
                    "vm.builtin.ensure_zero_offset",
                    vec![arg(0)?],
                    var.struct_info().clone(),
                ),
                None,
            ),
            // Every tensor lives on the host: moving one to a virtual device, or hinting
            // where it should be, leaves it as it is (TVM copies with `vm.builtin.to_device`).
            "relax.to_vdevice" | "relax.hint_on_device" => (arg(0)?, None),
            "relax.builtin.alloc_tensor" => {
                return Err(Error::Unsupported(format!(
                    "R.builtin.alloc_tensor left after memory lowering {}",
                    where_()
                )));
            }
            "relax.null_value"
            | "relax.call_builtin_with_ctx"
            | "relax.vm.alloc_storage"
            | "relax.vm.alloc_tensor"
            | "relax.vm.kill_object" => {
                em.push(b);
                return Ok(());
            }
            // As TVM's codegen calls them (the ops' `FCallPacked`): the format string first
            // for print, after the condition for assert_op, then the values.
            "relax.print" | "relax.assert_op" => {
                let format = call
                    .attrs
                    .get("format")
                    .and_then(|f| f.as_str())
                    .unwrap_or("");
                let mut args = call.args.clone();
                let at = usize::from(op == "relax.assert_op").min(args.len());
                args.insert(at, str_imm(format));
                let name = if op == "relax.print" {
                    "relax.run.print"
                } else {
                    "relax.run.assert_op"
                };
                (call_packed(name, args, StructInfo::void()), None)
            }
            other => {
                return Err(Error::Unsupported(format!(
                    "the operator `{other}` reached the VM lowering (it must be legalized first) {}",
                    where_()
                )));
            }
        };
        match new_si {
            Some(si) if !matches!(var.struct_info(), StructInfo::Any) => {
                let new_var = Var::new(var.name(), si);
                em.replace(var, Expr::var(&new_var));
                em.push(Binding::Var {
                    var: new_var,
                    value: new_value,
                });
            }
            _ => em.push(Binding::Var {
                var: var.clone(),
                value: new_value,
            }),
        }
        Ok(())
    })
}

/// Whether `e` is the void value (`R.tuple()`) that stands for a left-out argument.
fn is_void(e: &Expr) -> bool {
    matches!(e.kind(), ExprKind::Tuple(items) if items.is_empty())
}
