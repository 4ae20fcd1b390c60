//! ConvertLayout: a convolution or pooling whose layouts are permutations of the canonical ones
//! (NHWC data and OHWI or HWIO kernels, as models imported from TensorFlow and TFLite have
//! them) becomes the same operator in the canonical layouts between `R.permute_dims` of its
//! operands and of its result, so that DispatchLibrary and LegalizeOps, which implement only
//! the canonical layouts, take it:
//!
//! ```text
//! y = R.nn.conv2d(x, w, data_layout="NHWC", kernel_layout="OHWI", out_layout="NHWC")
//! ```
//! becomes
//! ```text
//! x_nchw = R.permute_dims(x, axes=[0, 3, 1, 2])
//! w_oihw = R.permute_dims(w, axes=[0, 3, 1, 2])
//! y_nchw = R.nn.conv2d(x_nchw, w_oihw, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW")
//! y = R.permute_dims(y_nchw, axes=[0, 2, 3, 1])
//! ```
//!
//! The canonical layouts are those of the operators' defaults: NCW/NCHW/NCDHW data, OIW/OIHW/
//! OIDHW kernels, IOW/IOHW/IODHW kernels for the transposed convolutions. A permutation that is the
//! identity is not emitted, so an operator already in the canonical layouts is left as it is.
//! Strides, padding, dilation and output sizes are given per spatial dimension in D, H, W
//! order whatever the layout, so the other attributes carry over unchanged.
//!
//! This is TVM's `relax.transform.ConvertLayout` with the desired layouts fixed to the
//! canonical ones and without propagating layouts through the operators in between (two
//! NHWC convolutions in a row transpose back and forth).
//!
//! Layouts with split axes (`NCHW16c`, `OIHW16i16o`, as TVM's AlterOpLayout writes them for
//! x86) take a reshape too: an operand is permuted so that each sub-axis follows its primal
//! axis, then reshaped to merge them (`[N, C, H, W, 16]` → `[N, C, 16, H, W]` →
//! `[N, C·16, H, W]`); the canonical result is reshaped to split its axes and permuted into
//! `out_layout`. The operand's shape must be known for that (a tensor of unknown shape in a
//! split layout is left alone, and LegalizeOps rejects its layout by name).
//!
//! Invariants: every new binding is a variable of its block's kind (a dataflow variable in a
//! dataflow block) whose struct info is the one the normalizer infers for its value; the
//! rewritten operator's own variable keeps its struct info (the final permutation puts the
//! result back in `out_layout`, so the shape is the same; a contradiction is an internal
//! error rather than a wrong annotation).

use tir::PrimExpr;

use crate::ir::{AttrValue, Attrs, Binding, Call, Callee, Expr, ExprKind, IRModule, Var};
use crate::normalize::infer_struct_info;
use crate::op::common::{dim, floordiv};
use crate::op::layout::{Axis, Layout};
use crate::struct_info_ops::{Compatibility, compatibility, describe};
use crate::transform::{Emitter, rewrite_module};
use crate::{Error, Result};

/// Where an operator keeps its layouts, and the layouts LegalizeOps implements.
struct Canonical {
    /// The attribute naming the data layout (`data_layout` for convolutions, `layout` for
    /// pools); `out_layout` names the result's layout and defaults to it.
    data_attr: &'static str,
    data: &'static str,
    /// `kernel_layout` and its canonical value, for convolutions.
    kernel: Option<&'static str>,
}

/// The canonical layouts of `op`, if it has layouts.
fn canonical(op: &str) -> Option<Canonical> {
    let conv = |data, kernel| Canonical {
        data_attr: "data_layout",
        data,
        kernel: Some(kernel),
    };
    let pool = |data| Canonical {
        data_attr: "layout",
        data,
        kernel: None,
    };
    Some(match op {
        "relax.nn.conv1d" => conv("NCW", "OIW"),
        "relax.nn.conv2d" => conv("NCHW", "OIHW"),
        "relax.nn.conv3d" => conv("NCDHW", "OIDHW"),
        "relax.nn.conv1d_transpose" => conv("NCW", "IOW"),
        "relax.nn.conv2d_transpose" => conv("NCHW", "IOHW"),
        "relax.nn.conv3d_transpose" => conv("NCDHW", "IODHW"),
        "relax.nn.max_pool1d" | "relax.nn.avg_pool1d" | "relax.nn.adaptive_avg_pool1d" => {
            pool("NCW")
        }
        "relax.nn.max_pool2d" | "relax.nn.avg_pool2d" | "relax.nn.adaptive_avg_pool2d" => {
            pool("NCHW")
        }
        "relax.nn.max_pool3d" | "relax.nn.avg_pool3d" | "relax.nn.adaptive_avg_pool3d" => {
            pool("NCDHW")
        }
        _ => return None,
    })
}

fn is_identity(axes: &[usize]) -> bool {
    axes.iter().enumerate().all(|(i, &a)| i == a)
}

/// How one operand or the result moves between its layout and the canonical one.
struct Conversion {
    layout: Layout,
    /// The canonical layout's letters.
    order: Vec<char>,
    /// To the canonical layout: the permutation before the merge of split axes; from it: the
    /// permutation after their split.
    axes: Vec<usize>,
}

impl Conversion {
    /// `None` if `layout` does not parse or its primal letters are not `canonical`'s.
    fn new(layout: &str, canonical: &str, to_canonical: bool) -> Option<Conversion> {
        let layout = Layout::parse(layout)?;
        let order: Vec<char> = canonical.chars().collect();
        let axes = if to_canonical {
            layout.permutation_to_primal(&order)?
        } else {
            layout.permutation_from_primal(&order)?
        };
        Some(Conversion {
            layout,
            order,
            axes,
        })
    }

    fn is_identity(&self) -> bool {
        is_identity(&self.axes) && !self.layout.is_split()
    }
}

/// The conversions of one operator call: data into the canonical layout, kernel into the
/// canonical layout, canonical result into `out_layout`.
struct Plan {
    data: Conversion,
    kernel: Option<Conversion>,
    out: Conversion,
}

impl Plan {
    fn is_identity(&self) -> bool {
        self.data.is_identity()
            && self.kernel.as_ref().is_none_or(Conversion::is_identity)
            && self.out.is_identity()
    }
}

/// The plan for `call`, or `None` to leave it alone: its layouts are canonical already, are
/// not strings (the operator's inference rejects those), or do not hold the canonical
/// letters (LegalizeOps rejects those, naming them).
fn plan(call: &Call, canon: &Canonical) -> Option<Plan> {
    let layout = |name: &str, default: &'static str| -> Option<String> {
        match call.attrs.get(name) {
            None | Some(AttrValue::None) => Some(default.to_string()),
            Some(AttrValue::Str(s)) => Some(s.clone()),
            Some(_) => None,
        }
    };
    let data = layout(canon.data_attr, canon.data)?;
    let out = match call.attrs.get("out_layout") {
        None | Some(AttrValue::None) => data.clone(),
        Some(AttrValue::Str(s)) => s.clone(),
        Some(_) => return None,
    };
    let kernel = match canon.kernel {
        Some(k) => Some(Conversion::new(&layout("kernel_layout", k)?, k, true)?),
        None => None,
    };
    let plan = Plan {
        data: Conversion::new(&data, canon.data, true)?,
        kernel,
        out: Conversion::new(&out, canon.data, false)?,
    };
    (!plan.is_identity()).then_some(plan)
}

pub fn convert_layout(module: &IRModule) -> Result<IRModule> {
    rewrite_module(module, |b, em| {
        if let Binding::Var { var, value } = &b
            && let Some(call) = value.as_call()
            && let Some(canon) = call.op().and_then(canonical)
            && let Some(plan) = plan(call, &canon)
        {
            return rewrite(module, var, call, &canon, &plan, em);
        }
        em.push(b);
        Ok(())
    })
}

/// Emits the permutations and the canonical call of `var = call`, the last binding defining
/// `var` itself.
fn rewrite(
    module: &IRModule,
    var: &Var,
    call: &Call,
    canon: &Canonical,
    plan: &Plan,
    em: &mut Emitter,
) -> Result<()> {
    let func = em.func.clone();
    let want = if canon.kernel.is_some() { 2 } else { 1 };
    if call.args.len() != want {
        return Err(Error::TypeInference(format!(
            "in function `{func}`, `{}`: {} takes {want} tensor arguments, got {}",
            var.name(),
            call.op().unwrap_or_default(),
            call.args.len()
        )));
    }
    // The struct info of a value this pass builds for `var`'s operator.
    let infer = |value: &Expr| {
        infer_struct_info(value, module).map_err(|e| {
            Error::TypeInference(format!(
                "in function `{func}`, converting the layout of `{}`: {e}",
                var.name()
            ))
        })
    };
    let mut args = call.args.clone();
    let mut attrs = call.attrs.clone();
    let operands = [
        (0, "data", Some(&plan.data), canon.data_attr, canon.data),
        (
            1,
            "weight",
            plan.kernel.as_ref(),
            "kernel_layout",
            canon.kernel.unwrap_or_default(),
        ),
    ];
    // The merged shapes of split operands, from their struct info: without one (or without
    // the result's shape, when `out_layout` is split), the call is left as it is.
    let leave = |em: &mut Emitter| {
        em.push(Binding::Var {
            var: var.clone(),
            value: Expr::new(ExprKind::Call(call.clone())),
        });
        Ok(())
    };
    if plan.out.layout.is_split() && var.struct_info().tensor_shape().is_none() {
        return leave(em);
    }
    let mut merged = [None, None];
    for (i, _, conv, _, _) in &operands {
        if let Some(conv) = conv
            && conv.layout.is_split()
        {
            let si = infer(&args[*i])?;
            let Some(p) = si
                .tensor_shape()
                .and_then(|s| conv.layout.primal(&conv.order, s))
            else {
                return leave(em);
            };
            merged[*i] = Some(p);
        }
    }
    let mut emit = |name: String, value: Expr| -> Result<Var> {
        let si = infer(&value)?;
        Ok(em.emit_local(&name, value, si))
    };
    for (i, what, conv, attr, layout) in operands {
        let Some(conv) = conv else { continue };
        attrs.set(attr, AttrValue::Str(layout.to_string()));
        if conv.is_identity() {
            continue;
        }
        let base = match args[i].kind() {
            ExprKind::Var(v) => v.name().to_string(),
            _ => what.to_string(),
        };
        let name = format!("{base}_{}", layout.to_ascii_lowercase());
        if !is_identity(&conv.axes) {
            let permuted = permute_dims(&args[i], &conv.axes);
            let name = if merged[i].is_some() {
                format!("{base}_permuted")
            } else {
                name.clone()
            };
            args[i] = Expr::var(&emit(name, permuted)?);
        }
        if let Some(shape) = merged[i].take() {
            args[i] = Expr::var(&emit(name, reshape(&args[i], shape))?);
        }
    }
    attrs.set("out_layout", AttrValue::Str(canon.data.to_string()));
    let converted = Expr::call(call.callee.clone(), args, attrs, call.ty_args.clone());
    let value = if plan.out.is_identity() {
        converted
    } else {
        let name = format!("{}_{}", var.name(), canon.data.to_ascii_lowercase());
        let split = plan.out.layout.is_split();
        let mut value = converted;
        if split {
            let result = emit(name.clone(), value)?;
            let Some(shape) = result.struct_info().tensor_shape().map(<[_]>::to_vec) else {
                return Err(Error::Internal(format!(
                    "in function `{func}`, `{}` in the canonical layout has no shape to split into its `out_layout`",
                    var.name()
                )));
            };
            value = reshape(&Expr::var(&result), split_shape(&plan.out, &shape));
        }
        if !is_identity(&plan.out.axes) {
            let name = if split {
                format!("{}_split", var.name())
            } else {
                name
            };
            value = permute_dims(&Expr::var(&emit(name, value)?), &plan.out.axes);
        }
        value
    };
    let si = infer(&value)?;
    if compatibility(var.struct_info(), &si) == Compatibility::No {
        return Err(Error::Internal(format!(
            "in function `{func}`, `{}` was {} and became {}",
            var.name(),
            describe(var.struct_info()),
            describe(&si)
        )));
    }
    em.push(Binding::Var {
        var: var.clone(),
        value,
    });
    Ok(())
}

/// The canonical result's shape `primal` with each axis that `out` splits cut into (outer,
/// sub-axis), in the canonical order: the shape before `out.axes` permutes it.
fn split_shape(out: &Conversion, primal: &[PrimExpr]) -> Vec<PrimExpr> {
    let mut shape = Vec::with_capacity(out.layout.rank());
    for (c, extent) in out.order.iter().zip(primal) {
        let sub = out.layout.axes.iter().find_map(|a| match *a {
            Axis::Sub(p, f) if p == *c => Some(f),
            _ => None,
        });
        match sub {
            Some(f) => shape.extend([floordiv(extent, &dim(f)), dim(f)]),
            None => shape.push(extent.clone()),
        }
    }
    shape
}

/// `R.reshape(x, R.shape(shape))`.
fn reshape(x: &Expr, shape: Vec<PrimExpr>) -> Expr {
    Expr::call(
        Callee::Op("relax.reshape".to_string()),
        vec![x.clone(), Expr::shape(shape)],
        Attrs::new(),
        Vec::new(),
    )
}

/// `R.permute_dims(x, axes=axes)`.
fn permute_dims(x: &Expr, axes: &[usize]) -> Expr {
    let axes = axes.iter().map(|&a| AttrValue::Int(a as i64)).collect();
    Expr::call(
        Callee::Op("relax.permute_dims".to_string()),
        vec![x.clone()],
        Attrs::new().with("axes", AttrValue::List(axes)),
        Vec::new(),
    )
}
