//! `relaxjit.softmax` and `relaxjit.layer_norm` over the last axis: one row per iteration,
//! rows spread over the pool, each row's reductions in eight interleaved lanes so that they
//! vectorize (compiled for AVX-512 when the CPU has it). The arithmetic is the TIR
//! lowering's: softmax as `exp(x - max) / sum`, layer norm as `(x - mean) · rsqrt(var + eps)
//! · gamma + beta` with the variance from the centered squares; only the summation order
//! (and, for `float32`, the vectorizable `exp`) differ.

use vm::{Error, Result};

use super::{Float, View, for_each_chunk};

/// Rows are spread over the pool once there are this many elements.
const PARALLEL_ELEMENTS: usize = 1 << 14;

/// Lanes of the row reductions.
const LANES: usize = 8;

/// The last-axis length of `x`, checking that `out` has `x`'s shape.
fn row_len<T: Float>(x: &View<T>, out_shape: &[usize]) -> Result<usize> {
    if out_shape != x.shape {
        return Err(Error::value_error(format!(
            "output shape {out_shape:?}, expected the input's {:?}",
            x.shape
        )));
    }
    x.shape
        .last()
        .copied()
        .ok_or_else(|| Error::value_error("input is 0-d; expected at least one axis"))
}

/// Runs `row(input_row, output_row)` over every row of length `len`.
fn for_rows<T: Float>(x: &[T], out: &mut [T], len: usize, row: impl Fn(&[T], &mut [T]) + Sync) {
    if out.is_empty() || len == 0 {
        return;
    }
    // The same loop compiled for AVX-512 when the CPU has it.
    let run = |xs: &[T], o: &mut [T]| {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            unsafe { rows_avx512(xs, o, len, &row) };
            return;
        }
        rows(xs, o, len, &row);
    };
    if out.len() >= PARALLEL_ELEMENTS && out.len() > len {
        let per_task = (PARALLEL_ELEMENTS / 4 / len).max(1) * len;
        for_each_chunk(out, per_task, Some(1), |i, o| {
            run(&x[i * per_task..][..o.len()], o)
        });
    } else {
        run(x, out);
    }
}

#[inline(always)]
fn rows<T: Float>(x: &[T], out: &mut [T], len: usize, row: &impl Fn(&[T], &mut [T])) {
    for (xs, o) in x.chunks_exact(len).zip(out.chunks_exact_mut(len)) {
        row(xs, o);
    }
}

/// [`rows`] compiled for AVX-512.
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn rows_avx512<T: Float>(x: &[T], out: &mut [T], len: usize, row: &impl Fn(&[T], &mut [T])) {
    rows(x, out, len, row);
}

/// `f` folded over `xs` in [`LANES`] interleaved accumulators, which `combine` then folds.
#[inline(always)]
fn fold<T: Float>(xs: &[T], init: T, f: impl Fn(T, T) -> T, combine: impl Fn(T, T) -> T) -> T {
    let mut acc = [init; LANES];
    let chunks = xs.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for l in 0..LANES {
            acc[l] = f(acc[l], c[l]);
        }
    }
    for (l, &v) in tail.iter().enumerate() {
        acc[l] = f(acc[l], v);
    }
    acc.into_iter().fold(init, combine)
}

#[inline(always)]
fn add<T: Float>(a: T, b: T) -> T {
    a + b
}

#[inline(always)]
fn max<T: Float>(a: T, b: T) -> T {
    if b > a { b } else { a }
}

/// Softmax over the last axis of `x`.
pub(super) fn softmax<T: Float>(x: &View<T>, out: &mut [T], out_shape: &[usize]) -> Result<()> {
    let len = row_len(x, out_shape)?;
    for_rows(
        x.data,
        out,
        len,
        #[inline(always)]
        |xs, o| {
            let m = fold(xs, T::LOWEST, max, max);
            o.iter_mut()
                .zip(xs)
                .for_each(|(o, &v)| *o = m.sub(v).exp_neg());
            let s = fold(o, T::ZERO, add, add);
            o.iter_mut().for_each(|o| *o = o.div(s));
        },
    );
    Ok(())
}

/// Layer normalization over the last axis of `x`, with 1-D `gamma` and `beta` of its length.
pub(super) fn layer_norm<T: Float>(
    x: &View<T>,
    gamma: &View<T>,
    beta: &View<T>,
    eps: f64,
    out: &mut [T],
    out_shape: &[usize],
) -> Result<()> {
    let len = row_len(x, out_shape)?;
    for (name, v) in [("gamma", gamma), ("beta", beta)] {
        if v.shape != [len] {
            return Err(Error::value_error(format!(
                "{name} has shape {:?}, expected [{len}]",
                v.shape
            )));
        }
    }
    let n = T::from_i64(len as i64);
    let eps = T::from_f64(eps);
    let (g, b) = (gamma.data, beta.data);
    for_rows(
        x.data,
        out,
        len,
        #[inline(always)]
        |xs, o| {
            let mean = fold(xs, T::ZERO, add, add).div(n);
            // The centered values, kept in the output for the variance and the result.
            o.iter_mut().zip(xs).for_each(|(o, &v)| *o = v.sub(mean));
            let var = fold(o, T::ZERO, |a, d| a + d.mul(d), add).div(n);
            let rs = (var + eps).rsqrt();
            for ((o, &g), &b) in o.iter_mut().zip(g).zip(b) {
                *o = o.mul(rs).mul(g) + b;
            }
        },
    );
    Ok(())
}
