//! Image operators: `R.image.resize2d` and `R.image.resize3d`, written like TVM's
//! `topi.image.resize2d`/`resize3d` (the computations TVM's legalization calls): every output pixel maps its coordinates back into
//! the input (`coordinate_transformation_mode`), in `float32` whatever the data's dtype, and
//! takes the nearest input pixel (`nearest_neighbor`, by `rounding_method`), blends the 2×2
//! around it (`linear`) or the 4×4 (`cubic`, Keys' spline with `cubic_alpha`), reading with
//! indices clamped into the image; the result is cast to `out_dtype` (unset: the data's).

use tir::{CmpOp, DataType, PrimExpr};

use super::te::{self, Te};
use super::{Lowered, OpCall, Result, Rule, unsupported};
use crate::op::image::{layout_axes, resize2d_layout};

pub(super) fn rule(name: &str) -> Option<Rule> {
    match name {
        "image.resize2d" => Some(resize2d),
        "image.resize3d" => Some(resize3d),
        "image.affine_grid" => Some(affine_grid),
        "image.grid_sample" => Some(grid_sample),
        _ => None,
    }
}

const F32: DataType = DataType::FLOAT32;

fn f32c(v: f64) -> PrimExpr {
    te::constf(F32, v)
}

/// One resized axis: the input and output extents, and the crop window (`roi`) along it.
struct Axis {
    image: PrimExpr,
    target: PrimExpr,
    start: f64,
    end: f64,
    /// `nearest_neighbor` + `asymmetric` on an integer upscale: the source index is
    /// `out / factor` in integers (TVM's `can_convert_multiply_to_intdiv`), which the float
    /// product would round differently at halves.
    int_div: Option<i64>,
}

impl Axis {
    fn as_f32(e: &PrimExpr) -> PrimExpr {
        te::cast(F32, e.clone())
    }

    fn minus_one(e: &PrimExpr) -> PrimExpr {
        te::sub(e.clone(), te::i64c(1))
    }

    /// The input coordinate of output index `o` (TVM's `get_inx`).
    fn source(&self, o: &PrimExpr, mode: &str) -> PrimExpr {
        let of = Self::as_f32(o);
        let scale = te::div(Self::as_f32(&self.image), Self::as_f32(&self.target));
        let half_pixel = || {
            te::sub(
                te::mul(te::add(of.clone(), f32c(0.5)), scale.clone()),
                f32c(0.5),
            )
        };
        let wider = || te::cmp(CmpOp::Gt, self.target.clone(), te::i64c(1));
        match mode {
            "half_pixel" => half_pixel(),
            "align_corners" => te::mul(
                te::div(
                    Self::as_f32(&Self::minus_one(&self.image)),
                    Self::as_f32(&Self::minus_one(&self.target)),
                ),
                of,
            ),
            "asymmetric" => te::mul(scale, of),
            "pytorch_half_pixel" => te::select(wider(), half_pixel(), f32c(0.0)),
            "tf_half_pixel_for_nn" => te::mul(te::add(of, f32c(0.5)), scale),
            "tf_crop_and_resize" => {
                let last = Self::as_f32(&Self::minus_one(&self.image));
                let (s, e) = (f32c(self.start), f32c(self.end));
                te::select(
                    wider(),
                    te::add(
                        te::mul(s.clone(), last.clone()),
                        te::div(
                            te::mul(te::mul(of, te::sub(e.clone(), s.clone())), last.clone()),
                            Self::as_f32(&Self::minus_one(&self.target)),
                        ),
                    ),
                    te::mul(te::mul(f32c(0.5), te::add(s, e)), last),
                )
            }
            _ => unreachable!("checked by resize2d"),
        }
    }

    /// The index of the nearest input pixel (TVM's `get_closest_index`).
    fn nearest(&self, o: &PrimExpr, mode: &str, rounding: &str) -> PrimExpr {
        if let Some(f) = self.int_div {
            return te::floordiv(o.clone(), te::i64c(f));
        }
        let x = self.source(o, mode);
        let r = match rounding {
            "round" => te::intrin("nearbyint", vec![x]),
            "round_prefer_floor" => te::intrin("ceil", vec![te::sub(x, f32c(0.5))]),
            "round_prefer_ceil" => te::intrin("floor", vec![te::add(x, f32c(0.5))]),
            "floor" => te::intrin("floor", vec![te::add(x, f32c(1e-5))]),
            "ceil" => te::intrin("ceil", vec![te::sub(x, f32c(1e-5))]),
            _ => unreachable!("checked by resize2d"),
        };
        te::cast(DataType::INT64, r)
    }

    /// `index` clamped into the image.
    fn clamp(&self, index: PrimExpr) -> PrimExpr {
        te::max(te::min(index, Self::minus_one(&self.image)), te::i64c(0))
    }
}

/// TVM's `can_convert_multiply_to_intdiv`, in its `float32` arithmetic: a static integer
/// upscale factor not so large that `1e-5`-scale errors could matter.
fn int_div_factor(image: &PrimExpr, target: &PrimExpr) -> Option<i64> {
    let (image, target) = (image.as_int()? as f32, target.as_int()? as f32);
    let factor = target / image;
    let check = 1.0 / (1e-5 * image + 1e-5);
    (factor.is_finite() && factor % 1.0 == 0.0 && factor <= check && factor >= 1.0)
        .then_some(factor as i64)
}

/// Keys' cubic spline weights of the four taps around fraction `t` (TVM's
/// `_cubic_spline_weights`).
fn cubic_weights(t: &PrimExpr, alpha: f64) -> [PrimExpr; 4] {
    let a = f32c(alpha);
    let t2 = te::mul(t.clone(), t.clone());
    let t3 = te::mul(t2.clone(), t.clone());
    let two = f32c(2.0);
    [
        te::mul(
            a.clone(),
            te::add(
                te::sub(t3.clone(), te::mul(two.clone(), t2.clone())),
                t.clone(),
            ),
        ),
        te::add(
            te::sub(
                te::mul(f32c(alpha + 2.0), t3.clone()),
                te::mul(f32c(alpha + 3.0), t2.clone()),
            ),
            f32c(1.0),
        ),
        te::sub(
            te::add(
                te::mul(f32c(-(alpha + 2.0)), t3.clone()),
                te::mul(f32c(2.0 * alpha + 3.0), t2.clone()),
            ),
            te::mul(a.clone(), t.clone()),
        ),
        te::add(te::mul(f32c(-alpha), t3), te::mul(a, t2)),
    ]
}

fn sum(values: Vec<PrimExpr>) -> PrimExpr {
    values
        .into_iter()
        .reduce(te::add)
        .unwrap_or_else(|| f32c(0.0))
}

fn resize2d(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (out_shape, out_dtype) = c.out_tensor()?;
    let layout = c.attr_str("layout").unwrap_or("NCHW");
    let Some((rank, h, w)) = resize2d_layout(layout) else {
        return unsupported(format!("resize2d layout \"{layout}\""));
    };
    if x.ndim() != rank || out_shape.len() != rank {
        return unsupported(format!(
            "resize2d of a rank-{} tensor with layout \"{layout}\"",
            x.ndim()
        ));
    }
    let method = c
        .attr_str("method")
        .unwrap_or("linear")
        .to_ascii_lowercase();
    let mode = c
        .attr_str("coordinate_transformation_mode")
        .unwrap_or("half_pixel");
    let mut rounding = c.attr_str("rounding_method").unwrap_or("round");
    if !matches!(method.as_str(), "nearest_neighbor" | "linear" | "cubic") {
        return unsupported(format!(
            "resize2d method \"{method}\" (nearest_neighbor, linear or cubic)"
        ));
    }
    if !matches!(
        mode,
        "half_pixel"
            | "align_corners"
            | "asymmetric"
            | "pytorch_half_pixel"
            | "tf_half_pixel_for_nn"
            | "tf_crop_and_resize"
    ) {
        return unsupported(format!(
            "resize2d coordinate_transformation_mode \"{mode}\""
        ));
    }
    if rounding.is_empty() {
        rounding = if mode == "align_corners" {
            "round"
        } else {
            "floor"
        };
    }
    if method == "nearest_neighbor"
        && !matches!(
            rounding,
            "round" | "round_prefer_floor" | "round_prefer_ceil" | "floor" | "ceil"
        )
    {
        return unsupported(format!("resize2d rounding_method \"{rounding}\""));
    }
    let roi = match c.attr("roi") {
        None | Some(crate::ir::AttrValue::None) => vec![0.0; 4],
        Some(_) => match c.attr_f64s("roi") {
            Some(v) if v.len() == 4 => v,
            _ => return unsupported("resize2d roi: expected a list of 4 numbers"),
        },
    };
    let alpha = c.attr_f64("cubic_alpha").unwrap_or(-0.5);
    let exclude = c.attr_int("cubic_exclude").unwrap_or(0) != 0;
    let extrapolation = c.attr_f64("extrapolation_value").unwrap_or(0.0);
    for (what, d) in [("height", h), ("width", w)] {
        if x.shape()[d].as_int() == Some(0) && out_shape[d].as_int() != Some(0) {
            return unsupported(format!(
                "resize2d of an image of {what} 0 to a non-empty {what}"
            ));
        }
    }
    let int_div = |d: usize| {
        (method == "nearest_neighbor" && mode == "asymmetric")
            .then(|| int_div_factor(&x.shape()[d], &out_shape[d]))
            .flatten()
    };
    let ay = Axis {
        image: x.shape()[h].clone(),
        target: out_shape[h].clone(),
        start: roi[0],
        end: roi[2],
        int_div: int_div(h),
    };
    let ax = Axis {
        image: x.shape()[w].clone(),
        target: out_shape[w].clone(),
        start: roi[1],
        end: roi[3],
        int_div: int_div(w),
    };
    let mut te = Te::new();
    let out = te.compute("resize", "ax", &out_shape, |i| {
        let pixel = |yi: PrimExpr, xi: PrimExpr| {
            let mut idx = i.to_vec();
            idx[h] = ay.clamp(yi);
            idx[w] = ax.clamp(xi);
            te::cast(F32, te::load(&x.buf, idx))
        };
        let (oy, ox) = (&i[h], &i[w]);
        let offset = |e: &PrimExpr, k: i64| te::add(e.clone(), te::i64c(k));
        let value = match method.as_str() {
            "nearest_neighbor" => pixel(
                ay.nearest(oy, mode, rounding),
                ax.nearest(ox, mode, rounding),
            ),
            "linear" => {
                let (fy, fx) = (ay.source(oy, mode), ax.source(ox, mode));
                let y0 = te::cast(DataType::INT64, te::intrin("floor", vec![fy.clone()]));
                let x0 = te::cast(DataType::INT64, te::intrin("floor", vec![fx.clone()]));
                let ty = te::sub(fy, te::cast(F32, y0.clone()));
                let tx = te::sub(fx, te::cast(F32, x0.clone()));
                let lerp = |a: PrimExpr, b: PrimExpr, t: &PrimExpr| {
                    te::add(
                        te::mul(a, te::sub(f32c(1.0), t.clone())),
                        te::mul(b, t.clone()),
                    )
                };
                let top = lerp(
                    pixel(y0.clone(), x0.clone()),
                    pixel(y0.clone(), offset(&x0, 1)),
                    &tx,
                );
                let bottom = lerp(
                    pixel(offset(&y0, 1), x0.clone()),
                    pixel(offset(&y0, 1), offset(&x0, 1)),
                    &tx,
                );
                lerp(top, bottom, &ty)
            }
            _ => {
                let (fy, fx) = (ay.source(oy, mode), ax.source(ox, mode));
                let floor_y = te::intrin("floor", vec![fy.clone()]);
                let floor_x = te::intrin("floor", vec![fx.clone()]);
                let (y0, x0) = (
                    te::cast(DataType::INT64, floor_y.clone()),
                    te::cast(DataType::INT64, floor_x.clone()),
                );
                let weights = |t: PrimExpr, base: &PrimExpr, axis: &Axis| {
                    let mut wts = cubic_weights(&t, alpha).to_vec();
                    if exclude {
                        // TVM's test, `base - 1 + k < 0 or base + k > extent`, kept as it is.
                        for (k, wt) in wts.iter_mut().enumerate() {
                            let k = k as i64;
                            let outside = te::or(
                                te::cmp(CmpOp::Lt, offset(base, k - 1), te::i64c(0)),
                                te::cmp(CmpOp::Gt, offset(base, k), axis.image.clone()),
                            );
                            *wt = te::select(outside, f32c(0.0), wt.clone());
                        }
                        let total = sum(wts.clone());
                        wts = wts
                            .into_iter()
                            .map(|wt| te::div(wt, total.clone()))
                            .collect();
                    }
                    wts
                };
                let wy = weights(te::sub(fy, floor_y), &y0, &ay);
                let wx = weights(te::sub(fx, floor_x), &x0, &ax);
                let rows = (0..4)
                    .map(|j| {
                        sum((0..4)
                            .map(|k| {
                                te::mul(
                                    pixel(offset(&y0, j - 1), offset(&x0, k - 1)),
                                    wx[k as usize].clone(),
                                )
                            })
                            .collect())
                    })
                    .collect::<Vec<_>>();
                sum(rows
                    .into_iter()
                    .zip(wy)
                    .map(|(r, wt)| te::mul(r, wt))
                    .collect())
            }
        };
        let value = if mode == "tf_crop_and_resize" {
            // The extrapolation value outside the image (TVM tests y, then x).
            let ev = f32c(extrapolation);
            let outside = |axis: &Axis, o: &PrimExpr, inner: PrimExpr| {
                let f = axis.source(o, mode);
                let last = te::cast(F32, Axis::minus_one(&axis.image));
                te::select(
                    te::cmp(CmpOp::Lt, f.clone(), f32c(0.0)),
                    ev.clone(),
                    te::select(te::cmp(CmpOp::Gt, f, last), ev.clone(), inner),
                )
            };
            let inner = outside(&ay, oy, value);
            outside(&ax, ox, inner)
        } else {
            value
        };
        te::cast(out_dtype, value)
    });
    c.finish("resize2d", te, &[&x], &[out])
}

/// The coordinate transformation modes TVM's resizes know.
const MODES: &[&str] = &[
    "half_pixel",
    "align_corners",
    "asymmetric",
    "pytorch_half_pixel",
    "tf_half_pixel_for_nn",
    "tf_crop_and_resize",
];

/// `R.image.resize3d`, TVM's `topi.image.resize3d` over the `D`, `H` and `W` axes: the
/// interpolation runs innermost axis first (`W`, then `H`, then `D`), as TVM's does.
///
/// Where this differs from TVM's `_resize_3d`: with `tf_crop_and_resize` TVM's kernel drops
/// the extrapolation test of the depth axis (it computes it, then overwrites it with the
/// height's), and with `cubic_exclude` it gives the depth axis the width's weights; here every
/// axis is tested and weighted by its own coordinate, as in `resize2d`. TVM's legalization
/// does not pass `out_dtype` to TOPI (its kernel's result has the data's dtype, whatever the
/// call's inferred type says); here the result has the inferred `out_dtype`. Like TVM, the
/// crop window of the depth axis is `roi[2]..roi[5]` and that of the width `roi[0]..roi[3]`.
fn resize3d(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (out_shape, out_dtype) = c.out_tensor()?;
    let layout = c.attr_str("layout").unwrap_or("NCDHW");
    let Some((rank, dims)) = layout_axes(layout, &['D', 'H', 'W']) else {
        return unsupported(format!("resize3d layout \"{layout}\""));
    };
    if x.ndim() != rank || out_shape.len() != rank {
        return unsupported(format!(
            "resize3d of a rank-{} tensor with layout \"{layout}\"",
            x.ndim()
        ));
    }
    let method = c
        .attr_str("method")
        .unwrap_or("linear")
        .to_ascii_lowercase();
    let mode = c
        .attr_str("coordinate_transformation_mode")
        .unwrap_or("half_pixel");
    let mut rounding = c.attr_str("rounding_method").unwrap_or("");
    if !matches!(method.as_str(), "nearest_neighbor" | "linear" | "cubic") {
        return unsupported(format!(
            "resize3d method \"{method}\" (nearest_neighbor, linear or cubic)"
        ));
    }
    if !MODES.contains(&mode) {
        return unsupported(format!(
            "resize3d coordinate_transformation_mode \"{mode}\""
        ));
    }
    if rounding.is_empty() {
        rounding = if mode == "align_corners" {
            "round"
        } else {
            "floor"
        };
    }
    if method == "nearest_neighbor"
        && !matches!(
            rounding,
            "round" | "round_prefer_floor" | "round_prefer_ceil" | "floor" | "ceil"
        )
    {
        return unsupported(format!("resize3d rounding_method \"{rounding}\""));
    }
    let roi = match c.attr("roi") {
        None | Some(crate::ir::AttrValue::None) => vec![0.0; 6],
        Some(_) => match c.attr_f64s("roi") {
            Some(v) if v.len() == 6 => v,
            _ => return unsupported("resize3d roi: expected a list of 6 numbers"),
        },
    };
    let alpha = c.attr_f64("cubic_alpha").unwrap_or(-0.75);
    let exclude = c.attr_int("cubic_exclude").unwrap_or(0) != 0;
    let extrapolation = c.attr_f64("extrapolation_value").unwrap_or(0.0);
    for (what, &d) in ["depth", "height", "width"].iter().zip(&dims) {
        if x.shape()[d].as_int() == Some(0) && out_shape[d].as_int() != Some(0) {
            return unsupported(format!(
                "resize3d of an image of {what} 0 to a non-empty {what}"
            ));
        }
    }
    // TVM's crop windows: depth roi[2]..roi[5], height roi[1]..roi[4], width roi[0]..roi[3].
    let windows = [(roi[2], roi[5]), (roi[1], roi[4]), (roi[0], roi[3])];
    let axes: Vec<Axis> = dims
        .iter()
        .zip(windows)
        .map(|(&d, (start, end))| Axis {
            image: x.shape()[d].clone(),
            target: out_shape[d].clone(),
            start,
            end,
            int_div: None,
        })
        .collect();
    let mut te = Te::new();
    let out = te.compute("resize", "ax", &out_shape, |i| {
        let pixel = |at: &[PrimExpr]| {
            let mut idx = i.to_vec();
            for ((&d, axis), v) in dims.iter().zip(&axes).zip(at) {
                idx[d] = axis.clamp(v.clone());
            }
            te::cast(F32, te::load(&x.buf, idx))
        };
        let sources: Vec<PrimExpr> = dims
            .iter()
            .zip(&axes)
            .map(|(&d, a)| a.source(&i[d], mode))
            .collect();
        let value = match method.as_str() {
            "nearest_neighbor" => {
                let at: Vec<PrimExpr> = dims
                    .iter()
                    .zip(&axes)
                    .map(|(&d, a)| a.nearest(&i[d], mode, rounding))
                    .collect();
                pixel(&at)
            }
            _ => {
                let cubic = method == "cubic";
                // Per axis: the base index, and the taps' offsets and weights.
                let taps: Vec<(PrimExpr, Vec<(i64, PrimExpr)>)> = sources
                    .iter()
                    .zip(&axes)
                    .map(|(f, axis)| {
                        let floor = te::intrin("floor", vec![f.clone()]);
                        let base = te::cast(DataType::INT64, floor.clone());
                        if cubic {
                            let mut wts = cubic_weights(&te::sub(f.clone(), floor), alpha).to_vec();
                            if exclude {
                                for (k, wt) in wts.iter_mut().enumerate() {
                                    let k = k as i64;
                                    let outside = te::or(
                                        te::cmp(
                                            CmpOp::Lt,
                                            te::add(base.clone(), te::i64c(k - 1)),
                                            te::i64c(0),
                                        ),
                                        te::cmp(
                                            CmpOp::Gt,
                                            te::add(base.clone(), te::i64c(k)),
                                            axis.image.clone(),
                                        ),
                                    );
                                    *wt = te::select(outside, f32c(0.0), wt.clone());
                                }
                                let total = sum(wts.clone());
                                wts = wts
                                    .into_iter()
                                    .map(|wt| te::div(wt, total.clone()))
                                    .collect();
                            }
                            (base, (-1..3).zip(wts).collect())
                        } else {
                            let t = te::sub(f.clone(), te::cast(F32, base.clone()));
                            (base, vec![(0, t.clone()), (1, t)])
                        }
                    })
                    .collect();
                interpolate(&taps, cubic, &mut Vec::new(), &pixel)
            }
        };
        let value = if mode == "tf_crop_and_resize" {
            // The extrapolation value outside the image, tested width first, then height,
            // then depth.
            let ev = f32c(extrapolation);
            let mut v = value;
            for (f, axis) in sources.iter().zip(&axes).rev() {
                let last = te::cast(F32, Axis::minus_one(&axis.image));
                v = te::select(
                    te::cmp(CmpOp::Lt, f.clone(), f32c(0.0)),
                    ev.clone(),
                    te::select(te::cmp(CmpOp::Gt, f.clone(), last), ev.clone(), v),
                );
            }
            v
        } else {
            value
        };
        te::cast(out_dtype, value)
    });
    c.finish("resize3d", te, &[&x], &[out])
}

/// The interpolation over the axes from `at.len()` on: per axis, the taps (offsets from the
/// base index, with weights; for `linear` the one weight `t` of a lerp), combined as TVM's
/// `_lerp` (`a * (1 - t) + b * t`) or `_cubic_kernel` (`Σ a_i * w_i`).
fn interpolate(
    taps: &[(PrimExpr, Vec<(i64, PrimExpr)>)],
    cubic: bool,
    at: &mut Vec<PrimExpr>,
    pixel: &dyn Fn(&[PrimExpr]) -> PrimExpr,
) -> PrimExpr {
    let Some((base, axis_taps)) = taps.get(at.len()) else {
        return pixel(at);
    };
    let mut values = Vec::with_capacity(axis_taps.len());
    for (offset, _) in axis_taps {
        at.push(te::add(base.clone(), te::i64c(*offset)));
        values.push(interpolate(taps, cubic, at, pixel));
        at.pop();
    }
    if cubic {
        sum(values
            .into_iter()
            .zip(axis_taps)
            .map(|(v, (_, w))| te::mul(v, w.clone()))
            .collect())
    } else {
        let t = axis_taps[0].1.clone();
        let (a, b) = (values[0].clone(), values[1].clone());
        te::add(te::mul(a, te::sub(f32c(1.0), t.clone())), te::mul(b, t))
    }
}

/// An error in the program: arguments the operator cannot take.
fn invalid<T>(c: &OpCall, msg: impl std::fmt::Display) -> Result<T> {
    Err(crate::Error::TypeInference(format!(
        "{}: {msg}",
        crate::op::common::script_name(c.call)
    )))
}

/// `R.image.affine_grid(theta, size, align_corners)`, TVM's `topi.image.affine_grid`: the
/// grid `out[n, d, *p] = theta[n, d, k] + Σ_r theta[n, d, k - 1 - r] * coord_r(p_r)` with
/// `coord_r` running over `[-1, 1]` (corners, with TVM's step `(2 - 1e-7) / (s - 1)`) or over
/// the pixel centers, in `theta`'s dtype. Like TVM's legalization, the size must be static,
/// and with `align_corners` every extent must exceed 1 (TVM's assertion; an error here).
fn affine_grid(c: &OpCall) -> Result<Lowered> {
    let theta = c.tensor(0)?;
    let (out_shape, _) = c.out_tensor()?;
    let dt = theta.dtype();
    if !dt.is_float() {
        return invalid(c, format!("data must be a float tensor, got dtype {dt}"));
    }
    let k = out_shape.len().saturating_sub(2);
    let mut sizes = Vec::with_capacity(k);
    for d in &out_shape[2..] {
        match d.as_int() {
            Some(v) => sizes.push(v),
            None => {
                return unsupported(format!(
                    "affine_grid of a symbolic size {} (TVM's legalization needs a static one)",
                    crate::op::common::shape_str(&out_shape[2..])
                ));
            }
        }
    }
    if theta.ndim() != 3 || !(k == 2 || k == 3) {
        return invalid(
            c,
            format!(
                "data of shape {} for a {k}-D grid",
                crate::op::common::shape_str(theta.shape())
            ),
        );
    }
    for (d, want) in [(1, k as i64), (2, k as i64 + 1)] {
        if theta.shape()[d].as_int().is_some_and(|v| v != want) {
            return invalid(
                c,
                format!(
                    "data must have shape (batch, {k}, {}), got {}",
                    k + 1,
                    crate::op::common::shape_str(theta.shape())
                ),
            );
        }
    }
    let corners = c.attr_bool("align_corners").unwrap_or(true);
    if corners && sizes.iter().any(|&s| s <= 1) {
        return invalid(
            c,
            format!("with align_corners every size must be greater than 1, got {sizes:?}"),
        );
    }
    let (starts, steps): (Vec<f64>, Vec<f64>) = sizes
        .iter()
        .map(|&s| {
            let s = s as f64;
            if corners {
                (-1.0, (2.0 - 1e-7) / (s - 1.0))
            } else {
                (-1.0 + 1.0 / s, 2.0 / s)
            }
        })
        .unzip();
    // A kernel buffer of the shape TVM's kernel assumes: a mismatch that only the run time
    // shows is then an error of the kernel's argument check.
    let mut want = vec![
        theta.shape()[0].clone(),
        te::i64c(k as i64),
        te::i64c(k as i64 + 1),
    ];
    want.truncate(3);
    let theta = super::TArg {
        buf: te::placeholder(&theta.buf.name, &want, dt),
        expr: theta.expr.clone(),
    };
    let mut te = Te::new();
    let out = te.compute("compute", "i", &out_shape, |i| {
        let (n, d) = (i[0].clone(), i[1].clone());
        let mut v = te::load(&theta.buf, vec![n.clone(), d.clone(), te::i64c(k as i64)]);
        for r in 0..k {
            let coord = te::add(
                te::constf(dt, starts[r]),
                te::mul(te::cast(dt, i[2 + r].clone()), te::constf(dt, steps[r])),
            );
            let a = te::load(
                &theta.buf,
                vec![n.clone(), d.clone(), te::i64c((k - 1 - r) as i64)],
            );
            v = te::add(v, te::mul(a, coord));
        }
        v
    });
    c.finish("affine_grid", te, &[&theta], &[out])
}

/// `R.image.grid_sample(data, grid, method, layout, padding_mode, align_corners)`, TVM's
/// `topi.image.grid_sample` for `NCHW` (nearest, bilinear, bicubic) and `NCDHW` (nearest,
/// trilinear): each output pixel reads `grid[n, :, *p]` (x first), maps it from `[-1, 1]`
/// into the image (`align_corners`: onto the corner pixels' centers, else their outer
/// edges), applies `padding_mode` (`border` clamps, `reflection` mirrors then clamps) and
/// interpolates; taps outside the image read 0. `data` and `grid` must be float tensors of
/// one dtype (TVM computes in their promoted type, which can differ from the inferred
/// result's).
fn grid_sample(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let grid = c.tensor(1)?;
    let (out_shape, _) = c.out_tensor()?;
    let layout = c.attr_str("layout").unwrap_or("NCHW");
    let method = c.attr_str("method").unwrap_or("bilinear");
    let padding = c.attr_str("padding_mode").unwrap_or("zeros");
    let corners = c.attr_bool("align_corners").unwrap_or(false);
    let k = match layout {
        "NCHW" => 2,
        "NCDHW" => 3,
        _ => {
            return unsupported(format!(
                "grid_sample layout \"{layout}\" (TOPI's grid_sample takes NCHW and NCDHW)"
            ));
        }
    };
    let methods: &[&str] = if k == 2 {
        &["nearest", "bilinear", "bicubic"]
    } else {
        &["nearest", "bilinear"]
    };
    if !methods.contains(&method) {
        return invalid(
            c,
            format!("method \"{method}\" for layout \"{layout}\" (one of {methods:?})"),
        );
    }
    if !matches!(padding, "zeros" | "border" | "reflection") {
        return invalid(
            c,
            format!("padding_mode \"{padding}\" (zeros, border or reflection)"),
        );
    }
    let dt = x.dtype();
    if !dt.is_float() || grid.dtype() != dt {
        return invalid(
            c,
            format!(
                "data and grid must be float tensors of one dtype, got {} and {}",
                dt,
                grid.dtype()
            ),
        );
    }
    if x.ndim() != k + 2 || grid.ndim() != k + 2 {
        return invalid(
            c,
            format!(
                "data {} and grid {} must have rank {}",
                crate::op::common::shape_str(x.shape()),
                crate::op::common::shape_str(grid.shape()),
                k + 2
            ),
        );
    }
    if grid.shape()[1].as_int().is_some_and(|v| v != k as i64) {
        return invalid(
            c,
            format!(
                "grid must have {k} coordinates on axis 1, got shape {}",
                crate::op::common::shape_str(grid.shape())
            ),
        );
    }
    // The grid's buffer as the kernel reads it: batch of the data, `k` coordinates, the
    // output's spatial extents.
    let mut gshape = vec![x.shape()[0].clone(), te::i64c(k as i64)];
    gshape.extend(out_shape[2..].iter().cloned());
    let grid = super::TArg {
        buf: te::placeholder(&grid.buf.name, &gshape, dt),
        expr: grid.expr.clone(),
    };
    // Spatial extents, outermost first (D, H, W or H, W).
    let sizes: Vec<PrimExpr> = x.shape()[2..].to_vec();
    let fc = |v: f64| te::constf(dt, v);
    let size_f = |s: &PrimExpr| te::cast(dt, s.clone());
    let clip =
        |v: PrimExpr, s: &PrimExpr| te::min(te::max(v, fc(0.0)), te::sub(size_f(s), fc(1.0)));
    // TVM's `_reflect_coordinates`.
    let reflect = |v: PrimExpr, s: &PrimExpr| {
        let (size, start) = if corners {
            (te::sub(size_f(s), fc(1.0)), fc(0.0))
        } else {
            (size_f(s), fc(-0.5))
        };
        let dist = te::intrin("fabs", vec![te::sub(start.clone(), v.clone())]);
        let times = te::intrin(
            "trunc",
            vec![te::div(
                te::intrin("trunc", vec![dist.clone()]),
                size.clone(),
            )],
        );
        let odd = te::cmp(
            CmpOp::Ne,
            te::floormod(te::cast(DataType::INT64, times.clone()), te::i64c(2)),
            te::i64c(0),
        );
        let extra = te::sub(dist, te::mul(times, size.clone()));
        let mirrored = te::select(
            odd,
            te::add(te::sub(size.clone(), extra.clone()), start.clone()),
            te::add(extra, start.clone()),
        );
        te::select(
            te::and(
                te::cmp(CmpOp::Ge, v.clone(), start.clone()),
                te::cmp(CmpOp::Le, v.clone(), te::add(size, start)),
            ),
            v,
            mirrored,
        )
    };
    let mut te = Te::new();
    let out = te.compute("grid_sample", "i", &out_shape, |i| {
        let n = i[0].clone();
        let ch = i[1].clone();
        let spatial = &i[2..];
        // Coordinates outermost first: grid channel k-1-a holds axis a (x is channel 0).
        let unnormalized: Vec<PrimExpr> = (0..k)
            .map(|a| {
                let mut gi = vec![n.clone(), te::i64c((k - 1 - a) as i64)];
                gi.extend(spatial.iter().cloned());
                let g = te::load(&grid.buf, gi);
                let s = &sizes[a];
                if corners {
                    te::div(
                        te::mul(te::add(g, fc(1.0)), te::sub(size_f(s), fc(1.0))),
                        fc(2.0),
                    )
                } else {
                    te::add(
                        fc(-0.5),
                        te::div(te::mul(te::add(g, fc(1.0)), size_f(s)), fc(2.0)),
                    )
                }
            })
            .collect();
        let padded = |coords: &[PrimExpr]| -> Vec<PrimExpr> {
            coords
                .iter()
                .zip(&sizes)
                .map(|(v, s)| match padding {
                    "reflection" => clip(reflect(v.clone(), s), s),
                    "border" => clip(v.clone(), s),
                    _ => v.clone(),
                })
                .collect()
        };
        // A tap: 0 outside the image.
        let pixel = |at: &[PrimExpr]| {
            let inside = at
                .iter()
                .zip(&sizes)
                .map(|(p, s)| {
                    te::and(
                        te::cmp(CmpOp::Ge, p.clone(), te::i64c(0)),
                        te::cmp(CmpOp::Lt, p.clone(), s.clone()),
                    )
                })
                .reduce(te::and)
                .unwrap_or_else(|| PrimExpr::bool(true));
            let mut idx = vec![n.clone(), ch.clone()];
            idx.extend(at.iter().cloned());
            te::if_then_else(inside, te::load(&x.buf, idx), fc(0.0))
        };
        let floor_i =
            |v: &PrimExpr| te::cast(DataType::INT64, te::intrin("floor", vec![v.clone()]));
        match method {
            "nearest" => {
                let at: Vec<PrimExpr> = padded(&unnormalized)
                    .iter()
                    .map(|v| te::cast(DataType::INT64, te::intrin("nearbyint", vec![v.clone()])))
                    .collect();
                pixel(&at)
            }
            "bilinear" => {
                let src = padded(&unnormalized);
                let base: Vec<PrimExpr> = src.iter().map(floor_i).collect();
                let frac: Vec<PrimExpr> = src
                    .iter()
                    .zip(&base)
                    .map(|(v, b)| te::sub(v.clone(), te::cast(dt, b.clone())))
                    .collect();
                // TVM's order of the corners: (y, x) in 2-D; in 3-D the eight (z, y, x) of
                // its `_trilinear_sample`, weights multiplied x, y, z.
                let corners_order: Vec<Vec<i64>> = if k == 2 {
                    vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]
                } else {
                    vec![
                        vec![0, 0, 0],
                        vec![0, 0, 1],
                        vec![1, 1, 0],
                        vec![1, 1, 1],
                        vec![0, 1, 0],
                        vec![1, 0, 1],
                        vec![1, 0, 0],
                        vec![0, 1, 1],
                    ]
                };
                let weight = |a: usize, o: i64| {
                    if o == 0 {
                        te::sub(fc(1.0), frac[a].clone())
                    } else {
                        frac[a].clone()
                    }
                };
                let terms: Vec<PrimExpr> = corners_order
                    .iter()
                    .map(|offs| {
                        let at: Vec<PrimExpr> = base
                            .iter()
                            .zip(offs)
                            .map(|(b, &o)| te::add(b.clone(), te::i64c(o)))
                            .collect();
                        let mut v = pixel(&at);
                        // 2-D multiplies the y weight first, 3-D the x weight first.
                        let axes: Vec<usize> = if k == 2 { vec![0, 1] } else { vec![2, 1, 0] };
                        for a in axes {
                            v = te::mul(v, weight(a, offs[a]));
                        }
                        v
                    })
                    .collect();
                sum(terms)
            }
            _ => {
                // Bicubic (2-D): the padding mode applies to each tap's integer index.
                let alpha = -0.75;
                let w1 = |t: PrimExpr| {
                    te::add(
                        te::mul(
                            te::mul(
                                te::sub(te::mul(fc(alpha + 2.0), t.clone()), fc(alpha + 3.0)),
                                t.clone(),
                            ),
                            t,
                        ),
                        fc(1.0),
                    )
                };
                let w2 = |t: PrimExpr| {
                    te::sub(
                        te::mul(
                            te::add(
                                te::mul(
                                    te::sub(te::mul(fc(alpha), t.clone()), fc(5.0 * alpha)),
                                    t.clone(),
                                ),
                                fc(8.0 * alpha),
                            ),
                            t,
                        ),
                        fc(4.0 * alpha),
                    )
                };
                let interp = |p: [PrimExpr; 4], t: &PrimExpr| {
                    let w = [
                        w2(te::add(t.clone(), fc(1.0))),
                        w1(t.clone()),
                        w1(te::sub(fc(1.0), t.clone())),
                        w2(te::sub(fc(2.0), t.clone())),
                    ];
                    sum(p.into_iter().zip(w).map(|(a, b)| te::mul(a, b)).collect())
                };
                let (y, xv) = (&unnormalized[0], &unnormalized[1]);
                let (y0, x0) = (floor_i(y), floor_i(xv));
                let ty = te::sub(y.clone(), te::cast(dt, y0.clone()));
                let tx = te::sub(xv.clone(), te::cast(dt, x0.clone()));
                let tap = |b: &PrimExpr, o: i64, s: &PrimExpr| {
                    let v = te::add(b.clone(), te::i64c(o));
                    match padding {
                        "zeros" => v,
                        _ => {
                            let f = te::cast(dt, v);
                            let f = if padding == "reflection" {
                                reflect(f, s)
                            } else {
                                f
                            };
                            te::cast(DataType::INT64, clip(f, s))
                        }
                    }
                };
                let rows: Vec<PrimExpr> = (0..4)
                    .map(|j| {
                        let yy = tap(&y0, j - 1, &sizes[0]);
                        let p = [-1, 0, 1, 2].map(|o| pixel(&[yy.clone(), tap(&x0, o, &sizes[1])]));
                        interp(p, &tx)
                    })
                    .collect();
                let rows: [PrimExpr; 4] = [
                    rows[0].clone(),
                    rows[1].clone(),
                    rows[2].clone(),
                    rows[3].clone(),
                ];
                interp(rows, &ty)
            }
        }
    });
    c.finish("grid_sample", te, &[&x, &grid], &[out])
}
