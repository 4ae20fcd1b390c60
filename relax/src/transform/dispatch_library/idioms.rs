//! The operator idioms DispatchLibrary rewrites before it looks for chains: forms that hide an
//! elementwise add (TVM's ONNX import), and convolutions the library has no kernel of its own
//! for, rewritten around an `R.nn.conv2d` that the conv2d anchor then hands to the library
//! kernel. The rewrites are Relax operators (reshapes, permutations, flips) and calls of the
//! library's layout kernels (`relaxjit.gather_planes`, `relaxjit.dilate`), which both exec
//! modes run; none happens without the library (`Config::library` off), so the TIR
//! legalization of the original operator stays the reference.

use std::collections::HashMap;

use tir::{DataType, PrimExpr};

use super::{
    LibraryKernel, LibraryOp, attr_ints, count_uses, float_dtype, layout_is, operand_si,
    out_dtype_ok, pair, static_shape,
};
use crate::ir::{
    AttrValue, Attrs, Binding, BindingBlock, Call, Callee, Constant, Expr, ExprKind, SeqExpr,
    StructInfo, Var, VarId,
};
use crate::struct_info_ops::shapes_equal;

/// Rewrites `R.nn.conv1d`, `R.nn.conv1d_transpose`, `R.nn.conv2d_transpose` and `R.nn.conv3d`
/// into an `R.nn.conv2d` between bindings that rearrange data and weights (see
/// [`conv1d_as_conv2d`], [`conv_transpose_as_conv2d`], [`conv3d_as_conv2d`]; the last binding keeps the
/// convolution's variable), and undoes two idioms of TVM's ONNX import that hide an elementwise
/// add from the chains: `R.broadcast_to(x, s)` to `x`'s own shape (the variable is replaced by
/// `x`), and ONNX `Sum` as `R.sum(R.stack((a, b), axis=k), axis=[k])` (becomes `R.add(a, b)`;
/// the sum's `0 + a + b` and `a + b` differ only in the sign of a zero sum of two negative
/// zeros). Only dataflow variables of top-level blocks are replaced, so a block's outputs keep
/// their bindings.
pub(super) fn simplify_idioms(seq: &SeqExpr) -> SeqExpr {
    let mut subst = crate::transform::Subst::new();
    let mut uses: HashMap<VarId, usize> = HashMap::new();
    count_uses(seq, &mut uses);
    let mut blocks = Vec::with_capacity(seq.blocks.len());
    for block in &seq.blocks {
        // Stack variables consumed by a sum over their stacked axis: (a, b).
        let mut stacks: HashMap<VarId, (Expr, Expr, i64)> = HashMap::new();
        let mut out = Vec::with_capacity(block.bindings.len());
        for b in &block.bindings {
            let Binding::Var { var, value } = b else {
                out.push(b.clone());
                continue;
            };
            let call = value.as_call();
            let op = call.and_then(Call::op);
            let as_conv2d = match (call, op) {
                (Some(call), Some("relax.nn.conv1d")) => {
                    conv1d_as_conv2d(call, var, block.dataflow, &subst)
                }
                (Some(call), Some("relax.nn.conv1d_transpose")) => {
                    conv_transpose_as_conv2d(call, var, 1, block.dataflow, &subst)
                }
                (Some(call), Some("relax.nn.conv2d_transpose")) => {
                    conv_transpose_as_conv2d(call, var, 2, block.dataflow, &subst)
                }
                (Some(call), Some("relax.nn.conv3d")) => {
                    conv3d_as_conv2d(call, var, block.dataflow, &subst)
                }
                _ => None,
            };
            if let Some(bindings) = as_conv2d {
                out.extend(bindings);
                continue;
            }
            if let (Some(call), Some("relax.broadcast_to")) = (call, op)
                && var.is_dataflow()
                && let Some(x) = call.args.first()
                && let Some(xv) = x.as_var()
                && let (Some(xs), Some(vs)) = (
                    xv.struct_info().tensor_shape(),
                    var.struct_info().tensor_shape(),
                )
                && shapes_equal(xs, vs)
                && xv.struct_info().tensor_dtype() == var.struct_info().tensor_dtype()
            {
                let to = crate::transform::substitute(x, &subst);
                subst.insert(var.id(), to);
                continue;
            }
            if let (Some(call), Some("relax.stack")) = (call, op)
                && var.is_dataflow()
                && uses.get(&var.id()).copied() == Some(1)
                && let Some(ExprKind::Tuple(fields)) = call.args.first().map(Expr::kind)
                && let [fa, fb] = &fields[..]
                && let Some(axis) = call.attrs.get("axis").and_then(AttrValue::as_int)
            {
                stacks.insert(var.id(), (fa.clone(), fb.clone(), axis));
                out.push(b.clone());
                continue;
            }
            if let (Some(call), Some("relax.sum")) = (call, op)
                && let Some(sv) = call.args.first().and_then(Expr::as_var)
                && let Some((a, b2, axis)) = stacks.get(&sv.id())
                && call.attrs.get("axis").and_then(AttrValue::as_int_list) == Some(vec![*axis])
                && call.attrs.get("keepdims").and_then(AttrValue::as_bool) != Some(true)
            {
                // The stack binding goes; the sum becomes the add.
                if let Some(pos) = out.iter().position(|ob: &Binding| ob.var().id() == sv.id()) {
                    out.remove(pos);
                }
                let add = Expr::op(
                    "relax.add",
                    vec![
                        crate::transform::substitute(a, &subst),
                        crate::transform::substitute(b2, &subst),
                    ],
                );
                out.push(Binding::Var {
                    var: var.clone(),
                    value: add,
                });
                continue;
            }
            out.push(b.clone());
        }
        blocks.push(BindingBlock {
            bindings: out,
            dataflow: block.dataflow,
        });
    }
    crate::transform::substitute_seq(
        &SeqExpr {
            blocks,
            body: seq.body.clone(),
        },
        &subst,
    )
}

/// An integer list attribute value.
fn int_list(v: &[i64]) -> AttrValue {
    AttrValue::List(v.iter().map(|&i| AttrValue::Int(i)).collect())
}

fn dims(d: &[i64]) -> Vec<PrimExpr> {
    d.iter().map(|&v| PrimExpr::i64(v)).collect()
}

/// The static struct info of a `dt` tensor of shape `d`.
fn static_tensor(d: &[i64], dt: DataType) -> StructInfo {
    StructInfo::tensor(dims(d), dt)
}

/// The `groups` attribute of a convolution (1 if unset), if it is a positive integer.
fn conv_groups(call: &Call) -> Option<i64> {
    let g = call
        .attrs
        .get("groups")
        .map_or(Some(1), AttrValue::as_int)?;
    (g >= 1).then_some(g)
}

/// The extent of a convolution's output along one axis, if the window fits at least once.
fn conv_extent(size: i64, [lo, hi]: [i64; 2], k: i64, stride: i64, dilation: i64) -> Option<i64> {
    let reach = size
        .checked_add(lo)?
        .checked_add(hi)?
        .checked_sub(dilation.checked_mul(k - 1)?)?
        - 1;
    (reach >= 0).then(|| reach / stride + 1)
}

/// The attributes of the `R.nn.conv2d` a rewrite ends in (NCHW/OIHW, the call's `out_dtype`).
fn conv2d_attrs(
    call: &Call,
    strides: [i64; 2],
    padding: [i64; 4],
    dilation: [i64; 2],
    groups: i64,
) -> Attrs {
    let mut attrs = Attrs::new()
        .with("strides", int_list(&strides))
        .with("padding", int_list(&padding))
        .with("dilation", int_list(&dilation))
        .with("groups", AttrValue::Int(groups))
        .with("data_layout", AttrValue::Str("NCHW".into()))
        .with("kernel_layout", AttrValue::Str("OIHW".into()))
        .with("out_layout", AttrValue::Str("NCHW".into()));
    if let Some(od) = call.attrs.get("out_dtype") {
        attrs = attrs.with("out_dtype", od.clone());
    }
    attrs
}

fn op_call(op: &str, args: Vec<Expr>, attrs: Attrs) -> Expr {
    Expr::call(Callee::Op(op.into()), args, attrs, Vec::new())
}

/// The bindings that take the place of `var = R.…(…)`: new variables beside `var` holding
/// static tensors of the call's float dtype, the last of them `var` itself. The new variables
/// are dataflow variables in a dataflow block (whatever `var` is), so that FuseOps fuses the
/// rearranging operators and reshapes become views.
struct Replacement<'v> {
    var: &'v Var,
    dt: DataType,
    dataflow: bool,
    bindings: Vec<Binding>,
}

impl<'v> Replacement<'v> {
    fn new(var: &'v Var, dt: DataType, dataflow: bool) -> Self {
        Replacement {
            var,
            dt,
            dataflow,
            bindings: Vec::new(),
        }
    }

    /// Binds `value`, a tensor of `shape`, to a new variable `<var>_<suffix>`.
    fn bind(&mut self, suffix: &str, shape: &[i64], value: Expr) -> Expr {
        let name = format!("{}_{suffix}", self.var.name());
        let si = static_tensor(shape, self.dt);
        let v = if self.dataflow {
            Var::dataflow(name, si)
        } else {
            Var::new(name, si)
        };
        self.bindings.push(Binding::Var {
            var: v.clone(),
            value,
        });
        Expr::var(&v)
    }

    /// `x` of shape `from` as shape `to` (a view at run time); `x` itself if they are equal.
    fn reshape(&mut self, suffix: &str, x: Expr, from: &[i64], to: &[i64]) -> Expr {
        if from == to {
            return x;
        }
        self.bind(
            suffix,
            to,
            Expr::op("relax.reshape", vec![x, Expr::shape(dims(to))]),
        )
    }

    /// `x` of shape `from` with its axes permuted, and the result's shape; a reshape when the
    /// axes that move all have extent 1 (the elements keep their order).
    fn permute(&mut self, suffix: &str, x: Expr, from: &[i64], axes: &[usize]) -> (Expr, Vec<i64>) {
        let to: Vec<i64> = axes.iter().map(|&a| from[a]).collect();
        let kept: Vec<usize> = axes.iter().copied().filter(|&a| from[a] != 1).collect();
        if kept.is_sorted() {
            return (self.reshape(suffix, x, from, &to), to);
        }
        let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
        let permuted = op_call(
            "relax.permute_dims",
            vec![x],
            Attrs::new().with("axes", int_list(&axes)),
        );
        (self.bind(suffix, &to, permuted), to)
    }

    /// `relaxjit.gather_planes(x, indices)` (see [`LibraryOp::GatherPlanes`]) of shape `to`,
    /// planes being the last two axes; a reshape of `x` (of shape `from`) when that takes
    /// every plane in order.
    fn gather_planes(
        &mut self,
        suffix: &str,
        x: Expr,
        from: &[i64],
        indices: Vec<i64>,
        to: &[i64],
    ) -> Option<Expr> {
        let in_order = indices.iter().enumerate().all(|(p, &i)| i == p as i64);
        if in_order && from.iter().product::<i64>() == to.iter().product::<i64>() {
            return Some(self.reshape(suffix, x, from, to));
        }
        let count = [i64::try_from(indices.len()).ok()?];
        let table = Constant {
            data: vm::Tensor::from_slice(&count, &indices).ok()?,
            struct_info: static_tensor(&count, DataType::INT64),
            metadata_index: None,
        };
        let table = Expr::new(ExprKind::Constant(table));
        Some(self.library(suffix, LibraryOp::GatherPlanes, vec![x, table], &[], to))
    }

    /// A call of the library kernel of `op` (no epilogue) on `inputs` and the integer `params`,
    /// of shape `shape`.
    fn library(
        &mut self,
        suffix: &str,
        op: LibraryOp,
        mut inputs: Vec<Expr>,
        params: &[i64],
        shape: &[i64],
    ) -> Expr {
        let kernel = LibraryKernel {
            op,
            norm: false,
            addends: 0,
            activation: None,
        };
        inputs.extend(params.iter().map(|&p| Expr::prim(PrimExpr::i64(p))));
        let call = Expr::call(
            Callee::Op("relax.call_dps_packed".into()),
            vec![Expr::extern_func(kernel.name()), Expr::tuple(inputs)],
            Attrs::new(),
            vec![static_tensor(shape, self.dt)],
        );
        self.bind(suffix, shape, call)
    }

    /// The bindings, the last of them `var = out`.
    fn finish(mut self, out: Expr) -> Vec<Binding> {
        match self.bindings.pop() {
            Some(Binding::Var { var, value })
                if out.as_var().is_some_and(|o| o.id() == var.id()) =>
            {
                self.bindings.push(Binding::Var {
                    var: self.var.clone(),
                    value,
                });
            }
            last => {
                self.bindings.extend(last);
                self.bindings.push(Binding::Var {
                    var: self.var.clone(),
                    value: out,
                });
            }
        }
        self.bindings
    }
}

/// Convolution weights `w` seen as `view` (a reshape of their own shape), with their axes
/// permuted by `axes`, reversed along the permuted axes in `flips`, and reshaped to `out`.
/// Constant weights are rearranged here, so that the conv2d dispatch packs them once at
/// compile time; others by `R.reshape`, `R.permute_dims` and `R.flip` bindings.
fn rearranged_weights(
    r: &mut Replacement,
    w: &Expr,
    [view, out]: [&[i64]; 2],
    axes: &[usize],
    flips: &[usize],
    subst: &crate::transform::Subst,
) -> Option<Expr> {
    if let ExprKind::Constant(cst) = w.kind()
        && !cst.is_placeholder()
    {
        let data = rearranged_tensor(&cst.data, view, axes, flips, out)?;
        return Some(Expr::new(ExprKind::Constant(Constant {
            data,
            struct_info: static_tensor(out, r.dt),
            metadata_index: None,
        })));
    }
    let from = static_shape(operand_si(w)?)?;
    let w = crate::transform::substitute(w, subst);
    let v = r.reshape("kernel_view", w, &from, view);
    let (mut t, shape) = r.permute("kernel_permuted", v, view, axes);
    for &axis in flips {
        let flipped = op_call(
            "relax.flip",
            vec![t],
            Attrs::new().with("axis", AttrValue::Int(axis as i64)),
        );
        t = r.bind(&format!("kernel_flipped{axis}"), &shape, flipped);
    }
    Some(r.reshape("kernel", t, &shape, out))
}

/// [`rearranged_weights`] of a tensor: `t` seen as `view`, permuted by `axes`, reversed along
/// `flips` (axes of the permuted tensor), as a new tensor of shape `out`. `None` if the sizes
/// disagree.
fn rearranged_tensor(
    t: &vm::Tensor,
    view: &[i64],
    axes: &[usize],
    flips: &[usize],
    out: &[i64],
) -> Option<vm::Tensor> {
    let view: Vec<usize> = view
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<_>>()?;
    let numel: usize = view.iter().product();
    let size = t.dtype().bytes();
    let bytes = t.to_bytes();
    let mut seen = vec![false; view.len()];
    if bytes.len() != numel * size
        || out.iter().product::<i64>() != i64::try_from(numel).ok()?
        || axes.len() != view.len()
        || axes
            .iter()
            .any(|&a| a >= view.len() || std::mem::replace(&mut seen[a], true))
    {
        return None;
    }
    let mut strides = vec![1usize; view.len()];
    for d in (0..view.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * view[d + 1];
    }
    let shape: Vec<usize> = axes.iter().map(|&a| view[a]).collect();
    let mut data = Vec::with_capacity(bytes.len());
    let mut index = vec![0usize; shape.len()];
    for _ in 0..numel {
        let from: usize = (0..shape.len())
            .map(|i| {
                let j = if flips.contains(&i) {
                    shape[i] - 1 - index[i]
                } else {
                    index[i]
                };
                j * strides[axes[i]]
            })
            .sum();
        data.extend_from_slice(&bytes[from * size..][..size]);
        for i in (0..shape.len()).rev() {
            index[i] += 1;
            if index[i] < shape[i] {
                break;
            }
            index[i] = 0;
        }
    }
    vm::Tensor::from_bytes(out, t.dtype(), &data).ok()
}

/// `y = R.nn.conv1d(x, w)` (NCW data, OIW weights, float, static shapes) as the 2-D
/// convolution it is on rows of height 1: `x` and `y` reshaped (views at run time) around an
/// `R.nn.conv2d` of `[N, C, 1, W]` data and `[O, C/g, 1, K]` weights (a constant reshaped
/// here, so that the conv2d dispatch packs it), which the conv2d anchor then hands to the
/// library kernel. The TIR path (`--no-library`) keeps the conv1d.
fn conv1d_as_conv2d(
    call: &Call,
    var: &Var,
    dataflow: bool,
    subst: &crate::transform::Subst,
) -> Option<Vec<Binding>> {
    let (x, w) = (call.args.first()?, call.args.get(1)?);
    let (x_si, w_si) = (operand_si(x)?, operand_si(w)?);
    let dt = float_dtype(&[x_si, w_si], var.struct_info())?;
    let (xs, ws, ys) = (
        static_shape(x_si)?,
        static_shape(w_si)?,
        static_shape(var.struct_info())?,
    );
    let (&[n, c, wd], &[o, cg, k], &[yn, yo, yw]) = (&xs[..], &ws[..], &ys[..]) else {
        return None;
    };
    if !out_dtype_ok(call, dt)
        || !layout_is(call, "data_layout", "NCW")
        || !layout_is(call, "kernel_layout", "OIW")
        || !layout_is(call, "out_layout", "NCW")
    {
        return None;
    }
    let [stride] = attr_ints(call, "strides", &[1])?[..] else {
        return None;
    };
    let [dilation] = attr_ints(call, "dilation", &[1])?[..] else {
        return None;
    };
    let (left, right) = match attr_ints(call, "padding", &[0])?[..] {
        [p] => (p, p),
        [l, r] => (l, r),
        _ => return None,
    };
    let groups = conv_groups(call)?;
    let mut r = Replacement::new(var, dt, dataflow);
    let x = crate::transform::substitute(x, subst);
    let rows = r.reshape("rows", x, &xs, &[n, c, 1, wd]);
    let w4 = [o, cg, 1, k];
    let w4 = rearranged_weights(&mut r, w, [&w4, &w4], &[0, 1, 2, 3], &[], subst)?;
    let attrs = conv2d_attrs(
        call,
        [1, stride],
        [0, left, 0, right],
        [1, dilation],
        groups,
    );
    let conv = op_call("relax.nn.conv2d", vec![rows, w4], attrs);
    let rows_out = [yn, yo, 1, yw];
    let y4 = r.bind("rows_out", &rows_out, conv);
    let y = r.reshape("out", y4, &rows_out, &ys);
    Some(r.finish(y))
}

/// `y = R.nn.conv2d_transpose(x, w)` (NCHW data, IOHW weights, float, static shapes; with
/// `rank` 1, `R.nn.conv1d_transpose` of NCW data and IOW weights, as the 2-D one of height 1
/// between reshapes) as the stride-1 convolution it equals: `x` dilated by the strides
/// (`stride − 1` zeros between neighbours, one `relaxjit.dilate`), convolved with the weights
/// of each group transposed to OIHW and flipped in both spatial axes, dilated as the transposed
/// convolution's, padded by `dilation·(k − 1) − padding` (plus the output padding after). The
/// inserted zeros cost `stride²` times the transposed convolution's multiply-adds, on the
/// library kernel that is a hundred times faster than the TIR loop nest. Padding larger than
/// the dilated kernel and other layouts stay on the TIR path.
fn conv_transpose_as_conv2d(
    call: &Call,
    var: &Var,
    rank: usize,
    dataflow: bool,
    subst: &crate::transform::Subst,
) -> Option<Vec<Binding>> {
    let (x, w) = (call.args.first()?, call.args.get(1)?);
    let (x_si, w_si) = (operand_si(x)?, operand_si(w)?);
    let dt = float_dtype(&[x_si, w_si], var.struct_info())?;
    let (xs, ws, ys) = (
        static_shape(x_si)?,
        static_shape(w_si)?,
        static_shape(var.struct_info())?,
    );
    // A 1-D convolution is the 2-D one of height 1: shapes, then per-axis attributes, lifted.
    let lift = |s: &[i64]| match (rank, s) {
        (1, &[a, b, w]) => Some([a, b, 1, w]),
        (2, &[a, b, h, w]) => Some([a, b, h, w]),
        _ => None,
    };
    let [n, c, h, wd] = lift(&xs)?;
    let [wc, og, kh, kw] = lift(&ws)?;
    let [yn, yo, yh, yw] = lift(&ys)?;
    let per_axis = |name: &str, unit: i64| match (rank, &attr_ints(call, name, &[unit])?[..]) {
        (1, &[v]) => Some([unit, v]),
        (2, v) => pair(v.to_vec()),
        _ => None,
    };
    let stride = per_axis("strides", 1)?;
    let dilation = per_axis("dilation", 1)?;
    let out_pad = per_axis("output_padding", 0)?;
    let pad: [i64; 4] = match (rank, &attr_ints(call, "padding", &[0])?[..]) {
        (1, &[p]) => [0, p, 0, p],
        (1, &[left, right]) => [0, left, 0, right],
        (2, &[p]) => [p; 4],
        (2, &[ph, pw]) => [ph, pw, ph, pw],
        (2, &[t, l, b, r]) => [t, l, b, r],
        _ => return None,
    };
    let (data, kernel) = if rank == 1 {
        ("NCW", "IOW")
    } else {
        ("NCHW", "IOHW")
    };
    let groups = conv_groups(call)?;
    if !out_dtype_ok(call, dt)
        || !layout_is(call, "data_layout", data)
        || !layout_is(call, "kernel_layout", kernel)
        || !layout_is(call, "out_layout", data)
        || wc != c
        || c % groups != 0
        || yo != og * groups
        || yn != n
    {
        return None;
    }
    if stride.iter().chain(&dilation).any(|&v| v < 1) {
        return None;
    }
    // The stride-1 convolution's padding on each side of the dilated image of
    // `(in − 1)·stride + 1` rows.
    let reach = [dilation[0] * (kh - 1), dilation[1] * (kw - 1)];
    let conv_pad = [
        reach[0] - pad[0],
        reach[1] - pad[1],
        reach[0] - pad[2] + out_pad[0],
        reach[1] - pad[3] + out_pad[1],
    ];
    let (uh, uw) = ((h - 1) * stride[0] + 1, (wd - 1) * stride[1] + 1);
    if conv_pad.iter().any(|&p| p < 0)
        || uh + conv_pad[0] + conv_pad[2] - reach[0] != yh
        || uw + conv_pad[1] + conv_pad[3] - reach[1] != yw
    {
        return None;
    }
    let mut r = Replacement::new(var, dt, dataflow);
    let x = crate::transform::substitute(x, subst);
    let x = r.reshape("rows", x, &xs, &[n, c, h, wd]);
    let up = if stride == [1, 1] {
        x
    } else {
        r.library(
            "dilated",
            LibraryOp::Dilate,
            vec![x],
            &stride,
            &[n, c, uh, uw],
        )
    };
    // IOHW weights of each group, `[C/g, O/g]` input and output channels, to the OIHW weights
    // `[g·O/g, C/g]` of the direct convolution.
    let cg = c / groups;
    let view = [groups, cg, og, kh, kw];
    let oihw = [groups * og, cg, kh, kw];
    let w_oihw = rearranged_weights(&mut r, w, [&view, &oihw], &[0, 2, 1, 3, 4], &[3, 4], subst)?;
    let attrs = conv2d_attrs(call, [1, 1], conv_pad, dilation, groups);
    let conv = op_call("relax.nn.conv2d", vec![up, w_oihw], attrs);
    let y4 = [yn, yo, yh, yw];
    let y = r.bind("conv", &y4, conv);
    let y = r.reshape("out", y, &y4, &ys);
    Some(r.finish(y))
}

/// The most planes [`conv3d_as_conv2d`] gathers (into the convolution and out of it): their
/// tables of plane indices (8 bytes a plane) are constants of the executable, here at most 32
/// MiB; a larger convolution stays on the TIR path.
const MAX_GATHERED_PLANES: i64 = 1 << 22;

/// `y = R.nn.conv3d(x, w)` (NCDHW data, OIDHW weights, float, static shapes) as one 2-D
/// convolution of depth slices ("depth im2col"): for every output depth `od`, the `kd` input
/// slices its window reads (`d = od·sd + z·dd − pad_front`, zeros outside the image) laid out
/// by one `relaxjit.gather_planes` as one image of `kd·C` channels (in `(group, z, channel)`
/// order, so that groups stay whole); those `N·OD` images convolved as a batch with the
/// weights rearranged to `[O, kd·C/g, kh, kw]` (`(z, channel)` order) and the height and width
/// strides, padding and dilation; the `[N·OD, O, OH, OW]` result put back in `[N, O, OD, OH,
/// OW]` order by another gather (a reshape when `OD = 1`). A kernel of one tap in depth and
/// height at stride 1 and no padding there (a pointwise convolution) needs no gather: depth
/// and height merge into the rows of a 2-D convolution. The gathered image holds each input
/// slice up to `kd / sd` times, a copy small beside the convolution, which then runs as one
/// large library conv2d (with its packed weights and Winograd tiles). A pad, a take and a
/// permutation would do the same copy as Relax operators, but FuseOps fuses them into one
/// kernel that materializes each step. Other layouts stay on the TIR path.
fn conv3d_as_conv2d(
    call: &Call,
    var: &Var,
    dataflow: bool,
    subst: &crate::transform::Subst,
) -> Option<Vec<Binding>> {
    let (x, w) = (call.args.first()?, call.args.get(1)?);
    let (x_si, w_si) = (operand_si(x)?, operand_si(w)?);
    let dt = float_dtype(&[x_si, w_si], var.struct_info())?;
    let (xs, ws, ys) = (
        static_shape(x_si)?,
        static_shape(w_si)?,
        static_shape(var.struct_info())?,
    );
    let (&[n, c, d, h, wd], &[o, cg, kd, kh, kw], &[yn, yo, yd, yh, yw]) =
        (&xs[..], &ws[..], &ys[..])
    else {
        return None;
    };
    let groups = conv_groups(call)?;
    if !out_dtype_ok(call, dt)
        || !layout_is(call, "data_layout", "NCDHW")
        || !layout_is(call, "kernel_layout", "OIDHW")
        || !layout_is(call, "out_layout", "NCDHW")
        || cg.checked_mul(groups) != Some(c)
        || o % groups != 0
        || yn != n
        || yo != o
    {
        return None;
    }
    let triple = |v: Vec<i64>| match v[..] {
        [a] => Some([a; 3]),
        [a, b, c] => Some([a, b, c]),
        _ => None,
    };
    let stride = triple(attr_ints(call, "strides", &[1])?)?;
    let dilation = triple(attr_ints(call, "dilation", &[1])?)?;
    // front, top, left, back, bottom, right
    let pad: [i64; 6] = match attr_ints(call, "padding", &[0])?[..] {
        [p] => [p; 6],
        [f, t, l] => [f, t, l, f, t, l],
        [f, t, l, b, bo, r] => [f, t, l, b, bo, r],
        _ => return None,
    };
    if stride.iter().chain(&dilation).any(|&v| v < 1) || pad.iter().any(|&p| p < 0) {
        return None;
    }
    let od = yd;
    if conv_extent(d, [pad[0], pad[3]], kd, stride[0], dilation[0]) != Some(od)
        || conv_extent(h, [pad[1], pad[4]], kh, stride[1], dilation[1]) != Some(yh)
        || conv_extent(wd, [pad[2], pad[5]], kw, stride[2], dilation[2]) != Some(yw)
    {
        return None;
    }
    let mut r = Replacement::new(var, dt, dataflow);
    let x = crate::transform::substitute(x, subst);
    if kd == 1 && kh == 1 && stride[..2] == [1, 1] && [pad[0], pad[1], pad[3], pad[4]] == [0; 4] {
        // Each output (depth, row) reads that input (depth, row) alone, as the pointwise
        // convolutions of 3-D networks do: depth and height merge into one axis of a 2-D
        // convolution, with views and no copy.
        let rows = r.reshape("rows", x, &xs, &[n, c, d * h, wd]);
        let view = [o, cg, 1, 1, kw];
        let oihw = [o, cg, 1, kw];
        let w2 = rearranged_weights(&mut r, w, [&view, &oihw], &[0, 1, 2, 3, 4], &[], subst)?;
        let attrs = conv2d_attrs(
            call,
            [1, stride[2]],
            [0, pad[2], 0, pad[5]],
            [1, dilation[2]],
            groups,
        );
        let rows_out = [n, o, yd * yh, yw];
        let conv = op_call("relax.nn.conv2d", vec![rows, w2], attrs);
        let y = r.bind("rows_out", &rows_out, conv);
        let y = r.reshape("out", y, &rows_out, &ys);
        return Some(r.finish(y));
    }
    if n * od * (kd * c + o) > MAX_GATHERED_PLANES {
        return None;
    }
    // Image `n·OD + od` of the 2-D convolution has channel `(gi·kd + z)·C/g + ci` from depth
    // `od·sd + z·dd − pad_front` of channel `gi·C/g + ci` of image `n`.
    let mut slices = Vec::new();
    for (ni, odi) in grid(n, od) {
        for (gz, ci) in grid(groups * kd, cg) {
            let (gi, z) = (gz / kd, gz % kd);
            let depth = odi * stride[0] + z * dilation[0] - pad[0];
            let channel = gi * cg + ci;
            slices.push(if (0..d).contains(&depth) {
                (ni * c + channel) * d + depth
            } else {
                -1
            });
        }
    }
    let planes_shape = [n * od, kd * c, h, wd];
    let planes = r.gather_planes("planes", x, &xs, slices, &planes_shape)?;
    let view = [o, cg, kd, kh, kw];
    let oihw = [o, kd * cg, kh, kw];
    let w2 = rearranged_weights(&mut r, w, [&view, &oihw], &[0, 2, 1, 3, 4], &[], subst)?;
    let attrs = conv2d_attrs(
        call,
        [stride[1], stride[2]],
        [pad[1], pad[2], pad[4], pad[5]],
        [dilation[1], dilation[2]],
        groups,
    );
    let planes_out = [n * od, o, yh, yw];
    let conv = op_call("relax.nn.conv2d", vec![planes, w2], attrs);
    let y = r.bind("planes_out", &planes_out, conv);
    // Plane `(n, o, od)` of the output is plane `(n·OD + od, o)` of the convolution's.
    let back = grid(n, o)
        .flat_map(|(ni, oi)| (0..od).map(move |odi| (ni * od + odi) * o + oi))
        .collect();
    let y = r.gather_planes("out", y, &planes_out, back, &ys)?;
    Some(r.finish(y))
}

/// The pairs `(i, j)` for `i` in `0..a` and `j` in `0..b`, in row-major order.
fn grid(a: i64, b: i64) -> impl Iterator<Item = (i64, i64)> {
    (0..a).flat_map(move |i| (0..b).map(move |j| (i, j)))
}
