//! `cargo xtask fuzz-ops`: the operator differential fuzzer (`program_fuzz`) for a while.
//!
//! ```text
//! cargo xtask fuzz-ops [--seconds N] [--seed S] [--count C] [--stall-seconds T]
//! cargo xtask fuzz-ops --emit DIR [--seed S] [--count C]
//! ```
//!
//! Checks seeds S, S+1, … for N seconds (default 60) or C seeds: each seed's Relax program
//! runs on the TIR path (the reference) and on the library kernels under every setup of
//! `program_fuzz::setups`. As in `cargo xtask fuzz`, the cases run in a child process (this
//! program, re-run as `xtask fuzz-ops-worker`) that reports each seed on its standard output:
//! a child that dies is a crash at the seed it was on, one silent for T seconds (default 60)
//! is a hang; either way it is restarted at the next seed. The run ends with the counts (by
//! family and ending, and the cases calling each library kernel), then every finding with its
//! program; the exit status is nonzero if there was any. With `--count 1` the seed's program
//! is printed whatever its verdict, to replay a finding.
//!
//! With `--emit DIR` nothing is compared: the programs of seeds S..S+C (default 1) are written
//! to DIR as conformance corpus folders (`program_fuzz::corpus`: the module, the inputs, how
//! relaxjit's run ended), for `program_fuzz/scripts/tvm_diff.py` to have Apache TVM write its
//! results into them and the conformance runner to check relaxjit against those.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

const USAGE: &str =
    "usage: cargo xtask fuzz-ops [--seconds N] [--seed S] [--count C] [--stall-seconds T]
       cargo xtask fuzz-ops --emit DIR [--seed S] [--count C]";

struct Args {
    seconds: u64,
    seed: u64,
    count: Option<u64>,
    stall: u64,
    emit: Option<std::path::PathBuf>,
}

fn parse(args: &[String]) -> Result<Args> {
    let mut a = Args {
        seconds: 60,
        seed: 0,
        count: None,
        stall: 60,
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

/// The child: checks seeds from `args[0]` on, one report line per seed.
pub fn worker(args: &[String]) -> Result<bool> {
    let mut seed: u64 = args
        .first()
        .context("fuzz-ops-worker needs a seed")?
        .parse()
        .context("fuzz-ops-worker needs a numeric seed")?;
    let setups = program_fuzz::setups();
    let out = std::io::stdout();
    loop {
        writeln!(out.lock(), "start {seed}")?;
        let case = program_fuzz::generate(seed);
        let mut hits = std::collections::BTreeSet::new();
        let verdict = program_fuzz::check(&setups, &case, &mut hits);
        let hits = if hits.is_empty() {
            "-".to_string()
        } else {
            hits.into_iter().collect::<Vec<_>>().join(",")
        };
        let line = match verdict {
            program_fuzz::Verdict::Agree(e) => {
                let ending = match e {
                    None => "ok",
                    Some(program_fuzz::ErrorKind::Compile) => "compile-error",
                    Some(program_fuzz::ErrorKind::Run) => "run-error",
                };
                format!("agree {seed} {hits} {} {ending}", case.family)
            }
            program_fuzz::Verdict::Mismatch(m) => {
                let report = format!("{} ({}): {}", m.class, m.setup, m.detail);
                format!("mismatch {seed} {hits} {}", escape(&report))
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
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

struct Worker {
    child: Child,
    lines: mpsc::Receiver<String>,
}

fn spawn(seed: u64) -> Result<Worker> {
    let exe = std::env::current_exe().context("locating the xtask executable")?;
    let mut child = Command::new(exe)
        .args(["fuzz-ops-worker", &seed.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("starting the fuzz-ops worker")?;
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
    let started = Instant::now();
    let deadline = started + Duration::from_secs(a.seconds);
    let stall = Duration::from_secs(a.stall);
    let end = a.count.map(|c| a.seed.saturating_add(c));
    let mut executed = 0u64;
    let mut endings: BTreeMap<String, u64> = BTreeMap::new();
    let mut hits: BTreeMap<String, u64> = BTreeMap::new();
    let mut findings: Vec<(u64, String)> = Vec::new();
    let mut next = a.seed;
    let mut worker = spawn(next)?;
    let mut current: Option<u64> = None;
    while Instant::now() < deadline && end.is_none_or(|e| next < e || current.is_some()) {
        match worker.lines.recv_timeout(stall) {
            Ok(line) => {
                let mut parts = line.splitn(4, ' ');
                let (tag, seed, kernels, rest) =
                    (parts.next(), parts.next(), parts.next(), parts.next());
                let seed: u64 = seed.and_then(|s| s.parse().ok()).unwrap_or(next);
                if tag == Some("start") {
                    if end.is_some_and(|e| seed >= e) {
                        break;
                    }
                    current = Some(seed);
                    continue;
                }
                executed += 1;
                current = None;
                next = seed + 1;
                for k in kernels.unwrap_or("-").split(',').filter(|k| *k != "-") {
                    *hits.entry(k.to_string()).or_default() += 1;
                }
                let rest = rest.unwrap_or("");
                if tag == Some("mismatch") {
                    *endings.entry("mismatch".into()).or_default() += 1;
                    findings.push((seed, unescape(rest)));
                } else {
                    *endings.entry(rest.to_string()).or_default() += 1;
                }
            }
            Err(e) => {
                let dead = matches!(e, mpsc::RecvTimeoutError::Disconnected);
                let _ = worker.child.kill();
                let status = worker.child.wait().ok();
                if let Some(seed) = current {
                    executed += 1;
                    let kind = if dead { "crash" } else { "hang" };
                    *endings.entry(kind.into()).or_default() += 1;
                    let how = if dead {
                        format!("the worker died ({status:?})")
                    } else {
                        format!("no answer in {} s", stall.as_secs())
                    };
                    findings.push((seed, format!("{kind}: {how}")));
                    next = seed + 1;
                } else if dead {
                    bail!("the fuzz-ops worker exited before running a case ({status:?})");
                }
                current = None;
                worker = spawn(next)?;
            }
        }
    }
    let _ = worker.child.kill();
    let _ = worker.child.wait();
    println!(
        "{executed} cases (seeds {}..{next}) in {:.0} s, {} findings",
        a.seed,
        started.elapsed().as_secs_f64(),
        findings.len()
    );
    let endings: Vec<String> = endings.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    println!("endings: {}", endings.join(", "));
    let hits: Vec<String> = hits.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    println!("library kernels (cases calling each): {}", hits.join(", "));
    for (seed, f) in &findings {
        println!(
            "\n=== seed {seed}: {f}\n{}",
            program_fuzz::describe(&program_fuzz::generate(*seed))
        );
    }
    if a.count == Some(1) && findings.is_empty() {
        print!(
            "{}",
            program_fuzz::describe(&program_fuzz::generate(a.seed))
        );
    }
    Ok(findings.is_empty())
}

/// Writes the programs of `count` seeds from `seed` to `dir` as corpus folders, each with how
/// relaxjit's run of it ended (the default configuration, bytecode).
fn emit(dir: &std::path::Path, seed: u64, count: u64) -> Result<bool> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let setup = program_fuzz::Setup {
        name: "default",
        engine: relaxjit::Engine::new(relaxjit::Config::default())?,
        twin: None,
    };
    for s in seed..seed.saturating_add(count) {
        let case = program_fuzz::generate(s);
        let (ran, _) = program_fuzz::diff::run(&setup, &case);
        program_fuzz::corpus::write_case(&case, dir, &program_fuzz::corpus::ending_note(&ran))
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("writing seed {s}"))?;
    }
    println!(
        "{count} cases (seeds {seed}..{}) in {}",
        seed.saturating_add(count),
        dir.display()
    );
    Ok(true)
}
