//! How to spread a small or medium f32 GEMM (m ≤ 128, as in a transformer block or a batch-64
//! MLP) over the pool: the gemm crate's own threading against row or column halves on
//! single-threaded GEMMs. `cargo run --release -p relaxjit-bench --example gemm_split`.

use std::time::Instant;

use rayon::prelude::*;

#[derive(Clone, Copy)]
struct P(*mut f32);
// SAFETY: each task writes a disjoint block of the output.
unsafe impl Send for P {}
// SAFETY: as above.
unsafe impl Sync for P {}

/// `c[m×n] = a[m×k] @ b[k×n]` rows `r0..r1`, columns `c0..c1`.
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
) {
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
            b.as_ptr().add(n.0),
            1,
            ld as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            par,
        );
    }
}

fn median(mut f: impl FnMut()) -> f64 {
    for _ in 0..20 {
        f();
    }
    let mut v: Vec<f64> = (0..15)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..20 {
                f();
            }
            t.elapsed().as_secs_f64() / 20.0
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
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
        let t_rayon = median(|| {
            block(
                &a,
                &b,
                cp,
                (0, m),
                (0, n),
                k,
                n,
                gemm::Parallelism::Rayon(0),
            )
        });
        let t_one = median(|| block(&a, &b, cp, (0, m), (0, n), k, n, gemm::Parallelism::None));
        let t_rows = median(|| {
            let h = (m / 2).next_multiple_of(8).min(m);
            [(0, h), (h, m)]
                .into_par_iter()
                .for_each(|r| block(&a, &b, cp, r, (0, n), k, n, gemm::Parallelism::None))
        });
        let t_cols = median(|| {
            let h = (n / 2).next_multiple_of(16).min(n);
            [(0, h), (h, n)]
                .into_par_iter()
                .for_each(|cc| block(&a, &b, cp, (0, m), cc, k, n, gemm::Parallelism::None))
        });
        let g = |t: f64| format!("{:7.1}us {:6.1}GF", t * 1e6, flop / t * 1e-9);
        println!(
            "{m}x{k}x{n}: rayon {} | one {} | rows {} | cols {}",
            g(t_rayon),
            g(t_one),
            g(t_rows),
            g(t_cols)
        );
    }
}
