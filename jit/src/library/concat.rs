//! `relaxjit.concat`: two tensors joined along one axis. The output is a sequence of
//! contiguous runs (for each index over the leading axes, one run of each input), copied in
//! pieces spread over the pool when the tensor is large.

use rayon::prelude::*;
use vm::{Error, Result};

use super::{Float, PARALLEL_ELEMENTS, SendPtr, View};

pub(super) fn concat<T: Float>(
    a: &View<T>,
    b: &View<T>,
    params: &[i64],
    out: &mut [T],
    out_shape: &[usize],
) -> Result<()> {
    let bad = |what: String| Err(Error::value_error(what));
    let nd = a.shape.len();
    let axis = match params {
        [axis] => usize::try_from(*axis).ok().filter(|&x| x < nd),
        _ => None,
    };
    let Some(axis) = axis else {
        return bad(format!("concat axis {params:?} for tensors of rank {nd}"));
    };
    let mut want = a.shape.clone();
    let fits = b.shape.len() == nd && (0..nd).all(|d| d == axis || a.shape[d] == b.shape[d]);
    if !fits {
        return bad(format!(
            "concat of shapes {:?} and {:?} along axis {axis}",
            a.shape, b.shape
        ));
    }
    want[axis] += b.shape[axis];
    if want != out_shape {
        return bad(format!(
            "concat output shape {out_shape:?}, expected {want:?}"
        ));
    }
    let inner: usize = a.shape[axis + 1..].iter().product();
    let (ra, rb) = (a.shape[axis] * inner, b.shape[axis] * inner);
    let outer: usize = a.shape[..axis].iter().product();
    if out.is_empty() {
        return Ok(());
    }
    // (destination offset, source run), large runs cut into pieces.
    let piece = PARALLEL_ELEMENTS / 2;
    let mut runs: Vec<(usize, &[T])> = Vec::new();
    for o in 0..outer {
        let base = o * (ra + rb);
        for (off, src) in [(0, &a.data[o * ra..][..ra]), (ra, &b.data[o * rb..][..rb])] {
            for (k, chunk) in src.chunks(piece).enumerate() {
                runs.push((base + off + k * piece, chunk));
            }
        }
    }
    let dst = SendPtr(out.as_mut_ptr());
    let copy = |&(off, src): &(usize, &[T])| {
        // SAFETY: the runs tile the output exactly once (`out.len() == outer · (ra + rb)`,
        // checked through the shapes), so each writes its own in-bounds range.
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
