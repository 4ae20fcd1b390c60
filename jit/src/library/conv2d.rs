//! `relaxjit.conv2d*`: NCHW/OIHW 2-D convolution with strides, padding, dilation and groups.
//! Groups of more than one input channel run as GEMMs — the weights `(O/g) × (C/g·KH·KW)` times
//! the image unfolded into columns (im2col, in a reused per-thread buffer, skipped for a 1×1
//! unstrided, unpadded kernel whose image already is that matrix). Groups of one input
//! channel (depthwise) run a direct kernel, one output plane per task, the inner loop over
//! contiguous output columns.

use rayon::prelude::*;
use vm::{Error, Result};

use super::{Float, Mat, PARALLEL_ELEMENTS, View, gemm_into, parallelism};

/// The geometry of one convolution, checked against the tensors.
struct Geometry {
    n: usize,
    c: usize,
    h: usize,
    w: usize,
    o: usize,
    kh: usize,
    kw: usize,
    oh: usize,
    ow: usize,
    groups: usize,
    stride: [usize; 2],
    /// Top and left padding (bottom and right only shape the output).
    pad: [usize; 2],
    dilation: [usize; 2],
}

impl Geometry {
    fn new(x: &[usize], wt: &[usize], p: &[i64], out: &[usize]) -> Result<Geometry> {
        let bad = |what: String| Err(Error::value_error(what));
        let ([n, c, h, w], [o, cg, kh, kw]) = (x, wt) else {
            return bad(format!(
                "conv2d of shapes {x:?} and {wt:?}; both must be 4-D (NCHW, OIHW)"
            ));
        };
        let (n, c, h, w, o, cg, kh, kw) = (*n, *c, *h, *w, *o, *cg, *kh, *kw);
        // stride (h, w), padding (top, left, bottom, right), dilation (h, w), groups.
        let Ok(p) = p
            .iter()
            .map(|&v| usize::try_from(v))
            .collect::<std::result::Result<Vec<usize>, _>>()
        else {
            return bad(format!("conv2d parameters {p:?}: none may be negative"));
        };
        let [sh, sw, pt, pl, pb, pr, dh, dw, groups] = p[..] else {
            return bad(format!("conv2d takes 9 integer parameters, got {p:?}"));
        };
        let (stride, pad, dilation) = ([sh, sw], [pt, pl], [dh, dw]);
        if stride.contains(&0) || dilation.contains(&0) || groups == 0 {
            return bad(format!(
                "conv2d parameters {p:?}: strides, dilation and groups must be positive"
            ));
        }
        if c % groups != 0 || o % groups != 0 || cg != c / groups {
            return bad(format!(
                "conv2d of {c} input and {o} output channels in {groups} groups with weights {wt:?}"
            ));
        }
        let extent = |size: usize, lo: usize, hi: usize, k: usize, s: usize, d: usize| {
            let span = d * (k.max(1) - 1) + 1;
            (size + lo + hi).checked_sub(span).map_or(0, |v| v / s + 1)
        };
        let oh = extent(h, pt, pb, kh, sh, dh);
        let ow = extent(w, pl, pr, kw, sw, dw);
        if out != [n, o, oh, ow] {
            return bad(format!(
                "conv2d output shape {out:?}, expected {:?}",
                [n, o, oh, ow]
            ));
        }
        Ok(Geometry {
            n,
            c,
            h,
            w,
            o,
            kh,
            kw,
            oh,
            ow,
            groups,
            stride,
            pad,
            dilation,
        })
    }

    /// The output columns `[lo, hi)` whose input column `ow * stride + off` is inside the
    /// image, for a kernel tap at offset `off` (dilated tap minus padding).
    fn valid(&self, off: isize, stride: usize, size: usize, out: usize) -> (usize, usize) {
        let s = stride as isize;
        let lo = if off >= 0 { 0 } else { (-off + s - 1) / s };
        let hi = (size as isize - off + s - 1).div_euclid(s).max(0);
        let (lo, hi) = (
            lo.min(out as isize) as usize,
            (hi.min(out as isize)) as usize,
        );
        (lo, hi.max(lo))
    }
}

pub(super) fn conv2d<T: Float>(
    x: &View<T>,
    wt: &View<T>,
    params: &[i64],
    out: &mut [T],
    out_shape: &[usize],
    read_dst: bool,
) -> Result<()> {
    let g = Geometry::new(&x.shape, &wt.shape, params, out_shape)?;
    if out.is_empty() {
        return Ok(());
    }
    if g.c / g.groups == 1 {
        depthwise(&g, x.data, wt.data, out, read_dst);
        return Ok(());
    }
    let cg = g.c / g.groups;
    let og = g.o / g.groups;
    let kdim = cg * g.kh * g.kw;
    let plane = g.oh * g.ow;
    if kdim == 0 {
        if !read_dst {
            out.fill(T::ZERO);
        }
        return Ok(());
    }
    let direct = g.kh == 1
        && g.kw == 1
        && g.stride == [1, 1]
        && g.pad == [0, 0]
        && (g.oh, g.ow) == (g.h, g.w);
    let mut cols = if direct {
        Vec::new()
    } else {
        T::take_scratch()
    };
    if !direct {
        cols.clear();
        cols.resize(kdim * plane, T::ZERO);
    }
    for n in 0..g.n {
        for grp in 0..g.groups {
            let image = &x.data[(n * g.c + grp * cg) * g.h * g.w..][..cg * g.h * g.w];
            let rhs = if direct {
                image.as_ptr()
            } else {
                im2col(&g, image, cg, &mut cols);
                cols.as_ptr()
            };
            let dst = &mut out[(n * g.o + grp * og) * plane..][..og * plane];
            let lhs = &wt.data[grp * og * kdim..][..og * kdim];
            // SAFETY: `lhs` is `og × kdim` row-major, `rhs` `kdim × plane` row-major (the image
            // itself when direct, since then `plane == h·w` and `kdim == cg`), `dst` a distinct
            // `og × plane` slice.
            unsafe {
                gemm_into(
                    og,
                    plane,
                    kdim,
                    dst.as_mut_ptr(),
                    plane as isize,
                    read_dst,
                    Mat {
                        ptr: lhs.as_ptr(),
                        rs: kdim as isize,
                        cs: 1,
                    },
                    Mat {
                        ptr: rhs,
                        rs: plane as isize,
                        cs: 1,
                    },
                    parallelism(og, plane, kdim),
                );
            }
        }
    }
    if !direct {
        T::put_scratch(cols);
    }
    Ok(())
}

/// Unfolds one group's image (`cg × h × w`) into `cols`: row `(c, i, j)` holds, for each
/// output position, the input under kernel tap `(i, j)` of channel `c` (zero in the padding).
fn im2col<T: Float>(g: &Geometry, image: &[T], cg: usize, cols: &mut [T]) {
    let plane = g.oh * g.ow;
    let fill = |r: usize, row: &mut [T]| {
        let (c, tap) = (r / (g.kh * g.kw), r % (g.kh * g.kw));
        let (i, j) = (tap / g.kw, tap % g.kw);
        let src = &image[c * g.h * g.w..][..g.h * g.w];
        let off_w = (j * g.dilation[1]) as isize - g.pad[1] as isize;
        let (lo, hi) = g.valid(off_w, g.stride[1], g.w, g.ow);
        for (oy, out_row) in row.chunks_mut(g.ow).enumerate() {
            let iy = (oy * g.stride[0] + i * g.dilation[0]) as isize - g.pad[0] as isize;
            if iy < 0 || iy >= g.h as isize {
                out_row.fill(T::ZERO);
                continue;
            }
            let in_row = &src[iy as usize * g.w..][..g.w];
            out_row[..lo].fill(T::ZERO);
            out_row[hi..].fill(T::ZERO);
            if g.stride[1] == 1 {
                let start = (lo as isize + off_w) as usize;
                out_row[lo..hi].copy_from_slice(&in_row[start..start + (hi - lo)]);
            } else {
                for (ox, o) in out_row[lo..hi].iter_mut().enumerate() {
                    *o = in_row[((ox + lo) * g.stride[1]).wrapping_add_signed(off_w)];
                }
            }
        }
    };
    let rows = cg * g.kh * g.kw;
    let cols = &mut cols[..rows * plane];
    if cols.len() >= PARALLEL_ELEMENTS {
        cols.par_chunks_mut(plane)
            .enumerate()
            .for_each(|(r, row)| fill(r, row));
    } else {
        cols.chunks_mut(plane)
            .enumerate()
            .for_each(|(r, row)| fill(r, row));
    }
}

/// One input channel per group: each output plane `(n, o)` accumulates its taps directly.
fn depthwise<T: Float>(g: &Geometry, x: &[T], wt: &[T], out: &mut [T], read_dst: bool) {
    let plane = g.oh * g.ow;
    let og = g.o / g.groups;
    let taps = g.kh * g.kw;
    let one = |p: usize, dst: &mut [T]| {
        let (n, o) = (p / g.o, p % g.o);
        let c = o / og;
        if !read_dst {
            dst.fill(T::ZERO);
        }
        let src = &x[(n * g.c + c) * g.h * g.w..][..g.h * g.w];
        let k = &wt[o * taps..][..taps];
        for i in 0..g.kh {
            for j in 0..g.kw {
                let wv = k[i * g.kw + j];
                let off_w = (j * g.dilation[1]) as isize - g.pad[1] as isize;
                let (lo, hi) = g.valid(off_w, g.stride[1], g.w, g.ow);
                for (oy, out_row) in dst.chunks_mut(g.ow).enumerate() {
                    let iy = (oy * g.stride[0] + i * g.dilation[0]) as isize - g.pad[0] as isize;
                    if iy < 0 || iy >= g.h as isize {
                        continue;
                    }
                    let in_row = &src[iy as usize * g.w..][..g.w];
                    if g.stride[1] == 1 {
                        let start = (lo as isize + off_w) as usize;
                        for (o, v) in out_row[lo..hi].iter_mut().zip(&in_row[start..]) {
                            *o += wv.mul(*v);
                        }
                    } else {
                        for (ox, o) in out_row[lo..hi].iter_mut().enumerate() {
                            let v = in_row[((ox + lo) * g.stride[1]).wrapping_add_signed(off_w)];
                            *o += wv.mul(v);
                        }
                    }
                }
            }
        }
    };
    if out.len() >= PARALLEL_ELEMENTS / 4 {
        out.par_chunks_mut(plane)
            .enumerate()
            .for_each(|(p, dst)| one(p, dst));
    } else {
        out.chunks_mut(plane)
            .enumerate()
            .for_each(|(p, dst)| one(p, dst));
    }
}
