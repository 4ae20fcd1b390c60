//! Cold compile against artifact-cache hit, each in a new process: for each workload, the
//! median over `--runs` fresh processes of `Engine::compile_str_with_metadata` (parse, key,
//! load, link on a hit; the whole pipeline and Cranelift, plus the store, on a miss), and the
//! ratio. The first process after emptying the cache is the cold compile; the others hit.
//! `hit` is `compile_str` (the source text's alias: no parse); `hit, IRModule` is
//! `Engine::compile` of a module the caller parsed (not timed), which prints it, checks that
//! the text parses back to it, and hashes it — what `relaxjit run` does.
//!
//! Beside them, so that work moved out of the load shows: `first call`, the hit process's
//! first call (making the VM and running the workload once), and `process`, the wall time of
//! the whole hit process as the parent sees it (start, workload setup, hit, first call, exit).
//!
//! `cargo run --release -p relaxjit-bench --example artifact_cache -- [--runs N]
//! [--exec-mode bytecode|compiled] [--child-exe PATH]… [ROW…]` (rows: `mlp_b1`, `mlp_b64`,
//! `transformer`, …; default `mlp_b1 transformer`). `--child-exe` runs another build of this
//! example as the child processes (e.g. the one before a change); given more than once, the
//! builds take turns process by process and each gets its own line (`child` is its place on
//! the command line), so that they compare in one run under the same load. A child that
//! reports no first call or page faults leaves that column empty. `faults c/h` is the median
//! of the minor page faults the cold compile and the hit took (`getrusage` in the child around
//! the timed call). Compare builds whose files were
//! written the same way (e.g. both copied with `cp`): a hit costs mostly page faults on the
//! binary's code, and how many pages one fault maps depends on how the file's page cache was
//! filled — the linker's output takes markedly more faults per hit than a copy of it.

use std::process::Command;
use std::time::Instant;

use relaxjit::{ArtifactCache, Config, Engine};
use relaxjit_bench::workloads;

/// The minor page faults this process has taken so far.
fn minor_faults() -> i64 {
    #[cfg(target_os = "linux")]
    {
        // `struct rusage`: two `timeval`s, then fourteen `long`s, the fifth of which is
        // `ru_minflt`.
        unsafe extern "C" {
            fn getrusage(who: i32, usage: *mut [i64; 18]) -> i32;
        }
        let mut usage = [0i64; 18];
        // SAFETY: `usage` is as large as a `struct rusage` and as aligned on 64-bit Linux, and
        // `RUSAGE_SELF` (0) writes only into it.
        if unsafe { getrusage(0, &mut usage) } == 0 {
            return usage[8];
        }
    }
    -1
}

/// One compile in this process, then the first call: prints `<compile µs> <hit|miss> <first
/// call µs> <minor page faults of the compile>`.
fn child(dir: &str, row: &str, parsed: bool, exec_mode: &str) -> anyhow::Result<()> {
    // Only this row's workload is built: building every row (SqueezeNet's case file among
    // them) before the timed compile would leave the hit to run on caches emptied by work
    // that a process loading one module does not do.
    let w = match workloads::row(row)? {
        workloads::Row::Ready(entry) => entry.workload,
        workloads::Row::Skipped(why) => anyhow::bail!("row `{row}` is skipped: {why}"),
    };
    let engine = Engine::new(Config {
        cache: Some(ArtifactCache::new(
            dir,
            relaxjit::jit::cache::DEFAULT_MAX_BYTES,
        )),
        exec_mode: exec_mode.parse()?,
        ..Config::default()
    })?;
    let (compiled, us, faults) = if parsed {
        let module = Engine::parse_with_metadata(&w.script, w.metadata.clone())?;
        let f = minor_faults();
        let t = Instant::now();
        let compiled = engine.compile(&module)?;
        let us = t.elapsed().as_secs_f64() * 1e6;
        (compiled, us, minor_faults() - f)
    } else {
        let f = minor_faults();
        let t = Instant::now();
        let compiled = engine.compile_str_with_metadata(&w.script, w.metadata.clone())?;
        let us = t.elapsed().as_secs_f64() * 1e6;
        (compiled, us, minor_faults() - f)
    };
    // The loaded module must run: a hit that cannot is no hit.
    let t = Instant::now();
    let vm = compiled.vm()?;
    std::hint::black_box(compiled.invoke(&vm, &w.func, &w.args)?);
    let first = t.elapsed().as_secs_f64() * 1e6;
    println!(
        "{us:.1} {} {first:.1} {faults}",
        if compiled.from_cache() { "hit" } else { "miss" }
    );
    Ok(())
}

/// What one child process reports: compile µs, whether it hit, first call µs and minor page
/// faults of the compile (if the child reports them), and the process's wall µs.
struct ChildRun {
    us: f64,
    hit: bool,
    first_call: Option<f64>,
    faults: Option<f64>,
    process: f64,
}

fn run_child(
    exe: &std::path::Path,
    dir: &std::path::Path,
    row: &str,
    parsed: bool,
    exec_mode: &str,
) -> anyhow::Result<ChildRun> {
    let t = Instant::now();
    let out = Command::new(exe)
        .args([
            if parsed { "--child-parsed" } else { "--child" },
            &dir.display().to_string(),
            row,
            exec_mode,
        ])
        .output()?;
    let process = t.elapsed().as_secs_f64() * 1e6;
    anyhow::ensure!(
        out.status.success(),
        "child failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    let mut it = text.split_whitespace();
    let us: f64 = it.next().unwrap_or("").parse()?;
    let hit = it.next() == Some("hit");
    let first_call = it.next().map(str::parse).transpose()?;
    let faults = it.next().map(str::parse).transpose()?;
    Ok(ChildRun {
        us,
        hit,
        first_call,
        faults,
        process,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The median of what the children reported, or `-` if none did.
fn median_or_dash(v: Vec<f64>, scale: f64, precision: usize, unit: &str) -> String {
    if v.is_empty() {
        "-".to_string()
    } else {
        format!("{:.precision$}{unit}", median(v) / scale)
    }
}

/// One child build's figures for one row.
#[derive(Default)]
struct Samples {
    cold: Vec<f64>,
    hit: Vec<f64>,
    hit_module: Vec<f64>,
    first_call: Vec<f64>,
    cold_faults: Vec<f64>,
    hit_faults: Vec<f64>,
    process: Vec<f64>,
}

impl Samples {
    /// One cold compile and two hits (source text, parsed module) in new processes of `exe`.
    fn run(
        &mut self,
        exe: &std::path::Path,
        dir: &std::path::Path,
        row: &str,
        exec_mode: &str,
    ) -> anyhow::Result<()> {
        let _ = std::fs::remove_dir_all(dir);
        let r = run_child(exe, dir, row, false, exec_mode)?;
        anyhow::ensure!(!r.hit, "an empty cache hit");
        self.cold.push(r.us);
        self.cold_faults.extend(r.faults);
        let r = run_child(exe, dir, row, false, exec_mode)?;
        anyhow::ensure!(r.hit, "the second process missed");
        self.hit.push(r.us);
        self.first_call.extend(r.first_call);
        self.hit_faults.extend(r.faults);
        self.process.push(r.process);
        let r = run_child(exe, dir, row, true, exec_mode)?;
        anyhow::ensure!(r.hit, "the parsed module missed");
        self.hit_module.push(r.us);
        Ok(())
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--child") => return child(&args[1], &args[2], false, &args[3]),
        Some("--child-parsed") => return child(&args[1], &args[2], true, &args[3]),
        _ => {}
    }
    let values = |flag: &str| -> Vec<&String> {
        args.iter()
            .enumerate()
            .filter(|(_, a)| *a == flag)
            .filter_map(|(i, _)| args.get(i + 1))
            .collect()
    };
    let value = |flag: &str| values(flag).first().copied();
    let runs: usize = value("--runs")
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(11);
    let exec_mode = value("--exec-mode").map_or("bytecode", String::as_str);
    exec_mode.parse::<relaxjit::ExecMode>()?;
    let mut exes: Vec<std::path::PathBuf> = values("--child-exe")
        .into_iter()
        .map(std::path::PathBuf::from)
        .collect();
    if exes.is_empty() {
        exes.push(std::env::current_exe()?);
    }
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
    if exes.len() > 1 {
        for (i, exe) in exes.iter().enumerate() {
            println!("child {i}: {}", exe.display());
        }
    }
    println!(
        "{:12} {:>5} {:>10} {:>10} {:>7} {:>14} {:>11} {:>12} {:>10}   (median of {runs} new processes each, {exec_mode} mode)",
        "row",
        "child",
        "cold",
        "hit",
        "ratio",
        "hit, IRModule",
        "first call",
        "faults c/h",
        "process"
    );
    for row in rows {
        let mut samples: Vec<Samples> = exes.iter().map(|_| Samples::default()).collect();
        // The builds take turns, so that a change in the machine's load reaches them alike.
        for _ in 0..runs {
            for (exe, s) in exes.iter().zip(&mut samples) {
                s.run(exe, &dir, row, exec_mode)?;
            }
        }
        for (i, s) in samples.into_iter().enumerate() {
            let (c, h, hm) = (median(s.cold), median(s.hit), median(s.hit_module));
            let first_call = median_or_dash(s.first_call, 1e3, 3, "ms");
            let faults = format!(
                "{}/{}",
                median_or_dash(s.cold_faults, 1.0, 0, ""),
                median_or_dash(s.hit_faults, 1.0, 0, "")
            );
            println!(
                "{row:12} {i:>5} {:>8.2}ms {:>8.3}ms {:>6.0}x {:>12.3}ms {first_call:>11} {faults:>12} {:>8.2}ms",
                c / 1e3,
                h / 1e3,
                c / h,
                hm / 1e3,
                median(s.process) / 1e3
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
