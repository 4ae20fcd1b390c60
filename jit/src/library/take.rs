//! `relaxjit.take`: `R.take(x, indices, axis, mode)`, each index selecting a contiguous run of
//! `x` (the elements after the axis), copied as bytes, so every dtype takes the same path; the
//! runs of a large output are copied in parallel. The TIR legalization evaluates the index
//! element by element, with a bounds check on each; here the indices are read, normalized and
//! checked once each (an embedding lookup of 8192 rows of 64 `float32` ran 18× slower than
//! numpy's `take` through it).

use vm::{DataType, Error, Result, Tensor};

use super::{PARALLEL_ELEMENTS, for_each_chunk};

/// Fills `out` (overlapping neither input) with `x` taken at `indices` along `params[0]`, the
/// indices read as `params[1]` says: 0 (`fast`) an index outside the axis is an error, as the
/// TIR path's bounds check makes it; 1 (`clip`) clamped into the axis; 2 (`wrap`) taken floor
/// modulo its length. The output's shape must be `x.shape[..axis] + indices.shape +
/// x.shape[axis + 1..]`.
pub(super) fn take(x: &Tensor, indices: &Tensor, params: &[i64], out: &Tensor) -> Result<()> {
    let dt = out.dtype();
    super::check_gather_operands(x, indices, out)?;
    let rank = x.shape().len();
    let (axis, mode) = match *params {
        [axis, mode] if usize::try_from(axis).is_ok_and(|a| a < rank) && (0..3).contains(&mode) => {
            (axis as usize, mode)
        }
        _ => {
            return Err(Error::value_error(format!(
                "take parameters {params:?} (axis, mode) for a tensor of rank {rank}"
            )));
        }
    };
    let shape = x.shape();
    let want: Vec<i64> = shape[..axis]
        .iter()
        .chain(indices.shape())
        .chain(&shape[axis + 1..])
        .copied()
        .collect();
    if out.shape() != want {
        return Err(Error::value_error(format!(
            "take output of shape {:?}, expected {want:?}",
            out.shape()
        )));
    }
    let raw: Vec<i64> = match indices.dtype() {
        DataType::I64 => indices.to_vec::<i64>()?,
        DataType::I32 => indices
            .to_vec::<i32>()?
            .into_iter()
            .map(i64::from)
            .collect(),
        other => {
            return Err(Error::type_error(format!(
                "argument 1 (the indices) has dtype {other}, expected int32 or int64"
            )));
        }
    };
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().map(|&d| d as usize).product();
    let outer: usize = shape[..axis].iter().map(|&d| d as usize).product();
    if out.numel() == 0 {
        return Ok(());
    }
    // Each index as a position in the axis.
    let rows: Vec<usize> = raw
        .iter()
        .map(|&v| {
            let at = match mode {
                1 if len > 0 => v.clamp(0, len - 1),
                2 if len > 0 => v.rem_euclid(len),
                _ => v,
            };
            usize::try_from(at)
                .ok()
                .filter(|&a| (a as i64) < len)
                .ok_or_else(|| {
                    Error::index(format!(
                        "take: index {v} is out of bounds for axis {axis} of a tensor of shape {shape:?}"
                    ))
                })
        })
        .collect::<Result<_>>()?;
    let run = inner * dt.bytes();
    if run == 0 {
        return Ok(());
    }
    // SAFETY: a tensor's storage holds `nbytes` bytes from its data pointer and every byte
    // pattern is a valid `u8`; nothing writes an input while a kernel reads it.
    let src = unsafe { std::slice::from_raw_parts(x.as_ptr(), x.nbytes()) };
    // SAFETY: as above for the output, which the caller checked overlaps no input and holds no
    // other reference to while the kernel runs (destination-passing style).
    let dst = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr(), out.nbytes()) };
    let per_outer = rows.len();
    let axis_runs = len as usize;
    // Run `k` of the output: index `k % per_outer` of outer position `k / per_outer`; every
    // row is below `len` (checked above), so the source run lies inside `x`.
    let copy = |(k, d): (usize, &mut [u8])| {
        let (o, j) = (k / per_outer, k % per_outer);
        let from = (o * axis_runs + rows[j]) * run;
        d.copy_from_slice(&src[from..][..run]);
    };
    debug_assert_eq!(dst.len(), outer * per_outer * run);
    if out.numel() >= PARALLEL_ELEMENTS && crate::pool::threads() > 1 {
        // Tasks of at least PARALLEL_ELEMENTS / 4 elements, so that short runs do not make a
        // task each.
        let per_task = (PARALLEL_ELEMENTS / 4).div_ceil(inner.max(1)).max(1);
        for_each_chunk(dst, run, Some(per_task), |i, d| copy((i, d)));
    } else {
        for_each_chunk(dst, run, None, |i, d| copy((i, d)));
    }
    Ok(())
}
