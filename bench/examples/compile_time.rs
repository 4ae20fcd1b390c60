//! Prints how long `Engine::compile` takes for the AlexNet-shaped module (244 MB of f32
//! constants), stage by stage, and the first call; `--div N` divides every layer width by N.
//!
//! `cargo run --release -p relaxjit-bench --example compile_time -- [--div N] [--no-run]`

use std::time::Instant;

use relaxjit::{Config, Engine};
use relaxjit_bench::workloads;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let div: i64 = match args.iter().position(|a| a == "--div") {
        Some(i) => args
            .get(i + 1)
            .ok_or_else(|| anyhow::anyhow!("--div needs a number"))?
            .parse()?,
        None => 1,
    };
    let t = Instant::now();
    let w = workloads::alexnet(div);
    let bytes: usize = w.metadata.iter().map(|t| t.nbytes()).sum();
    println!(
        "built: {} constants, {:.1} MB, in {:.3} s",
        w.metadata.len(),
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let module = Engine::parse_with_metadata(&w.script, w.metadata.clone())?;
    println!("parse: {:.3} s", t.elapsed().as_secs_f64());
    let engine = Engine::new(Config::default())?;
    let t = Instant::now();
    let compiled = engine.compile(&module)?;
    println!("Engine::compile: {:.3} s", t.elapsed().as_secs_f64());
    if !args.iter().any(|a| a == "--no-run") {
        let vm = compiled.vm()?;
        let t = Instant::now();
        compiled.invoke(&vm, &w.func, &w.args)?;
        println!("first call: {:.3} s", t.elapsed().as_secs_f64());
        let t = Instant::now();
        compiled.invoke(&vm, &w.func, &w.args)?;
        println!("second call: {:.3} s", t.elapsed().as_secs_f64());
    }
    Ok(())
}
