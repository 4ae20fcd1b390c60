//! `relaxjit.max_pool2d` / `relaxjit.avg_pool2d`: NCHW pooling with any window, strides,
//! padding, dilation, ceil mode and padding count. Spread over the pool as bands of output
//! rows (one per thread, each a window of its own over the input rows it reads: `Band`)
//! of groups of planes, the bands outermost, so that each thread pools the rows the layer
//! before wrote on it (`super::for_each_band`); within a plane each output row accumulates
//! tap by tap over contiguous columns, so unit-stride windows vectorize.
//!
//! A window that covers each whole plane (a global pool, ResNet's last and the `R.mean` over
//! the spatial axes that DispatchLibrary hands here) folds several planes side by side
//! instead, one output each.
//!
//! With column stride 2 on f32 and AVX-512 (SqueezeNet's, ResNet-50's and the conv block's
//! pools), each block of 16 outputs reads its columns straight from the row instead of
//! splitting the whole plane into even and odd columns first: no scratch traffic. A window of
//! at most 3 adjacent columns loads each row's 32 columns once for all its column taps (even
//! columns, odd columns, even ones shifted by one): 1.6–1.8× faster on one thread than one
//! load pair per tap (`library --calls 200 pool`, `RAYON_NUM_THREADS=1`: SqueezeNet's first
//! pool 191 → 104 µs).
//!
//! Results are bit-identical to the TIR legalization (`relax/src/legalize/nn.rs`, `pool`):
//! the same fold order over taps `(i, j)`, padded taps taking part with the same pad value
//! (the lowest finite value for max, zero for sums), the same `cur > v ? cur : v` max, and
//! TVM's count of elements inside the data for averages that exclude the padding.

use tir::arith::SlidingWindow;
use vm::{Error, Result};

use super::{Float, PARALLEL_ELEMENTS, View, for_each_chunk};

/// The pooling window's geometry, checked against the tensors.
#[derive(Clone, Copy)]
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
        // The windows along each axis, as shape inference slid them (`SlidingWindow`: exact
        // for strides, paddings and dilations up to 2^63 − 1).
        let axis = |lo: usize, hi: usize, s: usize, d: usize| SlidingWindow {
            stride: s as i64,
            dilation: d as i64,
            pad_before: lo as i64,
            pad_after: hi as i64,
            ceil_mode: ceil != 0,
        };
        let (rows, cols) = (axis(pt, pb, sh, dh), axis(pl, pr, sw, dw));
        let extent = |w: &SlidingWindow, size: usize, k: usize| {
            w.positions(size as i64, k as i64)
                .and_then(|v| usize::try_from(v).ok())
                .unwrap_or(0)
        };
        let (oh, ow) = (extent(&rows, h, kh), extent(&cols, w, kw));
        if out != [n, c, oh, ow] {
            return bad(format!(
                "pooling output shape {out:?}, expected {:?}",
                [n, c, oh, ow]
            ));
        }
        // Ceil mode's last windows may reach past the padded data: pad further after.
        let any_pad = [pt, pl, pb, pr].iter().any(|&p| p > 0)
            || (ceil != 0
                && (rows.overhang(h as i64, kh as i64, oh as i64) > 0
                    || cols.overhang(w as i64, kw as i64, ow as i64) > 0));
        Ok(Window {
            h,
            w,
            oh,
            ow,
            k: [kh, kw],
            // The stride spaces the output positions: with one position it is never applied,
            // and a stride of 2^63 − 1 (which a single position allows) would overflow what it
            // multiplies.
            stride: [if oh == 1 { 1 } else { sh }, if ow == 1 { 1 } else { sw }],
            pad: [pt, pl],
            dilation: [dh, dw],
            any_pad,
            include_pad: include != 0,
        })
    }

    /// Whether the window is each whole plane, unpadded (a global pool: one output per
    /// plane).
    fn whole_plane(&self) -> bool {
        self.k == [self.h, self.w]
            && self.dilation == [1, 1]
            && !self.any_pad
            && (self.oh, self.ow) == (1, 1)
    }

    /// TVM's count of window elements inside the data along one axis (topi's formula, which
    /// the TIR path computes too): the taps from the first one past the padding before,
    /// `jumps` taps in, to the last one inside; `/` truncates, as TVM's does.
    fn inside(&self, axis: usize, o: usize, size: usize) -> i64 {
        let (s, k, d) = (
            self.stride[axis] as i64,
            self.k[axis] as i64,
            self.dilation[axis] as i64,
        );
        let start = o as i64 * s - self.pad[axis] as i64;
        let jumps = ((d - 1 - start) / d).max(0);
        let end = (start + (k - 1) * d).min(size as i64 - 1);
        (end - (start + d * jumps)) / d + 1
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
    let work = out.len() * win.k[0] * win.k[1];
    let spread = (work >= PARALLEL_ELEMENTS && crate::pool::threads() > 1).then_some(1);
    if win.whole_plane() {
        // One output per plane: planes are folded side by side, a block of them per task.
        let len = win.h * win.w;
        let one = |b: usize, dst: &mut [T]| {
            let src = &x.data[b * WHOLE_BLOCK * len..][..dst.len() * len];
            whole_planes(&win, src, is_max, dst);
        };
        for_each_chunk(out, WHOLE_BLOCK, spread, one);
        return Ok(());
    }
    let divisors = (!is_max).then(|| Divisors::of(&win));
    // Bands of rows, each a window of its own (`Band::of`), where every band reads the data
    // and the planes are large enough (`super::bands_for`); else the whole plane as one band.
    let cuts = super::bands_for(win.oh, win.ow);
    let bands = spread
        .and_then(|_| (0..cuts).map(|b| Band::of(&win, b, cuts)).collect())
        .unwrap_or_else(|| vec![Band::whole(&win)]);
    let one = |band: usize, p: usize, dst: &mut [T]| {
        let src = &x.data[p * win.h * win.w..][..win.h * win.w];
        band_pool(&bands[band], src, divisors.as_ref(), dst);
    };
    super::for_each_band(out, (win.oh, win.ow), bands.len(), spread.is_some(), one);
    Ok(())
}

/// A band of a plane's output rows as a window of its own: the geometry of its rows over the
/// input rows `inputs` it reads, and its first output row.
struct Band {
    rows: Window,
    inputs: std::ops::Range<usize>,
    first: usize,
}

impl Band {
    /// The whole plane.
    fn whole(win: &Window) -> Band {
        Band {
            rows: *win,
            inputs: 0..win.h,
            first: 0,
        }
    }

    /// Band `band` of `bands` (output rows `super::band_rows(oh, band, bands)`): the padding
    /// above it is what lies above the first input row its first window reads. `None` when
    /// the band reads no row of the data (it lies in the padding).
    fn of(win: &Window, band: usize, bands: usize) -> Option<Band> {
        let std::ops::Range { start: y0, end: y1 } = super::band_rows(win.oh, band, bands);
        if y0 >= y1 {
            return None;
        }
        // Exact in i128: every factor is below 2^64.
        let (s, d, pad) = (
            win.stride[0] as i128,
            win.dilation[0] as i128,
            win.pad[0] as i128,
        );
        let first = y0 as i128 * s - pad;
        let last = (y1 as i128 - 1) * s - pad + (win.k[0] as i128 - 1) * d;
        let h = win.h as i128;
        let (start, end) = (first.clamp(0, h), (last + 1).clamp(0, h));
        if start >= end {
            return None;
        }
        let rows = Window {
            h: (end - start) as usize,
            oh: y1 - y0,
            pad: [(start - first) as usize, win.pad[1]],
            ..*win
        };
        Some(Band {
            rows,
            inputs: start as usize..end as usize,
            first: y0,
        })
    }
}

/// Planes per task of a whole-plane pool.
const WHOLE_BLOCK: usize = 64;

/// Planes folded side by side by [`whole_planes`]: each its own chain of dependent adds (or
/// maxes), so that they overlap.
const WHOLE_LANES: usize = 8;

/// The pool of `dst.len()` whole planes (`src`, one after the other), one output each: each
/// plane folded in its order (the TIR order: taps `(i, j)` row by row, from the pad value),
/// `WHOLE_LANES` planes at a time; an average then divided by the plane's size (there is no
/// padding to exclude).
fn whole_planes<T: Float>(win: &Window, src: &[T], is_max: bool, dst: &mut [T]) {
    let len = win.h * win.w;
    if is_max {
        fold_whole::<T, true>(src, len, dst);
    } else {
        fold_whole::<T, false>(src, len, dst);
        let n = T::from_i64((win.k[0] * win.k[1]) as i64);
        dst.iter_mut().for_each(|o| *o = o.div(n));
    }
}

fn fold_whole<T: Float, const MAX: bool>(src: &[T], len: usize, dst: &mut [T]) {
    let init = if MAX { T::LOWEST } else { T::ZERO };
    let fold = |cur: T, v: T| {
        if MAX {
            if cur > v { cur } else { v }
        } else {
            cur + v
        }
    };
    let done = dst.len() - dst.len() % WHOLE_LANES;
    for (b, out) in dst[..done].chunks_exact_mut(WHOLE_LANES).enumerate() {
        let rows: [&[T]; WHOLE_LANES] =
            std::array::from_fn(|l| &src[(b * WHOLE_LANES + l) * len..][..len]);
        let mut acc = [init; WHOLE_LANES];
        for t in 0..len {
            for (a, row) in acc.iter_mut().zip(&rows) {
                *a = fold(*a, row[t]);
            }
        }
        out.copy_from_slice(&acc);
    }
    for (p, o) in dst.iter_mut().enumerate().skip(done) {
        *o = src[p * len..][..len].iter().fold(init, |a, &v| fold(a, v));
    }
}

/// Pools `band` of one plane: `src` the whole input plane, `dst` the band's output rows.
fn band_pool<T: Float>(band: &Band, src: &[T], divisors: Option<&Divisors<T>>, dst: &mut [T]) {
    let w = band.rows.w;
    let src = &src[band.inputs.start * w..band.inputs.end * w];
    match divisors {
        None => plane_fold::<T, true>(&band.rows, src, dst),
        Some(d) => {
            plane_fold::<T, false>(&band.rows, src, dst);
            d.divide_from(dst, band.first * band.rows.ow);
        }
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
    #[cfg(target_arch = "x86_64")]
    if win.stride[1] == 2
        && std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>()
        && std::arch::is_x86_feature_detected!("avx512f")
    {
        // SAFETY: T is f32 (checked just above), so both slices are slices of f32.
        let (src, dst) = unsafe {
            (
                std::slice::from_raw_parts(src.as_ptr().cast::<f32>(), src.len()),
                std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<f32>(), dst.len()),
            )
        };
        return stride2::plane_fold::<MAX>(win, src, dst);
    }
    if win.any_pad && win.stride[1] == 1 && fold_padded_copy::<T, MAX>(win, src, dst) {
        return;
    }
    let s = win.stride[1];
    let wp = win.w.div_ceil(s);
    let mut phases = Vec::new();
    if s > 1 {
        phases = T::take_scratch();
        // One phase per residue of the column modulo the stride, of which a row has at most
        // `w` (a stride past the row's end, 2^62 say, has one column per phase; stride 2
        // always splits into two). Only grown: a tap reads only columns inside the row,
        // which the split writes.
        let n_phases = if s == 2 { 2 } else { s.min(win.w) };
        if phases.len() < n_phases * win.h * wp {
            phases.resize(n_phases * win.h * wp, T::ZERO);
        }
        for y in 0..win.h {
            let in_row = &src[y * win.w..][..win.w];
            if s == 2 {
                let (even, odd) = phases.split_at_mut(win.h * wp);
                // Even columns (the last of an odd-length row among them), then odd ones.
                super::every_second(in_row, &mut even[y * wp..][..wp]);
                let odd_row = in_row.get(1..).unwrap_or_default();
                super::every_second(odd_row, &mut odd[y * wp..][..win.w / 2]);
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
    // Per column tap: the output columns `[lo, hi)` it finds inside the row, and where the
    // run it reads starts in its source row (the row itself, or the row's phase).
    let taps_w: Vec<(usize, usize, usize)> = (0..win.k[1])
        .map(|j| {
            let off = (j * win.dilation[1]) as isize - win.pad[1] as isize;
            let (lo, hi) = super::valid_columns(off, win.stride[1], win.w, win.ow);
            // Input column of output column `lo`; the run continues every `s` columns.
            let start = (lo * s).wrapping_add_signed(off);
            let at = if s == 1 || hi <= lo {
                start
            } else {
                (start % s) * win.h * wp + start / s
            };
            (lo, hi, at)
        })
        .collect();
    let (taps_src, row_stride) = if s == 1 {
        (src, win.w)
    } else {
        (&phases[..], wp)
    };
    // Each block of `BLOCK` output columns folds every tap in registers and is stored once: a
    // row folded in memory tap by tap reloads, as vectors, what the previous tap's scalar tail
    // just stored, and stalls on it. Lanes past the row's end fold whatever follows in the
    // source (never stored), so that a short row still takes the vector path.
    let mut bases = [0usize; MAX_TAPS];
    let taps = win.k[0] * taps_w.len();
    for (oy, row) in dst.chunks_mut(win.ow).enumerate() {
        for c0 in (0..win.ow).step_by(BLOCK) {
            let n = BLOCK.min(win.ow - c0);
            // A block whose every tap reads inside the data: fold it from the taps' offsets.
            let inside = taps <= MAX_TAPS
                && (0..win.k[0]).all(|i| {
                    let iy =
                        (oy * win.stride[0] + i * win.dilation[0]) as isize - win.pad[0] as isize;
                    iy >= 0
                        && iy < win.h as isize
                        && taps_w.iter().enumerate().all(|(j, &(lo, hi, at))| {
                            let base = (iy as usize * row_stride + at + c0).wrapping_sub(lo);
                            bases[i * taps_w.len() + j] = base;
                            lo <= c0 && c0 + n <= hi && base + BLOCK <= taps_src.len()
                        })
                });
            if inside {
                let acc = fold_taps::<T, MAX>(pad_value, taps_src, &bases[..taps]);
                if n == BLOCK {
                    row[c0..c0 + BLOCK].copy_from_slice(&acc);
                } else {
                    row[c0..c0 + n].copy_from_slice(&acc[..n]);
                }
                continue;
            }
            let mut acc = [pad_value; BLOCK];
            for i in 0..win.k[0] {
                let iy = (oy * win.stride[0] + i * win.dilation[0]) as isize - win.pad[0] as isize;
                let valid_row = iy >= 0 && iy < win.h as isize;
                for &(lo, hi, at) in &taps_w {
                    let inside = valid_row && lo <= c0 && c0 + n <= hi;
                    let base = (iy.max(0) as usize * row_stride + at + c0).wrapping_sub(lo);
                    if let Some(taps) = taps_src
                        .get(base..base.wrapping_add(BLOCK))
                        .filter(|_| inside)
                    {
                        fold_block::<T, MAX>(&mut acc, taps);
                        continue;
                    }
                    for (l, a) in acc[..n].iter_mut().enumerate() {
                        let c = c0 + l;
                        let v = if valid_row && lo <= c && c < hi {
                            taps_src[iy as usize * row_stride + at + (c - lo)]
                        } else {
                            pad_value
                        };
                        *a = fold(*a, v);
                    }
                }
            }
            row[c0..c0 + n].copy_from_slice(&acc[..n]);
        }
    }
    if s > 1 {
        T::put_scratch(phases);
    }
}

/// [`plane_fold`] of a padded window of column stride 1 (Inception's 3 × 3 pools of stride 1
/// and padding 1), from a copy of the plane with its padding written out (the pad value, so
/// that the same values fold in the same order): every tap of every block then reads inside
/// the copy, and the blocks take [`fold_taps`]'s path in registers instead of the edge path
/// (at 28 columns both blocks of every row are edge blocks there).
///
/// With row stride 1, output `(y, x)` reads the copy at `(y + i·dh)·pw + x + j·dw`: the plane
/// is one run of `oh · pw` outputs (the `pw − ow` after each row dropped when stored), so a
/// 7 × 7 plane takes 4 blocks of 16 instead of 7 rows of one block with 7 lanes used.
///
/// Returns false, having written nothing, when the copy would be much larger than the plane
/// and its output (a large dilation or stride): the caller's path takes it.
fn fold_padded_copy<T: Float, const MAX: bool>(win: &Window, src: &[T], dst: &mut [T]) -> bool {
    let [kh, kw] = win.k;
    let [dh, dw] = win.dilation;
    let taps = kh * kw;
    // Rows and columns of the copy: the data after its top/left padding, and every window
    // (ceil mode's last ones reach past the bottom/right padding). `None` on overflow.
    let extent = |data: usize, pad: usize, out: usize, step: usize, k: usize, d: usize| {
        let reach = (out - 1)
            .checked_mul(step)?
            .checked_add((k - 1).checked_mul(d)?)?
            .checked_add(1)?;
        Some(data.checked_add(pad)?.max(reach))
    };
    let rows_flat = win.stride[0] == 1;
    let geometry = || {
        let ph = extent(win.h, win.pad[0], win.oh, win.stride[0], kh, dh)?;
        let pw = extent(win.w, win.pad[1], win.ow, 1, kw, dw)?;
        let last_tap = (kh - 1)
            .checked_mul(dh)?
            .checked_mul(pw)?
            .checked_add((kw - 1) * dw)?;
        // Outputs folded per run, and where the last run starts in the copy.
        let (run, last_start) = if rows_flat {
            (win.oh.checked_mul(pw)?, 0)
        } else {
            (
                win.ow,
                (win.oh - 1).checked_mul(win.stride[0])?.checked_mul(pw)?,
            )
        };
        // The last block of the last run reads BLOCK lanes from its last tap.
        let len = ph.checked_mul(pw)?.max(
            last_start
                .checked_add(run.div_ceil(BLOCK).checked_mul(BLOCK)?)?
                .checked_add(last_tap)?,
        );
        Some((pw, run, len))
    };
    let Some((pw, run, len)) = geometry() else {
        return false;
    };
    if taps > MAX_TAPS || len > 4 * (src.len() + dst.len()) + 4 * BLOCK {
        return false;
    }
    let pad_value = if MAX { T::LOWEST } else { T::ZERO };
    let mut copy = T::take_scratch();
    copy.clear();
    copy.resize(len, pad_value);
    for y in 0..win.h {
        copy[(win.pad[0] + y) * pw + win.pad[1]..][..win.w]
            .copy_from_slice(&src[y * win.w..][..win.w]);
    }
    let mut offsets = [0usize; MAX_TAPS];
    for (t, o) in offsets[..taps].iter_mut().enumerate() {
        *o = (t / kw) * dh * pw + (t % kw) * dw;
    }
    let mut bases = [0usize; MAX_TAPS];
    let mut fold_at = |start: usize| {
        for (b, o) in bases[..taps].iter_mut().zip(&offsets[..taps]) {
            *b = start + o;
        }
        fold_taps::<T, MAX>(pad_value, &copy, &bases[..taps])
    };
    if rows_flat {
        for q0 in (0..run).step_by(BLOCK) {
            let acc = fold_at(q0);
            // Lanes `l` are outputs `q0 + l` of the run: row `q / pw`, column `q % pw`,
            // stored when the column is one of the row's `ow`.
            let (mut y, mut x, mut l) = (q0 / pw, q0 % pw, 0);
            while l < BLOCK && y < win.oh {
                let take = (pw - x).min(BLOCK - l);
                if x < win.ow {
                    let n = (win.ow - x).min(take);
                    dst[y * win.ow + x..][..n].copy_from_slice(&acc[l..l + n]);
                }
                (l, x) = (l + take, x + take);
                if x == pw {
                    (y, x) = (y + 1, 0);
                }
            }
        }
    } else {
        for (y, row) in dst.chunks_exact_mut(win.ow).enumerate() {
            let start = y * win.stride[0] * pw;
            for c0 in (0..win.ow).step_by(BLOCK) {
                let n = BLOCK.min(win.ow - c0);
                row[c0..c0 + n].copy_from_slice(&fold_at(start + c0)[..n]);
            }
        }
    }
    T::put_scratch(copy);
    true
}

/// Column stride 2 on AVX-512, reading the rows in place (see the module comment).
#[cfg(target_arch = "x86_64")]
mod stride2 {
    use std::arch::x86_64::{
        __m512, _mm512_add_ps, _mm512_loadu_ps, _mm512_mask_loadu_ps, _mm512_mask_mov_ps,
        _mm512_mask_storeu_ps, _mm512_max_ps, _mm512_permutex2var_ps, _mm512_set1_ps,
        _mm512_setr_epi32,
    };

    use super::{BLOCK, Window};

    /// [`super::plane_fold`] for f32 with `win.stride[1] == 2`; the caller checked that the CPU
    /// has AVX-512F. `src` is the plane (`h × w`).
    pub(super) fn plane_fold<const MAX: bool>(win: &Window, src: &[f32], dst: &mut [f32]) {
        assert_eq!(src.len(), win.h * win.w, "one input plane");
        // SAFETY: the caller checked that the CPU has AVX-512F.
        unsafe {
            if win.dilation[1] == 1 && win.k[1] <= 3 {
                fold_plane_adjacent::<MAX>(win, src, dst)
            } else {
                fold_plane::<MAX>(win, src, dst)
            }
        }
    }

    /// [`fold_plane`] for windows of at most 3 adjacent columns (SqueezeNet's, ResNet-50's
    /// and the conv block's pools): a row's 32 columns from a block's first tap are loaded
    /// once and split into their even and odd columns, which are column taps 0 and 1, and
    /// tap 2 is the even ones shifted by one column (the last from one more element):
    /// two loads and three permutes per block and row of taps instead of two loads and a
    /// permute per tap. The same values are folded in the same order as [`fold_plane`]'s.
    ///
    /// # Safety
    /// The CPU must have AVX-512F; `win.dilation[1] == 1`, `win.k[1] <= 3`.
    #[target_feature(enable = "avx512f")]
    unsafe fn fold_plane_adjacent<const MAX: bool>(win: &Window, src: &[f32], dst: &mut [f32]) {
        let pad = _mm512_set1_ps(if MAX { f32::MIN } else { 0.0 });
        let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        let odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
        // Columns 2, 4, …, 30 of the 32, and lane 15 kept for column 32.
        let next = _mm512_setr_epi32(2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 0);
        // `vmaxps(cur, v)` is `cur > v ? cur : v`, NaN and signed zeros included.
        let fold = |cur: __m512, v: __m512| {
            if MAX {
                _mm512_max_ps(cur, v)
            } else {
                _mm512_add_ps(cur, v)
            }
        };
        let (h, w) = (win.h as isize, win.w as isize);
        let kw = win.k[1];
        debug_assert!(win.dilation[1] == 1 && kw <= 3);
        // Per block of 16 output columns: the input column of lane 0's first tap, which of
        // the 32 columns from it lie inside the row, and whether column 32 does (lane 15 of
        // tap 2). The same on every row: worked out once per strip of `STRIP` blocks (a
        // plane of up to 256 output columns is one strip), on the stack, since this runs
        // once per plane and band (SqueezeNet's pools, planes of 13 to 55 columns: a vector
        // of them per plane cost about as much as pooling the plane).
        const STRIP: usize = 16;
        let blocks = win.ow.div_ceil(BLOCK);
        let column = |b: usize| {
            let x0 = (2 * b * BLOCK) as isize - win.pad[1] as isize;
            let (lo, hi) = ((-x0).clamp(0, 32), (w - x0).clamp(0, 32));
            let keep = if hi > lo {
                (u32::MAX >> (32 - (hi - lo))) << lo
            } else {
                0
            };
            let last: u16 = if (0..w).contains(&(x0 + 32)) {
                1 << 15
            } else {
                0
            };
            (x0, keep, last)
        };
        for s0 in (0..blocks).step_by(STRIP) {
            let mut cols = [(0isize, 0u32, 0u16); STRIP];
            let strip = &mut cols[..STRIP.min(blocks - s0)];
            for (i, c) in strip.iter_mut().enumerate() {
                *c = column(s0 + i);
            }
            for (oy, row) in dst.chunks_mut(win.ow).enumerate() {
                for (bi, &(x0, keep, last)) in strip.iter().enumerate() {
                    let c0 = (s0 + bi) * BLOCK;
                    let n = BLOCK.min(row.len() - c0);
                    // The fold starts from the pad value (the TIR path's initial value).
                    let mut acc = pad;
                    for i in 0..win.k[0] {
                        let iy = (oy * win.stride[0] + i * win.dilation[0]) as isize
                            - win.pad[0] as isize;
                        if !(0..h).contains(&iy) {
                            for _ in 0..kw {
                                acc = fold(acc, pad);
                            }
                            continue;
                        }
                        // Element `e` of the 32 read is column `x0 + e` of row `iy`.
                        let at = src.as_ptr().wrapping_offset(iy * w + x0);
                        // SAFETY: the masks load only elements `e` with `0 <= x0 + e < w` (`e`
                        // up to 32; all of `0..32` when `keep` is full, loaded unmasked), on row
                        // `iy` of the plane (`0 <= iy < h`): inside `src`, which holds the
                        // `h × w` plane (asserted by the caller); masked-off lanes are not
                        // accessed (AVX-512 masked loads suppress their faults).
                        unsafe {
                            // A block whose 32 columns all lie inside the row loads them
                            // unmasked: on one thread (`library --calls 300 pool`),
                            // SqueezeNet's two larger pools 12% and 8% and ResNet-50's 6%
                            // faster, the conv block's 2 × 2 pool (two blocks a row, the
                            // second masked) 13% slower.
                            let (lo, hi) = if keep == u32::MAX {
                                (_mm512_loadu_ps(at), _mm512_loadu_ps(at.wrapping_add(16)))
                            } else {
                                (
                                    _mm512_mask_loadu_ps(pad, keep as u16, at),
                                    _mm512_mask_loadu_ps(
                                        pad,
                                        (keep >> 16) as u16,
                                        at.wrapping_add(16),
                                    ),
                                )
                            };
                            acc = fold(acc, _mm512_permutex2var_ps(lo, even, hi));
                            if kw > 1 {
                                acc = fold(acc, _mm512_permutex2var_ps(lo, odd, hi));
                            }
                            if kw > 2 {
                                let v = _mm512_permutex2var_ps(lo, next, hi);
                                // Lane 15 is column 32: element 32 of the row from `at`.
                                let v = _mm512_mask_loadu_ps(v, last, at.wrapping_add(32 - 15));
                                let v = _mm512_mask_mov_ps(v, !last & (1 << 15), pad);
                                acc = fold(acc, v);
                            }
                        }
                    }
                    let mask = crate::library::first_lanes(n);
                    // SAFETY: the mask writes lanes `0..n`, columns `c0..c0 + n` of the row.
                    unsafe { _mm512_mask_storeu_ps(row.as_mut_ptr().add(c0), mask, acc) };
                }
            }
        }
    }

    /// Every block of 16 output columns folds its taps in a register: a tap's 32 input
    /// columns (its 16 even ones are the block's) come from two masked loads, the lanes
    /// outside the row taking the pad value, so that the padded edges take the same path as
    /// the middle; a tap on a row outside the plane folds the pad value.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn fold_plane<const MAX: bool>(win: &Window, src: &[f32], dst: &mut [f32]) {
        let pad = _mm512_set1_ps(if MAX { f32::MIN } else { 0.0 });
        let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        // `vmaxps(cur, v)` is `cur > v ? cur : v`, NaN and signed zeros included.
        let fold = |cur: __m512, v: __m512| {
            if MAX {
                _mm512_max_ps(cur, v)
            } else {
                _mm512_add_ps(cur, v)
            }
        };
        let (h, w) = (win.h as isize, win.w as isize);
        // Per block of 16 output columns and column tap `j`: the input column of lane 0's
        // tap, and which of the 32 columns from it lie inside the row (the same on every
        // row, so computed once).
        let blocks = win.ow.div_ceil(BLOCK);
        let kw = win.k[1];
        let cols: Vec<(isize, u32)> = (0..blocks * kw)
            .map(|bj| {
                let (b, j) = (bj / kw, bj % kw);
                let x0 = (2 * b * BLOCK + j * win.dilation[1]) as isize - win.pad[1] as isize;
                let (lo, hi) = ((-x0).clamp(0, 32), (w - x0).clamp(0, 32));
                let keep = if hi > lo {
                    (u32::MAX >> (32 - (hi - lo))) << lo
                } else {
                    0
                };
                (x0, keep)
            })
            .collect();
        for (oy, row) in dst.chunks_mut(win.ow).enumerate() {
            for (b, taps) in cols.chunks_exact(kw).enumerate() {
                let c0 = b * BLOCK;
                let n = BLOCK.min(row.len() - c0);
                // The fold starts from the pad value (the TIR path's initial value).
                let mut acc = pad;
                for i in 0..win.k[0] {
                    let iy =
                        (oy * win.stride[0] + i * win.dilation[0]) as isize - win.pad[0] as isize;
                    if !(0..h).contains(&iy) {
                        for _ in 0..kw {
                            acc = fold(acc, pad);
                        }
                        continue;
                    }
                    let line = src.as_ptr().wrapping_offset(iy * w);
                    for &(x0, keep) in taps {
                        // Element `e` of the 32 read is column `x0 + e` of row `iy`.
                        let at = line.wrapping_offset(x0);
                        // SAFETY: the masks load only elements `e` with `0 <= x0 + e < w`,
                        // on row `iy` of the plane (`0 <= iy < h`): inside `src`, which holds
                        // the `h × w` plane (asserted by the caller); masked-off lanes are
                        // not accessed (AVX-512 masked loads suppress their faults).
                        let v = unsafe {
                            let a = _mm512_mask_loadu_ps(pad, keep as u16, at);
                            let b =
                                _mm512_mask_loadu_ps(pad, (keep >> 16) as u16, at.wrapping_add(16));
                            _mm512_permutex2var_ps(a, even, b)
                        };
                        acc = fold(acc, v);
                    }
                }
                let mask = crate::library::first_lanes(n);
                // SAFETY: the mask writes lanes `0..n`, columns `c0..c0 + n` of the row.
                unsafe { _mm512_mask_storeu_ps(row.as_mut_ptr().add(c0), mask, acc) };
            }
        }
    }
}

/// Output columns folded together in registers.
const BLOCK: usize = 16;

/// Taps of a window folded from their offsets at most (larger windows take the general path).
const MAX_TAPS: usize = 64;

/// `fold(init, src[b..][..BLOCK])` over the offsets `b` of `bases`, in order: every lane
/// folds `cur > v ? cur : v` (which is what SSE's `maxps(cur, v)` computes, NaN and signed
/// zeros included) or `cur + v`. Each lane's accumulator stays in a register; the compiler
/// would unroll a generic loop over a fixed-size block into scalar code on the stack, so f32
/// takes SSE (part of the x86-64 baseline) explicitly.
#[inline(always)]
fn fold_taps<T: Float, const MAX: bool>(init: T, src: &[T], bases: &[usize]) -> [T; BLOCK] {
    let mut acc = [init; BLOCK];
    #[cfg(target_arch = "x86_64")]
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>() {
        use std::arch::x86_64::{
            __m128, _mm_add_ps, _mm_loadu_ps, _mm_max_ps, _mm_set1_ps, _mm_storeu_ps,
        };
        let fold = |x: __m128, v: __m128| {
            // SAFETY: SSE is part of the x86-64 baseline, so the CPU has it.
            unsafe {
                if MAX {
                    _mm_max_ps(x, v)
                } else {
                    _mm_add_ps(x, v)
                }
            }
        };
        // SAFETY: T is f32 (checked above).
        let init: f32 = unsafe { std::mem::transmute_copy(&init) };
        // SAFETY: SSE is part of the x86-64 baseline, so the CPU has it.
        let mut a = [unsafe { _mm_set1_ps(init) }; BLOCK / 4];
        for &b in bases {
            let t = src[b..][..BLOCK].as_ptr().cast::<f32>();
            for (q, x) in a.iter_mut().enumerate() {
                // SAFETY: T is f32 and the slice above holds BLOCK of them, so lanes
                // 4q .. 4q + 4 are in bounds.
                *x = fold(*x, unsafe { _mm_loadu_ps(t.add(4 * q)) });
            }
        }
        let out = acc.as_mut_ptr().cast::<f32>();
        for (q, x) in a.iter().enumerate() {
            // SAFETY: T is f32 and `acc` holds BLOCK of them, so lanes 4q .. 4q + 4 are in
            // bounds.
            unsafe { _mm_storeu_ps(out.add(4 * q), *x) };
        }
        return acc;
    }
    for &b in bases {
        fold_block::<T, MAX>(&mut acc, &src[b..][..BLOCK]);
    }
    acc
}

/// `acc[l] = fold(acc[l], taps[l])` for every lane (see [`fold_taps`]).
#[inline(always)]
fn fold_block<T: Float, const MAX: bool>(acc: &mut [T; BLOCK], taps: &[T]) {
    for (a, v) in acc.iter_mut().zip(&taps[..BLOCK]) {
        *a = if MAX {
            if *a > *v { *a } else { *v }
        } else {
            *a + *v
        };
    }
}

/// What each window's sum is divided by: the window size, or (padding excluded) TVM's count of
/// its elements inside the data, the same for every plane. Computed once per call: per plane,
/// its two buffers and the recomputed counts took as long as the plane's sums on Inception's
/// 3 × 3 pools of 7 × 7 planes (`library pool_inc`: 1024 planes of 7 × 7 on one thread 695 →
/// 345 µs, 256 of 28 × 28 957 → 748 µs; on two threads 700 → 193 µs and 535 → 389 µs, the
/// per-plane allocations having held the threads up in the allocator).
enum Divisors<T> {
    All(T),
    /// One per output position of a plane.
    Each(Vec<T>),
}

impl<T: Float> Divisors<T> {
    fn of(win: &Window) -> Divisors<T> {
        let full = (win.k[0] * win.k[1]) as i64;
        if win.include_pad || !win.any_pad {
            return Divisors::All(T::from_i64(full));
        }
        // The count is the row's count times the column's.
        let cols: Vec<i64> = (0..win.ow).map(|ox| win.inside(1, ox, win.w)).collect();
        let mut each = Vec::with_capacity(win.oh * win.ow);
        for oy in 0..win.oh {
            let cy = win.inside(0, oy, win.h);
            each.extend(cols.iter().map(|&cx| T::from_i64((cy * cx).max(1))));
        }
        Divisors::Each(each)
    }

    /// Divides the sums of one plane's outputs `first..first + dst.len()`, `dst`.
    fn divide_from(&self, dst: &mut [T], first: usize) {
        match self {
            Divisors::All(n) => dst.iter_mut().for_each(|o| *o = o.div(*n)),
            Divisors::Each(d) => dst
                .iter_mut()
                .zip(&d[first..])
                .for_each(|(o, &d)| *o = o.div(d)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::test_support::{GUARD, guarded, xorshift};

    /// The TIR legalization's fold, written out: every window's taps `(i, j)` in order from
    /// the pad value, a tap outside the data folding the pad value, `cur > v ? cur : v` (max)
    /// or `cur + v` (the sum an average divides).
    fn reference_fold<T: Float>(win: &Window, src: &[T], is_max: bool) -> Vec<T> {
        let pad = if is_max { T::LOWEST } else { T::ZERO };
        let mut out = vec![T::ZERO; win.oh * win.ow];
        for oy in 0..win.oh {
            for ox in 0..win.ow {
                let mut cur = pad;
                for i in 0..win.k[0] {
                    for j in 0..win.k[1] {
                        let iy = (oy * win.stride[0] + i * win.dilation[0]) as isize
                            - win.pad[0] as isize;
                        let ix = (ox * win.stride[1] + j * win.dilation[1]) as isize
                            - win.pad[1] as isize;
                        let v = if (0..win.h as isize).contains(&iy)
                            && (0..win.w as isize).contains(&ix)
                        {
                            src[iy as usize * win.w + ix as usize]
                        } else {
                            pad
                        };
                        cur = match is_max {
                            true if cur > v => cur,
                            true => v,
                            false => cur + v,
                        };
                    }
                }
                out[oy * win.ow + ox] = cur;
            }
        }
        out
    }

    /// Every path (the AVX-512 ones where the CPU has it) folds the same values in the same
    /// order as the TIR path: bit for bit, NaNs and signed zeros included, whose results
    /// depend on that order. Float64 too: on an AVX-512 host the f32 pools take the
    /// in-place AVX-512 paths, and f64 is what runs the generic ones (the stride-2 column
    /// split through `every_second` among them) there.
    #[test]
    fn pools_fold_in_the_tir_order_with_nans_and_signed_zeros() {
        check_pools_fold_in_the_tir_order::<f32>(|v| v, |v| u64::from(v.to_bits()));
        check_pools_fold_in_the_tir_order::<f64>(f64::from, f64::to_bits);
    }

    fn check_pools_fold_in_the_tir_order<T: Float + std::fmt::Debug>(
        of: fn(f32) -> T,
        bits: fn(T) -> u64,
    ) {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        // (h, w, kh, kw, sh, sw, pad t/l/b/r, dilation h/w, ceil)
        let cases: &[[i64; 13]] = &[
            [111, 111, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 0],
            [13, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0],
            [9, 75, 3, 2, 2, 2, 1, 0, 1, 1, 1, 1, 1],
            [12, 33, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0],
            [7, 70, 3, 1, 2, 2, 0, 1, 0, 0, 1, 1, 1],
            [11, 37, 3, 3, 2, 2, 0, 1, 0, 1, 2, 2, 0],
            [10, 35, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0],
            // Column stride 1 with padding: the padded copy, as one run (row stride 1) or
            // row by row.
            [28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0],
            [7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0],
            [14, 14, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1],
            [9, 20, 3, 2, 1, 1, 2, 1, 0, 3, 2, 3, 0],
            [3, 1, 2, 4, 1, 1, 0, 2, 1, 2, 1, 1, 0],
            [5, 6, 3, 3, 3, 1, 2, 2, 2, 2, 1, 1, 1],
            // Edges of the masked AVX-512 loads (column stride 2): 1-wide planes, paddings
            // wider than the window, dilations longer than the row, the 33rd column that
            // tap 2 of a 3-wide window reads from the 32 loaded (inside the row or one past
            // it), and a window taller than the plane.
            [1, 1, 1, 1, 1, 2, 0, 1, 0, 1, 1, 1, 0],
            [2, 1, 2, 3, 1, 2, 1, 2, 1, 2, 1, 1, 1],
            [3, 3, 2, 2, 2, 2, 5, 5, 5, 5, 1, 1, 0],
            [4, 4, 2, 2, 2, 2, 5, 5, 5, 5, 9, 9, 1],
            [2, 33, 1, 3, 1, 2, 0, 0, 0, 0, 1, 1, 0],
            [2, 32, 1, 3, 1, 2, 0, 0, 0, 0, 1, 1, 1],
            [2, 34, 2, 3, 1, 2, 1, 1, 1, 1, 1, 1, 1],
            [3, 65, 3, 3, 2, 2, 0, 1, 0, 1, 1, 1, 1],
            [2, 40, 5, 2, 1, 2, 6, 0, 6, 0, 3, 7, 0],
            // More than one strip of 16 blocks of output columns (301 and 258 of them).
            [5, 601, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0],
            [3, 514, 3, 2, 2, 2, 0, 1, 0, 1, 1, 1, 1],
        ];
        for c in cases {
            let [h, w, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, ceil] = *c;
            // The output extent as shape inference computes it (ceil mode drops a last
            // window that starts in the padding after the data).
            let out_dim = |size: i64, k: i64, s: i64, d: i64, lo: i64, hi: i64| {
                let window = SlidingWindow {
                    stride: s,
                    dilation: d,
                    pad_before: lo,
                    pad_after: hi,
                    ceil_mode: ceil == 1,
                };
                let n = window.positions(size, k).expect("a valid window");
                assert!(n > 0, "window {c:?} has no positions");
                n as usize
            };
            let (oh, ow) = (
                out_dim(h, kh, sh, dh, pt, pb),
                out_dim(w, kw, sw, dw, pl, pr),
            );
            let x: Vec<T> = (0..h * w)
                .map(|_| match next() % 16 {
                    0 => f32::NAN,
                    1 => -0.0,
                    2 => 0.0,
                    3 => f32::NEG_INFINITY,
                    r => (r as f32 - 9.0) * 0.25,
                })
                .map(of)
                .collect();
            for (is_max, include_pad) in [(true, 0), (false, 0), (false, 1)] {
                let params = [kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, ceil, include_pad];
                let (x_shape, out_shape) = (vec![1, 1, h as usize, w as usize], [1, 1, oh, ow]);
                // The plane between guards, which a read past its ends would fold into the
                // result (+inf: the largest value, and it dominates a sum) and a write past
                // the output's would overwrite; AddressSanitizer checks the masked loads and
                // stores lane by lane too.
                let guard = of(f32::INFINITY);
                let (guarded, inside) = guarded(&x, guard);
                let view = View {
                    data: &guarded[inside],
                    shape: x_shape.clone(),
                };
                let mut out = vec![guard; oh * ow + 2 * GUARD];
                out[GUARD..GUARD + oh * ow].fill(of(1.5));
                let got = &mut out[GUARD..GUARD + oh * ow];
                pool2d(&view, &params, is_max, got, &out_shape).expect("a valid window");
                let untouched = |g: &[T]| g.iter().all(|&v| bits(v) == bits(guard));
                assert!(
                    untouched(&out[..GUARD]) && untouched(&out[GUARD + oh * ow..]),
                    "{} window {c:?}, max {is_max}: a write past the output",
                    T::DTYPE
                );
                let got = &out[GUARD..GUARD + oh * ow];
                let win = Window::new(&x_shape, &params, &out_shape).expect("a valid window");
                let mut want = reference_fold(&win, &x, is_max);
                if !is_max {
                    Divisors::of(&win).divide_from(&mut want, 0);
                }
                let bits = |v: &[T]| v.iter().map(|&f| bits(f)).collect::<Vec<u64>>();
                assert_eq!(
                    bits(got),
                    bits(&want),
                    "{} window {c:?}, max {is_max}",
                    T::DTYPE
                );
                // Cut into bands of rows, as the parallel pool cuts planes (where every band
                // reads the data): the same bits, no write past a band, and no read past the
                // plane (the guards would fold in).
                for bands in 2..=5.min(oh) {
                    let Some(cuts) = (0..bands)
                        .map(|b| Band::of(&win, b, bands))
                        .collect::<Option<Vec<Band>>>()
                    else {
                        continue;
                    };
                    let divisors = (!is_max).then(|| Divisors::of(&win));
                    let mut whole = Vec::new();
                    for (band, cut) in cuts.iter().enumerate() {
                        let rows = super::super::band_rows(oh, band, bands).len();
                        let mut out = vec![guard; rows * ow + 2 * GUARD];
                        let dst = &mut out[GUARD..GUARD + rows * ow];
                        band_pool(cut, view.data, divisors.as_ref(), dst);
                        assert!(
                            untouched(&out[..GUARD]) && untouched(&out[GUARD + rows * ow..]),
                            "{} window {c:?}, band {band} of {bands}: a write past the band",
                            T::DTYPE
                        );
                        whole.extend_from_slice(&out[GUARD..GUARD + rows * ow]);
                    }
                    assert_eq!(
                        bits(&whole),
                        bits(&want),
                        "{} window {c:?}, max {is_max}, in {bands} bands",
                        T::DTYPE
                    );
                }
            }
        }
    }
}
