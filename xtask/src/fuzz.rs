//! `cargo xtask fuzz`: the kernel differential fuzzer (`kernel_fuzz`) for a while.
//!
//! ```text
//! cargo xtask fuzz [--seconds N] [--seed S] [--count C] [--stall-seconds T] [--slow-compile-ms M]
//! cargo xtask fuzz --emit DIR [--seed S] [--count C]
//! ```
//!
//! With `--emit DIR` nothing is compared: the kernels of seeds S..S+C that run to the end are
//! written to DIR (`kernel_fuzz::emit`: TVMScript, inputs, the JIT's outputs) for
//! `program_fuzz/scripts/tvm_diff.py --kernels` to run on Apache TVM.
//!
//! Checks seeds S, S+1, … for N seconds (default 60) or C seeds. A kernel that crashes or
//! hangs would take the fuzzer down with it, so the cases run in a child process (this
//! program, re-run as `xtask fuzz-worker`) that reports each seed on its standard output: a
//! child that dies is a crash at the seed it was on, one silent for T seconds (default 20) is a
//! hang; either way it is restarted at the next seed. The child shrinks every mismatch before
//! reporting it. A case whose check takes longer than M milliseconds (default 1000) has its
//! kernel compiled again under each setting, timed: a compile slower than M ms is a finding too
//! (`slow-compile`, with the size of the Cranelift functions), since a JIT must compile in
//! milliseconds. The run ends with the counts, then every finding with its (shrunk) program;
//! the exit status is nonzero if there was any.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

const USAGE: &str = "usage: cargo xtask fuzz [--seconds N] [--seed S] [--count C] \
     [--stall-seconds T] [--slow-compile-ms M]\n       cargo xtask fuzz --emit DIR [--seed S] [--count C]";

/// Candidate runs the worker spends shrinking one mismatch.
const SHRINK_BUDGET: usize = 400;

struct FuzzArgs {
    seconds: u64,
    seed: u64,
    count: Option<u64>,
    stall: u64,
    slow_ms: u64,
    emit: Option<std::path::PathBuf>,
}

fn parse(args: &[String]) -> Result<FuzzArgs> {
    let mut a = FuzzArgs {
        seconds: 60,
        seed: 0,
        count: None,
        stall: 20,
        slow_ms: 1000,
        emit: None,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || -> Result<u64> {
            it.next()
                .with_context(|| format!("{flag} needs a value\n{USAGE}"))?
                .parse()
                .with_context(|| format!("{flag} needs a number\n{USAGE}"))
        };
        match flag.as_str() {
            "--seconds" => a.seconds = value()?,
            "--seed" => a.seed = value()?,
            "--count" => a.count = Some(value()?),
            "--stall-seconds" => a.stall = value()?.max(1),
            "--slow-compile-ms" => a.slow_ms = value()?,
            "--emit" => {
                let dir = it
                    .next()
                    .with_context(|| format!("--emit needs a directory\n{USAGE}"))?;
                a.emit = Some(dir.into());
            }
            "-h" | "--help" => bail!("{USAGE}"),
            other => bail!("unexpected argument `{other}`\n{USAGE}"),
        }
    }
    Ok(a)
}

/// The compiles of `case` slower than `slow`: per setting, its time and Cranelift size.
fn slow_compiles(case: &kernel_fuzz::Case, slow: Duration) -> Vec<String> {
    let mut out = Vec::new();
    for (name, options) in kernel_fuzz::diff::CONFIGS {
        let t = Instant::now();
        let insts = relaxjit::jit::kernel::clif_instructions(&case.func, options);
        let took = t.elapsed();
        if took > slow {
            let insts = insts.map_or_else(|e| e.to_string(), |n| n.to_string());
            out.push(format!(
                "{name}: {} ms, {insts} Cranelift instructions",
                took.as_millis()
            ));
        }
    }
    out
}

/// The child: checks seeds from `args[0]` on (compiles slower than `args[1]` ms are
/// reported), one report line per seed, after a `slow` line for a slow compile.
pub fn worker(args: &[String]) -> Result<bool> {
    let mut seed: u64 = args
        .first()
        .context("fuzz-worker needs a seed")?
        .parse()
        .context("fuzz-worker needs a numeric seed")?;
    let slow = Duration::from_millis(match args.get(1) {
        Some(ms) => ms
            .parse()
            .context("fuzz-worker needs a number of milliseconds")?,
        None => 1000,
    });
    let out = std::io::stdout();
    loop {
        writeln!(out.lock(), "start {seed}")?;
        let case = kernel_fuzz::generate(seed);
        let started = Instant::now();
        let verdict = kernel_fuzz::check(&case);
        if started.elapsed() > slow {
            let slow = slow_compiles(&case, slow);
            if !slow.is_empty() {
                let report = format!("{}\n{}", slow.join("\n"), kernel_fuzz::describe(&case));
                writeln!(out.lock(), "slow {seed} {}", escape(&report))?;
            }
        }
        let line = match verdict {
            kernel_fuzz::Verdict::Agree(e) => format!("agree {seed} {}", e.class()),
            kernel_fuzz::Verdict::Skipped(s) => format!("skip {seed} {s:?}"),
            kernel_fuzz::Verdict::Mismatch(m) => {
                writeln!(out.lock(), "shrinking {seed}")?;
                let small = kernel_fuzz::shrink_mismatch(&case, &m.class, SHRINK_BUDGET);
                let detail = match kernel_fuzz::check(&small) {
                    kernel_fuzz::Verdict::Mismatch(s) => s.detail,
                    _ => m.detail.clone(),
                };
                let report = format!("{}\n{detail}\n{}", m.class, kernel_fuzz::describe(&small));
                format!("mismatch {seed} {}", escape(&report))
            }
        };
        writeln!(out.lock(), "{line}")?;
        seed = seed.wrapping_add(1);
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            },
            (c, false) => out.push(c),
        }
    }
    out
}

struct Worker {
    child: Child,
    lines: mpsc::Receiver<String>,
}

fn spawn(seed: u64, slow_ms: u64) -> Result<Worker> {
    let exe = std::env::current_exe().context("locating the xtask executable")?;
    let mut child = Command::new(exe)
        .args(["fuzz-worker", &seed.to_string(), &slow_ms.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("starting the fuzz worker")?;
    let stdout = child.stdout.take().context("worker stdout")?;
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Ok(Worker { child, lines })
}

/// The parent: supervises workers for the requested time or count.
pub fn run(args: &[String]) -> Result<bool> {
    let a = parse(args)?;
    if let Some(dir) = &a.emit {
        return emit(dir, a.seed, a.count.unwrap_or(1));
    }
    let deadline = Instant::now() + Duration::from_secs(a.seconds);
    let stall = Duration::from_secs(a.stall);
    let end = a.count.map(|c| a.seed.saturating_add(c));
    let mut executed = 0u64;
    let mut counts: std::collections::BTreeMap<String, u64> = Default::default();
    let mut findings: Vec<(u64, String)> = Vec::new();
    let mut next = a.seed;
    let mut worker = spawn(next, a.slow_ms)?;
    let mut current: Option<u64> = None;
    let mut shrinking = false;
    while Instant::now() < deadline && end.is_none_or(|e| next < e || current.is_some()) {
        let wait = if shrinking { stall * 30 } else { stall };
        match worker.lines.recv_timeout(wait) {
            Ok(line) => {
                let mut parts = line.splitn(3, ' ');
                let (tag, seed, rest) = (parts.next(), parts.next(), parts.next());
                let seed: u64 = seed.and_then(|s| s.parse().ok()).unwrap_or(next);
                match tag {
                    Some("start") => {
                        if end.is_some_and(|e| seed >= e) {
                            break;
                        }
                        current = Some(seed);
                        shrinking = false;
                    }
                    Some("shrinking") => shrinking = true,
                    Some("slow") => {
                        *counts.entry("slow-compile".into()).or_default() += 1;
                        findings.push((
                            seed,
                            format!("slow compile: {}", unescape(rest.unwrap_or(""))),
                        ));
                    }
                    Some(tag) => {
                        executed += 1;
                        current = None;
                        next = seed + 1;
                        let what = rest.unwrap_or("");
                        if tag == "mismatch" {
                            *counts.entry("mismatch".into()).or_default() += 1;
                            findings.push((seed, unescape(what)));
                        } else {
                            *counts.entry(format!("{tag} {what}")).or_default() += 1;
                        }
                    }
                    None => {}
                }
            }
            Err(e) => {
                let dead = matches!(e, mpsc::RecvTimeoutError::Disconnected);
                let _ = worker.child.kill();
                let status = worker.child.wait().ok();
                if let Some(seed) = current {
                    executed += 1;
                    let kind = if dead { "crash" } else { "hang" };
                    *counts.entry(kind.into()).or_default() += 1;
                    let case = kernel_fuzz::generate(seed);
                    let how = if dead {
                        format!("the worker died ({status:?})")
                    } else {
                        format!("no answer in {} s", wait.as_secs())
                    };
                    findings.push((
                        seed,
                        format!("{kind}: {how}\n{}", kernel_fuzz::describe(&case)),
                    ));
                    next = seed + 1;
                } else if dead {
                    bail!("the fuzz worker exited before running a case ({status:?})");
                }
                current = None;
                shrinking = false;
                worker = spawn(next, a.slow_ms)?;
            }
        }
    }
    let _ = worker.child.kill();
    let _ = worker.child.wait();
    let counts: Vec<String> = counts.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    println!(
        "{executed} cases (seeds {}..{next}) in {:.0} s; {}",
        a.seed,
        a.seconds as f64
            - deadline
                .saturating_duration_since(Instant::now())
                .as_secs_f64(),
        counts.join(", ")
    );
    for (seed, f) in &findings {
        println!("\n=== seed {seed}: {f}");
    }
    Ok(findings.is_empty())
}

/// Writes the kernels of `count` seeds from `seed` that run to the end to `dir`
/// (`kernel_fuzz::emit`), for `program_fuzz/scripts/tvm_diff.py --kernels`.
fn emit(dir: &std::path::Path, seed: u64, count: u64) -> Result<bool> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut written = 0;
    for s in seed..seed.saturating_add(count) {
        let case = kernel_fuzz::generate(s);
        if kernel_fuzz::emit::write_case(&case, s, dir)
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("writing seed {s}"))?
            .is_some()
        {
            written += 1;
        }
    }
    println!(
        "{written} of {count} kernels (seeds {seed}..{}) ran to the end: written to {}",
        seed.saturating_add(count),
        dir.display()
    );
    Ok(true)
}
