//! `relaxjit.gather_planes`: a tensor's planes (its last two axes) gathered from another
//! tensor's planes of the same size by a table of plane indices, a negative index giving a
//! plane of zeros. One copy does what a pad, a take and a permutation would do in three: it
//! lays out a 3-D convolution's depth slices as the images of a 2-D convolution, and puts that
//! convolution's output back in NCDHW order. Elements are copied as bytes, so every dtype takes
//! the same path; large outputs are copied in parallel.

use vm::{DataType, Error, Result, Tensor};

use super::{PARALLEL_ELEMENTS, for_each_chunk};

/// Fills `out` (rank 2 or more, overlapping neither input) plane by plane: plane `p` (of its
/// last two axes) is plane `indices[p]` of `x` seen as a sequence of planes of that size, or
/// zeros where `indices[p]` is negative. `indices` is an `int64` tensor with one entry per
/// plane of `out`; an index past `x`'s planes is an error.
pub(super) fn gather_planes(x: &Tensor, indices: &Tensor, out: &Tensor) -> Result<()> {
    let dt = out.dtype();
    super::check_gather_operands(x, indices, out)?;
    if indices.dtype() != DataType::I64 {
        return Err(Error::type_error(format!(
            "argument 1 (the plane indices) has dtype {}, expected int64",
            indices.dtype()
        )));
    }
    let shape = out.shape();
    let [.., h, w] = shape else {
        return Err(Error::value_error(format!(
            "output of shape {shape:?}: planes need two axes"
        )));
    };
    let plane = usize::try_from(h * w).unwrap_or(0);
    let planes = out.numel().checked_div(plane).unwrap_or(0);
    if indices.numel() != planes {
        return Err(Error::value_error(format!(
            "{} plane indices for an output of {planes} planes of shape {shape:?}",
            indices.numel()
        )));
    }
    if !x.numel().is_multiple_of(plane.max(1)) {
        return Err(Error::value_error(format!(
            "argument 0 of shape {:?} is not made of planes of {h}×{w}",
            x.shape()
        )));
    }
    let available = x.numel() / plane.max(1);
    let indices = indices.to_vec::<i64>()?;
    if let Some(bad) = indices
        .iter()
        .find(|&&i| usize::try_from(i).is_ok_and(|i| i >= available))
    {
        return Err(Error::value_error(format!(
            "plane index {bad} past the {available} planes of argument 0"
        )));
    }
    let bytes = plane * dt.bytes();
    if bytes == 0 {
        return Ok(());
    }
    // SAFETY: a tensor's storage holds `nbytes` bytes from its data pointer and every byte
    // pattern is a valid `u8`; nothing writes an input while a kernel reads it.
    let src = unsafe { std::slice::from_raw_parts(x.as_ptr(), x.nbytes()) };
    // SAFETY: as above for the output, which the caller checked overlaps no input and holds no
    // other reference to while the kernel runs (destination-passing style).
    let dst = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr(), out.nbytes()) };
    let copy = |(p, d): (usize, &mut [u8])| match usize::try_from(indices[p]) {
        Ok(i) => d.copy_from_slice(&src[i * bytes..][..bytes]),
        Err(_) => d.fill(0),
    };
    if out.numel() >= PARALLEL_ELEMENTS && crate::pool::threads() > 1 {
        // Tasks of at least PARALLEL_ELEMENTS / 4 elements, so that small planes do not make
        // a task each.
        let per_task = (PARALLEL_ELEMENTS / 4).div_ceil(plane).max(1);
        for_each_chunk(dst, bytes, Some(per_task), |i, d| copy((i, d)));
    } else {
        for_each_chunk(dst, bytes, None, |i, d| copy((i, d)));
    }
    Ok(())
}
