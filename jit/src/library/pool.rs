//! `relaxjit.max_pool2d` / `relaxjit.avg_pool2d`: NCHW pooling with any window, strides,
//! padding, dilation, ceil mode and padding count. One output plane per task, spread over the
//! pool; within a plane each output row accumulates tap by tap over contiguous columns, so
//! unit-stride windows vectorize.
//!
//! Results are bit-identical to the TIR legalization (`relax/src/legalize/nn.rs`, `pool`):
//! the same fold order over taps `(i, j)`, padded taps taking part with the same pad value
//! (the lowest finite value for max, zero for sums), the same `cur > v ? cur : v` max, and
//! TVM's count of elements inside the data for averages that exclude the padding.

use vm::{Error, Result};

use super::{Float, PARALLEL_ELEMENTS, View, for_each_chunk};

/// The pooling window's geometry, checked against the tensors.
struct Window {
    h: usize,
    w: usize,
    oh: usize,
    ow: usize,
    k: [usize; 2],
    stride: [usize; 2],
    /// Top and left padding.
    pad: [usize; 2],
    dilation: [usize; 2],
    /// Whether any side is padded (ceil mode's extra bottom/right padding included).
    any_pad: bool,
    include_pad: bool,
}

impl Window {
    fn new(x: &[usize], p: &[i64], out: &[usize]) -> Result<Window> {
        let bad = |what: String| Err(Error::value_error(what));
        let [n, c, h, w] = x[..] else {
            return bad(format!("pooling of shape {x:?}; it must be 4-D (NCHW)"));
        };
        let Ok(p) = p
            .iter()
            .map(|&v| usize::try_from(v))
            .collect::<std::result::Result<Vec<usize>, _>>()
        else {
            return bad(format!("pooling parameters {p:?}: none may be negative"));
        };
        // pool (h, w), stride (h, w), padding (top, left, bottom, right), dilation (h, w),
        // ceil mode, count_include_pad.
        let [kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, ceil, include] = p[..] else {
            return bad(format!("pooling takes 12 integer parameters, got {p:?}"));
        };
        if [kh, kw, sh, sw, dh, dw].contains(&0) {
            return bad(format!(
                "pooling parameters {p:?}: window, strides and dilation must be positive"
            ));
        }
        let extent = |size: usize, lo: usize, hi: usize, k: usize, s: usize, d: usize| {
            let num = (size + lo + hi) as isize - (d * (k - 1) + 1) as isize;
            let num = if ceil != 0 { num + s as isize - 1 } else { num };
            usize::try_from(num.div_euclid(s as isize) + 1).unwrap_or(0)
        };
        let (oh, ow) = (extent(h, pt, pb, kh, sh, dh), extent(w, pl, pr, kw, sw, dw));
        if out != [n, c, oh, ow] {
            return bad(format!(
                "pooling output shape {out:?}, expected {:?}",
                [n, c, oh, ow]
            ));
        }
        // Ceil mode pads further after, so that the last windows stay inside the padded data.
        let extra = |size: usize, lo: usize, hi: usize, o: usize, k: usize, s: usize, d: usize| {
            let need = (o.max(1) - 1) * s + (k - 1) * d + 1;
            need.saturating_sub(size + lo + hi)
        };
        let any_pad = pt + pl + pb + pr > 0
            || (ceil != 0
                && (extra(h, pt, pb, oh, kh, sh, dh) > 0 || extra(w, pl, pr, ow, kw, sw, dw) > 0));
        Ok(Window {
            h,
            w,
            oh,
            ow,
            k: [kh, kw],
            stride: [sh, sw],
            pad: [pt, pl],
            dilation: [dh, dw],
            any_pad,
            include_pad: include != 0,
        })
    }

    /// The output columns `[lo, hi)` whose tap at offset `off` falls inside the row.
    fn valid(&self, off: isize) -> (usize, usize) {
        let s = self.stride[1] as isize;
        let lo = if off >= 0 { 0 } else { (-off + s - 1) / s };
        let hi = (self.w as isize - off + s - 1).div_euclid(s).max(0);
        let lo = lo.min(self.ow as isize) as usize;
        let hi = hi.min(self.ow as isize) as usize;
        (lo, hi.max(lo))
    }

    /// TVM's count of window elements inside the data along one axis (topi's formula, which
    /// the TIR path computes too).
    fn inside(&self, axis: usize, o: usize, size: usize) -> i64 {
        let (s, k, d) = (
            self.stride[axis] as i64,
            self.k[axis] as i64,
            self.dilation[axis] as i64,
        );
        let start = o as i64 * s - self.pad[axis] as i64;
        if d != 1 {
            let end = (start + (k - 1) * d).min(size as i64 - 1);
            return (end - start.max(0)).div_euclid(d) + 1;
        }
        (start + (k - 1) * d + 1).min(size as i64) - start.max(0)
    }
}

/// Max (`is_max`) or average pooling of `x` into `out`.
pub(super) fn pool2d<T: Float>(
    x: &View<T>,
    params: &[i64],
    is_max: bool,
    out: &mut [T],
    out_shape: &[usize],
) -> Result<()> {
    let win = Window::new(&x.shape, params, out_shape)?;
    let plane = win.oh * win.ow;
    if out.is_empty() || plane == 0 {
        return Ok(());
    }
    let one = |p: usize, dst: &mut [T]| {
        let src = &x.data[p * win.h * win.w..][..win.h * win.w];
        plane_pool(&win, src, is_max, dst);
    };
    let work = out.len() * win.k[0] * win.k[1];
    let spread = (work >= PARALLEL_ELEMENTS && rayon::current_num_threads() > 1).then_some(1);
    for_each_chunk(out, plane, spread, one);
    Ok(())
}

fn plane_pool<T: Float>(win: &Window, src: &[T], is_max: bool, dst: &mut [T]) {
    if is_max {
        plane_fold::<T, true>(win, src, dst);
    } else {
        plane_fold::<T, false>(win, src, dst);
        average(win, dst);
    }
}

/// Folds every window of one plane into `dst` (max, or sum), tap by tap in the TIR order.
/// A strided window first splits each input row into its `stride` phases (columns `p`,
/// `p + s`, …), so that every tap reads a contiguous run and the fold vectorizes.
fn plane_fold<T: Float, const MAX: bool>(win: &Window, src: &[T], dst: &mut [T]) {
    let pad_value = if MAX { T::LOWEST } else { T::ZERO };
    let fold = |cur: T, v: T| {
        if MAX {
            if cur > v { cur } else { v }
        } else {
            cur + v
        }
    };
    let s = win.stride[1];
    let wp = win.w.div_ceil(s);
    let mut phases = Vec::new();
    if s > 1 {
        phases = T::take_scratch();
        // Only grown: a tap reads only columns inside the row, which the split writes.
        if phases.len() < s * win.h * wp {
            phases.resize(s * win.h * wp, T::ZERO);
        }
        for y in 0..win.h {
            let in_row = &src[y * win.w..][..win.w];
            if s == 2 {
                // The common stride, written as pairs so that the split vectorizes.
                let (even, odd) = phases.split_at_mut(win.h * wp);
                let even = &mut even[y * wp..][..wp];
                let odd = &mut odd[y * wp..][..wp];
                let pairs = in_row.chunks_exact(2);
                if let [last] = pairs.remainder() {
                    even[win.w / 2] = *last;
                }
                for ((pair, e), o) in pairs.zip(even.iter_mut()).zip(odd.iter_mut()) {
                    *e = pair[0];
                    *o = pair[1];
                }
                continue;
            }
            for p in 0..s.min(win.w) {
                let out = &mut phases[(p * win.h + y) * wp..][..wp];
                for (o, v) in out.iter_mut().zip(in_row[p..].iter().step_by(s)) {
                    *o = *v;
                }
            }
        }
    }
    // Per column tap: its offset and the output columns it finds inside the row.
    let taps_w: Vec<(isize, usize, usize)> = (0..win.k[1])
        .map(|j| {
            let off = (j * win.dilation[1]) as isize - win.pad[1] as isize;
            let (lo, hi) = win.valid(off);
            (off, lo, hi)
        })
        .collect();
    for (oy, row) in dst.chunks_mut(win.ow).enumerate() {
        row.fill(pad_value);
        for i in 0..win.k[0] {
            let iy = (oy * win.stride[0] + i * win.dilation[0]) as isize - win.pad[0] as isize;
            let valid_row = iy >= 0 && iy < win.h as isize;
            for &(off, lo, hi) in &taps_w {
                if !valid_row {
                    row.iter_mut().for_each(|o| *o = fold(*o, pad_value));
                    continue;
                }
                let iy = iy as usize;
                row[..lo].iter_mut().for_each(|o| *o = fold(*o, pad_value));
                row[hi..].iter_mut().for_each(|o| *o = fold(*o, pad_value));
                if hi <= lo {
                    continue;
                }
                // Input column of output column `lo`; the run continues every `s` columns.
                let start = (lo * s).wrapping_add_signed(off);
                let taps = if s == 1 {
                    &src[iy * win.w + start..][..hi - lo]
                } else {
                    &phases[((start % s) * win.h + iy) * wp + start / s..][..hi - lo]
                };
                for (o, v) in row[lo..hi].iter_mut().zip(taps) {
                    *o = fold(*o, *v);
                }
            }
        }
    }
    if s > 1 {
        T::put_scratch(phases);
    }
}

/// Divides each window's sum by its count: the window size, or (padding excluded) TVM's count
/// of its elements inside the data.
fn average<T: Float>(win: &Window, dst: &mut [T]) {
    for (oy, row) in dst.chunks_mut(win.ow).enumerate() {
        let full = (win.k[0] * win.k[1]) as i64;
        let cy = win.inside(0, oy, win.h);
        for (ox, o) in row.iter_mut().enumerate() {
            let count = if win.include_pad || !win.any_pad {
                full
            } else {
                (cy * win.inside(1, ox, win.w)).max(1)
            };
            *o = o.div(T::from_i64(count));
        }
    }
}
