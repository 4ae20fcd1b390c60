//! `relaxjit.concat`: any number of tensors (two or more) joined along one axis. The output is a
//! sequence of contiguous runs (for each index over the leading axes, one run of each input),
//! copied in pieces spread over the pool when the tensor is large.

use rayon::prelude::*;
use vm::{Error, Result};

use super::{Float, PARALLEL_ELEMENTS, SendPtr, View};

pub(super) fn concat<T: Float>(
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
    if out.len() >= PARALLEL_ELEMENTS && rayon::current_num_threads() > 1 {
        runs.par_iter().for_each(copy);
    } else {
        runs.iter().for_each(copy);
    }
    Ok(())
}
