//! Struct-info inference of the vision operators: `R.vision.roi_align` (TVM's
//! `InferTypeROIAlign`, `src/relax/op/vision/roi_align.cc`) and `R.vision.get_valid_counts`
//! (`InferTypeGetValidCounts`, `nms.cc`), `R.vision.non_max_suppression` (`InferTypeNMS`),
//! `R.vision.all_class_non_max_suppression` (`InferTypeAllClassNMS`) and
//! `R.vision.multibox_transform_loc` (`InferTypeMultiboxTransformLoc`,
//! `multibox_transform_loc.cc`).

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

/// `R.vision.non_max_suppression(data, valid_count, indices, max_output_size, iou_threshold,
/// force_suppress, top_k, coord_start, score_index, id_index, return_indices,
/// invalid_to_bottom, soft_nms_sigma, score_threshold)`: TVM's `InferTypeNMS`. The result is
/// the rearranged `data`; with `return_indices`, `(box_indices (batch, anchors) int32,
/// valid_box_count (batch, 1) int32)`, and with soft-NMS (`soft_nms_sigma > 0`) the decayed
/// data in front of those two.
pub(super) fn infer_non_max_suppression(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let data = tensor_arg(call, args, 0)?;
    let valid_count = tensor_arg(call, args, 1)?;
    let indices = tensor_arg(call, args, 2)?;
    for (t, name, rank) in [
        (&data, "data", 3),
        (&valid_count, "valid_count", 1),
        (&indices, "indices", 2),
    ] {
        if let Some(n) = t.ndim()
            && n != rank
        {
            return Err(err(call, format!("{name} must be {rank}-D, got rank {n}")));
        }
    }
    let i32t = Some(tir::DataType::INT32);
    for (t, name) in [(&valid_count, "valid_count"), (&indices, "indices")] {
        if let Some(dt) = t.dtype
            && Some(dt) != i32t
        {
            return Err(err(call, format!("{name} must have dtype int32, got {dt}")));
        }
    }
    if let Some(ds) = &data.shape {
        let (batch, anchors) = (&ds[0], &ds[1]);
        if let Some(vs) = &valid_count.shape
            && !crate::struct_info_ops::prove_equal(&vs[0], batch)
        {
            return Err(err(
                call,
                format!(
                    "valid_count must have shape (batch_size,) = ({batch},), got {}",
                    super::common::shape_str(vs)
                ),
            ));
        }
        if let Some(is) = &indices.shape
            && (!crate::struct_info_ops::prove_equal(&is[0], batch)
                || !crate::struct_info_ops::prove_equal(&is[1], anchors))
        {
            return Err(err(
                call,
                format!(
                    "indices must have shape (batch_size, num_anchors) = ({batch}, {anchors}), got {}",
                    super::common::shape_str(is)
                ),
            ));
        }
        if let Some(len) = ds[2].as_int() {
            let score = super::common::attr_int(call, "score_index")?;
            let coord = super::common::attr_int(call, "coord_start")?;
            let id = super::common::attr_int(call, "id_index")?;
            if score < 0 || score >= len {
                return Err(err(
                    call,
                    format!("score_index must be in [0, {len}), got {score}"),
                ));
            }
            if coord < 0 || coord.saturating_add(3) >= len {
                return Err(err(
                    call,
                    format!(
                        "coord_start must name four consecutive box coordinates within elem_length {len}, got {coord}"
                    ),
                ));
            }
            if id < -1 || id >= len {
                return Err(err(
                    call,
                    format!("id_index must be in [-1, {len}), got {id}"),
                ));
            }
        }
    }
    let return_indices = super::common::attr_bool(call, "return_indices")?;
    let soft = super::common::attr_float(call, "soft_nms_sigma")? > 0.0;
    let Some(ds) = &data.shape else {
        let mut fields = vec![data.with_ndim(2, i32t), data.with_ndim(2, i32t)];
        if !return_indices {
            return Ok(data.with_ndim(3, data.dtype));
        }
        if soft {
            fields.insert(0, data.with_ndim(3, data.dtype));
        }
        return Ok(StructInfo::Tuple(fields));
    };
    if !return_indices {
        return Ok(data.with_shape(ds.clone(), data.dtype));
    }
    let mut fields = vec![
        data.with_shape(vec![ds[0].clone(), ds[1].clone()], i32t),
        data.with_shape(vec![ds[0].clone(), PrimExpr::i64(1)], i32t),
    ];
    if soft {
        fields.insert(0, data.with_shape(ds.clone(), data.dtype));
    }
    Ok(StructInfo::Tuple(fields))
}

/// `R.vision.all_class_non_max_suppression(boxes, scores, max_output_boxes_per_class,
/// iou_threshold, score_threshold, output_format)`: TVM's `InferTypeAllClassNMS`. `boxes`
/// `(batch, num_boxes, 4)`, `scores` `(batch, num_classes, num_boxes)`; for `"onnx"` the
/// result is `(selected_indices (batch * classes * boxes, 3) int64, num_total_detections (1,)
/// int64)`, for `"tensorflow"` `(indices (batch, classes * boxes, 2) int64, scores (batch,
/// classes * boxes) float32, counts (batch,) int64)`. As in TVM these are the largest shapes:
/// legalization returns the selected rows only (see `relax.run.all_class_non_max_suppression`).
pub(super) fn infer_all_class_non_max_suppression(
    call: &Call,
    args: &[StructInfo],
) -> Result<StructInfo> {
    check_arity(call, args, 5, 5)?;
    let boxes = tensor_arg(call, args, 0)?;
    let scores = tensor_arg(call, args, 1)?;
    for (t, name) in [(&boxes, "boxes"), (&scores, "scores")] {
        match t.ndim() {
            None => return Err(err(call, format!("{name} must have a known rank"))),
            Some(3) => {}
            Some(n) => return Err(err(call, format!("{name} must be 3-D, got rank {n}"))),
        }
    }
    let format = attr_str(call, "output_format")?;
    if format != "onnx" && format != "tensorflow" {
        return Err(err(
            call,
            format!("output_format must be \"onnx\" or \"tensorflow\", got \"{format}\""),
        ));
    }
    let i64t = Some(tir::DataType::INT64);
    let (Some(bs), Some(ss)) = (&boxes.shape, &scores.shape) else {
        return Err(err(
            call,
            "boxes and scores must have known shapes (TVM reads their dimensions)",
        ));
    };
    let (batch, classes, num_boxes) = (&bs[0], &ss[1], &bs[1]);
    use super::common::mul;
    if format == "onnx" {
        let total = mul(&mul(batch, classes), num_boxes);
        return Ok(StructInfo::Tuple(vec![
            boxes.with_shape(vec![total, PrimExpr::i64(3)], i64t),
            boxes.with_shape(vec![PrimExpr::i64(1)], i64t),
        ]));
    }
    let per_batch = mul(classes, num_boxes);
    Ok(StructInfo::Tuple(vec![
        boxes.with_shape(
            vec![batch.clone(), per_batch.clone(), PrimExpr::i64(2)],
            i64t,
        ),
        boxes.with_shape(vec![batch.clone(), per_batch], Some(tir::DataType::FLOAT32)),
        boxes.with_shape(vec![batch.clone()], i64t),
    ]))
}

/// `R.vision.multibox_transform_loc(cls_pred, loc_pred, anchor, clip, threshold, variances,
/// keep_background)`: TVM's `InferTypeMultiboxTransformLoc`. `cls_pred` `(B, C, N)`,
/// `loc_pred` `(B, 4 * N)`, `anchor` `(1, N, 4)`; the result is `(boxes (B, N, 4), scores (B,
/// C, N))` of `cls_pred`'s dtype.
pub(super) fn infer_multibox_transform_loc(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let cls = tensor_arg(call, args, 0)?;
    let loc = tensor_arg(call, args, 1)?;
    let anchor = tensor_arg(call, args, 2)?;
    for (t, name, rank, form) in [
        (&cls, "cls_pred", 3, "(B, num_classes, N)"),
        (&loc, "loc_pred", 2, "(B, 4 * N)"),
        (&anchor, "anchor", 3, "(1, N, 4)"),
    ] {
        if let Some(n) = t.ndim()
            && n != rank
        {
            return Err(err(
                call,
                format!("{name} must be {rank}-D {form}, got rank {n}"),
            ));
        }
    }
    for (t, name) in [(&loc, "loc_pred"), (&anchor, "anchor")] {
        if let (Some(a), Some(b)) = (cls.dtype, t.dtype)
            && a != b
        {
            return Err(err(
                call,
                format!("cls_pred and {name} dtypes must match, got {a} and {b}"),
            ));
        }
    }
    let variances = match super::common::attr(call, "variances") {
        Some(AttrValue::List(items)) => items.len(),
        _ => 0,
    };
    if variances != 4 {
        return Err(err(
            call,
            format!("variances must be 4 values (x, y, w, h), got {variances}"),
        ));
    }
    let dim = |s: &Option<Vec<PrimExpr>>, i: usize| s.as_ref().and_then(|s| s[i].as_int());
    if let Some(d) = dim(&loc.shape, 1)
        && d % 4 != 0
    {
        return Err(err(
            call,
            format!("loc_pred.shape[1] must be divisible by 4, got {d}"),
        ));
    }
    if let (Some(a), Some(b)) = (dim(&cls.shape, 0), dim(&loc.shape, 0))
        && a != b
    {
        return Err(err(
            call,
            format!("cls_pred.shape[0] must match loc_pred.shape[0], got {a} and {b}"),
        ));
    }
    if let Some(b) = dim(&anchor.shape, 0)
        && b != 1
    {
        return Err(err(call, format!("anchor.shape[0] must be 1, got {b}")));
    }
    if let Some(l) = dim(&anchor.shape, 2)
        && l != 4
    {
        return Err(err(
            call,
            format!("anchor.shape[2] must be 4 (ltrb), got {l}"),
        ));
    }
    let Some(cs) = &cls.shape else {
        return Ok(StructInfo::Tuple(vec![
            cls.with_ndim(3, cls.dtype),
            cls.with_ndim(3, cls.dtype),
        ]));
    };
    if let Some(n) = cs[2].as_int() {
        if let Some(d) = dim(&loc.shape, 1)
            && d != 4 * n
        {
            return Err(err(
                call,
                format!(
                    "loc_pred.shape[1] must be 4 * N with N = cls_pred.shape[2] = {n}, got {d}"
                ),
            ));
        }
        if let Some(d) = dim(&anchor.shape, 1)
            && d != n
        {
            return Err(err(
                call,
                format!("anchor.shape[1] must be N = cls_pred.shape[2] = {n}, got {d}"),
            ));
        }
    }
    Ok(StructInfo::Tuple(vec![
        cls.with_shape(
            vec![cs[0].clone(), cs[2].clone(), PrimExpr::i64(4)],
            cls.dtype,
        ),
        cls.with_shape(cs.clone(), cls.dtype),
    ]))
}
