//! `relaxjit.concat`: any number of tensors (two or more) of one dtype joined along one axis.
//! The output is a sequence of contiguous runs (for each index over the leading axes, one run
//! of each input), copied in pieces spread over the pool when the tensor is large. Elements
//! are copied as bytes, so every dtype takes the same path.

use vm::{Error, Result, Tensor};

use super::{PARALLEL_ELEMENTS, SendPtr, View};

/// Concatenates `inputs` along axis `params[0]` into `out` (which overlaps none of them), as
/// bytes: each tensor is seen as its shape with one more, innermost axis of its element's
/// bytes.
pub(super) fn concat_tensors(inputs: &[&Tensor], params: &[i64], out: &Tensor) -> Result<()> {
    let dt = out.dtype();
    let rank = out.shape().len();
    if !matches!(params, [a] if usize::try_from(*a).is_ok_and(|a| a < rank)) {
        return Err(Error::value_error(format!(
            "concat axis {params:?} for tensors of rank {rank}"
        )));
    }
    let bytes = dt.bytes();
    let as_bytes = |t: &Tensor, i: usize| -> Result<(Vec<usize>, usize)> {
        if t.dtype() != dt {
            return Err(Error::type_error(format!(
                "argument {i} has dtype {}, the output {dt}",
                t.dtype()
            )));
        }
        if !t.device().is_cpu() {
            return Err(Error::value_error(format!(
                "argument {i} is on {}, library kernels run on the CPU",
                t.device()
            )));
        }
        let mut shape: Vec<usize> = t.shape().iter().map(|&d| d as usize).collect();
        shape.push(bytes);
        Ok((shape, t.nbytes()))
    };
    let mut views = Vec::with_capacity(inputs.len());
    for (i, t) in inputs.iter().enumerate() {
        let (shape, len) = as_bytes(t, i)?;
        // SAFETY: a tensor's storage holds `nbytes` bytes from its data pointer; every byte
        // pattern is a valid `u8`; nothing writes an input while a kernel reads it.
        let data = unsafe { std::slice::from_raw_parts(t.as_ptr(), len) };
        views.push(View { data, shape });
    }
    let (out_shape, len) = as_bytes(out, inputs.len())?;
    // SAFETY: as above for the output, which the caller checked overlaps no input and holds
    // no other reference to while the kernel runs (destination-passing style).
    let out_data = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr(), len) };
    concat(&views, params, out_data, &out_shape)
}

fn concat<T: Copy + Send + Sync>(
    inputs: &[View<T>],
    params: &[i64],
    out: &mut [T],
    out_shape: &[usize],
) -> Result<()> {
    let bad = |what: String| Err(Error::value_error(what));
    let Some(first) = inputs.first() else {
        return bad("concat of no tensors".into());
    };
    let nd = first.shape.len();
    let axis = match params {
        [axis] => usize::try_from(*axis).ok().filter(|&x| x < nd),
        _ => None,
    };
    let Some(axis) = axis else {
        return bad(format!("concat axis {params:?} for tensors of rank {nd}"));
    };
    let mut want = first.shape.clone();
    want[axis] = 0;
    for (i, v) in inputs.iter().enumerate() {
        let fits = v.shape.len() == nd && (0..nd).all(|d| d == axis || v.shape[d] == want[d]);
        if !fits {
            return bad(format!(
                "concat of shapes {:?} (input 0) and {:?} (input {i}) along axis {axis}",
                first.shape, v.shape
            ));
        }
        want[axis] += v.shape[axis];
    }
    if want != out_shape {
        return bad(format!(
            "concat output shape {out_shape:?}, expected {want:?}"
        ));
    }
    if out.is_empty() {
        return Ok(());
    }
    let inner: usize = first.shape[axis + 1..].iter().product();
    // Each input's run per index over the leading axes, and the output's (their sum).
    let lens: Vec<usize> = inputs.iter().map(|v| v.shape[axis] * inner).collect();
    let row: usize = lens.iter().sum();
    let outer: usize = first.shape[..axis].iter().product();
    // (destination offset, source run), large runs cut into pieces.
    let piece = PARALLEL_ELEMENTS / 2;
    let mut runs: Vec<(usize, &[T])> = Vec::new();
    for o in 0..outer {
        let mut off = o * row;
        for (v, &len) in inputs.iter().zip(&lens) {
            for (k, chunk) in v.data[o * len..][..len].chunks(piece).enumerate() {
                runs.push((off + k * piece, chunk));
            }
            off += len;
        }
    }
    let dst = SendPtr(out.as_mut_ptr());
    let copy = |&(off, src): &(usize, &[T])| {
        // SAFETY: the runs tile the output exactly once (`out.len() == outer · row`, checked
        // through the shapes), so each writes its own in-bounds range.
        let d = unsafe { std::slice::from_raw_parts_mut(dst.get().add(off), src.len()) };
        d.copy_from_slice(src);
    };
    if out.len() >= PARALLEL_ELEMENTS && crate::pool::threads() > 1 {
        crate::pool::for_each(runs.len(), |i| copy(&runs[i]));
    } else {
        runs.iter().for_each(copy);
    }
    Ok(())
}
