//! `relaxjit.conv2d*`: NCHW/OIHW 2-D convolution with strides, padding, dilation and groups,
//! and its epilogue (an inference batch norm, bias and residual addends, an activation).
//! Groups of more than one input channel run as GEMMs — the weights `(O/g) × (C/g·KH·KW)` times
//! the image unfolded into columns — cut into tasks over (image, group, block of output
//! channels, tile of output positions) spread over the pool. Each task unfolds its tile of
//! columns into a per-thread buffer of about L2 size (im2col; a 1×1 unstrided, unpadded kernel
//! reads the image directly), multiplies on its thread, and applies the epilogue to its output
//! tile while it is still in cache. When the plane is too small to give every thread a tile of
//! its own (ResNet's 14×14 and 7×7 stages), blocks of output channels share tiles, and the
//! plane is unfolded once, in parallel, before the tasks start rather than once per block.
//! On AVX-512, f32 convolutions with a small inner dimension run our own kernel instead of the
//! GEMM (module `small_k`), the epilogue applied in registers; those whose weights the
//! dispatch pass packed in panels of output channels (`packs_conv_weights`) run a kernel
//! vectorized along the output channels that reads the image in place through a table of tap
//! offsets (a zero-padded copy of the image when there is padding, one input's size rather
//! than the unfolding's `KH·KW` times). Groups of one input channel
//! (depthwise) run a direct kernel, one output plane per task, the inner loop over contiguous
//! output columns.

use tir::arith::SlidingWindow;
use vm::{Error, Result};

use relax::transform::dispatch_library::{Activation, CONV_PANEL, WINOGRAD_POINTS, WINOGRAD_ROWS};

mod winograd;

use super::{
    Float, Mat, PARALLEL_ELEMENTS, SendPtr, View, activate_serial, for_each_chunk, gemm_into,
};

/// The geometry of one convolution, checked against the tensors.
#[derive(Clone)]
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
    /// The weights come packed in panels of output channels (`[⌈O/32⌉, C, KH, KW, 32]`,
    /// `relax::transform::dispatch_library::pack_conv_weights`) rather than as OIHW.
    packed: bool,
    /// The weights come transformed for Winograd F(4×4, 3×3) (`[45, O, C]`: 36 points, then
    /// the 9 taps; `relax::transform::dispatch_library::winograd_conv_weights`) rather than
    /// as OIHW: a 3×3 kernel, stride 1, dilation 1, one group.
    winograd: bool,
}

impl Geometry {
    fn new(x: &[usize], wt: &[usize], p: &[i64], out: &[usize]) -> Result<Geometry> {
        let bad = |what: String| Err(Error::value_error(what));
        let packed = wt.len() == 5;
        let winograd = wt.len() == 3;
        let wt4 = match *wt {
            [points, o, c] => {
                let want_o = out.get(1).copied().unwrap_or(0);
                let want_c = x.get(1).copied().unwrap_or(0);
                if points != WINOGRAD_ROWS || o != want_o || c != want_c {
                    return bad(format!(
                        "conv2d Winograd-transformed weights of shape {wt:?} for {want_c} input and {want_o} output channels; expected [{WINOGRAD_ROWS}, {want_o}, {want_c}]"
                    ));
                }
                [o, c, 3, 3]
            }
            [p, cg, kh, kw, lanes] => {
                let o = out.get(1).copied().unwrap_or(0);
                if lanes != CONV_PANEL || p != o.div_ceil(CONV_PANEL) {
                    return bad(format!(
                        "conv2d packed weights of shape {wt:?} for {o} output channels; expected [{}, C, KH, KW, {CONV_PANEL}]",
                        o.div_ceil(CONV_PANEL)
                    ));
                }
                [o, cg, kh, kw]
            }
            [o, cg, kh, kw] => [o, cg, kh, kw],
            _ => [0; 4],
        };
        let ([n, c, h, w], 3..=5) = (x, wt.len()) else {
            return bad(format!(
                "conv2d of shapes {x:?} and {wt:?}; both must be 4-D (NCHW, OIHW) or the weights 5-D (packed) or 3-D (Winograd)"
            ));
        };
        let (n, c, h, w) = (*n, *c, *h, *w);
        let [o, cg, kh, kw] = wt4;
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
        let (pad, dilation) = ([pt, pl], [dh, dw]);
        if [sh, sw].contains(&0) || dilation.contains(&0) || groups == 0 {
            return bad(format!(
                "conv2d parameters {p:?}: strides, dilation and groups must be positive"
            ));
        }
        if c % groups != 0 || o % groups != 0 || cg != c / groups {
            return bad(format!(
                "conv2d of {c} input and {o} output channels in {groups} groups with weights {wt:?}"
            ));
        }
        if packed && (groups != 1 || c < 2) {
            return bad(format!(
                "conv2d packed weights {wt:?} need one group of more than one input channel, got {groups} groups of {c} channels"
            ));
        }
        if winograd && ([sh, sw] != [1, 1] || dilation != [1, 1] || groups != 1) {
            return bad(format!(
                "conv2d Winograd-transformed weights {wt:?} need stride 1, dilation 1 and one group, got parameters {p:?}"
            ));
        }
        // The output positions as shape inference counted them (exact for strides, paddings and
        // dilations up to 2^63 − 1); a window longer than the padded data has none.
        let extent = |size: usize, lo: usize, hi: usize, k: usize, s: usize, d: usize| {
            let window = SlidingWindow {
                stride: s as i64,
                dilation: d as i64,
                pad_before: lo as i64,
                pad_after: hi as i64,
                ceil_mode: false,
            };
            window
                .positions(size as i64, k as i64)
                .and_then(|v| usize::try_from(v).ok())
                .unwrap_or(0)
        };
        let oh = extent(h, pt, pb, kh, sh, dh);
        let ow = extent(w, pl, pr, kw, sw, dw);
        // The stride spaces the output positions: with one position it is never applied, and
        // a stride of 2^63 − 1 (which a single position allows) would overflow what it
        // multiplies.
        let stride = [if oh == 1 { 1 } else { sh }, if ow == 1 { 1 } else { sw }];
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
            packed,
            winograd,
        })
    }
}

/// What is added to output element `(n, o, y, x)` before the activation: a per-channel value
/// (a bias), or a tensor of the output's shape (a residual), read at the output's offset.
#[derive(Clone, Copy)]
pub(super) enum Addend<'a, T> {
    /// `data[o * step]` (`step` 0 for a single value broadcast everywhere).
    Channel {
        data: &'a [T],
        step: usize,
    },
    Full(&'a [T]),
}

impl<'a, T: Float> Addend<'a, T> {
    /// How `a` broadcasts to the NCHW `out` shape, if it is one of the two fused forms.
    pub(super) fn classify(a: &View<'a, T>, out: &[usize]) -> Option<Addend<'a, T>> {
        if a.shape.len() > out.len() || out.len() != 4 {
            return None;
        }
        let mut s = vec![1usize; out.len() - a.shape.len()];
        s.extend_from_slice(&a.shape);
        if s == out {
            return Some(Addend::Full(a.data));
        }
        if s[0] == 1 && s[2] == 1 && s[3] == 1 && (s[1] == out[1] || s[1] == 1) {
            let step = usize::from(s[1] != 1);
            return Some(Addend::Channel { data: a.data, step });
        }
        None
    }
}

/// An inference batch normalization over the output channels:
/// `((v - mean[o]) * rs[o]) * gamma[o] + beta[o]` with `rs = 1 / sqrt(var + eps)` (the TIR
/// legalization's order of operations).
pub(super) struct Norm<T> {
    mean: Vec<T>,
    rs: Vec<T>,
    gamma: Vec<T>,
    beta: Vec<T>,
}

impl<T: Float> Norm<T> {
    /// From the views `[gamma, beta, mean, var]`, each of the output's channel count.
    pub(super) fn new(stats: &[View<T>], eps: f64, out: &[usize]) -> Result<Norm<T>> {
        let channels = out.get(1).copied().unwrap_or(0);
        for (i, s) in stats.iter().enumerate() {
            if s.shape != [channels] {
                return Err(Error::value_error(format!(
                    "batch norm statistic {i} has shape {:?}, expected [{channels}]",
                    s.shape
                )));
            }
        }
        let [gamma, beta, mean, var] = stats else {
            return Err(Error::value_error(format!(
                "a batch norm takes 4 statistics, got {}",
                stats.len()
            )));
        };
        let eps = T::from_f64(eps);
        Ok(Norm {
            mean: mean.data.to_vec(),
            rs: var.data.iter().map(|&v| (v + eps).rsqrt()).collect(),
            gamma: gamma.data.to_vec(),
            beta: beta.data.to_vec(),
        })
    }
}

/// The epilogue of a convolution, applied to each output tile while it is in cache.
pub(super) struct Epilogue<'a, T> {
    pub norm: Option<Norm<T>>,
    pub addends: Vec<Addend<'a, T>>,
    /// The output already holds the addends (of a shape that fits neither fused form).
    pub preloaded: bool,
    pub act: Option<Activation>,
}

impl<T: Float> Epilogue<'_, T> {
    /// Whether the kernel must accumulate into the output rather than overwrite it.
    fn read_dst(&self) -> bool {
        self.norm.is_none() && (self.preloaded || !self.addends.is_empty())
    }

    /// Whether [`Epilogue::finish`] has work to do.
    fn finishes(&self) -> bool {
        self.norm.is_some() || self.act.is_some()
    }

    /// Seeds `dst`, the output elements at flat offsets `off..off + dst.len()` of channel `o`,
    /// with the sum of the addends, or adds them onto a preloaded output (a no-op when there
    /// are none, or with a batch norm, which must see the convolution alone).
    fn seed(&self, dst: &mut [T], o: usize, off: usize) {
        if self.norm.is_some() {
            return;
        }
        self.add(dst, o, off, !self.preloaded);
    }

    /// Adds the addends to `dst` (the first overwrites it when `first_sets`).
    fn add(&self, dst: &mut [T], o: usize, off: usize, first_sets: bool) {
        let len = dst.len();
        for (i, a) in self.addends.iter().enumerate() {
            match (*a, if first_sets { i } else { 1 }) {
                (Addend::Channel { data, step }, 0) => dst.fill(data[o * step]),
                (Addend::Channel { data, step }, _) => {
                    let v = data[o * step];
                    dst.iter_mut().for_each(|d| *d += v);
                }
                (Addend::Full(data), 0) => dst.copy_from_slice(&data[off..off + len]),
                (Addend::Full(data), _) => dst
                    .iter_mut()
                    .zip(&data[off..off + len])
                    .for_each(|(d, v)| *d += *v),
            }
        }
    }

    /// The whole epilogue on output elements `off..` of channel `o`, which hold the bare
    /// convolution (plus the output's own values when `preloaded`).
    fn apply(&self, dst: &mut [T], o: usize, off: usize) {
        if self.norm.is_none() {
            self.add(dst, o, off, false);
        }
        self.finish(dst, o, off);
    }

    /// The rest of the epilogue on output elements `off..` of channel `o`: the batch norm and
    /// the addends after it, then the activation.
    fn finish(&self, dst: &mut [T], o: usize, off: usize) {
        if let Some(n) = &self.norm {
            let (m, r, g, b) = (n.mean[o], n.rs[o], n.gamma[o], n.beta[o]);
            dst.iter_mut().for_each(|v| *v = v.sub(m).mul(r).mul(g) + b);
            self.add(dst, o, off, false);
        }
        if let Some(act) = self.act {
            activate_serial(dst, act);
        }
    }
}

/// The im2col tile is sized to about a core's L2 cache (1 MiB of f32 here; the GEMM packs it
/// in smaller blocks): at most this many elements. Measured on one thread, 2^18 ran the
/// ResNet-50 and SqueezeNet layers 3–12% faster than 2^16.
const TILE_ELEMENTS: usize = 1 << 18;
/// The narrowest column tile worth a GEMM call of its own.
const MIN_TILE: usize = 32;
/// The narrowest column tile that the plane is cut into to give every thread work; below it,
/// blocks of output channels are split instead (the GEMM's packing costs more per column on
/// narrow tiles).
const SPLIT_MIN: usize = 128;

/// How one convolution's GEMMs, one per (image, group), are cut into tasks: `col_tiles` tiles
/// of `tw` output positions (the last may be narrower) times `row_blocks` blocks of
/// `rows_per` output channels.
struct Split {
    col_tiles: usize,
    /// Tiles are whole units of this many columns (but the last, which ends the plane).
    unit: usize,
    plane: usize,
    row_blocks: usize,
    rows_per: usize,
}

impl Split {
    /// For `gemms` GEMMs of `og` output channels, `plane` output positions and inner
    /// dimension `kdim`, on `threads` threads: tiles of about L2 size, and when those are too
    /// few to keep every thread busy (four tasks per thread, so that a thread delayed by
    /// another process does not hold up the rest), narrower tiles, then blocks of output
    /// channels, each a multiple of `align` channels (a panel of packed weights).
    ///
    /// The tiles are whole `unit`s of columns (the kernel's register tile: a partly masked
    /// one costs as much as a full one), spread as evenly as units allow, and there are as
    /// many tasks per thread when the units allow it. Tiles of one width rounded up to the
    /// unit left a short last tile and one thread with a tile more: the 1×1 convolutions at
    /// 28×28 (784 columns) were cut as 5 × 144 + 64, 15 register tiles on one thread and 12
    /// on the other, where 25 split as 13 + 12.
    fn new(
        gemms: usize,
        og: usize,
        plane: usize,
        kdim: usize,
        threads: usize,
        align: usize,
        unit: usize,
    ) -> Split {
        let units = plane.div_ceil(unit).max(1);
        let by_cache = plane.div_ceil((TILE_ELEMENTS / kdim.max(1)).max(MIN_TILE));
        let target = if threads > 1 { 4 * threads } else { 1 };
        let want = target.div_ceil(gemms).min(plane / SPLIT_MIN).max(1);
        let mut col_tiles = by_cache.max(want).clamp(1, units);
        // Tasks in a multiple of the threads, each thread the same number of them.
        if threads > 1 && col_tiles > 1 {
            let even = (col_tiles..=units).find(|t| (gemms * t).is_multiple_of(threads));
            col_tiles = even.unwrap_or(col_tiles);
        }
        let mut row_blocks = 1;
        if gemms * col_tiles < target {
            row_blocks = target.div_ceil(gemms * col_tiles).min((og / 16).max(1));
        }
        let rows_per = og.div_ceil(row_blocks).next_multiple_of(align).max(1);
        Split {
            col_tiles,
            unit,
            plane,
            row_blocks: og.div_ceil(rows_per).max(1),
            rows_per,
        }
    }

    /// The columns `c0..c1` of tile `ct`: units `⌊ct·units/tiles⌋..⌊(ct+1)·units/tiles⌋`
    /// ([`super::even_part`]).
    fn cols(&self, ct: usize) -> (usize, usize) {
        super::even_part(ct, self.col_tiles, self.plane, self.unit)
    }
}

pub(super) fn conv2d<T: Float>(
    x: &View<T>,
    wt: &View<T>,
    params: &[i64],
    epi: &Epilogue<T>,
    out: &mut [T],
    out_shape: &[usize],
) -> Result<()> {
    conv2d_with(x, wt, params, epi, out, out_shape, true)
}

/// [`conv2d`], transforming OIHW weights for Winograd on the call only if `winograd_oihw`
/// (tests compare Winograd against the direct path).
fn conv2d_with<T: Float>(
    x: &View<T>,
    wt: &View<T>,
    params: &[i64],
    epi: &Epilogue<T>,
    out: &mut [T],
    out_shape: &[usize],
    winograd_oihw: bool,
) -> Result<()> {
    let g = Geometry::new(&x.shape, &wt.shape, params, out_shape)?;
    if out.is_empty() {
        return Ok(());
    }
    // An infinite or NaN input element would spread through the transform of each 6 × 6
    // input tile that holds it into outputs whose windows do not (inf − inf): the direct
    // kernels run instead, which keep it to the outputs that read it, as the TIR path does.
    // The Winograd kernel detects it itself and gives up (its output partly written, which
    // the direct kernels then overwrite); an output that already holds the addends
    // (`preloaded`) would be lost by then, so for it the input is checked first.
    let may_try_winograd = || !epi.preloaded || x.data.iter().all(|v| v.is_finite());
    if g.winograd {
        if may_try_winograd() && winograd::conv2d(&g, x.data, wt.data, epi, out) {
            return Ok(());
        }
        let pairs = g.o * g.c;
        let taps = &wt.data[WINOGRAD_POINTS * pairs..];
        let w: Vec<T> = (0..9 * pairs)
            .map(|i| taps[(i % 9) * pairs + i / 9])
            .collect();
        let oihw = View {
            data: &w,
            shape: vec![g.o, g.c, 3, 3],
        };
        return conv2d_with(x, &oihw, params, epi, out, out_shape, false);
    }
    // A non-finite weight makes every output of its channel NaN or infinite (0 · inf is NaN
    // at the padding, as in the TIR legalization, which multiplies the zero-padded image):
    // the direct paths below multiply the padding too, the Winograd transform would mix the
    // weight into its neighbours' points.
    if winograd_oihw
        && winograd::at_run_time::<T>(&g)
        && wt.data.iter().all(|v| v.is_finite())
        && may_try_winograd()
        && winograd::conv2d_oihw(&g, x.data, wt.data, epi, out)
    {
        return Ok(());
    }
    if g.c / g.groups == 1 {
        depthwise(&g, x.data, wt.data, epi, out);
        return Ok(());
    }
    let cg = g.c / g.groups;
    let og = g.o / g.groups;
    let kdim = cg * g.kh * g.kw;
    let plane = g.oh * g.ow;
    // 1×1, unstrided, unpadded: the image already is the column matrix.
    let direct = g.kh == 1
        && g.kw == 1
        && g.stride == [1, 1]
        && g.pad == [0, 0]
        && (g.oh, g.ow) == (g.h, g.w);
    // Tasks: (image, group, block of output channels, tile of output positions). Each
    // unfolds its tile of columns, multiplies, and applies the epilogue while the tile is hot.
    let threads = crate::pool::threads();
    let work = g.n * g.o * plane * kdim.max(1);
    let parallel = threads > 1 && work >= 1 << 20;
    let split = Split::new(
        g.n * g.groups,
        og,
        plane,
        kdim,
        if parallel { threads } else { 1 },
        if g.packed { CONV_PANEL } else { 1 },
        // The positions-vectorized kernel's register tile is 32 columns (the GEMM's fit it
        // too); the channel-vectorized kernel's tiles follow the rows of the image.
        if g.packed { 16 } else { 32 },
    );
    let (col_tiles, row_blocks, rows_per) = (split.col_tiles, split.row_blocks, split.rows_per);
    let tasks = g.n * g.groups * row_blocks * col_tiles;
    // f32 on AVX-512: the fused kernel, epilogue in registers, for the inner dimensions and
    // tile widths where it measures faster than the GEMM (see `small_k::takes`).
    #[cfg(target_arch = "x86_64")]
    let fused = T::DTYPE == vm::DataType::F32 && kdim > 0 && small_k::available();
    // Packed weights on AVX-512: the kernel vectorized along the output channels, reading the
    // image in place (through a padded copy when there is padding) instead of unfolding it.
    #[cfg(target_arch = "x86_64")]
    let extent = (fused && g.packed && (g.stride[1] <= 2 || Padded::<T>::samples(&g)))
        .then(|| Padded::<T>::extent(&g, x.data.len()))
        .flatten();
    #[cfg(not(target_arch = "x86_64"))]
    let extent: Option<(usize, usize)> = None;
    let by_channel = extent.is_some();
    let source = match extent {
        Some(extent) => Padded::new(&g, x.data, extent, parallel),
        None => Padded::default(),
    };
    let image_of = |n: usize| -> *const T {
        if source.data.is_empty() {
            x.data[n * g.c * g.h * g.w..].as_ptr()
        } else {
            source.data[n * g.c * source.hp * source.wp..].as_ptr()
        }
    };
    // Blocks of output channels that share a tile of columns would each unfold it again: then
    // the whole plane is unfolded once, in parallel, and every task reads its columns from it.
    let shared = !direct && !by_channel && kdim > 0 && row_blocks > 1;
    let mut unfolded = Vec::new();
    if shared {
        unfolded = T::take_scratch();
        let per_image = kdim * plane;
        if unfolded.len() < g.n * g.groups * per_image {
            unfolded.resize(g.n * g.groups * per_image, T::ZERO);
        }
        let rows_per_job = (TILE_ELEMENTS / plane).clamp(1, kdim);
        let jobs_per_image = kdim.div_ceil(rows_per_job);
        let job = |(j, rows): (usize, &mut [T])| {
            let (img, r0) = (j / jobs_per_image, (j % jobs_per_image) * rows_per_job);
            let (n, grp) = (img / g.groups, img % g.groups);
            let image = &x.data[(n * g.c + grp * cg) * g.h * g.w..][..cg * g.h * g.w];
            im2col_rows(&g, image, r0, 0, plane, rows);
        };
        // Chunks never straddle two images: each image's rows start a new chunk.
        let chunks = unfolded[..g.n * g.groups * per_image]
            .chunks_mut(per_image)
            .flat_map(|img| img.chunks_mut(rows_per_job * plane))
            .enumerate();
        if parallel {
            crate::pool::for_each_item(chunks.collect(), job);
        } else {
            chunks.for_each(job);
        }
    }
    let unfolded_ref = &unfolded;
    let dst = SendPtr(out.as_mut_ptr());
    // Blocks of output channels innermost: the tasks go down the image, the order that keeps
    // each thread on the positions it wrote in the layer before (`crate::pool::for_each`
    // gives the call's thread the front of the loop, its spinners the back).
    let one = |t: usize| {
        let (ct, rb) = ((t / row_blocks) % col_tiles, t % row_blocks);
        let (n, grp) = (
            t / (col_tiles * row_blocks) / g.groups,
            t / (col_tiles * row_blocks) % g.groups,
        );
        let (c0, c1) = split.cols(ct);
        let (r0, r1) = (rb * rows_per, ((rb + 1) * rows_per).min(og));
        let width = c1 - c0;
        let image = &x.data[(n * g.c + grp * cg) * g.h * g.w..][..cg * g.h * g.w];
        let first = n * g.o + grp * og;
        #[cfg(target_arch = "x86_64")]
        if by_channel {
            // SAFETY: `T` is f32 (`fused` checked the dtype), so these are the same slices
            // and epilogue retyped.
            let epi32 = unsafe { &*(epi as *const Epilogue<T>).cast::<Epilogue<f32>>() };
            // SAFETY: the CPU has AVX-512F (`fused`); `r0` starts a panel (`Split` aligns
            // row blocks to panels, and there is one group), whose `kdim × 32` weights lie
            // inside the packed tensor, as do those of the panels up to `r1`; the image is
            // image `n` of the source, `c × hp × wp`, and every tap of every output position
            // lies inside it (`Padded::new`); the destination is this task's own tile at row
            // stride `plane`.
            unsafe {
                small_k::run_by_channel(
                    &small_k::Direct {
                        image: image_of(n).cast::<f32>(),
                        taps: &source.taps,
                        ow: g.ow,
                        row_step: source.step[0] * source.wp,
                        col_step: source.step[1],
                    },
                    r1 - r0,
                    c0,
                    width,
                    wt.data[r0 / CONV_PANEL * kdim * CONV_PANEL..]
                        .as_ptr()
                        .cast::<f32>(),
                    dst.get().add((first + r0) * plane + c0).cast::<f32>(),
                    plane,
                    epi32,
                    r0,
                    (first + r0) * plane + c0,
                );
            }
            finish_other_activation(epi, dst, first, plane, c0, width, r0, r1);
            return;
        }
        let mut cols = Vec::new();
        let rhs = if kdim == 0 {
            std::ptr::null()
        } else if shared {
            let img = n * g.groups + grp;
            unfolded_ref[img * kdim * plane + c0..].as_ptr()
        } else if direct {
            // SAFETY: `c0 < plane == h·w`, inside the group's image.
            unsafe { image.as_ptr().add(c0) }
        } else {
            cols = T::take_scratch();
            // `im2col_rows` writes every element of the tile: only grow the buffer.
            if cols.len() < kdim * width {
                cols.resize(kdim * width, T::ZERO);
            }
            im2col_rows(&g, image, 0, c0, width, &mut cols[..kdim * width]);
            cols.as_ptr()
        };
        let rhs_rs = if direct || shared { plane } else { width };
        #[cfg(target_arch = "x86_64")]
        if fused && !g.packed && small_k::takes(kdim, width, r1 - r0) {
            // SAFETY: `T` is f32 (`fused` checked the dtype, and only f32 has it), so these
            // are the same slices and epilogue retyped.
            let epi32 = unsafe { &*(epi as *const Epilogue<T>).cast::<Epilogue<f32>>() };
            // SAFETY: the CPU has AVX-512F (`fused`); the operands are as for the GEMM
            // below: weights rows `r0..r1` (`kdim` each), `kdim` rows of `width` columns at
            // row stride `rhs_rs`, and this task's own output tile at row stride `plane`.
            unsafe {
                small_k::run(
                    r1 - r0,
                    width,
                    kdim,
                    wt.data[(grp * og + r0) * kdim..].as_ptr().cast::<f32>(),
                    rhs.cast::<f32>(),
                    rhs_rs,
                    dst.get().add((first + r0) * plane + c0).cast::<f32>(),
                    plane,
                    epi32,
                    grp * og + r0,
                    (first + r0) * plane + c0,
                );
            }
            finish_other_activation(epi, dst, first, plane, c0, width, r0, r1);
            if cols.capacity() > 0 {
                T::put_scratch(cols);
            }
            return;
        }
        for o in r0..r1 {
            let off = (first + o) * plane + c0;
            // SAFETY: row `o` of this task's tile, columns `c0..c1` of one output plane: in
            // bounds, and no other task's tile overlaps it (tasks partition the output).
            let row = unsafe { std::slice::from_raw_parts_mut(dst.get().add(off), width) };
            if kdim == 0 && !epi.read_dst() {
                row.fill(T::ZERO);
            }
            epi.seed(row, grp * og + o, off);
        }
        // Rows `lo..hi` of the weights: all of them from OIHW weights (`kdim` apart); one
        // panel at a time from packed ones, where the inner dimension is 32 apart.
        let mut lo = r0;
        while kdim > 0 && lo < r1 {
            let (hi, lhs) = if g.packed {
                let o = grp * og + lo;
                let hi = (lo + CONV_PANEL - o % CONV_PANEL).min(r1);
                let at = (o / CONV_PANEL * kdim) * CONV_PANEL + o % CONV_PANEL;
                let lhs = Mat {
                    ptr: wt.data[at..].as_ptr(),
                    rs: 1,
                    cs: CONV_PANEL as isize,
                };
                (hi, lhs)
            } else {
                let lhs = Mat {
                    ptr: wt.data[(grp * og + lo) * kdim..][..(r1 - lo) * kdim].as_ptr(),
                    rs: kdim as isize,
                    cs: 1,
                };
                (r1, lhs)
            };
            // SAFETY: `lhs` is `(hi-lo) × kdim` (row-major OIHW rows, or one panel of packed
            // weights: rows 1 apart, the inner dimension 32 apart, all inside the panel);
            // `rhs` is `kdim × width` with row stride `rhs_rs` (the tile of columns, or
            // columns `c0..c1` of the unfolded plane when shared, of the image when direct);
            // the destination is rows `lo..hi` of this task's tile, row stride `plane`,
            // written by no one else.
            unsafe {
                gemm_into(
                    hi - lo,
                    width,
                    kdim,
                    dst.get().add((first + lo) * plane + c0),
                    plane as isize,
                    epi.read_dst(),
                    lhs,
                    Mat {
                        ptr: rhs,
                        rs: rhs_rs as isize,
                        cs: 1,
                    },
                    gemm::Parallelism::None,
                );
            }
            lo = hi;
        }
        if epi.finishes() {
            for o in r0..r1 {
                let off = (first + o) * plane + c0;
                // SAFETY: as above, this task's own row segment.
                let row = unsafe { std::slice::from_raw_parts_mut(dst.get().add(off), width) };
                epi.finish(row, grp * og + o, off);
            }
        }
        if !cols.is_empty() || cols.capacity() > 0 {
            T::put_scratch(cols);
        }
    };
    if parallel && tasks > 1 {
        crate::pool::for_each(tasks, one);
    } else {
        (0..tasks).for_each(one);
    }
    if shared {
        T::put_scratch(unfolded);
    }
    source.release();
    Ok(())
}

/// The images as the channel-vectorized kernel reads them: every tap of every output
/// position inside. With no padding that is the input itself (`data` empty, `hp × wp` its
/// own planes); otherwise a copy with the padding written as zeros, `hp × wp` being the rows
/// and columns the taps reach, so that the kernel's inner loop needs no bounds. A 1×1
/// strided convolution reads only the positions it samples: a copy of just those (`oh × ow`,
/// a quarter of the input at stride 2) that the kernel reads at stride 1, so that its tiles
/// of positions run on across the rows of the output (the 1×1 1024 → 2048 at stride 2 of
/// ResNet-50, 14 × 14 → 7 × 7: tiles of 10 positions instead of 7; alternated call by call
/// with reading the input in place, 0–10% faster on one thread, 19–25% on two).
struct Padded<T> {
    data: Vec<T>,
    hp: usize,
    wp: usize,
    /// The offset of each row of the inner dimension, tap `(c, i, j)`, from an image's first
    /// element: `c·hp·wp + i·dh·wp + j·dw`.
    taps: Vec<usize>,
    /// The rows and columns between the first taps of neighbouring output positions: the
    /// convolution's stride, or `[1, 1]` over a copy of the sampled positions.
    step: [usize; 2],
}

impl<T> Default for Padded<T> {
    fn default() -> Padded<T> {
        Padded {
            data: Vec::new(),
            hp: 0,
            wp: 0,
            taps: Vec::new(),
            step: [1, 1],
        }
    }
}

impl<T: Float> Padded<T> {
    /// Whether the images are a copy of the positions a 1×1 strided convolution samples.
    fn samples(g: &Geometry) -> bool {
        g.kh == 1 && g.kw == 1 && g.stride != [1, 1]
    }

    /// The rows and columns of the images the kernel reads (`hp × wp`), when every product
    /// fits and a padded copy stays within 16 times the input (plus 64 Ki elements): a huge
    /// padding or dilation of a small image goes to the unfolding path instead, whose memory
    /// follows the output. Every tap offset is below `n·c·hp·wp`, so none overflows either.
    fn extent(g: &Geometry, x_len: usize) -> Option<(usize, usize)> {
        let reach = |out: usize, k: usize, s: usize, d: usize| {
            out.checked_sub(1)?
                .checked_mul(s)?
                .checked_add(k.checked_sub(1)?.checked_mul(d)?)?
                .checked_add(1)
        };
        if Self::samples(g) {
            // No larger than the output's planes times the input channels.
            return Some((g.oh, g.ow));
        }
        let hp = reach(g.oh, g.kh, g.stride[0], g.dilation[0])?;
        let wp = reach(g.ow, g.kw, g.stride[1], g.dilation[1])?;
        if g.pad == [0, 0] && hp <= g.h && wp <= g.w {
            return Some((g.h, g.w));
        }
        let len = g.n.checked_mul(g.c)?.checked_mul(hp)?.checked_mul(wp)?;
        (len <= x_len.saturating_mul(16).saturating_add(1 << 16)).then_some((hp, wp))
    }

    /// The images for `extent` ([`Padded::extent`]).
    fn new(g: &Geometry, x: &[T], (hp, wp): (usize, usize), parallel: bool) -> Padded<T> {
        let samples = Self::samples(g);
        let in_place = (hp, wp) == (g.h, g.w) && g.pad == [0, 0] && !samples;
        // Row `r` and column `q` of a copy hold the input's row `r·sh − pt` and column
        // `q·sw − pl` (zero outside it).
        let every = if samples { g.stride } else { [1, 1] };
        let mut taps = Vec::with_capacity(g.c * g.kh * g.kw);
        for c in 0..g.c {
            for i in 0..g.kh {
                for j in 0..g.kw {
                    taps.push(c * hp * wp + i * g.dilation[0] * wp + j * g.dilation[1]);
                }
            }
        }
        let mut data = Vec::new();
        if !in_place {
            data = T::take_scratch();
            let len = g.n * g.c * hp * wp;
            // Every element is written below: only grow the buffer.
            if data.len() < len {
                data.resize(len, T::ZERO);
            }
            let [pt, pl] = g.pad;
            let bands = super::bands_for(hp, wp);
            let copy = |band: usize, plane: usize, dst: &mut [T]| {
                let src = &x[plane * g.h * g.w..][..g.h * g.w];
                let first = super::band_rows(hp, band, bands).start;
                for (r, row) in (first..).zip(dst.chunks_exact_mut(wp)) {
                    let Some(iy) = (r * every[0]).checked_sub(pt).filter(|&iy| iy < g.h) else {
                        row.fill(T::ZERO);
                        continue;
                    };
                    let src = &src[iy * g.w..][..g.w];
                    if samples {
                        for (q, v) in row.iter_mut().enumerate() {
                            let ix = (q * every[1]).checked_sub(pl).filter(|&ix| ix < g.w);
                            *v = ix.map_or(T::ZERO, |ix| src[ix]);
                        }
                        continue;
                    }
                    let width = g.w.min(wp.saturating_sub(pl));
                    row[..pl.min(wp)].fill(T::ZERO);
                    row[pl.min(wp)..pl.min(wp) + width].copy_from_slice(&src[..width]);
                    row[pl.min(wp) + width..].fill(T::ZERO);
                }
            };
            super::for_each_band(&mut data[..len], (hp, wp), bands, parallel, copy);
        }
        Padded {
            data,
            hp,
            wp,
            taps,
            step: if samples { [1, 1] } else { g.stride },
        }
    }

    fn release(self) {
        if self.data.capacity() > 0 {
            T::put_scratch(self.data);
        }
    }
}

/// After a fused kernel, which applies a ReLU itself: any other activation, over rows
/// `r0..r1` (output channels `first + r0..`) of a task's tile of columns `c0..c0 + width`.
#[allow(clippy::too_many_arguments)]
fn finish_other_activation<T: Float>(
    epi: &Epilogue<T>,
    dst: SendPtr<T>,
    first: usize,
    plane: usize,
    c0: usize,
    width: usize,
    r0: usize,
    r1: usize,
) {
    if let Some(act) = epi.act.filter(|&a| a != Activation::Relu) {
        for o in r0..r1 {
            let off = (first + o) * plane + c0;
            // SAFETY: the task's own row segment: in bounds, written by no one else.
            let row = unsafe { std::slice::from_raw_parts_mut(dst.get().add(off), width) };
            activate_serial(row, act);
        }
    }
}

/// Unfolds output positions `c0..c0 + width` of one group's image (`cg × h × w`) into `cols`,
/// rows `r0..` of the column matrix (`kdim × width`, `cols` holding whole rows): row
/// `(c, i, j)` holds, for each of those positions, the input under kernel tap `(i, j)` of
/// channel `c` (zero in the padding).
fn im2col_rows<T: Float>(
    g: &Geometry,
    image: &[T],
    r0: usize,
    c0: usize,
    width: usize,
    cols: &mut [T],
) {
    let taps = g.kh * g.kw;
    for (r, row) in (r0..).zip(cols.chunks_mut(width)) {
        let (c, tap) = (r / taps, r % taps);
        let (i, j) = (tap / g.kw, tap % g.kw);
        let src = &image[c * g.h * g.w..][..g.h * g.w];
        let off_w = (j * g.dilation[1]) as isize - g.pad[1] as isize;
        let (lo, hi) = super::valid_columns(off_w, g.stride[1], g.w, g.ow);
        let mut k = 0;
        while k < width {
            let p = c0 + k;
            let (oy, ox0) = (p / g.ow, p % g.ow);
            let len = (g.ow - ox0).min(width - k);
            let seg = &mut row[k..k + len];
            k += len;
            let iy = (oy * g.stride[0] + i * g.dilation[0]) as isize - g.pad[0] as isize;
            if iy < 0 || iy >= g.h as isize {
                seg.fill(T::ZERO);
                continue;
            }
            let in_row = &src[iy as usize * g.w..][..g.w];
            // The valid columns of this segment, relative to it.
            let (a, b) = (
                lo.clamp(ox0, ox0 + len) - ox0,
                hi.clamp(ox0, ox0 + len) - ox0,
            );
            seg[..a].fill(T::ZERO);
            seg[b.max(a)..].fill(T::ZERO);
            if a >= b {
                continue;
            }
            if g.stride[1] == 1 {
                let start = ((ox0 + a) as isize + off_w) as usize;
                seg[a..b].copy_from_slice(&in_row[start..start + (b - a)]);
            } else if g.stride[1] == 2 {
                // The common stride, read as pairs so that the gather vectorizes; the last
                // element alone, as its pair may end past the row.
                let start = ((ox0 + a) * 2).wrapping_add_signed(off_w);
                let len = b - a;
                let run = &in_row[start..start + 2 * len - 1];
                let (body, last) = seg[a..b].split_at_mut(len - 1);
                for (o, pair) in body.iter_mut().zip(run.chunks_exact(2)) {
                    *o = pair[0];
                }
                last[0] = run[2 * (len - 1)];
            } else {
                for (ox, o) in (ox0 + a..ox0 + b).zip(&mut seg[a..b]) {
                    *o = in_row[(ox * g.stride[1]).wrapping_add_signed(off_w)];
                }
            }
        }
    }
}

/// A convolution with one input channel per group (depthwise; `o / groups` outputs per
/// channel), one output plane per task. The padded input plane is split into its `stride_h ×
/// stride_w` phases (phase `(a, b)` holds padded rows `a, a + sh, …` and columns `b, b + sw, …`,
/// zero outside the image), each `hq × wq`. Output `(y, x)`, accumulated at `y · wq + x`, reads
/// tap `(i, j)` from phase `(di·i mod sh, dw·j mod sw)` at `(y + di·i / sh) · wq + x + dw·j / sw`:
/// for every tap one contiguous multiply-add over the whole plane (`wq − ow` columns of each row
/// are scratch), which vectorizes, where the rows of a small plane (14 × 14) are too short to.
/// The padding is multiplied like the image, as the TIR legalization multiplies its zero-padded
/// copy: a non-finite weight makes the outputs that meet the padding NaN there too.
fn depthwise<T: Float>(g: &Geometry, x: &[T], wt: &[T], epi: &Epilogue<T>, out: &mut [T]) {
    let plane = g.oh * g.ow;
    let og = g.o / g.groups;
    let taps = g.kh * g.kw;
    let [sh, sw] = g.stride;
    let [dh, dw] = g.dilation;
    // Rows (columns) of a phase: the outputs' plus the taps' reach beyond them.
    let reach = |outs: usize, d: usize, k: usize, s: usize| {
        d.checked_mul(k.saturating_sub(1))
            .and_then(|r| outs.checked_add(r / s))
    };
    // The phases cover the padded image: with a padding or dilation far beyond the image they
    // would be mostly zeros, and could exceed memory.
    let sizes = reach(g.oh, dh, g.kh, sh)
        .zip(reach(g.ow, dw, g.kw, sw))
        .and_then(|(hq, wq)| {
            Some((
                hq,
                wq,
                hq.checked_mul(wq)?.checked_mul(sh.checked_mul(sw)?)?,
            ))
        })
        .filter(|&(_, _, len)| len <= 4 * (g.h * g.w + plane) + 4096);
    let Some((hq, wq, _)) = sizes else {
        return depthwise_rows(g, x, wt, epi, out);
    };
    let phase_len = hq * wq;
    let phases = sh * sw;
    // The multiply-adds run over rows `0..oh` at row stride `wq`, the last row only to `ow`:
    // every read then stays inside its phase (`hq − 1` rows below plus `wq − 1` columns right).
    let span = (g.oh - 1) * wq + g.ow;
    // Where each tap's reads start in the phases.
    let starts: Vec<usize> = (0..taps)
        .map(|t| {
            let (ti, tj) = (dh * (t / g.kw), dw * (t % g.kw));
            ((ti % sh) * sw + tj % sw) * phase_len + (ti / sh) * wq + tj / sw
        })
        .collect();
    let one = |p: usize, dst: &mut [T]| {
        let (n, o) = (p / g.o, p % g.o);
        let c = o / og;
        if !epi.read_dst() {
            dst.fill(T::ZERO);
        }
        epi.seed(dst, o, p * plane);
        let src = &x[(n * g.c + c) * g.h * g.w..][..g.h * g.w];
        let k = &wt[o * taps..][..taps];
        let mut scratch = T::take_scratch();
        let need = phases * phase_len + g.oh * wq;
        if scratch.len() < need {
            scratch.resize(need, T::ZERO);
        }
        let (ph, acc) = scratch[..need].split_at_mut(phases * phase_len);
        for (q, phase) in ph.chunks_mut(phase_len).enumerate() {
            let (a, b) = (q / sw, q % sw);
            // Columns `first..hi` of the phase's rows lie inside the image, from input column
            // `lo_ix = first · sw + b − pad` on, `sw` apart.
            let first = g.pad[1].saturating_sub(b).div_ceil(sw).min(wq);
            let lo_ix = (first * sw + b).saturating_sub(g.pad[1]);
            let hi = if lo_ix < g.w {
                (first + (g.w - lo_ix).div_ceil(sw)).min(wq)
            } else {
                first
            };
            let mut iy = a as isize - g.pad[0] as isize;
            for row in phase.chunks_mut(wq) {
                let inside = iy >= 0 && iy < g.h as isize;
                let y = iy;
                iy += sh as isize;
                if !inside {
                    row.fill(T::ZERO);
                    continue;
                }
                let in_row = &src[y as usize * g.w..][..g.w];
                row[..first].fill(T::ZERO);
                row[hi..].fill(T::ZERO);
                if first == hi {
                    // `lo_ix` may lie past the row: no column of this phase is inside.
                } else if sw == 1 {
                    row[first..hi].copy_from_slice(&in_row[lo_ix..lo_ix + (hi - first)]);
                } else if sw == 2 {
                    super::every_second(&in_row[lo_ix..], &mut row[first..hi]);
                } else {
                    for (v, s) in row[first..hi].iter_mut().zip(in_row[lo_ix..].chunks(sw)) {
                        *v = s[0];
                    }
                }
            }
        }
        for (a, d) in acc.chunks_mut(wq).zip(dst.chunks(g.ow)) {
            a[..g.ow].copy_from_slice(d);
        }
        for (&start, &w) in starts.iter().zip(k) {
            multiply_add(&mut acc[..span], &ph[start..start + span], w);
        }
        for (d, a) in dst.chunks_mut(g.ow).zip(acc.chunks(wq)) {
            d.copy_from_slice(&a[..g.ow]);
        }
        T::put_scratch(scratch);
        epi.finish(dst, o, p * plane);
    };
    let spread = (out.len() >= PARALLEL_ELEMENTS / 4).then_some(1);
    for_each_chunk(out, plane, spread, one);
}

/// [`depthwise`] tap by tap along the rows of the image, for the geometries whose phases
/// would be much larger than the image (a padding or dilation far beyond it): each output plane
/// `(n, o)` accumulates its taps directly, skipping the padding.
fn depthwise_rows<T: Float>(g: &Geometry, x: &[T], wt: &[T], epi: &Epilogue<T>, out: &mut [T]) {
    let plane = g.oh * g.ow;
    let og = g.o / g.groups;
    let taps = g.kh * g.kw;
    let one = |p: usize, dst: &mut [T]| {
        let (n, o) = (p / g.o, p % g.o);
        let c = o / og;
        if !epi.read_dst() {
            dst.fill(T::ZERO);
        }
        epi.seed(dst, o, p * plane);
        let src = &x[(n * g.c + c) * g.h * g.w..][..g.h * g.w];
        let k = &wt[o * taps..][..taps];
        for i in 0..g.kh {
            for j in 0..g.kw {
                let wv = k[i * g.kw + j];
                let off_w = (j * g.dilation[1]) as isize - g.pad[1] as isize;
                let (lo, hi) = super::valid_columns(off_w, g.stride[1], g.w, g.ow);
                // The padding's products are zero unless the weight is infinite or NaN; then
                // they are NaN (the TIR legalization multiplies the zero-padded image), and
                // are added where the tap meets the padding.
                let padded = (!wv.is_finite()).then(|| wv.mul(T::ZERO));
                if lo >= hi && padded.is_none() {
                    // The tap falls in the padding for every output column (its first input
                    // column, `lo + off_w`, may even be negative).
                    continue;
                }
                for (oy, out_row) in dst.chunks_mut(g.ow).enumerate() {
                    let iy = (oy * g.stride[0] + i * g.dilation[0]) as isize - g.pad[0] as isize;
                    let row_inside = iy >= 0 && iy < g.h as isize;
                    if let Some(z) = padded {
                        let (a, b) = if row_inside && lo < hi {
                            (lo, hi)
                        } else {
                            (0, 0)
                        };
                        out_row[..a].iter_mut().for_each(|o| *o += z);
                        out_row[b..].iter_mut().for_each(|o| *o += z);
                    }
                    if !row_inside || lo >= hi {
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
        epi.finish(dst, o, p * plane);
    };
    let spread = (out.len() >= PARALLEL_ELEMENTS / 4).then_some(1);
    for_each_chunk(out, plane, spread, one);
}

/// `acc[i] += w · src[i]` (a multiply, then an add: no FMA contraction, as in the TIR
/// kernels); on a CPU with AVX-512 the loop runs compiled for it.
fn multiply_add<T: Float>(acc: &mut [T], src: &[T], w: T) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F, checked just above.
        unsafe { multiply_add_avx512(acc, src, w) };
        return;
    }
    multiply_add_loop(acc, src, w);
}

/// [`multiply_add_loop`] compiled for AVX-512.
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn multiply_add_avx512<T: Float>(acc: &mut [T], src: &[T], w: T) {
    multiply_add_loop(acc, src, w);
}

#[inline(always)]
fn multiply_add_loop<T: Float>(acc: &mut [T], src: &[T], w: T) {
    for (a, v) in acc.iter_mut().zip(src) {
        *a += w.mul(*v);
    }
}

/// The f32 convolution kernel for a small inner dimension (SqueezeNet's and ResNet's first
/// layers, the 1×1 expands; moderate ones on wide tiles, see [`small_k::takes`]): no packing — the weights are broadcast from their rows and the
/// columns read in place — and the whole epilogue applied in registers before the one store,
/// where the GEMM path writes the output tile three times (addends, product, epilogue).
#[cfg(target_arch = "x86_64")]
mod small_k {
    use std::arch::x86_64::*;

    use relax::transform::dispatch_library::{Activation, CONV_PANEL};

    use super::super::{first_lanes, put_panels, take_panels};
    use super::{Addend, Epilogue};

    /// Whether it beats the GEMM for this inner dimension, tile width and number of output
    /// channels `m` (measured with `bench/examples/library.rs`): always up to `k = 160`,
    /// where a 32-column panel of the columns (`160 × 32` f32, 20 KiB) stays in L1 and the
    /// GEMM's three passes over the output dominate; up to `k = 640` on tiles wide enough that
    /// the last, partly masked panel costs little (+6% on a 3×3 over 64 channels at 56×56, −6%
    /// on one at 13×13); up to `k = 384` on narrow tiles of at most 64 channels, for which the
    /// GEMM packs its operands for little work (SqueezeNet's squeeze convs, cut into narrow
    /// tiles on two threads: 256 → 48 at 13×13 62 → 44 µs, 384 → 48 67 → 60 µs; ResNet's
    /// 512 → 128 at 28×28 measured 4% slower so); beyond, the GEMM's packing and cache
    /// blocking win.
    pub(super) fn takes(k: usize, width: usize, m: usize) -> bool {
        k <= 160 || (k <= 640 && width >= 384) || (k <= 384 && m <= 64)
    }
    /// Output channels per register tile, at most: 12 × 2 vectors is 24 accumulators, leaving
    /// registers for the two vectors of columns and a broadcast. Measured on one thread
    /// against 8 (`library`, the two alternated call by call): ResNet-50's 1×1 layers at
    /// 56 × 56 and 28 × 28 and SqueezeNet's 2–6% faster, none slower beyond the noise; 14
    /// measured as 12.
    const MR: usize = 12;
    /// Elements of `b` per block of columns of [`run`] (256 KiB of f32, a quarter of a core's
    /// L2): the columns of a block are multiplied by every block of channels before the next
    /// block starts, so that each output row (and a residual's) is written in runs of the
    /// block's width, which the hardware prefetcher follows, rather than 128 bytes per row
    /// across all channels for each 32-column panel. Measured on one thread with the caches
    /// flushed between calls (`library --residual --cold`): a 1×1 64 → 256 conv at 56×56
    /// 1.70 → 1.48 ms, 64 → 64 480 → 420 µs, 128 → 512 at 28×28 1.40 → 1.24 ms; 2^14, 2^15 and
    /// 2^17 elements measured between the two, a whole tile's columns as before.
    const B_BLOCK: usize = 1 << 16;
    /// Output positions per register tile (two 16-lane vectors).
    const NR: usize = 32;

    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
    }

    /// `c = epilogue(a @ b)` for output channels `o0..o0 + m` and `n` output positions:
    /// `a` is `m × k` row-major (row stride `k`), `b` is `k × n` with row stride `ldb`, `c`
    /// is `m × n` with row stride `ldc`, at flat offset `off0` of the output (where a
    /// full-shape addend is read). A ReLU is applied here; any other activation is left to
    /// the caller.
    ///
    /// # Safety
    /// The CPU must support AVX-512F; every addressed element must be inside its allocation;
    /// `c`'s elements must be written by no one else during the call.
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn run(
        m: usize,
        n: usize,
        k: usize,
        a: *const f32,
        b: *const f32,
        ldb: usize,
        c: *mut f32,
        ldc: usize,
        epi: &Epilogue<f32>,
        o0: usize,
        off0: usize,
    ) {
        // Blocks of columns whose rows of `b` fit in L2 (`B_BLOCK`), blocks of channels
        // inside, 32-column panels innermost.
        let nb = (B_BLOCK / k.max(1)).next_multiple_of(NR);
        let pack = packs(m, k);
        let mut panels = if pack { take_panels() } else { Vec::new() };
        if pack && panels.len() < nb.min(n).next_multiple_of(NR) * k {
            panels.resize(nb.min(n).next_multiple_of(NR) * k, 0.0);
        }
        for jb in (0..n).step_by(nb) {
            let width = (n - jb).min(nb);
            if pack {
                // SAFETY: columns `jb..jb + width` of `b`'s `k` rows: inside the caller's
                // bounds; `panels` holds `⌈width / 32⌉` panels of `k × 32` (sized above).
                unsafe { pack_panels(b.add(jb), ldb, k, width, &mut panels) };
            }
            // Tiles of channels of near-equal height (64 as 6 × 11 or 10, not 5 × 12 + 4).
            let tiles = m.div_ceil(MR);
            for ti in 0..tiles {
                let (i, rows) = (m * ti / tiles, m * (ti + 1) / tiles - m * ti / tiles);
                for j in (jb..jb + width).step_by(NR) {
                    let cols = (n - j).min(NR);
                    let masks = [
                        first_lanes(cols.min(16)),
                        first_lanes(cols.saturating_sub(16)),
                    ];
                    // The tile's `k × 32` columns: their packed panel, rows 32 apart, or
                    // `b` itself.
                    let (bj, ldbj) = if pack {
                        (panels[(j - jb) / NR * k * NR..][..k * NR].as_ptr(), NR)
                    } else {
                        (b.wrapping_add(j), ldb)
                    };
                    // SAFETY: rows `i..` of `a` and `c`, columns `j..j + cols` of `b` (or of
                    // its packed panel) and `c`: inside the caller's bounds; the masks keep
                    // every access below `n`.
                    unsafe {
                        let t = Tile {
                            k,
                            a: a.add(i * k),
                            b: bj,
                            ldb: ldbj,
                            c: c.add(i * ldc + j),
                            ldc,
                            masks,
                            o: o0 + i,
                            off: off0 + i * ldc + j,
                            prefetch_b: !pack && ti == 0,
                        };
                        match rows {
                            1 => tile::<1>(&t, epi),
                            2 => tile::<2>(&t, epi),
                            3 => tile::<3>(&t, epi),
                            4 => tile::<4>(&t, epi),
                            5 => tile::<5>(&t, epi),
                            6 => tile::<6>(&t, epi),
                            7 => tile::<7>(&t, epi),
                            8 => tile::<8>(&t, epi),
                            9 => tile::<9>(&t, epi),
                            10 => tile::<10>(&t, epi),
                            11 => tile::<11>(&t, epi),
                            _ => tile::<MR>(&t, epi),
                        }
                    }
                }
            }
        }
        if pack {
            put_panels(panels);
        }
    }

    /// Whether [`run`] copies each block of columns into contiguous `k × 32` panels before
    /// multiplying: when 64 channels or more (6 register tiles) read each panel and the panel
    /// is 32 KiB or more (`k ≥ 256`). Read in place, a panel's rows lie a row of
    /// the image apart (12.5 KiB at 56 × 56, whose lines fall in a quarter of L1's sets) and
    /// do not stay in L1 from one tile of channels to the next; packed, they are read in
    /// order. Measured on one thread with tiles of 8 channels (`library` alternating the two
    /// call by call, minima of 40): ResNet-50's 1×1 convolutions of 256 channels at 56 × 56 to 64 channels
    /// −13 to −16%, to 128 −14 to −15%, to 512 at stride 2 −10 to −26%, 512 → 256 at
    /// 28 × 28 −3.5%, the rest within ±2%; SqueezeNet's squeeze convolutions (16 to 48
    /// channels) up to 19% slower packed, 64 channels from 384 and 512 unchanged. Again with
    /// tiles of 12 channels, packed against not (two runs): 256 → 64 at 56 × 56 −15 to −22%,
    /// 256 → 128 −15 to −21%, 512 → 256 at 28 × 28 −5 to −8%.
    fn packs(m: usize, k: usize) -> bool {
        m >= 64 && k >= 256
    }

    /// Copies columns `0..width` of `b`'s `k` rows (row stride `ldb`) into `out` as
    /// `⌈width / 32⌉` panels of `k × 32`, row `p` of panel `q` at `(q·k + p)·32`, the
    /// columns past `width` as zeros.
    ///
    /// # Safety
    /// The CPU must support AVX-512F; columns `0..width` of rows `0..k` of `b` must be
    /// inside its allocation.
    #[target_feature(enable = "avx512f")]
    unsafe fn pack_panels(b: *const f32, ldb: usize, k: usize, width: usize, out: &mut [f32]) {
        for (q, j) in (0..width).step_by(NR).enumerate() {
            let cols = (width - j).min(NR);
            let masks = [
                first_lanes(cols.min(16)),
                first_lanes(cols.saturating_sub(16)),
            ];
            let panel = &mut out[q * k * NR..][..k * NR];
            for (p, dst) in panel.chunks_exact_mut(NR).enumerate() {
                // SAFETY: row `p` of `b`, the masked columns `j..j + cols` only (the second
                // half's address formed with wrapping arithmetic: with 16 columns or fewer
                // its mask is empty); `dst` is 32 elements of `out`.
                unsafe {
                    let row = b.add(p * ldb + j);
                    let v0 = _mm512_maskz_loadu_ps(masks[0], row);
                    let v1 = _mm512_maskz_loadu_ps(masks[1], row.wrapping_add(16));
                    _mm512_storeu_ps(dst.as_mut_ptr(), v0);
                    _mm512_storeu_ps(dst.as_mut_ptr().add(16), v1);
                }
            }
        }
    }

    /// Output positions per register tile of the channel-vectorized kernel: 12 positions ×
    /// 2 vectors of channels is 24 accumulators, leaving registers for the two weight vectors
    /// and a broadcast.
    const POSITIONS: usize = 12;

    /// Where the channel-vectorized kernel reads the input of output position `p` for row
    /// `t` of the inner dimension: `image[taps[t] + (p / ow) · row_step + (p % ow) · col_step]`.
    pub(super) struct Direct<'a> {
        pub image: *const f32,
        pub taps: &'a [usize],
        pub ow: usize,
        pub row_step: usize,
        pub col_step: usize,
    }

    /// `c = epilogue(w @ image)` vectorized along the output channels, for output channels
    /// `o0..o0 + m` (`o0` a multiple of 32) and the `n` output positions from `p0`: `w` is
    /// the first panel of packed weights (`⌈m/32⌉` panels of `k × 32`, zeros past the last
    /// channel), the input read in place through `src` (no unfolding: each position's taps
    /// are the tap offsets plus the position's own), `c` is `m × n` with row stride `ldc` at
    /// flat offset `off0` of the output. Each register tile holds up to 12 positions × 32
    /// channels; the positions are broadcast from the image, the weights read as whole
    /// vectors, and the tile is transposed in registers to runs of positions per channel, its
    /// epilogue applied, and stored ([`channel_store`]). A ReLU is applied here; any other
    /// activation is left to the caller.
    ///
    /// # Safety
    /// The CPU must support AVX-512F; every addressed element must be inside its allocation
    /// (for the input: `src.image` plus any of the `k` tap offsets plus any position's
    /// offset); `c`'s elements must be written by no one else during the call.
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn run_by_channel(
        src: &Direct,
        m: usize,
        p0: usize,
        n: usize,
        w: *const f32,
        c: *mut f32,
        ldc: usize,
        epi: &Epilogue<f32>,
        o0: usize,
        off0: usize,
    ) {
        let k = src.taps.len();
        for j in (0..m).step_by(CONV_PANEL) {
            let chans = (m - j).min(CONV_PANEL);
            let masks = [
                first_lanes(chans.min(16)),
                first_lanes(chans.saturating_sub(16)),
            ];
            // Tiles of up to 12 positions that lie `col_step` apart in the image; none crosses
            // a row of the output unless the image's rows follow each other that way too (a
            // 1×1 unstrided, unpadded convolution).
            let flat = src.row_step == src.ow * src.col_step;
            let mut i = 0;
            while i < n {
                let (y, x) = ((p0 + i) / src.ow, (p0 + i) % src.ow);
                let run = if flat { n - i } else { (n - i).min(src.ow - x) };
                // The run cut into near-equal tiles (13 as 7 + 6, not 12 + 1: a tile of one
                // or two positions has too few accumulators to hide the FMA latency).
                let len = run.div_ceil(run.div_ceil(POSITIONS));
                // SAFETY: panel `j / 32` of the weights, positions `p0 + i..` of the image,
                // channels `j..j + chans` and positions `i..i + len` of `c`: inside the
                // caller's bounds; the channels masked.
                unsafe {
                    let t = ChannelTile {
                        w: w.add(j * k),
                        image: src.image.add(y * src.row_step + x * src.col_step),
                        taps: src.taps,
                        c: c.add(j * ldc + i),
                        ldc,
                        masks,
                        o: o0 + j,
                        off: off0 + j * ldc + i,
                    };
                    if src.col_step == 1 {
                        tile_by_len::<1>(len, &t, epi);
                    } else {
                        tile_by_len::<2>(len, &t, epi);
                    }
                }
                i += len;
            }
        }
    }

    /// [`channel_tile`] for `len` (1..=12) positions `S` apart in the image.
    ///
    /// # Safety
    /// As [`channel_tile`]'s.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn tile_by_len<const S: usize>(len: usize, t: &ChannelTile, epi: &Epilogue<f32>) {
        // SAFETY: as this function's contract.
        unsafe {
            match len {
                1 => channel_tile::<1, S>(t, epi),
                2 => channel_tile::<2, S>(t, epi),
                3 => channel_tile::<3, S>(t, epi),
                4 => channel_tile::<4, S>(t, epi),
                5 => channel_tile::<5, S>(t, epi),
                6 => channel_tile::<6, S>(t, epi),
                7 => channel_tile::<7, S>(t, epi),
                8 => channel_tile::<8, S>(t, epi),
                9 => channel_tile::<9, S>(t, epi),
                10 => channel_tile::<10, S>(t, epi),
                11 => channel_tile::<11, S>(t, epi),
                _ => channel_tile::<POSITIONS, S>(t, epi),
            }
        }
    }

    /// One register tile of [`run_by_channel`]: `R` positions × up to 32 channels (`masks`).
    struct ChannelTile<'a> {
        /// The panel's weights, a row of 32 channels per tap.
        w: *const f32,
        /// The image element under the first position's tap at offset 0.
        image: *const f32,
        /// `k` tap offsets into the image.
        /// The offset of each tap into the image.
        taps: &'a [usize],
        /// The output element of the first channel and position.
        c: *mut f32,
        ldc: usize,
        masks: [__mmask16; 2],
        /// The output channel of the first lane.
        o: usize,
        /// The flat output offset of the first element.
        off: usize,
    }

    /// How far ahead (in f32s: 16 rows of a panel, 2 KiB) the channel kernel prefetches its
    /// weights. Inside a model, a large layer's weights (ResNet-50 streams about 100 MB per
    /// call) come from memory, and a panel is read first by one register tile whose
    /// multiply-adds outpace the hardware prefetcher: measured on one thread with the caches
    /// flushed, a 1×1 512 → 2048 conv at 7×7 ran 10% faster (1.30 → 1.15 ms) with 512 than
    /// with none, 128 or 1024; with warm caches, no change. Past a panel's end it asks for
    /// the next panel, or for lines past the weights (a prefetch never faults).
    const WEIGHT_PREFETCH: usize = 512;

    /// How many taps ahead the channel kernel prefetches its input: the rows of the inner
    /// dimension lie a plane apart (a 1×1 convolution's), so the hardware prefetcher does not
    /// follow them, and inside a model a layer's input was partly written by the other core
    /// (from another CCD on a Zen 5 VM, `bench/README.md`). Measured on ResNet-50 across CCDs
    /// (`rows --calls 40 resnet50`, three alternating runs): none 19.88–19.99 ms, 8 taps
    /// 19.57–19.85, 16 19.60–19.71, 32 19.42–19.92. Then none → 16, alternating processes
    /// across CCDs: ResNet-50 20.25–20.47 → 19.61–20.09 ms, SqueezeNet 2266–2329 → 2200–2257
    /// µs, the conv block (Winograd, which this does not touch) 551–579 → 570–578 µs; on one
    /// CCD, one run: ResNet-50 17.66 → 17.64 ms, SqueezeNet 1553 → 1518 µs.
    const INPUT_PREFETCH: usize = 16;

    /// # Safety
    /// As [`run_by_channel`]'s, for the tile's `R` positions and masked channels.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn channel_tile<const R: usize, const S: usize>(t: &ChannelTile, epi: &Epilogue<f32>) {
        let chans = t.masks[0].count_ones() as usize + t.masks[1].count_ones() as usize;
        prefetch_output(t.c, chans, t.ldc, R);
        // The next tile of these channels is (about) the next `R` positions.
        prefetch_addend(epi, t.off + R, chans, t.ldc, R);
        let mut acc = [[_mm512_setzero_ps(); 2]; R];
        let mut wp = t.w;
        // One flat loop over the taps: with loops over channels and kernel rows and columns
        // instead, LLVM stores every accumulator to the stack on every step.
        for (i, &tap) in t.taps.iter().enumerate() {
            // The input under the tap `INPUT_PREFETCH` ahead (its first and last position).
            if let Some(&ahead) = t.taps.get(i + INPUT_PREFETCH) {
                let at = t.image.wrapping_add(ahead);
                _mm_prefetch::<_MM_HINT_T0>(at.cast::<i8>());
                _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add((R - 1) * S).cast::<i8>());
            }
            // SAFETY: one row of the panel (32 weights, zero past the last channel), and the
            // input of positions `0..R` under this tap (inside the image, the caller's
            // contract).
            unsafe {
                let tap = t.image.add(tap);
                let w0 = _mm512_loadu_ps(wp);
                let w1 = _mm512_loadu_ps(wp.add(16));
                // The panel's rows 16 taps ahead: see `WEIGHT_PREFETCH`.
                _mm_prefetch::<_MM_HINT_T0>(wp.wrapping_add(WEIGHT_PREFETCH).cast::<i8>());
                _mm_prefetch::<_MM_HINT_T0>(wp.wrapping_add(WEIGHT_PREFETCH + 16).cast::<i8>());
                for (r, acc) in acc.iter_mut().enumerate() {
                    let xv = _mm512_set1_ps(*tap.add(r * S));
                    acc[0] = _mm512_fmadd_ps(xv, w0, acc[0]);
                    acc[1] = _mm512_fmadd_ps(xv, w1, acc[1]);
                }
                wp = wp.add(CONV_PANEL);
            }
        }
        // SAFETY: as this function's contract.
        unsafe { channel_store(t, epi, acc) }
    }

    /// The epilogue and store of one register tile of [`run_by_channel`], transposed: each
    /// half of the tile (up to 16 positions × 16 channels) is turned into one vector per
    /// channel holding its `R` positions, which lie next to each other in the output, so that
    /// the tile is written with plain masked stores (and a full-shape addend read with plain
    /// masked loads) instead of a scatter (and a gather) per position: on AMD's Zen 4 a
    /// 16-lane scatter costs about 30 cycles, the 64 shuffles of a transpose fewer than two
    /// scatters. The arithmetic is the same, element for element, as the TIR legalization's.
    /// Not inlined: the registers it needs would otherwise push the accumulators of the loop
    /// above out to the stack on every step.
    ///
    /// # Safety
    /// As [`run_by_channel`]'s, for the tile's `R` positions and masked channels.
    #[inline(never)]
    #[target_feature(enable = "avx512f")]
    unsafe fn channel_store<const R: usize>(
        t: &ChannelTile,
        epi: &Epilogue<f32>,
        acc: [[__m512; 2]; R],
    ) {
        let relu = epi.act == Some(Activation::Relu);
        let positions = first_lanes(R);
        // A bias and perhaps a ReLU (SqueezeNet's every conv) take a loop of their own, as in
        // `tile`: A ReLU's `max(v, 0)` (which returns its second operand for a NaN, as `relu`
        // gives 0), or `v` itself through an empty mask.
        let bias = match (&epi.norm, epi.preloaded, &epi.addends[..]) {
            (None, false, &[Addend::Channel { data, step }]) => Some((data, step)),
            _ => None,
        };
        let keep: __mmask16 = if relu { 0xffff } else { 0 };
        for (h, &mk) in t.masks.iter().enumerate() {
            // The masks keep a prefix of the channels.
            let chans = mk.count_ones() as usize;
            if chans == 0 {
                continue;
            }
            let mut rows = [_mm512_setzero_ps(); 16];
            for (row, a) in rows.iter_mut().zip(&acc) {
                *row = a[h];
            }
            let cols = transpose16(rows);
            if let Some((data, step)) = bias {
                for (ci, v) in cols.into_iter().enumerate().take(chans) {
                    let o = t.o + 16 * h + ci;
                    let v = _mm512_add_ps(v, _mm512_set1_ps(data[o * step]));
                    let v = _mm512_mask_max_ps(v, keep, v, _mm512_setzero_ps());
                    // SAFETY: positions `0..R` of channel `o`, one of this tile's, inside `c`.
                    unsafe { _mm512_mask_storeu_ps(t.c.add((16 * h + ci) * t.ldc), positions, v) };
                }
                continue;
            }
            for (ci, mut v) in cols.into_iter().enumerate().take(chans) {
                let o = t.o + 16 * h + ci;
                let at = (16 * h + ci) * t.ldc;
                // SAFETY: positions `0..R` of channel `o`, one of this tile's: inside `c`
                // (`at` is its offset from the tile's first element) and inside a full-shape
                // addend at the same offsets (it has the output's shape); the statistics and
                // per-channel addends hold a value per output channel, and `o` is one.
                unsafe {
                    let dst = t.c.add(at);
                    if let Some(nm) = &epi.norm {
                        // The TIR legalization's order: ((v - mean) · rs) · gamma + beta.
                        let d = _mm512_sub_ps(v, _mm512_set1_ps(*nm.mean.get_unchecked(o)));
                        let d = _mm512_mul_ps(d, _mm512_set1_ps(*nm.rs.get_unchecked(o)));
                        let d = _mm512_mul_ps(d, _mm512_set1_ps(*nm.gamma.get_unchecked(o)));
                        v = _mm512_add_ps(d, _mm512_set1_ps(*nm.beta.get_unchecked(o)));
                    } else if epi.preloaded {
                        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(positions, dst));
                    }
                    for a in &epi.addends {
                        let add = match *a {
                            Addend::Channel { data, step } => {
                                _mm512_set1_ps(*data.get_unchecked(o * step))
                            }
                            Addend::Full(data) => {
                                _mm512_maskz_loadu_ps(positions, data.as_ptr().add(t.off + at))
                            }
                        };
                        v = _mm512_add_ps(v, add);
                    }
                    if relu {
                        // `max` returns its second operand for a NaN, as `relu` gives 0.
                        v = _mm512_max_ps(v, _mm512_setzero_ps());
                    }
                    _mm512_mask_storeu_ps(dst, positions, v);
                }
            }
        }
    }

    /// The transpose of a 16 × 16 block: lane `r` of vector `c` of the result is lane `c` of
    /// `rows[r]`. Within 128-bit lanes, pairs and then quadruples of rows are interleaved;
    /// then the 128-bit lanes are exchanged between the four groups of four rows.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn transpose16(r: [__m512; 16]) -> [__m512; 16] {
        // Interleave rows pairwise: t[2i] = (a0 b0 a1 b1 | …), t[2i+1] = (a2 b2 a3 b3 | …).
        let mut t = [_mm512_setzero_ps(); 16];
        for i in 0..8 {
            t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
            t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
        }
        // Then by fours: u[4g + j] holds, in its 128-bit lane L, rows 4g..4g + 4 of column
        // 4L + j.
        let mut u = [_mm512_setzero_ps(); 16];
        for g in 0..4 {
            let (a, b, c, d) = (t[4 * g], t[4 * g + 1], t[4 * g + 2], t[4 * g + 3]);
            u[4 * g] = _mm512_shuffle_ps::<0x44>(a, c);
            u[4 * g + 1] = _mm512_shuffle_ps::<0xEE>(a, c);
            u[4 * g + 2] = _mm512_shuffle_ps::<0x44>(b, d);
            u[4 * g + 3] = _mm512_shuffle_ps::<0xEE>(b, d);
        }
        // Column 4L + j gathers 128-bit lane L of u[j], u[4 + j], u[8 + j], u[12 + j].
        let mut out = [_mm512_setzero_ps(); 16];
        for j in 0..4 {
            let x0 = _mm512_shuffle_f32x4::<0x44>(u[j], u[4 + j]);
            let x1 = _mm512_shuffle_f32x4::<0xEE>(u[j], u[4 + j]);
            let y0 = _mm512_shuffle_f32x4::<0x44>(u[8 + j], u[12 + j]);
            let y1 = _mm512_shuffle_f32x4::<0xEE>(u[8 + j], u[12 + j]);
            out[j] = _mm512_shuffle_f32x4::<0x88>(x0, y0);
            out[4 + j] = _mm512_shuffle_f32x4::<0xDD>(x0, y0);
            out[8 + j] = _mm512_shuffle_f32x4::<0x88>(x1, y1);
            out[12 + j] = _mm512_shuffle_f32x4::<0xDD>(x1, y1);
        }
        out
    }

    /// Asks for the output lines a register tile will write before computing it (a write
    /// prefetch), so that their misses overlap the tile's multiply-adds instead of stalling
    /// its stores: the output buffer was last written a whole model call ago and is out of
    /// the nearer caches. The tile's elements are `rows` runs of `span` (at least one)
    /// elements, `ld` apart, from `c`. Prefetches never fault, and the addresses are formed
    /// with wrapping arithmetic. (A residual addend's lines are asked for one tile earlier,
    /// [`prefetch_addend`]: asked for with the tile's own, they measured no better on
    /// ResNet-50.)
    #[inline(never)]
    #[target_feature(enable = "avx512f")]
    fn prefetch_output(c: *const f32, rows: usize, ld: usize, span: usize) {
        prefetch_runs::<_MM_HINT_ET0>(c, rows, ld, span);
    }

    /// Prefetches with `HINT` each line of `rows` runs of `span` (at least one) elements, `ld`
    /// apart, from `c`: the first element of every 16 and the last.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn prefetch_runs<const HINT: i32>(c: *const f32, rows: usize, ld: usize, span: usize) {
        for q in 0..rows {
            let row = c.wrapping_add(q * ld);
            let mut e = 0;
            while e < span + 15 {
                _mm_prefetch::<HINT>(row.wrapping_add(e.min(span - 1)).cast::<i8>());
                e += 16;
            }
        }
    }

    /// Prefetches, for reading, the lines of a full-shape addend (a residual) under `rows`
    /// runs of `span` output elements, `ld` apart, from flat offset `off`: for the register
    /// tile after the current one, so that its lines arrive while this tile multiplies. A
    /// residual is the output of an earlier layer, out of cache inside a model; without this
    /// each tile's epilogue waited for memory. Measured on one thread with the caches flushed
    /// between calls (`library --residual --cold`): a 1×1 64 → 256 conv at 56×56 1.48 →
    /// 1.25 ms, 256 → 1024 at 14×14 (packed weights) 1.35 → 1.15 ms. Prefetches never
    /// fault, and the addresses are formed with wrapping arithmetic.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn prefetch_addend(epi: &Epilogue<f32>, off: usize, rows: usize, ld: usize, span: usize) {
        for a in &epi.addends {
            if let Addend::Full(data) = a {
                prefetch_runs::<_MM_HINT_T0>(data.as_ptr().wrapping_add(off), rows, ld, span);
            }
        }
    }

    /// One register tile's operands: `R` rows from `a` and `c`, up to 32 columns (`masks`).
    struct Tile {
        k: usize,
        a: *const f32,
        b: *const f32,
        ldb: usize,
        c: *mut f32,
        ldc: usize,
        masks: [__mmask16; 2],
        /// The output channel of the first row.
        o: usize,
        /// The flat output offset of the first element.
        off: usize,
        /// Whether to prefetch the next tile's columns of `b` (read in place, not packed)
        /// while multiplying this one: for the first tile of channels of a block of
        /// columns, which reads them from beyond L2 (the later tiles find them in L2). The
        /// rows of `b` lie a row of the image apart, too many streams for the hardware
        /// prefetcher. Measured on one thread, the two alternated call by call, an input
        /// out of L2 (`library --evict-mib 8`), minima of 30: SqueezeNet's squeeze
        /// convolutions at 55 × 55 and 27 × 27 5–17% faster, ResNet-50's 1×1 64 → 64 and
        /// 64 → 256 at 56 × 56 6–11%; those at 13 × 13, whose input fits L2, unchanged.
        /// (Prefetching so in `pack_panels` measured unchanged.)
        prefetch_b: bool,
    }

    /// # Safety
    /// As [`run`]'s, for the tile's `R` rows and masked columns.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn tile<const R: usize>(t: &Tile, epi: &Epilogue<f32>) {
        let cols = t.masks[0].count_ones() as usize + t.masks[1].count_ones() as usize;
        prefetch_output(t.c, R, t.ldc, cols);
        // The next tile of these rows is the next 32 columns.
        prefetch_addend(epi, t.off + NR, R, t.ldc, NR);
        let mut acc = [[_mm512_setzero_ps(); 2]; R];
        for p in 0..t.k {
            // SAFETY: row `p` of `b`, the masked columns only; rows `0..R` of `a`. The second
            // half's address is formed with wrapping arithmetic: with 16 columns or fewer its
            // mask is empty and it may lie past the end of `b` (masked-off lanes are not
            // accessed).
            unsafe {
                let row = t.b.add(p * t.ldb);
                if t.prefetch_b {
                    // The same row of the next 32 columns (two lines): a tile's `k` rows
                    // ahead of its use.
                    _mm_prefetch::<_MM_HINT_T0>(row.wrapping_add(32).cast::<i8>());
                    _mm_prefetch::<_MM_HINT_T0>(row.wrapping_add(48).cast::<i8>());
                }
                let b0 = _mm512_maskz_loadu_ps(t.masks[0], row);
                let b1 = _mm512_maskz_loadu_ps(t.masks[1], row.wrapping_add(16));
                for (r, acc) in acc.iter_mut().enumerate() {
                    let av = _mm512_set1_ps(*t.a.add(r * t.k + p));
                    acc[0] = _mm512_fmadd_ps(av, b0, acc[0]);
                    acc[1] = _mm512_fmadd_ps(av, b1, acc[1]);
                }
            }
        }
        let relu = epi.act == Some(Activation::Relu);
        // A bias and perhaps a ReLU (SqueezeNet's every conv) in registers here; any other
        // epilogue out of line. The general loop, which decides per vector what to apply,
        // measured up to 30% slower on a 1×1 conv of 16 input channels, where the epilogue is
        // as long as the multiply-adds, and so did this function with a second epilogue
        // inlined beside this one.
        if let (None, false, &[Addend::Channel { data, step }]) =
            (&epi.norm, epi.preloaded, &epi.addends[..])
        {
            // A ReLU's `max(v, 0)` (which returns its second operand for a NaN, as `relu`
            // gives 0), or `v` itself through an empty mask.
            let keep: __mmask16 = if relu { 0xffff } else { 0 };
            for (r, v) in acc.iter().enumerate() {
                let b = _mm512_set1_ps(data[(t.o + r) * step]);
                for (h, &v) in v.iter().enumerate() {
                    let v = _mm512_add_ps(v, b);
                    let v = _mm512_mask_max_ps(v, keep, v, _mm512_setzero_ps());
                    // SAFETY: the masked columns of row `r` of `c` (the address formed with
                    // wrapping arithmetic: an empty mask's may lie past `c`'s end).
                    unsafe {
                        _mm512_mask_storeu_ps(t.c.wrapping_add(r * t.ldc + 16 * h), t.masks[h], v)
                    };
                }
            }
            return;
        }
        // SAFETY: as this function's contract.
        unsafe { tile_store(t, epi, acc) }
    }

    /// The epilogue and store of a register tile of [`run`] other than a bias: a batch norm
    /// and perhaps a residual (ResNet's), or any other.
    ///
    /// # Safety
    /// As [`run`]'s, for the tile's `R` rows and masked columns.
    #[inline(never)]
    #[target_feature(enable = "avx512f")]
    unsafe fn tile_store<const R: usize>(t: &Tile, epi: &Epilogue<f32>, acc: [[__m512; 2]; R]) {
        let relu = epi.act == Some(Activation::Relu);
        let keep: __mmask16 = if relu { 0xffff } else { 0 };
        if let (Some(nm), addends @ ([] | [Addend::Full(_)])) = (&epi.norm, &epi.addends[..]) {
            let full = match addends {
                [Addend::Full(data)] => Some(*data),
                _ => None,
            };
            for (r, v) in acc.iter().enumerate() {
                let o = t.o + r;
                let (mean, rs) = (_mm512_set1_ps(nm.mean[o]), _mm512_set1_ps(nm.rs[o]));
                let (gamma, beta) = (_mm512_set1_ps(nm.gamma[o]), _mm512_set1_ps(nm.beta[o]));
                for (h, &v) in v.iter().enumerate() {
                    let mk = t.masks[h];
                    // The TIR legalization's order: ((v - mean) · rs) · gamma + beta.
                    let d = _mm512_mul_ps(_mm512_sub_ps(v, mean), rs);
                    let mut v = _mm512_add_ps(_mm512_mul_ps(d, gamma), beta);
                    // SAFETY: the masked columns of row `r` of `c`, and of a full-shape addend
                    // at the same offsets (it has the output's shape); the addresses formed
                    // with wrapping arithmetic, as an empty mask's may lie past the end.
                    unsafe {
                        if let Some(data) = full {
                            let at = data.as_ptr().wrapping_add(t.off + r * t.ldc + 16 * h);
                            v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, at));
                        }
                        let v = _mm512_mask_max_ps(v, keep, v, _mm512_setzero_ps());
                        _mm512_mask_storeu_ps(t.c.wrapping_add(r * t.ldc + 16 * h), mk, v);
                    }
                }
            }
            return;
        }
        for (r, v) in acc.iter().enumerate() {
            let (o, off) = (t.o + r, t.off + r * t.ldc);
            // SAFETY: row `r` of `c`, the masked columns only.
            let dst = unsafe { t.c.add(r * t.ldc) };
            for (h, &v) in v.iter().enumerate() {
                let mut v = v;
                let mk = t.masks[h];
                // SAFETY: the masked columns of row `r` of `c`, and of a full-shape addend
                // at the same offsets (it has the output's shape); the addresses formed with
                // wrapping arithmetic, as an empty mask's may lie past the end.
                unsafe {
                    if let Some(nm) = &epi.norm {
                        // The TIR legalization's order: ((v - mean) · rs) · gamma + beta.
                        let d = _mm512_sub_ps(v, _mm512_set1_ps(nm.mean[o]));
                        let d = _mm512_mul_ps(d, _mm512_set1_ps(nm.rs[o]));
                        let d = _mm512_mul_ps(d, _mm512_set1_ps(nm.gamma[o]));
                        v = _mm512_add_ps(d, _mm512_set1_ps(nm.beta[o]));
                    } else if epi.preloaded {
                        v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, dst.wrapping_add(16 * h)));
                    }
                    for a in &epi.addends {
                        let add = match *a {
                            Addend::Channel { data, step } => _mm512_set1_ps(data[o * step]),
                            Addend::Full(data) => {
                                _mm512_maskz_loadu_ps(mk, data.as_ptr().wrapping_add(off + 16 * h))
                            }
                        };
                        v = _mm512_add_ps(v, add);
                    }
                    let v = _mm512_mask_max_ps(v, keep, v, _mm512_setzero_ps());
                    _mm512_mask_storeu_ps(dst.wrapping_add(16 * h), mk, v);
                }
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Lane `r` of column `c` of the transpose is lane `c` of row `r`, for every pair.
        #[test]
        fn transpose16_transposes() {
            if !available() {
                return;
            }
            let m: Vec<f32> = (0..256).map(|i| i as f32).collect();
            // SAFETY: the CPU has AVX-512F (checked above); each load reads 16 of the 256.
            let cols = unsafe {
                let rows: [__m512; 16] =
                    std::array::from_fn(|r| _mm512_loadu_ps(m.as_ptr().add(16 * r)));
                transpose16(rows)
            };
            for (c, col) in cols.iter().enumerate() {
                let mut lanes = [0f32; 16];
                // SAFETY: as above; the store writes the 16 lanes of `lanes`.
                unsafe { _mm512_storeu_ps(lanes.as_mut_ptr(), *col) };
                for (r, v) in lanes.iter().enumerate() {
                    assert_eq!(*v, m[16 * r + c], "row {r}, column {c}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::test_support::{self, GUARD};

    fn geometry(h: usize, k: usize, pad: usize, dilation: usize, out: usize) -> Geometry {
        Geometry {
            n: 1,
            c: 2,
            h,
            w: h,
            o: 32,
            kh: k,
            kw: k,
            oh: out,
            ow: out,
            groups: 1,
            stride: [1, 1],
            pad: [pad, pad],
            dilation: [dilation, dilation],
            packed: true,
            winograd: false,
        }
    }

    /// The image the channel kernel reads is the input itself without padding, a padded copy
    /// of a reasonable size with it, and nothing (the unfolding path) when the padding or the
    /// dilation would make the copy overflow or dwarf the input.
    #[test]
    fn the_padded_extent_is_checked() {
        assert_eq!(
            Padded::<f32>::extent(&geometry(8, 3, 0, 1, 6), 128),
            Some((8, 8))
        );
        assert_eq!(
            Padded::<f32>::extent(&geometry(8, 3, 1, 1, 8), 128),
            Some((10, 10))
        );
        // A 1×1 image, a 2×2 kernel dilated and padded by 2³² − 1: one output position whose
        // taps span 2³² rows and columns.
        let huge = (1usize << 32) - 1;
        assert_eq!(
            Padded::<f32>::extent(&geometry(1, 2, huge, huge, 1), 2),
            None
        );
        // No overflow, but a copy of 10⁸ elements for an input of 2.
        assert_eq!(
            Padded::<f32>::extent(&geometry(1, 2, 5000, 5000, 1), 2),
            None
        );
    }

    /// The column tiles partition the plane in order, each but the last whole units; the
    /// tasks come in a multiple of the threads where the units allow it; and ResNet's 28×28
    /// plane on two threads is cut so that neither thread gets more than 13 of its 25
    /// register tiles (it got 15 of 27 when the tiles were one width rounded up).
    #[test]
    fn column_tiles_partition_the_plane_evenly() {
        for plane in (1..700).chain([784, 3025, 3136, 12544]) {
            for (kdim, threads, gemms, unit) in [
                (16, 1, 1, 32),
                (64, 2, 1, 32),
                (512, 2, 3, 16),
                (2304, 4, 1, 32),
                (147, 2, 2, 16),
            ] {
                let s = Split::new(gemms, 64, plane, kdim, threads, 1, unit);
                let mut end = 0;
                for ct in 0..s.col_tiles {
                    let (c0, c1) = s.cols(ct);
                    assert!(
                        c0 == end && c1 > c0,
                        "plane {plane}: tile {ct} is {c0}..{c1}"
                    );
                    assert!(c0 % unit == 0 && (c1 % unit == 0 || c1 == plane));
                    end = c1;
                }
                assert_eq!(end, plane, "plane {plane}");
                let tasks = gemms * s.col_tiles * s.row_blocks;
                if s.col_tiles > 1 && s.col_tiles < s.plane.div_ceil(s.unit) {
                    assert!(
                        tasks.is_multiple_of(threads),
                        "plane {plane}, {threads} threads"
                    );
                }
            }
        }
        let s = Split::new(1, 512, 784, 128, 2, 1, 32);
        let units = |ct: usize| {
            let (c0, c1) = s.cols(ct);
            (c1 - c0).div_ceil(32)
        };
        let per_thread = |t: usize| (t..s.col_tiles).step_by(2).map(units).sum::<usize>();
        assert_eq!((per_thread(0).max(per_thread(1)), s.col_tiles), (13, 6));
    }

    /// The guard value: a read past a buffer folds it into a sum of small integers (exact in
    /// f32), which then differs from the reference.
    const GUARD_VALUE: f32 = 4096.0;

    /// `v` between guards of [`GUARD_VALUE`]: the buffer, and the range of `v` in it.
    fn guarded(v: &[f32]) -> (Vec<f32>, std::ops::Range<usize>) {
        test_support::guarded(v, GUARD_VALUE)
    }

    /// Every kernel the geometries below reach (the depthwise phases and rows, the unfolding
    /// with the fused AVX-512 kernel or the GEMM, the 1×1 direct path, the channel-vectorized
    /// kernel on packed weights through the padded copy or in place) reads only its operands
    /// and writes only its output: on edge geometries (1-wide planes, paddings wider than the
    /// kernel, dilations longer than the image, strides past it, masked last tiles), each
    /// operand between guards that a read past it would add into the result and a write
    /// past the output would overwrite (AddressSanitizer checks the masked AVX-512 loads and
    /// stores lane by lane too). Small integers, so that every order of the sums is exact
    /// (the Winograd kernels, whose transforms are not, have tests of their own).
    #[test]
    fn convolutions_stay_inside_their_operands() {
        let mut next = test_support::xorshift(0x9e37_79b9_7f4a_7c15);
        // (n, c, h, w, o, kh, kw, stride h/w, pad t/l/b/r, dilation h/w, groups)
        let cases: &[[usize; 16]] = &[
            [1, 3, 1, 1, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1],
            [1, 2, 1, 1, 33, 3, 3, 1, 1, 4, 4, 4, 4, 1, 1, 1],
            [2, 3, 5, 1, 40, 2, 3, 2, 2, 1, 3, 0, 3, 1, 1, 1],
            [1, 4, 3, 4, 17, 2, 2, 1, 2, 5, 5, 5, 5, 7, 9, 1],
            [1, 2, 7, 37, 70, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1],
            [1, 5, 9, 33, 31, 3, 1, 1, 1, 0, 2, 2, 0, 2, 1, 1],
            [1, 2, 6, 45, 8, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1],
            [1, 3, 4, 20, 6, 2, 2, 3, 5, 1, 1, 2, 2, 1, 1, 1],
            [1, 96, 3, 3, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1],
            [1, 4, 1, 9, 4, 1, 3, 1, 2, 0, 4, 0, 4, 1, 3, 4],
            [1, 3, 5, 1, 6, 3, 3, 2, 1, 6, 6, 6, 6, 5, 4, 3],
            [2, 4, 6, 6, 8, 3, 2, 4, 9, 0, 1, 0, 1, 1, 1, 2],
            // Inner dimensions of 256 and more for 64 channels or more: `small_k` packs its
            // columns into panels, read in place (1×1: two blocks of columns, the last
            // panel partial, tiles of 11 and 12 channels) or from the unfolded tile (strided
            // 3×3).
            [1, 256, 20, 20, 70, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1],
            [1, 32, 9, 11, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1],
            // 1×1 strided: packed weights read a copy of the sampled positions (with
            // padding, and a stride beyond 2).
            [2, 5, 7, 9, 40, 1, 1, 2, 3, 1, 0, 1, 2, 1, 1, 1],
            [1, 3, 14, 14, 33, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1],
        ];
        for case in cases {
            let [
                n,
                c,
                h,
                w,
                o,
                kh,
                kw,
                sh,
                sw,
                pt,
                pl,
                pb,
                pr,
                dh,
                dw,
                groups,
            ] = *case;
            let extent = |size: usize, k: usize, s: usize, d: usize, lo: usize, hi: usize| {
                let window = SlidingWindow {
                    stride: s as i64,
                    dilation: d as i64,
                    pad_before: lo as i64,
                    pad_after: hi as i64,
                    ceil_mode: false,
                };
                let v = window.positions(size as i64, k as i64).unwrap_or(0);
                assert!(v > 0, "case {case:?} has no output positions");
                v as usize
            };
            let (oh, ow) = (extent(h, kh, sh, dh, pt, pb), extent(w, kw, sw, dw, pl, pr));
            let cg = c / groups;
            let og = o / groups;
            let mut small = |len: usize, values: &[f32]| -> Vec<f32> {
                (0..len)
                    .map(|_| values[next() as usize % values.len()])
                    .collect()
            };
            let x = small(n * c * h * w, &[-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0]);
            let wt = small(o * cg * kh * kw, &[-2.0, -1.0, 1.0, 2.0]);
            let bias = small(o, &[-1.0, 0.5, 1.0]);
            let residual = small(n * o * oh * ow, &[-1.0, 0.0, 1.0]);
            // The convolution written out.
            let mut want = vec![0f32; n * o * oh * ow];
            for (at, v) in want.iter_mut().enumerate() {
                let (b, oc, y, xo) = (
                    at / (o * oh * ow),
                    at / (oh * ow) % o,
                    at / ow % oh,
                    at % ow,
                );
                let grp = oc / og;
                for ci in 0..cg {
                    for i in 0..kh {
                        for j in 0..kw {
                            let iy = (y * sh + i * dh) as isize - pt as isize;
                            let ix = (xo * sw + j * dw) as isize - pl as isize;
                            if (0..h as isize).contains(&iy) && (0..w as isize).contains(&ix) {
                                let xi = ((b * c + grp * cg + ci) * h + iy as usize) * w;
                                *v += x[xi + ix as usize] * wt[((oc * cg + ci) * kh + i) * kw + j];
                            }
                        }
                    }
                }
            }
            let params: Vec<i64> = [sh, sw, pt, pl, pb, pr, dh, dw, groups]
                .iter()
                .map(|&v| v as i64)
                .collect();
            let out_shape = [n, o, oh, ow];
            let (xg, xr) = guarded(&x);
            let x_view = View {
                data: &xg[xr],
                shape: vec![n, c, h, w],
            };
            let (packed, packed_shape) =
                relax::transform::dispatch_library::pack_conv_weights(&wt, [o, cg, kh, kw]);
            let mut weights = vec![(wt.clone(), vec![o, cg, kh, kw])];
            if groups == 1 && c > 1 {
                weights.push((packed, packed_shape.to_vec()));
            }
            let (bg, br) = guarded(&bias);
            let (rg, rr) = guarded(&residual);
            for (wdata, wshape) in &weights {
                let (wg, wr) = guarded(wdata);
                let w_view = View {
                    data: &wg[wr],
                    shape: wshape.clone(),
                };
                for fused in [false, true] {
                    let epi = Epilogue {
                        norm: None,
                        addends: if fused {
                            vec![
                                Addend::Channel {
                                    data: &bg[br.clone()],
                                    step: 1,
                                },
                                Addend::Full(&rg[rr.clone()]),
                            ]
                        } else {
                            Vec::new()
                        },
                        preloaded: false,
                        act: None,
                    };
                    let (mut out, range) = guarded(&vec![f32::NAN; want.len()]);
                    // Not through Winograd, whose transforms are not exact.
                    conv2d_with(
                        &x_view,
                        &w_view,
                        &params,
                        &epi,
                        &mut out[range.clone()],
                        &out_shape,
                        false,
                    )
                    .expect("a valid convolution");
                    let what = format!("case {case:?}, weights {wshape:?}, epilogue {fused}");
                    assert!(
                        out[..GUARD]
                            .iter()
                            .chain(&out[range.end..])
                            .all(|&v| v == GUARD_VALUE),
                        "{what}: a write past the output"
                    );
                    let expected: Vec<f32> = if fused {
                        (want.iter().enumerate())
                            .map(|(at, v)| v + bias[at / (oh * ow) % o] + residual[at])
                            .collect()
                    } else {
                        want.clone()
                    };
                    assert_eq!(&out[range], &expected[..], "{what}");
                }
            }
        }
    }
}
