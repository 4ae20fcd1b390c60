//! Struct-info inference of the vision operators: `R.vision.roi_align` (TVM's
//! `InferTypeROIAlign`, `src/relax/op/vision/roi_align.cc`) and `R.vision.get_valid_counts`
//! (`InferTypeGetValidCounts`, `nms.cc`).

use tir::PrimExpr;

use super::common::{attr_int_list, attr_str, check_arity, err, tensor_arg};
use crate::Result;
use crate::ir::{AttrValue, Attrs, Call, Expr, StructInfo};

/// `R.vision.roi_align(data, rois, pooled_size, spatial_scale, sample_ratio, aligned, layout,
/// mode)`: `data` 4-D (`NCHW` or `NHWC`), `rois` `(num_roi, 5)`; the result is `(num_roi, C,
/// PH, PW)` (or `(num_roi, PH, PW, C)`) of `data`'s dtype.
pub(super) fn infer_roi_align(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let data = tensor_arg(call, args, 0)?;
    let rois = tensor_arg(call, args, 1)?;
    if let Some(n) = data.ndim()
        && n != 4
    {
        return Err(err(call, format!("data must be 4-D, got rank {n}")));
    }
    if let Some(n) = rois.ndim()
        && n != 2
    {
        return Err(err(
            call,
            format!("rois must be 2-D (num_roi, 5), got rank {n}"),
        ));
    }
    let layout = attr_str(call, "layout")?;
    if layout != "NCHW" && layout != "NHWC" {
        return Err(err(
            call,
            format!("layout must be \"NCHW\" or \"NHWC\", got \"{layout}\""),
        ));
    }
    let mode = attr_str(call, "mode")?;
    if mode != "avg" && mode != "max" {
        return Err(err(
            call,
            format!("mode must be \"avg\" or \"max\", got \"{mode}\""),
        ));
    }
    let pooled = attr_int_list(call, "pooled_size")?;
    if pooled.len() != 2 || pooled.iter().any(|&p| p <= 0) {
        return Err(err(
            call,
            format!("pooled_size must be 2 positive values, got {pooled:?}"),
        ));
    }
    if let Some(shape) = &rois.shape
        && let Some(last) = shape.get(1).and_then(PrimExpr::as_int)
        && last != 5
    {
        return Err(err(
            call,
            format!("rois must have shape (num_roi, 5), got last dimension {last}"),
        ));
    }
    let (Some(ds), Some(rs)) = (&data.shape, &rois.shape) else {
        return Ok(data.with_ndim(4, data.dtype));
    };
    let (ph, pw) = (PrimExpr::i64(pooled[0]), PrimExpr::i64(pooled[1]));
    let out = if layout == "NCHW" {
        vec![rs[0].clone(), ds[1].clone(), ph, pw]
    } else {
        vec![rs[0].clone(), ph, pw, ds[3].clone()]
    };
    Ok(data.with_shape(out, data.dtype))
}

/// What TVM's constructor stores: one pooled size for both axes, and `spatial_scale` as a
/// float.
// The signature of every `CanonicalizeFn`, which may also add or remove arguments.
#[allow(clippy::ptr_arg)]
pub(super) fn canon_roi_align(_args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    let pooled = match attrs.get("pooled_size") {
        Some(AttrValue::Int(v)) => Some(vec![*v, *v]),
        Some(AttrValue::List(items)) if items.len() == 1 => items[0].as_int().map(|v| vec![v, v]),
        _ => None,
    };
    if let Some(p) = pooled {
        attrs.set(
            "pooled_size",
            AttrValue::List(p.into_iter().map(AttrValue::Int).collect()),
        );
    }
    if let Some(AttrValue::Int(v)) = attrs.get("spatial_scale") {
        let v = *v as f64;
        attrs.set("spatial_scale", AttrValue::Float(v));
    }
    Ok(())
}

/// `R.vision.get_valid_counts(data, score_threshold, id_index, score_index)`: `data` `(batch,
/// anchors, length)`; the result is `(valid_count (batch,) int32, out (batch, anchors,
/// length), out_indices (batch, anchors) int32)`. TVM's `InferTypeGetValidCounts`.
pub(super) fn infer_get_valid_counts(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let data = tensor_arg(call, args, 0)?;
    if let Some(n) = data.ndim()
        && n != 3
    {
        return Err(err(
            call,
            format!("data must be 3-D (batch, anchors, length), got rank {n}"),
        ));
    }
    let i32t = Some(tir::DataType::INT32);
    let Some(shape) = &data.shape else {
        return Ok(StructInfo::Tuple(vec![
            data.with_ndim(1, i32t),
            data.with_ndim(3, data.dtype),
            data.with_ndim(2, i32t),
        ]));
    };
    if let Some(len) = shape[2].as_int() {
        let score = super::common::attr_int(call, "score_index")?;
        let id = super::common::attr_int(call, "id_index")?;
        if score < 0 || score >= len {
            return Err(err(
                call,
                format!("score_index must be in [0, {len}), got {score}"),
            ));
        }
        if id < -1 || id >= len {
            return Err(err(
                call,
                format!("id_index must be in [-1, {len}), got {id}"),
            ));
        }
    }
    Ok(StructInfo::Tuple(vec![
        data.with_shape(vec![shape[0].clone()], i32t),
        data.with_shape(shape.clone(), data.dtype),
        data.with_shape(vec![shape[0].clone(), shape[1].clone()], i32t),
    ]))
}
