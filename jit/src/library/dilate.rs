//! `relaxjit.dilate`: a tensor with `stride − 1` zeros inserted between neighbours along its
//! last two axes (TOPI's `nn.dilate` of those axes), the image a transposed convolution
//! convolves. One pass writes each output plane once; elements are copied as bytes, so every
//! dtype takes the same path; planes are spread over the pool when the output is large.

use vm::{Error, Result, Tensor};

use super::{PARALLEL_ELEMENTS, for_each_chunk};

/// Writes `x` dilated by `params = [stride_h, stride_w]` into `out` (overlapping no input):
/// `out[…, i·sh, j·sw] = x[…, i, j]` and zeros elsewhere, `out` of shape `x.shape[..-2] +
/// [(h − 1)·sh + 1, (w − 1)·sw + 1]`.
pub(super) fn dilate(x: &Tensor, params: &[i64], out: &Tensor) -> Result<()> {
    let dt = out.dtype();
    if x.dtype() != dt {
        return Err(Error::type_error(format!(
            "argument 0 has dtype {}, the output {dt}",
            x.dtype()
        )));
    }
    if !x.device().is_cpu() {
        return Err(Error::value_error(format!(
            "argument 0 is on {}, library kernels run on the CPU",
            x.device()
        )));
    }
    let stride = |i: usize| params.get(i).and_then(|&s| usize::try_from(s).ok());
    let (Some(sh), Some(sw), 2) = (stride(0), stride(1), params.len()) else {
        return Err(Error::value_error(format!(
            "dilate strides {params:?}: expected two"
        )));
    };
    let shape = x.shape();
    let (Some(&[h, w]), true) = (shape.get(shape.len().wrapping_sub(2)..), sh >= 1 && sw >= 1)
    else {
        return Err(Error::value_error(format!(
            "dilate of shape {shape:?} by strides {params:?}: two axes and positive strides"
        )));
    };
    let (h, w) = (h as usize, w as usize);
    let grow = |n: usize, s: usize| if n == 0 { 0 } else { (n - 1) * s + 1 };
    let (oh, ow) = (grow(h, sh), grow(w, sw));
    let mut want = shape.to_vec();
    let rank = want.len();
    want[rank - 2] = oh as i64;
    want[rank - 1] = ow as i64;
    if out.shape() != want {
        return Err(Error::value_error(format!(
            "dilate output shape {:?}, expected {want:?}",
            out.shape()
        )));
    }
    let es = dt.bytes();
    let (plane_in, plane_out) = (h * w * es, oh * ow * es);
    if plane_out == 0 {
        return Ok(());
    }
    // SAFETY: a tensor's storage holds `nbytes` bytes from its data pointer and every byte
    // pattern is a valid `u8`; nothing writes an input while a kernel reads it.
    let src = unsafe { std::slice::from_raw_parts(x.as_ptr(), x.nbytes()) };
    // SAFETY: as above for the output, which the caller checked overlaps no input and holds no
    // other reference to while the kernel runs (destination-passing style).
    let dst = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr(), out.nbytes()) };
    let plane = |(p, d): (usize, &mut [u8])| {
        d.fill(0);
        let s = &src[p * plane_in..][..plane_in];
        for (i, row) in s.chunks_exact(w * es).enumerate() {
            let out_row = &mut d[i * sh * ow * es..][..ow * es];
            if sw == 1 {
                out_row.copy_from_slice(row);
            } else {
                for (j, e) in row.chunks_exact(es).enumerate() {
                    out_row[j * sw * es..][..es].copy_from_slice(e);
                }
            }
        }
    };
    if out.numel() >= PARALLEL_ELEMENTS && crate::pool::threads() > 1 {
        for_each_chunk(dst, plane_out, Some(1), |i, d| plane((i, d)));
    } else {
        for_each_chunk(dst, plane_out, None, |i, d| plane((i, d)));
    }
    Ok(())
}
