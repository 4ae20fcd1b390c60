//! Neural-network operators: softmax/log_softmax, layer_norm, activations (relu, gelu,
//! gelu_tanh, leakyrelu, silu), dropout (inference: identity plus a mask of ones), pad,
//! conv1d/2d/3d (NCW/NCHW/NCDHW, OI[D][H]W, groups), conv1d/2d_transpose (groups),
//! max/avg pool1d/2d/3d (NCW/NCHW/NCDHW, ceil_mode).

use tir::arith::SlidingWindow;
use tir::{AttrValue as TAttr, Attrs as TAttrs, Buffer, CmpOp, PrimExpr};

use super::te::{self, Combiner, Te};
use super::{Lowered, OpCall, Result, Rule, TArg, unsupported};

pub(super) fn rule(name: &str) -> Option<Rule> {
    let r: Rule = match name {
        "nn.softmax" => softmax,
        "nn.log_softmax" => log_softmax,
        "nn.layer_norm" => layer_norm,
        "nn.relu" => relu,
        "nn.gelu" => gelu,
        "nn.gelu_tanh" => gelu_tanh,
        "nn.leakyrelu" => leakyrelu,
        "nn.silu" => silu,
        "nn.dropout" => dropout,
        "nn.pad" => pad,
        "nn.conv1d" => conv1d,
        "nn.conv2d" => conv2d,
        "nn.conv3d" => conv3d,
        "nn.conv1d_transpose" => conv1d_transpose,
        "nn.conv2d_transpose" => conv2d_transpose,
        "nn.conv3d_transpose" => conv3d_transpose,
        "nn.max_pool1d" => |c| pool(c, 1, true),
        "nn.max_pool2d" => |c| pool(c, 2, true),
        "nn.max_pool3d" => |c| pool(c, 3, true),
        "nn.avg_pool1d" => |c| pool(c, 1, false),
        "nn.avg_pool2d" => |c| pool(c, 2, false),
        "nn.avg_pool3d" => |c| pool(c, 3, false),
        _ => return None,
    };
    Some(r)
}

fn norm_axis(a: i64, ndim: usize) -> usize {
    if a < 0 { a + ndim as i64 } else { a }.max(0) as usize
}

fn without(v: &[PrimExpr], axis: usize) -> Vec<PrimExpr> {
    v.iter()
        .enumerate()
        .filter(|(d, _)| *d != axis)
        .map(|(_, e)| e.clone())
        .collect()
}

fn with_at(v: &[PrimExpr], axis: usize, k: &PrimExpr) -> Vec<PrimExpr> {
    let mut out = v.to_vec();
    out.insert(axis.min(out.len()), k.clone());
    out
}

fn axis_attr(axis: usize) -> TAttrs {
    let mut a = TAttrs::new();
    a.insert("axis".to_string(), TAttr::Int(axis as i64));
    a
}

/// `T_softmax_maxelem` over `axis` of `x`.
fn maxelem(te: &mut Te, x: &TArg, axis: usize) -> Buffer {
    let shape = x.shape().to_vec();
    let red = without(&shape, axis);
    te.reduce_named(
        "T_softmax_maxelem",
        "i",
        &red,
        &[("k".to_string(), shape[axis].clone())],
        Combiner::Max,
        None,
        |i, k| te::load(&x.buf, with_at(i, axis, &k[0])),
    )
}

fn softmax(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let axis = norm_axis(c.attr_int("axis").unwrap_or(-1), x.ndim());
    let shape = x.shape().to_vec();
    let red = without(&shape, axis);
    let mut te = Te::new();
    let mx = maxelem(&mut te, &x, axis);
    let exp = te.compute("T_softmax_exp", "i", &shape, |i| {
        te::intrin(
            "exp",
            vec![te::sub(
                te::load(&x.buf, i.to_vec()),
                te::load(&mx, without(i, axis)),
            )],
        )
    });
    let sum = te.reduce_named(
        "T_softmax_expsum",
        "i",
        &red,
        &[("k".to_string(), shape[axis].clone())],
        Combiner::Sum,
        None,
        |i, k| te::load(&exp, with_at(i, axis, &k[0])),
    );
    let out = te.compute_attr("T_softmax_norm", "i", &shape, axis_attr(axis), |i| {
        te::div(te::load(&exp, i.to_vec()), te::load(&sum, without(i, axis)))
    });
    c.finish("softmax", te, &[&x], &[out])
}

fn log_softmax(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let axis = norm_axis(c.attr_int("axis").unwrap_or(-1), x.ndim());
    let shape = x.shape().to_vec();
    let red = without(&shape, axis);
    let mut te = Te::new();
    let mx = maxelem(&mut te, &x, axis);
    let sum = te.reduce_named(
        "compute",
        "i",
        &red,
        &[("k".to_string(), shape[axis].clone())],
        Combiner::Sum,
        None,
        |i, k| {
            te::intrin(
                "exp",
                vec![te::sub(
                    te::load(&x.buf, with_at(i, axis, &k[0])),
                    te::load(&mx, i.to_vec()),
                )],
            )
        },
    );
    let out = te.compute_attr("compute", "i", &shape, axis_attr(axis), |i| {
        te::sub(
            te::sub(
                te::load(&x.buf, i.to_vec()),
                te::load(&mx, without(i, axis)),
            ),
            te::intrin("log", vec![te::load(&sum, without(i, axis))]),
        )
    });
    c.finish("log_softmax", te, &[&x], &[out])
}

fn layer_norm(c: &OpCall) -> Result<Lowered> {
    let (x, g, b) = (c.tensor(0)?, c.tensor(1)?, c.tensor(2)?);
    let nd = x.ndim();
    let mut axes: Vec<usize> = c
        .attr_ints("axes")
        .unwrap_or_else(|| vec![-1])
        .iter()
        .map(|&a| norm_axis(a, nd))
        .collect();
    axes.sort_unstable();
    let eps = c.attr_f64("epsilon").unwrap_or(1e-5);
    let (center, scale) = (
        c.attr_bool("center").unwrap_or(true),
        c.attr_bool("scale").unwrap_or(true),
    );
    let dt = x.dtype();
    let shape = x.shape().to_vec();
    let red: Vec<PrimExpr> = shape
        .iter()
        .enumerate()
        .filter(|(d, _)| !axes.contains(d))
        .map(|(_, e)| e.clone())
        .collect();
    let raxes: Vec<(String, PrimExpr)> = axes
        .iter()
        .map(|&d| (format!("k{d}"), shape[d].clone()))
        .collect();
    let n = te::product(&axes.iter().map(|&d| shape[d].clone()).collect::<Vec<_>>());
    let n = match n.as_int() {
        Some(v) => te::constf(dt, v as f64),
        None => te::cast(dt, n),
    };
    // Full index from the reduced-output index `i` and the reduction index `k`.
    let full = |i: &[PrimExpr], k: &[PrimExpr]| -> Vec<PrimExpr> {
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
    };
    let reduced = |i: &[PrimExpr]| -> Vec<PrimExpr> {
        (0..nd)
            .filter(|d| !axes.contains(d))
            .map(|d| i[d].clone())
            .collect()
    };
    let xn = x.buf.name.clone();
    let mut te = Te::new();
    let sum = te.reduce(
        &format!("{xn}_sum"),
        &red,
        &raxes,
        Combiner::Sum,
        None,
        |i, k| te::load(&x.buf, full(i, k)),
    );
    let mean = te.compute(&format!("{xn}_mean"), "ax", &red, |i| {
        te::div(te::load(&sum, i.to_vec()), n.clone())
    });
    let var = te.reduce(
        &format!("{xn}_var_sum"),
        &red,
        &raxes,
        Combiner::Sum,
        None,
        |i, k| {
            let d = te::sub(te::load(&x.buf, full(i, k)), te::load(&mean, i.to_vec()));
            te::mul(d.clone(), d)
        },
    );
    let out = te.compute("T_layer_norm", "ax", &shape, |i| {
        let r = reduced(i);
        let gi: Vec<PrimExpr> = axes.iter().map(|&d| i[d].clone()).collect();
        let centered = te::sub(te::load(&x.buf, i.to_vec()), te::load(&mean, r.clone()));
        let rs = te::intrin(
            "rsqrt",
            vec![te::add(
                te::div(te::load(&var, r), n.clone()),
                te::constf(dt, eps),
            )],
        );
        let mut v = te::mul(centered, rs);
        if scale {
            v = te::mul(v, te::load(&g.buf, gi.clone()));
        }
        if center {
            v = te::add(v, te::load(&b.buf, gi));
        }
        v
    });
    c.finish("layer_norm", te, &[&x, &g, &b], &[out])
}

fn relu(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let mut te = Te::new();
    let out = te.compute("compute", "i", x.shape(), |i| {
        te::max(te::load(&x.buf, i.to_vec()), te::zero(x.dtype()))
    });
    c.finish("relu", te, &[&x], &[out])
}

fn leakyrelu(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let alpha = c.attr_f64("alpha").unwrap_or(0.01);
    let dt = x.dtype();
    let mut te = Te::new();
    let out = te.compute("compute", "i", x.shape(), |i| {
        let v = te::load(&x.buf, i.to_vec());
        te::select(
            te::cmp(CmpOp::Lt, te::zero(dt), v.clone()),
            v.clone(),
            te::mul(v, te::constf(dt, alpha)),
        )
    });
    c.finish("leaky_relu", te, &[&x], &[out])
}

/// An elementwise `T_<op>` stage over `shape` (TVM's C++ topi binary with a scalar).
fn ew(
    te: &mut Te,
    name: &str,
    shape: &[PrimExpr],
    f: impl FnOnce(&[PrimExpr]) -> PrimExpr,
) -> Buffer {
    te.compute(name, "ax", shape, f)
}

fn gelu(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let dt = x.dtype();
    let s = x.shape().to_vec();
    let f = |v: f64| te::constf(dt, v);
    let mut te = Te::new();
    let m1 = ew(&mut te, "T_multiply", &s, |i| {
        te::mul(
            te::load(&x.buf, i.to_vec()),
            f(std::f64::consts::FRAC_1_SQRT_2),
        )
    });
    let erf = te.compute("compute", "i", &s, |i| {
        te::intrin("erf", vec![te::load(&m1, i.to_vec())])
    });
    let m2 = ew(&mut te, "T_multiply", &s, |i| {
        te::mul(te::load(&erf, i.to_vec()), f(0.5))
    });
    let a = ew(&mut te, "T_add", &s, |i| {
        te::add(f(0.5), te::load(&m2, i.to_vec()))
    });
    let out = ew(&mut te, "T_multiply", &s, |i| {
        te::mul(te::load(&x.buf, i.to_vec()), te::load(&a, i.to_vec()))
    });
    c.finish("gelu", te, &[&x], &[out])
}

fn gelu_tanh(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let dt = x.dtype();
    let s = x.shape().to_vec();
    let f = |v: f64| te::constf(dt, v);
    let xl = |i: &[PrimExpr]| te::load(&x.buf, i.to_vec());
    let mut te = Te::new();
    let m0 = ew(&mut te, "T_multiply", &s, |i| te::mul(f(0.5), xl(i)));
    let m1 = ew(&mut te, "T_multiply", &s, |i| {
        te::mul(f((2.0 / std::f64::consts::PI).sqrt()), xl(i))
    });
    let m2 = ew(&mut te, "T_multiply", &s, |i| te::mul(f(0.044715), xl(i)));
    let m3 = ew(&mut te, "T_multiply", &s, |i| {
        te::mul(te::load(&m2, i.to_vec()), xl(i))
    });
    let a = ew(&mut te, "T_add", &s, |i| {
        te::add(f(1.0), te::load(&m3, i.to_vec()))
    });
    let m4 = ew(&mut te, "T_multiply", &s, |i| {
        te::mul(te::load(&m1, i.to_vec()), te::load(&a, i.to_vec()))
    });
    let t = te.compute("compute", "i", &s, |i| {
        te::intrin("tanh", vec![te::load(&m4, i.to_vec())])
    });
    let a1 = ew(&mut te, "T_add", &s, |i| {
        te::add(f(1.0), te::load(&t, i.to_vec()))
    });
    let out = ew(&mut te, "T_multiply", &s, |i| {
        te::mul(te::load(&m0, i.to_vec()), te::load(&a1, i.to_vec()))
    });
    c.finish("gelu_tanh", te, &[&x], &[out])
}

fn silu(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let s = x.shape().to_vec();
    let mut te = Te::new();
    let sig = te.compute("compute", "i", &s, |i| {
        te::intrin("sigmoid", vec![te::load(&x.buf, i.to_vec())])
    });
    let out = ew(&mut te, "T_multiply", &s, |i| {
        te::mul(te::load(&x.buf, i.to_vec()), te::load(&sig, i.to_vec()))
    });
    c.finish("silu", te, &[&x], &[out])
}

fn dropout(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let s = x.shape().to_vec();
    let dt = x.dtype();
    let mut te = Te::new();
    let y = te.compute("compute", "i", &s, |i| te::load(&x.buf, i.to_vec()));
    let mask = ew(&mut te, "T_full_like", &s, |_| te::one(dt));
    c.finish("dropout", te, &[&x], &[y, mask])
}

/// topi's `pad`: `name[i] = if_then_else(in bounds, src[i - before], value)`, or a copy when
/// nothing is padded.
#[allow(clippy::too_many_arguments)]
fn pad_stage(
    te: &mut Te,
    name: &str,
    prefix: &str,
    src: &Buffer,
    before: &[i64],
    after: &[i64],
    value: PrimExpr,
) -> Buffer {
    let shape: Vec<PrimExpr> = src
        .shape
        .iter()
        .enumerate()
        .map(|(d, e)| te::add(e.clone(), te::i64c(before[d] + after[d])))
        .collect();
    te.compute(name, prefix, &shape, |i| {
        let mut conds = Vec::new();
        let mut idx = Vec::new();
        for (d, v) in i.iter().enumerate() {
            let (b, a) = (before[d], after[d]);
            if b != 0 || a != 0 {
                conds.push(te::cmp(CmpOp::Le, te::i64c(b), v.clone()));
                conds.push(te::cmp(
                    CmpOp::Lt,
                    v.clone(),
                    te::add(te::i64c(b), src.shape[d].clone()),
                ));
            }
            idx.push(te::sub(v.clone(), te::i64c(b)));
        }
        let load = te::load(src, idx);
        match conds.into_iter().reduce(te::and) {
            Some(c) => te::if_then_else(c, load, value),
            None => load,
        }
    })
}

fn pad(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let nd = x.ndim();
    let pw = c.attr_ints("pad_width").unwrap_or_default();
    if pw.len() != 2 * nd {
        return unsupported("pad_width must have two entries per dimension");
    }
    let before: Vec<i64> = (0..nd).map(|d| pw[2 * d]).collect();
    let after: Vec<i64> = (0..nd).map(|d| pw[2 * d + 1]).collect();
    let mode = c.attr_str("pad_mode").unwrap_or("constant");
    let mut te = Te::new();
    if mode == "constant" {
        let value = te::constf(x.dtype(), c.attr_f64("pad_value").unwrap_or(0.0));
        let value = te::cast(x.dtype(), value);
        let out = pad_stage(&mut te, "PadInput", "i", &x.buf, &before, &after, value);
        return c.finish("pad", te, &[&x], &[out]);
    }
    // TOPI's reflect_pad / replicate_pad / circular_pad: each output position reads the input
    // at an index mapped into it. TOPI reflects once, so a reflect pad as long as the axis reads
    // outside the data: an error here (and, for a symbolic axis, the kernel's bounds check).
    let name = match mode {
        "reflect" => "ReflectPadInput",
        "replicate" => "ReplicatePadInput",
        "circular" => "CircularPadInput",
        other => {
            return unsupported(format!(
                "pad_mode `{other}` (TVM's modes are constant, reflect, replicate and circular)"
            ));
        }
    };
    for d in 0..nd {
        let Some(size) = x.shape()[d].as_int() else {
            continue;
        };
        let padded = before[d] != 0 || after[d] != 0;
        if padded && (size == 0 || (mode == "reflect" && before[d].max(after[d]) >= size)) {
            return unsupported(format!(
                "{mode} padding of ({}, {}) along axis {d} of extent {size} (it needs {} elements)",
                before[d],
                after[d],
                if mode == "reflect" {
                    before[d].max(after[d]) + 1
                } else {
                    1
                }
            ));
        }
    }
    let (shape, _) = c.out_tensor()?;
    let out = te.compute(name, "i", &shape, |i| {
        let idx = (0..nd)
            .map(|d| {
                let size = te::cast(tir::DataType::INT64, x.shape()[d].clone());
                let orig = te::sub(i[d].clone(), te::i64c(before[d]));
                if before[d] == 0 && after[d] == 0 {
                    return orig;
                }
                match mode {
                    "reflect" => te::select(
                        te::cmp(CmpOp::Lt, orig.clone(), te::i64c(0)),
                        te::sub(te::i64c(0), orig.clone()),
                        te::select(
                            te::cmp(CmpOp::Ge, orig.clone(), size.clone()),
                            te::sub(
                                te::sub(te::mul(te::i64c(2), size), te::i64c(2)),
                                orig.clone(),
                            ),
                            orig,
                        ),
                    ),
                    "replicate" => te::max(te::min(orig, te::sub(size, te::i64c(1))), te::i64c(0)),
                    _ => te::floormod(orig, size),
                }
            })
            .collect();
        te::load(&x.buf, idx)
    });
    c.finish("pad", te, &[&x], &[out])
}

fn layouts_ok(c: &OpCall, data: &str, kernel: &str) -> Result<()> {
    let d = c.attr_str("data_layout").unwrap_or(data);
    let k = c.attr_str("kernel_layout").unwrap_or(kernel);
    let o = c.attr_str("out_layout").unwrap_or(d);
    if d != data || k != kernel || o != data {
        // ConvertLayout has turned permutations of these letters into them; what is left has
        // split axes (`NCHW16c`, `OIHW16o16i`).
        return unsupported(format!(
            "layouts {d}/{k}/{o} (only {data}/{kernel}, permutations of their letters, and split axes on tensors of known shape)"
        ));
    }
    Ok(())
}

fn ints_or(c: &OpCall, name: &str, n: usize, default: i64) -> Vec<i64> {
    let v = c.attr_ints(name).unwrap_or_default();
    match v.len() {
        0 => vec![default; n],
        1 => vec![v[0]; n],
        _ => v,
    }
}

/// conv1d / conv2d in NC(H)W / OI(H)W with groups: `pad_temp`, then the reduction block.
fn conv(c: &OpCall, spatial: usize) -> Result<Lowered> {
    let (x, w) = (c.tensor(0)?, c.tensor(1)?);
    let (out_shape, out_dt) = c.out_tensor()?;
    if x.ndim() != spatial + 2 || w.ndim() != spatial + 2 || out_shape.len() != spatial + 2 {
        return unsupported(format!(
            "conv{spatial}d of tensors that are not {}-D",
            spatial + 2
        ));
    }
    let strides = ints_or(c, "strides", spatial, 1);
    let dil = ints_or(c, "dilation", spatial, 1);
    if strides.len() != spatial || dil.len() != spatial {
        return unsupported("strides and dilation need one value per dimension");
    }
    let padding = c.attr_ints("padding").unwrap_or_default();
    let pads: Vec<(i64, i64)> = (0..spatial)
        .map(|d| match padding.len() {
            0 => (0, 0),
            1 => (padding[0], padding[0]),
            n if n == spatial => (padding[d], padding[d]),
            _ => (padding[d], padding.get(d + spatial).copied().unwrap_or(0)),
        })
        .collect();
    let groups = c.attr_int("groups").unwrap_or(1);
    let (Some(cin), Some(cout)) = (x.shape()[1].as_int(), w.shape()[0].as_int()) else {
        return unsupported("symbolic channel counts");
    };
    let mut te = Te::new();
    let mut before = vec![0, 0];
    let mut after = vec![0, 0];
    before.extend(pads.iter().map(|p| p.0));
    after.extend(pads.iter().map(|p| p.1));
    let padded = pad_stage(
        &mut te,
        "pad_temp",
        "i",
        &x.buf,
        &before,
        &after,
        te::zero(x.dtype()),
    );
    let (name, names, rnames): (String, Vec<&str>, Vec<&str>) = if spatial == 1 {
        (
            "conv1d_ncw".into(),
            vec!["nn", "ff", "yy"],
            vec!["rc", "ry"],
        )
    } else if spatial == 3 {
        (
            if groups == 1 {
                "conv3d_ncdhw".into()
            } else {
                "group_conv3d_ncdhw".into()
            },
            vec!["nn", "ff", "zz", "yy", "xx"],
            vec!["rc", "rz", "ry", "rx"],
        )
    } else {
        (
            if groups == 1 {
                "conv2d_nchw".into()
            } else {
                "group_conv2d_nchw".into()
            },
            vec!["nn", "ff", "yy", "xx"],
            vec!["rc", "ry", "rx"],
        )
    };
    let mut raxes = vec![(rnames[0].to_string(), te::i64c(cin / groups))];
    for d in 0..spatial {
        raxes.push((rnames[d + 1].to_string(), w.shape()[2 + d].clone()));
    }
    let out = te.reduce_names(
        &name,
        &names,
        &out_shape,
        &raxes,
        Combiner::Sum,
        TAttrs::new(),
        |i, k| {
            let ch = if groups == 1 {
                k[0].clone()
            } else {
                te::add(
                    te::mul(
                        te::floordiv(i[1].clone(), te::i64c(cout / groups)),
                        te::i64c(cin / groups),
                    ),
                    k[0].clone(),
                )
            };
            let mut xi = vec![i[0].clone(), ch];
            let mut wi = vec![i[1].clone(), k[0].clone()];
            for d in 0..spatial {
                xi.push(te::add(
                    te::mul(i[2 + d].clone(), te::i64c(strides[d])),
                    te::mul(k[1 + d].clone(), te::i64c(dil[d])),
                ));
                wi.push(k[1 + d].clone());
            }
            te::mul(
                te::cast(out_dt, te::load(&padded, xi)),
                te::cast(out_dt, te::load(&w.buf, wi)),
            )
        },
    );
    let fname = format!("conv{spatial}d");
    c.finish(&fname, te, &[&x, &w], &[out])
}

fn conv1d(c: &OpCall) -> Result<Lowered> {
    layouts_ok(c, "NCW", "OIW")?;
    conv(c, 1)
}

fn conv2d(c: &OpCall) -> Result<Lowered> {
    layouts_ok(c, "NCHW", "OIHW")?;
    conv(c, 2)
}

fn conv3d(c: &OpCall) -> Result<Lowered> {
    layouts_ok(c, "NCDHW", "OIDHW")?;
    conv(c, 3)
}

fn conv1d_transpose(c: &OpCall) -> Result<Lowered> {
    layouts_ok(c, "NCW", "IOW")?;
    conv_transpose(c, 1)
}

fn conv2d_transpose(c: &OpCall) -> Result<Lowered> {
    layouts_ok(c, "NCHW", "IOHW")?;
    conv_transpose(c, 2)
}

fn conv3d_transpose(c: &OpCall) -> Result<Lowered> {
    layouts_ok(c, "NCDHW", "IODHW")?;
    conv_transpose(c, 3)
}

/// conv1d_transpose / conv2d_transpose / conv3d_transpose (topi): dilate the data by the strides, pad it by
/// `dilation * (kernel - 1) - padding` (plus the output padding after), and convolve with the
/// flipped, transposed kernel at the dilation. TOPI has no dilation here (TVM leaves a dilated
/// transposed convolution unlegalized); it is the adjoint of the dilated convolution, as in
/// PyTorch's `conv_transpose2d`.
fn conv_transpose(c: &OpCall, k: usize) -> Result<Lowered> {
    let groups = c.attr_int("groups").unwrap_or(1);
    let (x, w) = (c.tensor(0)?, c.tensor(1)?);
    // Channels per group (input, output) when grouped.
    let grouped = if groups == 1 {
        None
    } else {
        match (
            x.shape().get(1).and_then(PrimExpr::as_int),
            w.shape().get(1).and_then(PrimExpr::as_int),
        ) {
            (Some(cin), Some(cout_g)) if groups > 0 && cin % groups == 0 => {
                Some((cin / groups, cout_g))
            }
            _ => {
                return unsupported(format!(
                    "grouped conv{k}d_transpose with symbolic or indivisible channels"
                ));
            }
        }
    };
    if x.ndim() != k + 2 || w.ndim() != k + 2 {
        return unsupported(format!(
            "conv{k}d_transpose of tensors that are not {}-D",
            k + 2
        ));
    }
    let (out_shape, out_dt) = c.out_tensor()?;
    let strides = ints_or(c, "strides", k, 1);
    let dil = ints_or(c, "dilation", k, 1);
    if dil.len() != k || dil.iter().any(|&d| d < 1) {
        return unsupported("dilation needs one positive value per dimension");
    }
    let padding = c.attr_ints("padding").unwrap_or_default();
    let p = |d: usize| -> (i64, i64) {
        match padding.len() {
            0 => (0, 0),
            1 => (padding[0], padding[0]),
            n if n == k => (padding[d], padding[d]),
            _ => (padding[d], padding.get(d + k).copied().unwrap_or(0)),
        }
    };
    let opad = ints_or(c, "output_padding", k, 0);
    if strides.len() != k || opad.len() != k {
        return unsupported("strides and output_padding need one value per dimension");
    }
    let mut ks = Vec::new();
    for d in 0..k {
        let Some(v) = w.shape()[2 + d].as_int() else {
            return unsupported("symbolic kernel size");
        };
        ks.push(v);
    }
    let mut te = Te::new();
    let src = if strides.iter().any(|&s| s != 1) {
        let shape: Vec<PrimExpr> = x
            .shape()
            .iter()
            .enumerate()
            .map(|(d, e)| {
                if d >= 2 {
                    te::add(
                        te::mul(te::sub(e.clone(), te::i64c(1)), te::i64c(strides[d - 2])),
                        te::i64c(1),
                    )
                } else {
                    e.clone()
                }
            })
            .collect();
        te.compute("data_dilate", "i", &shape, |i| {
            let mut conds = Vec::new();
            let mut idx = Vec::new();
            for (d, v) in i.iter().enumerate() {
                if d >= 2 && strides[d - 2] != 1 {
                    let s = te::i64c(strides[d - 2]);
                    conds.push(te::cmp(
                        CmpOp::Eq,
                        te::floormod(v.clone(), s.clone()),
                        te::i64c(0),
                    ));
                    idx.push(te::floordiv(v.clone(), s));
                } else {
                    idx.push(v.clone());
                }
            }
            let load = te::load(&x.buf, idx);
            match conds.into_iter().reduce(te::and) {
                Some(c) => te::if_then_else(c, load, te::zero(x.dtype())),
                None => load,
            }
        })
    } else {
        x.buf.clone()
    };
    let mut before = vec![0, 0];
    let mut after = vec![0, 0];
    for d in 0..k {
        let (pb, pa) = p(d);
        // Exact: a dilated reach past 2^63 - 1 that the padding brings back is no wrap.
        let reach = i128::from(dil[d]) * (i128::from(ks[d]) - 1);
        let (Ok(lo), Ok(hi)) = (
            i64::try_from(reach - i128::from(pb)),
            i64::try_from(reach - i128::from(pa) + i128::from(opad[d])),
        ) else {
            return unsupported(format!(
                "conv{k}d_transpose whose dilated kernel ({} x ({} - 1)) less the padding exceeds 2^63 - 1",
                dil[d], ks[d]
            ));
        };
        before.push(lo);
        after.push(hi);
    }
    let padded = pad_stage(
        &mut te,
        "data_pad",
        "i",
        &src,
        &before,
        &after,
        te::zero(x.dtype()),
    );
    let mut wshape = match grouped {
        None => vec![w.shape()[1].clone(), w.shape()[0].clone()],
        Some((cin_g, cout_g)) => vec![te::i64c(cout_g * groups), te::i64c(cin_g)],
    };
    wshape.extend(w.shape()[2..].iter().cloned());
    let (knames, onames, rnames): (Vec<&str>, Vec<&str>, Vec<&str>) = match k {
        1 => (vec!["o", "i", "w"], vec!["b", "c", "w"], vec!["dc", "dw"]),
        2 => (
            vec!["o", "i", "h", "w"],
            vec!["b", "c", "h", "w"],
            vec!["dc", "dh", "dw"],
        ),
        _ => (
            vec!["o", "i", "d", "h", "w"],
            vec!["b", "c", "d", "h", "w"],
            vec!["dc", "dd", "dh", "dw"],
        ),
    };
    let kt = te.compute_names("kernel_transform", &knames, &wshape, |i| {
        // Grouped: kernel_transform[o, i] = w[(o / cout_g) * cin_g + i, o % cout_g].
        let mut idx = match grouped {
            None => vec![i[1].clone(), i[0].clone()],
            Some((cin_g, cout_g)) => vec![
                te::add(
                    te::mul(
                        te::floordiv(i[0].clone(), te::i64c(cout_g)),
                        te::i64c(cin_g),
                    ),
                    i[1].clone(),
                ),
                te::floormod(i[0].clone(), te::i64c(cout_g)),
            ],
        };
        for d in 0..k {
            idx.push(te::sub(te::i64c(ks[d] - 1), i[2 + d].clone()));
        }
        te::load(&w.buf, idx)
    });
    let rc = match grouped {
        None => x.shape()[1].clone(),
        Some((cin_g, _)) => te::i64c(cin_g),
    };
    let mut raxes = vec![(rnames[0].to_string(), rc)];
    for d in 0..k {
        raxes.push((rnames[1 + d].to_string(), te::i64c(ks[d])));
    }
    let out = te.reduce_names(
        "compute",
        &onames,
        &out_shape,
        &raxes,
        Combiner::Sum,
        TAttrs::new(),
        |i, r| {
            let ch = match grouped {
                None => r[0].clone(),
                Some((cin_g, cout_g)) => te::add(
                    te::mul(
                        te::floordiv(i[1].clone(), te::i64c(cout_g)),
                        te::i64c(cin_g),
                    ),
                    r[0].clone(),
                ),
            };
            let mut ai = vec![i[0].clone(), ch];
            let mut bi = vec![i[1].clone(), r[0].clone()];
            for d in 0..k {
                ai.push(te::add(
                    i[2 + d].clone(),
                    te::mul(r[1 + d].clone(), te::i64c(dil[d])),
                ));
                bi.push(r[1 + d].clone());
            }
            let a = te::load(&padded, ai);
            let b = te::load(&kt, bi);
            te::mul(te::cast(out_dt, a), te::cast(out_dt, b))
        },
    );
    c.finish(&format!("conv{k}d_transpose"), te, &[&x, &w], &[out])
}

/// max/avg pooling over `k` spatial dimensions in NCW/NCHW/NCDHW.
fn pool(c: &OpCall, k: usize, is_max: bool) -> Result<Lowered> {
    let want = ["NCW", "NCHW", "NCDHW"][k.clamp(1, 3) - 1];
    let layout = c.attr_str("layout").unwrap_or(want);
    let out_layout = c.attr_str("out_layout").unwrap_or(layout);
    if layout != want || out_layout != want {
        return unsupported(format!(
            "pool layouts {layout}/{out_layout} (only {want}, permutations of its letters, and split axes on tensors of known shape)"
        ));
    }
    let x = c.tensor(0)?;
    let ceil_mode = c.attr_bool("ceil_mode") == Some(true);
    let include_pad = c.attr_bool("count_include_pad").unwrap_or(false);
    let (out_shape, _) = c.out_tensor()?;
    if x.ndim() != k + 2 || out_shape.len() != k + 2 {
        return unsupported(format!("pooling of a rank-{} tensor", x.ndim()));
    }
    let ps = ints_or(c, "pool_size", k, 1);
    let st = ints_or(c, "strides", k, 1);
    let dil = ints_or(c, "dilation", k, 1);
    if ps.len() != k || st.len() != k || dil.len() != k {
        return unsupported("pool_size, strides and dilation need one value per dimension");
    }
    let padding = c.attr_ints("padding").unwrap_or_default();
    let pads: Vec<(i64, i64)> = (0..k)
        .map(|d| match padding.len() {
            0 => (0, 0),
            1 => (padding[0], padding[0]),
            n if n == k => (padding[d], padding[d]),
            _ => (padding[d], padding.get(d + k).copied().unwrap_or(0)),
        })
        .collect();
    // With ceil_mode the last windows may reach past the padded data: pad further after
    // (with the pad value, which the excluded-padding count of avg pooling leaves out, and
    // the included-padding count too: it counts the padding the attributes ask for only).
    //
    // An axis whose last window starts past the padded data (a stride longer than it) is not
    // padded out, which would allocate and index up to `(o - 1) · stride` elements (2^62, say):
    // its loads are guarded instead, giving the pad value past the padded extent (`guard`).
    let given_pads = pads.clone();
    let mut pads = pads;
    let mut guard: Vec<Option<i64>> = vec![None; k];
    if ceil_mode {
        for d in 0..k {
            let (Some(n), Some(o)) = (x.shape()[2 + d].as_int(), out_shape[2 + d].as_int()) else {
                return unsupported("ceil_mode pooling with symbolic sizes");
            };
            let window = SlidingWindow {
                stride: st[d],
                dilation: dil[d],
                pad_before: pads[d].0,
                pad_after: pads[d].1,
                ceil_mode,
            };
            let have = window.padded(n);
            let extra = window.overhang(n, ps[d], o).max(0);
            match i64::try_from(have) {
                Ok(h) if extra > have => guard[d] = Some(h),
                _ => pads[d].1 += i64::try_from(extra).unwrap_or(i64::MAX),
            }
        }
    }
    let dt = x.dtype();
    let any_pad = pads.iter().any(|&(a, b)| a != 0 || b != 0);
    let pad_value = if is_max {
        PrimExpr::min_value(dt)
    } else {
        te::zero(dt)
    };
    let mut te = Te::new();
    let src = if any_pad {
        let mut before = vec![0, 0];
        let mut after = vec![0, 0];
        before.extend(pads.iter().map(|p| p.0));
        after.extend(pads.iter().map(|p| p.1));
        pad_stage(
            &mut te,
            "pad_temp",
            "ax",
            &x.buf,
            &before,
            &after,
            pad_value.clone(),
        )
    } else {
        x.buf.clone()
    };
    let raxes: Vec<(String, PrimExpr)> = (0..k)
        .map(|d| (format!("rv{d}"), te::i64c(ps[d])))
        .collect();
    let index = |i: &[PrimExpr], r: &[PrimExpr]| -> Vec<PrimExpr> {
        let mut idx = vec![i[0].clone(), i[1].clone()];
        for d in 0..k {
            idx.push(te::add(
                te::mul(i[2 + d].clone(), te::i64c(st[d])),
                te::mul(r[d].clone(), te::i64c(dil[d])),
            ));
        }
        idx
    };
    // A load of the (padded) data at `index(i, r)`, guarded on the axes of `guard`: an
    // index past the padded extent `h` (or wrapped negative by its stride) reads the pad
    // value, and the load itself is clamped inside.
    let load = |i: &[PrimExpr], r: &[PrimExpr]| -> PrimExpr {
        let mut idx = index(i, r);
        let mut cond: Option<PrimExpr> = None;
        for d in 0..k {
            let Some(h) = guard[d] else { continue };
            let e = idx[2 + d].clone();
            let inside = te::and(
                te::cmp(CmpOp::Le, te::i64c(0), e.clone()),
                te::cmp(CmpOp::Lt, e.clone(), te::i64c(h)),
            );
            cond = Some(match cond {
                Some(c) => te::and(c, inside),
                None => inside,
            });
            idx[2 + d] = te::max(te::min(e, te::i64c(h - 1)), te::i64c(0));
        }
        match cond {
            Some(c) => te::select(c, te::load(&src, idx), pad_value.clone()),
            None => te::load(&src, idx),
        }
    };
    let rule_attr = |n: &str| {
        let mut a = TAttrs::new();
        a.insert(
            "schedule_rule".to_string(),
            TAttr::Str(format!("meta_schedule.{n}")),
        );
        a
    };
    if is_max {
        let out = te.reduce_attr(
            "pool_max",
            "ax",
            &out_shape,
            &raxes,
            Combiner::Max,
            None,
            rule_attr("pool_max"),
            load,
        );
        return c.finish(&format!("max_pool{k}d"), te, &[&x], &[out]);
    }
    let sum = te.reduce("pool_sum", &out_shape, &raxes, Combiner::Sum, None, load);
    let dims: Vec<PrimExpr> = x.shape()[2..].to_vec();
    let out = te.compute_attr("pool_avg", "ax", &out_shape, rule_attr("pool_avg"), |i| {
        let count = if include_pad && ceil_mode {
            // topi: the window's elements inside the data and the given padding,
            // `(min(start + (k - 1) * dilation, n + pad_after - 1) - start) / dilation + 1`
            // with `start = o * stride - pad_before`; the last windows of ceil mode reach
            // past it.
            let extent = |d: usize, n: &PrimExpr| {
                let start = te::sub(
                    te::mul(i[2 + d].clone(), te::i64c(st[d])),
                    te::i64c(given_pads[d].0),
                );
                let end = te::min(
                    te::add(start.clone(), te::i64c((ps[d] - 1) * dil[d])),
                    te::add(n.clone(), te::i64c(given_pads[d].1 - 1)),
                );
                te::add(
                    te::floordiv(te::sub(end, start), te::i64c(dil[d])),
                    te::i64c(1),
                )
            };
            let prod = (1..k).fold(extent(0, &dims[0]), |acc, d| {
                te::mul(acc, extent(d, &dims[d]))
            });
            te::max(prod, te::i64c(1))
        } else if include_pad || !(any_pad || guard.iter().any(Option::is_some)) {
            te::i64c(ps.iter().product())
        } else {
            let extent = |d: usize, n: &PrimExpr| {
                let start = te::sub(
                    te::mul(i[2 + d].clone(), te::i64c(st[d])),
                    te::i64c(pads[d].0),
                );
                if dil[d] != 1 {
                    // topi: the taps `start + j·dilation` inside the data. The first is
                    // `jumps = max((dilation − 1 − start) / dilation, 0)` taps in (a window
                    // starting in the padding may step over the first row), the last
                    // `min(start + (k − 1)·dilation, n − 1)`; `/` truncates, as TVM's does.
                    let dl = te::i64c(dil[d]);
                    let jumps = te::max(
                        te::div(te::sub(te::i64c(dil[d] - 1), start.clone()), dl.clone()),
                        te::i64c(0),
                    );
                    let first = te::add(start.clone(), te::mul(dl.clone(), jumps));
                    let end = te::min(
                        te::add(start, te::i64c((ps[d] - 1) * dil[d])),
                        te::sub(n.clone(), te::i64c(1)),
                    );
                    return te::add(te::div(te::sub(end, first), dl), te::i64c(1));
                }
                let end = te::min(
                    te::add(start.clone(), te::i64c((ps[d] - 1) * dil[d] + 1)),
                    n.clone(),
                );
                te::sub(end, te::max(start, te::i64c(0)))
            };
            let prod = (1..k).fold(extent(0, &dims[0]), |acc, d| {
                te::mul(acc, extent(d, &dims[d]))
            });
            te::max(prod, te::i64c(1))
        };
        te::div(te::load(&sum, i.to_vec()), PrimExpr::cast(dt, count))
    });
    c.finish(&format!("avg_pool{k}d"), te, &[&x], &[out])
}
