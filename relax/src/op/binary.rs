//! Elementwise binary operators with NumPy broadcasting (`R.add`, `R.less`, `R.where`, ...).
//!
//! Broadcasting follows TVM's `InferBinaryBroadcastShape`: dimensions are aligned from the
//! right; a constant 1 takes the other side; provably equal dimensions are kept; two different
//! constants are an error; anything undecidable (`n` against `m`) leaves the result's shape
//! unknown with its rank known.

use tir::{DataType, PrimExpr};

use crate::Result;
use crate::ir::{Call, StructInfo};
use crate::op::common::{TensorInfo, check_arity, err, shape_str, tensor_arg, tensor_or_prim_arg};
use crate::struct_info_ops::{const_value, prove_equal};

/// The broadcast of two shapes: `Ok(None)` when it cannot be decided statically.
pub(crate) fn broadcast_shapes(
    call: &Call,
    a: &[PrimExpr],
    b: &[PrimExpr],
) -> Result<Option<Vec<PrimExpr>>> {
    let n = a.len().max(b.len());
    let mut out = Vec::with_capacity(n);
    for i in 1..=n {
        let d = if i > a.len() {
            b[b.len() - i].clone()
        } else if i > b.len() {
            a[a.len() - i].clone()
        } else {
            let (x, y) = (&a[a.len() - i], &b[b.len() - i]);
            let (cx, cy) = (const_value(x), const_value(y));
            if cx == Some(1) {
                y.clone()
            } else if cy == Some(1) || prove_equal(x, y) {
                x.clone()
            } else if cx.is_some() && cy.is_some() {
                return Err(err(
                    call,
                    format!(
                        "cannot broadcast {} with {} at dimension {}",
                        shape_str(a),
                        shape_str(b),
                        n - i
                    ),
                ));
            } else {
                return Ok(None);
            }
        };
        out.push(d);
    }
    out.reverse();
    Ok(Some(out))
}

/// The common dtype of two operands: unknown if either is; an error if they differ.
pub(crate) fn common_dtype(
    call: &Call,
    a: Option<DataType>,
    b: Option<DataType>,
) -> Result<Option<DataType>> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => Err(err(
            call,
            format!("operands must have the same dtype, got {x} and {y}"),
        )),
        (Some(x), Some(_)) => Ok(Some(x)),
        _ => Ok(None),
    }
}

/// The broadcast result of tensors `ts` with dtype `dtype`.
fn broadcast_result(
    call: &Call,
    ts: &[&TensorInfo],
    dtype: Option<DataType>,
) -> Result<StructInfo> {
    let vdevice = ts.iter().find_map(|t| t.vdevice.clone());
    let ndim = if ts.iter().all(|t| t.ndim >= 0) {
        ts.iter().map(|t| t.ndim).max().unwrap_or(0)
    } else {
        -1
    };
    let mut shape: Option<Vec<PrimExpr>> = ts.first().and_then(|t| t.shape.clone());
    for t in &ts[1..] {
        shape = match (&shape, &t.shape) {
            (Some(a), Some(b)) => broadcast_shapes(call, a, b)?,
            _ => None,
        };
    }
    Ok(match shape {
        Some(s) => StructInfo::Tensor {
            ndim: s.len() as i64,
            shape: Some(s),
            dtype,
            vdevice,
        },
        None => StructInfo::Tensor {
            shape: None,
            dtype,
            ndim,
            vdevice,
        },
    })
}

fn infer_broadcast(call: &Call, args: &[StructInfo], cmp: bool) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    // Two prim values give a prim value.
    if let (StructInfo::Prim { dtype: a, .. }, StructInfo::Prim { dtype: b, .. }) =
        (&args[0], &args[1])
    {
        let d = common_dtype(call, Some(*a), Some(*b))?.unwrap_or(*a);
        return Ok(StructInfo::prim(if cmp { DataType::BOOL } else { d }));
    }
    let x1 = tensor_or_prim_arg(call, args, 0)?;
    let x2 = tensor_or_prim_arg(call, args, 1)?;
    let dtype = common_dtype(call, x1.dtype, x2.dtype)?;
    let dtype = if cmp { Some(DataType::BOOL) } else { dtype };
    broadcast_result(call, &[&x1, &x2], dtype)
}

/// Arithmetic, logical and bitwise binary operators: the operands' dtype.
pub(super) fn infer_arith(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    infer_broadcast(call, args, false)
}

/// Comparisons: dtype `bool`.
pub(super) fn infer_cmp(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    infer_broadcast(call, args, true)
}

/// `R.where(condition, x1, x2)`: the broadcast of all three, with the branches' dtype.
pub(super) fn infer_where(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let c = tensor_arg(call, args, 0)?;
    if let Some(d) = c.dtype
        && !d.is_bool()
    {
        return Err(err(
            call,
            format!("the condition must be a bool tensor, got dtype {d}"),
        ));
    }
    let x1 = tensor_or_prim_arg(call, args, 1)?;
    let x2 = tensor_or_prim_arg(call, args, 2)?;
    let dtype = common_dtype(call, x1.dtype, x2.dtype)?;
    broadcast_result(call, &[&c, &x1, &x2], dtype)
}

/// `R.ewise_fma(x1, x2, x3)`: three tensors of one shape.
pub(super) fn infer_fma(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let ts = [
        tensor_arg(call, args, 0)?,
        tensor_arg(call, args, 1)?,
        tensor_arg(call, args, 2)?,
    ];
    let d = common_dtype(call, ts[0].dtype, ts[1].dtype)?;
    let d = common_dtype(call, d, ts[2].dtype)?;
    for t in &ts[1..] {
        if let (Some(a), Some(b)) = (&ts[0].shape, &t.shape)
            && (a.len() != b.len()
                || a.iter().zip(b).any(|(x, y)| {
                    matches!((const_value(x), const_value(y)), (Some(p), Some(q)) if p != q)
                }))
        {
            return Err(err(
                call,
                format!("operands must have the same shape, got {} and {}", shape_str(a), shape_str(b)),
            ));
        }
    }
    Ok(ts[0].result(ts[0].shape.clone(), ts[0].ndim, d))
}

/// `R.masked_fill(x, mask, value)`: the shape and dtype of `x`.
pub(super) fn infer_masked_fill(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let x = tensor_arg(call, args, 0)?;
    tensor_arg(call, args, 1)?;
    Ok(x.to_struct_info())
}
