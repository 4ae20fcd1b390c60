//! Measures what a call with one parallel loop costs beyond its work: `jit::pool::call` on
//! rayon's global pool running `for_each` over two iterations of `--work` µs each (busy
//! waiting), `--gap` µs of busy waiting between calls. Prints the median call, when the
//! iteration that another thread ran started (after the call began), and how many calls ran
//! both iterations on the caller's thread because no other thread came in time.
//!
//! `cargo run --release -p relaxjit-bench --example call_overhead -- [--work US] [--gap US] [--calls N]`

use std::sync::Mutex;
use std::time::{Duration, Instant};

fn busy(us: u64) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_micros(us) {
        std::hint::spin_loop();
    }
}

fn median(v: &[f64]) -> f64 {
    support::timing::Summary::of(v).map_or(f64::NAN, |s| s.median)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |f: &str, d: u64| relaxjit_bench::flag_value(&args, f, d);
    let (work, gap, calls) = (num("--work", 50)?, num("--gap", 0)?, num("--calls", 2000)?);
    let (mut total, mut other_start, mut alone) = (Vec::new(), Vec::new(), 0);
    let here = std::thread::current().id();
    for _ in 0..calls {
        let start = Instant::now();
        let other: Mutex<Option<f64>> = Mutex::new(None);
        jit::pool::call(None, || {
            jit::pool::for_each(2, |_| {
                if std::thread::current().id() != here {
                    *other.lock().unwrap() = Some(start.elapsed().as_secs_f64() * 1e6);
                }
                busy(work)
            })
        });
        total.push(start.elapsed().as_secs_f64() * 1e6);
        match other.into_inner().unwrap() {
            Some(t) => other_start.push(t),
            None => alone += 1,
        }
        busy(gap);
    }
    println!(
        "{} threads, 2 × {work} µs per call, {gap} µs between calls: median call {:.2} µs; \
         the other thread's iteration started at {:.2} µs (median); {alone} of {calls} calls \
         ran alone",
        rayon::current_num_threads(),
        median(&total),
        median(&other_start),
    );
    Ok(())
}
