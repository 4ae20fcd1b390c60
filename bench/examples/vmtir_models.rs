//! Compiled exec mode on the model workloads (and SqueezeNet / ResNet-50 when
//! `../shared/models` holds them): compile time of each mode, the part of it spent compiling
//! the Relax functions to native code, the median call time of each mode, and whether the two
//! modes' outputs agree bit for bit.
//!
//! `cargo run --release -p relaxjit-bench --example vmtir_models [CALLS]`

use std::time::Instant;

use relaxjit::{Config, Engine, ExecMode, Value};
use relaxjit_bench::workloads::{self, Workload};

fn bits(v: &Value) -> Vec<u8> {
    match v {
        Value::Tensor(t) => t.to_bytes(),
        Value::Tuple(t) => t.iter().flat_map(bits).collect(),
        other => format!("{other:?}").into_bytes(),
    }
}

fn main() -> anyhow::Result<()> {
    let calls: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(10);
    let mut rows: Vec<Workload> = workloads::all()?;
    if let Some(w) = workloads::shared_model("resnet50") {
        rows.push(w?);
    }
    println!(
        "{:<14} {:>12} {:>12} {:>10} {:>12} {:>12}  agree",
        "workload", "compile bc", "compile cm", "native fn", "call bc", "call cm"
    );
    for w in &rows {
        let module = Engine::parse_with_metadata(&w.script, w.metadata.clone())?;
        let mut out = Vec::new();
        for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
            let engine = Engine::new(Config {
                exec_mode: mode,
                ..Config::default()
            })?;
            let start = Instant::now();
            let compiled = engine.compile(&module)?;
            let compile = start.elapsed();
            anyhow::ensure!(
                compiled.fallbacks().is_empty(),
                "{}: fallbacks {:?}",
                w.name,
                compiled.fallbacks()
            );
            let times = workloads::time_calls(&compiled, w, calls)?;
            let result = compiled.run(&w.func, &w.args)?;
            out.push((
                compile,
                compiled.vmtir_compile_time(),
                times[times.len() / 2],
                bits(&result),
            ));
        }
        let ms = |d: std::time::Duration| format!("{:.3} ms", d.as_secs_f64() * 1e3);
        println!(
            "{:<14} {:>12} {:>12} {:>10} {:>12} {:>12}  {}",
            w.name,
            ms(out[0].0),
            ms(out[1].0),
            out[1].1.map_or("-".into(), ms),
            ms(out[0].2),
            ms(out[1].2),
            if out[0].3 == out[1].3 { "yes" } else { "NO" }
        );
    }
    Ok(())
}
