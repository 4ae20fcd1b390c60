//! QuantizeLinear and DequantizeLinear as Relax's `quantize` and `dequantize`, with TVM's
//! attribute handling: `axis` (default 1, 0 for a 1-D input), the zero point's type as the
//! quantized type (uint8 without one), `output_dtype` from opset 21, and blocked
//! quantization (`block_size`) rejected.

use relax::ir::AttrValue;
use tir::DataType;

use super::{attrs, dtype_of, norm_axis, rank};
use crate::error::Result;
use crate::importer::{Importer, Val, scalar};
use crate::node::Node;
use crate::tensor::{tir_dtype, vm_dtype};

/// The normalized quantization axis of `x`.
fn axis(node: &Node, x: &Val) -> Result<i64> {
    let r = rank(node, x)?;
    if r == 0 {
        return Err(node.unsupported("a rank-0 input"));
    }
    let mut a = if node.opset >= 13 {
        node.attr_i("axis", 1)?
    } else {
        1
    };
    if r <= 1 && a == 1 {
        a = 0;
    }
    Ok(norm_axis(node, a, r)? as i64)
}

/// `block_size` (opset 21) must be 0; QuantizeLinear's `output_dtype` is returned if set.
fn opset21(node: &Node) -> Result<Option<DataType>> {
    if node.opset < 21 {
        return Ok(None);
    }
    let b = node.attr_i("block_size", 0)?;
    if b != 0 {
        return Err(node.unsupported(format!("blocked quantization (block_size {b})")));
    }
    if node.op != "QuantizeLinear" {
        return Ok(None);
    }
    match node.attr_i("output_dtype", 0)? {
        0 => Ok(None),
        code => {
            Ok(Some(tir_dtype(vm_dtype(code as i32).map_err(|_| {
                node.unsupported(format!("output_dtype {code}"))
            })?)?))
        }
    }
}

pub(crate) fn quantize_linear(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let scale = node.input(1)?;
    let zp = node.opt_input(2);
    let axis = axis(node, x)?;
    let want = opset21(node)?;
    // `saturate` only applies to float8 outputs, which Relax's quantize does not produce.
    if node.opset >= 19 {
        node.attr_i("saturate", 1)?;
    }
    let out = match (want, zp) {
        (Some(w), Some(z)) if dtype_of(node, z)? != w => {
            return Err(node.invalid(format!(
                "output_dtype {w} differs from the zero point's type {}",
                dtype_of(node, z)?
            )));
        }
        (Some(w), _) => w,
        (None, Some(z)) => dtype_of(node, z)?,
        (None, None) => DataType::UINT8,
    };
    let zp = match zp {
        Some(z) => z.clone(),
        None => scalar(0.0, out)?,
    };
    imp.op(
        "relax.quantize",
        vec![x.expr.clone(), scale.expr.clone(), zp.expr.clone()],
        attrs(&[
            ("out_dtype", AttrValue::DType(out)),
            ("axis", AttrValue::Int(axis)),
        ]),
    )
}

pub(crate) fn dequantize_linear(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let scale = node.input(1)?;
    let axis = axis(node, x)?;
    opset21(node)?;
    let out = if node.opset >= 19 {
        dtype_of(node, scale)?
    } else {
        DataType::FLOAT32
    };
    let zp = match node.opt_input(2) {
        Some(z) => z.clone(),
        None => scalar(0.0, dtype_of(node, x)?)?,
    };
    imp.op(
        "relax.dequantize",
        vec![x.expr.clone(), scale.expr.clone(), zp.expr.clone()],
        attrs(&[
            ("out_dtype", AttrValue::DType(out)),
            ("axis", AttrValue::Int(axis)),
        ]),
    )
}

/// DynamicQuantizeLinear: uint8 quantization with the scale and zero point of the input's
/// range widened to hold 0: `scale = (max(x, 0) - min(x, 0)) / 255`, `zero point =
/// saturate(round(-min / scale))`.
pub(crate) fn dynamic_quantize_linear(imp: &mut Importer, node: &Node) -> Result<Vec<Val>> {
    let x = node.input(0)?;
    let dt = dtype_of(node, x)?;
    if dt != DataType::FLOAT32 {
        return Err(node.invalid(format!("an input of type {dt} (float32 is required)")));
    }
    let all = |imp: &mut Importer, op: &str| {
        imp.op(
            op,
            vec![x.expr.clone()],
            attrs(&[("keepdims", AttrValue::Bool(false))]),
        )
    };
    let zero = scalar(0.0, dt)?;
    let hi = all(imp, "relax.max")?;
    let hi = imp.op0("relax.maximum", &[&hi, &zero])?;
    let lo = all(imp, "relax.min")?;
    let lo = imp.op0("relax.minimum", &[&lo, &zero])?;
    let range = imp.op0("relax.subtract", &[&hi, &lo])?;
    let scale = imp.op0("relax.divide", &[&range, &scalar(255.0, dt)?])?;
    let q = imp.op0("relax.divide", &[&lo, &scale])?;
    let zp = imp.op0("relax.negative", &[&q])?;
    let zp = imp.op0("relax.maximum", &[&zp, &zero])?;
    let zp = imp.op0("relax.minimum", &[&zp, &scalar(255.0, dt)?])?;
    let zp = imp.op0("relax.round", &[&zp])?;
    let zp = imp.op(
        "relax.astype",
        vec![zp.expr.clone()],
        attrs(&[("dtype", AttrValue::DType(DataType::UINT8))]),
    )?;
    let y = imp.op(
        "relax.quantize",
        vec![x.expr.clone(), scale.expr.clone(), zp.expr.clone()],
        attrs(&[
            ("out_dtype", AttrValue::DType(DataType::UINT8)),
            ("axis", AttrValue::Int(0)),
        ]),
    )?;
    Ok(vec![y, scale, zp])
}

/// MatMulInteger: `(a - a_zero_point) @ (b - b_zero_point)` in int32; a per-row zero point of
/// `a` (`(M,)`) and a per-column one of `b` (`(N,)`) broadcast along their matrices.
pub(crate) fn matmul_integer(imp: &mut Importer, node: &Node) -> Result<Val> {
    let widen = |imp: &mut Importer, v: &Val| -> Result<Val> {
        let dt = dtype_of(node, v)?;
        if dt != DataType::INT8 && dt != DataType::UINT8 {
            return Err(node.invalid(format!("an input of type {dt} (int8 or uint8)")));
        }
        imp.op(
            "relax.astype",
            vec![v.expr.clone()],
            attrs(&[("dtype", AttrValue::DType(DataType::INT32))]),
        )
    };
    let mut ab = Vec::new();
    for (i, zp_axis) in [(0, -1), (1, 0)] {
        let mut v = widen(imp, node.input(i)?)?;
        if let Some(z) = node.opt_input(i + 2) {
            let mut z = widen(imp, z)?;
            if rank(node, &z)? == 1 {
                z = imp.op(
                    "relax.expand_dims",
                    vec![z.expr.clone()],
                    attrs(&[("axis", super::ints(&[zp_axis]))]),
                )?;
            }
            v = imp.op0("relax.subtract", &[&v, &z])?;
        }
        ab.push(v);
    }
    imp.op(
        "relax.matmul",
        vec![ab[0].expr.clone(), ab[1].expr.clone()],
        attrs(&[("out_dtype", AttrValue::DType(DataType::INT32))]),
    )
}
