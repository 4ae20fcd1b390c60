//! Neural-network operators (`R.nn.*`): softmax, normalizations, convolutions and pools with
//! their layouts, padding, dropout, attention and losses.

use tir::arith::SlidingWindow;
use tir::{DataType, PrimExpr};

use crate::Result;
use crate::ir::{AttrValue, Attrs, Call, Expr, StructInfo};
use crate::op::binary::common_dtype;
use crate::op::common::{
    TensorInfo, add, attr_bool, attr_float, attr_int, attr_int_list, attr_opt_dtype,
    attr_opt_int_list, attr_str, check_arity, dim, err, floordiv, mul, normalize_axes,
    normalize_axis, product, shape_str, tensor_arg,
};
use crate::op::layout::{self, Layout, spatial_rank};
use crate::struct_info_ops::const_value;

fn require_float(call: &Call, x: &TensorInfo) -> Result<()> {
    match x.dtype {
        Some(d) if !d.is_float() => {
            Err(err(call, format!("requires a float tensor, got dtype {d}")))
        }
        _ => Ok(()),
    }
}

/// `R.nn.softmax(x, axis)` / `R.nn.log_softmax`.
pub(super) fn infer_softmax(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    require_float(call, &x)?;
    if let Some(n) = x.ndim() {
        normalize_axis(call, attr_int(call, "axis")?, n)?;
    }
    Ok(x.to_struct_info())
}

/// `R.nn.prelu(x, alpha, axis)`.
pub(super) fn infer_prelu(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    tensor_arg(call, args, 1)?;
    if let Some(n) = x.ndim() {
        normalize_axis(call, attr_int(call, "axis")?, n)?;
    }
    Ok(x.to_struct_info())
}

/// `R.nn.dropout(x, rate)`: `(output, mask)`, both of the input's struct info.
pub(super) fn infer_dropout(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    require_float(call, &x)?;
    let rate = attr_float(call, "rate")?;
    if !(0.0..1.0).contains(&rate) {
        return Err(err(call, format!("rate must be in [0, 1), got {rate}")));
    }
    Ok(StructInfo::Tuple(vec![
        x.to_struct_info(),
        x.to_struct_info(),
    ]))
}

/// Checks that parameter tensor `i` (gamma, beta, ...) has the data's dimensions at `axes`.
fn check_param_shape(
    call: &Call,
    args: &[StructInfo],
    i: usize,
    x: &TensorInfo,
    axes: &[usize],
) -> Result<()> {
    let p = tensor_arg(call, args, i)?;
    if p.ndim >= 0 && p.ndim as usize != axes.len() {
        return Err(err(
            call,
            format!(
                "{} must have rank {} (one dimension per normalized axis), got rank {}",
                crate::op::common::arg_name(call, i),
                axes.len(),
                p.ndim
            ),
        ));
    }
    if let (Some(ps), Some(xs)) = (&p.shape, &x.shape) {
        for (k, &a) in axes.iter().enumerate() {
            if let (Some(u), Some(v)) = (const_value(&ps[k]), const_value(&xs[a]))
                && u != v
            {
                return Err(err(
                    call,
                    format!(
                        "{} has shape {} but the data has {} at axis {a}",
                        crate::op::common::arg_name(call, i),
                        shape_str(ps),
                        crate::struct_info_ops::dim_str(&xs[a])
                    ),
                ));
            }
        }
    }
    if let (Some(a), Some(b)) = (p.dtype, x.dtype)
        && a != b
    {
        return Err(err(
            call,
            format!(
                "{} has dtype {a} but the data has dtype {b}",
                crate::op::common::arg_name(call, i)
            ),
        ));
    }
    Ok(())
}

/// `R.nn.batch_norm(...)`: `(output, new_mean, new_var)`.
pub(super) fn infer_batch_norm(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 5, 5)?;
    let x = tensor_arg(call, args, 0)?;
    require_float(call, &x)?;
    let axis = attr_int(call, "axis")?;
    if let Some(n) = x.ndim() {
        let a = normalize_axis(call, axis, n)?;
        for i in 1..5 {
            check_param_shape(call, args, i, &x, &[a])?;
        }
    }
    Ok(StructInfo::Tuple(vec![
        x.to_struct_info(),
        args[3].clone(),
        args[4].clone(),
    ]))
}

/// `R.nn.layer_norm(x, gamma, beta, axes, ...)`: the data's struct info.
pub(super) fn infer_layer_norm(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let x = tensor_arg(call, args, 0)?;
    require_float(call, &x)?;
    if let Some(n) = x.ndim() {
        let axes = normalize_axes(call, &attr_int_list(call, "axes")?, n)?;
        check_param_shape(call, args, 1, &x, &axes)?;
        check_param_shape(call, args, 2, &x, &axes)?;
    }
    Ok(x.to_struct_info())
}

/// `R.nn.group_norm(x, gamma, beta, num_groups, channel_axis, axes, ...)`.
pub(super) fn infer_group_norm(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let x = tensor_arg(call, args, 0)?;
    require_float(call, &x)?;
    let groups = attr_int(call, "num_groups")?;
    if groups <= 0 {
        return Err(err(
            call,
            format!("num_groups must be positive, got {groups}"),
        ));
    }
    if let Some(n) = x.ndim() {
        let c = normalize_axis(call, attr_int(call, "channel_axis")?, n)?;
        normalize_axes(call, &attr_int_list(call, "axes")?, n)?;
        if let Some(s) = &x.shape
            && let Some(ch) = const_value(&s[c])
            && ch % groups != 0
        {
            return Err(err(
                call,
                format!("{ch} channels cannot be divided into {groups} groups"),
            ));
        }
        check_param_shape(call, args, 1, &x, &[c])?;
        check_param_shape(call, args, 2, &x, &[c])?;
    }
    Ok(x.to_struct_info())
}

/// `R.nn.instance_norm(x, gamma, beta, channel_axis, axes, ...)`.
pub(super) fn infer_instance_norm(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 3)?;
    let x = tensor_arg(call, args, 0)?;
    require_float(call, &x)?;
    if let Some(n) = x.ndim() {
        let c = normalize_axis(call, attr_int(call, "channel_axis")?, n)?;
        normalize_axes(call, &attr_int_list(call, "axes")?, n)?;
        check_param_shape(call, args, 1, &x, &[c])?;
        check_param_shape(call, args, 2, &x, &[c])?;
    }
    Ok(x.to_struct_info())
}

/// `R.nn.rms_norm(x, weight, axes, epsilon)`.
pub(super) fn infer_rms_norm(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    require_float(call, &x)?;
    if let Some(n) = x.ndim() {
        let axes = normalize_axes(call, &attr_int_list(call, "axes")?, n)?;
        check_param_shape(call, args, 1, &x, &axes)?;
    }
    Ok(x.to_struct_info())
}

/// An `int` axes attribute becomes a list of one.
pub(super) fn canon_axes(_args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    if let Some(AttrValue::Int(a)) = attrs.get("axes") {
        let a = *a;
        attrs.set("axes", AttrValue::List(vec![AttrValue::Int(a)]));
    }
    Ok(())
}

/// The primal extents `[batch, channel, spatial...]` of data of shape `shape` in `layout`
/// (`NCHW`, `NHWC`, `NCHW16c`, ...), or the kernel's `[O, I, spatial...]` with `first` =
/// `['O', 'I']`; `None` for a layout that does not parse or has other letters (the inference
/// then keeps only the rank, and LegalizeOps rejects the layout by name).
fn primal_shape(
    layout: &str,
    first: [char; 2],
    k: usize,
    shape: &[PrimExpr],
) -> Option<Vec<PrimExpr>> {
    let order = if first == ['N', 'C'] {
        layout::data_order(k)
    } else {
        layout::kernel_order(first, k)
    };
    Layout::parse(layout)?.primal(&order, shape)
}

/// The rank of tensors in `layout`: its number of axes, or `k + 2` if it does not parse.
fn layout_rank(layout: &str, k: usize) -> usize {
    Layout::parse(layout).map_or(k + 2, |l| l.rank())
}

/// Lays out `[n, c, spatial...]` in `layout`.
fn arrange(
    call: &Call,
    layout: &str,
    n: PrimExpr,
    c: PrimExpr,
    spatial: Vec<PrimExpr>,
) -> Result<Vec<PrimExpr>> {
    let k = spatial.len();
    let primal: Vec<PrimExpr> = [n, c].into_iter().chain(spatial).collect();
    Layout::parse(layout)
        .and_then(|l| l.layout_shape(&layout::data_order(k), &primal))
        .ok_or_else(|| err(call, format!("unsupported output layout \"{layout}\"")))
}

fn list_of(call: &Call, name: &str, k: usize, allow_double: bool) -> Result<Vec<i64>> {
    let mut v = attr_int_list(call, name)?;
    let want = if allow_double { 2 * k } else { k };
    if v.len() == 1 {
        v = vec![v[0]; want];
    } else if allow_double && v.len() == k {
        v = v.iter().chain(v.iter()).copied().collect();
    }
    if v.len() != want {
        return Err(err(
            call,
            format!(
                "attribute `{name}` must have {want} values, got {}",
                v.len()
            ),
        ));
    }
    Ok(v)
}

struct ConvSetup {
    x: TensorInfo,
    w: TensorInfo,
    k: usize,
    data_layout: String,
    kernel_layout: String,
    out_layout: String,
    out_dtype: Option<DataType>,
}

fn conv_setup(call: &Call, args: &[StructInfo]) -> Result<ConvSetup> {
    check_arity(call, args, 2, 2)?;
    let x = tensor_arg(call, args, 0)?;
    let w = tensor_arg(call, args, 1)?;
    let data_layout = attr_str(call, "data_layout")?;
    let kernel_layout = attr_str(call, "kernel_layout")?;
    let out_layout = match attr(call, "out_layout") {
        Some(AttrValue::Str(s)) => s,
        _ => data_layout.clone(),
    };
    let k = spatial_rank(&data_layout);
    for (t, what, layout) in [(&x, "data", &data_layout), (&w, "weight", &kernel_layout)] {
        let rank = layout_rank(layout, k);
        if t.ndim >= 0 && t.ndim as usize != rank {
            return Err(err(
                call,
                format!(
                    "{what} must have rank {rank} for layout \"{layout}\", got rank {}",
                    t.ndim
                ),
            ));
        }
    }
    let out_dtype = match attr_opt_dtype(call, "out_dtype")? {
        Some(d) => Some(d),
        None => common_dtype(call, x.dtype, w.dtype)?,
    };
    Ok(ConvSetup {
        x,
        w,
        k,
        data_layout,
        kernel_layout,
        out_layout,
        out_dtype,
    })
}

use crate::op::common::attr;

/// `R.nn.conv1d/2d/3d`: `out = (in + pad_before + pad_after - dilation * (k - 1) - 1) //
/// stride + 1` per spatial dimension; output channels from the weight.
pub(super) fn infer_conv(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    let s = conv_setup(call, args)?;
    let (Some(xs), Some(ws)) = (&s.x.shape, &s.w.shape) else {
        return Ok(s.x.with_ndim(s.k as i64 + 2, s.out_dtype));
    };
    let (Some(xs), Some(ws)) = (
        primal_shape(&s.data_layout, ['N', 'C'], s.k, xs),
        primal_shape(&s.kernel_layout, ['O', 'I'], s.k, ws),
    ) else {
        return Ok(s
            .x
            .with_ndim(layout_rank(&s.out_layout, s.k) as i64, s.out_dtype));
    };
    let strides = list_of(call, "strides", s.k, false)?;
    let padding = list_of(call, "padding", s.k, true)?;
    let dilation = list_of(call, "dilation", s.k, false)?;
    let groups = attr_int(call, "groups")?;
    if groups <= 0 {
        return Err(err(call, format!("groups must be positive, got {groups}")));
    }
    let in_c = &xs[1];
    let w_in = &ws[1];
    let out_c = &ws[0];
    if let (Some(a), Some(b)) = (const_value(in_c), const_value(w_in))
        && a != b * groups
    {
        return Err(err(
            call,
            format!(
                "the data has {a} channels but the weight expects {b} input channels x {groups} groups = {}",
                b * groups
            ),
        ));
    }
    if let Some(o) = const_value(out_c)
        && o % groups != 0
    {
        return Err(err(
            call,
            format!("{o} output channels are not divisible by {groups} groups"),
        ));
    }
    let mut spatial = Vec::with_capacity(s.k);
    for i in 0..s.k {
        let window = axis_window(i, s.k, &strides, &dilation, &padding, false);
        spatial.push(window_extent(call, i, &window, &xs[2 + i], &ws[2 + i])?);
    }
    let out = arrange(call, &s.out_layout, xs[0].clone(), out_c.clone(), spatial)?;
    Ok(s.x.with_shape(out, s.out_dtype))
}

/// Spatial axis `i` of `k` as a [`SlidingWindow`], from the per-axis attribute lists
/// (`padding` holds the `k` paddings before, then the `k` after).
fn axis_window(
    i: usize,
    k: usize,
    strides: &[i64],
    dilation: &[i64],
    padding: &[i64],
    ceil_mode: bool,
) -> SlidingWindow {
    SlidingWindow {
        stride: strides[i],
        dilation: dilation[i],
        pad_before: padding[i],
        pad_after: padding[i + k],
        ceil_mode,
    }
}

/// The output extent along spatial axis `i` of `window` sliding over `input` elements with a
/// kernel of `kernel` taps ([`SlidingWindow::positions_expr`]). Invalid attributes, an extent
/// past 2^63 − 1 (a dilation of 2^62, say) and a window longer than the padded data (a negative
/// constant extent) are errors naming the axis, not a wrapped or negative shape at run time.
fn window_extent(
    call: &Call,
    i: usize,
    window: &SlidingWindow,
    input: &PrimExpr,
    kernel: &PrimExpr,
) -> Result<PrimExpr> {
    if window.stride <= 0 || window.dilation <= 0 {
        return Err(err(
            call,
            format!(
                "strides and dilation must be positive, got stride {} and dilation {} along spatial axis {i}",
                window.stride, window.dilation
            ),
        ));
    }
    check_kernel_taps(call, i, kernel)?;
    let Some(extent) = window.positions_expr(input, kernel) else {
        return Err(err(
            call,
            format!(
                "spatial axis {i}: the output extent of a window of {kernel} taps at dilation {} and stride {} over {input} elements padded by ({}, {}) exceeds 2^63 - 1",
                window.dilation, window.stride, window.pad_before, window.pad_after
            ),
        ));
    };
    check_window_fits(call, i, &extent)?;
    Ok(extent)
}

/// A window of no taps (a kernel extent of 0, or a negative one) along spatial axis
/// `i` is an error naming it (TVM 0.27 infers a shape for it and its kernel returns
/// uninitialised memory).
fn check_kernel_taps(call: &Call, i: usize, kernel: &PrimExpr) -> Result<()> {
    match const_value(kernel) {
        Some(k) if k < 1 => Err(err(
            call,
            format!(
                "spatial axis {i}: a window of {k} taps (the kernel extent must be at least 1)"
            ),
        )),
        _ => Ok(()),
    }
}

/// An output extent along spatial axis `i` that is a negative constant means the window
/// is larger than the (padded) data: an error naming the axis rather than a tensor of
/// negative shape at run time.
fn check_window_fits(call: &Call, i: usize, extent: &PrimExpr) -> Result<()> {
    match const_value(extent) {
        Some(v) if v < 0 => Err(err(
            call,
            format!(
                "the output would have {v} elements along spatial axis {i}: the window is larger than the padded data"
            ),
        )),
        _ => Ok(()),
    }
}

/// `R.nn.conv1d_transpose/conv2d_transpose`: `out = (in - 1) * stride - pad_before -
/// pad_after + dilation * (k - 1) + output_padding + 1`.
pub(super) fn infer_conv_transpose(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    let s = conv_setup(call, args)?;
    let (Some(xs), Some(ws)) = (&s.x.shape, &s.w.shape) else {
        return Ok(s.x.with_ndim(s.k as i64 + 2, s.out_dtype));
    };
    let (Some(xs), Some(ws)) = (
        primal_shape(&s.data_layout, ['N', 'C'], s.k, xs),
        primal_shape(&s.kernel_layout, ['O', 'I'], s.k, ws),
    ) else {
        return Ok(s
            .x
            .with_ndim(layout_rank(&s.out_layout, s.k) as i64, s.out_dtype));
    };
    let strides = list_of(call, "strides", s.k, false)?;
    let padding = list_of(call, "padding", s.k, true)?;
    let output_padding = list_of(call, "output_padding", s.k, false)?;
    let dilation = list_of(call, "dilation", s.k, false)?;
    let groups = attr_int(call, "groups")?;
    if groups <= 0 {
        return Err(err(call, format!("groups must be positive, got {groups}")));
    }
    let in_c = &xs[1];
    let w_in = &ws[1];
    if let (Some(a), Some(b)) = (const_value(in_c), const_value(w_in))
        && a != b
    {
        return Err(err(
            call,
            format!("the data has {a} channels but the weight expects {b} input channels"),
        ));
    }
    let out_c = mul(&ws[0], &dim(groups));
    let mut spatial = Vec::with_capacity(s.k);
    for i in 0..s.k {
        let window = axis_window(i, s.k, &strides, &dilation, &padding, false);
        check_kernel_taps(call, i, &ws[2 + i])?;
        let Some(v) = window.transposed_extent_expr(&xs[2 + i], &ws[2 + i], output_padding[i])
        else {
            return Err(err(
                call,
                format!(
                    "spatial axis {i}: the output extent of a transposed convolution with stride {}, a window of {} taps at dilation {}, padding ({}, {}) and output padding {} over {} elements exceeds 2^63 - 1",
                    strides[i],
                    ws[2 + i],
                    dilation[i],
                    padding[i],
                    padding[i + s.k],
                    output_padding[i],
                    xs[2 + i]
                ),
            ));
        };
        check_window_fits(call, i, &v)?;
        spatial.push(v);
    }
    let out = arrange(call, &s.out_layout, xs[0].clone(), out_c, spatial)?;
    Ok(s.x.with_shape(out, s.out_dtype))
}

/// A pool's data as its layouts read it.
struct PoolData {
    out_layout: String,
    /// Spatial dimensions.
    k: usize,
    /// `[batch, channel, spatial...]`, if the data's shape is known and the layout parses.
    primal: Option<Vec<PrimExpr>>,
    /// The rank of the result (`out_layout`'s).
    out_rank: i64,
}

fn pool_data(call: &Call, x: &TensorInfo) -> Result<PoolData> {
    let layout = attr_str(call, "layout")?;
    let out_layout = match attr(call, "out_layout") {
        Some(AttrValue::Str(s)) => s,
        _ => layout.clone(),
    };
    let k = spatial_rank(&layout);
    let rank = layout_rank(&layout, k);
    if x.ndim >= 0 && x.ndim as usize != rank {
        return Err(err(
            call,
            format!(
                "data must have rank {rank} for layout \"{layout}\", got rank {}",
                x.ndim
            ),
        ));
    }
    let primal = x
        .shape
        .as_deref()
        .and_then(|xs| primal_shape(&layout, ['N', 'C'], k, xs));
    Ok(PoolData {
        out_rank: layout_rank(&out_layout, k) as i64,
        out_layout,
        k,
        primal,
    })
}

/// `R.nn.max_pool2d` / `R.nn.avg_pool2d` (and 1-D / 3-D).
pub(super) fn infer_pool(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let PoolData {
        out_layout,
        k,
        primal,
        out_rank,
    } = pool_data(call, &x)?;
    let Some(xs) = primal else {
        return Ok(x.with_ndim(out_rank, x.dtype));
    };
    let pool = list_of(call, "pool_size", k, false)?;
    let strides = list_of(call, "strides", k, false)?;
    let dilation = list_of(call, "dilation", k, false)?;
    let padding = list_of(call, "padding", k, true)?;
    let ceil_mode = attr_bool(call, "ceil_mode")?;
    let mut spatial = Vec::with_capacity(k);
    for i in 0..k {
        if pool[i] <= 0 {
            return Err(err(
                call,
                format!(
                    "pool_size must be positive, got {} along spatial axis {i}",
                    pool[i]
                ),
            ));
        }
        let window = axis_window(i, k, &strides, &dilation, &padding, ceil_mode);
        spatial.push(window_extent(call, i, &window, &xs[2 + i], &dim(pool[i]))?);
    }
    let out = arrange(call, &out_layout, xs[0].clone(), xs[1].clone(), spatial)?;
    Ok(x.with_shape(out, x.dtype))
}

/// `R.nn.adaptive_avg_pool2d(x, output_size)` (and 1-D / 3-D).
pub(super) fn infer_adaptive_pool(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let PoolData {
        out_layout,
        k,
        primal,
        out_rank,
    } = pool_data(call, &x)?;
    let Some(xs) = primal else {
        return Ok(x.with_ndim(out_rank, x.dtype));
    };
    let spatial: Vec<PrimExpr> = match attr_opt_int_list(call, "output_size")? {
        None => xs[2..].to_vec(),
        Some(v) if v.len() == 1 => vec![dim(v[0]); k],
        Some(v) if v.len() == k => v.iter().map(|&d| dim(d)).collect(),
        Some(v) => {
            return Err(err(
                call,
                format!("output_size must have 1 or {k} values, got {}", v.len()),
            ));
        }
    };
    let out = arrange(call, &out_layout, xs[0].clone(), xs[1].clone(), spatial)?;
    Ok(x.with_shape(out, x.dtype))
}

fn expand(v: &AttrValue, k: usize, double: bool) -> Option<AttrValue> {
    let items: Vec<i64> = match v {
        AttrValue::List(_) => v.as_int_list()?,
        other => vec![other.as_int()?],
    };
    let out: Vec<i64> = match (items.len(), double) {
        (1, false) => vec![items[0]; k],
        (1, true) => vec![items[0]; 2 * k],
        (n, true) if n == k => items.iter().chain(items.iter()).copied().collect(),
        _ => return None,
    };
    Some(AttrValue::List(
        out.into_iter().map(AttrValue::Int).collect(),
    ))
}

fn canon_lists(attrs: &mut Attrs, layout_key: &str, lists: &[(&str, bool)]) {
    let Some(layout) = attrs
        .get(layout_key)
        .and_then(|v| v.as_str())
        .map(str::to_string)
    else {
        return;
    };
    let k = spatial_rank(&layout);
    for &(name, double) in lists {
        if let Some(v) = attrs.get(name)
            && let Some(e) = expand(v, k, double)
        {
            attrs.set(name, e);
        }
    }
    if matches!(attrs.get("out_layout"), None | Some(AttrValue::None)) {
        attrs.set("out_layout", AttrValue::Str(layout));
    }
}

/// Conv attributes as TVM stores them: per-dimension lists, padding with before and after
/// values, `out_layout` defaulting to `data_layout`.
pub(super) fn canon_conv(_args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    canon_lists(
        attrs,
        "data_layout",
        &[
            ("strides", false),
            ("padding", true),
            ("output_padding", false),
            ("dilation", false),
        ],
    );
    Ok(())
}

/// Pool attributes as TVM stores them (see [`canon_conv`]).
pub(super) fn canon_pool(_args: &mut Vec<Expr>, attrs: &mut Attrs) -> Result<()> {
    canon_lists(
        attrs,
        "layout",
        &[
            ("pool_size", false),
            ("strides", false),
            ("padding", true),
            ("dilation", false),
            ("output_size", false),
        ],
    );
    Ok(())
}

/// `R.nn.pad(x, pad_width)`: `pad_width` holds `before, after` per dimension.
pub(super) fn infer_pad(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let pw = attr_int_list(call, "pad_width")?;
    let Some(n) = x.ndim() else {
        return Ok(x.to_struct_info());
    };
    if pw.len() != 2 * n {
        return Err(err(
            call,
            format!(
                "pad_width must have 2 values per dimension ({}), got {}",
                2 * n,
                pw.len()
            ),
        ));
    }
    let Some(xs) = &x.shape else {
        return Ok(x.to_struct_info());
    };
    let out = xs
        .iter()
        .enumerate()
        .map(|(i, d)| add(d, &dim(pw[2 * i] + pw[2 * i + 1])))
        .collect();
    Ok(x.with_shape(out, x.dtype))
}

/// `R.nn.attention(q, k, v, bias?)`: q `(B, S, N, H)`, k `(B, S_kv, N, H)`, v `(B, S_kv, N,
/// H_v)` → `(B, S, N, H_v)`.
pub(super) fn infer_attention(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 3, 4)?;
    let q = tensor_arg(call, args, 0)?;
    let k = tensor_arg(call, args, 1)?;
    let v = tensor_arg(call, args, 2)?;
    for (i, t) in [&q, &k, &v].into_iter().enumerate() {
        if t.ndim >= 0 && t.ndim != 4 {
            return Err(err(
                call,
                format!(
                    "{} must be 4-D, got rank {}",
                    crate::op::common::arg_name(call, i),
                    t.ndim
                ),
            ));
        }
    }
    let dtype = common_dtype(call, q.dtype, k.dtype)?;
    Ok(match (&q.shape, &v.shape) {
        (Some(qs), Some(vs)) => q.with_shape(
            vec![qs[0].clone(), qs[1].clone(), qs[2].clone(), vs[3].clone()],
            dtype,
        ),
        _ => q.with_ndim(4, dtype),
    })
}

/// `R.nn.cross_entropy_with_logits`: a scalar.
pub(super) fn infer_cross_entropy(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let p = tensor_arg(call, args, 0)?;
    tensor_arg(call, args, 1)?;
    Ok(p.with_shape(Vec::new(), p.dtype))
}

/// `R.nn.nll_loss`: a scalar, or the targets' shape with `reduction="none"`.
pub(super) fn infer_nll_loss(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 3)?;
    let p = tensor_arg(call, args, 0)?;
    let t = tensor_arg(call, args, 1)?;
    if attr_str(call, "reduction")? == "none" {
        Ok(p.result(t.shape.clone(), t.ndim, p.dtype))
    } else {
        Ok(p.with_shape(Vec::new(), p.dtype))
    }
}

/// `R.nn.batch_flatten`: `(N, rest...)` → `(N, prod(rest))`.
pub(super) fn infer_batch_flatten(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    Ok(match &x.shape {
        Some(s) if !s.is_empty() => x.with_shape(vec![s[0].clone(), product(&s[1..])], x.dtype),
        _ => x.with_ndim(2, x.dtype),
    })
}

/// `R.nn.pixel_shuffle(x, r)`: `(N, C, H, W)` → `(N, C / r², H·r, W·r)`.
pub(super) fn infer_pixel_shuffle(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let x = tensor_arg(call, args, 0)?;
    let r = attr_int(call, "upscale_factor")?;
    if r <= 0 {
        return Err(err(
            call,
            format!("upscale_factor must be positive, got {r}"),
        ));
    }
    Ok(match &x.shape {
        Some(s) if s.len() == 4 => x.with_shape(
            vec![
                s[0].clone(),
                floordiv(&s[1], &dim(r * r)),
                mul(&s[2], &dim(r)),
                mul(&s[3], &dim(r)),
            ],
            x.dtype,
        ),
        _ => x.with_ndim(4, x.dtype),
    })
}
