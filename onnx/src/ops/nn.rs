//! Convolutions, pooling, normalizations, softmax and dropout.

use relax::ir::{AttrValue, Attrs};
use relax::transform::{FactorArithmetic, batch_norm_factors};
use tir::PrimExpr;

use super::{attrs, dtype_of, ints, norm_axis, rank, shape_expr, shape_of};
use crate::error::Result;
use crate::importer::{Importer, Val, constant, scalar};
use crate::node::{Node, or_str};

pub(crate) fn dropout(node: &Node) -> Result<Vec<Val>> {
    // Inference: the identity. The ratio and seed only matter in training.
    node.ignore(&["ratio", "seed", "is_test", "consumed_inputs"]);
    if let Some(t) = node.opt_input(2) {
        match t.ints() {
            Some(v) if v.iter().all(|&b| b == 0) => {}
            _ => return Err(node.unsupported("training_mode other than a constant false")),
        }
    }
    Ok(vec![node.input(0)?.clone()])
}

/// `x` reshaped to 2-D around `axis`: `(prod(dims[..axis]), prod(dims[axis..]))`.
pub(crate) fn flatten2d(imp: &mut Importer, node: &Node, x: &Val, axis: usize) -> Result<Val> {
    let s = shape_of(node, x)?;
    let prod = |d: &[PrimExpr]| {
        tir::arith::simplify(&d.iter().fold(PrimExpr::i64(1), |a, b| {
            PrimExpr::binary(tir::BinaryOp::Mul, a, b.clone())
        }))
    };
    let dims = vec![prod(&s[..axis]), prod(&s[axis..])];
    imp.op(
        "relax.reshape",
        vec![x.expr.clone(), shape_expr(dims)],
        Attrs::new(),
    )
}

pub(crate) fn softmax(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let op = if node.op == "Softmax" {
        "relax.nn.softmax"
    } else {
        "relax.nn.log_softmax"
    };
    if node.opset >= 13 {
        let axis = norm_axis(node, node.attr_i("axis", -1)?, r)?;
        return imp.op(
            op,
            vec![x.expr.clone()],
            attrs(&[("axis", AttrValue::Int(axis as i64))]),
        );
    }
    // Before opset 13 the input is coerced to 2-D at `axis` and normalized over the second
    // dimension.
    let axis = norm_axis(node, node.attr_i("axis", 1)?, r.max(1))?;
    if axis + 1 == r {
        return imp.op(
            op,
            vec![x.expr.clone()],
            attrs(&[("axis", AttrValue::Int(axis as i64))]),
        );
    }
    let flat = flatten2d(imp, node, x, axis)?;
    let y = imp.op(
        op,
        vec![flat.expr.clone()],
        attrs(&[("axis", AttrValue::Int(1))]),
    )?;
    imp.op(
        "relax.reshape",
        vec![y.expr.clone(), shape_expr(shape_of(node, x)?)],
        Attrs::new(),
    )
}

/// Spatial attributes shared by Conv, ConvTranspose and the pools.
struct Window {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    /// Relax order: all begins, then all ends (the same as ONNX's `pads`).
    pads: Vec<i64>,
}

fn list_or(node: &Node, name: &str, n: usize, default: i64) -> Result<Vec<i64>> {
    match node.attr_ints(name)? {
        Some(v) if v.len() == n => Ok(v),
        Some(v) if v.is_empty() => Ok(vec![default; n]),
        Some(v) => Err(node.invalid(format!(
            "attribute `{name}` has {} values for {n} spatial dimensions",
            v.len()
        ))),
        None => Ok(vec![default; n]),
    }
}

/// Reads kernel, strides, dilations and pads (resolving `auto_pad` against the input's
/// static spatial dims) for `n` spatial dimensions.
fn window(
    node: &Node,
    x: &Val,
    kernel: Vec<i64>,
    n: usize,
    with_dilations: bool,
) -> Result<Window> {
    let strides = list_or(node, "strides", n, 1)?;
    let dilations = if with_dilations {
        list_or(node, "dilations", n, 1)?
    } else {
        vec![1; n]
    };
    let auto_pad = or_str(node.attr_s("auto_pad")?, "NOTSET");
    let pads = match auto_pad.as_str() {
        "NOTSET" => list_or(node, "pads", 2 * n, 0)?,
        "VALID" => {
            node.attr_ints("pads")?;
            vec![0; 2 * n]
        }
        "SAME_UPPER" | "SAME_LOWER" => {
            node.attr_ints("pads")?;
            let s = x
                .static_shape()
                .ok_or_else(|| node.unsupported("auto_pad SAME with a symbolic input shape"))?;
            let mut begin = Vec::new();
            let mut end = Vec::new();
            for i in 0..n {
                let input = s[2 + i];
                let out = (input + strides[i] - 1) / strides[i];
                let total =
                    ((out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - input).max(0);
                let small = total / 2;
                let (b, e) = if auto_pad == "SAME_UPPER" {
                    (small, total - small)
                } else {
                    (total - small, small)
                };
                begin.push(b);
                end.push(e);
            }
            begin.extend(end);
            begin
        }
        other => return Err(node.unsupported(format!("auto_pad = \"{other}\""))),
    };
    Ok(Window {
        kernel,
        strides,
        dilations,
        pads,
    })
}

/// A bias `(C,)` added to an `(N, C, ...)` result of rank `r`.
fn add_bias(imp: &mut Importer, y: &Val, bias: &Val, r: usize) -> Result<Val> {
    let mut dims = vec![PrimExpr::i64(1), PrimExpr::i64(-1)];
    dims.extend(vec![PrimExpr::i64(1); r - 2]);
    let b = match bias.static_shape() {
        Some(s) if s.len() == 1 => {
            dims[1] = PrimExpr::i64(s[0]);
            imp.op(
                "relax.reshape",
                vec![bias.expr.clone(), shape_expr(dims)],
                Attrs::new(),
            )?
        }
        _ => imp.op(
            "relax.expand_dims",
            vec![bias.expr.clone()],
            attrs(&[("axis", ints(&(1..r as i64 - 1).collect::<Vec<_>>()))]),
        )?,
    };
    imp.op0("relax.add", &[y, &b])
}

/// The static shape of a convolution's weight, of the input's rank `r` (`(O, C/g, k…)`).
fn weight_shape(node: &Node, w: &Val, r: usize) -> Result<Vec<i64>> {
    let ws = w
        .static_shape()
        .ok_or_else(|| node.unsupported("a weight of symbolic shape"))?;
    if ws.len() != r {
        return Err(node.invalid(format!(
            "a weight of shape {ws:?} for an input of rank {r}; the ranks must agree"
        )));
    }
    Ok(ws)
}

pub(crate) fn conv(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let w = node.input(1)?;
    let r = rank(node, x)?;
    let n = r
        .checked_sub(2)
        .filter(|n| (1..=3).contains(n))
        .ok_or_else(|| node.unsupported(format!("a convolution of rank {r}")))?;
    let ws = weight_shape(node, w, r)?;
    let kernel = match node.attr_ints("kernel_shape")? {
        Some(k) => k,
        None => ws[2..].to_vec(),
    };
    let win = window(node, x, kernel, n, true)?;
    let group = node.attr_i("group", 1)?;
    let op = ["relax.nn.conv1d", "relax.nn.conv2d", "relax.nn.conv3d"][n - 1];
    let y = imp.op(
        op,
        vec![x.expr.clone(), w.expr.clone()],
        attrs(&[
            ("strides", ints(&win.strides)),
            ("padding", ints(&win.pads)),
            ("dilation", ints(&win.dilations)),
            ("groups", AttrValue::Int(group)),
        ]),
    )?;
    match node.opt_input(2) {
        Some(b) => add_bias(imp, &y, b, r),
        None => Ok(y),
    }
}

pub(crate) fn conv_transpose(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let w = node.input(1)?;
    let r = rank(node, x)?;
    let n = r
        .checked_sub(2)
        .filter(|n| (1..=2).contains(n))
        .ok_or_else(|| node.unsupported(format!("a transposed convolution of rank {r}")))?;
    let ws = weight_shape(node, w, r)?;
    let kernel = match node.attr_ints("kernel_shape")? {
        Some(k) => k,
        None => ws[2..].to_vec(),
    };
    let strides = list_or(node, "strides", n, 1)?;
    let dilations = list_or(node, "dilations", n, 1)?;
    let mut output_padding = list_or(node, "output_padding", n, 0)?;
    let group = node.attr_i("group", 1)?;
    let auto_pad = or_str(node.attr_s("auto_pad")?, "NOTSET");
    let output_shape = node.attr_ints("output_shape")?;
    let mut pads = list_or(node, "pads", 2 * n, 0)?;
    if output_shape.is_some() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER" {
        let s = x
            .static_shape()
            .ok_or_else(|| node.unsupported("output_shape/auto_pad with a symbolic input"))?;
        let out: Vec<i64> = match &output_shape {
            Some(o) if o.len() < n => {
                return Err(node.invalid(format!(
                    "output_shape {o:?} has fewer than the {n} spatial dimensions"
                )));
            }
            Some(o) => o[o.len() - n..].to_vec(),
            None => (0..n).map(|i| s[2 + i] * strides[i]).collect(),
        };
        for i in 0..n {
            let full = strides[i] * (s[2 + i] - 1)
                + output_padding[i]
                + (kernel[i] - 1) * dilations[i]
                + 1;
            let total = full - out[i];
            if total < 0 && output_shape.is_none() {
                // SAME asks for `input * stride`, more than the full result when the kernel
                // is shorter than the stride: onnxruntime then gives the full result, with no
                // padding.
                pads[i] = 0;
                pads[n + i] = 0;
                continue;
            }
            if total < 0 {
                // The requested output is larger than the full result: extend with
                // output padding on the far side.
                output_padding[i] -= total;
                pads[i] = 0;
                pads[n + i] = 0;
                continue;
            }
            let (b, e) = if auto_pad == "SAME_UPPER" {
                (total / 2, total - total / 2)
            } else {
                (total - total / 2, total / 2)
            };
            pads[i] = b;
            pads[n + i] = e;
        }
    } else if auto_pad == "VALID" {
        pads = vec![0; 2 * n];
    } else if auto_pad != "NOTSET" {
        return Err(node.unsupported(format!("auto_pad = \"{auto_pad}\"")));
    }
    let op = ["relax.nn.conv1d_transpose", "relax.nn.conv2d_transpose"][n - 1];
    let y = imp.op(
        op,
        vec![x.expr.clone(), w.expr.clone()],
        attrs(&[
            ("strides", ints(&strides)),
            ("padding", ints(&pads)),
            ("output_padding", ints(&output_padding)),
            ("dilation", ints(&dilations)),
            ("groups", AttrValue::Int(group)),
        ]),
    )?;
    match node.opt_input(2) {
        Some(b) => add_bias(imp, &y, b, r),
        None => Ok(y),
    }
}

/// MaxPool, AveragePool and LpPool; LpPool is `(k * avg_pool(|x|^p))^(1/p)` with the
/// padding counted (its zeros add nothing to the sum), `k` the window's size, as in TVM.
pub(crate) fn pool(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let n = r
        .checked_sub(2)
        .filter(|n| (1..=3).contains(n))
        .ok_or_else(|| node.unsupported(format!("pooling of rank {r}")))?;
    let kernel = node
        .attr_ints("kernel_shape")?
        .ok_or_else(|| node.invalid("attribute `kernel_shape` is missing"))?;
    if kernel.len() != n {
        return Err(node.invalid("kernel_shape does not match the input's rank"));
    }
    let max = node.op == "MaxPool";
    let lp = node.op == "LpPool";
    let with_dilations = if max {
        node.opset >= 10
    } else if lp {
        node.opset >= 18
    } else {
        node.opset >= 19
    };
    let window_size: i64 = kernel.iter().product();
    let mut win = window(node, x, kernel, n, with_dilations)?;
    let ceil_since = if lp { 18 } else { 10 };
    let mut ceil = node.opset >= ceil_since && node.attr_i("ceil_mode", 0)? != 0;
    let include_pad = lp || (!max && node.attr_i("count_include_pad", 0)? != 0);
    if ceil && let Some(s) = x.static_shape() {
        ceil = !floor_mode_pads(&s[2..], &mut win, include_pad);
    }
    if lp && ceil {
        return Err(node.unsupported("ceil_mode = 1 where a last window reaches past the padding"));
    }
    let mut a = vec![
        ("pool_size", ints(&win.kernel)),
        ("strides", ints(&win.strides)),
        ("dilation", ints(&win.dilations)),
        ("padding", ints(&win.pads)),
        ("ceil_mode", AttrValue::Bool(ceil)),
    ];
    let op = if max {
        if node.attr_i("storage_order", 0)? != 0 {
            return Err(node.unsupported("storage_order = 1"));
        }
        [
            "relax.nn.max_pool1d",
            "relax.nn.max_pool2d",
            "relax.nn.max_pool3d",
        ][n - 1]
    } else {
        a.push(("count_include_pad", AttrValue::Bool(include_pad)));
        [
            "relax.nn.avg_pool1d",
            "relax.nn.avg_pool2d",
            "relax.nn.avg_pool3d",
        ][n - 1]
    };
    if !lp {
        return imp.op(op, vec![x.expr.clone()], attrs(&a));
    }
    let dt = dtype_of(node, x)?;
    let p = lp_norm_p(node)?;
    let ax = imp.op0("relax.abs", &[x])?;
    let xp = imp.op0("relax.power", &[&ax, &scalar(p, dt)?])?;
    let avg = imp.op(op, vec![xp.expr.clone()], attrs(&a))?;
    let sum = imp.op0("relax.multiply", &[&avg, &scalar(window_size as f64, dt)?])?;
    imp.op0("relax.power", &[&sum, &scalar(1.0 / p, dt)?])
}

/// The `p` of LpPool and GlobalLpPool: an int from opset 2, a float in opset 1.
fn lp_norm_p(node: &Node) -> Result<f64> {
    let p = if node.opset >= 2 {
        node.attr_i("p", 2)? as f64
    } else {
        node.attr_f("p", 2.0)? as f64
    };
    if p <= 0.0 {
        return Err(node.invalid(format!("p {p} is not positive")));
    }
    Ok(p)
}

/// ONNX's ceil mode as floor mode over `input` (the spatial extents): each axis's end
/// padding becomes the least that holds every output window, so that floor mode gives ONNX's
/// output size. That size is not Relax's ceil-mode size: ONNX (as PyTorch) drops a last
/// window that would start past the data and its begin padding, Relax keeps it (an extra
/// output row of the pad value, 0 or the lowest float). Returns whether it rewrote `win`;
/// it does not when an average counting the padding would count positions past the given
/// padding (ceil mode's windows reach past it, but ONNX counts only the given padding).
fn floor_mode_pads(input: &[i64], win: &mut Window, include_pad: bool) -> bool {
    let n = input.len();
    let mut ends = Vec::with_capacity(n);
    for (i, &size) in input.iter().enumerate() {
        // In i128: the attributes are the file's, and their products may leave i64 (the
        // pool's own inference then rejects them).
        let (s, b, e) = (
            i128::from(win.strides[i]),
            i128::from(win.pads[i]),
            i128::from(win.pads[n + i]),
        );
        let size = i128::from(size);
        if s <= 0 {
            return false;
        }
        let eff = i128::from(win.dilations[i]) * (i128::from(win.kernel[i]) - 1) + 1;
        let span = size + b + e - eff;
        if span < 0 {
            return false;
        }
        let mut out = (span + s - 1) / s + 1;
        if (out - 1) * s >= size + b {
            out -= 1;
        }
        let end = ((out - 1) * s + eff - size - b).max(0);
        let Ok(end) = i64::try_from(end) else {
            return false;
        };
        if include_pad && i128::from(end) > e {
            return false;
        }
        ends.push(end);
    }
    win.pads[n..].copy_from_slice(&ends);
    true
}

pub(crate) fn global_pool(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let axes: Vec<i64> = (2..r as i64).collect();
    let op = if node.op == "GlobalAveragePool" {
        "relax.mean"
    } else {
        "relax.max"
    };
    imp.op(
        op,
        vec![x.expr.clone()],
        attrs(&[("axis", ints(&axes)), ("keepdims", AttrValue::Bool(true))]),
    )
}

/// A per-channel `(C,)` parameter reshaped to broadcast over an `(N, C, ...)` input.
fn per_channel(imp: &mut Importer, node: &Node, p: &Val, r: usize) -> Result<Val> {
    let c = shape_of(node, p)?;
    if c.len() != 1 {
        return Err(node.invalid("per-channel parameters must be vectors"));
    }
    let mut dims = vec![PrimExpr::i64(1), c[0].clone()];
    dims.extend(vec![PrimExpr::i64(1); r.saturating_sub(2)]);
    imp.op(
        "relax.reshape",
        vec![p.expr.clone(), shape_expr(dims)],
        Attrs::new(),
    )
}

pub(crate) fn batch_norm(imp: &mut Importer, node: &Node) -> Result<Vec<Val>> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let eps = node.attr_f("epsilon", 1e-5)? as f64;
    node.ignore(&["momentum", "is_test", "consumed_inputs"]);
    if node.opset < 9 && node.attr_i("spatial", 1)? != 1 {
        return Err(node.unsupported("spatial = 0"));
    }
    if node.attr_i("training_mode", 0)? != 0 {
        return Err(node.unsupported("training_mode = 1"));
    }
    let (scale, bias, mean, var) = (
        node.input(1)?,
        node.input(2)?,
        node.input(3)?,
        node.input(4)?,
    );
    // y = x * a + b with a = scale / sqrt(var + eps), b = bias - mean * a.
    let dt = dtype_of(node, x)?;
    if let Some((a, b)) = constant_bn_factors(node, [scale, bias, mean, var], eps, dt, r)? {
        let xa = imp.op0("relax.multiply", &[x, &a])?;
        return Ok(vec![imp.op0("relax.add", &[&xa, &b])?]);
    }
    let e = scalar(eps, dt)?;
    let ve = imp.op0("relax.add", &[var, &e])?;
    let sd = imp.op0("relax.sqrt", &[&ve])?;
    let a = imp.op0("relax.divide", &[scale, &sd])?;
    let ma = imp.op0("relax.multiply", &[mean, &a])?;
    let b = imp.op0("relax.subtract", &[bias, &ma])?;
    let a = per_channel(imp, node, &a, r)?;
    let b = per_channel(imp, node, &b, r)?;
    let xa = imp.op0("relax.multiply", &[x, &a])?;
    Ok(vec![imp.op0("relax.add", &[&xa, &b])?])
}

/// With constant statistics, batch norm's per-channel `a` and `b` as `[1, C, 1, …]` constants,
/// computed at import in the tensor's type with the operators' IEEE roundings (the same bits as
/// the Relax arithmetic of the general path), so that the pipeline sees `conv · a + b` with
/// constant factors and folds `a` into the convolution's weights (FoldBatchnormToConv2D).
/// `None` (the general path) for other dtypes or operands that are not constant vectors of one
/// length.
fn constant_bn_factors(
    node: &Node,
    [scale, bias, mean, var]: [&Val; 4],
    eps: f64,
    dt: tir::DataType,
    r: usize,
) -> Result<Option<(Val, Val)>> {
    let Some(v) = [scale, bias, mean, var]
        .iter()
        .map(|p| {
            p.data
                .as_ref()
                .filter(|d| d.shape().len() == 1)
                .and_then(|_| p.floats())
        })
        .collect::<Option<Vec<Vec<f64>>>>()
    else {
        return Ok(None);
    };
    let c = v[0].len();
    if v.iter().any(|p| p.len() != c) || r < 2 {
        return Ok(None);
    }
    let arith = match dt.to_string().as_str() {
        "float32" => FactorArithmetic::F32,
        "float64" => FactorArithmetic::F64,
        _ => return Ok(None),
    };
    let (a, b) = batch_norm_factors(Some(&v[0]), Some(&v[1]), &v[2], &v[3], eps, arith);
    let mut dims = vec![1i64; r];
    dims[1] = c as i64;
    let vdt = crate::tensor::vm_of(dt)?;
    let make = |vals: &[f64]| -> Result<Val> {
        let t = if vdt == vm::DataType::F32 {
            let f: Vec<f32> = vals.iter().map(|&x| x as f32).collect();
            vm::Tensor::from_slice(&dims, &f)
        } else {
            vm::Tensor::from_slice(&dims, vals)
        }
        .map_err(|e| node.invalid(e))?;
        constant(t)
    };
    Ok(Some((make(&a)?, make(&b)?)))
}

pub(crate) fn instance_norm(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let eps = node.attr_f("epsilon", 1e-5)? as f64;
    node.ignore(&["consumed_inputs"]);
    let axes: Vec<i64> = (2..r as i64).collect();
    imp.op(
        "relax.nn.instance_norm",
        vec![
            x.expr.clone(),
            node.input(1)?.expr.clone(),
            node.input(2)?.expr.clone(),
        ],
        attrs(&[
            ("channel_axis", AttrValue::Int(1)),
            ("axes", ints(&axes)),
            ("epsilon", AttrValue::Float(eps)),
        ]),
    )
}

pub(crate) fn layer_norm(imp: &mut Importer, node: &Node) -> Result<Vec<Val>> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let axis = norm_axis(node, node.attr_i("axis", -1)?, r)?;
    let eps = node.attr_f("epsilon", 1e-5)? as f64;
    // The statistics' precision: computing in the input's type is what Relax does.
    node.ignore(&["stash_type"]);
    let s = shape_of(node, x)?;
    let norm_shape = shape_expr(s[axis..].to_vec());
    let fit = |imp: &mut Importer, p: &Val| -> Result<Val> {
        if p.shape().is_some_and(|ps| ps.len() == r - axis) {
            return Ok(p.clone());
        }
        imp.op(
            "relax.broadcast_to",
            vec![p.expr.clone(), norm_shape.clone()],
            Attrs::new(),
        )
    };
    let gamma = fit(imp, node.input(1)?)?;
    let beta = match node.opt_input(2) {
        Some(b) => fit(imp, b)?,
        None => imp.op(
            "relax.zeros",
            vec![norm_shape.clone()],
            attrs(&[("dtype", AttrValue::DType(dtype_of(node, x)?))]),
        )?,
    };
    let axes: Vec<i64> = (axis as i64..r as i64).collect();
    let y = imp.op(
        "relax.nn.layer_norm",
        vec![x.expr.clone(), gamma.expr, beta.expr],
        attrs(&[("axes", ints(&axes)), ("epsilon", AttrValue::Float(eps))]),
    )?;
    Ok(vec![y])
}

/// Local response normalization across channels: `x / (bias + alpha / size * sum of
/// squares over the window of `size` channels)^beta`, the sum as an average pool over the
/// channel axis (count_include_pad) with the spec's asymmetric padding.
pub(crate) fn lrn(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let size = node
        .opt_i("size")?
        .ok_or_else(|| node.invalid("attribute `size` is missing"))?;
    let alpha = node.attr_f("alpha", 1e-4)? as f64;
    let beta = node.attr_f("beta", 0.75)? as f64;
    let bias = node.attr_f("bias", 1.0)? as f64;
    if !(3..=4).contains(&r) {
        return Err(node.unsupported(format!("LRN of a rank-{r} input")));
    }
    let sq = imp.op0("relax.multiply", &[x, x])?;
    let e = imp.op(
        "relax.expand_dims",
        vec![sq.expr.clone()],
        attrs(&[("axis", ints(&[1]))]),
    )?;
    let before = (size - 1) / 2;
    let after = size - 1 - before;
    let (op, pool, strides, pads) = if r == 3 {
        (
            "relax.nn.avg_pool2d",
            vec![size, 1],
            vec![1, 1],
            vec![before, 0, after, 0],
        )
    } else {
        (
            "relax.nn.avg_pool3d",
            vec![size, 1, 1],
            vec![1, 1, 1],
            vec![before, 0, 0, after, 0, 0],
        )
    };
    let dil = vec![1; pool.len()];
    let avg = imp.op(
        op,
        vec![e.expr.clone()],
        attrs(&[
            ("pool_size", ints(&pool)),
            ("strides", ints(&strides)),
            ("dilation", ints(&dil)),
            ("padding", ints(&pads)),
            ("ceil_mode", AttrValue::Bool(false)),
            ("count_include_pad", AttrValue::Bool(true)),
        ]),
    )?;
    let avg = imp.op(
        "relax.squeeze",
        vec![avg.expr.clone()],
        attrs(&[("axis", ints(&[1]))]),
    )?;
    let dt = dtype_of(node, x)?;
    let (a, b, be) = (scalar(alpha, dt)?, scalar(bias, dt)?, scalar(beta, dt)?);
    let scaled = imp.op0("relax.multiply", &[&avg, &a])?;
    let base = imp.op0("relax.add", &[&scaled, &b])?;
    let den = imp.op0("relax.power", &[&base, &be])?;
    imp.op0("relax.divide", &[x, &den])
}

/// Resize (opset 10+) and Upsample (opset 7–9), modes `nearest` and `linear`, on static
/// shapes: each resized axis is a gather of precomputed source indices (`nearest`), or two
/// gathers blended with precomputed weights (`linear`, which ONNX defines as separable).
pub(crate) fn resize(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let s = x
        .static_shape()
        .ok_or_else(|| node.unsupported("resizing a tensor of symbolic shape"))?;
    let r = s.len();
    let dt = dtype_of(node, x)?;
    let mode = or_str(node.attr_s("mode")?, "nearest");
    let upsample = node.op == "Upsample";
    let (transform, nearest_mode) = if upsample || node.opset < 11 {
        ("asymmetric".to_string(), "floor".to_string())
    } else {
        (
            or_str(node.attr_s("coordinate_transformation_mode")?, "half_pixel"),
            or_str(node.attr_s("nearest_mode")?, "round_prefer_floor"),
        )
    };
    if node.attr_i("antialias", 0)? != 0 {
        return Err(node.unsupported("antialias = 1"));
    }
    if or_str(node.attr_s("keep_aspect_ratio_policy")?, "stretch") != "stretch" {
        return Err(node.unsupported("keep_aspect_ratio_policy other than stretch"));
    }
    if node.attr_i("exclude_outside", 0)? != 0 {
        return Err(node.unsupported("exclude_outside = 1"));
    }
    // Only used by cubic and tf_crop_and_resize, both rejected below.
    node.ignore(&["cubic_coeff_a", "extrapolation_value"]);
    let axes: Vec<usize> = match node.attr_ints("axes")? {
        Some(a) => a
            .iter()
            .map(|&a| norm_axis(node, a, r))
            .collect::<Result<_>>()?,
        None => (0..r).collect(),
    };
    let floats = |v: &Val, what: &str| {
        v.floats()
            .ok_or_else(|| node.unsupported(format!("{what} computed at run time")))
    };
    // Scales and output sizes per axis.
    let (scales, sizes): (Vec<f64>, Vec<i64>) = {
        let (scale_in, size_in) = if upsample {
            if node.opset < 9 {
                let sc = node
                    .attr_floats("scales")?
                    .ok_or_else(|| node.invalid("attribute `scales` is missing"))?;
                (Some(sc.iter().map(|&v| v as f64).collect::<Vec<_>>()), None)
            } else {
                (Some(floats(node.input(1)?, "scales")?), None)
            }
        } else if node.opset < 11 {
            (Some(floats(node.input(1)?, "scales")?), None)
        } else {
            let sc = match node.opt_input(2) {
                Some(v)
                    if v.static_shape()
                        .is_some_and(|s| s.iter().product::<i64>() > 0) =>
                {
                    Some(floats(v, "scales")?)
                }
                _ => None,
            };
            let sz = match node.opt_input(3) {
                Some(v) => Some(
                    v.ints()
                        .ok_or_else(|| node.unsupported("sizes computed at run time"))?,
                ),
                None => None,
            };
            (sc, sz)
        };
        let mut scales = vec![1.0; r];
        let mut sizes = s.clone();
        match (scale_in, size_in) {
            (Some(sc), _) => {
                if sc.len() != axes.len() {
                    return Err(node.invalid("scales do not match the axes"));
                }
                for (k, &a) in axes.iter().enumerate() {
                    scales[a] = sc[k];
                    sizes[a] = (s[a] as f64 * sc[k]).floor() as i64;
                }
            }
            (None, Some(sz)) => {
                if sz.len() != axes.len() {
                    return Err(node.invalid("sizes do not match the axes"));
                }
                for (k, &a) in axes.iter().enumerate() {
                    sizes[a] = sz[k];
                    scales[a] = sz[k] as f64 / s[a] as f64;
                }
            }
            (None, None) => return Err(node.invalid("neither scales nor sizes")),
        }
        if let Some(a) = (0..r).find(|&a| sizes[a] < 0) {
            return Err(node.invalid(format!(
                "resizing axis {a} of extent {} to {} elements (scale {})",
                s[a], sizes[a], scales[a]
            )));
        }
        (scales, sizes)
    };
    let source = |out: i64, a: usize| -> Result<f64> {
        let (o, len_in, len_out, sc) = (out as f64, s[a] as f64, sizes[a] as f64, scales[a]);
        Ok(match transform.as_str() {
            "half_pixel" => (o + 0.5) / sc - 0.5,
            "pytorch_half_pixel" => {
                if len_out > 1.0 {
                    (o + 0.5) / sc - 0.5
                } else {
                    0.0
                }
            }
            "align_corners" => {
                if len_out > 1.0 {
                    o * (len_in - 1.0) / (len_out - 1.0)
                } else {
                    0.0
                }
            }
            "asymmetric" => o / sc,
            "tf_half_pixel_for_nearest" => (o + 0.5) / sc,
            "half_pixel_symmetric" => {
                let adj = len_out / (sc * len_in);
                let center = len_in / 2.0;
                center * (1.0 - adj) + (o + 0.5) / sc - 0.5
            }
            other => {
                return Err(
                    node.unsupported(format!("coordinate_transformation_mode = \"{other}\""))
                );
            }
        })
    };
    let take = |imp: &mut Importer, v: &Val, idx: Vec<i64>, a: usize| -> Result<Val> {
        let t = crate::importer::int_tensor(&[idx.len() as i64], &idx)?;
        imp.op(
            "relax.take",
            vec![v.expr.clone(), t.expr],
            attrs(&[
                ("axis", AttrValue::Int(a as i64)),
                ("mode", AttrValue::Str("fast".into())),
            ]),
        )
    };
    let mut y = x.clone();
    for a in 0..r {
        if sizes[a] == s[a] && scales[a] == 1.0 {
            continue;
        }
        if s[a] == 0 && sizes[a] > 0 {
            return Err(node.invalid(format!(
                "resizing axis {a}, which has no elements, to {} elements",
                sizes[a]
            )));
        }
        // The gather indices (and, for `linear`, a second set and two weights) are
        // constants the import makes itself, so they come out of the constant budget.
        let per_element = if mode == "linear" { 2 * 8 + 2 * 4 } else { 8 };
        let nbytes = usize::try_from(sizes[a])
            .ok()
            .and_then(|n| n.checked_mul(per_element))
            .unwrap_or(usize::MAX);
        if !imp.spend_constant_budget(nbytes) {
            return Err(node.invalid(format!(
                "resizing axis {a} to {} elements needs {nbytes} bytes of precomputed indices, \
                 more than is left of the import's constant budget ({} bytes)",
                sizes[a], imp.constant_fill_budget
            )));
        }
        let last = s[a] - 1;
        match mode.as_str() {
            "nearest" => {
                let mut idx = Vec::new();
                for o in 0..sizes[a] {
                    let f = source(o, a)?;
                    let i = match nearest_mode.as_str() {
                        "round_prefer_floor" => {
                            if f.fract() == 0.5 {
                                f.floor()
                            } else {
                                f.round()
                            }
                        }
                        "round_prefer_ceil" => f.round(),
                        "floor" => f.floor(),
                        "ceil" => f.ceil(),
                        other => {
                            return Err(node.unsupported(format!("nearest_mode = \"{other}\"")));
                        }
                    };
                    idx.push((i as i64).clamp(0, last));
                }
                y = take(imp, &y, idx, a)?;
            }
            "linear" => {
                let (mut i0, mut i1, mut w1) = (Vec::new(), Vec::new(), Vec::new());
                for o in 0..sizes[a] {
                    let f = source(o, a)?.clamp(0.0, last as f64);
                    let lo = f.floor();
                    i0.push(lo as i64);
                    i1.push((lo as i64 + 1).min(last));
                    w1.push(f - lo);
                }
                let lo = take(imp, &y, i0, a)?;
                let hi = take(imp, &y, i1, a)?;
                let mut wshape = vec![1i64; r];
                wshape[a] = sizes[a];
                let w1t: Vec<f32> = w1.iter().map(|&w| w as f32).collect();
                let w0t: Vec<f32> = w1.iter().map(|&w| (1.0 - w) as f32).collect();
                let mk = |v: &[f32]| -> Result<Val> {
                    let t = vm::Tensor::from_slice(&wshape, v).map_err(|e| node.invalid(e))?;
                    crate::importer::constant(t)
                };
                let (w0, w1) = (mk(&w0t)?, mk(&w1t)?);
                if dt != tir::DataType::FLOAT32 {
                    return Err(node.unsupported(format!("linear resize of {dt}")));
                }
                let a0 = imp.op0("relax.multiply", &[&lo, &w0])?;
                let a1 = imp.op0("relax.multiply", &[&hi, &w1])?;
                y = imp.op0("relax.add", &[&a0, &a1])?;
            }
            other => return Err(node.unsupported(format!("mode = \"{other}\""))),
        }
    }
    Ok(y)
}

/// Hardmax: one-hot of the argmax along `axis` (the first maximum wins, as in onnxruntime);
/// before opset 13 over the second dimension of the input coerced to 2-D at `axis`.
pub(crate) fn hardmax(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let dt = dtype_of(node, x)?;
    let one_hot = |imp: &mut Importer, v: &Val, axis: usize| -> Result<Val> {
        let depth = shape_of(node, v)?[axis]
            .as_int()
            .ok_or_else(|| node.unsupported("an axis of unknown extent"))?;
        let am = imp.op(
            "relax.argmax",
            vec![v.expr.clone()],
            attrs(&[
                ("axis", AttrValue::Int(axis as i64)),
                ("keepdims", AttrValue::Bool(false)),
            ]),
        )?;
        imp.op(
            "relax.one_hot",
            vec![
                am.expr.clone(),
                relax::Expr::prim(PrimExpr::float(dt, 1.0)),
                relax::Expr::prim(PrimExpr::float(dt, 0.0)),
            ],
            attrs(&[
                ("depth", AttrValue::Int(depth)),
                ("axis", AttrValue::Int(axis as i64)),
            ]),
        )
    };
    if node.opset >= 13 {
        let axis = norm_axis(node, node.attr_i("axis", -1)?, r)?;
        return one_hot(imp, x, axis);
    }
    let axis = norm_axis(node, node.attr_i("axis", 1)?, r.max(1))?;
    if axis + 1 == r {
        return one_hot(imp, x, axis);
    }
    let flat = flatten2d(imp, node, x, axis)?;
    let y = one_hot(imp, &flat, 1)?;
    imp.op(
        "relax.reshape",
        vec![y.expr.clone(), shape_expr(shape_of(node, x)?)],
        Attrs::new(),
    )
}

/// `(x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9)` over `axes` (default N, H, W), the
/// function body of the ONNX definition.
pub(crate) fn mean_variance_norm(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let axes = node.attr_ints("axes")?.unwrap_or_else(|| vec![0, 2, 3]);
    let axes: Vec<i64> = axes
        .iter()
        .map(|&a| norm_axis(node, a, r).map(|a| a as i64))
        .collect::<Result<_>>()?;
    let mean = |imp: &mut Importer, v: &Val| {
        imp.op(
            "relax.mean",
            vec![v.expr.clone()],
            attrs(&[("axis", ints(&axes)), ("keepdims", AttrValue::Bool(true))]),
        )
    };
    let m = mean(imp, x)?;
    let x2 = imp.op0("relax.multiply", &[x, x])?;
    let ex2 = mean(imp, &x2)?;
    let m2 = imp.op0("relax.multiply", &[&m, &m])?;
    let var = imp.op0("relax.subtract", &[&ex2, &m2])?;
    let sd = imp.op0("relax.sqrt", &[&var])?;
    let sd = imp.op0("relax.add", &[&sd, &scalar(1e-9, dtype_of(node, x)?)?])?;
    let d = imp.op0("relax.subtract", &[x, &m])?;
    imp.op0("relax.divide", &[&d, &sd])
}

/// GroupNormalization as `R.nn.group_norm` over the spatial axes; opset 18's per-group
/// scale and bias are repeated per channel (which needs a known channel count), opset 21's
/// are per channel already.
pub(crate) fn group_norm(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    if r < 2 {
        return Err(node.invalid(format!("a rank-{r} input (rank 2 or more is required)")));
    }
    let groups = node
        .opt_i("num_groups")?
        .ok_or_else(|| node.invalid("attribute `num_groups` is missing"))?;
    if groups <= 0 {
        return Err(node.invalid(format!("num_groups {groups} is not positive")));
    }
    let eps = node.attr_f("epsilon", 1e-5)? as f64;
    if node.opset >= 21 {
        let st = node.attr_i("stash_type", 1)?;
        if st != 1 {
            return Err(node.unsupported(format!("stash_type {st} (only 1, float32)")));
        }
    }
    let c = shape_of(node, x)?[1].as_int();
    if let Some(c) = c
        && c % groups != 0
    {
        return Err(node.invalid(format!(
            "num_groups {groups} does not divide the {c} channels"
        )));
    }
    let per_channel = |imp: &mut Importer, p: &Val| -> Result<Val> {
        if node.opset >= 21 {
            return Ok(p.clone());
        }
        let c = c.ok_or_else(|| node.unsupported("an input of unknown channel count"))?;
        let g = imp.op(
            "relax.reshape",
            vec![
                p.expr.clone(),
                shape_expr(vec![PrimExpr::i64(groups), PrimExpr::i64(1)]),
            ],
            Attrs::new(),
        )?;
        let b = imp.op(
            "relax.broadcast_to",
            vec![
                g.expr.clone(),
                shape_expr(vec![PrimExpr::i64(groups), PrimExpr::i64(c / groups)]),
            ],
            Attrs::new(),
        )?;
        imp.op(
            "relax.reshape",
            vec![b.expr.clone(), shape_expr(vec![PrimExpr::i64(c)])],
            Attrs::new(),
        )
    };
    let gamma = per_channel(imp, node.input(1)?)?;
    let beta = per_channel(imp, node.input(2)?)?;
    let axes: Vec<i64> = (2..r as i64).collect();
    imp.op(
        "relax.nn.group_norm",
        vec![x.expr.clone(), gamma.expr, beta.expr],
        attrs(&[
            ("num_groups", AttrValue::Int(groups)),
            ("channel_axis", AttrValue::Int(1)),
            ("axes", ints(&axes)),
            ("epsilon", AttrValue::Float(eps)),
        ]),
    )
}

/// GlobalLpPool: `sum(|x|^p)^(1/p)` over the spatial axes.
pub(crate) fn global_lp_pool(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let p = lp_norm_p(node)?;
    let dt = dtype_of(node, x)?;
    let a = imp.op0("relax.abs", &[x])?;
    let ap = imp.op0("relax.power", &[&a, &scalar(p, dt)?])?;
    let axes: Vec<i64> = (2..r as i64).collect();
    let s = imp.op(
        "relax.sum",
        vec![ap.expr.clone()],
        attrs(&[("axis", ints(&axes)), ("keepdims", AttrValue::Bool(true))]),
    )?;
    imp.op0("relax.power", &[&s, &scalar(1.0 / p, dt)?])
}

/// MaxUnpool: the input's values scattered, at the flat positions MaxPool's indices give,
/// into zeros of the output shape (`(in - 1) * stride + kernel - pads`, or `output_shape`).
pub(crate) fn max_unpool(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let ind = node.input(1)?;
    let xs = x
        .static_shape()
        .ok_or_else(|| node.unsupported("an input of unknown shape"))?;
    let n = xs.len().saturating_sub(2);
    let kernel = node
        .attr_ints("kernel_shape")?
        .ok_or_else(|| node.invalid("attribute `kernel_shape` is missing"))?;
    if n == 0 || kernel.len() != n {
        return Err(node.invalid("kernel_shape does not match the input's rank"));
    }
    let strides = list_or(node, "strides", n, 1)?;
    let pads = list_or(node, "pads", 2 * n, 0)?;
    let out: Vec<i64> = match node.opt_input(2) {
        Some(v) => v
            .ints()
            .ok_or_else(|| node.unsupported("an output_shape computed at run time"))?,
        None => {
            let mut o = xs[..2].to_vec();
            for i in 0..n {
                o.push((xs[i + 2] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + n]);
            }
            o
        }
    };
    if out.len() != xs.len() || out.iter().any(|&d| d < 0) {
        return Err(node.invalid(format!("output shape {out:?} for an input of shape {xs:?}")));
    }
    let dims = |v: &[i64]| v.iter().map(|&d| PrimExpr::i64(d)).collect::<Vec<_>>();
    let total: i64 = out.iter().product();
    let zeros = imp.op(
        "relax.zeros",
        vec![shape_expr(vec![PrimExpr::i64(total)])],
        attrs(&[("dtype", AttrValue::DType(dtype_of(node, x)?))]),
    )?;
    let flat = |imp: &mut Importer, v: &Val, len: i64| {
        imp.op(
            "relax.reshape",
            vec![v.expr.clone(), shape_expr(vec![PrimExpr::i64(len)])],
            Attrs::new(),
        )
    };
    let numel: i64 = xs.iter().product();
    let fx = flat(imp, x, numel)?;
    let fi = flat(imp, ind, numel)?;
    let s = imp.op(
        "relax.scatter_elements",
        vec![zeros.expr.clone(), fi.expr.clone(), fx.expr.clone()],
        attrs(&[("axis", AttrValue::Int(0))]),
    )?;
    imp.op(
        "relax.reshape",
        vec![s.expr.clone(), shape_expr(dims(&out))],
        Attrs::new(),
    )
}
