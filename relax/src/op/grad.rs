//! Struct-info inference of the backward operators of `R.grad.*` (`nll_loss_backward`,
//! `max_pool2d_backward`, `avg_pool2d_backward`, `take_backward`), as TVM's
//! `src/relax/op/tensor/grad.cc` infers them: the result is the struct info of the forward
//! input the gradient is taken for (argument 1), whatever the other arguments are. TVM checks
//! nothing more here; the shapes, ranks and dtypes that the computation needs are checked by
//! LegalizeOps (`crate::legalize`), which names the problem.

use super::common::{check_arity, err};
use crate::Result;
use crate::ir::{AttrValue, Attrs, Call, Expr, StructInfo};

/// The struct info of argument 1 (`predictions`, `data`, `x`), after checking the arity.
fn input_struct_info(
    call: &Call,
    args: &[StructInfo],
    min: usize,
    max: usize,
) -> Result<StructInfo> {
    check_arity(call, args, min, max)?;
    args.get(1)
        .cloned()
        .ok_or_else(|| err(call, "missing argument 1"))
}

/// `R.grad.nll_loss_backward(output_grad, predictions, targets[, weights])`: `predictions`.
pub(super) fn infer_nll_loss_backward(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    input_struct_info(call, args, 3, 4)
}

/// `R.grad.{max,avg}_pool2d_backward(output_grad, data)`: `data`.
pub(super) fn infer_pool2d_backward(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    input_struct_info(call, args, 2, 2)
}

/// `R.grad.take_backward(output_grad, x, indices)`: `x`.
pub(super) fn infer_take_backward(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    input_struct_info(call, args, 3, 3)
}

/// What TVM's constructor of the pool backward operators stores: `out_layout` defaults to
/// `layout`. Unlike the forward pools' constructors it leaves `padding` as given (no
/// completion of 1 or 2 values to 4), so neither do we.
pub(super) fn canon_pool2d_backward(_args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    if matches!(attrs.get("out_layout"), None | Some(AttrValue::None))
        && let Some(layout) = attrs.get("layout").and_then(AttrValue::as_str)
    {
        let layout = layout.to_string();
        attrs.set("out_layout", AttrValue::Str(layout));
    }
    Ok(())
}
