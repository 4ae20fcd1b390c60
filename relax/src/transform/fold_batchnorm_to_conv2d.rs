//! FoldBatchnormToConv2D (TVM's `relax.transform.FoldBatchnormToConv2D`): an inference
//! `bn = R.nn.batch_norm(c, gamma, beta, mean, var)` read only as `bn[0]`, whose statistics are
//! constants, of `c = R.nn.conv2d(x, w)` (NCHW, OIHW) whose weights are a constant and whose
//! only reader is the batch norm, becomes `c = R.nn.conv2d(x, w · s)` and `bn[0] = c + b`, with
//! `s = gamma / sqrt(var + eps)` per output channel and `b = beta − mean · s` (a `[1, O, 1, 1]`
//! constant). The library conv2d then takes `b` as a per-channel bias in its epilogue (applied
//! in registers, beside a following ReLU) instead of normalizing every output element.
//!
//! The new constants are computed in f64 and rounded once to the tensors' dtype (float32 or
//! float64). Numerics: the folded convolution differs from the unfolded one by the rounding of
//! `w · s` (half an ulp per weight) and of the reassociation, as onnxruntime's own Conv+BN
//! fusion does. A batch norm whose statistics or folded values are not finite (a zero or
//! negative `var + eps` among them) is left alone, so that its NaN and infinity semantics stay
//! those of the batch norm itself.

use std::collections::{HashMap, HashSet};

use tir::{DataType, PrimExpr};

use crate::Result;
use crate::ir::{
    AttrValue, Binding, Call, Constant, Expr, ExprKind, Function, IRModule, StructInfo, Var, VarId,
};
use crate::transform::{count_uses, for_each_binding, map_functions, rewrite_seq};

pub fn fold_batchnorm_to_conv2d(module: &IRModule) -> Result<IRModule> {
    map_functions(module, |name, f| {
        let folds = find_folds(f);
        if folds.is_empty() {
            return Ok(f.clone());
        }
        // The binding of each conv2d to rewrite, of each batch norm and of its reads.
        let mut by_conv: HashMap<VarId, &Fold> = HashMap::new();
        let mut by_first: HashMap<VarId, &Fold> = HashMap::new();
        let mut dropped: HashSet<VarId> = HashSet::new();
        for fold in &folds {
            by_conv.insert(fold.conv.id(), fold);
            by_first.insert(fold.first.id(), fold);
            dropped.insert(fold.bn.id());
            dropped.extend(fold.stats_reads.iter().copied());
        }
        let body = rewrite_seq(&f.body, &Default::default(), name, &mut |b, em| {
            let Binding::Var { var, value } = &b else {
                em.push(b);
                return Ok(());
            };
            if dropped.contains(&var.id()) {
                return Ok(());
            }
            if let (Some(fold), Some(call)) = (by_conv.get(&var.id()), value.as_call()) {
                let mut call = call.clone();
                call.args[1] = fold.weights.clone();
                em.push(Binding::Var {
                    var: var.clone(),
                    value: Expr::new(ExprKind::Call(call)),
                });
                return Ok(());
            }
            if let Some(fold) = by_first.get(&var.id()) {
                em.push(Binding::Var {
                    var: var.clone(),
                    value: Expr::op("relax.add", vec![Expr::var(&fold.conv), fold.bias.clone()]),
                });
                return Ok(());
            }
            em.push(b);
            Ok(())
        })?;
        Ok(Function { body, ..f.clone() })
    })
}

/// One batch norm to fold into its convolution.
struct Fold {
    /// The convolution's variable (rebound to the convolution with `weights`).
    conv: Var,
    /// The batch norm's tuple variable (its binding goes).
    bn: Var,
    /// `bn[0]` (rebound to `conv + bias`).
    first: Var,
    /// The unused `bn[1]`, `bn[2]` reads (their bindings go).
    stats_reads: Vec<VarId>,
    weights: Expr,
    bias: Expr,
}

fn find_folds(f: &Function) -> Vec<Fold> {
    let uses = count_uses(f);
    let count = |v: &Var| uses.get(&v.id()).copied().unwrap_or(0);
    // Every binding's value by variable, and the `t[i]` reads of each tuple variable.
    let mut values: HashMap<VarId, Expr> = HashMap::new();
    let mut reads: HashMap<VarId, Vec<(usize, Var)>> = HashMap::new();
    for_each_binding(&f.body, &mut |b| {
        if let Binding::Var { var, value } = b {
            values.insert(var.id(), value.clone());
            if let ExprKind::TupleGetItem(t, k) = value.kind()
                && let Some(tv) = t.as_var()
            {
                reads.entry(tv.id()).or_default().push((*k, var.clone()));
            }
        }
    });
    // A constant operand, given in place or through a variable bound to it.
    let constant = |e: &Expr| -> Option<Constant> {
        let e = match e.kind() {
            ExprKind::Var(v) => values.get(&v.id())?,
            _ => e,
        };
        match e.kind() {
            ExprKind::Constant(c) if !c.is_placeholder() => Some(c.clone()),
            _ => None,
        }
    };
    let mut folds = Vec::new();
    let mut convs_taken: HashSet<VarId> = HashSet::new();
    for_each_binding(&f.body, &mut |b| {
        let Binding::Var { var: bn, value } = b else {
            return;
        };
        let Some(call) = value
            .as_call()
            .filter(|c| c.op() == Some("relax.nn.batch_norm"))
        else {
            return;
        };
        let Some(conv) = call.args.first().and_then(Expr::as_var) else {
            return;
        };
        let Some(conv_call) = values
            .get(&conv.id())
            .and_then(Expr::as_call)
            .filter(|c| c.op() == Some("relax.nn.conv2d"))
        else {
            return;
        };
        if count(conv) != 1 || convs_taken.contains(&conv.id()) {
            return;
        }
        // Every read of the tuple is a `bn[i]` binding; only `bn[0]`, once, is used.
        let Some(gets) = reads.get(&bn.id()).filter(|g| g.len() == count(bn)) else {
            return;
        };
        let mut first = None;
        let mut stats_reads = Vec::new();
        for (k, v) in gets {
            match k {
                0 if first.is_none() => first = Some(v.clone()),
                1 | 2 if count(v) == 0 => stats_reads.push(v.id()),
                _ => return,
            }
        }
        let Some(first) = first else { return };
        let stats: Option<Vec<Constant>> = call
            .args
            .get(1..5)
            .map(|a| a.iter().map(constant).collect())
            .flatten();
        let Some(stats) = stats else { return };
        let Some(w) = conv_call.args.get(1).and_then(constant) else {
            return;
        };
        let Some((weights, bias)) = folded(conv_call, call, conv, &w, &stats) else {
            return;
        };
        convs_taken.insert(conv.id());
        folds.push(Fold {
            conv: conv.clone(),
            bn: bn.clone(),
            first,
            stats_reads,
            weights,
            bias,
        });
    });
    folds
}

/// The folded weights and the `[1, O, 1, 1]` bias, if the convolution and the batch norm are
/// of the forms folded (see the module's documentation).
fn folded(
    conv: &Call,
    bn: &Call,
    conv_var: &Var,
    w: &Constant,
    stats: &[Constant],
) -> Option<(Expr, Expr)> {
    let layout_is = |name: &str, want: &str| match conv.attrs.get(name).and_then(AttrValue::as_str)
    {
        None | Some("") => true,
        Some(l) => l == want,
    };
    if !layout_is("data_layout", "NCHW")
        || !layout_is("kernel_layout", "OIHW")
        || !layout_is("out_layout", "NCHW")
    {
        return None;
    }
    let flag = |n: &str, default: bool| match bn.attrs.get(n) {
        None | Some(AttrValue::None) => Some(default),
        Some(v) => v.as_bool(),
    };
    let axis = match bn.attrs.get("axis") {
        None | Some(AttrValue::None) => 1,
        Some(v) => v.as_int()?,
    };
    if flag("training", false)? || (axis != 1 && axis != -3) {
        return None;
    }
    let (center, scale) = (flag("center", true)?, flag("scale", true)?);
    let eps = match bn.attrs.get("epsilon") {
        None | Some(AttrValue::None) => 1e-5,
        Some(v) => v.as_float()?,
    };
    let out_si = conv_var.struct_info();
    let dt = out_si.tensor_dtype()?;
    if (dt != DataType::FLOAT32 && dt != DataType::FLOAT64) || out_si.ndim() != Some(4) {
        return None;
    }
    let vm_dt = w.data.dtype();
    let dims: Vec<usize> = w
        .data
        .shape()
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<_>>()?;
    let &[o, ..] = &dims[..] else { return None };
    let channels = out_si.tensor_shape()?.get(1)?.as_int()?;
    if dims.len() != 4 || i64::try_from(o).ok()? != channels {
        return None;
    }
    let values = |c: &Constant| -> Option<Vec<f64>> {
        if c.data.dtype() != vm_dt {
            return None;
        }
        if vm_dt == vm::DataType::F32 {
            Some(
                c.data
                    .to_vec::<f32>()
                    .ok()?
                    .into_iter()
                    .map(f64::from)
                    .collect(),
            )
        } else if vm_dt == vm::DataType::F64 {
            c.data.to_vec::<f64>().ok()
        } else {
            None
        }
    };
    let mut stat = Vec::with_capacity(4);
    for c in stats {
        let v = values(c)?;
        if c.data.shape() != [channels] || v.iter().any(|x| !x.is_finite()) {
            return None;
        }
        stat.push(v);
    }
    let [gamma, beta, mean, var] = &stat[..] else {
        return None;
    };
    let wv = values(w)?;
    let per_o = wv.len() / o.max(1);
    // Rounded to the dtype, as stored.
    let round = |v: f64| {
        if vm_dt == vm::DataType::F32 {
            f64::from(v as f32)
        } else {
            v
        }
    };
    let mut s = Vec::with_capacity(o);
    let mut bias = Vec::with_capacity(o);
    for c in 0..o {
        let denom = (var[c] + eps).sqrt();
        if !(denom > 0.0 && denom.is_finite()) {
            return None;
        }
        let sc = if scale { gamma[c] / denom } else { 1.0 / denom };
        let b = if center { beta[c] } else { 0.0 } - mean[c] * sc;
        if !sc.is_finite() || !round(b).is_finite() {
            return None;
        }
        s.push(sc);
        bias.push(b);
    }
    let wf: Vec<f64> = wv
        .iter()
        .enumerate()
        .map(|(i, &x)| x * s[i / per_o.max(1)])
        .collect();
    if wf.iter().any(|&x| !round(x).is_finite()) {
        return None;
    }
    let weights = constant_of(&wf, w.data.shape(), vm_dt, dt)?;
    let bias = constant_of(&bias, &[1, channels, 1, 1], vm_dt, dt)?;
    Some((weights, bias))
}

/// A constant of `shape` holding `v` rounded to `dt`.
fn constant_of(v: &[f64], shape: &[i64], vm_dt: vm::DataType, dt: DataType) -> Option<Expr> {
    let data = if vm_dt == vm::DataType::F32 {
        let v: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        vm::Tensor::from_slice(shape, &v).ok()?
    } else {
        vm::Tensor::from_slice(shape, v).ok()?
    };
    Some(Expr::new(ExprKind::Constant(Constant {
        data,
        struct_info: StructInfo::tensor(shape.iter().map(|&d| PrimExpr::i64(d)).collect(), dt),
        metadata_index: None,
    })))
}
