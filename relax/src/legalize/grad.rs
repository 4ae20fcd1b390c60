//! The backward operators of `R.grad.*` (`nll_loss_backward`, `max_pool2d_backward`,
//! `avg_pool2d_backward`, `take_backward`), legalized with the semantics of TVM's
//! `python/tvm/relax/transform/legalize_ops/grad.py` and of the `topi.nn.pool_grad` it calls
//! (`include/tvm/topi/nn/pooling.h`, `pool_grad_impl`).
//!
//! TVM's struct-info inference checks nothing about these operators (the result is the forward
//! input's struct info), so the ranks, shapes and dtypes the computation needs are checked here,
//! each failure naming the argument. Shapes that are symbolic are declared as the kernel's
//! buffer shapes, so that the kernel's argument check catches a mismatch at run time.
//!
//! Where TVM's kernels read or write outside a buffer, these kernels define a result or fail
//! instead (see each rule); everywhere else they compute what TVM's do.

use tir::arith::SlidingWindow;
use tir::{CmpOp, DataType, PrimExpr, Stmt, Var};

use super::te::{self, Combiner, Te};
use super::{Lowered, OpCall, Result, Rule, TArg, unsupported};
use crate::Error;
use crate::ir::AttrValue;
use crate::op::common::shape_str;

pub(super) fn rule(name: &str) -> Option<Rule> {
    let r: Rule = match name {
        "grad.nll_loss_backward" => nll_loss_backward,
        "grad.max_pool2d_backward" => |c| pool2d_backward(c, true),
        "grad.avg_pool2d_backward" => |c| pool2d_backward(c, false),
        "grad.take_backward" => take_backward,
        _ => return None,
    };
    Some(r)
}

/// An error in the program: an argument the operator cannot take.
fn invalid<T>(c: &OpCall, msg: impl std::fmt::Display) -> Result<T> {
    Err(Error::TypeInference(format!(
        "{}: {msg}",
        crate::op::common::script_name(c.call)
    )))
}

/// `arg` (called `name`) as a buffer of shape `want`: an error where a dimension known on both
/// sides differs; dimensions known only at run time are checked by the kernel, whose buffer
/// has shape `want`.
fn expect_shape(c: &OpCall, name: &str, arg: &TArg, want: &[PrimExpr], why: &str) -> Result<TArg> {
    let got = arg.shape();
    let differs = got.len() != want.len()
        || got
            .iter()
            .zip(want)
            .any(|(g, w)| matches!((g.as_int(), w.as_int()), (Some(a), Some(b)) if a != b));
    if differs {
        return invalid(
            c,
            format!(
                "`{name}` has shape {}, expected {} ({why})",
                shape_str(got),
                shape_str(want)
            ),
        );
    }
    Ok(TArg {
        buf: te::placeholder(&arg.buf.name, want, arg.dtype()),
        expr: arg.expr.clone(),
    })
}

fn expect_dtype(c: &OpCall, name: &str, arg: &TArg, want: DataType) -> Result<()> {
    if arg.dtype() != want {
        return invalid(
            c,
            format!("`{name}` has dtype {}, expected {want}", arg.dtype()),
        );
    }
    Ok(())
}

fn float_dtype(c: &OpCall, name: &str, arg: &TArg) -> Result<DataType> {
    let dt = arg.dtype();
    if !dt.is_float() {
        return invalid(
            c,
            format!("`{name}` must be a float tensor, got dtype {dt}"),
        );
    }
    Ok(dt)
}

fn int_dtype(c: &OpCall, name: &str, arg: &TArg) -> Result<()> {
    if !arg.dtype().is_int_or_uint() {
        return invalid(
            c,
            format!(
                "`{name}` must be an integer tensor, got dtype {}",
                arg.dtype()
            ),
        );
    }
    Ok(())
}

/// `nll_loss_backward(output_grad, predictions, targets[, weights])`, TVM's
/// `te_nll_loss_backward`: with `w = weights[targets[i]]` (0 for an ignored target, weights
/// 1 when there are none), `g` the output gradient broadcast to the targets' shape ("sum"),
/// divided by the sum of `w` ("mean") or as given ("none", the targets' shape),
/// `pred_grad[n, c, d...] = c == targets[n, d...] ? -w * g : 0` (without `n` for 1-D
/// predictions and 0-D targets).
///
/// TVM zeroes the weight of class `ignore_index` only when `ignore_index >= 0`; a target equal
/// to a negative `ignore_index` (the default -100) makes its kernel read the weights outside
/// their buffer. Here such a target is ignored too, as the forward `R.nn.nll_loss` ignores it:
/// both agree with TVM wherever TVM's read stays inside the buffer. Any other target outside
/// `[0, C)` is an out-of-bounds error when the kernel runs.
fn nll_loss_backward(c: &OpCall) -> Result<Lowered> {
    let (g, p, t) = (c.tensor(0)?, c.tensor(1)?, c.tensor(2)?);
    let w = if c.call.args.len() > 3 {
        Some(c.tensor(3)?)
    } else {
        None
    };
    let reduction = c.attr_str("reduction").unwrap_or("mean").to_string();
    if !matches!(reduction.as_str(), "none" | "sum" | "mean") {
        return invalid(
            c,
            format!("`reduction` must be \"none\", \"sum\" or \"mean\", got \"{reduction}\""),
        );
    }
    let ignore = c.attr_int("ignore_index").unwrap_or(-100);
    let dt = float_dtype(c, "predictions", &p)?;
    expect_dtype(c, "output_grad", &g, dt)?;
    int_dtype(c, "targets", &t)?;
    let pn = p.ndim();
    if pn == 0 {
        return invalid(
            c,
            "`predictions` must have rank 1 (C,) or at least 2 (N, C, d...)",
        );
    }
    // Targets (N, d...) for predictions (N, C, d...); () for (C,).
    let (classes, tshape) = if pn == 1 {
        (p.shape()[0].clone(), Vec::new())
    } else {
        let mut s = vec![p.shape()[0].clone()];
        s.extend(p.shape()[2..].iter().cloned());
        (p.shape()[1].clone(), s)
    };
    let t = expect_shape(
        c,
        "targets",
        &t,
        &tshape,
        "predictions without the class axis",
    )?;
    let w = match &w {
        Some(w) => {
            expect_dtype(c, "weights", w, dt)?;
            Some(expect_shape(
                c,
                "weights",
                w,
                std::slice::from_ref(&classes),
                "one per class",
            )?)
        }
        None => None,
    };
    let g = if reduction == "none" {
        expect_shape(
            c,
            "output_grad",
            &g,
            &tshape,
            "reduction \"none\": the targets' shape",
        )?
    } else {
        // Broadcast to the targets' shape (usually a scalar, the loss's gradient).
        let off = tshape.len().checked_sub(g.ndim());
        let compatible = off.is_some_and(|off| {
            g.shape().iter().enumerate().all(|(d, s)| {
                match (s.as_int(), tshape[off + d].as_int()) {
                    (Some(1), _) => true,
                    (Some(a), Some(b)) => a == b,
                    _ => te::expr_eq(s, &tshape[off + d]),
                }
            })
        });
        if !compatible {
            return invalid(
                c,
                format!(
                    "`output_grad` of shape {} does not broadcast to the targets' shape {}",
                    shape_str(g.shape()),
                    shape_str(&tshape)
                ),
            );
        }
        g
    };

    let mut te = Te::new();
    let i64t = DataType::INT64;
    // Without weights TVM reads a tensor of ones; reading one here too keeps the bounds check
    // of the targets.
    let weights = match &w {
        Some(w) => w.buf.clone(),
        None => te.compute("T_full", "ax", std::slice::from_ref(&classes), |_| {
            te::one(dt)
        }),
    };
    let all_weights = te.compute("all_weights", "ax", &tshape, |i| {
        let cls = te::cast(i64t, te::load(&t.buf, i.to_vec()));
        te::if_then_else(
            te::cmp(CmpOp::Ne, cls.clone(), te::i64c(ignore)),
            te::load(&weights, vec![cls]),
            te::zero(dt),
        )
    });
    let weight_sum = (reduction == "mean").then(|| {
        if tshape.is_empty() {
            return all_weights.clone();
        }
        let raxes: Vec<(String, PrimExpr)> = tshape
            .iter()
            .enumerate()
            .map(|(d, e)| (format!("k{d}"), e.clone()))
            .collect();
        te.reduce("T_sum", &[], &raxes, Combiner::Sum, None, |_, r| {
            te::load(&all_weights, r.to_vec())
        })
    });
    let grad_at = |ti: &[PrimExpr]| -> PrimExpr {
        let v = te::load(
            &g.buf,
            super::elementwise::bcast_index(g.shape(), &tshape, ti),
        );
        match &weight_sum {
            Some(s) => te::div(v, te::load(s, Vec::new())),
            None => v,
        }
    };
    let out = te.compute("pred_grad", "ax", p.shape(), |i| {
        let (cls, ti) = if pn == 1 {
            (i[0].clone(), Vec::new())
        } else {
            let mut ti = vec![i[0].clone()];
            ti.extend(i[2..].iter().cloned());
            (i[1].clone(), ti)
        };
        let target = te::cast(i64t, te::load(&t.buf, ti.clone()));
        te::select(
            te::cmp(CmpOp::Eq, te::cast(i64t, cls), target),
            te::mul(
                te::sub(te::zero(dt), te::load(&all_weights, ti.clone())),
                grad_at(&ti),
            ),
            te::zero(dt),
        )
    });
    let mut inputs = vec![&g, &p, &t];
    if let Some(w) = &w {
        inputs.push(w);
    }
    c.finish("nll_loss_backward", te, &inputs, &[out])
}

/// The positions of `H` and `W` among the dimensions of `layout` (TVM's
/// `find_height_width`): `None` if either is missing, repeated, or split (`NCHW4h`).
fn height_width_axes(layout: &str) -> Option<(usize, usize, usize)> {
    let (mut h, mut w, mut n) = (None, None, 0);
    for ch in layout.chars().filter(char::is_ascii_alphabetic) {
        match ch {
            'H' if h.is_none() => h = Some(n),
            'W' if w.is_none() => w = Some(n),
            'H' | 'W' | 'h' | 'w' => return None,
            _ => {}
        }
        n += 1;
    }
    Some((h?, w?, n))
}

/// `{max,avg}_pool2d_backward(output_grad, data)`: TVM's `topi.nn.pool_grad`. For each input
/// element, the sum over the pooling windows that cover it (in TVM's order) of the output
/// gradient of the window: for max pooling only where the window's argmax is this element
/// (the first maximum in row-major order; padding never wins), for average pooling divided by
/// `kh * kw` (`count_include_pad`) or by the window's elements inside the data.
///
/// `padding` is `[top, left, bottom, right]`, used as given (no completion from fewer values);
/// `ceil_mode` pads `stride - 1` more at the bottom and right; the windows are those of
/// `out = (size + pads - pool) // stride + 1`, and `output_grad` must have that shape. TVM
/// legalizes only `dilation = [1, 1]` (any other stays unlegalized there; an error here).
/// `out_layout` is ignored as TVM ignores it: the result is in `layout`.
///
/// TVM's max kernel bounds the windows of an element from below only, and reads its argmax
/// buffer past the last window; here windows past the last output count for nothing, as in
/// the average kernel.
fn pool2d_backward(c: &OpCall, is_max: bool) -> Result<Lowered> {
    let (g, x) = (c.tensor(0)?, c.tensor(1)?);
    let layout = c.attr_str("layout").unwrap_or("NCHW").to_string();
    let Some((ha, wa, rank)) = height_width_axes(&layout) else {
        return unsupported(format!(
            "layout \"{layout}\": pool_grad needs one H and one W dimension, neither split"
        ));
    };
    if x.ndim() != rank {
        return invalid(
            c,
            format!(
                "`data` has rank {}, but layout \"{layout}\" has {rank} dimensions",
                x.ndim()
            ),
        );
    }
    let list = |name: &str, n: usize, what: &str| -> Result<Vec<i64>> {
        match c.attr_ints(name) {
            Some(v) if v.len() == n => Ok(v),
            v => invalid(
                c,
                format!(
                    "`{name}` must have {n} values ({what}), got {}",
                    v.map_or("none".to_string(), |v| format!("{v:?}"))
                ),
            ),
        }
    };
    let dilation = c.attr_ints("dilation").unwrap_or_else(|| vec![1, 1]);
    if dilation != [1, 1] {
        let hint = if dilation.len() == 4 {
            " (TVM prints `dilation` before `padding`; pass them by keyword)"
        } else {
            ""
        };
        return unsupported(format!(
            "dilation {dilation:?}: TVM's pool_grad supports only [1, 1]{hint}"
        ));
    }
    let pool = list("pool_size", 2, "height, width")?;
    let strides = list("strides", 2, "height, width")?;
    let padding = list("padding", 4, "top, left, bottom, right")?;
    if pool.iter().chain(&strides).any(|&v| v < 1) || padding.iter().any(|&v| v < 0) {
        return invalid(
            c,
            format!(
                "pool_size {pool:?} and strides {strides:?} must be positive, padding \
                 {padding:?} not negative"
            ),
        );
    }
    let ceil_mode = c.attr_bool("ceil_mode").unwrap_or(false);
    let include_pad = c.attr_bool("count_include_pad").unwrap_or(false);
    let dt = float_dtype(c, "data", &x)?;
    expect_dtype(c, "output_grad", &g, dt)?;
    let (Some(height), Some(width)) = (x.shape()[ha].as_int(), x.shape()[wa].as_int()) else {
        return unsupported(format!(
            "pool2d backward of data of shape {} (symbolic height or width)",
            shape_str(x.shape())
        ));
    };
    let (kh, kw, sh, sw) = (pool[0], pool[1], strides[0], strides[1]);
    let (pt, pl) = (padding[0], padding[1]);
    // TVM's `pool_grad` pads `stride - 1` more after in ceil mode and counts the windows of
    // that padded data: ceil mode's count, keeping a last window that starts in the padding
    // after the data, which the forward pool drops (`SlidingWindow`, exact for attributes up
    // to 2^63 - 1; a padding near 2^63 saturates, and its padded extent is rejected below).
    let extra = |s: i64| if ceil_mode { s - 1 } else { 0 };
    let axis = |lo: i64, hi: i64, s: i64| SlidingWindow {
        stride: s,
        dilation: 1,
        pad_before: lo,
        pad_after: hi.saturating_add(extra(s)),
        ceil_mode: false,
    };
    let (rows, cols) = (axis(pt, padding[2], sh), axis(pl, padding[3], sw));
    let padded_w = i64::try_from(cols.padded(width));
    let (Some(out_h), Some(out_w), Ok(padded_w)) = (
        rows.positions(height, kh),
        cols.positions(width, kw),
        padded_w,
    ) else {
        return invalid(
            c,
            format!(
                "the pool {pool:?} with strides {strides:?} and padding {padding:?} over {height} x {width} data: the padded extents exceed 2^63 - 1"
            ),
        );
    };
    if out_h < 1 || out_w < 1 {
        return invalid(
            c,
            format!(
                "the pool {pool:?} is larger than the padded data ({} x {})",
                rows.padded(height),
                cols.padded(width)
            ),
        );
    }
    let mut want = x.shape().to_vec();
    want[ha] = te::i64c(out_h);
    want[wa] = te::i64c(out_w);
    let g = expect_shape(c, "output_grad", &g, &want, "the pooled data's shape")?;

    // The windows covering padded position `p` along one axis: `o = p / s - r` for
    // `r < ceil(k / s)`, counted when `max((p - k) / s + 1, 0) <= o < out`.
    let window = |i: &[PrimExpr], r: &[PrimExpr]| -> (Vec<PrimExpr>, PrimExpr, PrimExpr) {
        let ph = te::add(i[ha].clone(), te::i64c(pt));
        let pw = te::add(i[wa].clone(), te::i64c(pl));
        let axis = |p: &PrimExpr, r: &PrimExpr, k: i64, s: i64, out: i64| {
            let o = te::sub(te::floordiv(p.clone(), te::i64c(s)), r.clone());
            let lower = te::max(
                te::add(
                    te::floordiv(te::sub(p.clone(), te::i64c(k)), te::i64c(s)),
                    te::i64c(1),
                ),
                te::i64c(0),
            );
            let ok = te::and(
                te::cmp(CmpOp::Ge, o.clone(), lower),
                te::cmp(CmpOp::Lt, o.clone(), te::i64c(out)),
            );
            (o, ok)
        };
        let (oh, ok_h) = axis(&ph, &r[0], kh, sh, out_h);
        let (ow, ok_w) = axis(&pw, &r[1], kw, sw, out_w);
        let flat = te::add(te::mul(ph, te::i64c(padded_w)), pw);
        let mut o = i.to_vec();
        o[ha] = oh;
        o[wa] = ow;
        (o, te::and(ok_h, ok_w), flat)
    };
    let raxes = [
        ("wh".to_string(), te::i64c((kh - 1) / sh + 1)),
        ("ww".to_string(), te::i64c((kw - 1) / sw + 1)),
    ];
    let mut te = Te::new();
    let out = if is_max {
        let argmax = max_pool_argmax(
            &mut te,
            &x,
            &want,
            (ha, wa),
            [kh, kw, sh, sw, pt, pl],
            padded_w,
        );
        te.reduce(
            "T_pool_grad",
            x.shape(),
            &raxes,
            Combiner::Sum,
            None,
            |i, r| {
                let (o, ok, flat) = window(i, r);
                te::if_then_else(
                    ok,
                    te::if_then_else(
                        te::cmp(CmpOp::Eq, te::load(&argmax, o.clone()), flat),
                        te::load(&g.buf, o),
                        te::zero(dt),
                    ),
                    te::zero(dt),
                )
            },
        )
    } else {
        te.reduce(
            "T_pool_grad",
            x.shape(),
            &raxes,
            Combiner::Sum,
            None,
            |i, r| {
                let (o, ok, _) = window(i, r);
                let count = if include_pad {
                    te::i64c(kh * kw)
                } else {
                    let inside = |o: &PrimExpr, s: i64, p: i64, k: i64, n: i64| {
                        let start = te::sub(te::mul(o.clone(), te::i64c(s)), te::i64c(p));
                        let end = te::min(te::add(start.clone(), te::i64c(k)), te::i64c(n));
                        te::sub(end, te::max(start, te::i64c(0)))
                    };
                    te::max(
                        te::mul(
                            inside(&o[ha], sh, pt, kh, height),
                            inside(&o[wa], sw, pl, kw, width),
                        ),
                        te::i64c(1),
                    )
                };
                te::if_then_else(
                    ok,
                    te::div(te::load(&g.buf, o), te::cast(dt, count)),
                    te::zero(dt),
                )
            },
        )
    };
    let name = if is_max {
        "max_pool2d_backward"
    } else {
        "avg_pool2d_backward"
    };
    c.finish(name, te, &[&g, &x], &[out])
}

/// The argmax of each max-pooling window of `x` (TVM's `maxpool_grad_argmax`): the index
/// `ph * padded_w + pw` of its element in the padded plane, combined as TVM's argmax reducer
/// does (starting from index -1 and the dtype's lowest value; a larger value wins, an equal
/// one keeps the smaller index), so padding and values equal to the lowest never win.
fn max_pool_argmax(
    te: &mut Te,
    x: &TArg,
    out_shape: &[PrimExpr],
    (ha, wa): (usize, usize),
    [kh, kw, sh, sw, pt, pl]: [i64; 6],
    padded_w: i64,
) -> tir::Buffer {
    let dt = x.dtype();
    let i64t = DataType::INT64;
    let v0 = te::placeholder("maxpool_grad_argmax_v0", out_shape, i64t);
    let v1 = te::placeholder("maxpool_grad_argmax_v1", out_shape, dt);
    let (height, width) = (x.shape()[ha].clone(), x.shape()[wa].clone());
    let raxes = [
        ("dh".to_string(), te::i64c(kh)),
        ("dw".to_string(), te::i64c(kw)),
    ];
    let (b0, b1) = (v0.clone(), v1.clone());
    te.custom(
        "maxpool_grad_argmax",
        "ax",
        out_shape,
        &raxes,
        vec![v0.clone(), v1],
        |i, r| {
            let ph = te::add(te::mul(i[ha].clone(), te::i64c(sh)), r[0].clone());
            let pw = te::add(te::mul(i[wa].clone(), te::i64c(sw)), r[1].clone());
            let h = te::sub(ph.clone(), te::i64c(pt));
            let w = te::sub(pw.clone(), te::i64c(pl));
            let inside = te::and(
                te::and(
                    te::cmp(CmpOp::Ge, h.clone(), te::i64c(0)),
                    te::cmp(CmpOp::Lt, h.clone(), height.clone()),
                ),
                te::and(
                    te::cmp(CmpOp::Ge, w.clone(), te::i64c(0)),
                    te::cmp(CmpOp::Lt, w.clone(), width.clone()),
                ),
            );
            let mut xi = i.to_vec();
            xi[ha] = h;
            xi[wa] = w;
            let src = te::if_then_else(inside, te::load(&x.buf, xi), PrimExpr::min_value(dt));
            let flat = te::add(te::mul(ph, te::i64c(padded_w)), pw);
            let (init, body) = super::reduce::arg_fold_step(
                &b0,
                &b1,
                i,
                CmpOp::Gt,
                src,
                flat,
                PrimExpr::min_value(dt),
                "maxpool_grad_argmax",
            );
            (Some(init), body)
        },
    );
    v0
}

/// `take_backward(output_grad, x, indices, axis)`: TVM's `te_take_backward`, zeros of `x`'s
/// shape into which each element of `output_grad` is added at the position its index names
/// (so repeated indices accumulate), sequentially: for each position outside the axis, the
/// indices in order. Without an axis `x` is taken flat.
///
/// Beyond TVM's kernel: a negative `axis` counts from the end (TVM's kernel computes its
/// offsets from the negative number and writes outside the buffer); indices of any rank are
/// taken (TVM asserts 1-D indices); an index outside the axis is an out-of-bounds error when
/// the kernel runs (TVM writes outside the buffer). `mode` is the empty string TVM stores;
/// `"fast"` is taken as the same, and `"clip"`/`"wrap"`, which TVM's kernel would ignore, are
/// refused.
fn take_backward(c: &OpCall) -> Result<Lowered> {
    let (g, x, ind) = (c.tensor(0)?, c.tensor(1)?, c.tensor(2)?);
    let mode = c.attr_str("mode").unwrap_or("");
    if !matches!(mode, "" | "fast") {
        return unsupported(format!(
            "mode \"{mode}\": TVM's take_backward has no mode (indices must lie in the axis)"
        ));
    }
    int_dtype(c, "indices", &ind)?;
    let dt = x.dtype();
    expect_dtype(c, "output_grad", &g, dt)?;
    let n = x.ndim();
    if n == 0 {
        return invalid(c, "`x` must have rank 1 or more, got a rank-0 tensor");
    }
    let axis = match c.attr("axis") {
        None | Some(AttrValue::None) => None,
        Some(v) => match v.as_int() {
            Some(a) if (-(n as i64)..n as i64).contains(&a) => {
                Some(if a < 0 { a + n as i64 } else { a } as usize)
            }
            Some(a) => {
                return invalid(
                    c,
                    format!("`axis` {a} is outside the {n} dimensions of `x`"),
                );
            }
            None => return invalid(c, format!("`axis` must be an integer or None, got {v:?}")),
        },
    };
    let want: Vec<PrimExpr> = match axis {
        Some(a) => {
            let mut s = x.shape()[..a].to_vec();
            s.extend(ind.shape().iter().cloned());
            s.extend(x.shape()[a + 1..].iter().cloned());
            s
        }
        None => ind.shape().to_vec(),
    };
    let g = expect_shape(c, "output_grad", &g, &want, "the shape of take's result")?;
    let out = te::placeholder("out_buf", x.shape(), dt);
    let vars = |prefix: &str, shape: &[PrimExpr]| -> Vec<(Var, PrimExpr)> {
        shape
            .iter()
            .enumerate()
            .map(|(d, e)| (Var::new(format!("{prefix}{d}"), DataType::INT64), e.clone()))
            .collect()
    };
    let nest = |loops: Vec<(Var, PrimExpr)>, body: Stmt| {
        loops.into_iter().rev().fold(body, |s, (v, e)| {
            te::for_loop(&v, e, tir::ForKind::Serial, s)
        })
    };
    let at = |vs: &[(Var, PrimExpr)]| -> Vec<PrimExpr> {
        vs.iter().map(|(v, _)| PrimExpr::from(v)).collect()
    };
    let zeros = {
        let vs = vars("i", x.shape());
        let store = te::store(&out, at(&vs), te::zero(dt));
        nest(vs, store)
    };
    let lv = vars("l", ind.shape());
    let index = te::cast(DataType::INT64, te::load(&ind.buf, at(&lv)));
    let accumulate = match axis {
        Some(a) => {
            let pre = vars("i", &x.shape()[..a]);
            let post = vars("j", &x.shape()[a + 1..]);
            let mut oi = at(&pre);
            oi.push(index);
            oi.extend(at(&post));
            let mut gi = at(&pre);
            gi.extend(at(&lv));
            gi.extend(at(&post));
            let add = te::store(
                &out,
                oi.clone(),
                te::add(te::load(&out, oi), te::load(&g.buf, gi)),
            );
            let mut loops = pre;
            loops.extend(post);
            loops.extend(lv);
            nest(loops, add)
        }
        None => {
            // The flat index as a position in `x`: an index outside `[0, size)` gives a first
            // coordinate outside the first dimension, which the bounds check refuses.
            let mut oi = Vec::with_capacity(n);
            for d in 0..n {
                let stride = te::product(&x.shape()[d + 1..]);
                let q = te::floordiv(index.clone(), stride);
                oi.push(if d == 0 {
                    q
                } else {
                    te::floormod(q, x.shape()[d].clone())
                });
            }
            let add = te::store(
                &out,
                oi.clone(),
                te::add(te::load(&out, oi), te::load(&g.buf, at(&lv))),
            );
            nest(lv, add)
        }
    };
    let mut te = Te::new();
    te.opaque(
        "take_backward",
        vec![out.clone()],
        Stmt::seq(vec![zeros, accumulate]),
    );
    c.finish("take_backward", te, &[&g, &x, &ind], &[out])
}
