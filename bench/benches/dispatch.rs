//! Dispatch cost: `main` = a chain of 100 dependent adds on a `(1,)` tensor, compiled with
//! fusion off so that every add is one kernel call (issue 11's benchmark), in every exec mode
//! the engine accepts; criterion's `thrpt` line reads as ops per second and `time / 100` as ns
//! per op, allocation and kernel call included. A mode `Engine::compile` rejects as unsupported
//! is skipped with a message.
//!
//! A second group measures the per-call cost of an engine-owned thread pool
//! (`Config::threads`) against rayon's global pool on the same chain.
//!
//! `cargo bench -p relaxjit-bench --bench dispatch`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use relaxjit::{CompiledModule, Config, Engine, Error, ExecMode};
use relaxjit_bench::workloads::{self, Workload};

const N: usize = 100;

/// The chain compiled by an engine of `config` (fusion off), or `None` with a message when the
/// engine does not support the configuration.
fn compile(config: Config, what: &str, w: &Workload) -> Option<CompiledModule> {
    let engine = Engine::new(Config {
        fusion: false,
        ..config
    })
    .expect("a valid configuration");
    let module = Engine::parse(&w.script).expect("the chain parses");
    match engine.compile(&module) {
        Ok(c) => Some(c),
        Err(Error::Unsupported(msg)) => {
            println!("dispatch/{what}: skipped, the engine does not support it: {msg}");
            None
        }
        Err(e) => panic!("dispatch/{what}: {e}"),
    }
}

fn bench_chain(c: &mut Criterion, group: &str, configs: &[(&str, Config)]) {
    let w = workloads::add_chain(N);
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(N as u64))
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (name, config) in configs {
        let Some(compiled) = compile(config.clone(), name, &w) else {
            continue;
        };
        let vm = compiled.vm().expect("a VM");
        let out = compiled
            .invoke(&vm, &w.func, &w.args)
            .expect("the chain runs");
        let expected = 2f32.powi(N as i32);
        let got = out
            .as_tensor()
            .expect("a tensor")
            .to_vec::<f32>()
            .expect("f32");
        assert_eq!(got, [expected], "{name}: the chain computes x * 2^{N}");
        g.bench_function(*name, |b| {
            b.iter(|| {
                compiled
                    .invoke(&vm, &w.func, black_box(&w.args))
                    .expect("the chain runs")
            })
        });
    }
    g.finish();
}

fn exec_modes(c: &mut Criterion) {
    let configs: Vec<(&str, Config)> = [
        ("bytecode", ExecMode::Bytecode),
        ("compiled", ExecMode::Compiled),
    ]
    .into_iter()
    .map(|(name, exec_mode)| {
        (
            name,
            Config {
                exec_mode,
                ..Config::default()
            },
        )
    })
    .collect();
    bench_chain(c, "dispatch/add_chain", &configs);
}

fn pools(c: &mut Criterion) {
    let configs = [
        ("global_pool", Config::default()),
        (
            "engine_pool",
            Config {
                threads: Some(2),
                ..Config::default()
            },
        ),
    ];
    bench_chain(c, "dispatch/pool", &configs);
}

criterion_group!(benches, exec_modes, pools);
criterion_main!(benches);
