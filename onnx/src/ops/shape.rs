//! Shape computation and data movement, and the import-time folding of shape subgraphs.
//!
//! [`fold`] evaluates a node whose integer inputs are known at import time (constants, or the
//! elements of a `Shape`, possibly symbolic) on those elements, as TIR expressions, instead
//! of emitting Relax: `Shape → Gather → Unsqueeze → Concat → Reshape` becomes a reshape to a
//! static shape (or a symbolic one, `(n, 768)`), as TVM's frontend folds with its
//! `relax.ShapeExpr` values.

use relax::ir::{AttrValue, Attrs, Expr, ExprKind, StructInfo};
use tir::{BinaryOp, CmpOp, PrimExpr};
use vm::Tensor;

use super::{attrs, dtype_of, ints, norm_axis, rank, shape_expr, shape_of};
use crate::error::{Error, Result};
use crate::importer::{FOLD_LIMIT, Importer, Val, constant, int_tensor, scalar};
use crate::node::{Node, or_str};
use crate::tensor::{tir_dtype, to_tensor};

/// The largest `ConstantOfShape` result of constant shape stored in the module as a constant;
/// larger ones are filled at run time. Such a result is a weight (onnxruntime folds it into an
/// initializer once): filling and faulting in AlexNet's 218 MB of dense weights on every call
/// cost more than the layers that read them, while filling them once at import takes tens of
/// milliseconds.
const CONSTANT_FILL_BYTES: usize = 1 << 30;

/// The most elements a symbolic (not constant) folded value may have.
const SYM_LIMIT: usize = 64;

/// Elements of a folded result of broadcast shape `shape`, if at most `limit`: inputs of
/// `limit` elements each can broadcast to `limit²` (or, with a zero dimension, to a shape
/// whose other dimensions multiply past `i64`).
fn fold_len(shape: &[i64], limit: usize) -> Option<usize> {
    vm::tensor::checked_numel(shape)
        .ok()
        .filter(|&n| n <= limit)
}

fn simplify(e: PrimExpr) -> PrimExpr {
    tir::arith::simplify(&e)
}

fn bin(op: BinaryOp, a: &PrimExpr, b: &PrimExpr) -> PrimExpr {
    simplify(PrimExpr::binary(op, a.clone(), b.clone()))
}

fn product(d: &[PrimExpr]) -> PrimExpr {
    d.iter()
        .fold(PrimExpr::i64(1), |a, b| bin(BinaryOp::Mul, &a, b))
}

/// A value made of elements known at import time: a constant if they are all constants,
/// otherwise a Relax tensor built from a shape expression, carrying the elements.
pub(crate) fn from_elems(
    imp: &mut Importer,
    shape: &[i64],
    elems: Vec<PrimExpr>,
    dtype: tir::DataType,
) -> Result<Val> {
    let elems: Vec<PrimExpr> = elems.into_iter().map(simplify).collect();
    if let Some(v) = elems
        .iter()
        .map(PrimExpr::as_int)
        .collect::<Option<Vec<i64>>>()
    {
        let t = int_tensor(shape, &v)?;
        if dtype == tir::DataType::INT64 {
            return Ok(t);
        }
        let vdt = crate::tensor::vm_of(dtype)?;
        let mut out = Tensor::zeros(shape, vdt).map_err(|e| Error::Invalid(e.to_string()))?;
        let bytes: Vec<u8> = v
            .iter()
            .flat_map(|&x| {
                let b = x.to_le_bytes();
                b[..vdt.bytes()].to_vec()
            })
            .collect();
        out.copy_from_bytes(&bytes)
            .map_err(|e| Error::Invalid(e.to_string()))?;
        return constant(out);
    }
    if shape.len() > 1 {
        return Err(Error::Unsupported(format!(
            "a symbolic shape value of rank {}",
            shape.len()
        )));
    }
    let _ = imp;
    let dims = shape.iter().map(|&d| PrimExpr::i64(d)).collect();
    Ok(Val {
        expr: Expr::shape(elems.clone()),
        si: StructInfo::tensor(dims, dtype),
        data: None,
        sym: Some(elems),
        pending: true,
    })
}

/// The static shape and elements of an input known at import time.
fn known(v: &Val) -> Option<(Vec<i64>, Vec<PrimExpr>)> {
    let shape = match &v.data {
        Some(d) => d.shape().to_vec(),
        None => v.static_shape()?,
    };
    Some((shape, v.elems()?))
}

/// Numpy broadcasting of two static shapes.
fn broadcast_shapes(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// Element `flat` of a broadcast operand of `shape` within `out`.
fn bcast_index(shape: &[i64], out: &[i64], flat: usize) -> usize {
    let mut idx = 0;
    let mut rem = flat;
    let mut strides = vec![0usize; out.len()];
    let mut s = 1usize;
    for i in (0..out.len()).rev() {
        strides[i] = s;
        s *= out[i] as usize;
    }
    let off = out.len() - shape.len();
    let mut src_stride = 1usize;
    let mut src_strides = vec![0usize; shape.len()];
    for i in (0..shape.len()).rev() {
        src_strides[i] = src_stride;
        src_stride *= shape[i] as usize;
    }
    for i in 0..out.len() {
        let c = rem / strides[i];
        rem %= strides[i];
        if i >= off && shape[i - off] != 1 {
            idx += c * src_strides[i - off];
        }
    }
    idx
}

/// Folds `node` if its inputs are known at import time and the op is one that shape
/// subgraphs use. `Ok(None)`: not folded, convert normally.
pub(crate) fn fold(imp: &mut Importer, node: &Node) -> Result<Option<Vec<Val>>> {
    // Shape and Size need only the input's shape.
    match node.op {
        "Shape" => {
            let x = node.input(0)?;
            let Some(s) = x.shape() else { return Ok(None) };
            let r = s.len() as i64;
            let clampi = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
            let start = clampi(if node.opset >= 15 {
                node.attr_i("start", 0)?
            } else {
                0
            });
            let end = if node.opset >= 15 {
                node.opt_i("end")?.map_or(r as usize, clampi)
            } else {
                r as usize
            };
            let dims = s[start..end.max(start)].to_vec();
            let n = dims.len() as i64;
            return Ok(Some(vec![from_elems(
                imp,
                &[n],
                dims,
                tir::DataType::INT64,
            )?]));
        }
        "Size" => {
            let x = node.input(0)?;
            let Some(s) = x.shape() else { return Ok(None) };
            return Ok(Some(vec![from_elems(
                imp,
                &[],
                vec![product(&s)],
                tir::DataType::INT64,
            )?]));
        }
        _ => {}
    }
    let foldable = matches!(
        node.op,
        "Gather"
            | "Concat"
            | "Unsqueeze"
            | "Squeeze"
            | "Reshape"
            | "Flatten"
            | "Identity"
            | "Cast"
            | "Add"
            | "Sub"
            | "Mul"
            | "Div"
            | "Mod"
            | "Neg"
            | "Abs"
            | "Equal"
            | "Less"
            | "Greater"
            | "Where"
            | "Max"
            | "Min"
            | "ReduceProd"
            | "ReduceSum"
            | "Slice"
            | "Range"
    );
    if !foldable {
        return Ok(None);
    }
    let mut ins = Vec::new();
    for i in 0..node.num_inputs() {
        match node.opt_input(i) {
            None => ins.push(None),
            Some(v) => match known(v) {
                Some(k) => ins.push(Some(k)),
                None => return Ok(None),
            },
        }
    }
    let Some((s0, e0)) = ins.first().cloned().flatten() else {
        return Ok(None);
    };
    let dt0 = dtype_of(node, node.input(0)?)?;
    // Symbolic values stay small; constants may be larger.
    let symbolic = ins
        .iter()
        .flatten()
        .any(|(_, e)| e.iter().any(|x| x.as_int().is_none()));
    let limit = if symbolic { SYM_LIMIT } else { FOLD_LIMIT };
    if ins.iter().flatten().any(|(_, e)| e.len() > limit) {
        return Ok(None);
    }
    let out = |imp: &mut Importer, shape: &[i64], e: Vec<PrimExpr>, dt| -> Result<_> {
        Ok(Some(vec![from_elems(imp, shape, e, dt)?]))
    };
    match node.op {
        "Identity" => out(imp, &s0, e0, dt0),
        "Cast" => {
            let code = node.attr_i("to", 0)?;
            node.ignore(&["saturate"]);
            let to = match crate::tensor::vm_dtype(code as i32) {
                Ok(t) => tir_dtype(t)?,
                Err(_) => return Ok(None),
            };
            if !(to.is_int() || to.is_uint()) {
                return Ok(None);
            }
            out(imp, &s0, e0, to)
        }
        "Neg" | "Abs" => {
            let e = e0
                .iter()
                .map(|x| {
                    let n = bin(BinaryOp::Sub, &PrimExpr::i64(0), x);
                    if node.op == "Neg" {
                        n
                    } else {
                        bin(BinaryOp::Max, x, &n)
                    }
                })
                .collect();
            out(imp, &s0, e, dt0)
        }
        "Add" | "Sub" | "Mul" | "Div" | "Mod" | "Max" | "Min" | "Equal" | "Less" | "Greater" => {
            if node.opset < 7 && node.has_attr("broadcast") {
                return Ok(None);
            }
            if matches!(node.op, "Max" | "Min") && ins.len() != 2 {
                return Ok(None);
            }
            let Some((s1, e1)) = ins.get(1).cloned().flatten() else {
                return Ok(None);
            };
            let Some(os) = broadcast_shapes(&s0, &s1) else {
                return Err(node.invalid(format!("shapes {s0:?} and {s1:?} do not broadcast")));
            };
            let Some(n) = fold_len(&os, limit) else {
                return Ok(None);
            };
            let cmp = |op: CmpOp, a: &PrimExpr, b: &PrimExpr| -> Option<PrimExpr> {
                let (a, b) = (a.as_int()?, b.as_int()?);
                let r = match op {
                    CmpOp::Eq => a == b,
                    CmpOp::Lt => a < b,
                    _ => a > b,
                };
                Some(PrimExpr::i64(r as i64))
            };
            let mut e = Vec::new();
            for i in 0..n {
                let a = &e0[bcast_index(&s0, &os, i)];
                let b = &e1[bcast_index(&s1, &os, i)];
                let v = match node.op {
                    "Add" => bin(BinaryOp::Add, a, b),
                    "Sub" => bin(BinaryOp::Sub, a, b),
                    "Mul" => bin(BinaryOp::Mul, a, b),
                    // ONNX integer division truncates, like TIR's Div.
                    "Div" => {
                        if b.as_int() == Some(0) {
                            return Ok(None);
                        }
                        bin(BinaryOp::Div, a, b)
                    }
                    "Mod" => {
                        if b.as_int() == Some(0) {
                            return Ok(None);
                        }
                        let op = if node.attr_i("fmod", 0)? != 0 {
                            BinaryOp::Mod
                        } else {
                            BinaryOp::FloorMod
                        };
                        bin(op, a, b)
                    }
                    "Max" => bin(BinaryOp::Max, a, b),
                    "Min" => bin(BinaryOp::Min, a, b),
                    "Equal" => match cmp(CmpOp::Eq, a, b) {
                        Some(v) => v,
                        None => return Ok(None),
                    },
                    "Less" => match cmp(CmpOp::Lt, a, b) {
                        Some(v) => v,
                        None => return Ok(None),
                    },
                    _ => match cmp(CmpOp::Gt, a, b) {
                        Some(v) => v,
                        None => return Ok(None),
                    },
                };
                e.push(v);
            }
            let dt = if matches!(node.op, "Equal" | "Less" | "Greater") {
                tir::DataType::BOOL
            } else {
                dt0
            };
            out(imp, &os, e, dt)
        }
        "Where" => {
            let (Some((s1, e1)), Some((s2, e2))) =
                (ins.get(1).cloned().flatten(), ins.get(2).cloned().flatten())
            else {
                return Ok(None);
            };
            let Some(os) = broadcast_shapes(&s0, &s1).and_then(|s| broadcast_shapes(&s, &s2))
            else {
                return Ok(None);
            };
            let Some(n) = fold_len(&os, limit) else {
                return Ok(None);
            };
            let mut e = Vec::new();
            for i in 0..n {
                let Some(c) = e0[bcast_index(&s0, &os, i)].as_int() else {
                    return Ok(None);
                };
                e.push(if c != 0 {
                    e1[bcast_index(&s1, &os, i)].clone()
                } else {
                    e2[bcast_index(&s2, &os, i)].clone()
                });
            }
            out(imp, &os, e, dtype_of(node, node.input(1)?)?)
        }
        "Gather" => {
            let Some((si, ei)) = ins.get(1).cloned().flatten() else {
                return Ok(None);
            };
            let axis = norm_axis(node, node.attr_i("axis", 0)?, s0.len().max(1))?;
            if s0.len() != 1 || axis != 0 {
                return Ok(None);
            }
            let n = s0[0];
            let mut e = Vec::new();
            for i in &ei {
                let Some(mut i) = i.as_int() else {
                    return Ok(None);
                };
                if i < 0 {
                    i += n;
                }
                if !(0..n).contains(&i) {
                    return Err(node.invalid(format!("index {i} is out of range for {n}")));
                }
                e.push(e0[i as usize].clone());
            }
            out(imp, &si, e, dt0)
        }
        "Concat" => {
            let axis = node.attr_i("axis", 0)?;
            if s0.len() != 1 || !(axis == 0 || axis == -1) {
                return Ok(None);
            }
            let mut e = Vec::new();
            for (s, x) in ins.iter().flatten() {
                if s.len() != 1 {
                    return Ok(None);
                }
                e.extend(x.iter().cloned());
            }
            let n = e.len() as i64;
            out(imp, &[n], e, dt0)
        }
        "Unsqueeze" | "Squeeze" | "Reshape" | "Flatten" => {
            let x = node.input(0)?;
            let Some(shape) = reshaped_static(node, x, &ins)? else {
                return Ok(None);
            };
            out(imp, &shape, e0, dt0)
        }
        "ReduceProd" | "ReduceSum" => {
            if s0.len() != 1 || node.num_inputs() > 1 || node.has_attr("axes") {
                return Ok(None);
            }
            let keep = node.attr_i("keepdims", 1)? != 0;
            node.ignore(&["noop_with_empty_axes"]);
            let v = if node.op == "ReduceProd" {
                product(&e0)
            } else {
                e0.iter()
                    .fold(PrimExpr::i64(0), |a, b| bin(BinaryOp::Add, &a, b))
            };
            let shape: &[i64] = if keep { &[1] } else { &[] };
            out(imp, shape, vec![v], dt0)
        }
        "Slice" => {
            if s0.len() != 1 {
                return Ok(None);
            }
            let Some(sl) = slice_params(node, &[s0[0]])? else {
                return Ok(None);
            };
            let (b, e, st) = (sl[0].1, sl[0].2, sl[0].3);
            let mut v = Vec::new();
            let mut i = b;
            while (st > 0 && i < e) || (st < 0 && i > e) {
                v.push(e0[i as usize].clone());
                i += st;
            }
            let n = v.len() as i64;
            out(imp, &[n], v, dt0)
        }
        "Range" => {
            let get = |k: usize| -> Option<i64> { ins.get(k)?.as_ref()?.1.first()?.as_int() };
            let (Some(a), Some(b), Some(d)) = (get(0), get(1), get(2)) else {
                return Ok(None);
            };
            if d == 0 {
                return Err(node.invalid("delta is 0"));
            }
            let n = ((b - a) as f64 / d as f64).ceil().max(0.0) as i64;
            if n as usize > FOLD_LIMIT {
                return Ok(None);
            }
            let e = (0..n).map(|i| PrimExpr::i64(a + i * d)).collect();
            out(imp, &[n], e, dt0)
        }
        _ => Ok(None),
    }
}

/// The static output shape of Unsqueeze/Squeeze/Reshape/Flatten of a value whose shape is
/// static, from the folded inputs.
fn reshaped_static(
    node: &Node,
    x: &Val,
    ins: &[Option<(Vec<i64>, Vec<PrimExpr>)>],
) -> Result<Option<Vec<i64>>> {
    let Some(s) = x
        .data
        .as_ref()
        .map(|d| d.shape().to_vec())
        .or(x.static_shape())
    else {
        return Ok(None);
    };
    let dims: Vec<PrimExpr> = s.iter().map(|&d| PrimExpr::i64(d)).collect();
    let out = match node.op {
        "Unsqueeze" => unsqueeze_shape(node, &dims)?,
        "Squeeze" => squeeze_shape(node, &dims)?,
        "Flatten" => {
            let axis = flatten_axis(node, s.len())?;
            vec![product(&dims[..axis]), product(&dims[axis..])]
        }
        _ => {
            let Some(target) = reshape_target(node, ins.get(1).cloned().flatten())? else {
                return Ok(None);
            };
            reshape_dims(node, &dims, &target)?
        }
    };
    Ok(out.iter().map(PrimExpr::as_int).collect())
}

/// Axes of Squeeze/Unsqueeze: an attribute before opset 13, an input after.
fn axes_of(node: &Node) -> Result<Option<Vec<i64>>> {
    if node.opset < 13 {
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

fn unsqueeze_shape(node: &Node, dims: &[PrimExpr]) -> Result<Vec<PrimExpr>> {
    let axes = axes_of(node)?.ok_or_else(|| node.invalid("Unsqueeze without axes"))?;
    let r = dims.len() + axes.len();
    let mut ax: Vec<usize> = axes
        .iter()
        .map(|&a| norm_axis(node, a, r))
        .collect::<Result<_>>()?;
    ax.sort_unstable();
    ax.dedup();
    if ax.len() != axes.len() {
        return Err(node.invalid("repeated axes"));
    }
    let mut out = Vec::with_capacity(r);
    let mut src = dims.iter();
    for i in 0..r {
        if ax.contains(&i) {
            out.push(PrimExpr::i64(1));
        } else if let Some(d) = src.next() {
            out.push(d.clone());
        }
    }
    Ok(out)
}

fn squeeze_shape(node: &Node, dims: &[PrimExpr]) -> Result<Vec<PrimExpr>> {
    let r = dims.len();
    let ax: Vec<usize> = match axes_of(node)? {
        Some(a) if !a.is_empty() => a
            .iter()
            .map(|&a| norm_axis(node, a, r))
            .collect::<Result<_>>()?,
        _ => {
            let mut v = Vec::new();
            for (i, d) in dims.iter().enumerate() {
                match d.as_int() {
                    Some(1) => v.push(i),
                    Some(_) => {}
                    None => {
                        return Err(
                            node.unsupported("Squeeze without axes of a symbolic dimension")
                        );
                    }
                }
            }
            v
        }
    };
    for &a in &ax {
        if dims[a].as_int().is_some_and(|d| d != 1) {
            return Err(node.invalid(format!(
                "axis {a} has size {} and cannot be squeezed",
                dims[a]
            )));
        }
    }
    Ok(dims
        .iter()
        .enumerate()
        .filter(|(i, _)| !ax.contains(i))
        .map(|(_, d)| d.clone())
        .collect())
}

/// The target of Reshape (the `shape` attribute before opset 5, the input after).
fn reshape_target(
    node: &Node,
    input: Option<(Vec<i64>, Vec<PrimExpr>)>,
) -> Result<Option<Vec<PrimExpr>>> {
    if node.opset < 5 {
        node.ignore(&["consumed_inputs"]);
        return Ok(node
            .attr_ints("shape")?
            .map(|v| v.into_iter().map(PrimExpr::i64).collect()));
    }
    Ok(input.map(|(_, e)| e))
}

/// ONNX Reshape: `0` copies the input dimension (unless `allowzero`), `-1` is inferred.
fn reshape_dims(node: &Node, dims: &[PrimExpr], target: &[PrimExpr]) -> Result<Vec<PrimExpr>> {
    let allowzero = node.opset >= 14 && node.attr_i("allowzero", 0)? != 0;
    let mut out: Vec<PrimExpr> = Vec::with_capacity(target.len());
    let mut infer = None;
    for (i, t) in target.iter().enumerate() {
        match t.as_int() {
            Some(0) if !allowzero => out.push(
                dims.get(i)
                    .cloned()
                    .ok_or_else(|| node.invalid("0 in the shape beyond the input's rank"))?,
            ),
            Some(-1) => {
                if infer.replace(i).is_some() {
                    return Err(node.invalid("more than one -1 in the shape"));
                }
                out.push(PrimExpr::i64(1));
            }
            Some(v) if v < -1 => return Err(node.invalid(format!("dimension {v} in the shape"))),
            _ => out.push(t.clone()),
        }
    }
    if let Some(i) = infer {
        let known = product(&out);
        out[i] = bin(BinaryOp::FloorDiv, &product(dims), &known);
    }
    Ok(out)
}

pub(crate) fn constant_node(node: &Node) -> Result<Val> {
    if let Some(t) = node.attr_t("value")? {
        return constant(to_tensor(t, None).map_err(|e| node.invalid(e))?);
    }
    let mk = |r: std::result::Result<Tensor, vm::Error>| constant(r.map_err(|e| node.invalid(e))?);
    if let Some(f) = node.opt_f("value_float")? {
        return mk(Ok(Tensor::scalar(f)));
    }
    if let Some(v) = node.attr_floats("value_floats")? {
        return mk(Tensor::from_slice(&[v.len() as i64], &v));
    }
    if let Some(i) = node.opt_i("value_int")? {
        return mk(Ok(Tensor::scalar(i)));
    }
    if let Some(v) = node.attr_ints("value_ints")? {
        return mk(Tensor::from_slice(&[v.len() as i64], &v));
    }
    if node.has_attr("sparse_value")
        || node.has_attr("value_string")
        || node.has_attr("value_strings")
    {
        node.ignore(&["sparse_value", "value_string", "value_strings"]);
        return Err(node.unsupported("sparse or string constants"));
    }
    Err(node.invalid("no value"))
}

fn reshape_to(imp: &mut Importer, x: &Val, dims: Vec<PrimExpr>) -> Result<Val> {
    imp.op(
        "relax.reshape",
        vec![x.expr.clone(), shape_expr(dims)],
        Attrs::new(),
    )
}

/// The most dimensions a shape read at run time may have: numpy's `NPY_MAXDIMS`. Each becomes a
/// symbolic variable, so the length of the input must be bounded before they are made.
const MAX_RUNTIME_RANK: i64 = 64;

/// The elements of a 1-D shape-like input: known at import time, or read at run time into
/// fresh symbolic dimensions (`R.match_cast` of `R.tensor_to_shape`).
fn shape_operand(imp: &mut Importer, node: &Node, v: &Val) -> Result<Vec<PrimExpr>> {
    if let Some(e) = v.elems() {
        return Ok(e);
    }
    let n = match v.static_shape().as_deref() {
        Some([n]) => *n,
        _ => return Err(node.unsupported("a shape input of unknown length")),
    };
    if !(0..=MAX_RUNTIME_RANK).contains(&n) {
        return Err(node.unsupported(format!(
            "a shape input of {n} elements (a shape read at run time has at most {MAX_RUNTIME_RANK} dimensions)"
        )));
    }
    let v64 = if v.dtype() != Some(tir::DataType::INT64) {
        imp.op(
            "relax.astype",
            vec![v.expr.clone()],
            attrs(&[("dtype", AttrValue::DType(tir::DataType::INT64))]),
        )?
    } else {
        v.clone()
    };
    let s = imp.op("relax.tensor_to_shape", vec![v64.expr], Attrs::new())?;
    let dims: Vec<PrimExpr> = (0..n).map(|_| imp.fresh_dim("s").into()).collect();
    imp.bb
        .match_cast(s.expr, StructInfo::shape(dims.clone()))
        .map_err(|e| imp.relax_error(e))?;
    Ok(dims)
}

pub(crate) fn reshape(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let dims = shape_of(node, x)?;
    let input = node.opt_input(1).and_then(known);
    let target = match reshape_target(node, input)? {
        Some(t) => t,
        None => {
            return Err(node
                .unsupported("a target shape computed at run time (0 and -1 cannot be resolved)"));
        }
    };
    let out = reshape_dims(node, &dims, &target)?;
    reshape_to(imp, x, out)
}

pub(crate) fn flatten(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let axis = flatten_axis(node, rank(node, x)?)?;
    super::nn::flatten2d(imp, node, x, axis)
}

/// Flatten's `axis` for an input of rank `r`: in `[-r, r]`, a negative one counting from the
/// end of the input's axes (`-1` keeps the last axis apart), not from the end of `r + 1`
/// positions.
fn flatten_axis(node: &Node, r: usize) -> Result<usize> {
    let axis = node.attr_i("axis", 1)?;
    let n = r as i64;
    if axis < -n || axis > n {
        return Err(node.invalid(format!("axis {axis} is out of range for rank {r}")));
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

pub(crate) fn transpose(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let perm = match node.attr_ints("perm")? {
        Some(p) => p,
        None => (0..r as i64).rev().collect(),
    };
    imp.op(
        "relax.permute_dims",
        vec![x.expr.clone()],
        attrs(&[("axes", ints(&perm))]),
    )
}

pub(crate) fn squeeze(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let out = squeeze_shape(node, &shape_of(node, x)?)?;
    reshape_to(imp, x, out)
}

pub(crate) fn unsqueeze(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let out = unsqueeze_shape(node, &shape_of(node, x)?)?;
    reshape_to(imp, x, out)
}

pub(crate) fn concat(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let axis = node
        .opt_i("axis")?
        .or(if node.opset < 4 { Some(1) } else { None })
        .ok_or_else(|| node.invalid("attribute `axis` is missing"))?;
    let axis = norm_axis(node, axis, rank(node, x)?)?;
    let items: Vec<Expr> = (0..node.num_inputs())
        .map(|i| node.input(i).map(|v| v.expr.clone()))
        .collect::<Result<_>>()?;
    imp.op(
        "relax.concat",
        vec![Expr::tuple(items)],
        attrs(&[("axis", AttrValue::Int(axis as i64))]),
    )
}

pub(crate) fn split(imp: &mut Importer, node: &Node) -> Result<Vec<Val>> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let axis = norm_axis(node, node.attr_i("axis", 0)?, r)?;
    let dim = shape_of(node, x)?[axis]
        .as_int()
        .ok_or_else(|| node.unsupported("splitting a symbolic dimension"))?;
    let sizes = if node.opset < 13 {
        node.attr_ints("split")?
    } else {
        match node.opt_input(1) {
            None => None,
            Some(v) => Some(
                v.ints()
                    .ok_or_else(|| node.unsupported("split sizes computed at run time"))?,
            ),
        }
    };
    let n_out = node.proto.output.len();
    if node.opset >= 18
        && let Some(n) = node.opt_i("num_outputs")?
        && usize::try_from(n) != Ok(n_out)
    {
        return Err(node.invalid(format!(
            "num_outputs is {n} but the node has {n_out} outputs"
        )));
    }
    let sizes = match sizes {
        Some(s) => s,
        None => {
            if n_out == 0 {
                return Err(node.invalid("no outputs"));
            }
            let chunk = (dim + n_out as i64 - 1) / n_out as i64;
            (0..n_out as i64)
                .map(|i| (dim - i * chunk).clamp(0, chunk))
                .collect()
        }
    };
    if sizes.is_empty() || sizes.iter().any(|&s| s < 0) {
        return Err(node.invalid(format!(
            "split sizes {sizes:?}: there must be at least one and none negative"
        )));
    }
    if sizes.iter().map(|&s| i128::from(s)).sum::<i128>() != i128::from(dim) {
        return Err(node.invalid(format!("split sizes {sizes:?} do not add up to {dim}")));
    }
    if sizes.len() == 1 {
        // One part is the whole input (Relax's split into one part is not a tuple).
        return Ok(vec![x.clone()]);
    }
    let mut indices = Vec::new();
    let mut acc = 0;
    for s in &sizes[..sizes.len() - 1] {
        acc += s;
        indices.push(acc);
    }
    let t = imp.op(
        "relax.split",
        vec![x.expr.clone()],
        attrs(&[
            ("indices_or_sections", ints(&indices)),
            ("axis", AttrValue::Int(axis as i64)),
        ]),
    )?;
    (0..sizes.len())
        .map(|i| imp.emit(Expr::new(ExprKind::TupleGetItem(t.expr.clone(), i))))
        .collect()
}

/// One sliced axis: `(axis, begin, end, step)`.
type SliceAxis = (usize, i64, i64, i64);

/// Normalized [`SliceAxis`] of each sliced axis, against static `dims`.
fn slice_params(node: &Node, dims: &[i64]) -> Result<Option<Vec<SliceAxis>>> {
    let r = dims.len();
    let (starts, ends, axes, steps) = if node.opset < 10 {
        let s = node
            .attr_ints("starts")?
            .ok_or_else(|| node.invalid("attribute `starts` is missing"))?;
        let e = node
            .attr_ints("ends")?
            .ok_or_else(|| node.invalid("attribute `ends` is missing"))?;
        (s, e, node.attr_ints("axes")?, None)
    } else {
        let get = |i: usize| -> Result<Option<Vec<i64>>> {
            match node.opt_input(i) {
                None => Ok(None),
                Some(v) => v
                    .ints()
                    .map(Some)
                    .ok_or_else(|| node.unsupported("slice bounds computed at run time")),
            }
        };
        let (Some(s), Some(e)) = (get(1)?, get(2)?) else {
            return Err(node.invalid("starts and ends are required"));
        };
        (s, e, get(3)?, get(4)?)
    };
    let axes = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err(node.invalid("starts, ends, axes and steps differ in length"));
    }
    let mut out = Vec::new();
    for i in 0..starts.len() {
        let a = norm_axis(node, axes[i], r)?;
        let d = dims[a];
        let st = steps[i];
        if st == 0 {
            return Err(node.invalid("a step of 0"));
        }
        let norm = |v: i64| if v < 0 { v.saturating_add(d) } else { v };
        let (b, e) = if d == 0 {
            // Nothing to take in either direction (a backward slice would clamp to `0..=-1`).
            (0, 0)
        } else if st > 0 {
            (norm(starts[i]).clamp(0, d), norm(ends[i]).clamp(0, d))
        } else if ends[i] == i64::from(i32::MAX) || ends[i] == i64::MAX {
            // The largest int32 or int64 end means "to the end" whichever the direction (as
            // Python's omitted end, and as onnxruntime reads it): for a backward slice, down
            // to index 0 inclusive rather than clamped to the last index.
            (norm(starts[i]).clamp(0, d - 1), -1)
        } else {
            (
                norm(starts[i]).clamp(0, d - 1),
                norm(ends[i]).clamp(-1, d - 1),
            )
        };
        out.push((a, b, e, st));
    }
    Ok(Some(out))
}

pub(crate) fn slice(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let s = shape_of(node, x)?;
    // Only the sliced axes need static sizes; others may be symbolic (a placeholder size
    // that no bound refers to).
    let dims: Vec<i64> = s.iter().map(|d| d.as_int().unwrap_or(i64::MAX)).collect();
    let Some(params) = slice_params(node, &dims)? else {
        return Err(node.unsupported("slice bounds computed at run time"));
    };
    if params.iter().any(|p| dims[p.0] == i64::MAX) {
        return Err(node.unsupported("slicing a symbolic dimension"));
    }
    let mut axes = Vec::new();
    let mut begin = Vec::new();
    let mut end = Vec::new();
    let mut strides = Vec::new();
    for (a, b, e, st) in params {
        let len = if st > 0 {
            ((e - b).max(0) + st - 1) / st
        } else {
            ((b - e).max(0) + (-st) - 1) / (-st)
        };
        axes.push(a as i64);
        begin.push(b);
        // An exclusive end that Relax reads without wrapping: the last element taken plus
        // one step, which for a backward slice reaching index 0 is below -size.
        let last = b + (len - 1).max(0) * st;
        end.push(if len == 0 {
            b
        } else if st < 0 && last + st < 0 {
            -(dims[a] + 1)
        } else {
            last + st
        });
        strides.push(st);
    }
    let tup = |v: &[i64]| Expr::tuple(v.iter().map(|&i| Expr::prim(PrimExpr::i64(i))).collect());
    imp.op(
        "relax.strided_slice",
        vec![
            x.expr.clone(),
            tup(&axes),
            tup(&begin),
            tup(&end),
            tup(&strides),
        ],
        attrs(&[("assume_inbound", AttrValue::Bool(false))]),
    )
}

pub(crate) fn gather(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let axis = norm_axis(node, node.attr_i("axis", 0)?, r)?;
    let ind = node.input(1)?;
    let dim = shape_of(node, x)?[axis].as_int();
    // Known indices are normalized here; others count from the end at run time when negative
    // (ONNX allows negative indices), and any still outside the axis is a run-time error, as
    // in onnxruntime. On an axis of unknown extent they wrap instead.
    let (ind, mode) = match (ind.ints(), dim, &ind.data) {
        (Some(v), Some(d), Some(t)) => {
            let v: Vec<i64> = v.iter().map(|&i| if i < 0 { i + d } else { i }).collect();
            if let Some(bad) = v.iter().find(|&&i| !(0..d).contains(&i)) {
                return Err(node.invalid(format!("index {bad} is out of range for {d}")));
            }
            (int_tensor(t.shape(), &v)?, "fast")
        }
        (_, Some(d), _) => (from_end(imp, node, ind, d)?, "fast"),
        _ => (ind.clone(), "wrap"),
    };
    imp.op(
        "relax.take",
        vec![x.expr.clone(), ind.expr.clone()],
        attrs(&[
            ("axis", AttrValue::Int(axis as i64)),
            ("mode", AttrValue::Str(mode.into())),
        ]),
    )
}

pub(crate) fn gather_elements(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let axis = norm_axis(node, node.attr_i("axis", 0)?, rank(node, x)?)?;
    let ind = node.input(1)?;
    // Relax's gather_elements takes indices in `[0, extent)`; ONNX's count from the end when
    // negative. On an axis of unknown extent a negative index is a run-time error.
    let ind = match shape_of(node, x)?[axis].as_int() {
        Some(d) => from_end(imp, node, ind, d)?,
        None => ind.clone(),
    };
    imp.op(
        "relax.gather_elements",
        vec![x.expr.clone(), ind.expr.clone()],
        attrs(&[("axis", AttrValue::Int(axis as i64))]),
    )
}

/// `where(i < 0, i + d, i)`: ONNX's negative indices into an axis of `d` elements counted
/// from its end. An index still outside `[0, d)` stays outside, for the gather to reject.
pub(crate) fn from_end(imp: &mut Importer, node: &Node, ind: &Val, d: i64) -> Result<Val> {
    let dt = dtype_of(node, ind)?;
    let neg = imp.op0("relax.less", &[ind, &scalar(0.0, dt)?])?;
    let shifted = imp.op0("relax.add", &[ind, &scalar(d as f64, dt)?])?;
    imp.op0("relax.where", &[&neg, &shifted, ind])
}

pub(crate) fn expand(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let xs = shape_of(node, x)?;
    let target = shape_operand(imp, node, node.input(1)?)?;
    // Bidirectional broadcasting of the input's shape and the target.
    let n = xs.len().max(target.len());
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let a = (i + xs.len()).checked_sub(n).map(|j| xs[j].clone());
        let b = (i + target.len()).checked_sub(n).map(|j| target[j].clone());
        out.push(match (a, b) {
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (Some(a), Some(b)) => match (a.as_int(), b.as_int()) {
                (Some(1), _) => b,
                (_, Some(1)) => a,
                // A target dimension read at run time must be 1 or the input's size; the
                // result is the input's size either way.
                (Some(_), None) => a,
                (Some(x), Some(y)) if x == y => a,
                (Some(x), Some(y)) => {
                    return Err(node.invalid(format!("dimensions {x} and {y} do not broadcast")));
                }
                _ => bin(BinaryOp::Max, &a, &b),
            },
            (None, None) => PrimExpr::i64(1),
        });
    }
    imp.op(
        "relax.broadcast_to",
        vec![x.expr.clone(), shape_expr(out)],
        Attrs::new(),
    )
}

pub(crate) fn tile(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let reps = node
        .input(1)?
        .ints()
        .ok_or_else(|| node.unsupported("repeats computed at run time"))?;
    imp.op(
        "relax.tile",
        vec![x.expr.clone()],
        attrs(&[("repeats", ints(&reps))]),
    )
}

pub(crate) fn pad(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let r = rank(node, x)?;
    let mode = or_str(node.attr_s("mode")?, "constant");
    let dt = dtype_of(node, x)?;
    let (pads, value) = if node.opset < 11 {
        let pads = node
            .attr_ints("pads")?
            .or(node.attr_ints("paddings")?)
            .ok_or_else(|| node.invalid("attribute `pads` is missing"))?;
        (pads, node.attr_f("value", 0.0)? as f64)
    } else {
        let pads = node
            .input(1)?
            .ints()
            .ok_or_else(|| node.unsupported("pads computed at run time"))?;
        let value = match node.opt_input(2) {
            None => 0.0,
            Some(v) => v
                .floats()
                .and_then(|f| f.first().copied())
                .ok_or_else(|| node.unsupported("a pad value computed at run time"))?,
        };
        (pads, value)
    };
    // Opset 18 pads only the listed axes.
    let axes: Vec<usize> = match node.opt_input(3) {
        Some(a) => a
            .ints()
            .ok_or_else(|| node.unsupported("axes computed at run time"))?
            .iter()
            .map(|&a| norm_axis(node, a, r))
            .collect::<Result<_>>()?,
        None => (0..r).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return Err(node.invalid(format!("{} pads for {} axes", pads.len(), axes.len())));
    }
    let k = axes.len();
    let mut before = vec![0; r];
    let mut after = vec![0; r];
    for (i, &a) in axes.iter().enumerate() {
        before[a] = pads[i];
        after[a] = pads[k + i];
    }
    if before.iter().chain(&after).any(|&p| p < 0) {
        return Err(node.unsupported("negative pads"));
    }
    match mode.as_str() {
        "constant" => {
            let pw: Vec<i64> = (0..r).flat_map(|i| [before[i], after[i]]).collect();
            if (dt.is_int() || dt.is_uint()) && value != 0.0 {
                return Err(node.unsupported("a non-zero pad value for an integer tensor"));
            }
            imp.op(
                "relax.nn.pad",
                vec![x.expr.clone()],
                attrs(&[
                    ("pad_width", ints(&pw)),
                    ("pad_value", AttrValue::Float(value)),
                    ("pad_mode", AttrValue::Str("constant".into())),
                ]),
            )
        }
        "reflect" | "edge" | "wrap" => {
            // Relax's pad modes (TOPI's): edge is `replicate`, wrap is `circular`. Where the
            // extents are known, the pads onnxruntime rejects are import errors; for a symbolic
            // axis the kernel's bounds check stops a reflect pad as long as the axis.
            let relax_mode = match mode.as_str() {
                "edge" => "replicate",
                "wrap" => "circular",
                _ => "reflect",
            };
            if let Some(s) = x.static_shape() {
                for a in 0..r {
                    let (b, e, n) = (before[a], after[a], s[a]);
                    if b == 0 && e == 0 {
                        continue;
                    }
                    if n == 0 {
                        // No element to repeat, reflect or wrap around (onnxruntime rejects it too).
                        return Err(node.invalid(format!(
                            "{mode} padding of axis {a}, which has no elements"
                        )));
                    }
                    if mode == "reflect" && b.max(e) >= n {
                        return Err(node.invalid(format!(
                            "reflect padding of ({b}, {e}) along axis {a} of extent {n}: each pad must be less than the extent (as onnxruntime requires)"
                        )));
                    }
                }
            }
            let pw: Vec<i64> = (0..r).flat_map(|i| [before[i], after[i]]).collect();
            imp.op(
                "relax.nn.pad",
                vec![x.expr.clone()],
                attrs(&[
                    ("pad_width", ints(&pw)),
                    ("pad_value", AttrValue::Float(0.0)),
                    ("pad_mode", AttrValue::Str(relax_mode.into())),
                ]),
            )
        }
        other => Err(node.unsupported(format!("mode = \"{other}\""))),
    }
}

pub(crate) fn shape(imp: &mut Importer, node: &Node) -> Result<Val> {
    // Reached only for inputs of unknown rank ([`fold`] handles the rest).
    let x = node.input(0)?;
    node.ignore(&["start", "end"]);
    if node.has_attr("start") || node.has_attr("end") {
        return Err(node.unsupported("start/end on an input of unknown rank"));
    }
    let s = imp.op0("relax.shape_of", &[x])?;
    imp.op("relax.shape_to_tensor", vec![s.expr], Attrs::new())
}

pub(crate) fn size(_imp: &mut Importer, node: &Node) -> Result<Val> {
    Err(node.unsupported("Size of an input of unknown rank"))
}

pub(crate) fn constant_of_shape(imp: &mut Importer, node: &Node) -> Result<Val> {
    let value = match node.attr_t("value")? {
        Some(t) => to_tensor(t, None).map_err(|e| node.invalid(e))?,
        None => Tensor::scalar(0f32),
    };
    if value.numel() != 1 {
        return Err(node.invalid("value must have one element"));
    }
    let dims = shape_operand(imp, node, node.input(0)?)?;
    let fill = constant(
        value
            .view(&[], value.dtype())
            .map_err(|e| node.invalid(e))?,
    )?;
    if let Some(s) = dims
        .iter()
        .map(PrimExpr::as_int)
        .collect::<Option<Vec<i64>>>()
    {
        let nbytes = vm::tensor::checked_nbytes(&s, value.dtype()).unwrap_or(usize::MAX);
        if nbytes <= CONSTANT_FILL_BYTES && imp.spend_constant_budget(nbytes) {
            let bytes = value.to_bytes();
            let mut t = Tensor::zeros(&s, value.dtype()).map_err(|e| node.invalid(e))?;
            if bytes.iter().any(|&b| b != 0) {
                // Doubling copies: a few large memcpys instead of one per element.
                let buf = t.bytes_mut().map_err(|e| node.invalid(e))?;
                let k = bytes.len().min(buf.len());
                buf[..k].copy_from_slice(&bytes[..k]);
                let mut filled = k;
                while filled < buf.len() {
                    let n = filled.min(buf.len() - filled);
                    buf.copy_within(..n, filled);
                    filled += n;
                }
            }
            return constant(t);
        }
    }
    // Large results are filled at run time rather than stored in the module.
    let dt = tir_dtype(value.dtype())?;
    imp.op(
        "relax.full",
        vec![shape_expr(dims), fill.expr],
        attrs(&[("dtype", AttrValue::DType(dt))]),
    )
}

pub(crate) fn range(imp: &mut Importer, node: &Node) -> Result<Val> {
    let (a, b, d) = (node.input(0)?, node.input(1)?, node.input(2)?);
    let dt = dtype_of(node, a)?;
    let (Some(fa), Some(fb), Some(fd)) = (a.floats(), b.floats(), d.floats()) else {
        return Err(node.unsupported("bounds computed at run time"));
    };
    let ([fa], [fb], [fd]) = (&fa[..], &fb[..], &fd[..]) else {
        return Err(node.invalid(format!(
            "start, limit and delta must be scalars, got {}, {} and {} elements",
            fa.len(),
            fb.len(),
            fd.len()
        )));
    };
    let (fa, fb, fd) = (*fa, *fb, *fd);
    if fd == 0.0 {
        return Err(node.invalid("delta is 0"));
    }
    let n = ((fb - fa) / fd).ceil().max(0.0) as i64;
    let vals: Vec<f64> = (0..n).map(|i| fa + i as f64 * fd).collect();
    let vdt = crate::tensor::vm_of(dt)?;
    let t = match dt.to_string().as_str() {
        "float32" => Tensor::from_slice(&[n], &vals.iter().map(|&v| v as f32).collect::<Vec<_>>()),
        "float64" => Tensor::from_slice(&[n], &vals),
        "int32" => Tensor::from_slice(&[n], &vals.iter().map(|&v| v as i32).collect::<Vec<_>>()),
        "int64" => Tensor::from_slice(&[n], &vals.iter().map(|&v| v as i64).collect::<Vec<_>>()),
        _ => return Err(node.unsupported(format!("Range of {vdt}"))),
    };
    let _ = imp;
    constant(t.map_err(|e| node.invalid(e))?)
}

pub(crate) fn trilu(imp: &mut Importer, node: &Node) -> Result<Val> {
    let x = node.input(0)?;
    let upper = node.attr_i("upper", 1)? != 0;
    let k = match node.opt_input(1) {
        None => 0,
        Some(v) => v
            .ints()
            .and_then(|v| v.first().copied())
            .ok_or_else(|| node.unsupported("k computed at run time"))?,
    };
    imp.op(
        if upper { "relax.triu" } else { "relax.tril" },
        vec![x.expr.clone(), Expr::prim(PrimExpr::i64(k))],
        Attrs::new(),
    )
}
