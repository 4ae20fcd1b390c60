//! How to spread a small or medium f32 GEMM (m ≤ 128, as in a transformer block or a batch-64
//! MLP) over the pool: the gemm crate's own threading against row or column halves on
//! single-threaded GEMMs (fastest of interleaved rounds), with the right operand by rows and by
//! columns (`x @ w.T`, a linear layer's weight as stored), where `blocks` is the split
//! `jit::library`'s `gemm_into` makes of a right operand by columns (blocks of output columns,
//! four per thread). `cargo run --release -p relaxjit-bench --example gemm_split`.

use std::time::Instant;

use rayon::prelude::*;

#[derive(Clone, Copy)]
struct P(*mut f32);
// SAFETY: each task writes a disjoint block of the output.
unsafe impl Send for P {}
// SAFETY: as above.
unsafe impl Sync for P {}

/// `c[m×n] = a[m×k] @ b[k×n]` rows `r0..r1`, columns `c0..c1`; with `tb`, `b` holds the
/// right operand's transpose (`n × k`, row-major).
#[allow(clippy::too_many_arguments)]
fn block(
    a: &[f32],
    b: &[f32],
    c: P,
    m: (usize, usize),
    n: (usize, usize),
    k: usize,
    ld: usize,
    par: gemm::Parallelism,
    tb: bool,
) {
    let (b_at, b_cs, b_rs) = if tb {
        (n.0 * k, k as isize, 1)
    } else {
        (n.0, 1, ld as isize)
    };
    // SAFETY: the block lies inside the matrices.
    unsafe {
        gemm::gemm(
            m.1 - m.0,
            n.1 - n.0,
            k,
            c.0.add(m.0 * ld + n.0),
            1,
            ld as isize,
            false,
            a.as_ptr().add(m.0 * k),
            1,
            k as isize,
            b.as_ptr().add(b_at),
            b_cs,
            b_rs,
            1.0,
            1.0,
            false,
            false,
            false,
            par,
        );
    }
}

/// The fastest per-call time of each variant over interleaved rounds (the machine is shared:
/// the minimum is the least disturbed).
fn fastest(variants: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; variants.len()];
    for _ in 0..40 {
        for (v, b) in variants.iter_mut().zip(&mut best) {
            let t = Instant::now();
            for _ in 0..10 {
                v();
            }
            *b = b.min(t.elapsed().as_secs_f64() / 10.0);
        }
    }
    best
}

fn main() {
    for (m, k, n) in [
        (128, 256, 256),
        (128, 256, 1024),
        (128, 1024, 256),
        (128, 64, 128),
        (64, 784, 512),
        (64, 512, 10),
    ] {
        let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 * 0.1).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 * 0.1).collect();
        let mut c = vec![0f32; m * n];
        let cp = P(c.as_mut_ptr());
        let flop = 2.0 * (m * n * k) as f64;
        for tb in [false, true] {
            let mut rayon_ = || {
                block(
                    &a,
                    &b,
                    cp,
                    (0, m),
                    (0, n),
                    k,
                    n,
                    gemm::Parallelism::Rayon(0),
                    tb,
                )
            };
            let mut one = || {
                block(
                    &a,
                    &b,
                    cp,
                    (0, m),
                    (0, n),
                    k,
                    n,
                    gemm::Parallelism::None,
                    tb,
                )
            };
            let mut rows = || {
                let h = (m / 2).next_multiple_of(8).min(m);
                [(0, h), (h, m)]
                    .into_par_iter()
                    .for_each(|r| block(&a, &b, cp, r, (0, n), k, n, gemm::Parallelism::None, tb))
            };
            let mut cols = || {
                let h = (n / 2).next_multiple_of(16).min(n);
                [(0, h), (h, n)]
                    .into_par_iter()
                    .for_each(|cc| block(&a, &b, cp, (0, m), cc, k, n, gemm::Parallelism::None, tb))
            };
            let mut blocks = || {
                let w = n
                    .div_ceil(4 * rayon::current_num_threads())
                    .next_multiple_of(16);
                (0..n.div_ceil(w)).into_par_iter().for_each(|i| {
                    let cc = (i * w, ((i + 1) * w).min(n));
                    block(&a, &b, cp, (0, m), cc, k, n, gemm::Parallelism::None, tb)
                })
            };
            let t = fastest(&mut [&mut rayon_, &mut one, &mut rows, &mut cols, &mut blocks]);
            let g = |t: f64| format!("{:7.1}us {:6.1}GF", t * 1e6, flop / t * 1e-9);
            println!(
                "{m}x{k}x{n}{}: rayon {} | one {} | rows {} | cols {} | blocks {}",
                if tb { " (b by columns)" } else { "" },
                g(t[0]),
                g(t[1]),
                g(t[2]),
                g(t[3]),
                g(t[4])
            );
        }
    }
}
