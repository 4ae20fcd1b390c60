//! More neural-network operators: rms_norm, group_norm, instance_norm, batch_norm (inference
//! and training), relu6, selu, softplus, prelu, adaptive_avg_pool1d/2d/3d (NC[D][H]W),
//! batch_flatten, pixel_shuffle, attention (with bias and causal masks),
//! cross_entropy_with_logits and nll_loss, written like TVM's topi computations.

use tir::{Buffer, CmpOp, DataType, PrimExpr};

use super::te::{self, Combiner, Te};
use super::{Lowered, OpCall, Result, Rule, TArg, unsupported};

pub(super) fn rule(name: &str) -> Option<Rule> {
    let r: Rule = match name {
        "nn.rms_norm" => rms_norm,
        "nn.group_norm" => group_norm,
        "nn.instance_norm" => instance_norm,
        "nn.batch_norm" => batch_norm,
        "nn.relu6" => relu6,
        "nn.selu" => selu,
        "nn.softplus" => softplus,
        "nn.prelu" => prelu,
        "nn.adaptive_avg_pool1d" => |c| adaptive_avg_pool(c, 1),
        "nn.adaptive_avg_pool2d" => |c| adaptive_avg_pool(c, 2),
        "nn.adaptive_avg_pool3d" => |c| adaptive_avg_pool(c, 3),
        "nn.batch_flatten" => batch_flatten,
        "nn.pixel_shuffle" => pixel_shuffle,
        "nn.attention" => attention,
        "nn.cross_entropy_with_logits" => cross_entropy_with_logits,
        "nn.nll_loss" => nll_loss,
        _ => return None,
    };
    Some(r)
}

fn norm_axis(a: i64, ndim: usize) -> usize {
    if a < 0 { a + ndim as i64 } else { a }.max(0) as usize
}

/// Sorted, normalized, deduplicated axes; an error naming `attr` when one is out of range.
fn axes_attr(c: &OpCall, attr: &str, default: &[i64], nd: usize) -> Result<Vec<usize>> {
    let raw = c.attr_ints(attr).unwrap_or_else(|| default.to_vec());
    let mut axes = Vec::new();
    for a in raw {
        let n = norm_axis(a, nd);
        if n >= nd || a < -(nd as i64) {
            return unsupported(format!("attribute `{attr}`: axis {a} out of range"));
        }
        if !axes.contains(&n) {
            axes.push(n);
        }
    }
    axes.sort_unstable();
    Ok(axes)
}

fn axis_attr(c: &OpCall, attr: &str, default: i64, nd: usize) -> Result<usize> {
    let a = c.attr_int(attr).unwrap_or(default);
    let n = norm_axis(a, nd);
    if n >= nd || a < -(nd as i64) {
        return unsupported(format!("attribute `{attr}`: axis {a} out of range"));
    }
    Ok(n)
}

/// The accumulation type: float32 for narrower floats (as topi does for fp16 norms).
fn acc_type(dt: DataType) -> DataType {
    if dt.is_float() && dt.bits < 32 {
        DataType::FLOAT32
    } else {
        dt
    }
}

/// A float constant of `dt` for an extent (a literal when the extent is constant).
fn extent_as(dt: DataType, n: &PrimExpr) -> PrimExpr {
    match n.as_int() {
        Some(v) => te::constf(dt, v as f64),
        None => te::cast(dt, n.clone()),
    }
}

/// A full data index from a statistics index and a reduction index.
type FullIndex<'a> = Box<dyn Fn(&[PrimExpr], &[PrimExpr]) -> Vec<PrimExpr> + 'a>;
/// A statistics index from a full data index.
type StatIndex<'a> = Box<dyn Fn(&[PrimExpr]) -> Vec<PrimExpr> + 'a>;

/// How a normalization reduces: the reduced (statistics) shape, the reduction axes, and the
/// maps between full indices and statistics/reduction indices.
struct Reduction<'a> {
    /// Statistics shape.
    red: Vec<PrimExpr>,
    raxes: Vec<(String, PrimExpr)>,
    /// Full index of the data from a statistics index and a reduction index.
    full: FullIndex<'a>,
    /// Statistics index of a full index.
    stat: StatIndex<'a>,
    /// Number of reduced elements.
    count: PrimExpr,
}

/// Reduction over `axes` of `shape` (layer/instance/batch norm).
fn over_axes<'a>(shape: &[PrimExpr], axes: &'a [usize]) -> Reduction<'a> {
    let nd = shape.len();
    let red: Vec<PrimExpr> = (0..nd)
        .filter(|d| !axes.contains(d))
        .map(|d| shape[d].clone())
        .collect();
    let raxes = axes
        .iter()
        .map(|&d| (format!("k{d}"), shape[d].clone()))
        .collect();
    let count = te::product(&axes.iter().map(|&d| shape[d].clone()).collect::<Vec<_>>());
    Reduction {
        red,
        raxes,
        full: Box::new(move |i, k| {
            let (mut ii, mut kk) = (0, 0);
            (0..nd)
                .map(|d| {
                    if axes.contains(&d) {
                        kk += 1;
                        k[kk - 1].clone()
                    } else {
                        ii += 1;
                        i[ii - 1].clone()
                    }
                })
                .collect()
        }),
        stat: Box::new(move |i| {
            (0..nd)
                .filter(|d| !axes.contains(d))
                .map(|d| i[d].clone())
                .collect()
        }),
        count,
    }
}

/// Mean and (biased) variance of `x` over a reduction, accumulated in `acc`.
fn moments(te: &mut Te, x: &TArg, r: &Reduction, acc: DataType) -> (Buffer, Buffer) {
    let xn = x.buf.name.clone();
    let n = extent_as(acc, &r.count);
    let sum = te.reduce(
        &format!("{xn}_red"),
        &r.red,
        &r.raxes,
        Combiner::Sum,
        None,
        |i, k| te::cast(acc, te::load(&x.buf, (r.full)(i, k))),
    );
    let mean = te.compute("T_divide", "ax", &r.red, |i| {
        te::div(te::load(&sum, i.to_vec()), n.clone())
    });
    let vsum = te.reduce(
        &format!("{xn}_var_red"),
        &r.red,
        &r.raxes,
        Combiner::Sum,
        None,
        |i, k| {
            let d = te::sub(
                te::cast(acc, te::load(&x.buf, (r.full)(i, k))),
                te::load(&mean, i.to_vec()),
            );
            te::mul(d.clone(), d)
        },
    );
    let var = te.compute("T_divide", "ax", &r.red, |i| {
        te::div(te::load(&vsum, i.to_vec()), n.clone())
    });
    (mean, var)
}

/// `(x - mean) * rsqrt(var + eps) [* gamma] [+ beta]`, the parameters indexed by `param`.
#[allow(clippy::too_many_arguments)]
fn normalize(
    te: &mut Te,
    c: &OpCall,
    x: &TArg,
    (gamma, beta): (&TArg, &TArg),
    r: &Reduction,
    (mean, var): (&Buffer, &Buffer),
    acc: DataType,
    param: &dyn Fn(&[PrimExpr]) -> Vec<PrimExpr>,
) -> Buffer {
    let dt = x.dtype();
    let eps = c.attr_f64("epsilon").unwrap_or(1e-5);
    let (center, scale) = (
        c.attr_bool("center").unwrap_or(true),
        c.attr_bool("scale").unwrap_or(true),
    );
    te.compute("T_norm", "ax", x.shape(), |i| {
        let s = (r.stat)(i);
        let centered = te::sub(
            te::cast(acc, te::load(&x.buf, i.to_vec())),
            te::load(mean, s.clone()),
        );
        let rs = te::intrin(
            "rsqrt",
            vec![te::add(te::load(var, s), te::constf(acc, eps))],
        );
        let mut v = te::mul(centered, rs);
        if scale {
            v = te::mul(v, te::cast(acc, te::load(&gamma.buf, param(i))));
        }
        if center {
            v = te::add(v, te::cast(acc, te::load(&beta.buf, param(i))));
        }
        te::cast(dt, v)
    })
}

fn rms_norm(c: &OpCall) -> Result<Lowered> {
    let (x, w) = (c.tensor(0)?, c.tensor(1)?);
    let nd = x.ndim();
    let axes = axes_attr(c, "axes", &[-1], nd)?;
    let eps = c.attr_f64("epsilon").unwrap_or(1e-5);
    let dt = x.dtype();
    let acc = acc_type(dt);
    let r = over_axes(x.shape(), &axes);
    let n = extent_as(acc, &r.count);
    let mut te = Te::new();
    let sq = te.reduce(
        &format!("{}_red", x.buf.name),
        &r.red,
        &r.raxes,
        Combiner::Sum,
        None,
        |i, k| {
            let v = te::cast(acc, te::load(&x.buf, (r.full)(i, k)));
            te::mul(v.clone(), v)
        },
    );
    let out = te.compute("T_rms_norm", "ax", x.shape(), |i| {
        let rs = te::intrin(
            "rsqrt",
            vec![te::add(
                te::div(te::load(&sq, (r.stat)(i)), n.clone()),
                te::constf(acc, eps),
            )],
        );
        let wi: Vec<PrimExpr> = axes.iter().map(|&d| i[d].clone()).collect();
        te::cast(
            dt,
            te::mul(
                te::mul(te::cast(acc, te::load(&x.buf, i.to_vec())), rs),
                te::cast(acc, te::load(&w.buf, wi)),
            ),
        )
    });
    c.finish("rms_norm", te, &[&x, &w], &[out])
}

fn instance_norm(c: &OpCall) -> Result<Lowered> {
    let (x, g, b) = (c.tensor(0)?, c.tensor(1)?, c.tensor(2)?);
    let nd = x.ndim();
    let ch = axis_attr(c, "channel_axis", 1, nd)?;
    let default: Vec<i64> = (2..nd as i64).collect();
    let axes = axes_attr(c, "axes", &default, nd)?;
    if axes.contains(&ch) {
        return unsupported("attribute `axes` contains the channel axis");
    }
    let acc = acc_type(x.dtype());
    let r = over_axes(x.shape(), &axes);
    let mut te = Te::new();
    let (mean, var) = moments(&mut te, &x, &r, acc);
    let out = normalize(&mut te, c, &x, (&g, &b), &r, (&mean, &var), acc, &|i| {
        vec![i[ch].clone()]
    });
    c.finish("instance_norm", te, &[&x, &g, &b], &[out])
}

fn group_norm(c: &OpCall) -> Result<Lowered> {
    let (x, g, b) = (c.tensor(0)?, c.tensor(1)?, c.tensor(2)?);
    let nd = x.ndim();
    let ch = axis_attr(c, "channel_axis", 1, nd)?;
    let axes = axes_attr(c, "axes", &[], nd)?;
    if axes.contains(&ch) {
        return unsupported("attribute `axes` contains the channel axis");
    }
    let groups = c.attr_int("num_groups").unwrap_or(1);
    let Some(chans) = x.shape()[ch].as_int() else {
        return unsupported("symbolic channel count");
    };
    if groups <= 0 || chans % groups != 0 {
        return unsupported(format!(
            "attribute `num_groups` {groups} does not divide {chans} channels"
        ));
    }
    let per = chans / groups;
    let shape = x.shape().to_vec();
    let kept: Vec<usize> = (0..nd).filter(|d| !axes.contains(d)).collect();
    let red: Vec<PrimExpr> = kept
        .iter()
        .map(|&d| {
            if d == ch {
                te::i64c(groups)
            } else {
                shape[d].clone()
            }
        })
        .collect();
    let mut raxes = vec![("kc".to_string(), te::i64c(per))];
    raxes.extend(axes.iter().map(|&d| (format!("k{d}"), shape[d].clone())));
    let mut counted = vec![te::i64c(per)];
    counted.extend(axes.iter().map(|&d| shape[d].clone()));
    let (kept2, axes2) = (kept.clone(), axes.clone());
    let r = Reduction {
        red,
        raxes,
        full: Box::new(move |i, k| {
            (0..nd)
                .map(|d| {
                    if d == ch {
                        let p = kept2.iter().position(|&e| e == ch).unwrap_or(0);
                        te::add(te::mul(i[p].clone(), te::i64c(per)), k[0].clone())
                    } else if let Some(p) = axes2.iter().position(|&e| e == d) {
                        k[1 + p].clone()
                    } else {
                        let p = kept2.iter().position(|&e| e == d).unwrap_or(0);
                        i[p].clone()
                    }
                })
                .collect()
        }),
        stat: Box::new(move |i| {
            kept.iter()
                .map(|&d| {
                    if d == ch {
                        te::floordiv(i[d].clone(), te::i64c(per))
                    } else {
                        i[d].clone()
                    }
                })
                .collect()
        }),
        count: te::product(&counted),
    };
    let acc = acc_type(x.dtype());
    let mut te = Te::new();
    let (mean, var) = moments(&mut te, &x, &r, acc);
    let out = normalize(&mut te, c, &x, (&g, &b), &r, (&mean, &var), acc, &|i| {
        vec![i[ch].clone()]
    });
    c.finish("group_norm", te, &[&x, &g, &b], &[out])
}

/// topi's batch_norm: `(out, moving_mean, moving_var)`; in training mode the statistics come
/// from the batch and the moving averages are updated with `momentum`.
fn batch_norm(c: &OpCall) -> Result<Lowered> {
    let (x, g, b, mm, mv) = (
        c.tensor(0)?,
        c.tensor(1)?,
        c.tensor(2)?,
        c.tensor(3)?,
        c.tensor(4)?,
    );
    let nd = x.ndim();
    let ch = axis_attr(c, "axis", 1, nd)?;
    let training = c.attr_bool("training").unwrap_or(false);
    let momentum = c.attr_f64("momentum").unwrap_or(0.1);
    if training && !(0.0..=1.0).contains(&momentum) {
        return unsupported(format!("attribute `momentum` {momentum} outside [0, 1]"));
    }
    let axes: Vec<usize> = (0..nd).filter(|&d| d != ch).collect();
    let acc = acc_type(x.dtype());
    let r = over_axes(x.shape(), &axes);
    let pdt = mm.dtype();
    let mut te = Te::new();
    let (mean, var) = if training {
        moments(&mut te, &x, &r, acc)
    } else {
        let m = te.compute("T_cast", "ax", mm.shape(), |i| {
            te::cast(acc, te::load(&mm.buf, i.to_vec()))
        });
        let v = te.compute("T_cast", "ax", mv.shape(), |i| {
            te::cast(acc, te::load(&mv.buf, i.to_vec()))
        });
        (m, v)
    };
    let out = normalize(&mut te, c, &x, (&g, &b), &r, (&mean, &var), acc, &|i| {
        vec![i[ch].clone()]
    });
    let update = |te: &mut Te, old: &TArg, new: &Buffer| {
        te.compute("T_add", "ax", old.shape(), |i| {
            if training {
                te::cast(
                    pdt,
                    te::add(
                        te::mul(
                            te::cast(acc, te::load(&old.buf, i.to_vec())),
                            te::constf(acc, 1.0 - momentum),
                        ),
                        te::mul(te::load(new, i.to_vec()), te::constf(acc, momentum)),
                    ),
                )
            } else {
                te::load(&old.buf, i.to_vec())
            }
        })
    };
    let nm = update(&mut te, &mm, &mean);
    let nv = update(&mut te, &mv, &var);
    c.finish("batch_norm", te, &[&x, &g, &b, &mm, &mv], &[out, nm, nv])
}

fn unary(c: &OpCall, name: &str, f: impl Fn(PrimExpr, DataType) -> PrimExpr) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let dt = x.dtype();
    let mut te = Te::new();
    let out = te.compute("compute", "i", x.shape(), |i| {
        f(te::load(&x.buf, i.to_vec()), dt)
    });
    c.finish(name, te, &[&x], &[out])
}

/// `clip(x, 0, 6)`.
fn relu6(c: &OpCall) -> Result<Lowered> {
    unary(c, "relu6", |v, dt| {
        te::max(te::min(v, te::constf(dt, 6.0)), te::zero(dt))
    })
}

/// `scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))`.
fn selu(c: &OpCall) -> Result<Lowered> {
    const ALPHA: f64 = 1.673_263_242_354_377_3;
    const SCALE: f64 = 1.050_700_987_355_480_5;
    unary(c, "selu", |v, dt| {
        let f = |x: f64| te::constf(dt, x);
        let neg = te::mul(
            f(ALPHA),
            te::sub(te::intrin("exp", vec![v.clone()]), f(1.0)),
        );
        te::mul(
            f(SCALE),
            te::add(te::max(te::zero(dt), v), te::min(te::zero(dt), neg)),
        )
    })
}

/// `x` where `beta * x > threshold`, else `log(1 + exp(beta * x)) / beta`.
fn softplus(c: &OpCall) -> Result<Lowered> {
    let beta = c.attr_f64("beta").unwrap_or(1.0);
    let threshold = c.attr_f64("threshold").unwrap_or(20.0);
    if beta == 0.0 {
        return unsupported("attribute `beta` 0");
    }
    unary(c, "softplus", |v, dt| {
        let f = |x: f64| te::constf(dt, x);
        let bx = te::mul(v.clone(), f(beta));
        let soft = te::div(
            te::intrin(
                "log",
                vec![te::add(f(1.0), te::intrin("exp", vec![bx.clone()]))],
            ),
            f(beta),
        );
        te::select(te::cmp(CmpOp::Gt, bx, f(threshold)), v, soft)
    })
}

/// `x > 0 ? x : x * alpha[i[axis]]`.
fn prelu(c: &OpCall) -> Result<Lowered> {
    let (x, a) = (c.tensor(0)?, c.tensor(1)?);
    let ax = axis_attr(c, "axis", 1, x.ndim())?;
    if a.ndim() != 1 {
        return unsupported("attribute `axis`: alpha must be one-dimensional");
    }
    let dt = x.dtype();
    let mut te = Te::new();
    let out = te.compute("compute", "i", x.shape(), |i| {
        let v = te::load(&x.buf, i.to_vec());
        te::select(
            te::cmp(CmpOp::Gt, v.clone(), te::zero(dt)),
            v.clone(),
            te::mul(v, te::load(&a.buf, vec![i[ax].clone()])),
        )
    });
    c.finish("prelu", te, &[&x, &a], &[out])
}

/// Adaptive average pooling in NCW/NCHW/NCDHW: window `[floor(o*n/m), ceil((o+1)*n/m))`,
/// summed over the largest window size with out-of-window elements masked.
fn adaptive_avg_pool(c: &OpCall, k: usize) -> Result<Lowered> {
    let layouts = ["NCW", "NCHW", "NCDHW"];
    let want = layouts[k - 1];
    let layout = c.attr_str("layout").unwrap_or(want);
    let out_layout = c.attr_str("out_layout").unwrap_or(layout);
    if layout != want || out_layout != want {
        return unsupported(format!(
            "pool layouts {layout}/{out_layout} (only {want}, permutations of its letters, and split axes on tensors of known shape)"
        ));
    }
    let x = c.tensor(0)?;
    let (out_shape, _) = c.out_tensor()?;
    if x.ndim() != k + 2 || out_shape.len() != k + 2 {
        return unsupported(format!("adaptive pooling of a rank-{} tensor", x.ndim()));
    }
    let dt = x.dtype();
    let mut ins = Vec::new();
    let mut outs = Vec::new();
    for d in 0..k {
        let (Some(n), Some(m)) = (x.shape()[2 + d].as_int(), out_shape[2 + d].as_int()) else {
            return unsupported("attribute `output_size`: symbolic spatial sizes");
        };
        if m <= 0 {
            return unsupported("attribute `output_size`: empty output");
        }
        ins.push(n);
        outs.push(m);
    }
    // Largest window per dimension: measured over the outputs when they are few; past that,
    // the bound ceil(n / m) + 1 (windows outside it are masked below), so that an
    // `output_size` from the text cannot make this loop run for ever.
    let win: Vec<i64> = (0..k)
        .map(|d| {
            let (n, m) = (i128::from(ins[d]), i128::from(outs[d]));
            let w = if m <= 1 << 16 {
                (0..m)
                    .map(|o| (((o + 1) * n + m - 1) / m) - o * n / m)
                    .max()
                    .unwrap_or(1)
            } else {
                n.min((n + m - 1) / m + 1)
            };
            i64::try_from(w).unwrap_or(i64::MAX)
        })
        .collect();
    let start = |o: &PrimExpr, d: usize| {
        te::floordiv(te::mul(o.clone(), te::i64c(ins[d])), te::i64c(outs[d]))
    };
    let end = |o: &PrimExpr, d: usize| {
        te::floordiv(
            te::add(
                te::mul(te::add(o.clone(), te::i64c(1)), te::i64c(ins[d])),
                te::i64c(outs[d] - 1),
            ),
            te::i64c(outs[d]),
        )
    };
    let raxes: Vec<(String, PrimExpr)> = (0..k)
        .map(|d| (format!("rv{d}"), te::i64c(win[d])))
        .collect();
    let mut te = Te::new();
    let sum = te.reduce(
        "adaptive_pool_sum",
        &out_shape,
        &raxes,
        Combiner::Sum,
        None,
        |i, r| {
            let mut idx = vec![i[0].clone(), i[1].clone()];
            let mut conds = Vec::new();
            for d in 0..k {
                let p = te::add(start(&i[2 + d], d), r[d].clone());
                conds.push(te::cmp(CmpOp::Lt, p.clone(), end(&i[2 + d], d)));
                idx.push(p);
            }
            let load = te::load(&x.buf, idx);
            match conds.into_iter().reduce(te::and) {
                Some(cond) => te::if_then_else(cond, load, te::zero(dt)),
                None => load,
            }
        },
    );
    let out = te.compute("adaptive_pool_avg", "ax", &out_shape, |i| {
        let count = (0..k)
            .map(|d| te::sub(end(&i[2 + d], d), start(&i[2 + d], d)))
            .fold(te::i64c(1), te::mul);
        te::div(te::load(&sum, i.to_vec()), te::cast(dt, count))
    });
    let name = format!("adaptive_avg_pool{k}d");
    c.finish(&name, te, &[&x], &[out])
}

fn batch_flatten(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (out_shape, _) = c.out_tensor()?;
    if x.ndim() == 0 || out_shape.len() != 2 {
        return unsupported("batch_flatten of a scalar");
    }
    let shape = x.shape().to_vec();
    let mut te = Te::new();
    let out = te.compute("compute", "i", &out_shape, |i| {
        let mut idx = vec![i[0].clone()];
        for d in 1..shape.len() {
            let inner = te::product(&shape[d + 1..]);
            idx.push(te::floormod(
                te::floordiv(i[1].clone(), inner),
                shape[d].clone(),
            ));
        }
        te::load(&x.buf, idx)
    });
    c.finish("batch_flatten", te, &[&x], &[out])
}

/// `out[n, c, h, w] = x[n, c*r*r + (h % r)*r + w % r, h / r, w / r]`.
fn pixel_shuffle(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    if x.ndim() != 4 {
        return unsupported("pixel_shuffle of a tensor that is not 4-D");
    }
    let r = c.attr_int("upscale_factor").unwrap_or(1);
    if r <= 0 {
        return unsupported(format!("attribute `upscale_factor` {r}"));
    }
    let (out_shape, _) = c.out_tensor()?;
    if out_shape.len() != 4 {
        return unsupported("pixel_shuffle result that is not 4-D");
    }
    let rc = te::i64c(r);
    let mut te = Te::new();
    let out = te.compute("T_pixel_shuffle", "ax", &out_shape, |i| {
        let ch = te::add(
            te::add(
                te::mul(i[1].clone(), te::i64c(r * r)),
                te::mul(te::floormod(i[2].clone(), rc.clone()), rc.clone()),
            ),
            te::floormod(i[3].clone(), rc.clone()),
        );
        te::load(
            &x.buf,
            vec![
                i[0].clone(),
                ch,
                te::floordiv(i[2].clone(), rc.clone()),
                te::floordiv(i[3].clone(), rc.clone()),
            ],
        )
    });
    c.finish("pixel_shuffle", te, &[&x], &[out])
}

/// An optional tensor argument (absent, or a null value, is `None`).
fn optional_tensor(c: &OpCall, i: usize) -> Result<Option<TArg>> {
    match c.sinfo.get(i) {
        Some(si) if si.tensor_dtype().is_some() || si.tensor_shape().is_some() => {
            c.tensor(i).map(Some)
        }
        _ => Ok(None),
    }
}

/// `softmax(q k^T * scale + bias [causal mask]) v` per batch and head, q `(B, S, N, H)`,
/// k `(B, S_kv, N, H)`, v `(B, S_kv, N, H_v)` → `(B, S, N, H_v)`. Masked scores are left
/// out of the softmax (TVM's `trilu` masking with `k = 0` for "TopLeft" and
/// `|S - S_kv|` for "BottomRight").
fn attention(c: &OpCall) -> Result<Lowered> {
    let (q, k, v) = (c.tensor(0)?, c.tensor(1)?, c.tensor(2)?);
    let bias = optional_tensor(c, 3)?;
    if [&q, &k, &v].iter().any(|t| t.ndim() != 4) {
        return unsupported("attention of tensors that are not 4-D");
    }
    if c.attr("window_size").is_some_and(|w| !w.is_none()) {
        return unsupported("attribute `window_size`");
    }
    let (out_shape, dt) = c.out_tensor()?;
    if out_shape.len() != 4 {
        return unsupported("attention result that is not 4-D");
    }
    let (b, s, n, h) = (
        q.shape()[0].clone(),
        q.shape()[1].clone(),
        q.shape()[2].clone(),
        q.shape()[3].clone(),
    );
    let skv = k.shape()[1].clone();
    let scale = match c.attr_f64("scale") {
        Some(x) => te::constf(dt, x),
        None => match h.as_int() {
            Some(d) => te::constf(dt, 1.0 / (d as f64).sqrt()),
            None => te::div(
                te::one(dt),
                te::intrin("sqrt", vec![te::cast(dt, h.clone())]),
            ),
        },
    };
    let offset = match c.attr_str("causal_mask") {
        None => None,
        Some("TopLeft") => Some(te::i64c(0)),
        Some("BottomRight") => {
            let (Some(a), Some(bb)) = (s.as_int(), skv.as_int()) else {
                return unsupported("attribute `causal_mask` BottomRight with symbolic lengths");
            };
            Some(te::i64c((a - bb).abs()))
        }
        Some(m) => return unsupported(format!("attribute `causal_mask` {m}")),
    };
    if let Some(bt) = &bias
        && bt.ndim() > 4
    {
        return unsupported("attention bias of rank above 4");
    }
    let pshape = vec![b.clone(), n.clone(), s.clone(), skv.clone()];
    let mut te = Te::new();
    let scores = te.reduce(
        "T_batch_matmul_NT",
        &pshape,
        &[("k".to_string(), h.clone())],
        Combiner::Sum,
        None,
        |i, r| {
            te::mul(
                te::cast(
                    dt,
                    te::load(
                        &q.buf,
                        vec![i[0].clone(), i[2].clone(), i[1].clone(), r[0].clone()],
                    ),
                ),
                te::cast(
                    dt,
                    te::load(
                        &k.buf,
                        vec![i[0].clone(), i[3].clone(), i[1].clone(), r[0].clone()],
                    ),
                ),
            )
        },
    );
    let scaled = te.compute("T_multiply", "ax", &pshape, |i| {
        let p = te::mul(te::load(&scores, i.to_vec()), scale.clone());
        match &bias {
            Some(bt) => {
                // Broadcast like `topi.add(p, bias)`: right-aligned, size-1 dims repeat.
                let skip = 4 - bt.ndim();
                let idx: Vec<PrimExpr> = (0..bt.ndim())
                    .map(|d| {
                        if bt.shape()[d].as_int() == Some(1) {
                            te::i64c(0)
                        } else {
                            i[skip + d].clone()
                        }
                    })
                    .collect();
                te::add(p, te::cast(dt, te::load(&bt.buf, idx)))
            }
            None => p,
        }
    });
    let allowed = |i: &[PrimExpr], j: &PrimExpr| -> Option<PrimExpr> {
        offset
            .as_ref()
            .map(|o| te::cmp(CmpOp::Le, j.clone(), te::add(i[2].clone(), o.clone())))
    };
    let red = pshape[..3].to_vec();
    let mx = te.reduce(
        "T_softmax_maxelem",
        &red,
        &[("k".to_string(), skv.clone())],
        Combiner::Max,
        None,
        |i, r| {
            let mut full = i.to_vec();
            full.push(r[0].clone());
            let p = te::load(&scaled, full);
            match allowed(i, &r[0]) {
                Some(ok) => te::select(ok, p, PrimExpr::min_value(dt)),
                None => p,
            }
        },
    );
    let exp = te.compute("T_softmax_exp", "ax", &pshape, |i| {
        let e = te::intrin(
            "exp",
            vec![te::sub(
                te::load(&scaled, i.to_vec()),
                te::load(&mx, i[..3].to_vec()),
            )],
        );
        match allowed(i, &i[3]) {
            Some(ok) => te::select(ok, e, te::zero(dt)),
            None => e,
        }
    });
    let sum = te.reduce(
        "T_softmax_expsum",
        &red,
        &[("k".to_string(), skv.clone())],
        Combiner::Sum,
        None,
        |i, r| {
            let mut full = i.to_vec();
            full.push(r[0].clone());
            te::load(&exp, full)
        },
    );
    let out = te.reduce(
        "T_batch_matmul_NN",
        &out_shape,
        &[("k".to_string(), skv)],
        Combiner::Sum,
        None,
        |i, r| {
            let pi = vec![i[0].clone(), i[2].clone(), i[1].clone(), r[0].clone()];
            let si = vec![i[0].clone(), i[2].clone(), i[1].clone()];
            te::mul(
                te::div(te::load(&exp, pi), te::load(&sum, si)),
                te::cast(
                    dt,
                    te::load(
                        &v.buf,
                        vec![i[0].clone(), r[0].clone(), i[2].clone(), i[3].clone()],
                    ),
                ),
            )
        },
    );
    let mut inputs = vec![&q, &k, &v];
    let mut name = "attention";
    if let Some(bt) = &bias {
        inputs.push(bt);
        name = "attention_bias";
    }
    c.finish(name, te, &inputs, &[out])
}

/// `-sum(x * y) / batch` (the batch is the first dimension of predictions of rank > 1).
fn cross_entropy_with_logits(c: &OpCall) -> Result<Lowered> {
    let (x, y) = (c.tensor(0)?, c.tensor(1)?);
    if x.ndim() != y.ndim() {
        return unsupported("predictions and labels of different ranks");
    }
    let dt = x.dtype();
    let shape = x.shape().to_vec();
    let mut te = Te::new();
    let prod = te.compute("T_multiply", "ax", &shape, |i| {
        te::sub(
            te::zero(dt),
            te::mul(
                te::load(&x.buf, i.to_vec()),
                te::cast(dt, te::load(&y.buf, i.to_vec())),
            ),
        )
    });
    let raxes: Vec<(String, PrimExpr)> = shape
        .iter()
        .enumerate()
        .map(|(d, e)| (format!("k{d}"), e.clone()))
        .collect();
    let sum = te.reduce("T_sum", &[], &raxes, Combiner::Sum, None, |_, r| {
        te::load(&prod, r.to_vec())
    });
    let out = if x.ndim() > 1 {
        let nb = extent_as(dt, &shape[0]);
        te.compute("T_divide", "ax", &[], |_| {
            te::div(te::load(&sum, Vec::new()), nb)
        })
    } else {
        sum
    };
    c.finish("cross_entropy_with_logits", te, &[&x, &y], &[out])
}

/// topi's nll_loss: `loss[n, d...] = t != ignore ? -pred[n, t, d...] * w[t] : 0`, then
/// "none", "sum", or "mean" (the sum divided by the sum of the weights of counted targets).
fn nll_loss(c: &OpCall) -> Result<Lowered> {
    let (p, t) = (c.tensor(0)?, c.tensor(1)?);
    let w = optional_tensor(c, 2)?;
    let reduction = c.attr_str("reduction").unwrap_or("mean").to_string();
    if !matches!(reduction.as_str(), "none" | "sum" | "mean") {
        return unsupported(format!("attribute `reduction` {reduction}"));
    }
    let ignore = c.attr_int("ignore_index").unwrap_or(-100);
    let dt = p.dtype();
    let pn = p.ndim();
    // predictions (C,) with targets (), or (N, C, d...) with targets (N, d...).
    if !((pn == 1 && t.ndim() == 0) || (pn >= 2 && t.ndim() + 1 == pn)) {
        return unsupported("predictions and targets of mismatched ranks");
    }
    let tshape = t.shape().to_vec();
    let tdt = t.dtype();
    let weight = |te_t: &PrimExpr| -> PrimExpr {
        match &w {
            Some(wb) => te::cast(dt, te::load(&wb.buf, vec![te_t.clone()])),
            None => te::one(dt),
        }
    };
    let pred_index = |i: &[PrimExpr], cls: PrimExpr| -> Vec<PrimExpr> {
        if pn == 1 {
            vec![cls]
        } else {
            let mut idx = vec![i[0].clone(), cls];
            idx.extend(i[1..].iter().cloned());
            idx
        }
    };
    // An ignored target is usually no class at all (PyTorch's -100): the prediction and the
    // weight are read only for the others, so `if_then_else` (one branch evaluated), not
    // `Select` (both), whose read at the ignored index would be out of bounds.
    let mut te = Te::new();
    let loss = te.compute("nll_loss", "ax", &tshape, |i| {
        let tv = te::load(&t.buf, i.to_vec());
        let cls = te::cast(tir::DataType::INT64, tv.clone());
        te::if_then_else(
            te::cmp(CmpOp::Ne, tv, PrimExpr::int(tdt, ignore)),
            te::mul(
                te::sub(te::zero(dt), te::load(&p.buf, pred_index(i, cls.clone()))),
                weight(&cls),
            ),
            te::zero(dt),
        )
    });
    if reduction == "none" {
        let mut inputs = vec![&p, &t];
        if let Some(wb) = &w {
            inputs.push(wb);
        }
        return c.finish("nll_loss", te, &inputs, &[loss]);
    }
    let raxes: Vec<(String, PrimExpr)> = tshape
        .iter()
        .enumerate()
        .map(|(d, e)| (format!("k{d}"), e.clone()))
        .collect();
    let sum = te.reduce("nll_loss_red", &[], &raxes, Combiner::Sum, None, |_, r| {
        te::load(&loss, r.to_vec())
    });
    let out = if reduction == "mean" {
        let wsum = te.reduce("nll_loss_red", &[], &raxes, Combiner::Sum, None, |_, r| {
            let tv = te::load(&t.buf, r.to_vec());
            let cls = te::cast(tir::DataType::INT64, tv.clone());
            te::if_then_else(
                te::cmp(CmpOp::Ne, tv, PrimExpr::int(tdt, ignore)),
                weight(&cls),
                te::zero(dt),
            )
        });
        te.compute("T_divide", "ax", &[], |_| {
            te::div(te::load(&sum, Vec::new()), te::load(&wsum, Vec::new()))
        })
    } else {
        sum
    };
    let mut inputs = vec![&p, &t];
    if let Some(wb) = &w {
        inputs.push(wb);
    }
    c.finish("nll_loss", te, &inputs, &[out])
}
