//! Native library kernels that `relax::transform::dispatch_library` dispatches to: matrix
//! multiply and 2-D convolution over the `gemm` crate's packed micro-kernels, with their batch
//! norm, bias, residual and activation epilogues — TVM's BLAS/DNNL offload, in process — and
//! 2-D pooling, concat, take, and the plane gather and dilation that lay out 3-D and
//! transposed convolutions as 2-D ones, parallel over the pool.
//!
//! The GEMM crate was chosen by measurement on a 2-core AVX-512 machine (f32, median of many
//! calls): `gemm` 0.19 reached 159 GFLOP/s on 1024³ with two threads against
//! `matrixmultiply` 0.3's 122, and ran a batch-1 784×512 layer in 21 µs against 255 µs (its
//! matrix-vector path is bandwidth-bound). Parallel work runs on the calling rayon pool (the
//! engine's when it has one), so nothing is oversubscribed.
//!
//! Every kernel is a packed function `(inputs…, out)` in destination-passing style; it checks
//! dtypes, ranks and shapes (an error names the argument, never an out-of-bounds access) and
//! that the output does not overlap an input.

mod argreduce;
mod concat;
mod conv2d;
mod dilate;
mod gather;
mod lrn;
mod matmul;
mod norm;
mod pool;
mod take;

use std::cell::Cell;

use relax::transform::dispatch_library::{Activation, LibraryKernel, LibraryOp};
use vm::{DataType, Error, Result, Tensor, Value};

/// Adds every library kernel to `lib` under its name.
pub fn add_to(lib: &mut vm::Library) {
    for kernel in LibraryKernel::all() {
        add_kernel(lib, kernel, kernel.name());
    }
}

/// Adds the library kernels among `names` to `lib`, skipping every other name: only what an
/// executable calls, so that linking it (a cache hit above all) does not build a function for
/// every kernel variant.
// On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn add_named<'a>(lib: &mut vm::Library, names: impl IntoIterator<Item = &'a str>) {
    // `from_name` rejects every name without the library's prefix.
    for name in names {
        if let Some(kernel) = LibraryKernel::from_name(name) {
            add_kernel(lib, kernel, name.to_string());
        }
    }
}

#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn add_kernel(lib: &mut vm::Library, kernel: LibraryKernel, name: String) {
    lib.add_fn(&name.clone(), move |args| {
        // A panic inside a kernel is a bug of ours, not of the input; it becomes an error
        // naming the kernel instead of unwinding through the VM (or aborting across the
        // compiled code's frames).
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call(kernel, args)))
            .unwrap_or_else(|payload| {
                Err(Error::runtime(format!(
                    "internal error: {}",
                    crate::kernel::runtime::panic_message(payload.as_ref())
                )))
            })
            .map_err(|e| e.context(&name))
    });
}

/// The checks of a kernel that copies elements of `x` selected by `indices` into `out`
/// (`gather_planes`, `take`): both inputs on the CPU, `x` of the output's dtype.
fn check_gather_operands(x: &Tensor, indices: &Tensor, out: &Tensor) -> Result<()> {
    for (i, t) in [x, indices].into_iter().enumerate() {
        if !t.device().is_cpu() {
            return Err(Error::value_error(format!(
                "argument {i} is on {}, library kernels run on the CPU",
                t.device()
            )));
        }
    }
    if x.dtype() != out.dtype() {
        return Err(Error::type_error(format!(
            "argument 0 has dtype {}, the output {}",
            x.dtype(),
            out.dtype()
        )));
    }
    Ok(())
}

fn call(kernel: LibraryKernel, args: &[Value]) -> Result<Value> {
    let params = kernel.num_params();
    let Some(tensors) = args.len().checked_sub(1).and_then(|n| kernel.tensors_of(n)) else {
        return Err(Error::type_error(format!(
            "expects {}{} arguments, got {}",
            if kernel.op.variadic() {
                "at least "
            } else {
                ""
            },
            kernel.num_tensors() + params + 1,
            args.len()
        )));
    };
    let tensor = |i: usize| {
        args[i]
            .as_tensor()
            .map_err(|e| e.context(format!("argument {i}")))
    };
    let inputs: Vec<&Tensor> = (0..tensors).map(tensor).collect::<Result<_>>()?;
    // The integers, then the floats (a batch norm's epsilon, LRN's alpha, beta and bias).
    let floats = kernel.num_fparams();
    let ints: Vec<i64> = args[tensors..tensors + params - floats]
        .iter()
        .map(Value::as_int)
        .collect::<Result<_>>()?;
    let fparams: Vec<f64> = args[tensors + params - floats..tensors + params]
        .iter()
        .map(Value::as_float)
        .collect::<Result<_>>()?;
    let out = tensor(args.len() - 1)?;
    if kernel.op == LibraryOp::Concat {
        // A copy of whole elements, in any dtype.
        check_disjoint(out, &inputs)?;
        concat::concat_tensors(&inputs, &ints, out)?;
        return Ok(Value::Null);
    }
    if let (LibraryOp::GatherPlanes, [x, indices]) = (kernel.op, &inputs[..]) {
        // Likewise.
        check_disjoint(out, &inputs)?;
        gather::gather_planes(x, indices, out)?;
        return Ok(Value::Null);
    }
    if let (LibraryOp::ArgReduce { max }, [x]) = (kernel.op, &inputs[..]) {
        check_disjoint(out, &inputs)?;
        argreduce::arg_reduce(x, &ints, max, out)?;
        return Ok(Value::Null);
    }
    if let (LibraryOp::Take, [x, indices]) = (kernel.op, &inputs[..]) {
        // Likewise.
        check_disjoint(out, &inputs)?;
        take::take(x, indices, &ints, out)?;
        return Ok(Value::Null);
    }
    if let (LibraryOp::Dilate, [x]) = (kernel.op, &inputs[..]) {
        // Likewise.
        check_disjoint(out, &inputs)?;
        dilate::dilate(x, &ints, out)?;
        return Ok(Value::Null);
    }
    match out.dtype() {
        DataType::F32 => run::<f32>(kernel, &inputs, &ints, &fparams, out),
        DataType::F64 => run::<f64>(kernel, &inputs, &ints, &fparams, out),
        dt => Err(Error::type_error(format!(
            "output of dtype {dt}; library kernels take float32 and float64"
        ))),
    }?;
    Ok(Value::Null)
}

fn run<T: Float>(
    kernel: LibraryKernel,
    inputs: &[&Tensor],
    ints: &[i64],
    fparams: &[f64],
    out: &Tensor,
) -> Result<()> {
    let eps = fparams.first().copied().unwrap_or(0.0);
    // An addend given as the output too (`LibraryKernel::in_place_addends`): the output holds
    // it already; it is no input, and every other input must stay clear of the output.
    let in_place = kernel.in_place_addends().find(|&i| {
        inputs
            .get(i)
            .is_some_and(|t| t.as_ptr() == out.as_ptr() && t.shape() == out.shape())
    });
    if let Some(i) = in_place {
        // Checked as the output below; the dtype must be the output's too.
        check::<T>(inputs[i], i)?;
    }
    let views: Vec<View<T>> = (0..inputs.len())
        .filter(|&i| Some(i) != in_place)
        .map(|i| View::new(inputs[i], i))
        .collect::<Result<_>>()?;
    let out_shape = check::<T>(out, inputs.len())?;
    check_disjoint_but(out, inputs, in_place)?;
    // SAFETY: `check` verified the dtype, device and alignment, and a tensor's storage holds
    // `numel` elements of its dtype; `check_disjoint_but` that no input overlaps these bytes
    // but the in-place addend, which is the output itself and has no view: the kernel reads
    // it only through `out_data`, as a preloaded output. The caller holds no other reference
    // into the output while the kernel runs (destination-passing style).
    let out_data: &mut [T] =
        unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<T>(), out.numel()) };
    let stats = kernel.op.num_operands()..kernel.op.num_operands() + 4 * usize::from(kernel.norm);
    let addends = &views[stats.end..];
    let trans_b = match kernel.op {
        LibraryOp::Matmul { trans_b } => trans_b,
        LibraryOp::Concat
        | LibraryOp::GatherPlanes
        | LibraryOp::Dilate
        | LibraryOp::Take
        | LibraryOp::ArgReduce { .. } => {
            return Err(Error::runtime(
                "internal error: concat, gather_planes, dilate, take and the arg reductions run in `call`, not typed",
            ));
        }
        LibraryOp::Softmax => {
            return norm::softmax(&views[0], out_data, &out_shape);
        }
        LibraryOp::MatmulView => {
            let scale = fparams.first().copied().unwrap_or(1.0);
            return matmul::matmul_view(&views[0], &views[1], ints, scale, out_data);
        }
        LibraryOp::LayerNorm => {
            return norm::layer_norm(&views[0], &views[1], &views[2], eps, out_data, &out_shape);
        }
        LibraryOp::Lrn => {
            return lrn::lrn(&views[0], ints, fparams, out_data, &out_shape);
        }
        LibraryOp::MaxPool2d | LibraryOp::AvgPool2d => {
            let is_max = kernel.op == LibraryOp::MaxPool2d;
            return pool::pool2d(&views[0], ints, is_max, out_data, &out_shape);
        }
        LibraryOp::Conv2d => {
            let norm = if kernel.norm {
                Some(conv2d::Norm::new(&views[stats], eps, &out_shape)?)
            } else {
                None
            };
            // Per-channel and full-shape addends are applied tile by tile inside the kernel;
            // any other broadcast is written to the output first, or (after a batch norm,
            // which must see the convolution alone) added afterwards.
            let fused: Option<Vec<_>> = addends
                .iter()
                .map(|a| conv2d::Addend::classify(a, &out_shape))
                .collect();
            let after = fused.is_none() && norm.is_some();
            let preloaded = fused.is_none() && norm.is_none();
            if preloaded {
                preload(out_data, &out_shape, addends, in_place.is_some())?;
            }
            // In place, the output holds an addend (there is no batch norm then).
            let preloaded = preloaded || in_place.is_some();
            let epi = conv2d::Epilogue {
                norm,
                addends: fused.unwrap_or_default(),
                preloaded,
                act: if after { None } else { kernel.activation },
            };
            conv2d::conv2d(&views[0], &views[1], ints, &epi, out_data, &out_shape)?;
            if after {
                for (i, a) in addends.iter().enumerate() {
                    broadcast_into(out_data, &out_shape, a, true)
                        .map_err(|e| e.context(format!("addend {i}")))?;
                }
                if let Some(act) = kernel.activation {
                    activate(out_data, act);
                }
            }
            return Ok(());
        }
    };
    preload(out_data, &out_shape, addends, in_place.is_some())?;
    let read_dst = !addends.is_empty() || in_place.is_some();
    matmul::matmul(
        &views[0], &views[1], trans_b, out_data, &out_shape, read_dst,
    )?;
    if let Some(act) = kernel.activation {
        activate(out_data, act);
    }
    Ok(())
}

/// Writes the sum of `addends`, each broadcast to `out_shape`, into `out`, or with
/// `onto_output` adds it onto what `out` holds.
fn preload<T: Float>(
    out: &mut [T],
    out_shape: &[usize],
    addends: &[View<T>],
    onto_output: bool,
) -> Result<()> {
    for (i, a) in addends.iter().enumerate() {
        broadcast_into(out, out_shape, a, onto_output || i > 0)
            .map_err(|e| e.context(format!("addend {i}")))?;
    }
    Ok(())
}

/// A checked, typed look at an input tensor.
struct View<'a, T> {
    data: &'a [T],
    shape: Vec<usize>,
}

impl<'a, T: Float> View<'a, T> {
    fn new(t: &'a Tensor, arg: usize) -> Result<View<'a, T>> {
        let shape = check::<T>(t, arg)?;
        // SAFETY: a `Tensor`'s storage holds `numel` elements of its dtype (checked when it was
        // made), `check` verified the dtype is `T`'s and the pointer is aligned for `T`;
        // nothing writes to an input while a kernel reads it.
        let data = unsafe { std::slice::from_raw_parts(t.as_ptr().cast::<T>(), t.numel()) };
        Ok(View { data, shape })
    }
}

/// Checks that argument `arg` holds `T`s on the CPU, aligned; returns its shape.
fn check<T: Float>(t: &Tensor, arg: usize) -> Result<Vec<usize>> {
    if t.dtype() != T::DTYPE {
        return Err(Error::type_error(format!(
            "argument {arg} has dtype {}, expected {}",
            t.dtype(),
            T::DTYPE
        )));
    }
    if !t.device().is_cpu() {
        return Err(Error::value_error(format!(
            "argument {arg} is on {}, library kernels run on the CPU",
            t.device()
        )));
    }
    let ptr = t.as_ptr();
    if !(ptr as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(Error::value_error(format!(
            "argument {arg} is not aligned to its element size"
        )));
    }
    Ok(t.shape().iter().map(|&d| d as usize).collect())
}

fn check_disjoint(out: &Tensor, inputs: &[&Tensor]) -> Result<()> {
    check_disjoint_but(out, inputs, None)
}

/// [`check_disjoint`] for every input but `skip`.
fn check_disjoint_but(out: &Tensor, inputs: &[&Tensor], skip: Option<usize>) -> Result<()> {
    let range = |t: &Tensor| {
        let start = t.as_ptr() as usize;
        start..start + t.nbytes()
    };
    let o = range(out);
    for (i, t) in inputs.iter().enumerate() {
        if Some(i) == skip {
            continue;
        }
        let r = range(t);
        if r.start < o.end && o.start < r.end {
            return Err(Error::value_error(format!(
                "argument {i} overlaps the output"
            )));
        }
    }
    Ok(())
}

/// `out (+)= src` with `src` broadcast (numpy rules, right-aligned) to `out_shape`; `src` may
/// not make the output bigger.
fn broadcast_into<T: Float>(
    out: &mut [T],
    out_shape: &[usize],
    src: &View<T>,
    accumulate: bool,
) -> Result<()> {
    let nd = out_shape.len();
    if src.shape.len() > nd {
        return Err(Error::value_error(format!(
            "shape {:?} does not broadcast to the output shape {out_shape:?}",
            src.shape
        )));
    }
    let lead = nd - src.shape.len();
    let mut strides = vec![0usize; nd];
    let mut s = 1usize;
    for d in (lead..nd).rev() {
        let sd = src.shape[d - lead];
        if sd == out_shape[d] {
            strides[d] = if sd == 1 { 0 } else { s };
        } else if sd != 1 {
            return Err(Error::value_error(format!(
                "shape {:?} does not broadcast to the output shape {out_shape:?}",
                src.shape
            )));
        }
        s *= sd;
    }
    if out.is_empty() {
        return Ok(());
    }
    let inner = out_shape.last().copied().unwrap_or(1);
    let inner_stride = strides.last().copied().unwrap_or(0);
    let outer_dims = &out_shape[..nd.saturating_sub(1)];
    let fill_row = |r: usize, row: &mut [T]| {
        // The source offset of row `r` (an index over the outer dimensions).
        let (mut rem, mut off) = (r, 0);
        for d in (0..outer_dims.len()).rev() {
            off += (rem % outer_dims[d]) * strides[d];
            rem /= outer_dims[d];
        }
        match (inner_stride, accumulate) {
            (0, false) => row.fill(src.data[off]),
            (0, true) => row.iter_mut().for_each(|o| *o += src.data[off]),
            (_, false) => row.copy_from_slice(&src.data[off..off + inner]),
            (_, true) => row
                .iter_mut()
                .zip(&src.data[off..off + inner])
                .for_each(|(o, s)| *o += *s),
        }
    };
    let spread = (out.len() >= PARALLEL_ELEMENTS).then_some(1);
    for_each_chunk(out, inner, spread, fill_row);
    Ok(())
}

/// Elementwise passes over fewer elements than this stay on the calling thread.
const PARALLEL_ELEMENTS: usize = 1 << 16;

/// Part `i` of `len` elements cut into `parts` runs of whole `unit`s, spread as evenly as the
/// units allow (the last run ends at `len`): its `(start, end)`.
fn even_part(i: usize, parts: usize, len: usize, unit: usize) -> (usize, usize) {
    let units = len.div_ceil(unit).max(1);
    let at = |t: usize| (t * units / parts * unit).min(len);
    (at(i), at(i + 1))
}

/// The bands [`for_each_band`] cuts planes of `rows` rows of `row_len` elements into on this
/// pool: one per thread when each gets at least two rows and [`MIN_BAND`] elements, else one
/// (then the tasks are groups of whole planes).
///
/// Why a size: where two bands meet, a cache line of each plane holds the end of one band and
/// the start of the next (NCHW planes are not line-aligned), and two threads writing it pass
/// it between their cores once per plane. Across CCDs (a 2-core Zen 5 whose two cores sit on
/// different CCDs at times, `bench/README.md`) that cost SqueezeNet's max pool of 256 planes
/// 27×27 → 13×13 about a quarter of a microsecond per plane, more than pooling the plane: three
/// alternating runs of `rows --sequence --calls 300 squeezenet`, pool medians in µs, for its
/// three pools (output 55×55, 27×27, 13×13): bands on all 87–105, 82–87, 93–98; bands on the
/// 55×55 only 98–104, 77–80, 56–57; whole planes on all 124–127, 75–78, 56–58. With this
/// rule (which on two threads also copies planes of fewer than 2048 elements, 45×45, whole),
/// medians of 400 calls of `rows`, three alternating runs: SqueezeNet across CCDs 2279–2308
/// → 2238–2258 µs, on one CCD 1551–1564 → 1541–1549 µs; ResNet-50 and the conv block
/// unchanged within their noise.
fn bands_for(rows: usize, row_len: usize) -> usize {
    let threads = crate::pool::threads();
    if threads > 1 && rows >= 2 * threads && rows * row_len >= threads * MIN_BAND {
        threads
    } else {
        1
    }
}

/// The fewest elements of a plane in a band of [`bands_for`] (64 cache lines of f32).
const MIN_BAND: usize = 1024;

/// Rows `rows·band/bands..rows·(band+1)/bands`, band `band` of `bands`.
fn band_rows(rows: usize, band: usize, bands: usize) -> std::ops::Range<usize> {
    rows * band / bands..rows * (band + 1) / bands
}

/// Calls `f(band, plane, dst)` for band `band` of `bands` ([`band_rows`]) of every plane of
/// `out` (planes of `rows` rows of `row_len` elements), `dst` the band's rows of that plane;
/// over the pool when `parallel`, as tasks of (band, group of planes) with the bands
/// outermost. The order is the point: `crate::pool::for_each` gives the call's thread the
/// front of a loop and its spinners the back, and a convolution's tasks go down the image,
/// so a layer cut into bands this way (a pooling, a padded copy) works on the thread that
/// wrote its input rows, in that core's L2, and leaves its output where the next
/// convolution's tasks for those rows run (see `jit::pool`'s `Loop`).
fn for_each_band<T: Send>(
    out: &mut [T],
    (rows, row_len): (usize, usize),
    bands: usize,
    parallel: bool,
    f: impl Fn(usize, usize, &mut [T]) + Sync,
) {
    let plane = rows * row_len;
    if plane == 0 || out.is_empty() {
        return;
    }
    let planes = out.len() / plane;
    assert_eq!(planes * plane, out.len(), "whole planes");
    let bands = bands.max(1);
    let groups = if parallel {
        (4 * crate::pool::threads()).div_ceil(bands).min(planes)
    } else {
        1
    };
    let base = SendPtr(out.as_mut_ptr());
    let task = |t: usize| {
        let (band, group) = (t / groups, t % groups);
        let band_at = band_rows(rows, band, bands);
        for p in planes * group / groups..planes * (group + 1) / groups {
            // SAFETY: rows `band_at` of plane `p`, inside `out` (`planes · plane` elements);
            // the tasks' bands and groups of planes are disjoint, so no other task
            // touches them.
            let dst = unsafe {
                std::slice::from_raw_parts_mut(
                    base.get().add(p * plane + band_at.start * row_len),
                    band_at.len() * row_len,
                )
            };
            f(band, p, dst);
        }
    };
    if parallel && bands * groups > 1 {
        crate::pool::for_each(bands * groups, task);
    } else {
        (0..bands * groups).for_each(task);
    }
}

/// Calls `f(i, chunk)` for the `i`-th `len`-element chunk of `out` (the last may be shorter).
/// With `spread = Some(n)` the chunks are spread over the pool, at least `n` to a task;
/// with `None` they run in order on the calling thread.
fn for_each_chunk<T: Send>(
    out: &mut [T],
    len: usize,
    spread: Option<usize>,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    let (total, chunks) = (out.len(), out.len().div_ceil(len.max(1)));
    match spread {
        Some(min_len) if chunks > 1 => {
            // A few tasks per thread, each of whole chunks, at least `min_len` of them.
            let per_task = min_len
                .max(chunks.div_ceil(4 * crate::pool::threads()))
                .max(1);
            let base = SendPtr(out.as_mut_ptr());
            crate::pool::for_each(chunks.div_ceil(per_task), |t| {
                for i in t * per_task..((t + 1) * per_task).min(chunks) {
                    let (start, end) = (i * len, ((i + 1) * len).min(total));
                    // SAFETY: chunk `i` is `out[start..end]`, inside `out`; task `t` alone
                    // runs it (the tasks' chunk ranges are disjoint).
                    let chunk = unsafe {
                        std::slice::from_raw_parts_mut(base.get().add(start), end - start)
                    };
                    f(i, chunk);
                }
            });
        }
        _ => out
            .chunks_mut(len)
            .enumerate()
            .for_each(|(i, chunk)| f(i, chunk)),
    }
}

/// `dst[i] = src[2·i]` for every element of `dst` (`src` holds at least `2·dst.len() − 1`):
/// the column gather of a stride-2 window. For f32, four at a time with SSE shuffles (part of
/// the x86-64 baseline); an element-by-element loop ran at about 1 ns per element and was
/// most of a stride-2 depthwise convolution's time.
fn every_second<T: Float>(src: &[T], dst: &mut [T]) {
    assert!(
        dst.is_empty() || src.len() > 2 * (dst.len() - 1),
        "every_second: {} elements do not hold {} at stride 2",
        src.len(),
        dst.len()
    );
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>() {
        use std::arch::x86_64::{_mm_loadu_ps, _mm_shuffle_ps, _mm_storeu_ps};
        // Blocks of 4 outputs read 8 inputs: the last block at `i` reads up to `2i + 8`.
        let n = dst.len().min(src.len() / 2) / 4 * 4;
        let (s, d) = (src.as_ptr().cast::<f32>(), dst.as_mut_ptr().cast::<f32>());
        for i in (0..n).step_by(4) {
            // SAFETY: T is f32 (checked above); `i + 4 <= n <= src.len() / 2`, so the loads
            // read `src[2i .. 2i + 8]`, and `n <= dst.len()`, so the store writes
            // `dst[i .. i + 4]`; SSE is part of the x86-64 baseline.
            unsafe {
                let a = _mm_loadu_ps(s.add(2 * i));
                let b = _mm_loadu_ps(s.add(2 * i + 4));
                _mm_storeu_ps(d.add(i), _mm_shuffle_ps::<0b10_00_10_00>(a, b));
            }
        }
        done = n;
    }
    for (d, v) in dst[done..]
        .iter_mut()
        .zip(src[2 * done..].iter().step_by(2))
    {
        *d = *v;
    }
}

/// The mask of the first `n` (at most 16) lanes of a 16-lane vector: AVX-512's `__mmask16`
/// for a partial vector of f32.
fn first_lanes(n: usize) -> u16 {
    debug_assert!(n <= 16);
    ((1u32 << n) - 1) as u16
}

/// Applies `act` to every element of `out` on the calling thread. The crate is built for the
/// baseline x86-64 (128-bit vectors); on a CPU with AVX-512 the same loop runs compiled for
/// it (no FMA contraction either way, so the results are the same).
fn activate_serial<T: Float>(chunk: &mut [T], act: Activation) {
    #[cfg(target_arch = "x86_64")]
    if act != Activation::Relu && std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F, checked just above.
        unsafe { activate_avx512(chunk, act) };
        return;
    }
    activate_loop(chunk, act);
}

/// [`activate_loop`] compiled for AVX-512.
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn activate_avx512<T: Float>(chunk: &mut [T], act: Activation) {
    activate_loop(chunk, act);
}

#[inline(always)]
fn activate_loop<T: Float>(chunk: &mut [T], act: Activation) {
    match act {
        Activation::Relu => chunk.iter_mut().for_each(|x| *x = x.relu()),
        Activation::Gelu => chunk.iter_mut().for_each(|x| *x = x.gelu()),
        Activation::GeluTanh => chunk.iter_mut().for_each(|x| *x = x.gelu_tanh()),
    }
}

fn activate<T: Float>(out: &mut [T], act: Activation) {
    let f = |chunk: &mut [T]| activate_serial(chunk, act);
    if out.len() >= PARALLEL_ELEMENTS {
        for_each_chunk(out, PARALLEL_ELEMENTS / 4, Some(1), |_, chunk| f(chunk));
    } else {
        f(out);
    }
}

/// `erf(x)` to about 3e-7 absolute in `f32` arithmetic: Abramowitz & Stegun 7.1.26 with
/// [`exp_neg_f32`], branch-free so that a loop over a slice vectorizes.
#[inline(always)]
fn erf_f32(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152 + t * 1.061_405_4))));
    (1.0 - poly * exp_neg_f32(a * a)).copysign(x)
}

/// The output columns `[lo, hi)` of a row of `out` positions spaced `stride` apart whose input
/// column `o * stride + off` falls inside a row of `size` (a convolution or pooling tap at
/// offset `off`: the dilated tap minus the padding). In i128: a stride or a padding up to 2^63
/// must not wrap the sums around.
fn valid_columns(off: isize, stride: usize, size: usize, out: usize) -> (usize, usize) {
    let (s, off) = (stride as i128, off as i128);
    let lo = if off >= 0 { 0 } else { (-off + s - 1) / s };
    let hi = (size as i128 - off + s - 1).div_euclid(s).max(0);
    let (lo, hi) = (lo.min(out as i128) as usize, hi.min(out as i128) as usize);
    (lo, hi.max(lo))
}

/// `exp(-v)` for `v >= 0` (underflowing to 0 past 87), to a few ulp: `2^n · p(r)` with a
/// degree-6 polynomial on `|r| <= ln 2 / 2`, the rounding done by the 1.5·2^23 trick rather
/// than a libm call, so that it vectorizes.
#[inline(always)]
fn exp_neg_f32(v: f32) -> f32 {
    // A comparison, not `f32::max`, which would turn a NaN into the bound: a NaN must stay one
    // (as libm's `exp` keeps it), or a softmax row holding one sums to a number.
    let x = -v;
    let x = if x < -87.0 { -87.0 } else { x };
    const MAGIC: f32 = 12_582_912.0;
    let t = x * std::f32::consts::LOG2_E + MAGIC;
    let n = t - MAGIC;
    let r = x - n * 0.693_145_75 - n * 1.428_606_8e-6;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (0.166_666_67
                    + r * (0.041_666_668 + r * (0.008_333_334 + r * 0.001_388_889)))));
    // `t`'s low mantissa bits hold `n` (an integer in -126..=0) over MAGIC's: the biased
    // exponent comes from integer arithmetic, which vectorizes (a saturating `n as i32` does
    // not).
    p * f32::from_bits(t.to_bits().wrapping_sub(MAGIC.to_bits() - 127) << 23)
}

/// `erf(x)` to about 1e-7 absolute (Abramowitz & Stegun 7.1.26).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 { -y } else { y }
}

/// What the kernels need of an element type.
trait Float:
    Copy + Send + Sync + PartialOrd + std::ops::AddAssign + std::ops::Add<Output = Self> + 'static
{
    const DTYPE: DataType;
    const ZERO: Self;
    const ONE: Self;
    /// The lowest finite value (TVM's `min_value`, the max reduction's identity).
    const LOWEST: Self;
    fn relu(self) -> Self {
        if self > Self::ZERO { self } else { Self::ZERO }
    }
    fn gelu(self) -> Self;
    fn gelu_tanh(self) -> Self;
    fn mul(self, other: Self) -> Self;
    fn div(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
    /// `1 / sqrt(self)`.
    fn rsqrt(self) -> Self;
    fn sqrt(self) -> Self;
    /// Neither infinite nor NaN.
    fn is_finite(self) -> bool;
    /// `exp(-self)` for `self >= 0`.
    fn exp_neg(self) -> Self;
    fn powf(self, e: Self) -> Self;
    fn from_f64(v: f64) -> Self;
    fn from_i64(v: i64) -> Self;
    /// A per-thread scratch buffer, taken (the slot is left empty, so a nested call on the
    /// same thread allocates its own) and given back with [`Float::put_scratch`].
    fn take_scratch() -> Vec<Self>;
    fn put_scratch(v: Vec<Self>);
}

thread_local! {
    static SCRATCH_F32: Cell<Vec<f32>> = const { Cell::new(Vec::new()) };
    static SCRATCH_F64: Cell<Vec<f64>> = const { Cell::new(Vec::new()) };
    #[cfg(target_arch = "x86_64")]
    static PANELS_F32: Cell<Vec<f32>> = const { Cell::new(Vec::new()) };
}

/// A second f32 buffer of the thread, for a kernel that packs an operand while its caller
/// holds the first ([`Float::take_scratch`]): the convolution's panels of a tile of columns.
#[cfg(target_arch = "x86_64")]
fn take_panels() -> Vec<f32> {
    PANELS_F32.with(Cell::take)
}

/// Gives back the buffer of [`take_panels`] for the thread's next call.
#[cfg(target_arch = "x86_64")]
fn put_panels(v: Vec<f32>) {
    PANELS_F32.with(|s| s.set(v));
}

impl Float for f32 {
    const DTYPE: DataType = DataType::F32;
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const LOWEST: f32 = f32::MIN;
    #[inline(always)]
    fn gelu(self) -> f32 {
        0.5 * self * (1.0 + erf_f32(self * std::f32::consts::FRAC_1_SQRT_2))
    }
    fn gelu_tanh(self) -> f32 {
        (self as f64).gelu_tanh() as f32
    }
    fn mul(self, other: f32) -> f32 {
        self * other
    }
    fn div(self, other: f32) -> f32 {
        self / other
    }
    fn sub(self, other: f32) -> f32 {
        self - other
    }
    fn rsqrt(self) -> f32 {
        1.0 / self.sqrt()
    }
    #[inline(always)]
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    #[inline(always)]
    fn exp_neg(self) -> f32 {
        // Exactly 0 past the clamp of `exp_neg_f32`, as libm's `exp` gives (a softmax row of
        // `-inf` is then `0 / 0`, as on the TIR path).
        if self > 87.0 { 0.0 } else { exp_neg_f32(self) }
    }
    fn powf(self, e: f32) -> f32 {
        f32::powf(self, e)
    }
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    fn from_i64(v: i64) -> f32 {
        v as f32
    }
    fn take_scratch() -> Vec<f32> {
        SCRATCH_F32.with(Cell::take)
    }
    fn put_scratch(v: Vec<f32>) {
        SCRATCH_F32.with(|s| s.set(v));
    }
}

impl Float for f64 {
    const DTYPE: DataType = DataType::F64;
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    const LOWEST: f64 = f64::MIN;
    fn gelu(self) -> f64 {
        0.5 * self * (1.0 + erf(self * std::f64::consts::FRAC_1_SQRT_2))
    }
    fn gelu_tanh(self) -> f64 {
        let c = (2.0 / std::f64::consts::PI).sqrt();
        0.5 * self * (1.0 + (c * (self + 0.044715 * self * self * self)).tanh())
    }
    fn mul(self, other: f64) -> f64 {
        self * other
    }
    fn div(self, other: f64) -> f64 {
        self / other
    }
    fn sub(self, other: f64) -> f64 {
        self - other
    }
    fn rsqrt(self) -> f64 {
        1.0 / self.sqrt()
    }
    #[inline(always)]
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    fn exp_neg(self) -> f64 {
        (-self).exp()
    }
    fn powf(self, e: f64) -> f64 {
        f64::powf(self, e)
    }
    fn from_f64(v: f64) -> f64 {
        v
    }
    fn from_i64(v: i64) -> f64 {
        v as f64
    }
    fn take_scratch() -> Vec<f64> {
        SCRATCH_F64.with(Cell::take)
    }
    fn put_scratch(v: Vec<f64>) {
        SCRATCH_F64.with(|s| s.set(v));
    }
}

/// Whether a GEMM of this size is worth splitting across the pool's threads (smaller ones,
/// such as a batch-1 layer, lose more to synchronisation than they gain).
fn parallelism(m: usize, n: usize, k: usize) -> gemm::Parallelism {
    if m.saturating_mul(n).saturating_mul(k) >= 1 << 20 && crate::pool::threads() > 1 {
        gemm::Parallelism::Rayon(0)
    } else {
        gemm::Parallelism::None
    }
}

/// A row-major matrix operand: element `(i, j)` is at `ptr + i * rs + j * cs`.
#[derive(Clone, Copy)]
struct Mat<T> {
    ptr: *const T,
    rs: isize,
    cs: isize,
}

/// `dst[m×n] (+)= lhs[m×k] @ rhs[k×n]`, `dst` row-major with row stride `dst_rs`.
///
/// # Safety
/// Every element `(i, j)` with `i < m`, `j < n` (`k` for `lhs`'s columns and `rhs`'s rows)
/// addressed through the strides must lie inside the allocation behind the pointer, `dst`'s
/// elements must not overlap `lhs`'s or `rhs`'s, and nothing else may access `dst`'s during
/// the call.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_into<T: Float>(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut T,
    dst_rs: isize,
    read_dst: bool,
    lhs: Mat<T>,
    rhs: Mat<T>,
    par: gemm::Parallelism,
) {
    // A right operand stored by columns (`rhs.rs == 1`: the transposed weight of a linear
    // layer, `x @ w.T`) the GEMM crate splits poorly over the pool. Blocks of output columns,
    // four per thread, one single-threaded GEMM each, measured on two threads (`cargo run
    // --release -p relaxjit-bench --example gemm_split`, rows "b by columns"): 64×784×512
    // 463 → 304 µs, 128×1024×256 1112 → 524 µs, 128×256×256 162 → 91 µs (the same products
    // with the operand by rows: 264, 333 and 85 µs).
    let threads = crate::pool::threads();
    if matches!(par, gemm::Parallelism::Rayon(_)) && rhs.rs == 1 && rhs.cs != 1 && threads > 1 {
        let width = n.div_ceil(4 * threads).next_multiple_of(16);
        if width < n {
            let (dst, lhs_ptr, rhs_ptr) = (
                SendPtr(dst),
                SendPtr(lhs.ptr.cast_mut()),
                SendPtr(rhs.ptr.cast_mut()),
            );
            let block = |b: usize| {
                let j0 = b * width;
                // SAFETY: columns `j0..j0 + w` of `dst` and `rhs` (`j0 + w <= n`), inside
                // them by the caller's contract; the blocks' columns of `dst` are disjoint.
                unsafe {
                    gemm_into(
                        m,
                        width.min(n - j0),
                        k,
                        dst.get().add(j0),
                        dst_rs,
                        read_dst,
                        Mat {
                            ptr: lhs_ptr.get().cast_const(),
                            ..lhs
                        },
                        Mat {
                            ptr: rhs_ptr.get().offset(j0 as isize * rhs.cs).cast_const(),
                            ..rhs
                        },
                        gemm::Parallelism::None,
                    )
                }
            };
            crate::pool::for_each(n.div_ceil(width), block);
            return;
        }
    }
    let (dst, lhs_ptr, rhs_ptr) = (
        SendPtr(dst),
        SendPtr(lhs.ptr.cast_mut()),
        SendPtr(rhs.ptr.cast_mut()),
    );
    let product = move || {
        // SAFETY: the caller's contract is `gemm::gemm`'s (in-bounds strided operands, a
        // destination that aliases nothing); `alpha = beta = 1` makes it `dst = dst + lhs @
        // rhs` when `read_dst`, `dst = lhs @ rhs` otherwise.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                dst.get(),
                1,
                dst_rs,
                read_dst,
                lhs_ptr.get().cast_const(),
                lhs.cs,
                lhs.rs,
                rhs_ptr.get().cast_const(),
                rhs.cs,
                rhs.rs,
                T::ONE,
                T::ONE,
                false,
                false,
                false,
                par,
            );
        }
    };
    match par {
        // The GEMM crate splits its work with rayon's own parallel loops, which belong in
        // the pool of the call (`crate::pool::run`).
        gemm::Parallelism::Rayon(_) => crate::pool::run(product),
        _ => product(),
    }
}

/// A raw pointer that may cross to the pool's threads; each user writes a disjoint part.
struct SendPtr<T>(*mut T);

// Not derived: a derive would ask `T: Copy`.
impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SendPtr<T> {}
// SAFETY: the pointer is only dereferenced on disjoint ranges, one per task (see each use).
unsafe impl<T: Send> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer (a method, so that closures capture the `Send` wrapper, not the field).
    fn get(self) -> *mut T {
        self.0
    }
}

/// What the kernels' tests share: a reproducible generator and operands between guards.
#[cfg(test)]
pub(crate) mod test_support {
    /// Elements of guard value on each side of a test's buffers: past a 32-lane register tile
    /// and a 16-lane masked vector, past the 32 columns (plus one) a masked block reads.
    pub(crate) const GUARD: usize = 48;

    /// `v` with [`GUARD`] elements of `guard` on each side, and the range of `v` in it.
    pub(crate) fn guarded<T: Copy>(v: &[T], guard: T) -> (Vec<T>, std::ops::Range<usize>) {
        let buf = [&[guard; GUARD][..], v, &[guard; GUARD]].concat();
        (buf, GUARD..GUARD + v.len())
    }

    /// A xorshift64 generator from `seed` (not zero): the same numbers on every run.
    pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SSE blocks and the tail give `src[2i]`, for every length and both parities of
    /// the source's length.
    #[test]
    fn every_second_takes_the_even_elements() {
        for n in 0..21usize {
            for len in [(2 * n).saturating_sub(1), 2 * n, 2 * n + 5] {
                let src: Vec<f32> = (0..len).map(|v| v as f32).collect();
                let mut got = vec![-1.0f32; n];
                every_second(&src, &mut got);
                let want: Vec<f32> = (0..n).map(|i| (2 * i) as f32).collect();
                assert_eq!(got, want, "{n} from {len}");
                let src64: Vec<f64> = src.iter().map(|&v| f64::from(v)).collect();
                let mut got64 = vec![-1.0f64; n];
                every_second(&src64, &mut got64);
                assert!(got64.iter().zip(&want).all(|(&a, &b)| a == f64::from(b)));
            }
        }
    }

    /// Every kernel is found by its name, and nothing else is: `add_named` links by name.
    /// A kernel given one of its addends as its output too (as StaticPlanBlockMemory plans a
    /// residual's last use) computes what it computes into a fresh output: convolutions on
    /// each path (the fused 1×1 kernel, the GEMM of an unfolded 3×3, depthwise, packed 1×1
    /// weights), with a per-channel bias before the residual, with a broadcast addend the
    /// kernel preloads, and matrix multiplies. Small integers, so that every order of the
    /// sums is exact. Any other input sharing the output's bytes is still an error.
    #[test]
    fn an_addend_may_be_the_output() {
        use vm::{Tensor, Value};
        let mut lib = vm::Library::new();
        add_to(&mut lib);
        let mut next = test_support::xorshift(0x51ab_1e5e_ed00_0001);
        let mut small = |shape: &[i64]| -> Tensor {
            let n = shape.iter().product::<i64>() as usize;
            let v: Vec<f32> = (0..n).map(|_| (next() % 5) as f32 - 2.0).collect();
            Tensor::from_slice(shape, &v).unwrap()
        };
        let w = |shape: &[i64], next: &mut dyn FnMut() -> u64| -> Vec<f32> {
            let n = shape.iter().product::<i64>() as usize;
            (0..n).map(|_| (next() % 5) as f32 - 2.0).collect()
        };
        let mut next_w = test_support::xorshift(0x51ab_1e5e_ed00_0002);
        let mut packed = |shape: &[i64]| -> Tensor {
            let dims = [0, 1, 2, 3].map(|i| shape[i] as usize);
            let (data, packed) =
                relax::transform::dispatch_library::pack_conv_weights(&w(shape, &mut next_w), dims);
            Tensor::from_slice(&packed.map(|d| d as i64), &data).unwrap()
        };
        let mut next_w = test_support::xorshift(0x51ab_1e5e_ed00_0003);
        let mut winograd = |shape: &[i64]| -> Tensor {
            use relax::transform::dispatch_library::{WINOGRAD_ROWS, winograd_conv_weights};
            let data =
                winograd_conv_weights(&w(shape, &mut next_w), [0, 1].map(|i| shape[i] as usize));
            Tensor::from_slice(&[WINOGRAD_ROWS as i64, shape[0], shape[1]], &data).unwrap()
        };
        // (kernel, tensors before the residual, integer parameters, output shape)
        let conv = [1i64, 1, 1, 1, 1, 1, 1, 1, 1];
        type Case = (&'static str, Vec<Tensor>, Vec<i64>, Vec<i64>);
        let cases: Vec<Case> = vec![
            (
                "relaxjit.conv2d_add_add_relu",
                vec![
                    small(&[1, 16, 9, 7]),
                    small(&[70, 16, 1, 1]),
                    small(&[1, 70, 1, 1]),
                ],
                [1, 1, 0, 0, 0, 0, 1, 1, 1].to_vec(),
                vec![1, 70, 9, 7],
            ),
            (
                "relaxjit.conv2d_add_add",
                vec![
                    small(&[2, 8, 10, 10]),
                    small(&[12, 8, 3, 3]),
                    small(&[1, 12, 1, 1]),
                ],
                conv.to_vec(),
                vec![2, 12, 10, 10],
            ),
            (
                "relaxjit.conv2d_add_add",
                vec![
                    small(&[1, 6, 8, 8]),
                    small(&[6, 1, 3, 3]),
                    small(&[1, 6, 1, 1]),
                ],
                [1, 1, 1, 1, 1, 1, 1, 1, 6].to_vec(),
                vec![1, 6, 8, 8],
            ),
            (
                // A broadcast addend the kernel writes into the output before multiplying.
                "relaxjit.conv2d_add_add",
                vec![
                    small(&[1, 4, 5, 6]),
                    small(&[8, 4, 3, 3]),
                    small(&[1, 1, 5, 1]),
                ],
                conv.to_vec(),
                vec![1, 8, 5, 6],
            ),
            (
                // Packed weights: the channel-vectorized kernel.
                "relaxjit.conv2d_add_add",
                vec![
                    small(&[1, 40, 7, 7]),
                    packed(&[64, 40, 1, 1]),
                    small(&[1, 64, 1, 1]),
                ],
                [1, 1, 0, 0, 0, 0, 1, 1, 1].to_vec(),
                vec![1, 64, 7, 7],
            ),
            (
                // Winograd-transformed weights.
                "relaxjit.conv2d_add_add_relu",
                vec![
                    small(&[1, 8, 12, 12]),
                    winograd(&[16, 8, 3, 3]),
                    small(&[1, 16, 1, 1]),
                ],
                conv.to_vec(),
                vec![1, 16, 12, 12],
            ),
            (
                "relaxjit.matmul_add_add_relu",
                vec![small(&[3, 5, 7]), small(&[7, 9]), small(&[9])],
                vec![],
                vec![3, 5, 9],
            ),
            (
                "relaxjit.matmul_add",
                vec![small(&[40, 33]), small(&[33, 50])],
                vec![],
                vec![40, 50],
            ),
        ];
        for (name, tensors, ints, out_shape) in cases {
            let f = lib.get_packed(name).unwrap();
            let residual = small(&out_shape);
            let args = |residual: &Tensor, out: &Tensor| -> Vec<Value> {
                let mut a: Vec<Value> = tensors.iter().cloned().map(Value::Tensor).collect();
                a.push(Value::Tensor(residual.clone()));
                a.extend(ints.iter().map(|&i| Value::Int(i)));
                a.push(Value::Tensor(out.clone()));
                a
            };
            let fresh = Tensor::zeros(&out_shape, vm::DataType::F32).unwrap();
            f.call(&args(&residual, &fresh)).unwrap();
            let in_place =
                Tensor::from_slice(&out_shape, &residual.to_vec::<f32>().unwrap()).unwrap();
            f.call(&args(&in_place, &in_place))
                .unwrap_or_else(|e| panic!("{name} {out_shape:?} in place: {e}"));
            // Exact but for Winograd's transforms, whose sums the two add to in other orders.
            let (got, want) = (
                in_place.to_vec::<f32>().unwrap(),
                fresh.to_vec::<f32>().unwrap(),
            );
            let scale = want.iter().fold(1f32, |m, v| m.max(v.abs()));
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-5 * scale,
                    "{name} {out_shape:?}: element {i} is {g} in place, {w} into a fresh output"
                );
            }
            // The first operand as the output is no addend: refused.
            if tensors[0].shape() == &out_shape[..] {
                let x = tensors[0].clone();
                let mut a = args(&residual, &x);
                a[0] = Value::Tensor(x);
                let err = f.call(&a).unwrap_err().to_string();
                assert!(err.contains("overlaps the output"), "{name}: {err}");
            }
        }
        // A residual of another shape at the output's address is no in-place addend.
        let f = lib.get_packed("relaxjit.matmul_add").unwrap();
        let out = Tensor::zeros(&[4, 4], vm::DataType::F32).unwrap();
        let flat = out.view(&[16], vm::DataType::F32).unwrap();
        let a = [small(&[4, 4]), small(&[4, 4])];
        let err = f
            .call(&[
                Value::Tensor(a[0].clone()),
                Value::Tensor(a[1].clone()),
                Value::Tensor(flat),
                Value::Tensor(out),
            ])
            .unwrap_err()
            .to_string();
        assert!(err.contains("overlaps the output"), "{err}");
    }

    /// GEMMs large enough for the pool are cut into blocks of columns (or, with few columns,
    /// of rows) that each thread multiplies alone ([`matmul::Blocks`]): on two threads and on
    /// one, plain and with the right operand transposed, onto addends or not, every element is
    /// the product written out. Small integers, so that every order of the sums is exact.
    #[test]
    fn split_gemms_give_the_products() {
        use vm::{Tensor, Value};
        let mut lib = vm::Library::new();
        add_to(&mut lib);
        let mut next = test_support::xorshift(0x6e3d_5a1b_0c2f_9001);
        let mut small =
            |len: usize| -> Vec<f32> { (0..len).map(|_| (next() % 5) as f32 - 2.0).collect() };
        // (rows, n, k): columns split (300 ≥ 16 · 4, 301 leaves a partial strip), rows split.
        for (m, n, k) in [
            (40, 300, 100),
            (33, 301, 120),
            (300, 20, 200),
            (257, 9, 500),
        ] {
            for trans_b in [false, true] {
                let (a, b, addend) = (small(m * k), small(k * n), small(m * n));
                let mut want = addend.clone();
                for i in 0..m {
                    for j in 0..n {
                        for p in 0..k {
                            let bv = if trans_b { b[j * k + p] } else { b[p * n + j] };
                            want[i * n + j] += a[i * k + p] * bv;
                        }
                    }
                }
                let name = if trans_b {
                    "relaxjit.matmul_tb_add"
                } else {
                    "relaxjit.matmul_add"
                };
                let f = lib.get_packed(name).unwrap();
                let b_shape = if trans_b { [n, k] } else { [k, n] }.map(|d| d as i64);
                for threads in [2, 1] {
                    let out = Tensor::zeros(&[m as i64, n as i64], vm::DataType::F32).unwrap();
                    let args = [
                        Value::Tensor(Tensor::from_slice(&[m as i64, k as i64], &a).unwrap()),
                        Value::Tensor(Tensor::from_slice(&b_shape, &b).unwrap()),
                        Value::Tensor(Tensor::from_slice(&[m as i64, n as i64], &addend).unwrap()),
                        Value::Tensor(out.clone()),
                    ];
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    pool.install(|| f.call(&args)).unwrap();
                    assert_eq!(
                        out.to_vec::<f32>().unwrap(),
                        want,
                        "{m} × {k} @ {k} × {n}, transposed {trans_b}, {threads} threads"
                    );
                }
            }
        }
    }

    #[test]
    fn every_kernel_is_found_by_its_name() {
        let all = LibraryKernel::all();
        for k in &all {
            assert_eq!(
                LibraryKernel::from_name(&k.name()),
                Some(*k),
                "{}",
                k.name()
            );
        }
        for bad in [
            "relaxjit.matmul_add_add_add",
            "relaxjit.softmax_relu",
            "relaxjit.matmul_bn",
            "relaxjit.conv2d_relu_add",
            "relaxjit.",
            "matmul",
            "relaxjit.matmul_",
        ] {
            assert_eq!(LibraryKernel::from_name(bad), None, "{bad}");
        }
        let mut lib = vm::Library::new();
        add_named(
            &mut lib,
            all.iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .iter()
                .map(String::as_str),
        );
        for k in &all {
            assert!(
                lib.get_packed(&k.name()).is_some(),
                "{} is linked",
                k.name()
            );
        }
    }

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_877_8),
            (1.0, 0.842_700_792_9),
            (-2.0, -0.995_322_265_0),
            (3.5, 0.999_999_256_9),
        ] {
            assert!((erf(x) - want).abs() < 3e-7, "erf({x}) = {}", erf(x));
            let e = erf_f32(x as f32) as f64;
            assert!((e - want).abs() < 5e-7, "erf_f32({x}) = {e}");
        }
        for i in 0..=160 {
            let v = i as f32 * 0.5;
            let (got, want) = (exp_neg_f32(v) as f64, (-(v as f64)).exp());
            assert!(
                (got - want).abs() <= 4e-7 * want + 1e-38,
                "exp(-{v}) = {got}, want {want}"
            );
        }
        assert!(exp_neg_f32(100.0) < 1e-37 && exp_neg_f32(f32::MAX) < 1e-37);
        assert!(exp_neg_f32(f32::NAN).is_nan() && f32::NAN.exp_neg().is_nan());
    }

    #[test]
    fn every_kernel_name_is_distinct() {
        let mut names: Vec<String> = LibraryKernel::all().iter().map(|k| k.name()).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
