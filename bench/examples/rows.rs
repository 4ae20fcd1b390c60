//! Prints one line per row of the performance table (median and min of N calls through
//! `Engine`, library kernels on; `--tir` adds the TIR path), and with `--profile` where each
//! row's time goes, per callee, from the VM's instrument hook. Run `bench/peers.py` right after
//! for onnxruntime and numpy on the same workloads.
//!
//! `cargo run --release -p relaxjit-bench --example rows -- [--tir] [--profile] [--sequence] [--calls N] [ROW…]`
//!
//! Rows are `workloads::ROWS` (the ONNX AlexNet included); `resnet50` runs only when named; `ROWS_TOP=N` prints N callees of
//! each profile (8 by default); `--sequence` prints every callee call of one model call in
//! order, the fastest and the median of the N calls, with its tensor arguments' shapes
//! (`bench/ort_profile.py` prints onnxruntime's per-node medians for the same model), then
//! the fastest and median model call and the fastest and median sum of one call's callees:
//! their difference is the time spent outside the callees (the VM, allocation, wake-ups). The
//! sum of the callees' medians is lower than a typical call's callees take: on a noisy
//! machine each callee's slow calls fall in different model calls.
//!
//! `--background N` runs N busy threads at the lowest priority (`nice` 19) beside the
//! measurement, as other work on a shared machine would: a runtime whose threads give up
//! their cores inside a call (sleep, or `sched_yield`) loses a time slice of the background
//! work each time, one that keeps them (as onnxruntime's pool and `jit::pool` do) does not.
//! Linux only.

use relaxjit::Config;
use relaxjit_bench::workloads;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |f: &str| args.iter().any(|a| a == f);
    let calls: usize = args
        .iter()
        .position(|a| a == "--calls")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(30);
    let only: Vec<&String> = args
        .iter()
        .filter(|a| !a.starts_with("--") && a.parse::<usize>().is_err())
        .collect();
    let background: usize = args
        .iter()
        .position(|a| a == "--background")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(0);
    let _background = Background::start(background)?;
    let mut configs = vec![("library", Config::default())];
    if flag("--tir") {
        configs.push((
            "tir",
            Config {
                library: false,
                ..Config::default()
            },
        ));
    }
    println!(
        "{:12} {:8} {:>11} {:>11} {:>9} {:>10}",
        "row", "path", "median", "min", "GFLOP/s", "compile"
    );
    // ResNet-50 is not in the default list (it compiles and runs for seconds); name it to run it.
    let names: Vec<&str> = if only.is_empty() {
        workloads::ROWS
            .iter()
            .copied()
            .filter(|r| *r != "resnet50")
            .collect()
    } else {
        only.iter().map(|s| s.as_str()).collect()
    };
    for name in names {
        let entry = match workloads::row(name)? {
            workloads::Row::Ready(e) => e,
            workloads::Row::Skipped(why) => {
                println!("{name:12} skipped: {why}");
                continue;
            }
        };
        let w = &entry.workload;
        for (label, config) in &configs {
            let t = std::time::Instant::now();
            let compiled = entry.compile(config)?;
            let compile = t.elapsed();
            let n = if *label == "tir" { calls.min(5) } else { calls };
            let times = workloads::time_calls(&compiled, w, n)?;
            let med = times[times.len() / 2];
            let gflops = if w.flops > 0.0 {
                format!("{:9.1}", w.flops / med.as_secs_f64() / 1e9)
            } else {
                String::new()
            };
            println!(
                "{:12} {:8} {:9.1}us {:9.1}us {:>9} {:8.1}ms",
                w.name,
                label,
                med.as_secs_f64() * 1e6,
                times[0].as_secs_f64() * 1e6,
                gflops,
                compile.as_secs_f64() * 1e3
            );
            if flag("--sequence") {
                let seq = workloads::profile_sequence(&compiled, w, n)?;
                let us = |t: &std::time::Duration| t.as_secs_f64() * 1e6;
                let (mut min_sum, mut median_sum) = (0.0, 0.0);
                println!("    call       min    median  callee [tensor shapes]");
                for (i, (name, shapes, times)) in seq.callees.iter().enumerate() {
                    let (min, median) = (us(&times[0]), us(&times[times.len() / 2]));
                    (min_sum, median_sum) = (min_sum + min, median_sum + median);
                    println!("    {i:4} {min:7.1}us {median:7.1}us  {name} {shapes:?}");
                }
                println!("    sum  {min_sum:7.0}us {median_sum:7.0}us");
                let (calls, sums) = (&seq.calls, &seq.callee_sums);
                println!(
                    "    per call: whole {:7.0}us {:7.0}us, its callees {:7.0}us {:7.0}us",
                    us(&calls[0]),
                    us(&calls[calls.len() / 2]),
                    us(&sums[0]),
                    us(&sums[sums.len() / 2])
                );
            }
            if flag("--profile") {
                let prof = workloads::profile(&compiled, w, n)?;
                let total: f64 = prof.iter().map(|p| p.1.as_secs_f64()).sum();
                for (name, t, count) in prof.iter().take(
                    std::env::var("ROWS_TOP")
                        .ok()
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(8),
                ) {
                    println!(
                        "    {:>5.1}% {:9.1}us/call {:6} calls  {name}",
                        100.0 * t.as_secs_f64() / total.max(1e-12),
                        t.as_secs_f64() * 1e6 / n as f64,
                        count
                    );
                }
            }
        }
    }
    Ok(())
}

/// Busy threads at the lowest priority, stopped and joined when dropped.
struct Background {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Background {
    fn start(n: usize) -> anyhow::Result<Background> {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        if n > 0 && !cfg!(target_os = "linux") {
            anyhow::bail!("--background: lowering a thread's priority is done for Linux only");
        }
        let threads = (0..n)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    #[cfg(target_os = "linux")]
                    // SAFETY: plain system calls on this thread's own id.
                    unsafe {
                        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                        libc::setpriority(libc::PRIO_PROCESS, tid, 19);
                    }
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::black_box(0u64);
                    }
                })
            })
            .collect();
        Ok(Background { stop, threads })
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
