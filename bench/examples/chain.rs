//! Runs the dispatch benchmark's chain of dependent adds (fusion off) in a loop, for profiling
//! the interpreter under `perf`, and prints ns per op; `--text` prints its bytecode first,
//! `--threads N` uses an engine-owned pool of N threads.
//!
//! `cargo run --release -p relaxjit-bench --example chain -- [--text] [--threads N] [--ops N] [--calls N]`

use std::time::Instant;

use relaxjit::{Config, Engine};
use relaxjit_bench::workloads;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |flag: &str, default: usize| -> anyhow::Result<usize> {
        Ok(match args.iter().position(|a| a == flag) {
            Some(i) => args
                .get(i + 1)
                .ok_or_else(|| anyhow::anyhow!("{flag} needs a number"))?
                .parse()?,
            None => default,
        })
    };
    let ops = num("--ops", 100)?;
    let calls = num("--calls", 100_000)?;
    let threads = num("--threads", 0)?;
    let w = workloads::add_chain(ops);
    let engine = Engine::new(Config {
        fusion: false,
        threads: (threads > 0).then_some(threads),
        ..Config::default()
    })?;
    let compiled = engine.compile(&Engine::parse(&w.script)?)?;
    if args.iter().any(|a| a == "--text") {
        println!("{}", compiled.executable().as_text());
    }
    let vm = compiled.vm()?;
    compiled.invoke(&vm, &w.func, &w.args)?;
    let start = Instant::now();
    for _ in 0..calls {
        std::hint::black_box(compiled.invoke(&vm, &w.func, &w.args)?);
    }
    let ns = start.elapsed().as_nanos() as f64 / calls as f64;
    println!(
        "{ops} ops, {calls} calls: {:.0} ns per call, {:.1} ns per op",
        ns,
        ns / ops as f64
    );
    Ok(())
}
