//! Model-level benchmarks, one group per row of the performance table (issue 10,
//! `workloads::ROWS`): MLP 784-512-10 at batch 1 and 64, matmul 1024³, a transformer block (seq
//! 128, hidden 256, 4 heads, FFN 1024), conv 3×3 64→64 + bias + relu + max-pool on
//! 1×64×56×56, SqueezeNet 1.0 and ResNet-50 from `tests/models`, AlexNet (its `model.onnx`
//! through the ONNX frontend); the suite's last row, the dispatch chain, is
//! `benches/dispatch.rs`. Each runs through `Engine` in every exec mode the engine accepts (a
//! mode it rejects as unsupported is skipped with a message), with the default configuration
//! otherwise (`library`: matmul and conv2d on the native library kernels);
//! `RELAXJIT_BENCH_TIR=1` also measures the TIR path (`library: false`), which is slow for the
//! large rows. Rows that count flops set criterion's throughput, so `elem/s` reads as FLOP/s.
//!
//! `cargo xtask bench` runs the same rows as one table beside onnxruntime and numpy.
//!
//! `cargo bench -p relaxjit-bench --bench models [-- FILTER]`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use relaxjit::Config;
use relaxjit_bench::workloads::{self, Entry, Row};

fn measure(c: &mut Criterion, entry: &Entry) {
    let w = &entry.workload;
    let mut configs = Vec::new();
    for (mode, exec_mode) in workloads::EXEC_MODES {
        configs.push((
            mode.to_string(),
            Config {
                exec_mode,
                ..Config::default()
            },
        ));
        if std::env::var_os("RELAXJIT_BENCH_TIR").is_some() {
            configs.push((
                format!("{mode}_tir"),
                Config {
                    exec_mode,
                    library: false,
                    ..Config::default()
                },
            ));
        }
    }
    let mut group = c.benchmark_group(w.name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    if w.flops > 0.0 {
        group.throughput(Throughput::Elements(w.flops as u64));
    }
    for (label, config) in configs {
        let compiled = match entry.compile(&config) {
            Ok(c) => c,
            Err(relaxjit::Error::Unsupported(why)) => {
                eprintln!("{}/{label}: skipped: {why}", w.name);
                continue;
            }
            Err(e) => panic!("{}/{label}: {e}", w.name),
        };
        let vm = compiled.vm().expect("the module links");
        group.bench_function(label, |b| {
            b.iter(|| {
                black_box(
                    compiled
                        .invoke(&vm, &w.func, black_box(&w.args))
                        .expect("the call runs"),
                )
            })
        });
    }
    group.finish();
}

/// Whether criterion's name filter (the first free argument, a substring of the benchmark id)
/// could select a benchmark of row `name`: rows it cannot are not even compiled (ResNet-50
/// compiles for tens of seconds).
fn wanted(name: &str) -> bool {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_default();
    filter.is_empty() || name.contains(&filter) || filter.starts_with(&format!("{name}/"))
}

fn models(c: &mut Criterion) {
    // The dispatch chain has its own benchmark (`benches/dispatch.rs`).
    for name in workloads::ROWS
        .iter()
        .filter(|r| **r != "add_chain" && wanted(r))
    {
        match workloads::row(name).unwrap_or_else(|e| panic!("{name}: {e:#}")) {
            Row::Ready(w) => measure(c, &w),
            Row::Skipped(why) => eprintln!("{name}: skipped: {why}"),
        }
    }
}

criterion_group!(benches, models);
criterion_main!(benches);
