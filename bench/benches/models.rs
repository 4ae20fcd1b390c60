//! Model-level benchmarks, one group per row of the performance table (issue 10): matmul
//! 1024³, MLP 784-512-10 at batch 1 and 64, a transformer block (seq 128, hidden 256, 4 heads,
//! FFN 1024), conv 3×3 64→64 + bias + relu + max-pool on 1×64×56×56, and SqueezeNet 1.0 from
//! `../shared/models` (skipped with a message when that folder is absent). Each runs through
//! `Engine` with the default configuration (`library`: matmul and conv2d on the native library
//! kernels); `RELAXJIT_BENCH_TIR=1` also measures the TIR path (`library: false`) beside it,
//! which is slow for the large rows. Matmul and conv rows count flops, so criterion's
//! `elem/s` reads as FLOP/s.
//!
//! `bench/peers.py` runs the same workloads on numpy and onnxruntime; compare figures taken in
//! the same run of a quiet machine.
//!
//! `cargo bench -p relaxjit-bench --bench models [-- FILTER]`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use relaxjit::{Config, Engine};
use relaxjit_bench::workloads::{self, Workload};

fn measure(c: &mut Criterion, w: &Workload) {
    let mut configs = vec![("library", Config::default())];
    if std::env::var_os("RELAXJIT_BENCH_TIR").is_some() {
        configs.push((
            "tir",
            Config {
                library: false,
                ..Config::default()
            },
        ));
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
        let engine = Engine::new(config).expect("a valid configuration");
        let compiled = engine
            .compile_str_with_metadata(&w.script, w.metadata.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", w.name));
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

fn models(c: &mut Criterion) {
    let mut rows = vec![
        workloads::matmul(1024),
        workloads::mlp(1),
        workloads::mlp(64),
        workloads::transformer(),
        workloads::conv_block(),
    ];
    match workloads::shared_model("squeezenet") {
        Some(Ok(w)) => rows.push(w),
        Some(Err(e)) => panic!("squeezenet: {e}"),
        None => eprintln!(
            "squeezenet: {} not found, row skipped",
            workloads::shared_models_dir().display()
        ),
    }
    for w in &rows {
        measure(c, w);
    }
}

criterion_group!(benches, models);
criterion_main!(benches);
