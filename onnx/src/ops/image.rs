//! Sampling operators: GridSample and AffineGrid (Relax's `image` operators, whose grids put
//! the coordinate axis second where ONNX puts it last) and RoiAlign (`R.vision.roi_align`).

use relax::ir::{AttrValue, Expr};
use tir::{DataType, PrimExpr};

use super::{attrs, dtype_of, ints, rank};
use crate::error::Result;
use crate::importer::{Importer, Val, constant};
use crate::node::{Node, or_str};

pub(crate) fn grid_sample(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let grid = node.input(1)?;
    let r = rank(node, x)?;
    let mode = or_str(
        node.attr_s("mode")?,
        if node.opset >= 20 {
            "linear"
        } else {
            "bilinear"
        },
    );
    let method = match mode.as_str() {
        "linear" | "bilinear" => "bilinear",
        "cubic" | "bicubic" => "bicubic",
        "nearest" => "nearest",
        m => return Err(node.unsupported(format!("mode `{m}`"))),
    };
    let padding = or_str(node.attr_s("padding_mode")?, "zeros");
    let corners = node.attr_i("align_corners", 0)? != 0;
    let (perm, layout): (&[i64], &str) = match r {
        4 => (&[0, 3, 1, 2], "NCHW"),
        5 if method != "bicubic" => (&[0, 4, 1, 2, 3], "NCDHW"),
        5 => return Err(node.unsupported("cubic sampling of a volume")),
        _ => return Err(node.unsupported(format!("a rank-{r} input (4-D or 5-D)"))),
    };
    let g = imp.op(
        "relax.permute_dims",
        vec![grid.expr.clone()],
        attrs(&[("axes", ints(perm))]),
    )?;
    imp.op(
        "relax.image.grid_sample",
        vec![x.expr.clone(), g.expr.clone()],
        attrs(&[
            ("method", AttrValue::Str(method.into())),
            ("layout", AttrValue::Str(layout.into())),
            ("padding_mode", AttrValue::Str(padding)),
            ("align_corners", AttrValue::Bool(corners)),
        ]),
    )
}

pub(crate) fn affine_grid(imp: &mut Importer, node: &Node) -> Result<Val> {
    let theta = node.input(0)?;
    let size = node
        .input(1)?
        .ints()
        .ok_or_else(|| node.unsupported("a size computed at run time"))?;
    if size.len() != 4 && size.len() != 5 {
        return Err(node.invalid(format!(
            "size has {} elements (N, C, H, W or N, C, D, H, W)",
            size.len()
        )));
    }
    let corners = node.attr_i("align_corners", 0)? != 0;
    let spatial: Vec<PrimExpr> = size[2..].iter().map(|&d| PrimExpr::i64(d)).collect();
    let k = spatial.len() as i64;
    let g = imp.op(
        "relax.image.affine_grid",
        vec![theta.expr.clone(), Expr::shape(spatial)],
        attrs(&[("align_corners", AttrValue::Bool(corners))]),
    )?;
    // (N, k, *spatial) to ONNX's (N, *spatial, k).
    let mut perm = vec![0];
    perm.extend(2..k + 2);
    perm.push(1);
    imp.op(
        "relax.permute_dims",
        vec![g.expr.clone()],
        attrs(&[("axes", ints(&perm))]),
    )
}

/// RoiAlign (mode `avg`): the batch indices become the first column of the regions, as
/// Relax's operator takes them. `half_pixel` (the default from opset 16) shifts the scaled regions by half a
/// pixel, `output_half_pixel` does not and keeps each region at least one pixel wide.
pub(crate) fn roi_align(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let rois = node.input(1)?;
    let batch = node.input(2)?;
    let mode = or_str(node.attr_s("mode")?, "avg");
    if mode != "avg" {
        // onnxruntime's max takes, per sample, the largest of the four weighted corner taps;
        // TVM's roi_align takes the largest bilinear sample, another number.
        return Err(node.unsupported(format!(
            "mode `{mode}` (Relax's roi_align max is the largest bilinear sample, not onnxruntime's largest weighted tap)"
        )));
    }
    let oh = node.attr_i("output_height", 1)?;
    let ow = node.attr_i("output_width", 1)?;
    let ratio = node.attr_i("sampling_ratio", 0)?;
    let scale = node.attr_f("spatial_scale", 1.0)? as f64;
    let ctm = if node.opset >= 16 {
        or_str(node.attr_s("coordinate_transformation_mode")?, "half_pixel")
    } else {
        "output_half_pixel".into()
    };
    let dt = dtype_of(node, rois)?;
    let aligned = match ctm.as_str() {
        "half_pixel" => true,
        "output_half_pixel" => false,
        m => return Err(node.unsupported(format!("coordinate_transformation_mode `{m}`"))),
    };
    // Relax's roi_align scales the regions without a shift; half_pixel's `roi * scale - 0.5`
    // is `(roi - 0.5 / scale) * scale`.
    let rois = if aligned {
        if scale == 0.0 {
            return Err(node.unsupported("spatial_scale 0 with half_pixel coordinates"));
        }
        let off = vec![-0.5 / scale; 4];
        let t = match dt {
            DataType::FLOAT32 => {
                vm::Tensor::from_slice(&[4], &off.iter().map(|&v| v as f32).collect::<Vec<_>>())
            }
            DataType::FLOAT64 => vm::Tensor::from_slice(&[4], &off),
            other => return Err(node.unsupported(format!("regions of type {other}"))),
        }
        .map_err(|e| node.invalid(e))?;
        imp.op0("relax.add", &[rois, &constant(t)?])?
    } else {
        rois.clone()
    };
    let b = imp.op(
        "relax.expand_dims",
        vec![batch.expr.clone()],
        attrs(&[("axis", ints(&[1]))]),
    )?;
    let b = imp.op(
        "relax.astype",
        vec![b.expr.clone()],
        attrs(&[("dtype", AttrValue::DType(dt))]),
    )?;
    let joined = imp.op(
        "relax.concat",
        vec![Expr::tuple(vec![b.expr.clone(), rois.expr.clone()])],
        attrs(&[("axis", AttrValue::Int(1))]),
    )?;
    imp.op(
        "relax.vision.roi_align",
        vec![x.expr.clone(), joined.expr.clone()],
        attrs(&[
            ("pooled_size", ints(&[oh, ow])),
            ("spatial_scale", AttrValue::Float(scale)),
            ("sample_ratio", AttrValue::Int(ratio)),
            ("aligned", AttrValue::Bool(aligned)),
            ("layout", AttrValue::Str("NCHW".into())),
            ("mode", AttrValue::Str(mode)),
        ]),
    )
}
