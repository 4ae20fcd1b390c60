//! `relaxjit.matmul*`: numpy's matmul (2-D, batched, broadcast batch, matrix-vector) on the
//! GEMM micro-kernels. A right operand without batch folds the left operand's batch into its
//! rows (one large GEMM); otherwise each batch entry is one GEMM, the entries spread over the
//! pool when each is small.

use vm::{Error, Result};

use super::{Float, Mat, SendPtr, View, gemm_into, parallelism};

/// Blocks of output columns per pool thread in a split matrix-vector product (more than one,
/// so that a thread slowed by other work hands the rest to the others; not more, so that a
/// block of the MLP's 512 columns stays 128 wide, the width [`gemv_rows_avx512`] holds in
/// registers: 64-wide blocks took the MLP at batch 1 back from 9.6 to 20 µs).
const GEMV_BLOCKS_PER_THREAD: usize = 2;

/// Whether a matrix-vector product with a `k × n` weight is split over the pool. Split, each
/// core streams its part of the weight from its own L2, call after call (the call's thread
/// takes the front blocks and the spinner the back, [`crate::pool::for_each`]): the MLP's
/// 784 × 512 layer at batch 1 went from 17 µs on one thread (the whole weight, 1.6 MB, from
/// L3) to 7 µs on two, the model from 19.0 to 9.6 µs (`rows --calls 30000 mlp_b1`, alternated).
fn split_gemv<T>(k: usize, n: usize) -> bool {
    const MIN_WEIGHT_BYTES: usize = 1 << 20;
    crate::pool::threads() > 1
        && n >= 32
        && k.saturating_mul(n).saturating_mul(std::mem::size_of::<T>()) >= MIN_WEIGHT_BYTES
}

/// `out (+)= a @ b` (`b` holding the transpose of the right operand when `trans_b`); with
/// `read_dst`, `out` already holds the addends.
pub(super) fn matmul<T: Float>(
    a: &View<T>,
    b: &View<T>,
    trans_b: bool,
    out: &mut [T],
    out_shape: &[usize],
    read_dst: bool,
) -> Result<()> {
    let bad = |what: String| Err(Error::value_error(what));
    if a.shape.is_empty() || b.shape.is_empty() {
        return bad("matmul of a 0-d tensor".into());
    }
    // Left operand: (batch…, m, k); a vector is one row, dropped from the output.
    let (a_batch, m, k) = match a.shape[..] {
        [k] => (&[][..], 1, k),
        ref s => (&s[..s.len() - 2], s[s.len() - 2], s[s.len() - 1]),
    };
    // Right operand: (batch…, k, n) or, transposed, (n, k); a vector is one column.
    let (b_batch, kb, n, b_rs, b_cs) = if trans_b {
        let [n, kb] = b.shape[..] else {
            return bad(format!(
                "the transposed right operand has shape {:?}; it must be 2-D",
                b.shape
            ));
        };
        (&[][..], kb, n, 1isize, kb as isize)
    } else {
        match b.shape[..] {
            [kb] => (&[][..], kb, 1, 1isize, 1isize),
            ref s => {
                let n = s[s.len() - 1];
                (&s[..s.len() - 2], s[s.len() - 2], n, n as isize, 1isize)
            }
        }
    };
    if k != kb {
        return bad(format!(
            "the reduction lengths differ: left {:?}, right {:?}{}",
            a.shape,
            b.shape,
            if trans_b { " (transposed)" } else { "" }
        ));
    }
    let nd = a_batch.len().max(b_batch.len());
    let dim = |s: &[usize], d: usize| (d + s.len()).checked_sub(nd).map_or(1, |i| s[i]);
    let mut batch = Vec::with_capacity(nd);
    for d in 0..nd {
        let (x, y) = (dim(a_batch, d), dim(b_batch, d));
        if x != y && x != 1 && y != 1 {
            return bad(format!(
                "batch dimensions do not broadcast: {:?} and {:?}",
                a.shape, b.shape
            ));
        }
        // Broadcasting: a 1 takes the other extent (0 included).
        batch.push(if x == 1 { y } else { x });
    }
    let mut want = batch.clone();
    if a.shape.len() > 1 {
        want.push(m);
    }
    if trans_b || b.shape.len() > 1 {
        want.push(n);
    }
    if want != out_shape {
        return bad(format!(
            "output shape {out_shape:?}, expected {want:?} for {:?} @ {:?}",
            a.shape, b.shape
        ));
    }
    if out.is_empty() {
        return Ok(());
    }
    if k == 0 {
        if !read_dst {
            out.fill(T::ZERO);
        }
        return Ok(());
    }
    let batches: usize = batch.iter().product();
    let b_plain = b_batch.iter().product::<usize>() == 1;
    if b_plain && a_batch.iter().product::<usize>() == batches {
        // One GEMM with the batch folded into the rows.
        let rows = batches * m;
        if rows == 1 && (split_gemv::<T>(k, n) || b_cs == 1) {
            // A batch-1 layer streams the whole weight once and is bound by memory bandwidth.
            // Large weights are cut into blocks of output columns (and the weight behind them)
            // spread over the pool; each block runs [`gemv_block`].
            let threads = crate::pool::threads();
            let chunk = if split_gemv::<T>(k, n) {
                n.div_ceil(threads * GEMV_BLOCKS_PER_THREAD)
                    .next_multiple_of(16)
            } else {
                n
            };
            let dst = SendPtr(out.as_mut_ptr());
            let b_ptr = SendPtr(b.data.as_ptr().cast_mut());
            let block = |c: usize| {
                let j0 = c * chunk;
                let width = chunk.min(n - j0);
                // SAFETY: block `c` reads all of `a` (`k` elements) and the columns
                // `j0..j0 + width` of `b` (in range: `j0 + width <= n`, column `j` starting at
                // `j * b_cs`), and writes `out[j0..j0 + width]`, which no other block writes.
                unsafe {
                    gemv_block(
                        &a.data[..k],
                        b_ptr.get().add(j0 * b_cs as usize).cast_const(),
                        b_rs,
                        b_cs,
                        width,
                        dst.get().add(j0),
                        read_dst,
                    )
                }
            };
            let blocks = n.div_ceil(chunk);
            if blocks > 1 {
                crate::pool::for_each(blocks, block);
            } else {
                block(0);
            }
            return Ok(());
        }
        if let Some(blocks) = Blocks::of(rows, n, k) {
            let dst = SendPtr(out.as_mut_ptr());
            let (a_ptr, b_ptr) = (a.data.as_ptr(), b.data.as_ptr());
            let (a_ptr, b_ptr) = (SendPtr(a_ptr.cast_mut()), SendPtr(b_ptr.cast_mut()));
            crate::pool::for_each(blocks.count, |c| {
                let ((i0, h), (j0, w)) = blocks.block(c, rows, n);
                // SAFETY: block `c` is rows `i0..i0 + h` and columns `j0..j0 + w` of the
                // output (inside it: `Blocks::block` keeps them below `rows` and `n`), which
                // no other block writes; it reads those rows of `a` (`k` elements each) and
                // those columns of `b` (`k` rows through its strides), inside the operands.
                unsafe {
                    gemm_into(
                        h,
                        w,
                        k,
                        dst.get().add(i0 * n + j0),
                        n as isize,
                        read_dst,
                        Mat {
                            ptr: a_ptr.get().cast_const().add(i0 * k),
                            rs: k as isize,
                            cs: 1,
                        },
                        Mat {
                            ptr: b_ptr.get().cast_const().offset(j0 as isize * b_cs),
                            rs: b_rs,
                            cs: b_cs,
                        },
                        gemm::Parallelism::None,
                    );
                }
            });
            return Ok(());
        }
        // SAFETY: `a` holds `rows × k` row-major elements, `b` `k × n` through the strides
        // computed from its shape, `out` `rows × n`; the output is a distinct `&mut` slice.
        unsafe {
            gemm_into(
                rows,
                n,
                k,
                out.as_mut_ptr(),
                n as isize,
                read_dst,
                Mat {
                    ptr: a.data.as_ptr(),
                    rs: k as isize,
                    cs: 1,
                },
                Mat {
                    ptr: b.data.as_ptr(),
                    rs: b_rs,
                    cs: b_cs,
                },
                parallelism(rows, n, k),
            );
        }
        return Ok(());
    }
    // The offset of batch entry `i` in an operand of batch shape `s`: its broadcast strides.
    let offsets = |s: &[usize], matrix: usize| -> Vec<usize> {
        let mut strides = vec![0usize; nd];
        let mut acc = matrix;
        for d in (0..nd).rev() {
            let x = dim(s, d);
            strides[d] = if x == 1 { 0 } else { acc };
            acc *= x;
        }
        (0..batches)
            .map(|i| {
                let (mut rem, mut off) = (i, 0);
                for d in (0..nd).rev() {
                    off += (rem % batch[d]) * strides[d];
                    rem /= batch[d];
                }
                off
            })
            .collect()
    };
    let a_off = offsets(a_batch, m * k);
    let b_off = offsets(b_batch, k * n);
    let per = m * n;
    let dst = SendPtr(out.as_mut_ptr());
    let one = |i: usize, par| {
        // SAFETY: entry `i` reads `m × k` elements of `a` and `k × n` of `b` at offsets inside
        // them (broadcast strides of in-range batch indices) and writes the `m × n` block `i` of
        // `out`, which no other entry writes.
        unsafe {
            gemm_into(
                m,
                n,
                k,
                dst.get().add(i * per),
                n as isize,
                read_dst,
                Mat {
                    ptr: a.data.as_ptr().add(a_off[i]),
                    rs: k as isize,
                    cs: 1,
                },
                Mat {
                    ptr: b.data.as_ptr().add(b_off[i]),
                    rs: b_rs,
                    cs: b_cs,
                },
                par,
            );
        }
    };
    run_batches(batches, m, n, k, one);
    Ok(())
}

/// `out[j] (+)= Σ_k a[k] · b[k·b_rs + j·b_cs]` for `j < width`: one block of a
/// matrix-vector product. A row-major f32 weight (`b_cs == 1`) on AVX-512 runs
/// [`gemv_rows_avx512`]; anything else goes through the GEMM crate on this thread.
///
/// # Safety
/// `b` must be valid for every `k·b_rs + j·b_cs` (`k < a.len()`, `j < width`), `out` for
/// `width` elements that nothing else accesses during the call and that overlap neither
/// operand.
unsafe fn gemv_block<T: Float>(
    a: &[T],
    b: *const T,
    b_rs: isize,
    b_cs: isize,
    width: usize,
    out: *mut T,
    read_dst: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if b_cs == 1
        && std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>()
        && std::arch::is_x86_feature_detected!("avx512f")
    {
        // SAFETY: T is f32 (checked just above), so the pointers and the slice are of f32;
        // the CPU has AVX-512F; the bounds are the caller's contract with `b_cs == 1`.
        unsafe {
            let a = std::slice::from_raw_parts(a.as_ptr().cast::<f32>(), a.len());
            gemv_rows_avx512(a, b.cast(), b_rs, width, out.cast(), read_dst);
        }
        return;
    }
    // SAFETY: the caller's contract is `gemm_into`'s for a 1 × width product.
    unsafe {
        gemm_into(
            1,
            width,
            a.len(),
            out,
            width as isize,
            read_dst,
            Mat {
                ptr: a.as_ptr(),
                rs: a.len() as isize,
                cs: 1,
            },
            Mat {
                ptr: b,
                rs: b_rs,
                cs: b_cs,
            },
            gemm::Parallelism::None,
        );
    }
}

/// [`gemv_block`] for a row-major f32 weight: blocks of 128 output columns held in eight
/// registers while the rows of the weight stream past (each weight element is loaded once,
/// 64 bytes at a time), the last columns 16 at a time under a mask. The reduction runs in
/// order of `k` for every column.
///
/// # Safety
/// The CPU must have AVX-512F; `b` valid for `k·rs + j` (`k < a.len()`, `j < width`), `out`
/// for `width` elements as in [`gemv_block`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn gemv_rows_avx512(
    a: &[f32],
    b: *const f32,
    rs: isize,
    width: usize,
    out: *mut f32,
    read_dst: bool,
) {
    use std::arch::x86_64::*;
    const REGS: usize = 8;
    let mut j = 0;
    // SAFETY: for all the loads and stores below, columns `j..j + 16·REGS` (or the masked lanes
    // `j..width`) of rows `0..a.len()` are inside `b`, and `out[j..]` inside `out`, by the
    // caller's contract. The row pointer steps with wrapping arithmetic: after the last row it
    // points past `b` (by up to a row), and is not read.
    unsafe {
        while j + 16 * REGS <= width {
            let mut acc = [_mm512_setzero_ps(); REGS];
            if read_dst {
                for (t, r) in acc.iter_mut().enumerate() {
                    *r = _mm512_loadu_ps(out.add(j + 16 * t));
                }
            }
            let mut p = b.add(j);
            for &x in a {
                let x = _mm512_set1_ps(x);
                for (t, r) in acc.iter_mut().enumerate() {
                    *r = _mm512_fmadd_ps(x, _mm512_loadu_ps(p.add(16 * t)), *r);
                }
                p = p.wrapping_offset(rs);
            }
            for (t, r) in acc.iter().enumerate() {
                _mm512_storeu_ps(out.add(j + 16 * t), *r);
            }
            j += 16 * REGS;
        }
        while j < width {
            let lanes = (width - j).min(16);
            let mask: __mmask16 = super::first_lanes(lanes);
            let mut acc = if read_dst {
                _mm512_maskz_loadu_ps(mask, out.add(j))
            } else {
                _mm512_setzero_ps()
            };
            let mut p = b.add(j);
            for &x in a {
                acc = _mm512_fmadd_ps(_mm512_set1_ps(x), _mm512_maskz_loadu_ps(mask, p), acc);
                p = p.wrapping_offset(rs);
            }
            _mm512_mask_storeu_ps(out.add(j), mask, acc);
            j += 16;
        }
    }
}

/// Runs `one(i, par)` for the `batches` GEMMs of `m×k @ k×n`: spread over the pool one whole
/// GEMM per task when there are enough of them to keep every thread busy or each is too small
/// to split (an attention head's 128×64 @ 64×128 took 19 µs on one thread and 33 µs split
/// over two by the GEMM crate: `cargo run --release -p relaxjit-bench --example gemm_split`);
/// otherwise one after another, each split by [`parallelism`].
fn run_batches(
    batches: usize,
    m: usize,
    n: usize,
    k: usize,
    one: impl Fn(usize, gemm::Parallelism) + Sync,
) {
    let threads = crate::pool::threads();
    let par = parallelism(m, n, k);
    if threads > 1
        && batches > 1
        && (batches >= 2 * threads || matches!(par, gemm::Parallelism::None))
    {
        crate::pool::for_each(batches, |i| one(i, gemm::Parallelism::None));
    } else {
        (0..batches).for_each(|i| one(i, par));
    }
}

/// How one GEMM of `rows × n` (inner dimension `k`) is cut into blocks that the pool's threads
/// multiply on their own (each a GEMM without parallelism of its own): `count` blocks of
/// whole 16-column strips of the output, or of 8-row strips when the output has too few
/// columns for that. Measured against the GEMM crate's own parallel split (two threads,
/// alternated call by call, `rows --calls 1000 mlp_b64`, minima): the 784 → 512 layer of a
/// batch of 64 (64 × 784 @ 784 × 512) 14–18% faster, its medians 4–23%; the 1024³ matmul and
/// the transformer block within the noise (0.95–1.1), their medians 3–17% faster: a thread
/// held up by another process delays only its own blocks.
struct Blocks {
    count: usize,
    /// Split the columns (else the rows).
    columns: bool,
}

/// Blocks per thread of [`Blocks`].
const BLOCKS_PER_THREAD: usize = 2;

impl Blocks {
    /// The blocks of a GEMM that [`parallelism`] would split, `None` for one it would not
    /// (or on one thread).
    fn of(rows: usize, n: usize, k: usize) -> Option<Blocks> {
        let threads = crate::pool::threads();
        if threads < 2 || matches!(parallelism(rows, n, k), gemm::Parallelism::None) {
            return None;
        }
        let count = BLOCKS_PER_THREAD * threads;
        if n >= 16 * count {
            Some(Blocks {
                count,
                columns: true,
            })
        } else if rows >= 8 * count {
            Some(Blocks {
                count,
                columns: false,
            })
        } else {
            None
        }
    }

    /// Block `c`'s rows and columns: `((first row, rows), (first column, columns))`, each
    /// strip a whole number of units (16 columns, 8 rows) but the last, which ends the
    /// output; a strip past the end is empty.
    fn block(&self, c: usize, rows: usize, n: usize) -> ((usize, usize), (usize, usize)) {
        let strip = |len: usize, unit: usize| {
            let (start, end) = super::even_part(c, self.count, len, unit);
            (start, end - start)
        };
        if self.columns {
            ((0, rows), strip(n, 16))
        } else {
            (strip(rows, 8), (0, n))
        }
    }
}

/// `relaxjit.matmul_view`: `out[i] = scale · (a[i] @ b[i])` for `i < batch`, every operand a
/// strided view (`ints`: batch, m, n, k, then the (batch, row, column) strides of `a`, `b` and
/// `out`). Each view is checked to stay inside its tensor, and the output view to be a
/// permutation of the output's dense layout (so every element is written exactly once and
/// parallel entries never write the same element).
pub(super) fn matmul_view<T: Float>(
    a: &View<T>,
    b: &View<T>,
    ints: &[i64],
    scale: f64,
    out: &mut [T],
) -> Result<()> {
    let bad = |what: String| Err(Error::value_error(what));
    let Ok(v) = ints
        .iter()
        .map(|&i| usize::try_from(i))
        .collect::<std::result::Result<Vec<usize>, _>>()
    else {
        return bad(format!("negative extent or stride in the view {ints:?}"));
    };
    let [
        batch,
        m,
        n,
        k,
        a_sb,
        a_rs,
        a_cs,
        b_sb,
        b_rs,
        b_cs,
        o_sb,
        o_rs,
        o_cs,
    ] = v[..]
    else {
        return bad(format!("the view takes 13 integers, got {}", ints.len()));
    };
    // One past the furthest element a view reaches (0 when it holds none).
    let reach = |ext: [usize; 3], st: [usize; 3]| -> Option<usize> {
        if ext.contains(&0) {
            return Some(0);
        }
        ext.iter().zip(st).try_fold(1usize, |acc, (&e, s)| {
            acc.checked_add((e - 1).checked_mul(s)?)
        })
    };
    for (what, ext, st, len) in [
        ("left", [batch, m, k], [a_sb, a_rs, a_cs], a.data.len()),
        ("right", [batch, k, n], [b_sb, b_rs, b_cs], b.data.len()),
    ] {
        if reach(ext, st).is_none_or(|r| r > len) {
            return bad(format!(
                "the {what} operand's view (extents {ext:?}, strides {st:?}) reaches past its {len} elements"
            ));
        }
    }
    // An empty product has nothing to write (its strides need not describe a layout).
    if batch == 0 || m == 0 || n == 0 {
        return if out.is_empty() {
            Ok(())
        } else {
            bad(format!(
                "the output holds {} elements, the product none",
                out.len()
            ))
        };
    }
    let mut dims: Vec<(usize, usize)> = [(o_sb, batch), (o_rs, m), (o_cs, n)]
        .into_iter()
        .filter(|&(_, e)| e != 1)
        .collect();
    dims.sort_unstable();
    let mut dense = 1usize;
    for &(stride, ext) in &dims {
        if stride != dense {
            return bad(format!(
                "the output view (extents {:?}, strides {:?}) is not a permutation of a dense layout",
                [batch, m, n],
                [o_sb, o_rs, o_cs]
            ));
        }
        dense = dense.saturating_mul(ext);
    }
    if dense != out.len() {
        return bad(format!(
            "the output view covers {dense} elements, the output holds {}",
            out.len()
        ));
    }
    if out.is_empty() {
        return Ok(());
    }
    if k == 0 {
        out.fill(T::ZERO);
        return Ok(());
    }
    let scale = T::from_f64(scale);
    let dst = SendPtr(out.as_mut_ptr());
    let one = |i: usize, par| {
        // SAFETY: entry `i`'s elements of `a` and `b` lie inside them (`reach` above, `i <
        // batch`), and its output elements are those of a permutation of `out`'s dense layout
        // with batch index `i`, which no other entry writes; `out` aliases no input.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                dst.get().add(i * o_sb),
                o_cs as isize,
                o_rs as isize,
                false,
                a.data.as_ptr().add(i * a_sb),
                a_cs as isize,
                a_rs as isize,
                b.data.as_ptr().add(i * b_sb),
                b_cs as isize,
                b_rs as isize,
                T::ZERO,
                scale,
                false,
                false,
                false,
                par,
            );
        }
    };
    run_batches(batch, m, n, k, one);
    Ok(())
}
