//! `R.quantize` and `R.dequantize`, as TVM's legalization writes them: a rank-0 constant
//! scale or zero point is inlined as a literal, a tensor of one element is read at its only
//! index, and a 1-D one at the element's index along `axis`.

use tir::{DataType, PrimExpr};

use super::te::{self, Te};
use super::{Lowered, OpCall, Result, Rule, TArg, unsupported};

pub(super) fn rule(name: &str) -> Option<Rule> {
    match name {
        "quantize" => Some(|c| qdq(c, true)),
        "dequantize" => Some(|c| qdq(c, false)),
        _ => None,
    }
}

/// A scale or zero point: a literal, or a tensor read per element.
enum Param {
    Literal(PrimExpr),
    Tensor(TArg),
}

impl Param {
    fn of(c: &OpCall, i: usize) -> Result<Param> {
        Ok(match c.scalar(i) {
            Some(v) => Param::Literal(v),
            None => Param::Tensor(c.tensor(i)?),
        })
    }

    /// The value for the data element at `index`.
    fn at(&self, index: &[PrimExpr], axis: usize) -> PrimExpr {
        match self {
            Param::Literal(v) => v.clone(),
            Param::Tensor(t) if t.shape().iter().all(|d| d.as_int() == Some(1)) => {
                te::load(&t.buf, vec![te::i64c(0); t.ndim()])
            }
            Param::Tensor(t) => te::load(&t.buf, vec![index[axis].clone()]),
        }
    }
}

/// `max(min(v, max_value(dt)), min_value(dt))` as `dt`.
fn clip_cast(v: PrimExpr, dt: DataType) -> PrimExpr {
    te::cast(
        dt,
        te::max(te::min(v, PrimExpr::max_value(dt)), PrimExpr::min_value(dt)),
    )
}

fn qdq(c: &OpCall, quantize: bool) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let (out_shape, out_dtype) = c.out_tensor()?;
    let ndim = x.ndim();
    let axis = c.attr_int("axis").unwrap_or(-1);
    let axis = if axis < 0 { axis + ndim as i64 } else { axis };
    if ndim > 0 && !(0..ndim as i64).contains(&axis) {
        return unsupported(format!("attribute `axis` out of range for rank {ndim}"));
    }
    let axis = axis.max(0) as usize;
    let (scale, zp) = (Param::of(c, 1)?, Param::of(c, 2)?);
    for p in [&scale, &zp] {
        if let Param::Tensor(t) = p
            && t.ndim() > 1
            && !t.shape().iter().all(|d| d.as_int() == Some(1))
        {
            return unsupported("a scale or zero point of rank above 1");
        }
    }
    let mut te = Te::new();
    let name = if quantize { "quantized" } else { "dequantized" };
    let out = te.compute(name, "ax", &out_shape, |i| {
        let (s, z) = (scale.at(i, axis), zp.at(i, axis));
        let v = te::load(&x.buf, i.to_vec());
        if quantize {
            let scaled = te::div(v, s);
            let rounded = if out_dtype.is_int_or_uint() {
                te::intrin("nearbyint", vec![scaled])
            } else {
                scaled
            };
            clip_cast(te::add(rounded, z), out_dtype)
        } else {
            let wide = if x.dtype().is_float() {
                DataType::FLOAT32
            } else {
                DataType::INT32
            };
            let out = te::mul(
                te::sub(te::cast(wide, v), z),
                te::cast(DataType::FLOAT32, s),
            );
            if out_dtype == DataType::FLOAT32 {
                out
            } else {
                clip_cast(out, out_dtype)
            }
        }
    });
    let mut inputs = vec![&x];
    for p in [&scale, &zp] {
        if let Param::Tensor(t) = p {
            inputs.push(t);
        }
    }
    c.finish(
        if quantize { "quantize" } else { "dequantize" },
        te,
        &inputs,
        &[out],
    )
}
