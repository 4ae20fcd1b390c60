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
//! OIDHW kernels, IOW/IOHW kernels for the transposed convolutions. A permutation that is the
//! identity is not emitted, so an operator already in the canonical layouts is left as it is.
//! Strides, padding, dilation and output sizes are given per spatial dimension in D, H, W
//! order whatever the layout, so the other attributes carry over unchanged.
//!
//! This is TVM's `relax.transform.ConvertLayout` with the desired layouts fixed to the
//! canonical ones and without propagating layouts through the operators in between (two
//! NHWC convolutions in a row transpose back and forth). Layouts that are not a permutation of
//! the canonical letters (split axes such as `NCHW16c` or `OIHW16o16i`) are left alone for
//! LegalizeOps to reject by name.
//!
//! Invariants: every new binding is a variable of its block's kind (a dataflow variable in a
//! dataflow block) whose struct info is the one the normalizer infers for its value; the
//! rewritten operator's own variable keeps its struct info (the final permutation puts the
//! result back in `out_layout`, so the shape is the same; a contradiction is an internal
//! error rather than a wrong annotation).

use crate::ir::{AttrValue, Attrs, Binding, Call, Callee, Expr, ExprKind, IRModule, Var};
use crate::normalize::infer_struct_info;
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

/// The axes of `R.permute_dims` taking a tensor laid out in `from` to `to`: `Some(axes)` with
/// `axes[i]` the position of `to[i]` in `from`, if `from` holds each letter of `to` once and
/// nothing else.
fn permutation(from: &str, to: &str) -> Option<Vec<usize>> {
    if from.len() != to.len() {
        return None;
    }
    let axes: Vec<usize> = to
        .chars()
        .map(|c| {
            let mut at = from.char_indices().filter(|&(_, f)| f == c).map(|(i, _)| i);
            match (at.next(), at.next()) {
                (Some(i), None) => Some(i),
                _ => None,
            }
        })
        .collect::<Option<_>>()?;
    Some(axes)
}

fn is_identity(axes: &[usize]) -> bool {
    axes.iter().enumerate().all(|(i, &a)| i == a)
}

/// The permutations of one operator call: data into the canonical layout, kernel into the
/// canonical layout, canonical result into `out_layout`.
struct Plan {
    data: Vec<usize>,
    kernel: Option<Vec<usize>>,
    out: Vec<usize>,
}

impl Plan {
    fn is_identity(&self) -> bool {
        is_identity(&self.data)
            && self.kernel.as_deref().is_none_or(is_identity)
            && is_identity(&self.out)
    }
}

/// The plan for `call`, or `None` to leave it alone: its layouts are canonical already, are
/// not strings (the operator's inference rejects those), or are not permutations of the
/// canonical letters (LegalizeOps rejects those, naming them).
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
        Some(k) => Some(permutation(&layout("kernel_layout", k)?, k)?),
        None => None,
    };
    let plan = Plan {
        data: permutation(&data, canon.data)?,
        kernel,
        out: permutation(canon.data, &out)?,
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
    let mut emit = |name: String, value: Expr| -> Result<Var> {
        let si = infer(&value)?;
        Ok(em.emit_local(&name, value, si))
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
    for (i, what, axes, attr, layout) in operands {
        let Some(axes) = axes else { continue };
        attrs.set(attr, AttrValue::Str(layout.to_string()));
        if is_identity(axes) {
            continue;
        }
        let base = match args[i].kind() {
            ExprKind::Var(v) => v.name().to_string(),
            _ => what.to_string(),
        };
        let name = format!("{base}_{}", layout.to_ascii_lowercase());
        args[i] = Expr::var(&emit(name, permute_dims(&args[i], axes))?);
    }
    attrs.set("out_layout", AttrValue::Str(canon.data.to_string()));
    let converted = Expr::call(call.callee.clone(), args, attrs, call.ty_args.clone());
    let value = if is_identity(&plan.out) {
        converted
    } else {
        let name = format!("{}_{}", var.name(), canon.data.to_ascii_lowercase());
        permute_dims(&Expr::var(&emit(name, converted)?), &plan.out)
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
