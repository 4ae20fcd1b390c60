//! Quantization: `R.quantize` and `R.dequantize` (per-tensor or per-axis scale and zero
//! point), with TVM's checks of dtypes, axis and parameter sizes.

use tir::DataType;

use crate::Result;
use crate::ir::{Call, StructInfo};

use super::common::tensor_arg;
use super::common::{TensorInfo, attr_int, attr_opt_dtype, check_arity, err, normalize_axis};
use crate::struct_info_ops::{dim_str, prove_equal};

/// The dtypes a zero point may have.
const ZERO_POINT_DTYPES: &[DataType] = &[
    DataType::INT8,
    DataType::UINT8,
    DataType::INT32,
    DataType::FLOAT16,
    DataType::FLOAT32,
];

/// The checks both operators share: `scale` and `zero_point` are scalars or 1-D tensors as
/// long as `data`'s axis `axis`, of the dtypes allowed.
fn check_params(call: &Call, args: &[StructInfo], data: &TensorInfo) -> Result<()> {
    check_arity(call, args, 3, 3)?;
    let axis = attr_int(call, "axis")?;
    let axis = match data.ndim() {
        Some(n) => Some(normalize_axis(call, axis, n)?),
        None => None,
    };
    for (i, what, dtypes) in [
        (1, "scale", &[DataType::FLOAT32, DataType::FLOAT16][..]),
        (2, "zero_point", ZERO_POINT_DTYPES),
    ] {
        let p = tensor_arg(call, args, i)?;
        if let Some(dt) = p.dtype
            && !dtypes.contains(&dt)
        {
            let names: Vec<String> = dtypes.iter().map(|d| d.to_string()).collect();
            return Err(err(
                call,
                format!("{what} must be {}, got {dt}", names.join(" or ")),
            ));
        }
        match p.ndim() {
            None | Some(0) => {}
            Some(1) => {
                if let (Some(ps), Some(ds), Some(axis)) = (&p.shape, &data.shape, axis)
                    && !prove_equal(&ps[0], &ds[axis])
                    && (ps[0].as_int() != Some(1))
                {
                    return Err(err(
                        call,
                        format!(
                            "{what} has {} values, but data's axis {axis} has {}",
                            dim_str(&ps[0]),
                            dim_str(&ds[axis])
                        ),
                    ));
                }
            }
            Some(n) => {
                return Err(err(
                    call,
                    format!("{what} must be a scalar or 1-D, got rank {n}"),
                ));
            }
        }
    }
    Ok(())
}

/// `R.quantize(data, scale, zero_point, out_dtype, axis)`: `clip(round(data / scale) + zp)`
/// as `out_dtype` (int8, uint8, int16 or uint16), from float32 or float16 data.
pub(super) fn infer_quantize(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    let data = tensor_arg(call, args, 0)?;
    if let Some(dt) = data.dtype
        && dt != DataType::FLOAT32
        && dt != DataType::FLOAT16
    {
        return Err(err(
            call,
            format!("data must be float32 or float16, got {dt}"),
        ));
    }
    check_params(call, args, &data)?;
    let out = attr_opt_dtype(call, "out_dtype")?.unwrap_or(DataType::INT8);
    if !matches!(
        out,
        DataType::INT8 | DataType::UINT8 | DataType::INT16 | DataType::UINT16
    ) {
        return Err(err(
            call,
            format!("out_dtype must be int8, uint8, int16 or uint16, got {out}"),
        ));
    }
    Ok(data.result(data.shape.clone(), data.ndim, Some(out)))
}

/// `R.dequantize(data, scale, zero_point, out_dtype, axis)`: `(data - zp) * scale` as
/// `out_dtype` (float32, or float16 clipped to its range), from integer data.
pub(super) fn infer_dequantize(call: &Call, args: &[StructInfo]) -> Result<StructInfo> {
    let data = tensor_arg(call, args, 0)?;
    if let Some(dt) = data.dtype
        && !matches!(
            dt,
            DataType::INT8 | DataType::UINT8 | DataType::INT16 | DataType::UINT16 | DataType::INT32
        )
    {
        return Err(err(
            call,
            format!("data must be int8, uint8, int16, uint16 or int32, got {dt}"),
        ));
    }
    check_params(call, args, &data)?;
    let out = attr_opt_dtype(call, "out_dtype")?.unwrap_or(DataType::FLOAT32);
    if out != DataType::FLOAT32 && out != DataType::FLOAT16 {
        return Err(err(
            call,
            format!("out_dtype must be float32 or float16, got {out}"),
        ));
    }
    Ok(data.result(data.shape.clone(), data.ndim, Some(out)))
}
