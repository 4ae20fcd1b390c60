//! Cold compile against artifact-cache hit, each in a new process: for each workload, the
//! median over `--runs` fresh processes of `Engine::compile_str_with_metadata` (parse, key,
//! load, link on a hit; the whole pipeline and Cranelift, plus the store, on a miss), and the
//! ratio. The first process after emptying the cache is the cold compile; the others hit.
//! `hit` is `compile_str` (the source text's alias: no parse); `hit, IRModule` is
//! `Engine::compile` of a module the caller parsed (not timed), which prints it, checks that
//! the text parses back to it, and hashes it — what `relaxjit run` does.
//!
//! `cargo run --release -p relaxjit-bench --example artifact_cache -- [--runs N]
//! [--exec-mode bytecode|compiled] [ROW…]` (rows: `mlp_b1`, `mlp_b64`, `transformer`, …;
//! default `mlp_b1 transformer`).

use std::process::Command;
use std::time::Instant;

use relaxjit::{ArtifactCache, Config, Engine};
use relaxjit_bench::workloads;

/// One compile in this process: prints `<microseconds> <hit|miss>`.
fn child(dir: &str, row: &str, parsed: bool, exec_mode: &str) -> anyhow::Result<()> {
    let w = workloads::all()?
        .into_iter()
        .find(|w| w.name == row)
        .ok_or_else(|| anyhow::anyhow!("no workload `{row}`"))?;
    let engine = Engine::new(Config {
        cache: Some(ArtifactCache::new(
            dir,
            relaxjit::jit::cache::DEFAULT_MAX_BYTES,
        )),
        exec_mode: exec_mode.parse()?,
        ..Config::default()
    })?;
    let (compiled, us) = if parsed {
        let module = Engine::parse_with_metadata(&w.script, w.metadata.clone())?;
        let t = Instant::now();
        let compiled = engine.compile(&module)?;
        (compiled, t.elapsed().as_secs_f64() * 1e6)
    } else {
        let t = Instant::now();
        let compiled = engine.compile_str_with_metadata(&w.script, w.metadata.clone())?;
        (compiled, t.elapsed().as_secs_f64() * 1e6)
    };
    // The loaded module must run: a hit that cannot is no hit.
    workloads::time_calls(&compiled, &w, 1)?;
    println!(
        "{us:.1} {}",
        if compiled.from_cache() { "hit" } else { "miss" }
    );
    Ok(())
}

fn run_child(
    dir: &std::path::Path,
    row: &str,
    parsed: bool,
    exec_mode: &str,
) -> anyhow::Result<(f64, bool)> {
    let out = Command::new(std::env::current_exe()?)
        .args([
            if parsed { "--child-parsed" } else { "--child" },
            &dir.display().to_string(),
            row,
            exec_mode,
        ])
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "child failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    let mut it = text.split_whitespace();
    let us: f64 = it.next().unwrap_or("").parse()?;
    Ok((us, it.next() == Some("hit")))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--child") => return child(&args[1], &args[2], false, &args[3]),
        Some("--child-parsed") => return child(&args[1], &args[2], true, &args[3]),
        _ => {}
    }
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
    };
    let runs: usize = value("--runs")
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(11);
    let exec_mode = value("--exec-mode").map_or("bytecode", String::as_str);
    exec_mode.parse::<relaxjit::ExecMode>()?;
    let mut rows: Vec<&str> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !args[i - 1].starts_with("--")))
        .map(|(_, a)| a.as_str())
        .collect();
    if rows.is_empty() {
        rows = vec!["mlp_b1", "transformer"];
    }
    let dir = std::env::temp_dir().join(format!("relaxjit-cache-bench-{}", std::process::id()));
    println!(
        "{:12} {:>10} {:>10} {:>7} {:>14}   (median of {runs} new processes each, {exec_mode} mode)",
        "row", "cold", "hit", "ratio", "hit, IRModule"
    );
    for row in rows {
        let (mut cold, mut hit, mut hit_module) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            let _ = std::fs::remove_dir_all(&dir);
            let (us, was_hit) = run_child(&dir, row, false, exec_mode)?;
            anyhow::ensure!(!was_hit, "an empty cache hit");
            cold.push(us);
            let (us, was_hit) = run_child(&dir, row, false, exec_mode)?;
            anyhow::ensure!(was_hit, "the second process missed");
            hit.push(us);
            let (us, was_hit) = run_child(&dir, row, true, exec_mode)?;
            anyhow::ensure!(was_hit, "the parsed module missed");
            hit_module.push(us);
        }
        let (c, h, hm) = (median(cold), median(hit), median(hit_module));
        println!(
            "{row:12} {:>8.2}ms {:>8.3}ms {:>6.0}x {:>12.3}ms",
            c / 1e3,
            h / 1e3,
            c / h,
            hm / 1e3
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
