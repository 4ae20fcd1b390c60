//! Measures what one parallel region (8 chunks of `--len` floats, a few flops each) costs:
//! serially on the caller; as rayon's `par_chunks_mut` on rayon's global pool started from the
//! caller (outside the pool), and from inside one `scope` per batch of regions; as the
//! kernels' `jit::pool::for_each` inside one `jit::pool::call` (the caller's thread leading,
//! the other workers spinning between regions); and the same on an engine-owned pool
//! (`jit::pool::run` per rayon region, one `install`, one `call` per batch). A batch of
//! `--regions` regions stands for one model call. (Rayon's own parallel loops inside a
//! `call` would start from the caller's thread, outside the pool: each a crossing, as
//! "global, from caller" shows; the kernels use `jit::pool::for_each`.)
//!
//! `cargo run --release -p relaxjit-bench --example regions -- [--regions N] [--reps N] [--len N]`

use std::time::Instant;

use rayon::prelude::*;

fn work(c: &mut [f32]) {
    c.iter_mut().for_each(|x| *x = (*x * 0.999 + 1.0).sqrt());
}

fn region(buf: &mut [f32]) {
    buf.par_chunks_mut(buf.len().div_ceil(8).max(1))
        .for_each(work);
}

/// [`region`] as a kernel runs it: the same chunks through `jit::pool::for_each`.
fn team_region(buf: &mut [f32]) {
    let chunks: Vec<&mut [f32]> = buf.chunks_mut(buf.len().div_ceil(8).max(1)).collect();
    jit::pool::for_each_item(chunks, work);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |f: &str, d: usize| relaxjit_bench::flag_value(&args, f, d);
    let regions = num("--regions", 100)?;
    let reps = num("--reps", 30)?;
    let mut buf = vec![0f32; num("--len", 1024)?];
    let own = std::sync::Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .build()?,
    );
    // Each mode: `regions` regions back to back, as one model call would start them.
    type Mode<'a> = (&'a str, Box<dyn Fn(&mut [f32]) + 'a>);
    let modes: Vec<Mode> = vec![
        (
            "global, from caller",
            Box::new(|b| (0..regions).for_each(|_| region(b))),
        ),
        ("serial", Box::new(|b| (0..regions).for_each(|_| work(b)))),
        (
            "global, one scope",
            // `scope` runs its body on a worker of the global pool.
            Box::new(|b| rayon::scope(|_| (0..regions).for_each(|_| region(b)))),
        ),
        (
            "global, pool::call",
            Box::new(|b| jit::pool::call(None, || (0..regions).for_each(|_| team_region(b)))),
        ),
        (
            "own, pool::run each",
            Box::new(|b| {
                let _g = jit::pool::enter(Some(own.clone()));
                (0..regions).for_each(|_| jit::pool::run(|| region(b)));
            }),
        ),
        (
            "own, one install",
            Box::new(|b| own.install(|| (0..regions).for_each(|_| region(b)))),
        ),
        (
            "own, pool::call",
            Box::new(|b| {
                let _g = jit::pool::enter(Some(own.clone()));
                jit::pool::call(Some(&own), || (0..regions).for_each(|_| team_region(b)))
            }),
        ),
    ];
    println!(
        "{} threads, {regions} regions per batch, median of {reps} batches",
        rayon::current_num_threads()
    );
    for (name, f) in &modes {
        let mut times = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            f(&mut buf);
            times.push(t.elapsed().as_secs_f64() * 1e6 / regions as f64);
        }
        println!("{name:22} {:8.2} us/region", median(times));
    }
    Ok(())
}
