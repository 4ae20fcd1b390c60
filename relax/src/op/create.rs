//! Creation operators: `R.full`, `R.zeros`, `R.ones`, the `*_like` forms, `R.eye`,
//! `R.arange`, `R.tril`/`R.triu`.

use tir::{DataType, ExprKind as TirExpr, PrimExpr};

use crate::Result;
use crate::ir::{AttrValue, Attrs, Call, Expr, ExprKind, StructInfo};
use crate::op::common::{
    TensorInfo, add, attr_opt_dtype, check_arity, dim, err, floordiv, prim_arg, prim_value_of,
    shape_arg, sub, tensor_arg,
};
use crate::struct_info_ops::const_value;

fn new_tensor(values: Option<Vec<PrimExpr>>, ndim: i64, dtype: Option<DataType>) -> StructInfo {
    let t = TensorInfo {
        shape: None,
        dtype,
        ndim,
        vdevice: None,
    };
    t.result(values, ndim, dtype)
}

/// `R.full(shape, fill_value, dtype)`: dtype defaults to the fill value's.
pub(super) fn infer_full(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let (values, ndim) = shape_arg(call, args, 0)?;
    let fill = tensor_arg(call, args, 1)?;
    if fill.ndim > 0 {
        return Err(err(
            call,
            format!(
                "argument 1 (fill_value) must be a scalar tensor, got rank {}",
                fill.ndim
            ),
        ));
    }
    let dtype = attr_opt_dtype(call, "dtype")?.or(fill.dtype);
    Ok(new_tensor(values, ndim, dtype))
}

/// `R.zeros(shape, dtype)` / `R.ones(shape, dtype)`.
pub(super) fn infer_init(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let (values, ndim) = shape_arg(call, args, 0)?;
    let dtype =
        attr_opt_dtype(call, "dtype")?.ok_or_else(|| err(call, "missing attribute `dtype`"))?;
    Ok(new_tensor(values, ndim, Some(dtype)))
}

/// `R.zeros_like(x, dtype)` and friends: the shape of `x`, dtype defaulting to `x`'s.
pub(super) fn infer_like(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 2)?;
    let x = tensor_arg(call, args, 0)?;
    if call.op() == Some("relax.full_like") {
        let fill = tensor_arg(call, args, 1)?;
        if fill.ndim > 0 {
            return Err(err(
                call,
                format!(
                    "argument 1 (fill_value) must be a scalar tensor, got rank {}",
                    fill.ndim
                ),
            ));
        }
    }
    let dtype = attr_opt_dtype(call, "dtype")?.or(x.dtype);
    Ok(x.result(x.shape.clone(), x.ndim, dtype))
}

/// `R.eye(n, m, k, dtype)`: an `(n, m)` matrix.
pub(super) fn infer_eye(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    for i in 0..3 {
        prim_arg(call, args, i)?;
    }
    let dtype = attr_opt_dtype(call, "dtype")?;
    match (prim_value_of(call, args, 0), prim_value_of(call, args, 1)) {
        (Some(n), Some(m)) => Ok(new_tensor(Some(vec![n, m]), 2, dtype)),
        _ => Ok(new_tensor(None, 2, dtype)),
    }
}

fn prim_int(v: i64) -> Expr {
    Expr::prim(PrimExpr::i64(v))
}

/// `R.eye(n)` → `R.eye(n, n, 0)`; `R.eye(n, k)` (the reader's form with `m` omitted) →
/// `R.eye(n, n, k)`.
pub(super) fn canon_eye(args: &mut Vec<Expr>, _attrs: &mut Attrs) -> Result<()> {
    match args.len() {
        1 => {
            let n = args[0].clone();
            args.push(n);
            args.push(prim_int(0));
        }
        2 => {
            let n = args[0].clone();
            args.insert(1, n);
        }
        _ => {}
    }
    Ok(())
}

fn is_int_value(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::PrimValue(v) => v.dtype().is_int_or_uint(),
        ExprKind::Var(v) => {
            matches!(v.struct_info(), StructInfo::Prim { dtype, .. } if dtype.is_int_or_uint())
        }
        _ => false,
    }
}

/// `R.arange(end)` / `R.arange(end, step)` (`end` omitted by the reader) become
/// `R.arange(0, end, step)`; an unset dtype becomes `int64` for integer bounds, else
/// `float32`, as TVM's Python wrapper does.
pub(super) fn canon_arange(args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    match args.len() {
        1 => {
            args.insert(0, prim_int(0));
            args.push(prim_int(1));
        }
        2 => args.insert(0, prim_int(0)),
        _ => {}
    }
    if matches!(attrs.get("dtype"), None | Some(AttrValue::None)) {
        let all_int = args.iter().all(is_int_value);
        attrs.set(
            "dtype",
            AttrValue::DType(if all_int {
                DataType::INT64
            } else {
                DataType::FLOAT32
            }),
        );
    }
    Ok(())
}

fn as_f64(e: &PrimExpr) -> Option<f64> {
    match e.kind() {
        TirExpr::IntImm { value, .. } => Some(*value as f64),
        TirExpr::FloatImm { value, .. } => Some(*value),
        _ => None,
    }
}

/// `R.arange(start, end, step, dtype)`: `ceil((end - start) / step)` elements.
pub(super) fn infer_arange(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let mut dts = Vec::new();
    for i in 0..3 {
        dts.push(prim_arg(call, args, i)?.0);
    }
    let dtype = attr_opt_dtype(call, "dtype")?.or_else(|| {
        Some(if dts.iter().all(|d| d.is_int_or_uint()) {
            DataType::INT64
        } else {
            DataType::FLOAT32
        })
    });
    let (Some(start), Some(end), Some(step)) = (
        prim_value_of(call, args, 0),
        prim_value_of(call, args, 1),
        prim_value_of(call, args, 2),
    ) else {
        return Ok(new_tensor(None, 1, dtype));
    };
    if let (Some(a), Some(b), Some(s)) = (as_f64(&start), as_f64(&end), as_f64(&step)) {
        if s == 0.0 {
            return Err(err(call, "step must be non-zero"));
        }
        let n = ((b - a) / s).ceil().max(0.0);
        if !n.is_finite() || n > i64::MAX as f64 {
            return Err(err(call, "the number of elements is not finite"));
        }
        return Ok(new_tensor(Some(vec![dim(n as i64)]), 1, dtype));
    }
    // Symbolic integer bounds with a constant positive step.
    match const_value(&step) {
        Some(s) if s > 0 && start.dtype().is_int_or_uint() && end.dtype().is_int_or_uint() => {
            let span = sub(&end, &start);
            let len = if s == 1 {
                span
            } else {
                floordiv(&add(&span, &dim(s - 1)), &dim(s))
            };
            Ok(new_tensor(Some(vec![len]), 1, dtype))
        }
        _ => Ok(new_tensor(None, 1, dtype)),
    }
}

/// `R.tril(x, k)` / `R.triu(x, k)`: the input's struct info; at least 2-D.
pub(super) fn infer_trilu(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 2)?;
    let x = tensor_arg(call, args, 0)?;
    if x.ndim >= 0 && x.ndim < 2 {
        return Err(err(
            call,
            format!("requires a tensor of rank at least 2, got rank {}", x.ndim),
        ));
    }
    if args.len() == 2 {
        prim_arg(call, args, 1)?;
    }
    Ok(x.to_struct_info())
}
