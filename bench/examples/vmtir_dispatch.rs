//! Dispatch cost of both exec modes: a chain of 100 dependent adds on a (1,) tensor, compiled
//! without fusion (fusion would make it one kernel), reported in ns per op (allocation and
//! kernel call included), plus the compile time of compiled mode for the chain.
//!
//! `cargo run --release -p relaxjit-bench --example vmtir_dispatch [N_OPS]` (`LISTING=1` prints
//! the bytecode of each mode, `MODE=compiled` or `MODE=bytecode` runs one mode).

use std::fmt::Write;
use std::time::{Duration, Instant};

use relaxjit::{Config, Engine, ExecMode, Tensor, Value};

/// A Relax function adding `y` to `x` `n` times, one binding per add.
fn chain_source(n: usize) -> String {
    let mut s = String::from(
        "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1,), dtype=\"float32\"), y: R.Tensor((1,), dtype=\"float32\")) -> R.Tensor((1,), dtype=\"float32\"):\n        with R.dataflow():\n",
    );
    let mut prev = "x".to_string();
    for i in 0..n {
        writeln!(
            s,
            "            lv{i}: R.Tensor((1,), dtype=\"float32\") = R.add({prev}, y)"
        )
        .unwrap();
        prev = format!("lv{i}");
    }
    writeln!(s, "            R.output({prev})\n        return {prev}").unwrap();
    s
}

/// The best of `repeats` measurements of the mean time of one call, each over about 200 ms.
fn time_call(f: &mut dyn FnMut(), repeats: usize) -> Duration {
    f();
    let start = Instant::now();
    let mut calibration = 0u32;
    while start.elapsed() < Duration::from_millis(20) {
        f();
        calibration += 1;
    }
    let per = start.elapsed() / calibration.max(1);
    let number = (Duration::from_millis(200).as_nanos() / per.as_nanos().max(1)).max(1) as u32;
    (0..repeats)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..number {
                f();
            }
            start.elapsed() / number
        })
        .min()
        .unwrap_or_default()
}

fn main() -> anyhow::Result<()> {
    let n: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(100);
    let src = chain_source(n);
    let module = Engine::parse(&src)?;
    let args = [
        Value::Tensor(Tensor::from_slice(&[1], &[0.0f32])?),
        Value::Tensor(Tensor::from_slice(&[1], &[1.0f32])?),
    ];
    let mut results = Vec::new();
    let only = std::env::var("MODE").ok();
    for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        if only
            .as_deref()
            .is_some_and(|m| !format!("{mode:?}").eq_ignore_ascii_case(m))
        {
            continue;
        }
        let engine = Engine::new(Config {
            exec_mode: mode,
            fusion: false,
            ..Config::default()
        })?;
        let start = Instant::now();
        let compiled = engine.compile(&module)?;
        let compile = start.elapsed();
        if std::env::var_os("LISTING").is_some() {
            println!("{}", compiled.executable().as_text());
        }
        let vm = compiled.vm()?;
        let out = vm.invoke("main", &args)?;
        anyhow::ensure!(
            out.as_tensor()?.to_vec::<f32>()? == vec![n as f32],
            "the chain computed {out:?}"
        );
        let per_call = time_call(
            &mut || {
                vm.invoke("main", &args).expect("the chain runs");
            },
            5,
        );
        let ns_per_op = per_call.as_nanos() as f64 / n as f64;
        print!(
            "{mode:?}: {ns_per_op:.1} ns/op ({n} adds, {:.2} us/call); compile {:.2} ms",
            per_call.as_nanos() as f64 / 1e3,
            compile.as_secs_f64() * 1e3
        );
        if let Some(t) = compiled.vmtir_compile_time() {
            print!(
                " (of which native Relax functions {:.2} ms)",
                t.as_secs_f64() * 1e3
            );
        }
        println!();
        results.push(ns_per_op);
    }
    if let [bytecode, compiled] = results[..] {
        println!("compiled / bytecode: {:.2}", compiled / bytecode);
    }
    Ok(())
}
