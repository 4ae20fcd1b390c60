//! Elementwise operators: unary math (TVM's `tir_exp`-style PrimFuncs), broadcasting binary
//! arithmetic, comparisons and logic (`T_add`-style), `where`, `clip`, `astype`.

use tir::{CmpOp, DataType, PrimExpr};

use super::te::{self, Te};
use super::{Lowered, OpCall, Result, Rule, TArg, unsupported};

pub(super) fn rule(name: &str) -> Option<Rule> {
    let r: Rule = match name {
        "add" => |c| binary(c, "add", te::add),
        "subtract" => |c| binary(c, "subtract", te::sub),
        "multiply" => |c| binary(c, "multiply", te::mul),
        "divide" => |c| binary(c, "divide", te::div),
        "floor_divide" => |c| binary(c, "floor_divide", floor_divide),
        "floor_mod" => |c| binary(c, "floor_mod", floor_mod),
        "power" => |c| {
            binary(c, "power", |a, b| {
                PrimExpr::call(a.dtype(), "pow", vec![a, b])
            })
        },
        "maximum" => |c| binary(c, "maximum", te::max),
        "minimum" => |c| binary(c, "minimum", te::min),
        "equal" => |c| binary(c, "equal", |a, b| te::cmp(CmpOp::Eq, a, b)),
        "not_equal" => |c| binary(c, "not_equal", |a, b| te::cmp(CmpOp::Ne, a, b)),
        "less" => |c| binary(c, "less", |a, b| te::cmp(CmpOp::Lt, a, b)),
        "less_equal" => |c| binary(c, "less_equal", |a, b| te::cmp(CmpOp::Le, a, b)),
        "greater" => |c| binary(c, "greater", |a, b| te::cmp(CmpOp::Lt, b, a)),
        "greater_equal" => |c| binary(c, "greater_equal", |a, b| te::cmp(CmpOp::Le, b, a)),
        "logical_and" => |c| binary(c, "logical_and", te::and),
        "logical_or" => |c| binary(c, "logical_or", te::or),
        "logical_xor" => |c| binary(c, "logical_xor", |a, b| te::cmp(CmpOp::Ne, a, b)),
        "exp" => |c| unary(c, "tir_exp", |x| te::intrin("exp", vec![x])),
        "log" => |c| unary(c, "tir_log", |x| te::intrin("log", vec![x])),
        "sqrt" => |c| unary(c, "tir_sqrt", |x| te::intrin("sqrt", vec![x])),
        "rsqrt" => |c| unary(c, "tir_rsqrt", |x| te::intrin("rsqrt", vec![x])),
        "sin" => |c| unary(c, "tir_sin", |x| te::intrin("sin", vec![x])),
        "cos" => |c| unary(c, "tir_cos", |x| te::intrin("cos", vec![x])),
        "tan" => |c| unary(c, "tir_tan", |x| te::intrin("tan", vec![x])),
        "tanh" => |c| unary(c, "tir_tanh", |x| te::intrin("tanh", vec![x])),
        "sigmoid" => |c| unary(c, "tir_sigmoid", |x| te::intrin("sigmoid", vec![x])),
        "erf" => |c| unary(c, "tir_erf", |x| te::intrin("erf", vec![x])),
        "floor" => |c| unary(c, "tir_floor", |x| te::intrin("floor", vec![x])),
        "ceil" => |c| unary(c, "tir_ceil", |x| te::intrin("ceil", vec![x])),
        "round" => |c| unary(c, "tir_round", |x| te::intrin("nearbyint", vec![x])),
        "trunc" => |c| unary(c, "tir_trunc", |x| te::intrin("trunc", vec![x])),
        "abs" => |c| unary(c, "tir_abs", abs),
        "negative" => |c| unary(c, "tir_negative", |x| te::sub(te::zero(x.dtype()), x)),
        "square" => |c| unary(c, "tir_square", |x| te::mul(x.clone(), x)),
        "isnan" => |c| {
            unary(c, "tir_isnan", |x| {
                PrimExpr::call(DataType::BOOL, "isnan", vec![x])
            })
        },
        "isinf" => |c| {
            unary(c, "tir_isinf", |x| {
                PrimExpr::call(DataType::BOOL, "isinf", vec![x])
            })
        },
        "isfinite" => |c| {
            unary(c, "tir_isfinite", |x| {
                PrimExpr::call(DataType::BOOL, "isfinite", vec![x])
            })
        },
        "acos" => |c| unary(c, "tir_acos", |x| te::intrin("acos", vec![x])),
        "acosh" => |c| unary(c, "tir_acosh", |x| te::intrin("acosh", vec![x])),
        "asin" => |c| unary(c, "tir_asin", |x| te::intrin("asin", vec![x])),
        "asinh" => |c| unary(c, "tir_asinh", |x| te::intrin("asinh", vec![x])),
        "atan" => |c| unary(c, "tir_atan", |x| te::intrin("atan", vec![x])),
        "atanh" => |c| unary(c, "tir_atanh", |x| te::intrin("atanh", vec![x])),
        "cosh" => |c| unary(c, "tir_cosh", |x| te::intrin("cosh", vec![x])),
        "sinh" => |c| unary(c, "tir_sinh", |x| te::intrin("sinh", vec![x])),
        "bitwise_not" => |c| {
            require_int(c, "bitwise_not")?;
            unary_cpp(c, "bitwise_not", "T_bitwise_not", |x| {
                PrimExpr::call(x.dtype(), "bitwise_not", vec![x])
            })
        },
        "bitwise_and" => |c| int_binary(c, "bitwise_and", "bitwise_and"),
        "bitwise_or" => |c| int_binary(c, "bitwise_or", "bitwise_or"),
        "bitwise_xor" => |c| int_binary(c, "bitwise_xor", "bitwise_xor"),
        "left_shift" => |c| int_binary(c, "left_shift", "shift_left"),
        "right_shift" => |c| int_binary(c, "right_shift", "shift_right"),
        "mod" => |c| binary(c, "mod", trunc_mod),
        "atan2" => |c| {
            require_float(c, "atan2")?;
            binary(c, "atan2", |a, b| te::intrin("atan2", vec![a, b]))
        },
        "log_add_exp" => |c| {
            require_float(c, "log_add_exp")?;
            binary(c, "log_add_exp", log_add_exp)
        },
        "ewise_fma" => ewise_fma,
        "masked_fill" => masked_fill,
        "sign" => sign,
        "logical_not" => logical_not,
        "clip" => clip,
        "astype" | "wrap_param" => astype,
        "where" => where_,
        _ => return None,
    };
    Some(r)
}

/// `|x|`: `T.fabs` for floats, a select for integers.
fn abs(x: PrimExpr) -> PrimExpr {
    if x.dtype().is_float() {
        te::intrin("fabs", vec![x])
    } else {
        let z = te::zero(x.dtype());
        te::select(
            te::cmp(CmpOp::Ge, x.clone(), z.clone()),
            x.clone(),
            te::sub(z, x),
        )
    }
}

fn floor_divide(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    if a.dtype().is_float() {
        te::intrin("floor", vec![te::div(a, b)])
    } else {
        te::floordiv(a, b)
    }
}

/// `truncmod`: C `%` for integers, `fmod` for floats.
fn trunc_mod(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    if a.dtype().is_float() {
        te::intrin("fmod", vec![a, b])
    } else {
        te::bin(tir::BinaryOp::Mod, a, b)
    }
}

/// `log(exp(a) + exp(b))`, computed stably as `max(a, b) + log1p(exp(-|a - b|))`.
fn log_add_exp(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    let m = te::max(a.clone(), b.clone());
    let d = te::sub(a, b);
    let neg_abs = te::sub(te::zero(d.dtype()), te::intrin("fabs", vec![d]));
    te::add(
        m,
        te::intrin("log1p", vec![te::intrin("exp", vec![neg_abs])]),
    )
}

/// The bitwise and shift operators take integer (or bool) tensors only.
fn require_int(c: &OpCall, op: &str) -> Result<()> {
    match c.out.tensor_dtype() {
        Some(d) if d.is_int_or_uint() || d.is_bool() => Ok(()),
        Some(d) => unsupported(format!("{op} of dtype {d} (integer dtypes only)")),
        None => unsupported(format!("{op} of unknown dtype")),
    }
}

/// Operators computed with float math functions take float tensors only.
fn require_float(c: &OpCall, op: &str) -> Result<()> {
    match c.out.tensor_dtype() {
        Some(d) if d.is_float() => Ok(()),
        Some(d) => unsupported(format!("{op} of dtype {d} (float dtypes only)")),
        None => unsupported(format!("{op} of unknown dtype")),
    }
}

/// A broadcasting binary operator that is a TIR intrinsic call on integers.
fn int_binary(c: &OpCall, name: &str, intrinsic: &'static str) -> Result<Lowered> {
    require_int(c, name)?;
    let f: fn(PrimExpr, PrimExpr) -> PrimExpr = match intrinsic {
        "bitwise_and" => |a, b| bitcall("bitwise_and", a, b),
        "bitwise_or" => |a, b| bitcall("bitwise_or", a, b),
        "bitwise_xor" => |a, b| bitcall("bitwise_xor", a, b),
        "shift_left" => |a, b| bitcall("shift_left", a, b),
        "shift_right" => |a, b| bitcall("shift_right", a, b),
        other => return unsupported(format!("{name}: no intrinsic `{other}`")),
    };
    binary(c, name, f)
}

fn bitcall(op: &str, a: PrimExpr, b: PrimExpr) -> PrimExpr {
    let b = te::cast(a.dtype(), b);
    PrimExpr::call(a.dtype(), op, vec![a, b])
}

/// `x1 * x2 + x3` (TVM: `te.compute` of a multiply-add).
fn ewise_fma(c: &OpCall) -> Result<Lowered> {
    let (x1, x2, x3) = (c.tensor(0)?, c.tensor(1)?, c.tensor(2)?);
    let (shape, _) = c.out_tensor()?;
    let mut te = Te::new();
    let out = te.compute("T_ewise_fma", "ax", &shape, |i| {
        let l = |t: &TArg| te::load(&t.buf, bcast_index(t.shape(), &shape, i));
        te::add(te::mul(l(&x1), l(&x2)), l(&x3))
    });
    c.finish("ewise_fma", te, &[&x1, &x2, &x3], &[out])
}

/// `where(mask, value, x)`: `value` is a rank-0 tensor (or literal) broadcast over `x`.
fn masked_fill(c: &OpCall) -> Result<Lowered> {
    let (x, mask) = (c.tensor(0)?, c.tensor(1)?);
    let (shape, dt) = c.out_tensor()?;
    let value = match c.scalar(2) {
        Some(s) => Operand::Scalar(te::cast(dt, s)),
        None => Operand::Tensor(c.tensor(2)?),
    };
    let mut te = Te::new();
    let out = te.compute("T_where", "ax", &shape, |i| {
        let mv = te::load(&mask.buf, bcast_index(mask.shape(), &shape, i));
        let test = if mv.dtype().is_bool() {
            mv
        } else {
            te::cmp(CmpOp::Ne, mv.clone(), te::zero(mv.dtype()))
        };
        te::select(
            test,
            te::cast(dt, value.at(&shape, i)),
            te::load(&x.buf, bcast_index(x.shape(), &shape, i)),
        )
    });
    let mut inputs: Vec<&TArg> = vec![&x, &mask];
    if let Operand::Tensor(t) = &value {
        inputs.push(t);
    }
    c.finish("masked_fill", te, &inputs, &[out])
}

fn floor_mod(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    if a.dtype().is_float() {
        let q = te::intrin("floor", vec![te::div(a.clone(), b.clone())]);
        te::sub(a, te::mul(q, b))
    } else {
        te::floormod(a, b)
    }
}

/// The index of `arg` for the output index `idx` under numpy broadcasting: a dimension of
/// extent 1 that the output broadcasts reads index 0.
pub(crate) fn bcast_index(shape: &[PrimExpr], out: &[PrimExpr], idx: &[PrimExpr]) -> Vec<PrimExpr> {
    let off = out.len().saturating_sub(shape.len());
    shape
        .iter()
        .enumerate()
        .map(|(d, s)| {
            let od = d + off;
            let o = out.get(od);
            if s.as_int() == Some(1) && o.and_then(PrimExpr::as_int) != Some(1) {
                PrimExpr::int(
                    idx.get(od).map(PrimExpr::dtype).unwrap_or(DataType::INT64),
                    0,
                )
            } else {
                idx.get(od).cloned().unwrap_or_else(|| te::i64c(0))
            }
        })
        .collect()
}

/// One operand of a binary operator: a tensor placeholder or an inlined scalar literal.
enum Operand {
    Tensor(TArg),
    Scalar(PrimExpr),
}

impl Operand {
    fn at(&self, out: &[PrimExpr], idx: &[PrimExpr]) -> PrimExpr {
        match self {
            Operand::Tensor(t) => te::load(&t.buf, bcast_index(t.shape(), out, idx)),
            Operand::Scalar(s) => s.clone(),
        }
    }
}

fn binary(c: &OpCall, name: &str, f: fn(PrimExpr, PrimExpr) -> PrimExpr) -> Result<Lowered> {
    // TVM inlines a rank-0 constant second operand; only if there is none, a first one.
    let (a, b) = match c.scalar(1) {
        Some(s) => (Operand::Tensor(c.tensor(0)?), Operand::Scalar(s)),
        None => match c.scalar(0) {
            Some(s) => (Operand::Scalar(s), Operand::Tensor(c.tensor(1)?)),
            None => (Operand::Tensor(c.tensor(0)?), Operand::Tensor(c.tensor(1)?)),
        },
    };
    let (shape, _) = c.out_tensor()?;
    let mut te = Te::new();
    let out = te.compute(&format!("T_{name}"), "ax", &shape, |i| {
        f(a.at(&shape, i), b.at(&shape, i))
    });
    let inputs: Vec<&TArg> = [&a, &b]
        .into_iter()
        .filter_map(|o| match o {
            Operand::Tensor(t) => Some(t),
            Operand::Scalar(_) => None,
        })
        .collect();
    c.finish(name, te, &inputs, &[out])
}

/// A Python-`topi` unary operator: block `compute`, axes `i0, i1, ...`.
fn unary(c: &OpCall, name: &str, f: impl FnOnce(PrimExpr) -> PrimExpr) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let mut te = Te::new();
    let out = te.compute("compute", "i", x.shape(), |i| {
        f(te::load(&x.buf, i.to_vec()))
    });
    c.finish(name, te, &[&x], &[out])
}

/// A C++-`topi` unary operator: block `T_<name>`, axes `ax0, ...`.
fn unary_cpp(
    c: &OpCall,
    name: &str,
    block: &str,
    f: impl FnOnce(PrimExpr) -> PrimExpr,
) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let mut te = Te::new();
    let out = te.compute(block, "ax", x.shape(), |i| f(te::load(&x.buf, i.to_vec())));
    c.finish(name, te, &[&x], &[out])
}

fn sign(c: &OpCall) -> Result<Lowered> {
    unary_cpp(c, "tir_sign", "T_sign", |x| {
        let dt = x.dtype();
        let z = te::zero(dt);
        te::select(
            te::cmp(CmpOp::Lt, z.clone(), x.clone()),
            te::one(dt),
            te::select(te::cmp(CmpOp::Lt, x, z.clone()), te::constf(dt, -1.0), z),
        )
    })
}

fn logical_not(c: &OpCall) -> Result<Lowered> {
    unary_cpp(c, "tir_logical_not", "T_logical_not", te::not)
}

fn clip(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let dt = x.dtype();
    let bound = |i: usize| -> Result<PrimExpr> {
        match c.call.args.get(i).map(|e| e.kind()) {
            Some(crate::ir::ExprKind::PrimValue(p)) => Ok(te::cast(dt, p.clone())),
            _ => unsupported("clip bounds must be prim values"),
        }
    };
    let (lo, hi) = (bound(1)?, bound(2)?);
    let mut te = Te::new();
    let out = te.compute("compute", "i", x.shape(), |i| {
        te::max(te::min(te::load(&x.buf, i.to_vec()), hi), lo)
    });
    c.finish("tir_clip", te, &[&x], &[out])
}

fn astype(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (_, dt) = c.out_tensor()?;
    let mut te = Te::new();
    let out = te.compute("compute", "i", x.shape(), |i| {
        let v = te::load(&x.buf, i.to_vec());
        if v.dtype() == dt {
            v
        } else {
            PrimExpr::cast(dt, v)
        }
    });
    c.finish("cast", te, &[&x], &[out])
}

fn where_(c: &OpCall) -> Result<Lowered> {
    let (cond, x, y) = (c.tensor(0)?, c.tensor(1)?, c.tensor(2)?);
    let (shape, _) = c.out_tensor()?;
    let mut te = Te::new();
    let out = te.compute("T_where", "ax", &shape, |i| {
        let cv = te::load(&cond.buf, bcast_index(cond.shape(), &shape, i));
        let test = if cv.dtype().is_bool() {
            te::cmp(CmpOp::Lt, te::i64c(0), PrimExpr::cast(DataType::INT64, cv))
        } else {
            te::cmp(CmpOp::Ne, cv.clone(), te::zero(cv.dtype()))
        };
        te::select(
            test,
            te::load(&x.buf, bcast_index(x.shape(), &shape, i)),
            te::load(&y.buf, bcast_index(y.shape(), &shape, i)),
        )
    });
    c.finish("where", te, &[&cond, &x, &y], &[out])
}
