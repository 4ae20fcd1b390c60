//! `relaxjit.argmax` / `relaxjit.argmin`: the index of the best element over one axis (or all
//! elements), exactly as the TIR legalization folds it (`relax/src/legalize/reduce.rs`,
//! `arg_reduce`): from `(−1, extreme)` (the dtype's lowest finite value for a maximum, its
//! highest for a minimum), each element in order replaces the pair unless the pair's value is
//! better, or equal with a smaller index. So the result is the first index of the best value,
//! −1 when no element beats the extreme, and a NaN, which compares false with everything, is
//! replaced by the element after it.
//!
//! A run along the axis that holds no NaN has the same result as "the first index of its best
//! value, if that beats the extreme": that run is reduced in a vectorized pass (its best value
//! and whether it holds a NaN) and a search for the first index holding the value, instead of
//! the serial fold, which a NaN-holding run keeps. A reduction over an inner axis folds many runs side by side, lane by lane.

use vm::{DataType, Error, Result, Tensor};

use super::{PARALLEL_ELEMENTS, for_each_chunk};

/// An element type the arg reductions take.
trait Elem: Copy + PartialOrd + Send + Sync {
    /// The fold's starting value: the lowest finite value for a maximum, the highest for a
    /// minimum (TVM's `min_value` / `max_value`).
    fn extreme(max: bool) -> Self;
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn extreme(max: bool) -> Self {
                if max { <$t>::MIN } else { <$t>::MAX }
            }
        }
    )*};
}
elem!(f32, f64, i32, i64);

/// `out[o, i]` = the arg reduction of `x[o, :, i]` (`x` seen as `[outer, len, inner]`: the axis
/// `params[0]`, or all elements for −1).
pub(super) fn arg_reduce(x: &Tensor, params: &[i64], max: bool, out: &Tensor) -> Result<()> {
    if !x.device().is_cpu() {
        return Err(Error::value_error(format!(
            "argument 0 is on {}, library kernels run on the CPU",
            x.device()
        )));
    }
    if out.dtype() != DataType::I64 {
        return Err(Error::type_error(format!(
            "output of dtype {}, expected int64",
            out.dtype()
        )));
    }
    let shape: Vec<usize> = x.shape().iter().map(|&d| d as usize).collect();
    let (outer, len, inner) = match *params {
        [-1] => (1, x.numel(), 1),
        [a] if usize::try_from(a).is_ok_and(|a| a < shape.len()) => {
            let a = a as usize;
            (
                shape[..a].iter().product(),
                shape[a],
                shape[a + 1..].iter().product(),
            )
        }
        _ => {
            return Err(Error::value_error(format!(
                "arg reduction axis {params:?} for a tensor of rank {}",
                shape.len()
            )));
        }
    };
    if out.numel() != outer * inner {
        return Err(Error::value_error(format!(
            "arg reduction output of shape {:?} for {outer}×{inner} results",
            out.shape()
        )));
    }
    // SAFETY: the caller checked that the output overlaps no input and that nothing else
    // reaches it during the call (destination-passing style); it holds `numel` int64s.
    let dst =
        unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<i64>(), out.numel()) };
    match x.dtype() {
        DataType::F32 => run(&elements::<f32>(x)?, outer, len, inner, max, dst),
        DataType::F64 => run(&elements::<f64>(x)?, outer, len, inner, max, dst),
        DataType::I32 => run(&elements::<i32>(x)?, outer, len, inner, max, dst),
        DataType::I64 => run(&elements::<i64>(x)?, outer, len, inner, max, dst),
        other => {
            return Err(Error::type_error(format!(
                "argument 0 of dtype {other}; arg reductions take float32, float64, int32 and int64"
            )));
        }
    }
    Ok(())
}

/// The elements of `x` (whose dtype is `T`'s): in place when aligned for `T`, else copied.
fn elements<T: Elem + vm::Element>(x: &Tensor) -> Result<std::borrow::Cow<'_, [T]>> {
    if (x.as_ptr() as usize).is_multiple_of(std::mem::align_of::<T>()) {
        // SAFETY: a tensor's storage holds `numel` elements of its dtype, which the caller
        // matched to `T`; the pointer is aligned for `T` (just checked); nothing writes an
        // input while a kernel reads it.
        let data = unsafe { std::slice::from_raw_parts(x.as_ptr().cast::<T>(), x.numel()) };
        Ok(std::borrow::Cow::Borrowed(data))
    } else {
        Ok(std::borrow::Cow::Owned(x.to_vec::<T>()?))
    }
}

fn run<T: Elem>(src: &[T], outer: usize, len: usize, inner: usize, max: bool, dst: &mut [i64]) {
    if max {
        run_with::<T, true>(src, outer, len, inner, dst);
    } else {
        run_with::<T, false>(src, outer, len, inner, dst);
    }
}

/// Whether `a` is strictly better than `b`: greater for a maximum, less for a minimum.
#[inline(always)]
fn better<T: Elem, const MAX: bool>(a: T, b: T) -> bool {
    if MAX { a > b } else { a < b }
}

fn run_with<T: Elem, const MAX: bool>(
    src: &[T],
    outer: usize,
    len: usize,
    inner: usize,
    dst: &mut [i64],
) {
    if dst.is_empty() {
        return;
    }
    let block = len * inner;
    let threads = crate::pool::threads();
    let parallel = src.len() >= PARALLEL_ELEMENTS && threads > 1;
    // One outer position's results, or, when there is only one, blocks of its lanes (runs
    // side by side), four per thread: with `position_avx512`, argmin along the first axis of
    // 1024 × 1024 `float32` on two threads 468–484 → 97–117 µs (numpy's `argmin(axis=0)`:
    // 5.3 ms), measured with `relaxjit bench` on `R.argmin(x, axis=0)`.
    let lanes = if parallel && outer == 1 && inner >= 2 * MIN_LANES {
        inner
            .div_ceil(4 * threads)
            .next_multiple_of(LANE_BLOCK)
            .max(MIN_LANES)
    } else {
        inner
    };
    let per_row = inner.div_ceil(lanes);
    // Task `t`: outer position `t / per_row`, its lanes from `(t % per_row) · lanes`.
    let one = |(t, d): (usize, &mut [i64])| {
        let x = &src[t / per_row * block..][..block];
        let lo = t % per_row * lanes;
        #[cfg(target_arch = "x86_64")]
        if inner > 1 && std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            unsafe { position_avx512::<T, MAX>(x, inner, lo, d) };
            return;
        }
        position::<T, MAX>(x, inner, lo, d);
    };
    // Blocks of lanes only for one outer position: the tasks are the output's chunks either way.
    if parallel && outer * per_row > 1 {
        // Tasks of at least PARALLEL_ELEMENTS / 4 elements: short runs do not make a task each.
        let per_task = (PARALLEL_ELEMENTS / 4)
            .div_ceil((len * lanes).max(1))
            .max(1);
        for_each_chunk(dst, lanes, Some(per_task), |i, d| one((i, d)));
    } else {
        for_each_chunk(dst, lanes, None, |i, d| one((i, d)));
    }
}

/// The fewest lanes a task of runs side by side takes, and the multiple its lanes come in.
const MIN_LANES: usize = 256;
const LANE_BLOCK: usize = 64;

/// The results `d` of one outer position's lanes `lo..lo + d.len()`, from its `len × inner`
/// elements `x`.
#[inline(always)]
fn position<T: Elem, const MAX: bool>(x: &[T], inner: usize, lo: usize, d: &mut [i64]) {
    if inner == 1 {
        d[0] = run_of::<T, MAX>(x);
        return;
    }
    // Runs side by side: the fold, lane by lane, in order along the axis. A lane's index is
    // always below `k` (the fold sets them in increasing order), so the fold keeps the pair
    // exactly when its value is better or equal, `v >= s` for a maximum (false for a NaN on
    // either side, which is then replaced, as the fold does); otherwise the pair becomes
    // `(k, s)`. (Where it keeps an equal value the fold stores `s`; the two can differ only as
    // zeros of opposite signs, which compare equal from then on.)
    let mut val = vec![T::extreme(MAX); d.len()];
    d.fill(-1);
    for (k, row) in x.chunks_exact(inner).enumerate() {
        let k = k as i64;
        let row = &row[lo..][..d.len()];
        for ((idx, v), &s) in d.iter_mut().zip(val.iter_mut()).zip(row) {
            let keep = if MAX { *v >= s } else { *v <= s };
            *idx = if keep { *idx } else { k };
            *v = if keep { *v } else { s };
        }
    }
}

/// [`position`] compiled for AVX-512: its loops are written to vectorize, and take 16 lanes
/// of `float32` per instruction instead of SSE's 4. Runs side by side only: argmin along the
/// first axis of 1024 × 1024 `float32` on one thread 470 → 142–159 µs, where along the last
/// axis (one run at a time, bound by memory: 88–90 µs on two threads, numpy's `argmax(axis=1)`
/// 111 µs) it measured 7% slower.
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn position_avx512<T: Elem, const MAX: bool>(
    x: &[T],
    inner: usize,
    lo: usize,
    d: &mut [i64],
) {
    position::<T, MAX>(x, inner, lo, d);
}

/// The arg reduction of one contiguous run, as the fold computes it.
fn run_of<T: Elem, const MAX: bool>(x: &[T]) -> i64 {
    // One pass in 16 lanes (each a `select`, which vectorizes as `max`/`min`, and a NaN test)
    // finds the best value and whether the run holds a NaN. Without NaNs the order of the
    // lanes does not change the best value (two zeros of opposite signs may swap, and compare
    // equal when the index is searched), so the result is the first index holding it, if it
    // beats the extreme.
    const LANES: usize = 16;
    let start = T::extreme(MAX);
    let mut lanes = [start; LANES];
    let mut nan = [false; LANES];
    let chunks = x.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for ((m, n), &v) in lanes.iter_mut().zip(&mut nan).zip(c) {
            #[allow(clippy::eq_op)]
            {
                *n |= v != v;
            }
            *m = if better::<T, MAX>(v, *m) { v } else { *m };
        }
    }
    #[allow(clippy::eq_op)]
    let has_nan = nan.iter().any(|&n| n) || rest.iter().any(|&v| v != v);
    if has_nan {
        // The fold itself: a NaN's neighbours decide.
        let (mut idx, mut val) = (-1i64, start);
        for (k, &s) in x.iter().enumerate() {
            let k = k as i64;
            let b = better::<T, MAX>(val, s);
            if !(b || (val == s && idx < k)) {
                idx = k;
            }
            if !b {
                val = s;
            }
        }
        return idx;
    }
    let best = lanes
        .iter()
        .chain(rest)
        .fold(start, |m, &v| if better::<T, MAX>(v, m) { v } else { m });
    if !better::<T, MAX>(best, start) {
        return -1;
    }
    // The first index holding it: 16 elements tested at a time (without short-circuit, so
    // that the test vectorizes), then the hit's block searched.
    for (b, c) in x.chunks(LANES).enumerate() {
        if c.iter().fold(false, |hit, &v| hit | (v == best)) {
            let at = c.iter().position(|&v| v == best).unwrap_or(0);
            return (b * LANES + at) as i64;
        }
    }
    -1
}
