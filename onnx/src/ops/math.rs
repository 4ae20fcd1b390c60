//! Elementwise operators (with ONNX's multidirectional broadcasting, which is Relax's),
//! activations written as small compositions, reductions, matrix products, scans and TopK.

use relax::ir::{AttrValue, Attrs, Expr, ExprKind};

use super::{attrs, dtype_of, ints, norm_axis, rank};
use crate::error::Result;
use crate::importer::{Importer, Val, scalar};
use crate::node::{Node, or_str};
use crate::tensor::{tir_dtype, vm_dtype};

/// `x op c` for a scalar `c` of `x`'s dtype.
fn with_scalar(imp: &mut Importer, node: &Node, op: &str, x: &Val, c: f64) -> Result<Val> {
    let s = scalar(c, dtype_of(node, x)?)?;
    imp.op0(op, &[x, &s])
}

fn scalar_with(imp: &mut Importer, node: &Node, op: &str, c: f64, x: &Val) -> Result<Val> {
    let s = scalar(c, dtype_of(node, x)?)?;
    imp.op0(op, &[&s, x])
}

pub(crate) fn unary(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let op = match node.op {
        "Relu" => "relax.nn.relu",
        "Sigmoid" => "relax.sigmoid",
        "Tanh" => "relax.tanh",
        "Exp" => "relax.exp",
        "Log" => "relax.log",
        "Sqrt" => "relax.sqrt",
        "Neg" => "relax.negative",
        "Abs" => "relax.abs",
        "Floor" => "relax.floor",
        "Ceil" => "relax.ceil",
        "Round" => "relax.round",
        "Erf" => "relax.erf",
        "Sign" => "relax.sign",
        "Sin" => "relax.sin",
        "Cos" => "relax.cos",
        "Tan" => "relax.tan",
        "Asin" => "relax.asin",
        "Acos" => "relax.acos",
        "Atan" => "relax.atan",
        "Sinh" => "relax.sinh",
        "Cosh" => "relax.cosh",
        "Asinh" => "relax.asinh",
        "Acosh" => "relax.acosh",
        "Atanh" => "relax.atanh",
        "Not" => "relax.logical_not",
        "IsNaN" => "relax.isnan",
        "BitwiseNot" => {
            integer_only(node, x)?;
            "relax.bitwise_not"
        }
        _ => return Err(node.unsupported("operator is not supported")),
    };
    // Opset 1–5 attribute with no effect on the result.
    node.ignore(&["consumed_inputs"]);
    imp.op0(op, &[x])
}

/// `where(x > 0, x, alpha * (exp(x) - 1))`.
fn elu_of(imp: &mut Importer, node: &Node, x: &Val, alpha: f64) -> Result<Val> {
    let e = imp.op0("relax.exp", &[x])?;
    let em1 = with_scalar(imp, node, "relax.subtract", &e, 1.0)?;
    let neg = with_scalar(imp, node, "relax.multiply", &em1, alpha)?;
    let pos = with_scalar(imp, node, "relax.greater", x, 0.0)?;
    imp.op0("relax.where", &[&pos, x, &neg])
}

/// `max(alpha * x + beta, 0)` clipped at 1.
fn hard_sigmoid_of(imp: &mut Importer, node: &Node, x: &Val, alpha: f64, beta: f64) -> Result<Val> {
    let ax = with_scalar(imp, node, "relax.multiply", x, alpha)?;
    let axb = with_scalar(imp, node, "relax.add", &ax, beta)?;
    let lo = with_scalar(imp, node, "relax.maximum", &axb, 0.0)?;
    with_scalar(imp, node, "relax.minimum", &lo, 1.0)
}

pub(crate) fn activation(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    node.ignore(&["consumed_inputs"]);
    match node.op {
        "Reciprocal" => scalar_with(imp, node, "relax.divide", 1.0, x),
        "Softsign" => {
            let a = imp.op0("relax.abs", &[x])?;
            let d = with_scalar(imp, node, "relax.add", &a, 1.0)?;
            imp.op0("relax.divide", &[x, &d])
        }
        "Softplus" => {
            // log(exp(x) + 1), computed as max(x, 0) + log(1 + exp(-|x|)) so that large
            // inputs do not overflow.
            let a = imp.op0("relax.abs", &[x])?;
            let na = imp.op0("relax.negative", &[&a])?;
            let e = imp.op0("relax.exp", &[&na])?;
            let e1 = with_scalar(imp, node, "relax.add", &e, 1.0)?;
            let l = imp.op0("relax.log", &[&e1])?;
            let r = imp.op0("relax.nn.relu", &[x])?;
            imp.op0("relax.add", &[&r, &l])
        }
        "Elu" => {
            let alpha = node.attr_f("alpha", 1.0)? as f64;
            elu_of(imp, node, x, alpha)
        }
        "Selu" => {
            let alpha = node.attr_f("alpha", 1.673_263_2)? as f64;
            let gamma = node.attr_f("gamma", 1.050_701)? as f64;
            let e = elu_of(imp, node, x, alpha)?;
            with_scalar(imp, node, "relax.multiply", &e, gamma)
        }
        "Celu" => {
            let alpha = node.attr_f("alpha", 1.0)? as f64;
            let xa = with_scalar(imp, node, "relax.divide", x, alpha)?;
            let e = elu_of(imp, node, &xa, 1.0)?;
            let neg = with_scalar(imp, node, "relax.multiply", &e, alpha)?;
            let n = with_scalar(imp, node, "relax.minimum", &neg, 0.0)?;
            let p = imp.op0("relax.nn.relu", &[x])?;
            imp.op0("relax.add", &[&p, &n])
        }
        "LeakyRelu" => {
            let alpha = node.attr_f("alpha", 0.01)? as f64;
            imp.op(
                "relax.nn.leakyrelu",
                vec![x.expr.clone()],
                attrs(&[("alpha", AttrValue::Float(alpha))]),
            )
        }
        "HardSigmoid" => {
            let alpha = node.attr_f("alpha", 0.2)? as f64;
            let beta = node.attr_f("beta", 0.5)? as f64;
            hard_sigmoid_of(imp, node, x, alpha, beta)
        }
        "HardSwish" => {
            let h = hard_sigmoid_of(imp, node, x, 1.0 / 6.0, 0.5)?;
            imp.op0("relax.multiply", &[x, &h])
        }
        "ThresholdedRelu" => {
            let alpha = node.attr_f("alpha", 1.0)? as f64;
            let c = with_scalar(imp, node, "relax.greater", x, alpha)?;
            let z = scalar(0.0, dtype_of(node, x)?)?;
            imp.op0("relax.where", &[&c, x, &z])
        }
        "Gelu" => {
            let op = match or_str(node.attr_s("approximate")?, "none").as_str() {
                "none" => "relax.nn.gelu",
                "tanh" => "relax.nn.gelu_tanh",
                other => {
                    return Err(node.unsupported(format!("approximate = \"{other}\"")));
                }
            };
            imp.op0(op, &[x])
        }
        "Mish" => {
            let a = imp.op0("relax.abs", &[x])?;
            let na = imp.op0("relax.negative", &[&a])?;
            let e = imp.op0("relax.exp", &[&na])?;
            let e1 = with_scalar(imp, node, "relax.add", &e, 1.0)?;
            let l = imp.op0("relax.log", &[&e1])?;
            let r = imp.op0("relax.nn.relu", &[x])?;
            let sp = imp.op0("relax.add", &[&r, &l])?;
            let t = imp.op0("relax.tanh", &[&sp])?;
            imp.op0("relax.multiply", &[x, &t])
        }
        "Shrink" => {
            let bias = node.attr_f("bias", 0.0)? as f64;
            let lambd = node.attr_f("lambd", 0.5)? as f64;
            let lo = with_scalar(imp, node, "relax.less", x, -lambd)?;
            let hi = with_scalar(imp, node, "relax.greater", x, lambd)?;
            let xp = with_scalar(imp, node, "relax.add", x, bias)?;
            let xm = with_scalar(imp, node, "relax.subtract", x, bias)?;
            let z = scalar(0.0, dtype_of(node, x)?)?;
            let inner = imp.op0("relax.where", &[&hi, &xm, &z])?;
            imp.op0("relax.where", &[&lo, &xp, &inner])
        }
        "IsInf" => {
            let neg = node.attr_i("detect_negative", 1)? != 0;
            let pos = node.attr_i("detect_positive", 1)? != 0;
            let inf = imp.op0("relax.isinf", &[x])?;
            match (neg, pos) {
                (true, true) => Ok(inf),
                (false, false) => {
                    let f = scalar(0.0, tir::DataType::BOOL)?;
                    imp.op0("relax.logical_and", &[&inf, &f])
                }
                (neg, _) => {
                    let side = if neg { "relax.less" } else { "relax.greater" };
                    let s = with_scalar(imp, node, side, x, 0.0)?;
                    imp.op0("relax.logical_and", &[&inf, &s])
                }
            }
        }
        _ => Err(node.unsupported("operator is not supported")),
    }
}

/// Opset 1–6 binary operators broadcast only with `broadcast = 1`, aligning `B` at `axis`
/// of `A`; returns `B` reshaped so that Relax's (numpy) broadcasting does the same.
fn legacy_broadcast(imp: &mut Importer, node: &Node, a: &Val, b: &Val) -> Result<Val> {
    if node.opset >= 7 {
        return Ok(b.clone());
    }
    let bcast = node.attr_i("broadcast", 0)?;
    let axis = node.opt_i("axis")?;
    node.ignore(&["consumed_inputs"]);
    if bcast == 0 {
        return Ok(b.clone());
    }
    let Some(axis) = axis else {
        return Ok(b.clone());
    };
    let (ra, rb) = (rank(node, a)?, rank(node, b)?);
    let axis = norm_axis(node, axis, ra)?;
    if axis + rb == ra {
        return Ok(b.clone());
    }
    if axis + rb > ra {
        return Err(node.invalid(format!(
            "B of rank {rb} does not fit A of rank {ra} at axis {axis}"
        )));
    }
    let mut dims = vec![tir::PrimExpr::i64(1); axis];
    dims.extend(super::shape_of(node, b)?);
    dims.extend(vec![tir::PrimExpr::i64(1); ra - axis - rb]);
    imp.op(
        "relax.reshape",
        vec![b.expr.clone(), super::shape_expr(dims)],
        Attrs::new(),
    )
}

pub(crate) fn binary(imp: &mut Importer, node: &Node) -> Result<Val> {
    let a = node.input(0)?;
    let b = legacy_broadcast(imp, node, a, node.input(1)?)?;
    let op = match node.op {
        "Add" => "relax.add",
        "Sub" => "relax.subtract",
        "Mul" => "relax.multiply",
        "Div" => "relax.divide",
        "Pow" => {
            // The exponent may have another type than the base.
            let (da, db) = (dtype_of(node, a)?, dtype_of(node, &b)?);
            let b = if da != db {
                imp.op(
                    "relax.astype",
                    vec![b.expr.clone()],
                    attrs(&[("dtype", AttrValue::DType(da))]),
                )?
            } else {
                b
            };
            return imp.op0("relax.power", &[a, &b]);
        }
        "Equal" => "relax.equal",
        "Less" => "relax.less",
        "Greater" => "relax.greater",
        "LessOrEqual" => "relax.less_equal",
        "GreaterOrEqual" => "relax.greater_equal",
        "And" => "relax.logical_and",
        "Or" => "relax.logical_or",
        "Xor" => "relax.logical_xor",
        "BitwiseAnd" | "BitwiseOr" | "BitwiseXor" | "BitShift" => {
            integer_only(node, a)?;
            integer_only(node, &b)?;
            match node.op {
                "BitwiseAnd" => "relax.bitwise_and",
                "BitwiseOr" => "relax.bitwise_or",
                "BitwiseXor" => "relax.bitwise_xor",
                _ => match or_str(node.attr_s("direction")?, "").as_str() {
                    "LEFT" => "relax.left_shift",
                    "RIGHT" => "relax.right_shift",
                    d => {
                        return Err(
                            node.invalid(format!("direction `{d}` (LEFT or RIGHT is required)"))
                        );
                    }
                },
            }
        }
        "Mod" => {
            if node.attr_i("fmod", 0)? != 0 {
                "relax.mod"
            } else {
                "relax.floor_mod"
            }
        }
        _ => return Err(node.unsupported("operator is not supported")),
    };
    imp.op0(op, &[a, &b])
}

/// The bitwise operators take integer tensors only.
fn integer_only(node: &Node, v: &Val) -> Result<()> {
    let dt = dtype_of(node, v)?;
    if dt.is_int() || dt.is_uint() {
        Ok(())
    } else {
        Err(node.invalid(format!("an input of type {dt} (integer types only)")))
    }
}

pub(crate) fn variadic(imp: &mut Importer, node: &Node) -> Result<Val> {
    node.ignore(&["consumed_inputs"]);
    let op = match node.op {
        "Sum" | "Mean" => "relax.add",
        "Max" => "relax.maximum",
        "Min" => "relax.minimum",
        _ => return Err(node.unsupported("operator is not supported")),
    };
    let mut acc = node.input(0)?.clone();
    for i in 1..node.num_inputs() {
        acc = imp.op0(op, &[&acc, node.input(i)?])?;
    }
    if node.op == "Mean" && node.num_inputs() > 1 {
        acc = with_scalar(imp, node, "relax.divide", &acc, node.num_inputs() as f64)?;
    }
    Ok(acc)
}

pub(crate) fn prelu(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let mut slope = node.input(1)?.clone();
    node.ignore(&["consumed_inputs"]);
    // Before opset 7 the slope is per channel: shape (C,) for an (N, C, ...) input.
    if node.opset < 7
        && let (Some(rx), Some(s)) = (x.ndim(), slope.static_shape())
        && rx > 2
        && s.len() == 1
        && s[0] != 1
    {
        let mut dims = vec![tir::PrimExpr::i64(s[0])];
        dims.extend(vec![tir::PrimExpr::i64(1); rx - 2]);
        slope = imp.op(
            "relax.reshape",
            vec![slope.expr.clone(), super::shape_expr(dims)],
            Attrs::new(),
        )?;
    }
    let neg = with_scalar(imp, node, "relax.less", x, 0.0)?;
    let m = imp.op0("relax.multiply", &[x, &slope])?;
    imp.op0("relax.where", &[&neg, &m, x])
}

pub(crate) fn clip(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let dt = dtype_of(node, x)?;
    let (lo, hi) = if node.opset < 11 {
        node.ignore(&["consumed_inputs"]);
        let lo = node
            .opt_f("min")?
            .map(|v| scalar(v as f64, dt))
            .transpose()?;
        let hi = node
            .opt_f("max")?
            .map(|v| scalar(v as f64, dt))
            .transpose()?;
        (lo, hi)
    } else {
        (node.opt_input(1).cloned(), node.opt_input(2).cloned())
    };
    let mut y = x.clone();
    if let Some(lo) = lo {
        y = imp.op0("relax.maximum", &[&y, &lo])?;
    }
    if let Some(hi) = hi {
        y = imp.op0("relax.minimum", &[&y, &hi])?;
    }
    Ok(y)
}

pub(crate) fn where_(imp: &mut Importer, node: &Node) -> Result<Val> {
    imp.op0(
        "relax.where",
        &[node.input(0)?, node.input(1)?, node.input(2)?],
    )
}

pub(crate) fn cast(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let to = if node.op == "CastLike" {
        dtype_of(node, node.input(1)?)?
    } else {
        let code = node
            .opt_i("to")?
            .ok_or_else(|| node.invalid("attribute `to` is missing"))?;
        tir_dtype(vm_dtype(code as i32).map_err(|e| node.unsupported(e))?)?
    };
    // `saturate` only concerns float8 targets, which are rejected above.
    node.ignore(&["saturate"]);
    if x.dtype() == Some(to) {
        return Ok(x.clone());
    }
    imp.op(
        "relax.astype",
        vec![x.expr.clone()],
        attrs(&[("dtype", AttrValue::DType(to))]),
    )
}

pub(crate) fn matmul(imp: &mut Importer, node: &Node) -> Result<Val> {
    imp.op(
        "relax.matmul",
        vec![node.input(0)?.expr.clone(), node.input(1)?.expr.clone()],
        Attrs::new(),
    )
}

fn transpose2d(imp: &mut Importer, node: &Node, x: &Val) -> Result<Val> {
    if rank(node, x)? != 2 {
        return Err(node.invalid("Gemm inputs must be matrices"));
    }
    imp.op(
        "relax.permute_dims",
        vec![x.expr.clone()],
        attrs(&[("axes", ints(&[1, 0]))]),
    )
}

pub(crate) fn gemm(imp: &mut Importer, node: &Node) -> Result<Val> {
    let alpha = node.attr_f("alpha", 1.0)? as f64;
    let beta = node.attr_f("beta", 1.0)? as f64;
    let ta = node.attr_i("transA", 0)? != 0;
    let tb = node.attr_i("transB", 0)? != 0;
    node.ignore(&["broadcast"]);
    let mut a = node.input(0)?.clone();
    let mut b = node.input(1)?.clone();
    if ta {
        a = transpose2d(imp, node, &a)?;
    }
    if tb {
        b = transpose2d(imp, node, &b)?;
    }
    let mut y = imp.op("relax.matmul", vec![a.expr, b.expr], Attrs::new())?;
    if alpha != 1.0 {
        y = with_scalar(imp, node, "relax.multiply", &y, alpha)?;
    }
    if let Some(c) = node.opt_input(2) {
        let c = if beta != 1.0 {
            with_scalar(imp, node, "relax.multiply", c, beta)?
        } else {
            c.clone()
        };
        y = imp.op0("relax.add", &[&y, &c])?;
    }
    Ok(y)
}

pub(crate) fn einsum(imp: &mut Importer, node: &Node) -> Result<Val> {
    let eq = node
        .attr_s("equation")?
        .ok_or_else(|| node.invalid("attribute `equation` is missing"))?;
    let ops: Vec<Expr> = (0..node.num_inputs())
        .map(|i| node.input(i).map(|v| v.expr.clone()))
        .collect::<Result<_>>()?;
    imp.op(
        "relax.einsum",
        vec![Expr::tuple(ops)],
        attrs(&[("subscripts", AttrValue::Str(eq.replace(' ', "")))]),
    )
}

/// The axes of a reduction: the `axes` attribute before the opset where it became an input
/// (13 for ReduceSum, 18 for the others), the input after.
fn reduce_axes(node: &Node, input_since: i64) -> Result<Option<Vec<i64>>> {
    if node.opset < input_since {
        return node.attr_ints("axes");
    }
    match node.opt_input(1) {
        None => Ok(None),
        Some(v) => v
            .ints()
            .map(Some)
            .ok_or_else(|| node.unsupported("axes computed at run time")),
    }
}

pub(crate) fn reduce(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let since = if node.op == "ReduceSum" { 13 } else { 18 };
    let axes = reduce_axes(node, since)?;
    let keepdims = node.attr_i("keepdims", 1)? != 0;
    let noop = node.opset >= since && node.attr_i("noop_with_empty_axes", 0)? != 0;
    let axes: Vec<i64> = match axes {
        Some(a) if !a.is_empty() => a
            .iter()
            .map(|&a| norm_axis(node, a, r).map(|a| a as i64))
            .collect::<Result<_>>()?,
        _ if noop => return Ok(x.clone()),
        _ => (0..r as i64).collect(),
    };
    let red = |imp: &mut Importer, op: &str, v: &Val| {
        imp.op(
            op,
            vec![v.expr.clone()],
            attrs(&[
                ("axis", ints(&axes)),
                ("keepdims", AttrValue::Bool(keepdims)),
            ]),
        )
    };
    match node.op {
        "ReduceSum" => red(imp, "relax.sum", x),
        "ReduceMean" => red(imp, "relax.mean", x),
        "ReduceMax" => red(imp, "relax.max", x),
        "ReduceMin" => red(imp, "relax.min", x),
        "ReduceProd" => red(imp, "relax.prod", x),
        "ReduceL1" => {
            let a = imp.op0("relax.abs", &[x])?;
            red(imp, "relax.sum", &a)
        }
        "ReduceL2" => {
            let sq = imp.op0("relax.multiply", &[x, x])?;
            let s = red(imp, "relax.sum", &sq)?;
            imp.op0("relax.sqrt", &[&s])
        }
        "ReduceSumSquare" => {
            let sq = imp.op0("relax.multiply", &[x, x])?;
            red(imp, "relax.sum", &sq)
        }
        "ReduceLogSum" => {
            let s = red(imp, "relax.sum", x)?;
            imp.op0("relax.log", &[&s])
        }
        "ReduceLogSumExp" => {
            // log(sum(exp(x - max))) + max, stable for large inputs.
            let m = imp.op(
                "relax.max",
                vec![x.expr.clone()],
                attrs(&[("axis", ints(&axes)), ("keepdims", AttrValue::Bool(true))]),
            )?;
            let d = imp.op0("relax.subtract", &[x, &m])?;
            let e = imp.op0("relax.exp", &[&d])?;
            let s = red(imp, "relax.sum", &e)?;
            let l = imp.op0("relax.log", &[&s])?;
            let m = if keepdims {
                m
            } else {
                imp.op(
                    "relax.squeeze",
                    vec![m.expr.clone()],
                    attrs(&[("axis", ints(&axes))]),
                )?
            };
            imp.op0("relax.add", &[&l, &m])
        }
        _ => Err(node.unsupported("operator is not supported")),
    }
}

pub(crate) fn argmax(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let axis = norm_axis(node, node.attr_i("axis", 0)?, rank(node, x)?)?;
    let keepdims = node.attr_i("keepdims", 1)? != 0;
    if node.attr_i("select_last_index", 0)? != 0 {
        return Err(node.unsupported("select_last_index = 1"));
    }
    let op = if node.op == "ArgMax" {
        "relax.argmax"
    } else {
        "relax.argmin"
    };
    imp.op(
        op,
        vec![x.expr.clone()],
        attrs(&[
            ("axis", AttrValue::Int(axis as i64)),
            ("keepdims", AttrValue::Bool(keepdims)),
        ]),
    )
}

pub(crate) fn cumsum(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let axis = node
        .input(1)?
        .ints()
        .and_then(|v| v.first().copied())
        .ok_or_else(|| node.unsupported("an axis computed at run time"))?;
    let axis = norm_axis(node, axis, r)? as i64;
    let exclusive = node.attr_i("exclusive", 0)? != 0;
    let reverse = node.attr_i("reverse", 0)? != 0;
    let flip = |imp: &mut Importer, v: &Val| {
        imp.op(
            "relax.flip",
            vec![v.expr.clone()],
            attrs(&[("axis", AttrValue::Int(axis))]),
        )
    };
    let mut v = x.clone();
    if reverse {
        v = flip(imp, &v)?;
    }
    v = imp.op(
        "relax.cumsum",
        vec![v.expr.clone()],
        attrs(&[
            ("axis", AttrValue::Int(axis)),
            ("exclusive", AttrValue::Bool(exclusive)),
        ]),
    )?;
    if reverse {
        v = flip(imp, &v)?;
    }
    Ok(v)
}

pub(crate) fn topk(imp: &mut Importer, node: &Node) -> Result<Vec<Val>> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let k = if node.opset < 10 {
        node.opt_i("k")?
            .ok_or_else(|| node.invalid("attribute `k` is missing"))?
    } else {
        node.input(1)?
            .ints()
            .and_then(|v| v.first().copied())
            .ok_or_else(|| node.unsupported("K computed at run time"))?
    };
    let axis = norm_axis(node, node.attr_i("axis", -1)?, r)? as i64;
    let largest = node.attr_i("largest", 1)? != 0;
    if node.attr_i("sorted", 1)? == 0 {
        // Unsorted output may be in any order; sorted order is one of them.
    }
    let extent = super::shape_of(node, x)?[axis as usize].as_int();
    if k < 0 || extent.is_some_and(|d| k > d) {
        return Err(node.invalid(format!(
            "K = {k} is outside [0, {}] (the extent of axis {axis})",
            extent.map_or("?".to_string(), |d| d.to_string())
        )));
    }
    if k == 0 {
        // No elements: Relax's topk reads k = 0 as "all of them".
        let prim = |v: i64| Expr::prim(tir::PrimExpr::i64(v));
        let values = imp.op(
            "relax.strided_slice",
            vec![
                x.expr.clone(),
                Expr::tuple(vec![prim(axis)]),
                Expr::tuple(vec![prim(0)]),
                Expr::tuple(vec![prim(0)]),
                Expr::tuple(vec![prim(1)]),
            ],
            attrs(&[("assume_inbound", AttrValue::Bool(false))]),
        )?;
        let indices = imp.op(
            "relax.astype",
            vec![values.expr.clone()],
            attrs(&[("dtype", AttrValue::DType(tir::DataType::INT64))]),
        )?;
        return Ok(vec![values, indices]);
    }
    let t = imp.op(
        "relax.topk",
        vec![x.expr.clone()],
        attrs(&[
            ("k", AttrValue::Int(k)),
            ("axis", AttrValue::Int(axis)),
            ("ret_type", AttrValue::Str("both".into())),
            ("largest", AttrValue::Bool(largest)),
            // int32 indices widened below: the topk kernel writes 32-bit indices.
            ("dtype", AttrValue::DType(tir::DataType::INT32)),
        ]),
    )?;
    let values = imp.emit(Expr::new(ExprKind::TupleGetItem(t.expr.clone(), 0)))?;
    let indices = imp.emit(Expr::new(ExprKind::TupleGetItem(t.expr, 1)))?;
    let indices = imp.op(
        "relax.astype",
        vec![indices.expr.clone()],
        attrs(&[("dtype", AttrValue::DType(tir::DataType::INT64))]),
    )?;
    Ok(vec![values, indices])
}
