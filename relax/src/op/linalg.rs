//! Linear algebra: `R.matmul` in all its forms (vector, matrix, batched with broadcasting),
//! `R.outer`, `R.einsum`.

use std::collections::BTreeMap;

use tir::PrimExpr;

use crate::Result;
use crate::ir::{Call, StructInfo};
use crate::op::binary::{broadcast_shapes, common_dtype};
use crate::op::common::{
    TensorInfo, attr_opt_dtype, attr_str, check_arity, err, tensor_arg, tuple_arg,
};
use crate::struct_info_ops::{const_value, prove_equal};

/// `R.matmul(x1, x2, out_dtype)`, following TVM's `InferStructInfoMatmul`: a 1-D `x1` gets a
/// leading 1 (removed from the result), a 1-D `x2` a trailing 1; batch dimensions broadcast.
pub(super) fn infer_matmul(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x1 = tensor_arg(call, args, 0)?;
    let x2 = tensor_arg(call, args, 1)?;
    let out_dtype = match attr_opt_dtype(call, "out_dtype")? {
        Some(d) => Some(d),
        None => common_dtype(call, x1.dtype, x2.dtype)?,
    };
    let vdevice = x1.vdevice.clone().or(x2.vdevice.clone());
    let out = TensorInfo {
        shape: None,
        dtype: out_dtype,
        ndim: -1,
        vdevice,
    };
    let (Some(n1), Some(n2)) = (x1.ndim(), x2.ndim()) else {
        return Ok(out.with_ndim(-1, out_dtype));
    };
    if n1 == 0 || n2 == 0 {
        return Err(err(
            call,
            format!("operands must have at least one dimension, got ranks {n1} and {n2}"),
        ));
    }
    let prepended = n1 == 1;
    let appended = n2 == 1;
    let (e1, e2) = (n1.max(2), n2.max(2));
    let out_ndim = e1.max(e2) - prepended as usize - appended as usize;
    let (Some(s1), Some(s2)) = (&x1.shape, &x2.shape) else {
        return Ok(out.with_ndim(out_ndim as i64, out_dtype));
    };
    let mut s1 = s1.clone();
    let mut s2 = s2.clone();
    if prepended {
        s1.insert(0, PrimExpr::i64(1));
    }
    if appended {
        s2.push(PrimExpr::i64(1));
    }
    let (k1, k2) = (&s1[s1.len() - 1], &s2[s2.len() - 2]);
    if let (Some(a), Some(b)) = (const_value(k1), const_value(k2))
        && a != b
    {
        return Err(err(
            call,
            format!("reduction dimensions differ: x1 has {a} columns but x2 has {b} rows"),
        ));
    }
    let batch = broadcast_shapes(call, &s1[..s1.len() - 2], &s2[..s2.len() - 2])?;
    let Some(mut shape) = batch else {
        return Ok(out.with_ndim(out_ndim as i64, out_dtype));
    };
    if !prepended {
        shape.push(s1[s1.len() - 2].clone());
    }
    if !appended {
        shape.push(s2[s2.len() - 1].clone());
    }
    Ok(out.with_shape(shape, out_dtype))
}

/// `R.outer(x1, x2)` of two vectors.
pub(super) fn infer_outer(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 2, 2)?;
    let x1 = tensor_arg(call, args, 0)?;
    let x2 = tensor_arg(call, args, 1)?;
    for (i, t) in [&x1, &x2].into_iter().enumerate() {
        if t.ndim >= 0 && t.ndim != 1 {
            return Err(err(
                call,
                format!("x{} must be 1-D, got rank {}", i + 1, t.ndim),
            ));
        }
    }
    let dtype = common_dtype(call, x1.dtype, x2.dtype)?;
    Ok(match (&x1.shape, &x2.shape) {
        (Some(a), Some(b)) => x1.with_shape(vec![a[0].clone(), b[0].clone()], dtype),
        _ => x1.with_ndim(2, dtype),
    })
}

/// `R.einsum((a, b, ...), subscripts="ij,jk->ik")` without ellipses.
pub(super) fn infer_einsum(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    check_arity(call, args, 1, 1)?;
    let fields = tuple_arg(call, args, 0)?;
    let subscripts = attr_str(call, "subscripts")?;
    let (lhs, rhs) = match subscripts.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.trim().to_string())),
        None => (subscripts.clone(), None),
    };
    let inputs: Vec<&str> = lhs.split(',').map(str::trim).collect();
    if inputs.len() != fields.len() {
        return Err(err(
            call,
            format!(
                "subscripts \"{subscripts}\" name {} operands, got {}",
                inputs.len(),
                fields.len()
            ),
        ));
    }
    if subscripts.contains("...") {
        return Err(err(call, "ellipsis in subscripts is not supported"));
    }
    let mut dims: BTreeMap<char, PrimExpr> = BTreeMap::new();
    let mut counts: BTreeMap<char, usize> = BTreeMap::new();
    let mut dtype = None;
    let mut all_known = true;
    for (i, (sub, f)) in inputs.iter().zip(fields).enumerate() {
        let StructInfo::Tensor {
            shape,
            dtype: d,
            ndim,
            ..
        } = f
        else {
            return Err(err(call, format!("operand {i} must be a tensor")));
        };
        dtype = dtype.or(*d);
        if *ndim >= 0 && *ndim as usize != sub.chars().count() {
            return Err(err(
                call,
                format!(
                    "operand {i} has rank {ndim} but subscript \"{sub}\" has {}",
                    sub.len()
                ),
            ));
        }
        for (k, c) in sub.chars().enumerate() {
            *counts.entry(c).or_insert(0) += 1;
            match shape {
                Some(s) => {
                    let d = &s[k];
                    match dims.get(&c) {
                        Some(prev) if const_value(prev) == Some(1) => {
                            dims.insert(c, d.clone());
                        }
                        Some(prev) => {
                            if let (Some(a), Some(b)) = (const_value(prev), const_value(d))
                                && a != b
                                && b != 1
                            {
                                return Err(err(
                                    call,
                                    format!("label '{c}' has sizes {a} and {b}"),
                                ));
                            }
                            let _ = prove_equal(prev, d);
                        }
                        None => {
                            dims.insert(c, d.clone());
                        }
                    }
                }
                None => all_known = false,
            }
        }
    }
    let out_labels: Vec<char> = match rhs {
        Some(r) => r.chars().collect(),
        None => counts
            .iter()
            .filter(|(_, n)| **n == 1)
            .map(|(c, _)| *c)
            .collect(),
    };
    let first = match fields.first() {
        Some(StructInfo::Tensor { vdevice, .. }) => vdevice.clone(),
        _ => None,
    };
    if !all_known {
        return Ok(StructInfo::Tensor {
            shape: None,
            dtype,
            ndim: out_labels.len() as i64,
            vdevice: first,
        });
    }
    let mut shape = Vec::new();
    for c in out_labels {
        shape.push(
            dims.get(&c)
                .cloned()
                .ok_or_else(|| err(call, format!("output label '{c}' is not an input label")))?,
        );
    }
    Ok(StructInfo::Tensor {
        ndim: shape.len() as i64,
        shape: Some(shape),
        dtype,
        vdevice: first,
    })
}
