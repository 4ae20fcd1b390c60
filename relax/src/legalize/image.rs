//! Image operators: `R.image.resize2d`, written like TVM's `topi.image.resize2d` (the
//! computation TVM's legalization calls): every output pixel maps its coordinates back into
//! the input (`coordinate_transformation_mode`), in `float32` whatever the data's dtype, and
//! takes the nearest input pixel (`nearest_neighbor`, by `rounding_method`), blends the 2×2
//! around it (`linear`) or the 4×4 (`cubic`, Keys' spline with `cubic_alpha`), reading with
//! indices clamped into the image; the result is cast to `out_dtype` (unset: the data's).

use tir::{CmpOp, DataType, PrimExpr};

use super::te::{self, Te};
use super::{Lowered, OpCall, Result, Rule, unsupported};
use crate::op::image::resize2d_layout;

pub(super) fn rule(name: &str) -> Option<Rule> {
    match name {
        "image.resize2d" => Some(resize2d),
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
