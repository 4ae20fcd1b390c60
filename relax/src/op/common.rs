//! Helpers shared by the operator families: argument and attribute access with errors that
//! name the operator and the argument, axis normalization, and dimension arithmetic that folds
//! constants (so that static shapes stay literal integers).

use tir::arith::scalar;
use tir::{BinaryOp, DataType, PrimExpr};

use crate::Result;
use crate::error::Error;
use crate::ir::{AttrValue, Call, ExprKind, StructInfo};
use crate::op::{ParamKind, lookup};
use crate::struct_info_ops::{describe, dim_str, prove_equal};

/// The tensor facts of a `R.Tensor` argument.
#[derive(Clone, Debug)]
pub(crate) struct TensorInfo {
    pub shape: Option<Vec<PrimExpr>>,
    pub dtype: Option<DataType>,
    pub ndim: i64,
    pub vdevice: Option<String>,
}

impl TensorInfo {
    pub fn ndim(&self) -> Option<usize> {
        (self.ndim >= 0).then_some(self.ndim as usize)
    }
    /// A tensor of the same device with other shape/dtype.
    pub fn with_shape(&self, shape: Vec<PrimExpr>, dtype: Option<DataType>) -> StructInfo {
        StructInfo::Tensor {
            ndim: shape.len() as i64,
            shape: Some(shape),
            dtype,
            vdevice: self.vdevice.clone(),
        }
    }
    /// A tensor of the same device, of rank `ndim` (−1: unknown) and unknown shape.
    pub fn with_ndim(&self, ndim: i64, dtype: Option<DataType>) -> StructInfo {
        StructInfo::Tensor {
            shape: None,
            dtype,
            ndim,
            vdevice: self.vdevice.clone(),
        }
    }
    /// The struct info as a value.
    pub fn to_struct_info(&self) -> StructInfo {
        StructInfo::Tensor {
            shape: self.shape.clone(),
            dtype: self.dtype,
            ndim: self.ndim,
            vdevice: self.vdevice.clone(),
        }
    }
    /// `shape` when known, else `with_ndim`.
    pub fn result(
        &self,
        shape: Option<Vec<PrimExpr>>,
        ndim: i64,
        dtype: Option<DataType>,
    ) -> StructInfo {
        match shape {
            Some(s) => self.with_shape(s, dtype),
            None => self.with_ndim(ndim, dtype),
        }
    }
}

/// `R.add` for `relax.add`.
pub(crate) fn script_name(call: &Call) -> String {
    match call.op() {
        Some(name) => lookup(name)
            .map(|d| d.script_name.to_string())
            .unwrap_or_else(|| name.replacen("relax.", "R.", 1)),
        None => "call".to_string(),
    }
}

/// A type-inference error prefixed with the operator's script name.
pub(crate) fn err(call: &Call, msg: impl std::fmt::Display) -> Error {
    Error::TypeInference(format!("{}: {msg}", script_name(call)))
}

/// The name of expression argument `i` as declared (`x1`, `data`, ...).
pub(crate) fn arg_name(call: &Call, i: usize) -> String {
    let Some(def) = call.op().and_then(lookup) else {
        return format!("argument {i}");
    };
    let mut k = 0;
    for p in def.params {
        match p.kind {
            ParamKind::Expr => {
                if k == i {
                    return format!("argument {i} ({})", p.name);
                }
                k += 1;
            }
            ParamKind::VariadicExpr => return format!("argument {i} ({}[{}])", p.name, i - k),
            _ => {}
        }
    }
    format!("argument {i}")
}

/// Checks that there are between `min` and `max` arguments.
pub(crate) fn check_arity(call: &Call, args: &[StructInfo], min: usize, max: usize) -> Result<()> {
    let n = args.len();
    if n < min || n > max {
        let expected = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(err(call, format!("expects {expected} arguments, got {n}")));
    }
    Ok(())
}

/// Argument `i` as a tensor.
pub(crate) fn tensor_arg(call: &Call, args: &[StructInfo], i: usize) -> Result<TensorInfo> {
    match args.get(i) {
        Some(StructInfo::Tensor {
            shape,
            dtype,
            ndim,
            vdevice,
        }) => Ok(TensorInfo {
            shape: shape.clone(),
            dtype: *dtype,
            ndim: *ndim,
            vdevice: vdevice.clone(),
        }),
        Some(other) => Err(err(
            call,
            format!(
                "{} must be a tensor, got {}",
                arg_name(call, i),
                describe(other)
            ),
        )),
        None => Err(err(call, format!("missing {}", arg_name(call, i)))),
    }
}

/// Argument `i` as a tensor, or a prim value seen as a rank-0 tensor (binary operators accept
/// both).
pub(crate) fn tensor_or_prim_arg(call: &Call, args: &[StructInfo], i: usize) -> Result<TensorInfo> {
    match args.get(i) {
        Some(StructInfo::Prim { dtype, .. }) => Ok(TensorInfo {
            shape: Some(Vec::new()),
            dtype: Some(*dtype),
            ndim: 0,
            vdevice: None,
        }),
        _ => tensor_arg(call, args, i),
    }
}

/// Argument `i` as a tuple of struct infos.
pub(crate) fn tuple_arg<'a>(
    call: &Call,
    args: &'a [StructInfo],
    i: usize,
) -> Result<&'a [StructInfo]> {
    match args.get(i) {
        Some(StructInfo::Tuple(fields)) => Ok(fields),
        Some(other) => Err(err(
            call,
            format!(
                "{} must be a tuple, got {}",
                arg_name(call, i),
                describe(other)
            ),
        )),
        None => Err(err(call, format!("missing {}", arg_name(call, i)))),
    }
}

/// Argument `i` as a shape: its dimensions if known, and its rank (−1 unknown).
pub(crate) fn shape_arg(
    call: &Call,
    args: &[StructInfo],
    i: usize,
) -> Result<(Option<Vec<PrimExpr>>, i64)> {
    match args.get(i) {
        Some(StructInfo::Shape { values, ndim }) => Ok((values.clone(), *ndim)),
        Some(other) => Err(err(
            call,
            format!(
                "{} must be a shape, got {}",
                arg_name(call, i),
                describe(other)
            ),
        )),
        None => Err(err(call, format!("missing {}", arg_name(call, i)))),
    }
}

/// Argument `i` as a prim value: its dtype and value if known.
pub(crate) fn prim_arg(
    call: &Call,
    args: &[StructInfo],
    i: usize,
) -> Result<(DataType, Option<PrimExpr>)> {
    match args.get(i) {
        Some(StructInfo::Prim { dtype, value }) => Ok((*dtype, value.clone())),
        Some(other) => Err(err(
            call,
            format!(
                "{} must be a prim value, got {}",
                arg_name(call, i),
                describe(other)
            ),
        )),
        None => Err(err(call, format!("missing {}", arg_name(call, i)))),
    }
}

/// The prim expression of argument `i` if it is written as a prim value (`R.prim_value(e)`),
/// or else its struct info's known value.
pub(crate) fn prim_value_of(call: &Call, args: &[StructInfo], i: usize) -> Option<PrimExpr> {
    if let Some(e) = call.args.get(i)
        && let ExprKind::PrimValue(v) = e.kind()
    {
        return Some(v.clone());
    }
    match args.get(i) {
        Some(StructInfo::Prim { value, .. }) => value.clone(),
        _ => None,
    }
}

/// Attribute `name`, or its declared default.
pub(crate) fn attr(call: &Call, name: &str) -> Option<AttrValue> {
    call.attrs
        .get(name)
        .cloned()
        .or_else(|| call.op().and_then(lookup)?.attr_default(name))
}

fn bad_attr(call: &Call, name: &str, expected: &str, got: Option<&AttrValue>) -> Error {
    match got {
        Some(v) => err(
            call,
            format!("attribute `{name}` must be {expected}, got {v:?}"),
        ),
        None => err(call, format!("missing attribute `{name}` ({expected})")),
    }
}

pub(crate) fn attr_int(call: &Call, name: &str) -> Result<i64> {
    let v = attr(call, name);
    v.as_ref()
        .and_then(AttrValue::as_int)
        .ok_or_else(|| bad_attr(call, name, "an int", v.as_ref()))
}

pub(crate) fn attr_opt_int(call: &Call, name: &str) -> Result<Option<i64>> {
    match attr(call, name) {
        None | Some(AttrValue::None) => Ok(None),
        Some(v) => v
            .as_int()
            .map(Some)
            .ok_or_else(|| bad_attr(call, name, "an int or None", Some(&v))),
    }
}

fn int_list(v: &AttrValue) -> Option<Vec<i64>> {
    match v {
        AttrValue::List(_) => v.as_int_list(),
        other => other.as_int().map(|i| vec![i]),
    }
}

/// A list of ints; a single int is a list of one.
pub(crate) fn attr_int_list(call: &Call, name: &str) -> Result<Vec<i64>> {
    let v = attr(call, name);
    v.as_ref()
        .and_then(int_list)
        .ok_or_else(|| bad_attr(call, name, "a list of ints", v.as_ref()))
}

pub(crate) fn attr_opt_int_list(call: &Call, name: &str) -> Result<Option<Vec<i64>>> {
    match attr(call, name) {
        None | Some(AttrValue::None) => Ok(None),
        Some(v) => int_list(&v)
            .map(Some)
            .ok_or_else(|| bad_attr(call, name, "a list of ints or None", Some(&v))),
    }
}

pub(crate) fn attr_bool(call: &Call, name: &str) -> Result<bool> {
    let v = attr(call, name);
    match &v {
        Some(AttrValue::Bool(b)) => Ok(*b),
        Some(AttrValue::Int(i)) => Ok(*i != 0),
        _ => Err(bad_attr(call, name, "a bool", v.as_ref())),
    }
}

pub(crate) fn attr_float(call: &Call, name: &str) -> Result<f64> {
    let v = attr(call, name);
    v.as_ref()
        .and_then(AttrValue::as_float)
        .ok_or_else(|| bad_attr(call, name, "a float", v.as_ref()))
}

pub(crate) fn attr_str(call: &Call, name: &str) -> Result<String> {
    let v = attr(call, name);
    v.as_ref()
        .and_then(|v| v.as_str().map(str::to_string))
        .ok_or_else(|| bad_attr(call, name, "a string", v.as_ref()))
}

/// A dtype attribute (`dtype="float32"`), `None` when unset.
pub(crate) fn attr_opt_dtype(call: &Call, name: &str) -> Result<Option<DataType>> {
    match attr(call, name) {
        None | Some(AttrValue::None) => Ok(None),
        // Older TVM releases printed an unset dtype as `out_dtype="void"`, which the reader keeps
        // as a dtype.
        Some(AttrValue::DType(d)) if d == DataType::VOID => Ok(None),
        Some(AttrValue::DType(d)) => Ok(Some(d)),
        Some(AttrValue::Str(s)) if s.is_empty() || s == "void" => Ok(None),
        Some(AttrValue::Str(s)) => DataType::parse(&s)
            .map(Some)
            .ok_or_else(|| err(call, format!("attribute `{name}`: unknown dtype \"{s}\""))),
        Some(v) => Err(bad_attr(call, name, "a dtype", Some(&v))),
    }
}

/// `axis` in `[-ndim, ndim)` as an index.
pub(crate) fn normalize_axis(call: &Call, axis: i64, ndim: usize) -> Result<usize> {
    let n = ndim as i64;
    if axis < -n || axis >= n {
        return Err(err(
            call,
            format!(
                "axis {axis} is out of range for a tensor of rank {ndim} (expected [{}, {}))",
                -n, n
            ),
        ));
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

/// The permutation `R.permute_dims` of a rank-`rank` tensor applies for its `axes` attribute
/// (unset: the dimensions reversed): each axis normalized and given once. `None` if the
/// attribute is not such a permutation (the operator's inference reports why).
pub(crate) fn permute_dims_axes(axes: Option<&AttrValue>, rank: usize) -> Option<Vec<usize>> {
    let list = match axes {
        None | Some(AttrValue::None) => return Some((0..rank).rev().collect()),
        Some(a) => a.as_int_list()?,
    };
    let n = i64::try_from(rank).ok()?;
    let mut out = Vec::with_capacity(rank);
    for a in list {
        if !(-n..n).contains(&a) {
            return None;
        }
        let k = if a < 0 { a + n } else { a } as usize;
        if out.contains(&k) {
            return None;
        }
        out.push(k);
    }
    (out.len() == rank).then_some(out)
}

/// Normalized axes, each once.
pub(crate) fn normalize_axes(call: &Call, axes: &[i64], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let k = normalize_axis(call, a, ndim)?;
        if out.contains(&k) {
            return Err(err(
                call,
                format!("axis {a} appears more than once in {axes:?}"),
            ));
        }
        out.push(k);
    }
    Ok(out)
}

/// The shape as `(2, n, 4)` for messages.
pub(crate) fn shape_str(shape: &[PrimExpr]) -> String {
    let dims: Vec<String> = shape.iter().map(dim_str).collect();
    if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    }
}

/// An int64 dimension.
pub(crate) fn dim(v: i64) -> PrimExpr {
    PrimExpr::i64(v)
}

fn fold(op: BinaryOp, a: &PrimExpr, b: &PrimExpr) -> Option<PrimExpr> {
    let (x, y) = (a.as_int()?, b.as_int()?);
    let v = match op {
        BinaryOp::Add => x.checked_add(y)?,
        BinaryOp::Sub => x.checked_sub(y)?,
        BinaryOp::Mul => x.checked_mul(y)?,
        BinaryOp::FloorDiv => i64::try_from(scalar::floor_div(x.into(), y.into())?).ok()?,
        BinaryOp::FloorMod => i64::try_from(scalar::floor_mod(x.into(), y.into())?).ok()?,
        BinaryOp::Min => x.min(y),
        BinaryOp::Max => x.max(y),
        _ => return None,
    };
    Some(PrimExpr::int(a.dtype(), v))
}

/// `a op b`, folded when both are constants and simplified for identity operands.
pub(crate) fn arith(op: BinaryOp, a: &PrimExpr, b: &PrimExpr) -> PrimExpr {
    if let Some(v) = fold(op, a, b) {
        return v;
    }
    match op {
        BinaryOp::Add if b.is_zero() => return a.clone(),
        BinaryOp::Add if a.is_zero() => return b.clone(),
        BinaryOp::Sub if b.is_zero() => return a.clone(),
        BinaryOp::Mul if b.is_one() => return a.clone(),
        BinaryOp::Mul if a.is_one() => return b.clone(),
        BinaryOp::FloorDiv if b.is_one() => return a.clone(),
        BinaryOp::Min | BinaryOp::Max if prove_equal(a, b) => return a.clone(),
        _ => {}
    }
    // Keep both operands in one type (int64 shape arithmetic mixed with int32 literals), and
    // simplify as TVM's normalizer does (`n * 4 // 2` → `n * 2`).
    let (a, b) = unify_int(a, b);
    tir::arith::Analyzer::new().simplify(&PrimExpr::binary(op, a, b))
}

fn unify_int(a: &PrimExpr, b: &PrimExpr) -> (PrimExpr, PrimExpr) {
    let (da, db) = (a.dtype(), b.dtype());
    if da == db {
        return (a.clone(), b.clone());
    }
    let conv = |e: &PrimExpr, to: DataType| match e.as_int() {
        Some(v) => PrimExpr::int(to, v),
        None => PrimExpr::cast(to, e.clone()),
    };
    if da.bits >= db.bits {
        (a.clone(), conv(b, da))
    } else {
        (conv(a, db), b.clone())
    }
}

pub(crate) fn add(a: &PrimExpr, b: &PrimExpr) -> PrimExpr {
    arith(BinaryOp::Add, a, b)
}
pub(crate) fn sub(a: &PrimExpr, b: &PrimExpr) -> PrimExpr {
    arith(BinaryOp::Sub, a, b)
}
pub(crate) fn mul(a: &PrimExpr, b: &PrimExpr) -> PrimExpr {
    arith(BinaryOp::Mul, a, b)
}
pub(crate) fn floordiv(a: &PrimExpr, b: &PrimExpr) -> PrimExpr {
    arith(BinaryOp::FloorDiv, a, b)
}

/// The product of `dims` (1 for none).
pub(crate) fn product(dims: &[PrimExpr]) -> PrimExpr {
    dims.iter().fold(dim(1), |acc, d| mul(&acc, d))
}
