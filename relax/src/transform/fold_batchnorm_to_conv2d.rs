//! FoldBatchnormToConv2D (TVM's `relax.transform.FoldBatchnormToConv2D`): an inference
//! `bn = R.nn.batch_norm(c, gamma, beta, mean, var)` read only as `bn[0]`, whose statistics are
//! constants, of `c = R.nn.conv2d(x, w)` (NCHW, OIHW) whose weights are a constant and whose
//! only reader is the batch norm, becomes `c = R.nn.conv2d(x, w · s)` and `bn[0] = c + b`, with
//! `s = gamma / sqrt(var + eps)` per output channel and `b = beta − mean · s` (a `[1, O, 1, 1]`
//! constant). The library conv2d then takes `b` as a per-channel bias in its epilogue (applied
//! in registers, beside a following ReLU) instead of normalizing every output element.
//!
//! The ONNX importer lowers BatchNormalization to `x · a + b` with constant `[1, O, 1, 1]`
//! factors (folded from the statistics); the pass takes that form too: `y = c · a` (either
//! operand order) of such a convolution becomes `y = R.nn.conv2d(x, w · a)`, and the `+ b`
//! that follows is the library conv2d's bias as above. A bias before the scale,
//! `(conv + c) · a`, becomes `R.nn.conv2d(x, w · a) + c · a`. The pass runs in rounds until
//! nothing folds, so that a batch norm followed by its own per-channel scale (Inception v2's
//! `BatchNormalization → Mul → Add`) folds whole.
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
        // A fold leaves `conv + b`, which the next fold may take as a bias before a scale
        // (Inception v2's BatchNormalization followed by its own `· s + t`): rounds until
        // nothing folds (each removes a binding), at most `MAX_ROUNDS`: a chain of scales
        // deeper than that is left partly folded, never looped over.
        let mut f = f.clone();
        for _ in 0..MAX_ROUNDS {
            let folds = find_folds(&f);
            if folds.is_empty() {
                break;
            }
            f = apply(name, &f, folds)?;
        }
        Ok(f)
    })
}

/// Rounds of folding per function (a batch norm and the scale after it take two).
const MAX_ROUNDS: usize = 8;

/// `f` with `folds` applied.
fn apply(name: &str, f: &Function, folds: Vec<Fold>) -> Result<Function> {
    // Bindings whose value is replaced, and bindings that go.
    let mut values: HashMap<VarId, Expr> = HashMap::new();
    let mut dropped: HashSet<VarId> = HashSet::new();
    for fold in folds {
        match fold {
            Fold::Biased {
                conv,
                conv_call,
                result,
                gone,
                bias,
            } => {
                let add = Expr::op("relax.add", vec![Expr::var(&conv), bias]);
                values.insert(conv.id(), conv_call);
                values.insert(result.id(), add);
                dropped.extend(gone);
            }
            Fold::Scale {
                conv,
                product,
                conv_call,
            } => {
                dropped.insert(conv.id());
                values.insert(product.id(), conv_call);
            }
        }
    }
    let body = rewrite_seq(&f.body, &Default::default(), name, &mut |b, em| {
        if let Binding::Var { var, .. } = &b {
            if dropped.contains(&var.id()) {
                return Ok(());
            }
            if let Some(value) = values.get(&var.id()) {
                em.push(Binding::Var {
                    var: var.clone(),
                    value: value.clone(),
                });
                return Ok(());
            }
        }
        em.push(b);
        Ok(())
    })?;
    Ok(Function { body, ..f.clone() })
}

/// One batch norm (or per-channel scale) to fold into its convolution.
enum Fold {
    /// `conv` is bound to `conv_call` (the scaled weights), `result` to `conv + bias`, and
    /// the bindings `gone` go: `result = bn[0]` of `bn = R.nn.batch_norm(conv, ...)` (`gone`:
    /// `bn` and its unused reads), or `result = sum · a` of `sum = conv + c` (a bias before
    /// the scale, as ShuffleNet's first convolution has; `bias = c · a`, `gone`: `sum`).
    Biased {
        conv: Var,
        conv_call: Expr,
        result: Var,
        gone: Vec<VarId>,
        bias: Expr,
    },
    /// `product = conv · a`: the binding of `conv` goes, `product` is bound to `conv_call`.
    Scale {
        conv: Var,
        product: Var,
        conv_call: Expr,
    },
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
    // The convolution bound to `e` with constant weights, read only once (by the candidate).
    let conv_of = |e: &Expr| -> Option<(Var, Call, Constant)> {
        let conv = e.as_var()?;
        let call = values
            .get(&conv.id())?
            .as_call()
            .filter(|c| c.op() == Some("relax.nn.conv2d"))?;
        let w = constant(call.args.get(1)?)?;
        (count(conv) == 1).then(|| (conv.clone(), call.clone(), w))
    };
    let mut folds = Vec::new();
    for_each_binding(&f.body, &mut |b| {
        let Binding::Var { var, value } = b else {
            return;
        };
        let Some(call) = value.as_call() else { return };
        match call.op() {
            Some("relax.multiply") => {
                for (mine, other) in [(0, 1), (1, 0)] {
                    let Some((conv, conv_call, w)) = call.args.get(mine).and_then(conv_of) else {
                        continue;
                    };
                    let Some(a) = call.args.get(other).and_then(constant) else {
                        continue;
                    };
                    if let Some(conv_call) = scaled(&conv_call, &conv, var, &w, &a) {
                        folds.push(Fold::Scale {
                            conv,
                            product: var.clone(),
                            conv_call,
                        });
                        return;
                    }
                }
                // `(conv + c) · a`: the sum read only here, `c` and `a` per output channel.
                for (mine, other) in [(0, 1), (1, 0)] {
                    let Some(sum) = call.args.get(mine).and_then(Expr::as_var) else {
                        continue;
                    };
                    let Some(sum_call) = values
                        .get(&sum.id())
                        .and_then(Expr::as_call)
                        .filter(|c| c.op() == Some("relax.add") && count(sum) == 1)
                    else {
                        continue;
                    };
                    let Some(a) = call.args.get(other).and_then(constant) else {
                        continue;
                    };
                    for (cm, co) in [(0, 1), (1, 0)] {
                        let Some((conv, conv_call, w)) = sum_call.args.get(cm).and_then(conv_of)
                        else {
                            continue;
                        };
                        let Some(c) = sum_call.args.get(co).and_then(constant) else {
                            continue;
                        };
                        let folded = scaled(&conv_call, &conv, var, &w, &a)
                            .zip(scaled_bias(&conv, sum, &w, &c, &a));
                        if let Some((conv_call, bias)) = folded {
                            folds.push(Fold::Biased {
                                conv,
                                conv_call,
                                result: var.clone(),
                                gone: vec![sum.id()],
                                bias,
                            });
                            return;
                        }
                    }
                }
            }
            Some("relax.nn.batch_norm") => {
                let Some((conv, conv_call, w)) = call.args.first().and_then(conv_of) else {
                    return;
                };
                // Every read of the tuple is a `bn[i]` binding; only `bn[0]`, once, is used.
                let Some(gets) = reads.get(&var.id()).filter(|g| g.len() == count(var)) else {
                    return;
                };
                let mut first = None;
                let mut gone = vec![var.id()];
                for (k, v) in gets {
                    match k {
                        0 if first.is_none() => first = Some(v.clone()),
                        1 | 2 if count(v) == 0 => gone.push(v.id()),
                        _ => return,
                    }
                }
                let Some(first) = first else { return };
                let Some(stats) = call
                    .args
                    .get(1..5)
                    .and_then(|a| a.iter().map(constant).collect::<Option<Vec<_>>>())
                else {
                    return;
                };
                let Some((s, bias)) = norm_factors(call, &conv, &w, &stats) else {
                    return;
                };
                let Some(conv_call) = with_weights(&conv_call, &conv, &w, &s) else {
                    return;
                };
                folds.push(Fold::Biased {
                    conv,
                    conv_call,
                    result: first,
                    gone,
                    bias,
                });
            }
            _ => {}
        }
    });
    folds
}

/// The per-channel scale `s` and the `[1, O, 1, 1]` bias constant of the inference batch norm
/// `bn` of `conv`, if it is of the form folded (see the module's documentation).
fn norm_factors(
    bn: &Call,
    conv: &Var,
    w: &Constant,
    stats: &[Constant],
) -> Option<(Vec<f64>, Expr)> {
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
    let (dt, vm_dt) = conv_dtypes(conv, w)?;
    let channels = *w.data.shape().first()?;
    let mut stat = Vec::with_capacity(4);
    for c in stats {
        let v = values_f64(c, vm_dt)?;
        if c.data.shape() != [channels] || v.iter().any(|x| !x.is_finite()) {
            return None;
        }
        stat.push(v);
    }
    let [gamma, beta, mean, var] = &stat[..] else {
        return None;
    };
    let (s, bias) = batch_norm_factors(
        scale.then_some(&gamma[..]),
        center.then_some(&beta[..]),
        mean,
        var,
        eps,
        FactorArithmetic::F64,
    );
    if s.iter()
        .zip(&bias)
        .any(|(&a, &b)| !a.is_finite() || !finite_in(b, vm_dt))
    {
        return None;
    }
    Some((s, constant_of(&bias, &[1, channels, 1, 1], vm_dt, dt)?))
}

/// The arithmetic [`batch_norm_factors`] computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactorArithmetic {
    /// Every operation rounded to f32, as a float32 model's own `x · a + b` arithmetic on the
    /// statistics would be (the ONNX importer's factors keep those bits).
    F32,
    /// f64 throughout (this pass's: rounded once, to the tensors' dtype, afterwards).
    F64,
}

/// The per-channel factors of an inference batch norm, `y = x · a + b`:
/// `a = gamma / sqrt(var + eps)` (`1 / sqrt(var + eps)` without `gamma`, TVM's `scale=False`)
/// and `b = beta − mean · a` (`0 − mean · a` without `beta`, `center=False`), in `arith`.
/// The one home of the formula: this pass and the ONNX importer's BatchNormalization. Values
/// may come out infinite or NaN (a zero or negative `var + eps`); the caller decides.
pub fn batch_norm_factors(
    gamma: Option<&[f64]>,
    beta: Option<&[f64]>,
    mean: &[f64],
    var: &[f64],
    eps: f64,
    arith: FactorArithmetic,
) -> (Vec<f64>, Vec<f64>) {
    (0..mean.len())
        .map(|c| {
            let (g, bt) = (gamma.map(|g| g[c]), beta.map_or(0.0, |b| b[c]));
            match arith {
                FactorArithmetic::F64 => {
                    let denom = (var[c] + eps).sqrt();
                    let a = g.map_or(1.0 / denom, |g| g / denom);
                    (a, bt - mean[c] * a)
                }
                FactorArithmetic::F32 => {
                    let denom = (var[c] as f32 + eps as f32).sqrt();
                    let a = g.map_or(1.0 / denom, |g| g as f32 / denom);
                    (a as f64, (bt as f32 - mean[c] as f32 * a) as f64)
                }
            }
        })
        .unzip()
}

/// The convolution of `product = conv · a`, its weights scaled by `a`, when `a` broadcasts
/// along the output channels only (`[1, O, 1, 1]`, `[O, 1, 1]`, one value) and the product
/// keeps the convolution's shape and dtype.
fn scaled(call: &Call, conv: &Var, product: &Var, w: &Constant, a: &Constant) -> Option<Expr> {
    if !same_static_tensor(conv, product) {
        return None;
    }
    let (_, vm_dt) = conv_dtypes(conv, w)?;
    let s = per_channel(a, *w.data.shape().first()?, vm_dt)?;
    if s.iter().any(|v| !v.is_finite()) {
        return None;
    }
    with_weights(call, conv, w, &s)
}

/// Whether `a` and `b` are tensors of the same dtype and the same static shape (a product or
/// sum of the convolution that keeps its shape, so that folding does not change it).
fn same_static_tensor(a: &Var, b: &Var) -> bool {
    let static_dims = |si: &StructInfo| -> Option<Vec<i64>> {
        si.tensor_shape()?.iter().map(PrimExpr::as_int).collect()
    };
    let (a, b) = (a.struct_info(), b.struct_info());
    a.tensor_dtype() == b.tensor_dtype()
        && static_dims(a).is_some_and(|d| Some(d) == static_dims(b))
}

/// The per-channel values of `a`, a constant that broadcasts along the output channels only
/// (`[1, O, 1, 1]`, `[O, 1, 1]`, one value) of a convolution with `o` of them, as f64.
fn per_channel(a: &Constant, o: i64, vm_dt: vm::DataType) -> Option<Vec<f64>> {
    let a_shape = a.data.shape();
    if a_shape.len() > 4 {
        return None;
    }
    let mut full = vec![1i64; 4 - a_shape.len()];
    full.extend_from_slice(a_shape);
    let av = values_f64(a, vm_dt)?;
    match full[..] {
        [1, k, 1, 1] if k == o => Some(av),
        [1, 1, 1, 1] => Some(vec![*av.first()?; usize::try_from(o).ok()?]),
        _ => None,
    }
}

/// The `[1, O, 1, 1]` constant `c · a` for `sum = conv + c`, when both broadcast along the
/// output channels only, the sum keeps the convolution's shape and dtype, and every product
/// is finite.
fn scaled_bias(conv: &Var, sum: &Var, w: &Constant, c: &Constant, a: &Constant) -> Option<Expr> {
    if !same_static_tensor(conv, sum) {
        return None;
    }
    let (dt, vm_dt) = conv_dtypes(conv, w)?;
    let o = *w.data.shape().first()?;
    let (cv, av) = (per_channel(c, o, vm_dt)?, per_channel(a, o, vm_dt)?);
    let bias: Vec<f64> = cv.iter().zip(&av).map(|(c, a)| c * a).collect();
    if !bias.iter().all(|&v| finite_in(v, vm_dt)) {
        return None;
    }
    constant_of(&bias, &[1, o, 1, 1], vm_dt, dt)
}

/// `call` (bound to `conv`) with its OIHW weights `w` times `s[o]` for output channel `o`,
/// rounded once to the dtype; `None` if the convolution is not of the form folded or a
/// product is not finite.
fn with_weights(call: &Call, conv: &Var, w: &Constant, s: &[f64]) -> Option<Expr> {
    let (dt, vm_dt) = conv_dtypes(conv, w)?;
    let layout_is = |name: &str, want: &str| match call.attrs.get(name).and_then(AttrValue::as_str)
    {
        None | Some("") => true,
        Some(l) => l == want,
    };
    if !layout_is("data_layout", "NCHW")
        || !layout_is("kernel_layout", "OIHW")
        || !layout_is("out_layout", "NCHW")
        || usize::try_from(*w.data.shape().first()?).ok()? != s.len()
    {
        return None;
    }
    // One pass over the weights, each product formed in f64 and rounded once, written straight
    // into the new tensor (a model's weights are hundreds of MB: no copies of them).
    let per_o = (w.data.numel() / s.len().max(1)).max(1);
    let mut data = vm::Tensor::zeros(w.data.shape(), vm_dt).ok()?;
    let dst = data.bytes_mut().ok()?;
    let finite = if vm_dt == vm::DataType::F32 {
        scale_rows(&w.data, dst, per_o, s, |x: [u8; 4], scale| {
            let v = (f64::from(f32::from_le_bytes(x)) * scale) as f32;
            (v.to_le_bytes(), v.is_finite())
        })
    } else {
        scale_rows(&w.data, dst, per_o, s, |x: [u8; 8], scale| {
            let v = f64::from_le_bytes(x) * scale;
            (v.to_le_bytes(), v.is_finite())
        })
    };
    if !finite {
        return None;
    }
    let mut call = call.clone();
    call.args[1] = constant_expr(data, dt);
    Some(Expr::new(ExprKind::Call(call)))
}

/// Writes into `dst` each element of `src` (of `N` bytes) scaled by `s[o]`, `o` the row of
/// `per_o` elements it is in, through `scale`, which returns the new element and whether it is
/// finite; whether every one was.
fn scale_rows<const N: usize>(
    src: &vm::Tensor,
    dst: &mut [u8],
    per_o: usize,
    s: &[f64],
    scale: impl Fn([u8; N], f64) -> ([u8; N], bool),
) -> bool {
    // Runs of one row within each chunk, so that the inner loop keeps its state in registers.
    let (mut at, mut finite) = (0usize, true);
    src.read_chunks(|mut chunk| {
        while chunk.len() >= N {
            let (o, into_row) = (at / per_o, at % per_o);
            let n = (chunk.len() / N).min(per_o - into_row);
            let (run, rest) = chunk.split_at(n * N);
            let (Some(&factor), Some(out)) = (s.get(o), dst.get_mut(at * N..(at + n) * N)) else {
                finite = false;
                return;
            };
            let mut ok = true;
            for (x, out) in run.chunks_exact(N).zip(out.chunks_exact_mut(N)) {
                let x = <[u8; N]>::try_from(x).unwrap_or([0; N]);
                let (v, fine) = scale(x, factor);
                ok &= fine;
                out.copy_from_slice(&v);
            }
            finite &= ok;
            (at, chunk) = (at + n, rest);
        }
    });
    finite
}

/// The dtype of a convolution whose output `conv` is float32 or float64, 4-D, with OIHW
/// weights `w` of its output channels, as Relax and as tensors name it.
fn conv_dtypes(conv: &Var, w: &Constant) -> Option<(DataType, vm::DataType)> {
    let si = conv.struct_info();
    let dt = si.tensor_dtype()?;
    let vm_dt = match dt {
        DataType::FLOAT32 => vm::DataType::F32,
        DataType::FLOAT64 => vm::DataType::F64,
        _ => return None,
    };
    let channels = si.tensor_shape()?.get(1)?.as_int()?;
    let shape = w.data.shape();
    let fits = si.ndim() == Some(4) && shape.len() == 4 && shape[0] == channels;
    (fits && w.data.dtype() == vm_dt).then_some((dt, vm_dt))
}

/// Whether `v` stays finite when stored as `vm_dt`.
fn finite_in(v: f64, vm_dt: vm::DataType) -> bool {
    if vm_dt == vm::DataType::F32 {
        (v as f32).is_finite()
    } else {
        v.is_finite()
    }
}

/// The values of a float constant of dtype `vm_dt`, as f64.
fn values_f64(c: &Constant, vm_dt: vm::DataType) -> Option<Vec<f64>> {
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
    } else {
        c.data.to_vec::<f64>().ok()
    }
}

/// A constant of `shape` holding `v` rounded to `vm_dt`.
fn constant_of(v: &[f64], shape: &[i64], vm_dt: vm::DataType, dt: DataType) -> Option<Expr> {
    let data = if vm_dt == vm::DataType::F32 {
        let v: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        vm::Tensor::from_slice(shape, &v).ok()?
    } else {
        vm::Tensor::from_slice(shape, v).ok()?
    };
    Some(constant_expr(data, dt))
}

/// The constant expression holding `data` (of dtype `dt`).
fn constant_expr(data: vm::Tensor, dt: DataType) -> Expr {
    let shape = data.shape().iter().map(|&d| PrimExpr::i64(d)).collect();
    Expr::new(ExprKind::Constant(Constant {
        data,
        struct_info: StructInfo::tensor(shape, dt),
        metadata_index: None,
    }))
}
