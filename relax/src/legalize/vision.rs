//! `R.vision.roi_align`, `R.vision.get_valid_counts` (see its rule),
//! `R.vision.multibox_transform_loc` (TVM's TE compute) and the two non-maximum suppressions
//! (runtime builtins, see their rules). `roi_align` is
//! legalized with the semantics of TVM's `topi.vision.roi_align`
//! (`roi_align_nchw`/`roi_align_nhwc`): each output bin of each region of interest averages
//! (or takes the maximum of) a grid of bilinear samples of the data, the grid `sample_ratio`
//! per side, or `ceil(roi size / pooled size)` when that is not positive. Like TVM's, the
//! coordinates are `rois[i, 1:5] * spatial_scale` (no half-pixel shift with `aligned`, which
//! only drops the minimum region size of 1), a sample more than one pixel outside the image is
//! 0, and taps outside it read 0.
//!
//! TVM writes it as a reduction whose extent is read from `rois`; here it is one opaque block of
//! loops (the extent of a loop may be a loaded value, that of a block iteration variable may
//! not). A batch index outside the data is a run-time out-of-bounds error (TVM reads outside
//! the buffer). `data` and `rois` must be float tensors of one dtype (TVM computes in the
//! rois' dtype and stores in the data's).

use tir::{CmpOp, DataType, ForKind, PrimExpr, Stmt, Var};

use super::te::{self, Combiner, Te};
use super::{Lowered, OpCall, Result, Rule};
use crate::Error;
use crate::ir::{Expr, StructInfo};

pub(super) fn rule(name: &str) -> Option<Rule> {
    match name {
        "vision.roi_align" => Some(roi_align),
        "vision.get_valid_counts" => Some(get_valid_counts),
        "vision.non_max_suppression" => Some(non_max_suppression),
        "vision.all_class_non_max_suppression" => Some(all_class_non_max_suppression),
        "vision.multibox_transform_loc" => Some(multibox_transform_loc),
        _ => None,
    }
}

fn invalid<T>(c: &OpCall, msg: impl std::fmt::Display) -> Result<T> {
    Err(Error::TypeInference(format!(
        "{}: {msg}",
        crate::op::common::script_name(c.call)
    )))
}

fn roi_align(c: &OpCall) -> Result<Lowered> {
    let data = c.tensor(0)?;
    let rois = c.tensor(1)?;
    let (out_shape, _) = c.out_tensor()?;
    let dt = data.dtype();
    if !dt.is_float() || rois.dtype() != dt {
        return invalid(
            c,
            format!(
                "data and rois must be float tensors of one dtype, got {dt} and {}",
                rois.dtype()
            ),
        );
    }
    if data.ndim() != 4 || rois.ndim() != 2 || out_shape.len() != 4 {
        return invalid(c, "data must be 4-D and rois 2-D");
    }
    let nhwc = c.attr_str("layout") == Some("NHWC");
    let avg = c.attr_str("mode") != Some("max");
    let pooled = c.attr_ints("pooled_size").unwrap_or_default();
    let [pooled_h, pooled_w] = pooled[..] else {
        return invalid(c, format!("pooled_size must be 2 values, got {pooled:?}"));
    };
    let scale = c.attr_f64("spatial_scale").unwrap_or(1.0);
    let sample_ratio = c.attr_int("sample_ratio").unwrap_or(-1);
    let aligned = c.attr_bool("aligned").unwrap_or(false);
    // A kernel buffer of the shape TVM's kernel assumes: rois `(num_roi, 5)`.
    let rois = super::TArg {
        buf: te::placeholder(&rois.buf.name, &[rois.shape()[0].clone(), te::i64c(5)], dt),
        expr: rois.expr.clone(),
    };
    let (h, w) = if nhwc {
        (data.shape()[1].clone(), data.shape()[2].clone())
    } else {
        (data.shape()[2].clone(), data.shape()[3].clone())
    };
    let out = te::placeholder("roi_align", &out_shape, dt);
    let fc = |v: f64| te::constf(dt, v);
    let vars: Vec<Var> = ["i", "c", "ph", "pw"]
        .iter()
        .map(|n| Var::new(*n, DataType::INT64))
        .collect();
    let idx: Vec<PrimExpr> = vars.iter().map(PrimExpr::from).collect();
    let (i, ch, ph, pw) = if nhwc {
        // Output (num_roi, PH, PW, C): the loops run i, ph, pw, c.
        (&idx[0], &idx[3], &idx[1], &idx[2])
    } else {
        (&idx[0], &idx[1], &idx[2], &idx[3])
    };
    let roi = |k: i64| te::load(&rois.buf, vec![i.clone(), te::i64c(k)]);
    let batch = te::cast(DataType::INT64, te::cast(DataType::INT32, roi(0)));
    let start_w = te::mul(roi(1), fc(scale));
    let start_h = te::mul(roi(2), fc(scale));
    let end_w = te::mul(roi(3), fc(scale));
    let end_h = te::mul(roi(4), fc(scale));
    let (roi_h, roi_w) = if aligned {
        (
            te::sub(end_h, start_h.clone()),
            te::sub(end_w, start_w.clone()),
        )
    } else {
        (
            te::max(te::sub(end_h, start_h.clone()), fc(1.0)),
            te::max(te::sub(end_w, start_w.clone()), fc(1.0)),
        )
    };
    let bin_h = te::div(roi_h.clone(), fc(pooled_h as f64));
    let bin_w = te::div(roi_w.clone(), fc(pooled_w as f64));
    let grid = |size: PrimExpr, pooled: i64| {
        if sample_ratio > 0 {
            te::i64c(sample_ratio)
        } else {
            te::cast(
                DataType::INT64,
                te::intrin("ceil", vec![te::div(size, fc(pooled as f64))]),
            )
        }
    };
    let (grid_h, grid_w) = (grid(roi_h, pooled_h), grid(roi_w, pooled_w));
    let count = te::cast(dt, te::mul(grid_h.clone(), grid_w.clone()));
    let base_h = te::add(start_h, te::mul(te::cast(dt, ph.clone()), bin_h.clone()));
    let base_w = te::add(start_w, te::mul(te::cast(dt, pw.clone()), bin_w.clone()));
    let (rh, rw) = (
        Var::new("rh", DataType::INT64),
        Var::new("rw", DataType::INT64),
    );
    let y = te::add(
        base_h,
        te::div(
            te::mul(te::add(te::cast(dt, PrimExpr::from(&rh)), fc(0.5)), bin_h),
            te::cast(dt, grid_h.clone()),
        ),
    );
    let x = te::add(
        base_w,
        te::div(
            te::mul(te::add(te::cast(dt, PrimExpr::from(&rw)), fc(0.5)), bin_w),
            te::cast(dt, grid_w.clone()),
        ),
    );
    // TVM's `_bilinear` and `bilinear_sample_nchw`.
    let (hf, wf) = (te::cast(dt, h.clone()), te::cast(dt, w.clone()));
    let outside = te::or(
        te::or(
            te::cmp(CmpOp::Lt, y.clone(), fc(-1.0)),
            te::cmp(CmpOp::Lt, x.clone(), fc(-1.0)),
        ),
        te::or(
            te::cmp(CmpOp::Gt, y.clone(), hf),
            te::cmp(CmpOp::Gt, x.clone(), wf),
        ),
    );
    let last = |e: &PrimExpr| te::sub(e.clone(), te::i64c(1));
    let yc = te::min(te::max(y, fc(0.0)), te::cast(dt, last(&h)));
    let xc = te::min(te::max(x, fc(0.0)), te::cast(dt, last(&w)));
    let y_low = te::cast(DataType::INT64, te::intrin("floor", vec![yc.clone()]));
    let x_low = te::cast(DataType::INT64, te::intrin("floor", vec![xc.clone()]));
    let wy_h = te::sub(yc, te::cast(dt, y_low.clone()));
    let wx_h = te::sub(xc, te::cast(dt, x_low.clone()));
    let wy_l = te::sub(fc(1.0), wy_h.clone());
    let wx_l = te::sub(fc(1.0), wx_h.clone());
    let mut sample = fc(0.0);
    for (wx, xp) in [(wx_l, x_low.clone()), (wx_h, te::add(x_low, te::i64c(1)))] {
        for (wy, yp) in [
            (wy_l.clone(), y_low.clone()),
            (wy_h.clone(), te::add(y_low.clone(), te::i64c(1))),
        ] {
            let inside = te::and(
                te::and(
                    te::cmp(CmpOp::Le, te::i64c(0), yp.clone()),
                    te::cmp(CmpOp::Le, yp.clone(), last(&h)),
                ),
                te::and(
                    te::cmp(CmpOp::Le, te::i64c(0), xp.clone()),
                    te::cmp(CmpOp::Le, xp.clone(), last(&w)),
                ),
            );
            let at = if nhwc {
                vec![batch.clone(), yp.clone(), xp.clone(), ch.clone()]
            } else {
                vec![batch.clone(), ch.clone(), yp.clone(), xp.clone()]
            };
            let tap = te::mul(te::mul(wx.clone(), wy), te::load(&data.buf, at));
            sample = te::add(sample, te::if_then_else(inside, tap, fc(0.0)));
        }
    }
    let value = te::if_then_else(outside, fc(0.0), sample);
    let cur = te::load(&out, idx.clone());
    let update = if avg {
        te::store(&out, idx.clone(), te::add(cur, te::div(value, count)))
    } else {
        te::store(&out, idx.clone(), te::max(cur, value))
    };
    let samples = te::for_loop(
        &rh,
        te::max(grid_h, te::i64c(0)),
        ForKind::Serial,
        te::for_loop(&rw, te::max(grid_w, te::i64c(0)), ForKind::Serial, update),
    );
    let init = te::store(
        &out,
        idx.clone(),
        if avg {
            fc(0.0)
        } else {
            PrimExpr::min_value(dt)
        },
    );
    let mut body = Stmt::seq(vec![init, samples]);
    for (v, e) in vars.iter().zip(&out_shape).rev() {
        body = te::for_loop(v, e.clone(), ForKind::Serial, body);
    }
    let mut te = Te::new();
    te.opaque("roi_align", vec![out.clone()], body);
    c.finish("roi_align", te, &[&data, &rois], &[out])
}

/// `R.vision.get_valid_counts(data, score_threshold, id_index, score_index)`, TVM's
/// `topi.vision.get_valid_counts`: per batch, the boxes whose score exceeds the threshold
/// (and whose class id is not negative, unless `id_index` is -1) copied in order to the
/// front, with their indices; the rest of both outputs -1; and their count. TVM's batch loop
/// is `T.parallel`; here it is serial (each batch writes only its own rows, so the results
/// are the same).
fn get_valid_counts(c: &OpCall) -> Result<Lowered> {
    let data = c.tensor(0)?;
    if data.ndim() != 3 {
        return invalid(c, "data must be 3-D (batch, anchors, length)");
    }
    let dt = data.dtype();
    let threshold = te::constf(dt, c.attr_f64("score_threshold").unwrap_or(0.0));
    let id_index = c.attr_int("id_index").unwrap_or(0);
    let score_index = c.attr_int("score_index").unwrap_or(1);
    let len = data.shape()[2].as_int();
    if len.is_some_and(|l| score_index < 0 || score_index >= l || id_index < -1 || id_index >= l) {
        return invalid(c, "score_index or id_index outside the box length");
    }
    let (batch, anchors, length) = (
        data.shape()[0].clone(),
        data.shape()[1].clone(),
        data.shape()[2].clone(),
    );
    let i32t = DataType::INT32;
    let count = te::placeholder("valid_count", std::slice::from_ref(&batch), i32t);
    let out = te::placeholder("out_tensor", data.shape(), dt);
    let indices = te::placeholder("out_indices", &[batch.clone(), anchors.clone()], i32t);
    let (i, j, k) = (
        Var::new("i", DataType::INT64),
        Var::new("j", DataType::INT64),
        Var::new("k", DataType::INT64),
    );
    let (iv, jv, kv) = (PrimExpr::from(&i), PrimExpr::from(&j), PrimExpr::from(&k));
    let at = |b: &tir::Buffer, idx: Vec<PrimExpr>| te::load(b, idx);
    let cur = te::cast(DataType::INT64, at(&count, vec![iv.clone()]));
    let score = at(
        &data.buf,
        vec![iv.clone(), jv.clone(), te::i64c(score_index)],
    );
    let mut valid = te::cmp(CmpOp::Gt, score, threshold);
    if id_index >= 0 {
        let id = at(&data.buf, vec![iv.clone(), jv.clone(), te::i64c(id_index)]);
        valid = te::and(valid, te::cmp(CmpOp::Ge, id, te::zero(dt)));
    }
    let copy = Stmt::seq(vec![
        te::for_loop(
            &k,
            length.clone(),
            ForKind::Serial,
            te::store(
                &out,
                vec![iv.clone(), cur.clone(), kv.clone()],
                at(&data.buf, vec![iv.clone(), jv.clone(), kv.clone()]),
            ),
        ),
        te::store(
            &indices,
            vec![iv.clone(), cur.clone()],
            te::cast(i32t, jv.clone()),
        ),
        te::store(
            &count,
            vec![iv.clone()],
            te::add(at(&count, vec![iv.clone()]), PrimExpr::int(i32t, 1)),
        ),
    ]);
    let gather = te::for_loop(
        &j,
        anchors.clone(),
        ForKind::Serial,
        Stmt::new(tir::StmtKind::IfThenElse {
            cond: valid,
            then_case: copy,
            else_case: None,
        }),
    );
    let (j2, k2) = (
        Var::new("j", DataType::INT64),
        Var::new("k", DataType::INT64),
    );
    let (j2v, k2v) = (PrimExpr::from(&j2), PrimExpr::from(&k2));
    let fill = te::for_loop(
        &j2,
        anchors,
        ForKind::Serial,
        Stmt::new(tir::StmtKind::IfThenElse {
            cond: te::cmp(CmpOp::Ge, j2v.clone(), cur),
            then_case: Stmt::seq(vec![
                te::for_loop(
                    &k2,
                    length,
                    ForKind::Serial,
                    te::store(
                        &out,
                        vec![iv.clone(), j2v.clone(), k2v],
                        te::constf(dt, -1.0),
                    ),
                ),
                te::store(&indices, vec![iv.clone(), j2v], PrimExpr::int(i32t, -1)),
            ]),
            else_case: None,
        }),
    );
    let body = te::for_loop(
        &i,
        batch,
        ForKind::Serial,
        Stmt::seq(vec![
            te::store(&count, vec![iv.clone()], PrimExpr::int(i32t, 0)),
            gather,
            fill,
        ]),
    );
    let mut te = Te::new();
    te.opaque(
        "get_valid_counts",
        vec![count.clone(), out.clone(), indices.clone()],
        body,
    );
    c.finish("get_valid_counts", te, &[&data], &[count, out, indices])
}

/// A call of the runtime's `relax.run.non_max_suppression` (`vm::builtin`) with the attributes
/// as prim values: TVM's kernel sorts, swaps rows and stops early in data-dependent loops.
fn non_max_suppression(c: &OpCall) -> Result<Lowered> {
    let int = |n: &str| crate::transform::prim_i64(c.attr_int(n).unwrap_or(0));
    let flag = |n: &str| Expr::prim(PrimExpr::bool(c.attr_bool(n).unwrap_or(false)));
    let float = |n: &str| {
        Expr::prim(PrimExpr::float(
            DataType::FLOAT64,
            c.attr_f64(n).unwrap_or(0.0),
        ))
    };
    let mut args = c.call.args.clone();
    args.extend([
        int("max_output_size"),
        float("iou_threshold"),
        flag("force_suppress"),
        int("top_k"),
        int("coord_start"),
        int("score_index"),
        int("id_index"),
        flag("return_indices"),
        flag("invalid_to_bottom"),
        float("soft_nms_sigma"),
        float("score_threshold"),
    ]);
    Ok(Lowered::Expr(crate::transform::call_pure_packed(
        "relax.run.non_max_suppression",
        args,
        c.out.clone(),
    )))
}

/// A call of the runtime's `relax.run.all_class_non_max_suppression`. In ONNX format TVM
/// trims the selected rows to the count the kernel found (a `dynamic_strided_slice`), so the
/// rows' result has a rank but no static shape. TVM's kernel takes `max_output_boxes_per_class`
/// as a number when it is a constant and otherwise ignores it (the number of boxes); here the
/// value is read at run time in both cases, which agrees with TVM whenever TVM uses it.
fn all_class_non_max_suppression(c: &OpCall) -> Result<Lowered> {
    let format = c.attr_str("output_format").unwrap_or("onnx").to_string();
    let out = match (&c.out, format.as_str()) {
        (StructInfo::Tuple(fields), "onnx") if fields.len() == 2 => {
            let rows = match &fields[0] {
                StructInfo::Tensor { dtype, vdevice, .. } => StructInfo::Tensor {
                    shape: None,
                    dtype: *dtype,
                    ndim: 2,
                    vdevice: vdevice.clone(),
                },
                other => other.clone(),
            };
            StructInfo::Tuple(vec![rows, fields[1].clone()])
        }
        (other, _) => other.clone(),
    };
    let mut args = c.call.args.clone();
    args.push(crate::transform::str_imm(&format));
    Ok(Lowered::Expr(crate::transform::call_pure_packed(
        "relax.run.all_class_non_max_suppression",
        args,
        out,
    )))
}

/// TVM's `topi.vision.multibox_transform_loc`: the boxes `(ymin, xmin, ymax, xmax)` decoded
/// from the anchors `(left, top, right, bottom)` and the encodings `(x, y, w, h)` scaled by
/// `variances` (clipped to `[0, 1]` with `clip`), and the softmax of the class logits over the
/// classes (the logits themselves without `apply_softmax`), zero below `threshold` and,
/// without `keep_background`, in class 0.
fn multibox_transform_loc(c: &OpCall) -> Result<Lowered> {
    let cls = c.tensor(0)?;
    let loc = c.tensor(1)?;
    let anchor = c.tensor(2)?;
    let dt = cls.dtype();
    if !dt.is_float() || loc.dtype() != dt || anchor.dtype() != dt {
        return invalid(
            c,
            "cls_pred, loc_pred and anchor must be float tensors of one dtype",
        );
    }
    if cls.ndim() != 3 || loc.ndim() != 2 || anchor.ndim() != 3 {
        return invalid(c, "cls_pred must be 3-D, loc_pred 2-D and anchor 3-D");
    }
    let var = c.attr_f64s("variances").unwrap_or_default();
    let [vx, vy, vw, vh] = var[..] else {
        return invalid(c, format!("variances must be 4 values, got {var:?}"));
    };
    let clip = c.attr_bool("clip").unwrap_or(false);
    let threshold = c.attr_f64("threshold").unwrap_or(0.0);
    let keep_background = c.attr_bool("keep_background").unwrap_or(true);
    let apply_softmax = c.attr_bool("apply_softmax").unwrap_or(true);
    let shape = cls.shape().to_vec();
    let (batch, anchors) = (shape[0].clone(), shape[2].clone());
    let fc = |v: f64| te::constf(dt, v);
    let mut t = Te::new();
    let boxes = t.compute(
        "multibox_boxes",
        "i",
        &[batch.clone(), anchors.clone(), te::i64c(4)],
        |i| {
            let (b, a, k) = (&i[0], &i[1], &i[2]);
            let an = |j: i64| te::load(&anchor.buf, vec![te::i64c(0), a.clone(), te::i64c(j)]);
            let enc = |j: i64| {
                te::load(
                    &loc.buf,
                    vec![
                        b.clone(),
                        te::add(te::mul(a.clone(), te::i64c(4)), te::i64c(j)),
                    ],
                )
            };
            let (left, top, right, bottom) = (an(0), an(1), an(2), an(3));
            let ay = te::mul(te::add(top.clone(), bottom.clone()), fc(0.5));
            let ax = te::mul(te::add(left.clone(), right.clone()), fc(0.5));
            let ah = te::sub(bottom, top);
            let aw = te::sub(right, left);
            let yc = te::add(te::mul(te::mul(enc(1), fc(vy)), ah.clone()), ay);
            let xc = te::add(te::mul(te::mul(enc(0), fc(vx)), aw.clone()), ax);
            let half = |e: PrimExpr, v: f64, size: PrimExpr| {
                te::mul(
                    te::mul(fc(0.5), te::intrin("exp", vec![te::mul(e, fc(v))])),
                    size,
                )
            };
            let hh = half(enc(3), vh, ah);
            let hw = half(enc(2), vw, aw);
            let mut v = [
                te::sub(yc.clone(), hh.clone()),
                te::sub(xc.clone(), hw.clone()),
                te::add(yc, hh),
                te::add(xc, hw),
            ];
            if clip {
                for e in &mut v {
                    *e = te::max(fc(0.0), te::min(fc(1.0), e.clone()));
                }
            }
            let [ymin, xmin, ymax, xmax] = v;
            let is = |j: i64| te::cmp(CmpOp::Eq, k.clone(), te::i64c(j));
            te::select(
                is(0),
                ymin,
                te::select(is(1), xmin, te::select(is(2), ymax, xmax)),
            )
        },
    );
    // The scores before the threshold: a softmax over the classes, or the logits as given.
    let softmax = apply_softmax.then(|| {
        let red = vec![batch.clone(), anchors.clone()];
        let classes = shape[1].clone();
        let mx = t.reduce_named(
            "T_softmax_maxelem",
            "i",
            &red,
            &[("k".to_string(), classes.clone())],
            Combiner::Max,
            None,
            |i, k| te::load(&cls.buf, vec![i[0].clone(), k[0].clone(), i[1].clone()]),
        );
        let exp = t.compute("T_softmax_exp", "i", &shape, |i| {
            te::intrin(
                "exp",
                vec![te::sub(
                    te::load(&cls.buf, i.to_vec()),
                    te::load(&mx, vec![i[0].clone(), i[2].clone()]),
                )],
            )
        });
        let sum = t.reduce_named(
            "T_softmax_expsum",
            "i",
            &red,
            &[("k".to_string(), classes)],
            Combiner::Sum,
            None,
            |i, k| te::load(&exp, vec![i[0].clone(), k[0].clone(), i[1].clone()]),
        );
        (exp, sum)
    });
    let scores = t.compute("multibox_scores", "i", &shape, |i| {
        let s = match &softmax {
            Some((exp, sum)) => te::div(
                te::load(exp, i.to_vec()),
                te::load(sum, vec![i[0].clone(), i[2].clone()]),
            ),
            None => te::load(&cls.buf, i.to_vec()),
        };
        // TVM multiplies by the mask (a NaN score stays NaN).
        let kept = te::mul(
            s.clone(),
            te::cast(dt, te::cmp(CmpOp::Ge, s, fc(threshold))),
        );
        if keep_background {
            kept
        } else {
            te::select(te::cmp(CmpOp::Eq, i[1].clone(), te::i64c(0)), fc(0.0), kept)
        }
    });
    c.finish(
        "multibox_transform_loc",
        t,
        &[&cls, &loc, &anchor],
        &[boxes, scores],
    )
}
