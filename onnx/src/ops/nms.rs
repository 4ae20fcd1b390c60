//! `NonMaxSuppression` (and TVM's `AllClassNMS`, the same conversion): TVM's ONNX frontend
//! imports both as `R.vision.all_class_non_max_suppression(boxes, scores, max, iou, score,
//! output_format="onnx")` and keeps the selected rows `(num_selected, 3)` (batch, class, box).
//!
//! As TVM's converter: constant thresholds become `R.const` scalars, an absent input is TVM's
//! default (`max_output_boxes_per_class` 0, `iou_threshold` 0.5, `score_threshold` 0.0), and
//! `center_point_box = 1` boxes `(xc, yc, w, h)` become corners first. Where TVM replaces an
//! input computed at run time by that default, here the tensor is passed on: the runtime
//! reads its value. The number of rows is known only when the model runs: the result is
//! matched to a fresh dimension, so that later operators see a symbolic row count rather
//! than the operator's largest shape.

use relax::ir::{AttrValue, Expr, ExprKind, StructInfo};
use tir::{DataType, PrimExpr};

use super::attrs;
use crate::error::Result;
use crate::importer::{Importer, Val, scalar};
use crate::node::Node;

pub(crate) fn non_max_suppression(imp: &mut Importer, node: &Node) -> Result<Val> {
    let boxes = node.input(0)?;
    let scores = node.input(1)?;
    for (v, name) in [(boxes, "boxes"), (scores, "scores")] {
        if v.ndim() != Some(3) {
            return Err(node.invalid(format!(
                "{name} must be 3-D, got {}",
                v.ndim()
                    .map_or("an unknown rank".to_string(), |n| format!("rank {n}"))
            )));
        }
        if v.dtype() != Some(DataType::FLOAT32) {
            return Err(node.unsupported(format!(
                "{name} of data type {} (TVM's kernel takes float32)",
                v.dtype().map_or("?".to_string(), |d| d.to_string())
            )));
        }
    }
    let center = node.attr_i("center_point_box", 0)?;
    let boxes = match center {
        0 => boxes.clone(),
        1 => corners(imp, boxes)?,
        other => {
            return Err(node.invalid(format!("center_point_box must be 0 or 1, got {other}")));
        }
    };
    let max_out = threshold(node, 2, 0.0, DataType::INT64)?;
    let iou = threshold(node, 3, 0.5, DataType::FLOAT32)?;
    let score = threshold(node, 4, 0.0, DataType::FLOAT32)?;
    let nms = imp.op(
        "relax.vision.all_class_non_max_suppression",
        vec![boxes.expr, scores.expr.clone(), max_out, iou, score],
        attrs(&[("output_format", AttrValue::Str("onnx".into()))]),
    )?;
    let rows = imp.emit(Expr::new(ExprKind::TupleGetItem(nms.expr, 0)))?;
    let n: PrimExpr = imp.fresh_dim("num_selected").into();
    let si = StructInfo::tensor(vec![n, PrimExpr::i64(3)], DataType::INT64);
    let var = imp
        .bb
        .match_cast(rows.expr, si.clone())
        .map_err(|e| imp.relax_error(e))?;
    Ok(Val::new(Expr::var(&var), si))
}

/// Input `i` as the operator's argument: a constant as TVM folds it (a scalar of `dtype`), a
/// run-time tensor as it is, an absent one TVM's default.
fn threshold(node: &Node, i: usize, default: f64, dtype: DataType) -> Result<Expr> {
    let Some(v) = node.opt_input(i) else {
        return Ok(scalar(default, dtype)?.expr);
    };
    if let Some(vals) = v.floats() {
        let [x] = vals[..] else {
            return Err(node.invalid(format!("input {i} must hold one value, got {}", vals.len())));
        };
        return Ok(scalar(x, dtype)?.expr);
    }
    if let Some(shape) = v.static_shape()
        && shape.iter().product::<i64>() != 1
    {
        return Err(node.invalid(format!(
            "input {i} must hold one value, got shape {shape:?}"
        )));
    }
    Ok(v.expr.clone())
}

/// `(xc, yc, w, h)` boxes as corners `(y1, x1, y2, x2)`, TVM's order (the overlap test reads
/// either corner order).
fn corners(imp: &mut Importer, boxes: &Val) -> Result<Val> {
    let prim = |v: i64| Expr::prim(PrimExpr::i64(v));
    let col = |imp: &mut Importer, k: i64| {
        imp.op(
            "relax.strided_slice",
            vec![
                boxes.expr.clone(),
                Expr::tuple(vec![prim(2)]),
                Expr::tuple(vec![prim(k)]),
                Expr::tuple(vec![prim(k + 1)]),
                Expr::tuple(vec![prim(1)]),
            ],
            attrs(&[("assume_inbound", AttrValue::Bool(false))]),
        )
    };
    let (xc, yc, w, h) = (col(imp, 0)?, col(imp, 1)?, col(imp, 2)?, col(imp, 3)?);
    let two = scalar(2.0, DataType::FLOAT32)?;
    let half_w = imp.op0("relax.divide", &[&w, &two])?;
    let half_h = imp.op0("relax.divide", &[&h, &two])?;
    let x1 = imp.op0("relax.subtract", &[&xc, &half_w])?;
    let x2 = imp.op0("relax.add", &[&xc, &half_w])?;
    let y1 = imp.op0("relax.subtract", &[&yc, &half_h])?;
    let y2 = imp.op0("relax.add", &[&yc, &half_h])?;
    imp.op(
        "relax.concat",
        vec![Expr::tuple(vec![y1.expr, x1.expr, y2.expr, x2.expr])],
        attrs(&[("axis", AttrValue::Int(2))]),
    )
}
