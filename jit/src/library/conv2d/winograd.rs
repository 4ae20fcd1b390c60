//! Winograd F(4×4, 3×3) convolution: 3×3, stride-1, undilated convolutions of one group whose
//! weights the dispatch pass transformed at compile time (`U = G g Gᵀ`, laid out `[36, O, C]`,
//! then the weights' own taps: `relax::transform::dispatch_library::winograd_conv_weights`;
//! the caller runs the direct kernels on those for an input that is not finite, which the
//! input transform detects as it reads the image). Each 4 × 4 output tile is
//! computed from a 6 × 6 input tile with 36 multiplies per (input, output) channel pair
//! instead of 144: the input tiles are transformed (`V = Bᵀ d B`, zeros outside the image
//! standing for the padding), each of the 36 points is a GEMM `M[ξ] = U[ξ] · V[ξ]` (output
//! channels × tiles, over the input channels), and the output tiles are transformed back
//! (`Y = Aᵀ M A`), cropped at the edges, and given the convolution's epilogue while in cache.
//!
//! The tiles of each image are cut into blocks whose transformed input stays in L2; a task
//! transforms its block into a per-thread buffer and runs the GEMMs and the output transform
//! for 16 output channels at a time. When the blocks are too few to keep every thread busy
//! (small planes), blocks of output channels become tasks too and the input is transformed
//! once, in parallel, before they start. On AVX-512 (f32) the transforms run on 16 tiles at a
//! time and the GEMMs on a register-tiled kernel vectorized along the tiles; elsewhere
//! (and for f64) a portable path runs scalar transforms and the `gemm` crate.
//!
//! Accuracy: the transforms' coefficients (up to 8 in `Aᵀ`, 5 in `Bᵀ`) amplify rounding, so
//! results differ from the direct convolution's by a few units in the 5th–6th significant
//! digit of the largest magnitudes of a layer (measured on SqueezeNet's and ResNet-50's
//! layers; see the tests), not bit for bit.
//!
//! Where it runs (and its measurements against the direct kernels): see
//! `relax::transform::dispatch_library::uses_winograd`.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

use relax::transform::dispatch_library::{uses_winograd, winograd_conv_weights_into};

use super::super::{Float, Mat, SendPtr, gemm_into};
use super::{Addend, Epilogue, Geometry};

/// The side of an output tile.
const M: usize = 4;
/// The side of an input tile.
const ALPHA: usize = 6;
/// Points per tile: the GEMMs.
const POINTS: usize = ALPHA * ALPHA;
/// Output channels per pass of GEMMs and output transform: their products for a block of
/// tiles (`36 × 16 × tiles` f32) stay in the nearer caches until transformed. Measured on one
/// thread on SqueezeNet's and ResNet-50's layers: 16 ran 0–10% faster than 32 and 64, and
/// the same as 8.
const OB: usize = 16;
/// Tiles are handled 16 at a time (one AVX-512 vector of f32).
const LANES: usize = 16;
/// The most tiles in a block.
const MAX_BLOCK: usize = 256;
/// The transformed input of a block (`36 × C × tiles`) is kept to about this many elements
/// (512 KiB of f32: a quarter of L2, leaving room for the products and the weights).
const BLOCK_ELEMENTS: usize = 1 << 17;

/// How the tiles and output channels are cut into tasks.
struct Plan {
    tiles_x: usize,
    /// Tiles per image.
    tiles: usize,
    /// Tiles per block (a multiple of [`LANES`], at most [`MAX_BLOCK`]).
    tb: usize,
    /// Blocks per image.
    blocks: usize,
    /// Output channels per task.
    o_per: usize,
    o_blocks: usize,
    /// The whole input is transformed before the tasks (blocks of output channels share it).
    shared: bool,
    parallel: bool,
}

impl Plan {
    fn new(g: &Geometry, threads: usize, can_share: bool) -> Plan {
        let (tiles_y, tiles_x) = (g.oh.div_ceil(M), g.ow.div_ceil(M));
        let tiles = tiles_y * tiles_x;
        let work = g.n * g.o * tiles * g.c.max(1) * POINTS;
        let parallel = threads > 1 && work >= 1 << 20;
        let by_cache = (BLOCK_ELEMENTS / (POINTS * g.c.max(1))) / LANES * LANES;
        let cap = by_cache
            .min(tiles.next_multiple_of(LANES))
            .clamp(LANES, MAX_BLOCK);
        let tb = if parallel {
            Self::spread(g.n, tiles, cap, threads)
        } else {
            cap
        };
        let blocks = tiles.div_ceil(tb);
        // Fewer blocks than threads: blocks of output channels too. (With a block or more per
        // thread, each thread keeps to the rows of its blocks, all channels: cutting the
        // channels too, as this did below two blocks per thread, had the threads read each
        // other's transformed input and write each other's rows of the output, which the next
        // layer reads. Measured on SqueezeNet, whose 55×55 and 27×27 layers are two blocks,
        // on a 2-core Zen 5, alternating processes of `rows --calls 300 squeezenet`: with the
        // two cores on different CCDs 2450, 2451, 2389 → 2308, 2286 µs, each of those four
        // layers 147–160 → 113–134 µs; on one CCD 1562, 1570, 1506 → 1529, 1505, 1562 µs.)
        let mut o_blocks = 1;
        if parallel && can_share && g.n * blocks < threads {
            o_blocks = (2 * threads)
                .div_ceil(g.n * blocks)
                .min(g.o.div_ceil(OB))
                .max(1);
        }
        let o_per = g.o.div_ceil(o_blocks).max(1);
        let o_blocks = g.o.div_ceil(o_per).max(1);
        Plan {
            tiles_x,
            tiles,
            tb,
            blocks,
            o_per,
            o_blocks,
            shared: o_blocks > 1,
            parallel,
        }
    }

    /// The block size, a multiple of 16 tiles up to `cap`, whose blocks spread best over
    /// `threads`: the least work on the busiest thread when the blocks of `n` images of
    /// `tiles` are dealt out largest first, a block's work being its vectors of 16 tiles plus
    /// one for its fixed costs (the weights streamed, the padded rows copied); the largest
    /// such size. (196 tiles on two threads: 48, four blocks of 3 vectors and one of 1, rather
    /// than 32, whose seven blocks leave one thread a block more.)
    fn spread(n: usize, tiles: usize, cap: usize, threads: usize) -> usize {
        let mut best = (usize::MAX, LANES);
        let mut loads = vec![0usize; threads];
        for tb in (LANES..=cap).step_by(LANES) {
            let (full, rest) = (tiles / tb, tiles % tb);
            loads.fill(0);
            let costs = std::iter::repeat_n(tb / LANES + 1, n * full).chain(std::iter::repeat_n(
                rest.div_ceil(LANES) + 1,
                n * usize::from(rest > 0),
            ));
            for cost in costs {
                let least = loads.iter_mut().min().expect("at least one thread");
                *least += cost;
            }
            let busiest = loads.iter().copied().max().unwrap_or(0);
            if busiest <= best.0 {
                best = (busiest, tb);
            }
        }
        best.1
    }

    /// Where tile `t` of an image starts, in output rows and columns.
    fn origin(&self, t: usize) -> (usize, usize) {
        (t / self.tiles_x * M, t % self.tiles_x * M)
    }

    /// The rows of the padded input that tiles `t0..t1` read: `(first row, rows)`.
    fn rows(&self, t0: usize, t1: usize) -> (usize, usize) {
        let (y0, y1) = (self.origin(t0).0, self.origin(t1 - 1).0);
        (y0, y1 - y0 + ALPHA)
    }

    /// The columns of the padded input the tiles read.
    fn wp(&self) -> usize {
        self.tiles_x * M + ALPHA - M
    }
}

/// `out = epilogue(conv(x, w))` for a Winograd geometry (`g.winograd`), `u` the transformed
/// weights `[36, O, C]` (the first 36 rows of the `[45, O, C]` that `Geometry::new` checked).
///
/// Returns false, with `out` partly written, when an element of `x` that the tiles read is
/// infinite or NaN: it would spread through the transform of each 6 × 6 input tile that holds
/// it into outputs whose windows do not (and `inf − inf` is NaN), so the caller computes the
/// convolution with the direct kernels instead, which keep it to the outputs that read it.
/// The transform detects it as it copies the image (no pass of its own over the input), so
/// that an epilogue that reads the output it writes (`Epilogue::preloaded`) must not come
/// here with such an input: the caller checks the input first then.
#[must_use]
pub(super) fn conv2d<T: Float>(
    g: &Geometry,
    x: &[T],
    u: &[T],
    epi: &Epilogue<T>,
    out: &mut [T],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    let fast = T::DTYPE == vm::DataType::F32 && avx512::available();
    #[cfg(not(target_arch = "x86_64"))]
    let fast = false;
    run(g, x, u, epi, out, fast)
}

/// Whether OIHW `f32` weights, passed at run time rather than transformed by the dispatch
/// pass, are transformed on this call ([`conv2d_oihw`]): where the dispatch pass would have
/// transformed constant ones, on AVX-512. The transform costs about 100 flops per (output,
/// input) channel pair, the convolution 36 multiply-adds per pair and tile saved by it: on a
/// plane of 16 tiles or more, a few percent of the time saved.
pub(super) fn at_run_time<T: Float>(g: &Geometry) -> bool {
    #[cfg(target_arch = "x86_64")]
    let fast = T::DTYPE == vm::DataType::F32 && avx512::available();
    #[cfg(not(target_arch = "x86_64"))]
    let fast = false;
    fast && !g.packed
        && !g.winograd
        && (g.kh, g.kw) == (3, 3)
        && g.stride == [1, 1]
        && g.dilation == [1, 1]
        && g.groups == 1
        && uses_winograd(g.o, g.c, g.oh, g.ow)
}

/// [`conv2d`] for OIHW `f32` weights ([`at_run_time`]): transformed first into a per-thread
/// buffer. Returns false for an input that is not finite, as [`conv2d`] does.
#[must_use]
pub(super) fn conv2d_oihw<T: Float>(
    g: &Geometry,
    x: &[T],
    w: &[T],
    epi: &Epilogue<T>,
    out: &mut [T],
) -> bool {
    debug_assert!(at_run_time::<T>(g));
    let mut u = WEIGHTS.with(Cell::take);
    if u.len() < POINTS * g.o * g.c {
        u.resize(POINTS * g.o * g.c, 0.0);
    }
    // SAFETY: `T` is f32 (`at_run_time`).
    let w32 = unsafe { std::slice::from_raw_parts(w.as_ptr().cast::<f32>(), w.len()) };
    winograd_conv_weights_into(w32, [g.o, g.c], &mut u);
    // SAFETY: as above, the same elements retyped.
    let u_t = unsafe { std::slice::from_raw_parts(u.as_ptr().cast::<T>(), u.len()) };
    let g = Geometry {
        winograd: true,
        ..g.clone()
    };
    let done = conv2d(&g, x, u_t, epi, out);
    WEIGHTS.with(|s| s.set(u));
    done
}

thread_local! {
    /// The transformed weights of a call of [`conv2d_oihw`].
    static WEIGHTS: Cell<Vec<f32>> = const { Cell::new(Vec::new()) };
}

/// [`conv2d`] on the AVX-512 path (`fast`, which needs f32 and the CPU's support) or the
/// portable one; false if the input transform met an element that is not finite.
fn run<T: Float>(
    g: &Geometry,
    x: &[T],
    u: &[T],
    epi: &Epilogue<T>,
    out: &mut [T],
    fast: bool,
) -> bool {
    // Set by the first input transform that meets an infinite or NaN element: the tasks not
    // yet started then do nothing, and the result is false.
    let non_finite = AtomicBool::new(false);
    let threads = crate::pool::threads();
    let plan = Plan::new(g, threads, fast);
    // The gather indices of the AVX-512 input transform are i32 offsets into the padded rows
    // of a block of up to `MAX_BLOCK` tiles, which span at most `MAX_BLOCK / tiles_x + 2`
    // rows of tiles.
    let reach = (MAX_BLOCK / plan.tiles_x + 2) * M + ALPHA;
    let fast = fast
        && reach
            .checked_mul(plan.wp())
            .is_some_and(|v| v < i32::MAX as usize);
    let plan = if fast {
        plan
    } else {
        Plan::new(g, threads, false)
    };
    let per_image = g.c * g.h * g.w;
    // With blocks of output channels: the whole input transformed first, `[n][36][C][ld]`.
    let ld_all = plan.tiles.next_multiple_of(LANES);
    #[cfg(target_arch = "x86_64")]
    let mut shared: Vec<f32> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    if plan.shared {
        shared = avx512::take_shared();
        let len = g.n * POINTS * g.c * ld_all;
        if shared.len() < len {
            shared.resize(len, 0.0);
        }
        // SAFETY: `fast` (the only way `plan.shared` is set) means `T` is f32.
        let x32 = unsafe { std::slice::from_raw_parts(x.as_ptr().cast::<f32>(), x.len()) };
        let chunks = g.c.min((4 * threads).div_ceil(g.n)).max(1);
        let per_chunk = g.c.div_ceil(chunks);
        let dst = SendPtr(shared.as_mut_ptr());
        let job = |j: usize| {
            let (n, c0) = (j / chunks, j % chunks * per_chunk);
            let c1 = (c0 + per_chunk).min(g.c);
            let image = &x32[n * per_image..][..per_image];
            let mut pad = f32::take_scratch();
            for t0 in (0..plan.tiles).step_by(MAX_BLOCK) {
                if non_finite.load(Ordering::Relaxed) {
                    break;
                }
                let t1 = (t0 + MAX_BLOCK).min(plan.tiles);
                // SAFETY: the CPU has AVX-512 (`fast`); image `n`'s part of the buffer,
                // `[36][C][ld_all]`, columns `t0..` (`t1 - t0` rounded up to 16 stays inside
                // `ld_all`), channels `c0..c1`: no other job writes them.
                let finite = unsafe {
                    avx512::input_transform(
                        g,
                        &plan,
                        image,
                        c0..c1,
                        (t0, t1),
                        dst.get().add(n * POINTS * g.c * ld_all + t0),
                        ld_all,
                        &mut pad,
                    )
                };
                if !finite {
                    non_finite.store(true, Ordering::Relaxed);
                }
            }
            f32::put_scratch(pad);
        };
        let jobs = g.n * chunks;
        if plan.parallel {
            crate::pool::for_each(jobs, job);
        } else {
            (0..jobs).for_each(job);
        }
        if non_finite.load(Ordering::Relaxed) {
            avx512::put_shared(shared);
            return false;
        }
    }
    #[cfg(target_arch = "x86_64")]
    let shared_ref = &shared;
    let dst = SendPtr(out.as_mut_ptr());
    let tasks = g.n * plan.blocks * plan.o_blocks;
    let one = |task: usize| {
        if non_finite.load(Ordering::Relaxed) {
            return;
        }
        let ob = task % plan.o_blocks;
        let (n, b) = (
            task / plan.o_blocks / plan.blocks,
            task / plan.o_blocks % plan.blocks,
        );
        let (t0, t1) = (b * plan.tb, ((b + 1) * plan.tb).min(plan.tiles));
        let (o0, o1) = (ob * plan.o_per, ((ob + 1) * plan.o_per).min(g.o));
        let image = &x[n * per_image..][..per_image];
        let width = (t1 - t0).next_multiple_of(LANES);
        let mut scratch = T::take_scratch();
        let v_len = if plan.shared { 0 } else { POINTS * g.c * width };
        let m_len = POINTS * OB * width;
        if scratch.len() < v_len + m_len {
            scratch.resize(v_len + m_len, T::ZERO);
        }
        let (v, rest) = scratch.split_at_mut(v_len);
        let m = &mut rest[..m_len];
        let out_image = dst.get().wrapping_add(n * g.o * g.oh * g.ow);
        #[cfg(target_arch = "x86_64")]
        if fast {
            let mut pad = Vec::new();
            // Below, `fast` means that `T` is f32 and that the CPU has AVX-512F and VL.
            let (v32, ldv) = if plan.shared {
                (
                    shared_ref[n * POINTS * g.c * ld_all + t0..].as_ptr(),
                    ld_all,
                )
            } else {
                pad = avx512::take_pad();
                // SAFETY: `T` is f32 (`fast`): the same elements retyped.
                let image32 = unsafe {
                    std::slice::from_raw_parts(image.as_ptr().cast::<f32>(), image.len())
                };
                // SAFETY: AVX-512 (`fast`); `v` holds `36 × C × width` elements, `width` the
                // block's tiles rounded up to 16, this task's own.
                let finite = unsafe {
                    avx512::input_transform(
                        g,
                        &plan,
                        image32,
                        0..g.c,
                        (t0, t1),
                        v.as_mut_ptr().cast::<f32>(),
                        width,
                        &mut pad,
                    )
                };
                if !finite {
                    non_finite.store(true, Ordering::Relaxed);
                    avx512::put_pad(pad);
                    T::put_scratch(scratch);
                    return;
                }
                (v.as_ptr().cast::<f32>(), width)
            };
            // SAFETY: `T` is f32 (`fast`): the same epilogue retyped.
            let epi32 = unsafe { &*(epi as *const Epilogue<T>).cast::<Epilogue<f32>>() };
            let m32 = m.as_mut_ptr().cast::<f32>();
            for os in (o0..o1).step_by(OB) {
                let oe = (os + OB).min(o1);
                for xi in 0..POINTS {
                    // The next point's rows of weights lie `O × C` further on: out of the
                    // hardware prefetcher's reach, which stops at page boundaries.
                    let next = if xi + 1 < POINTS {
                        Some(((xi + 1) * g.o + os) * g.c)
                    } else {
                        // The next block of output channels' first point.
                        (oe < o1).then_some(oe * g.c)
                    };
                    if let Some(next) = next {
                        avx512::prefetch_weights(u[next..].as_ptr().cast(), (oe - os) * g.c);
                    }
                    // SAFETY: rows `os..oe` of point `xi`'s `O × C` weights; the block's
                    // `C × width` transformed input of point `xi` (row stride `ldv`); the
                    // products' `(oe - os) × width` rows of point `xi` (row stride `width`),
                    // this task's own buffer.
                    unsafe {
                        avx512::gemm(
                            oe - os,
                            width,
                            g.c,
                            u[(xi * g.o + os) * g.c..].as_ptr().cast::<f32>(),
                            v32.add(xi * g.c * ldv),
                            ldv,
                            m32.add(xi * OB * width),
                            width,
                        );
                    }
                }
                // SAFETY: the products above; the output image `n`, whose tiles `t0..t1` of
                // channels `os..oe` only this task writes.
                unsafe {
                    avx512::output_transform(
                        g,
                        &plan,
                        m32,
                        width,
                        os..oe,
                        (t0, t1),
                        epi32,
                        out_image.cast::<f32>(),
                        n * g.o * g.oh * g.ow,
                    );
                }
            }
            if pad.capacity() > 0 {
                avx512::put_pad(pad);
            }
            T::put_scratch(scratch);
            return;
        }
        if !portable_input_transform(g, &plan, image, (t0, t1), v, width) {
            non_finite.store(true, Ordering::Relaxed);
            T::put_scratch(scratch);
            return;
        }
        for os in (o0..o1).step_by(OB) {
            let oe = (os + OB).min(o1);
            for xi in 0..POINTS {
                // SAFETY: as in the AVX-512 path: rows `os..oe` of point `xi`'s weights
                // (`O × C`), its `C × width` transformed input, and its rows of this
                // task's products.
                unsafe {
                    gemm_into(
                        oe - os,
                        width,
                        g.c,
                        m[xi * OB * width..].as_mut_ptr(),
                        width as isize,
                        false,
                        Mat {
                            ptr: u[(xi * g.o + os) * g.c..].as_ptr(),
                            rs: g.c as isize,
                            cs: 1,
                        },
                        Mat {
                            ptr: v[xi * g.c * width..].as_ptr(),
                            rs: width as isize,
                            cs: 1,
                        },
                        gemm::Parallelism::None,
                    );
                }
            }
            portable_output_transform(
                g,
                &plan,
                m,
                width,
                os..oe,
                (t0, t1),
                epi,
                out_image,
                n * g.o * g.oh * g.ow,
            );
        }
        T::put_scratch(scratch);
    };
    if plan.parallel && tasks > 1 {
        crate::pool::for_each(tasks, one);
    } else {
        (0..tasks).for_each(one);
    }
    #[cfg(target_arch = "x86_64")]
    if plan.shared {
        avx512::put_shared(shared);
    }
    !non_finite.load(Ordering::Relaxed)
}

/// `Bᵀ d` for F(4, 3): one column of six inputs to six.
#[inline(always)]
fn bt<T: Float>(d: [T; 6]) -> [T; 6] {
    let k = T::from_f64;
    let t0 = d[4].sub(k(4.0).mul(d[2]));
    let t1 = d[3].sub(k(4.0).mul(d[1]));
    let t2 = d[4].sub(d[2]);
    let t3 = k(2.0).mul(d[3].sub(d[1]));
    [
        k(4.0).mul(d[0]).sub(k(5.0).mul(d[2])) + d[4],
        t0 + t1,
        t0.sub(t1),
        t2 + t3,
        t2.sub(t3),
        k(4.0).mul(d[1]).sub(k(5.0).mul(d[3])) + d[5],
    ]
}

/// `Aᵀ m` for F(4, 3): six products to four outputs.
#[inline(always)]
fn at<T: Float>(m: [T; 6]) -> [T; 4] {
    let k = T::from_f64;
    let (a, b) = (m[1] + m[2], m[1].sub(m[2]));
    let (c, d) = (m[3] + m[4], m[3].sub(m[4]));
    [
        m[0] + a + c,
        b + k(2.0).mul(d),
        a + k(4.0).mul(c),
        b + k(8.0).mul(d) + m[5],
    ]
}

/// The transformed input of tiles `t0..t1` of `image` (`C × H × W`), every channel, into `v`
/// (`[36][C][ld]`, column `t - t0`), one tile at a time; false (and `v` partly written) at
/// the first tile that reads an infinite or NaN element.
#[must_use]
fn portable_input_transform<T: Float>(
    g: &Geometry,
    plan: &Plan,
    image: &[T],
    (t0, t1): (usize, usize),
    v: &mut [T],
    ld: usize,
) -> bool {
    for c in 0..g.c {
        let src = &image[c * g.h * g.w..][..g.h * g.w];
        for t in t0..t1 {
            let (y0, x0) = plan.origin(t);
            let mut d = [[T::ZERO; ALPHA]; ALPHA];
            for (i, row) in d.iter_mut().enumerate() {
                let Some(iy) = (y0 + i).checked_sub(g.pad[0]).filter(|&iy| iy < g.h) else {
                    continue;
                };
                for (j, e) in row.iter_mut().enumerate() {
                    if let Some(ix) = (x0 + j).checked_sub(g.pad[1]).filter(|&ix| ix < g.w) {
                        *e = src[iy * g.w + ix];
                    }
                }
                if !row.iter().all(|e| e.is_finite()) {
                    return false;
                }
            }
            // Bᵀ d, column by column, then (Bᵀ d) B, row by row.
            let mut tmp = [[T::ZERO; ALPHA]; ALPHA];
            for j in 0..ALPHA {
                let col = bt(std::array::from_fn(|i| d[i][j]));
                for (i, v) in col.into_iter().enumerate() {
                    tmp[i][j] = v;
                }
            }
            for (i, row) in tmp.iter().enumerate() {
                for (j, val) in bt(*row).into_iter().enumerate() {
                    v[((ALPHA * i + j) * g.c + c) * ld + t - t0] = val;
                }
            }
        }
    }
    true
}

/// The output tiles `t0..t1` of channels `os..oe` from their products `m` (`[36][OB][ld]`,
/// row `o - os`, column `t - t0`), cropped to the output and given the epilogue; `out` is the
/// image's output (`O × OH × OW`) at flat offset `base` of the whole output.
///
/// Each task passes its own tiles and channels, which no other task writes.
#[allow(clippy::too_many_arguments)]
fn portable_output_transform<T: Float>(
    g: &Geometry,
    plan: &Plan,
    m: &[T],
    ld: usize,
    os: std::ops::Range<usize>,
    (t0, t1): (usize, usize),
    epi: &Epilogue<T>,
    out: *mut T,
    base: usize,
) {
    for o in os.clone() {
        for t in t0..t1 {
            let mut tmp = [[T::ZERO; ALPHA]; M];
            for j in 0..ALPHA {
                let col = at(std::array::from_fn(|i| {
                    m[((ALPHA * i + j) * OB + o - os.start) * ld + t - t0]
                }));
                for (i, v) in col.into_iter().enumerate() {
                    tmp[i][j] = v;
                }
            }
            let (y0, x0) = plan.origin(t);
            let cols = M.min(g.ow - x0);
            for (i, row) in tmp.iter().enumerate().take(M.min(g.oh - y0)) {
                let y = at(*row);
                let off = (o * g.oh + y0 + i) * g.ow + x0;
                // SAFETY: `cols` elements of output row `y0 + i` of channel `o` from column
                // `x0`: inside the image's output, and this task's own (see above).
                let seg = unsafe { std::slice::from_raw_parts_mut(out.add(off), cols) };
                for (s, &y) in seg.iter_mut().zip(&y) {
                    *s = if epi.preloaded { *s + y } else { y };
                }
                epi.apply(seg, o, base + off);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;
    use std::cell::Cell;

    use relax::transform::dispatch_library::Activation;

    use super::super::super::{activate_serial, first_lanes};
    use super::{ALPHA, Addend, Epilogue, Geometry, LANES, M, MAX_BLOCK, OB, Plan};

    thread_local! {
        /// The whole transformed input when blocks of output channels share it, taken by the
        /// calling thread while its tasks use the ordinary scratch buffer.
        static SHARED: Cell<Vec<f32>> = const { Cell::new(Vec::new()) };
        /// A block's padded input rows, one channel at a time.
        static PAD: Cell<Vec<f32>> = const { Cell::new(Vec::new()) };
    }

    pub(super) fn take_shared() -> Vec<f32> {
        SHARED.with(Cell::take)
    }

    pub(super) fn put_shared(v: Vec<f32>) {
        SHARED.with(|s| s.set(v));
    }

    pub(super) fn take_pad() -> Vec<f32> {
        PAD.with(Cell::take)
    }

    pub(super) fn put_pad(v: Vec<f32>) {
        PAD.with(|s| s.set(v));
    }

    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
    }

    /// `Bᵀ d` on vectors of 16 tiles.
    #[inline(always)]
    fn bt(d: [__m512; 6]) -> [__m512; 6] {
        // SAFETY: only called from functions compiled with AVX-512F (inlined into them).
        unsafe {
            let (four, five, two) = (
                _mm512_set1_ps(4.0),
                _mm512_set1_ps(5.0),
                _mm512_set1_ps(2.0),
            );
            let t0 = _mm512_fnmadd_ps(four, d[2], d[4]);
            let t1 = _mm512_fnmadd_ps(four, d[1], d[3]);
            let t2 = _mm512_sub_ps(d[4], d[2]);
            let t3 = _mm512_sub_ps(d[3], d[1]);
            [
                _mm512_fmadd_ps(four, d[0], _mm512_fnmadd_ps(five, d[2], d[4])),
                _mm512_add_ps(t0, t1),
                _mm512_sub_ps(t0, t1),
                _mm512_fmadd_ps(two, t3, t2),
                _mm512_fnmadd_ps(two, t3, t2),
                _mm512_fmadd_ps(four, d[1], _mm512_fnmadd_ps(five, d[3], d[5])),
            ]
        }
    }

    /// `Aᵀ m` on vectors of 16 tiles.
    #[inline(always)]
    fn at(m: [__m512; 6]) -> [__m512; 4] {
        // SAFETY: only called from functions compiled with AVX-512F (inlined into them).
        unsafe {
            let (a, b) = (_mm512_add_ps(m[1], m[2]), _mm512_sub_ps(m[1], m[2]));
            let (c, d) = (_mm512_add_ps(m[3], m[4]), _mm512_sub_ps(m[3], m[4]));
            [
                _mm512_add_ps(_mm512_add_ps(m[0], a), c),
                _mm512_fmadd_ps(_mm512_set1_ps(2.0), d, b),
                _mm512_fmadd_ps(_mm512_set1_ps(4.0), c, a),
                _mm512_add_ps(_mm512_fmadd_ps(_mm512_set1_ps(8.0), d, b), m[5]),
            ]
        }
    }

    /// The transformed input of tiles `t0..t1` (at most [`MAX_BLOCK`]) of channels `cs` of
    /// `image` (`C × H × W`) into `v` (`[36][C][ld]`, column `t - t0`; `t1 - t0` rounded up
    /// to 16 columns are written, the lanes past `t1` holding the first tile's values). Each
    /// channel's rows under the tiles are copied with their padding into `pad`, then each
    /// group of 16 tiles gathers its 36 inputs per channel from them. Returns false (and `v`
    /// partly written) when an element copied is infinite or NaN: checked on the copy, while
    /// it is in L1, which covers every element the tiles read.
    ///
    /// # Safety
    /// The CPU must support AVX-512F and VL; `v` must hold `[36][C][ld]` from column 0 with
    /// `ld` at least `t1 - t0` rounded up to 16; nothing else may access the written columns
    /// of channels `cs` during the call; `(rows + 4) · wp` (see [`Plan::rows`]) must fit i32.
    #[target_feature(enable = "avx512f,avx512vl")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn input_transform(
        g: &Geometry,
        plan: &Plan,
        image: &[f32],
        cs: std::ops::Range<usize>,
        (t0, t1): (usize, usize),
        v: *mut f32,
        ld: usize,
        pad: &mut Vec<f32>,
    ) -> bool {
        debug_assert!(t1 - t0 <= MAX_BLOCK);
        let (row0, rows) = plan.rows(t0, t1);
        let wp = plan.wp();
        if pad.len() < rows * wp {
            pad.resize(rows * wp, 0.0);
        }
        // Each group's gather offsets into the padded rows (i32, the caller's contract).
        let groups = (t1 - t0).div_ceil(LANES);
        let mut idx = [[0i32; LANES]; MAX_BLOCK / LANES];
        for (gi, lanes) in idx.iter_mut().enumerate().take(groups) {
            for (l, e) in lanes.iter_mut().enumerate() {
                let t = (t0 + gi * LANES + l).min(t1 - 1);
                let (y0, x0) = plan.origin(t);
                *e = ((y0 - row0) * wp + x0) as i32;
            }
        }
        let plane = g.h * g.w;
        // The padded columns `pl..pl + w` hold the image's, where inside the tiles' reach.
        let [pt, pl] = g.pad;
        let (x_lo, x_hi) = (pl.min(wp), (pl + g.w).min(wp));
        for c in cs {
            let src = &image[c * plane..][..plane];
            for (r, row) in pad[..rows * wp].chunks_exact_mut(wp).enumerate() {
                let Some(iy) = (row0 + r).checked_sub(pt).filter(|&iy| iy < g.h) else {
                    row.fill(0.0);
                    continue;
                };
                row[..x_lo].fill(0.0);
                let inside = &src[iy * g.w..][..x_hi - x_lo];
                row[x_lo..x_hi].copy_from_slice(inside);
                row[x_hi..].fill(0.0);
                if !all_finite(inside) {
                    return false;
                }
            }
            let base = pad.as_ptr();
            for (gi, lanes) in idx.iter().enumerate().take(groups) {
                // SAFETY: every offset is a tile's first padded element, whose 6 × 6 inputs
                // lie inside the `rows × wp` rows (`Plan::rows`, `Plan::wp`).
                let vi = unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) };
                let mut d = [[_mm512_setzero_ps(); ALPHA]; ALPHA];
                for (i, row) in d.iter_mut().enumerate() {
                    for (j, e) in row.iter_mut().enumerate() {
                        // SAFETY: as above.
                        *e = unsafe { _mm512_i32gather_ps::<4>(vi, base.add(i * wp + j).cast()) };
                    }
                }
                // Bᵀ d, column by column, then (Bᵀ d) B, row by row.
                let cols: [[__m512; ALPHA]; ALPHA] =
                    std::array::from_fn(|j| bt(std::array::from_fn(|i| d[i][j])));
                let rows: [[__m512; ALPHA]; ALPHA] =
                    std::array::from_fn(|i| bt(std::array::from_fn(|k| cols[k][i])));
                for (i, row) in rows.into_iter().enumerate() {
                    for (j, x) in row.into_iter().enumerate() {
                        // SAFETY: column `16·gi..16·gi + 16` of row `c` of point `6i + j`:
                        // inside `ld` (the caller's contract).
                        unsafe {
                            _mm512_storeu_ps(
                                v.add(((ALPHA * i + j) * g.c + c) * ld + gi * LANES),
                                x,
                            );
                        }
                    }
                }
            }
        }
        true
    }

    /// Whether no element of `v` is infinite or NaN (exponent bits all ones): an integer
    /// OR-reduction without early exit, which the compiler vectorizes (inlined into the
    /// AVX-512 transform, 16 elements a step).
    #[inline(always)]
    fn all_finite(v: &[f32]) -> bool {
        // `(bits & exponent) + 2^23` carries into bit 31 exactly when the exponent is all ones.
        let any = v.iter().fold(0u32, |acc, x| {
            acc | ((x.to_bits() & 0x7f80_0000).wrapping_add(0x0080_0000) & 0x8000_0000)
        });
        any == 0
    }

    /// Output channels per register tile of [`gemm`].
    const MR: usize = 8;

    /// Asks for the `len` weights from `w` (the next point's rows of a block of output
    /// channels) to be brought into L2 while the current point's GEMM runs. On a small plane
    /// (ResNet-50's and SqueezeNet's 13×13 and 14×14 layers: 16 tiles) each weight is used
    /// for one vector of multiply-adds only, so the GEMM streams its weights: `[36, O, C]`
    /// puts each point's 16 rows (a few KiB) `O × C` apart, a new page each time, where the
    /// hardware prefetcher starts over and the loads wait on L3 or memory. Prefetches never
    /// fault; the addresses are formed with wrapping arithmetic.
    #[inline]
    pub(super) fn prefetch_weights(w: *const f32, len: usize) {
        let mut e = 0;
        while e < len {
            // SAFETY: a prefetch has no architectural effect; SSE is in the x86-64 baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T1>(w.wrapping_add(e).cast::<i8>()) };
            e += 16;
        }
    }

    /// `c = a · b` for `m` rows and `n` columns (a multiple of 16) over `k`: `a` row-major
    /// with row stride `k`, `b` with row stride `ldb`, `c` with row stride `ldc`. Register
    /// tiles of up to 8 rows × 32 columns, the rows' weights broadcast, the columns loaded.
    ///
    /// # Safety
    /// The CPU must support AVX-512F; every addressed element must be inside its allocation;
    /// nothing else may access `c`'s during the call.
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn gemm(
        m: usize,
        n: usize,
        k: usize,
        a: *const f32,
        b: *const f32,
        ldb: usize,
        c: *mut f32,
        ldc: usize,
    ) {
        let mut j = 0;
        while j < n {
            let wide = n - j >= 2 * LANES;
            for i in (0..m).step_by(MR) {
                let t = Tile {
                    k,
                    a: a.wrapping_add(i * k),
                    b: b.wrapping_add(j),
                    ldb,
                    c: c.wrapping_add(i * ldc + j),
                    ldc,
                };
                // SAFETY: rows `i..i + R` and columns `j..j + 16·V`, inside the caller's.
                unsafe {
                    match (m - i, wide) {
                        (1, true) => tile::<1, 2>(&t),
                        (2, true) => tile::<2, 2>(&t),
                        (3, true) => tile::<3, 2>(&t),
                        (4, true) => tile::<4, 2>(&t),
                        (5, true) => tile::<5, 2>(&t),
                        (6, true) => tile::<6, 2>(&t),
                        (7, true) => tile::<7, 2>(&t),
                        (_, true) => tile::<MR, 2>(&t),
                        (1, false) => tile::<1, 1>(&t),
                        (2, false) => tile::<2, 1>(&t),
                        (3, false) => tile::<3, 1>(&t),
                        (4, false) => tile::<4, 1>(&t),
                        (5, false) => tile::<5, 1>(&t),
                        (6, false) => tile::<6, 1>(&t),
                        (7, false) => tile::<7, 1>(&t),
                        (_, false) => tile::<MR, 1>(&t),
                    }
                }
            }
            j += if wide { 2 * LANES } else { LANES };
        }
    }

    struct Tile {
        k: usize,
        a: *const f32,
        b: *const f32,
        ldb: usize,
        c: *mut f32,
        ldc: usize,
    }

    /// # Safety
    /// As [`gemm`]'s, for `R` rows and `V` vectors of columns.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn tile<const R: usize, const V: usize>(t: &Tile) {
        let mut acc = [[_mm512_setzero_ps(); V]; R];
        for p in 0..t.k {
            // SAFETY: row `p` of `b`, `16·V` columns; rows `0..R` of `a` at column `p`.
            unsafe {
                let row = t.b.add(p * t.ldb);
                let bv: [__m512; V] = std::array::from_fn(|h| _mm512_loadu_ps(row.add(16 * h)));
                for (r, acc) in acc.iter_mut().enumerate() {
                    let av = _mm512_set1_ps(*t.a.add(r * t.k + p));
                    for h in 0..V {
                        acc[h] = _mm512_fmadd_ps(av, bv[h], acc[h]);
                    }
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (h, &v) in acc.iter().enumerate() {
                // SAFETY: row `r`, columns `16h..16h + 16` of the tile of `c`.
                unsafe { _mm512_storeu_ps(t.c.add(r * t.ldc + 16 * h), v) };
            }
        }
    }

    /// Four vectors of 16 tiles (lane `q` tile `q`) interleaved: lane `4a + j` of vector `k`
    /// of the result is lane `4k + a` of `y[j]`.
    #[inline(always)]
    fn interleave4(y: &[__m512]) -> [__m512; 4] {
        // SAFETY: only called from functions compiled with AVX-512F (inlined into them).
        unsafe {
            let lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
            let hi =
                _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
            // Pairs (y0[q], y1[q]) and (y2[q], y3[q]), for q in 0..8 and 8..16.
            let a_lo = _mm512_castps_pd(_mm512_permutex2var_ps(y[0], lo, y[1]));
            let a_hi = _mm512_castps_pd(_mm512_permutex2var_ps(y[0], hi, y[1]));
            let b_lo = _mm512_castps_pd(_mm512_permutex2var_ps(y[2], lo, y[3]));
            let b_hi = _mm512_castps_pd(_mm512_permutex2var_ps(y[2], hi, y[3]));
            // Then the pairs of each tile side by side.
            let first = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
            let second = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
            [
                _mm512_castpd_ps(_mm512_permutex2var_pd(a_lo, first, b_lo)),
                _mm512_castpd_ps(_mm512_permutex2var_pd(a_lo, second, b_lo)),
                _mm512_castpd_ps(_mm512_permutex2var_pd(a_hi, first, b_hi)),
                _mm512_castpd_ps(_mm512_permutex2var_pd(a_hi, second, b_hi)),
            ]
        }
    }

    /// [`super::portable_output_transform`] on 16 tiles at a time: the 36 products of a
    /// channel's 16 tiles are transformed as vectors, the per-channel part of the epilogue
    /// (batch norm, per-channel addends) applied, then each output row's four columns
    /// interleaved ([`interleave4`]) so that the 16 tiles' outputs on that row lie in order,
    /// and stored with masks per row of tiles (cropped at the edges) after the rest of the
    /// epilogue (full-shape addends, a preloaded output, a ReLU). (Transposing to one vector
    /// per tile and storing its rows as four 128-bit pieces measured 2–12% slower on
    /// SqueezeNet's and ResNet-50's layers, one thread.)
    ///
    /// # Safety
    /// The CPU must support AVX-512F and VL; `m` holds `[36][OB][ld]` products of channels
    /// `os` for tiles `t0..t1` (rounded up to 16 columns); `out` is the image's output at
    /// flat offset `base` of the whole output, whose tiles `t0..t1` of channels `os` nothing
    /// else accesses during the call.
    #[target_feature(enable = "avx512f,avx512vl")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn output_transform(
        g: &Geometry,
        plan: &Plan,
        m: *const f32,
        ld: usize,
        os: std::ops::Range<usize>,
        (t0, t1): (usize, usize),
        epi: &Epilogue<f32>,
        out: *mut f32,
        base: usize,
    ) {
        let relu = epi.act == Some(Activation::Relu);
        let other_act = epi.act.filter(|&a| a != Activation::Relu);
        let plane = g.oh * g.ow;
        // Group by group, then channel by channel: the stores of a group of 16 tiles are the
        // same for every channel.
        for gi in 0..(t1 - t0).div_ceil(LANES) {
            let t = t0 + gi * LANES;
            let stores = StorePlan::new(g, plan, t, (t1 - t).min(LANES));
            let col = gi * LANES;
            for o in os.clone() {
                // Aᵀ m, column by column, then (Aᵀ m) A, row by row.
                let cols: [[__m512; M]; ALPHA] = std::array::from_fn(|j| {
                    // SAFETY: point `6i + j`'s row `o - os.start`, columns `col..col + 16`.
                    at(std::array::from_fn(|i| unsafe {
                        _mm512_loadu_ps(m.add(((ALPHA * i + j) * OB + o - os.start) * ld + col))
                    }))
                });
                let mut y = [_mm512_setzero_ps(); 16];
                for i in 0..M {
                    let row = at(std::array::from_fn(|j| cols[j][i]));
                    y[M * i..M * i + M].copy_from_slice(&row);
                }
                if let Some(nm) = &epi.norm {
                    // The TIR legalization's order: ((v - mean) · rs) · gamma + beta.
                    let (mean, rs) = (_mm512_set1_ps(nm.mean[o]), _mm512_set1_ps(nm.rs[o]));
                    let (gm, bt) = (_mm512_set1_ps(nm.gamma[o]), _mm512_set1_ps(nm.beta[o]));
                    for v in &mut y {
                        let d = _mm512_mul_ps(_mm512_sub_ps(*v, mean), rs);
                        *v = _mm512_add_ps(_mm512_mul_ps(d, gm), bt);
                    }
                }
                for a in &epi.addends {
                    if let Addend::Channel { data, step } = *a {
                        let b = _mm512_set1_ps(data[o * step]);
                        for v in &mut y {
                            *v = _mm512_add_ps(*v, b);
                        }
                    }
                }
                // Each output row of the 16 tiles, their 4 columns interleaved: 64 outputs in
                // 4 vectors, a run of 16 tiles' worth of one output row.
                let rows: [[__m512; 4]; M] = std::array::from_fn(|i| interleave4(&y[M * i..]));
                let channel = (o * plane) as isize;
                for st in &stores.entries[..stores.len] {
                    let off = channel + st.off;
                    // SAFETY: the masked lanes are outputs of channel `o` inside the image's
                    // output, this call's own, and the same of a full-shape addend (offset
                    // `base + off`); masked-off lanes are not accessed (no fault either), so
                    // the pointers are formed with wrapping arithmetic.
                    unsafe {
                        let dst = out.wrapping_offset(off);
                        let mut r = rows[st.row as usize][st.vector as usize];
                        if epi.preloaded {
                            r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(st.mask, dst));
                        }
                        for a in &epi.addends {
                            if let Addend::Full(data) = *a {
                                let at = data.as_ptr().wrapping_offset(base as isize + off);
                                r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(st.mask, at));
                            }
                        }
                        if relu {
                            // `max` returns its second operand for a NaN, as `relu` gives 0.
                            r = _mm512_max_ps(r, _mm512_setzero_ps());
                        }
                        _mm512_mask_storeu_ps(dst, st.mask, r);
                        if let Some(act) = other_act {
                            // The masked lanes are a run from its lowest.
                            let lo = st.mask.trailing_zeros() as usize;
                            let len = st.mask.count_ones() as usize;
                            let run = std::slice::from_raw_parts_mut(dst.add(lo), len);
                            activate_serial(run, act);
                        }
                    }
                }
            }
        }
    }

    /// One masked store of [`output_transform`]: vector `vector` of output row `row` of a
    /// group's tiles, at `off` from its channel's first output, of the lanes in `mask`.
    #[derive(Clone, Copy)]
    struct Store {
        off: isize,
        mask: __mmask16,
        row: u8,
        vector: u8,
    }

    /// The stores of a group of 16 tiles, the same for every output channel: per row of tiles
    /// the group touches (lanes `b..e`), per output row inside the image, per vector holding
    /// some of those lanes, the columns inside the image.
    struct StorePlan {
        entries: [Store; Self::MAX],
        len: usize,
    }

    impl StorePlan {
        /// At most 4 output rows × (4 vectors + one more per extra row of tiles, at most 15).
        const MAX: usize = M * (4 + LANES);

        const EMPTY: StorePlan = StorePlan {
            entries: [Store {
                off: 0,
                mask: 0,
                row: 0,
                vector: 0,
            }; Self::MAX],
            len: 0,
        };

        fn new(g: &Geometry, plan: &Plan, t: usize, lanes: usize) -> StorePlan {
            let mut sp = Self::EMPTY;
            let mut b = 0;
            while b < lanes {
                let (y0, x0) = plan.origin(t + b);
                // Lanes `b..e` lie in this row of tiles, from column `x0`.
                let e = lanes.min(b + (plan.tiles_x - x0 / M));
                for i in 0..M.min(g.oh - y0) {
                    let line = ((y0 + i) * g.ow) as isize;
                    for k in 0..4 {
                        let (lo, hi) = ((M * b).max(16 * k), (M * e).min(16 * k + 16));
                        if lo >= hi {
                            continue;
                        }
                        // Vector `k` holds tiles `4k..4k + 4`: its lane 0 would be column
                        // `x0 + 4·(4k - b)` of this row; lanes past the row's end are cropped.
                        let first = (x0 + 16 * k) as isize - (M * b) as isize;
                        let limit = (g.ow as isize - first).clamp(0, 16) as usize;
                        let (lo, hi) = (lo - 16 * k, (hi - 16 * k).min(limit));
                        if lo >= hi {
                            continue;
                        }
                        sp.entries[sp.len] = Store {
                            off: line + first,
                            mask: first_lanes(hi) & !first_lanes(lo),
                            row: i as u8,
                            vector: k as u8,
                        };
                        sp.len += 1;
                    }
                }
                b = e;
            }
            sp
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::View;
    use super::super::{Addend, Epilogue, Geometry, Norm, conv2d_with};
    use super::*;
    use relax::transform::dispatch_library::{Activation, WINOGRAD_ROWS, winograd_conv_weights};

    fn random(len: usize, seed: u64) -> Vec<f32> {
        let mut next =
            crate::library::test_support::xorshift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        (0..len)
            .map(|_| ((next() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0)
            .collect()
    }

    /// Winograd against the direct convolution (the GEMM path, OIHW weights) on both of its
    /// paths: odd planes whose edge tiles are cropped, planes smaller than a tile, padding 0,
    /// 1 and uneven, channel counts that are not multiples of 16 (nor of the GEMM's 8-row
    /// register tile), two images, blocks of output channels (many channels on a small
    /// plane, on the pool), and every epilogue form. The tolerance: the transforms amplify
    /// each product's rounding by at most the sum of their coefficients' magnitudes, about
    /// 10² in all for F(4, 3); over `9·C` products of unit-size inputs and 0.1-size weights
    /// that is below `1e-4` relative to the output's scale, and measured errors are ten
    /// times smaller.
    #[test]
    fn winograd_matches_the_direct_convolution() {
        // (n, c, h, w, o, pad t/l/b/r)
        type Case = (usize, usize, usize, usize, usize, [usize; 4]);
        let cases: &[Case] = &[
            (1, 3, 5, 7, 5, [1, 1, 1, 1]),
            (1, 17, 13, 13, 40, [1, 1, 1, 1]),
            (2, 16, 9, 11, 33, [0, 0, 0, 0]),
            (1, 5, 3, 3, 7, [0, 0, 0, 0]),
            (1, 8, 2, 9, 9, [1, 2, 0, 1]),
            (1, 24, 30, 23, 20, [1, 1, 1, 1]),
            (1, 64, 14, 14, 200, [1, 1, 1, 1]),
            (2, 12, 57, 20, 16, [1, 1, 1, 1]),
        ];
        let mut failures = Vec::new();
        for &(n, c, h, w, o, pad) in cases {
            let (oh, ow) = (h + pad[0] + pad[2] - 2, w + pad[1] + pad[3] - 2);
            let x = random(n * c * h * w, 1);
            let wt = random(o * c * 9, 2)
                .into_iter()
                .map(|v| v * 0.1)
                .collect::<Vec<_>>();
            let u = winograd_conv_weights(&wt, [o, c]);
            let out_shape = [n, o, oh, ow];
            let len = n * o * oh * ow;
            let full = random(len, 3);
            let bias = random(o, 4);
            let stats: Vec<Vec<f32>> = (0..4)
                .map(|i| {
                    random(o, 5 + i)
                        .into_iter()
                        .map(|v| if i == 3 { v.abs() + 0.5 } else { v })
                        .collect()
                })
                .collect();
            let params = [1, 1, pad[0], pad[1], pad[2], pad[3], 1, 1, 1].map(|v| v as i64);
            // (label, norm, addends, preloaded, activation)
            let epilogues: [(&str, bool, usize, bool, Option<Activation>); 6] = [
                ("plain", false, 0, false, None),
                ("bias_relu", false, 1, false, Some(Activation::Relu)),
                ("bn_full_relu", true, 2, false, Some(Activation::Relu)),
                ("bias_full", false, 3, false, None),
                ("preloaded_gelu", false, 0, true, Some(Activation::Gelu)),
                ("bn", true, 0, false, None),
            ];
            for (label, norm, addends, preloaded, act) in epilogues {
                let epi = || {
                    let views: Vec<View<f32>> = stats
                        .iter()
                        .map(|s| View {
                            data: s,
                            shape: vec![o],
                        })
                        .collect();
                    Epilogue {
                        norm: norm.then(|| Norm::new(&views, 1e-5, &out_shape).unwrap()),
                        addends: match addends {
                            1 => vec![Addend::Channel {
                                data: &bias,
                                step: 1,
                            }],
                            2 => vec![Addend::Full(&full)],
                            3 => vec![
                                Addend::Channel {
                                    data: &bias,
                                    step: 1,
                                },
                                Addend::Full(&full),
                            ],
                            _ => Vec::new(),
                        },
                        preloaded,
                        act,
                    }
                };
                let seed = if preloaded {
                    full.clone()
                } else {
                    vec![0.0; len]
                };
                let mut want = seed.clone();
                let xv = View {
                    data: &x,
                    shape: vec![n, c, h, w],
                };
                let wv = View {
                    data: &wt,
                    shape: vec![o, c, 3, 3],
                };
                conv2d_with(&xv, &wv, &params, &epi(), &mut want, &out_shape, false).unwrap();
                let g = Geometry::new(&[n, c, h, w], &[WINOGRAD_ROWS, o, c], &params, &out_shape)
                    .unwrap();
                let scale = want.iter().fold(1f32, |m, v| m.max(v.abs()));
                for fast in [false, true] {
                    if fast && !cfg!(target_arch = "x86_64") {
                        continue;
                    }
                    #[cfg(target_arch = "x86_64")]
                    if fast && !avx512::available() {
                        continue;
                    }
                    let mut got = seed.clone();
                    if !run(&g, &x, &u, &epi(), &mut got, fast) {
                        failures.push(format!("{label} fast={fast}: a finite input refused"));
                        continue;
                    }
                    let worst = got
                        .iter()
                        .zip(&want)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0f32, f32::max);
                    println!(
                        "{label} n={n} c={c} {h}×{w} o={o} pad={pad:?} fast={fast}: \
                         max error {:.2e} of scale",
                        worst / scale
                    );
                    if worst > 1e-4 * scale || worst.is_nan() {
                        failures.push(format!(
                            "{label} n={n} c={c} {h}×{w} o={o} pad={pad:?} fast={fast}: \
                             max error {worst} at scale {scale}"
                        ));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// An infinite or NaN input element, wherever it lies (a corner, an edge, inside, in the
    /// last tile), makes the Winograd kernel give up on either path, and the convolution of the
    /// `[45, O, C]` weights then gives the direct kernels' results bit for bit: the same NaNs and
    /// infinities in the same places, whichever tasks had run. A preloaded output keeps its
    /// addends.
    #[test]
    fn a_non_finite_input_takes_the_direct_path() {
        let (n, c, h, w, o) = (2, 8, 14, 13, 20);
        let params = [1i64, 1, 1, 1, 1, 1, 1, 1, 1];
        let out_shape = [n, o, h, w];
        let wt: Vec<f32> = random(o * c * 9, 2).into_iter().map(|v| v * 0.1).collect();
        let packed = winograd_conv_weights(&wt, [o, c]);
        let plane = h * w;
        let spots = [0, w - 1, plane / 2 + 3, plane - 1, c * plane + 5 * w + 7];
        for (k, &at) in spots.iter().enumerate() {
            for bad in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
                for preloaded in [false, true] {
                    let mut x = random(n * c * h * w, 1);
                    x[(k % n) * c * plane + at] = bad;
                    let xv = View {
                        data: &x,
                        shape: vec![n, c, h, w],
                    };
                    let seed = random(n * o * plane, 3);
                    let epi = || Epilogue {
                        norm: None,
                        addends: Vec::new(),
                        preloaded,
                        act: None,
                    };
                    let mut want = seed.clone();
                    let wv = View {
                        data: &wt,
                        shape: vec![o, c, 3, 3],
                    };
                    conv2d_with(&xv, &wv, &params, &epi(), &mut want, &out_shape, false).unwrap();
                    let mut got = seed.clone();
                    let uv = View {
                        data: &packed,
                        shape: vec![WINOGRAD_ROWS, o, c],
                    };
                    conv2d_with(&xv, &uv, &params, &epi(), &mut got, &out_shape, true).unwrap();
                    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                    assert_eq!(
                        bits(&got),
                        bits(&want),
                        "{bad} at {at} preloaded={preloaded}"
                    );
                    assert!(want.iter().any(|v| !v.is_finite()), "{bad} at {at}");
                    let g =
                        Geometry::new(&[n, c, h, w], &[WINOGRAD_ROWS, o, c], &params, &out_shape)
                            .unwrap();
                    for fast in [false, true] {
                        #[cfg(target_arch = "x86_64")]
                        if fast && !avx512::available() {
                            continue;
                        }
                        #[cfg(not(target_arch = "x86_64"))]
                        if fast {
                            continue;
                        }
                        let mut scratch = seed.clone();
                        assert!(
                            !run(&g, &x, &packed, &epi(), &mut scratch, fast),
                            "{bad} at {at}"
                        );
                    }
                }
            }
        }
    }

    /// Weights of the wrong shape for a Winograd geometry are an error naming them.
    #[test]
    fn bad_winograd_weights_are_errors() {
        let params = [1, 1, 1, 1, 1, 1, 1, 1, 1];
        let out = [1, 8, 5, 5];
        for (wt, params, want) in [
            (vec![16, 8, 4], params, "Winograd"),
            (vec![36, 8, 4], params, "Winograd"),
            (vec![45, 9, 4], params, "Winograd"),
            (vec![45, 8, 3], params, "Winograd"),
            (vec![45, 8, 4], [2, 2, 1, 1, 1, 1, 1, 1, 1], "stride"),
        ] {
            let err = Geometry::new(&[1, 4, 5, 5], &wt, &params, &out)
                .err()
                .unwrap_or_else(|| panic!("{wt:?} {params:?} accepted"));
            assert!(err.to_string().contains(want), "{wt:?}: {err}");
        }
    }
}
