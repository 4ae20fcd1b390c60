//! `cargo xtask bench`: the fixed performance suite of issue 10, one table.
//!
//! ```text
//! cargo xtask bench [ROW…] [--zoo] [--peers] [--python PATH] [--json FILE]
//!                   [--save-baseline NAME] [--baseline NAME] [--budget SECONDS] [--list]
//! ```
//!
//! Each row (`relaxjit_bench::workloads::ROWS`) is compiled with the default `Config` (the
//! dispatch chain without fusion, in every exec mode the engine accepts) and timed by
//! `support::timing::sample`: batches of calls, reported as the median time per call and the
//! interquartile spread of the batches. With `--peers`, `bench/peers.py --serve` runs the same
//! workload on onnxruntime and numpy in the same run, alternating with relaxjit's in `--rounds`
//! rounds (3 by default) that split the budget: on a shared machine whose speed drifts within
//! seconds (a neighbour's memory traffic moved one SqueezeNet row from 3.3 to 6.6 ms between
//! runs), the ratio of a row then compares samples taken under the same load.
//!
//! `--zoo` runs the light ONNX model zoo (`workloads::ZOO`) instead of the fixed suite, so that
//! the suite keeps its budget. Those rows feed onnxruntime the same input as relaxjit
//! (`workloads::ramp_f32`), and the peers send back onnxruntime's output, which the table checks
//! relaxjit's against (a mismatch ends the run with status 1).
//!
//! `--save-baseline NAME` writes the run to `bench/baselines/NAME.json`; `--baseline NAME`
//! compares against it and exits with status 1 if a row got slower by more than its noise
//! threshold: the larger of the two runs' spreads, times three, and never under
//! [`MIN_THRESHOLD`] (batches of one run vary less than runs do).

use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use relaxjit::{Config, ExecMode};
use relaxjit_bench::workloads::{self, EXEC_MODES, Entry, Row};
use serde_json::{Value as Json, json};
use support::timing::{self, Plan, Summary, format_seconds};

const USAGE: &str =
    "usage: cargo xtask bench [ROW…] [--zoo] [--peers] [--python PATH] [--json FILE]
                        [--save-baseline NAME] [--baseline NAME] [--budget SECONDS]
                        [--rounds N] [--list]
rows: the suite's rows (all by default; --list names them)
--zoo: the light ONNX model zoo's rows (zoo_*) instead of the suite's; with --peers,
       relaxjit's outputs are checked against onnxruntime's
--peers: also time onnxruntime and numpy on the same workloads (through PATH, default python3;
         needs `pip install numpy onnx onnxruntime`)
--budget: seconds of timed samples per row and peer (default 2)
--rounds: with --peers, relaxjit's and the peers' samples alternate in N rounds (default 3)";

/// The smallest regression threshold, relative to the baseline's median: between two runs on
/// a shared machine, medians move by this much with nothing changed.
pub const MIN_THRESHOLD: f64 = 0.10;

/// How many spreads a median may move before it counts as a change.
const SPREADS: f64 = 3.0;

struct Options {
    rows: Vec<String>,
    zoo: bool,
    peers: bool,
    python: String,
    json: Option<PathBuf>,
    save_baseline: Option<String>,
    baseline: Option<String>,
    budget: Duration,
    rounds: usize,
    list: bool,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut o = Options {
        rows: Vec::new(),
        zoo: false,
        peers: false,
        python: "python3".into(),
        json: None,
        save_baseline: None,
        baseline: None,
        budget: Duration::from_secs(2),
        rounds: 3,
        list: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .with_context(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--peers" => o.peers = true,
            "--zoo" => o.zoo = true,
            "--python" => o.python = value("--python")?,
            "--json" => o.json = Some(PathBuf::from(value("--json")?)),
            "--save-baseline" => o.save_baseline = Some(value("--save-baseline")?),
            "--baseline" => o.baseline = Some(value("--baseline")?),
            "--budget" => {
                let v = value("--budget")?;
                let s: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= 600.0)
                    .with_context(|| {
                        format!("--budget: `{v}` is not a number of seconds in (0, 600]")
                    })?;
                o.budget = Duration::from_secs_f64(s);
            }
            "--rounds" => {
                let v = value("--rounds")?;
                o.rounds = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=20).contains(n))
                    .with_context(|| format!("--rounds: `{v}` is not a number in 1..=20"))?;
            }
            "--list" => o.list = true,
            "-h" | "--help" => bail!("{USAGE}"),
            flag if flag.starts_with('-') => bail!("unexpected argument `{flag}`\n{USAGE}"),
            row => {
                if !workloads::ROWS.contains(&row) && !workloads::ZOO.contains(&row) {
                    bail!(
                        "unknown row `{row}` (rows: {}; zoo rows: {})",
                        workloads::ROWS.join(", "),
                        workloads::ZOO.join(", ")
                    );
                }
                o.rows.push(row.to_string());
            }
        }
    }
    Ok(o)
}

/// A baseline named `name`: `bench/baselines/NAME.json`, or the path itself if it names a
/// `.json` file.
fn baseline_path(name: &str) -> PathBuf {
    if name.ends_with(".json") || name.contains('/') {
        return PathBuf::from(name);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("bench")
        .join("baselines")
        .join(format!("{name}.json"))
}

/// The peers' side: `bench/peers.py --serve` in a child process, asked one row at a time.
struct Peers {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    ready: Json,
}

impl Peers {
    /// Starts the peers' script with `python`; `Err` says why it cannot run (the suite then goes
    /// on without peers).
    fn start(python: &str) -> Result<Peers> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("bench")
            .join("peers.py");
        let mut child = Command::new(python)
            .arg(&script)
            .arg("--serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot run `{python}`"))?;
        let stdin = child.stdin.take().context("no stdin")?;
        let mut stdout = BufReader::new(child.stdout.take().context("no stdout")?);
        let mut line = String::new();
        stdout.read_line(&mut line)?;
        let ready: Json = serde_json::from_str(&line).with_context(|| {
            format!("`{python} bench/peers.py --serve` did not start (it printed {line:?})")
        })?;
        Ok(Peers {
            child,
            stdin,
            stdout,
            ready,
        })
    }

    /// The peers' timings of `row`: `{PEER: {"samples": [...]} | {"skipped": why}}`; with
    /// `output`, a peer that ran on relaxjit's input adds `"output": {"shape", "data"}`.
    fn measure(&mut self, row: &str, budget: Duration, output: bool) -> Result<Json> {
        let req = json!({"row": row, "budget": budget.as_secs_f64(), "output": output});
        writeln!(self.stdin, "{req}")?;
        self.stdin.flush()?;
        let mut line = String::new();
        if self.stdout.read_line(&mut line)? == 0 {
            bail!("bench/peers.py exited while measuring `{row}`");
        }
        let answer: Json = serde_json::from_str(&line)
            .with_context(|| format!("bench/peers.py answered {line:?}"))?;
        Ok(answer["peers"].clone())
    }
}

impl Drop for Peers {
    fn drop(&mut self) {
        // The script holds no state worth a clean exit.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One measured line of the table.
struct Line {
    /// `row` or `row/mode` (the dispatch chain, one line per exec mode).
    key: String,
    /// The workload's flops and operations per call (0 if not counted).
    flops: f64,
    ops: usize,
    skipped: Option<String>,
    compile: Option<Duration>,
    first_call: Option<Duration>,
    summary: Option<Summary>,
    samples: Vec<f64>,
    calls_per_sample: usize,
    peers: Json,
    /// relaxjit's output against onnxruntime's, when the peers sent theirs.
    check: Option<Check>,
}

/// relaxjit's output against onnxruntime's on the same input.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Check {
    /// The largest difference of an element.
    max_diff: f64,
    /// The largest magnitude of onnxruntime's elements.
    max_ort: f64,
    /// Whether the shapes agree and `max_diff` is within [`CHECK_TOLERANCE`] of `max_ort`.
    ok: bool,
}

/// How far relaxjit's output may be from onnxruntime's, relative to the output's largest
/// magnitude: the two sum in different orders (blocked GEMMs, Winograd convolutions), and the
/// zoo's deepest models (DenseNet-121, VGG-19) accumulate that over 20–120 layers.
const CHECK_TOLERANCE: f64 = 1e-3;

impl Check {
    /// Compares `got` (relaxjit's output) with `ort` (`{"shape": [...], "data": [...]}`);
    /// `Err` if relaxjit's output is not an f32 tensor.
    fn of(got: &relaxjit::Value, ort: &Json) -> Result<Check> {
        let t = got
            .as_tensor()
            .map_err(|e| anyhow::anyhow!("the output is not a tensor: {e}"))?;
        let g = t.to_vec::<f32>()?;
        let shape: Vec<i64> = ort["shape"]
            .as_array()
            .map(|s| s.iter().filter_map(Json::as_i64).collect())
            .unwrap_or_default();
        let want: Vec<f64> = ort["data"]
            .as_array()
            .map(|d| d.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect())
            .unwrap_or_default();
        let max_ort = want.iter().fold(0f64, |m, x| m.max(x.abs()));
        let mut max_diff = 0f64;
        for (a, b) in g.iter().zip(&want) {
            let d = (f64::from(*a) - b).abs();
            // A NaN on either side is a mismatch.
            max_diff = if d.is_nan() {
                f64::INFINITY
            } else {
                max_diff.max(d)
            };
        }
        let ok =
            shape == t.shape() && g.len() == want.len() && max_diff <= CHECK_TOLERANCE * max_ort;
        Ok(Check {
            max_diff,
            max_ort,
            ok,
        })
    }
}

impl Line {
    /// The line of `key`, with nothing measured yet.
    fn new(key: &str) -> Line {
        Line {
            key: key.to_string(),
            flops: 0.0,
            ops: 0,
            skipped: None,
            compile: None,
            first_call: None,
            summary: None,
            samples: Vec::new(),
            calls_per_sample: 0,
            peers: Json::Null,
            check: None,
        }
    }

    fn peer(&self, name: &str) -> Option<Summary> {
        let samples: Vec<f64> = self.peers[name]["samples"]
            .as_array()?
            .iter()
            .filter_map(Json::as_f64)
            .collect();
        Summary::of(&samples)
    }

    fn to_json(&self) -> Json {
        let mut peers = serde_json::Map::new();
        if let Some(p) = self.peers.as_object() {
            for (name, v) in p {
                peers.insert(
                    name.clone(),
                    match self.peer(name) {
                        Some(s) => summary_json(&s),
                        None => json!({"skipped": v["skipped"]}),
                    },
                );
            }
        }
        let mut j = json!({
            "row": self.key,
            "peers": peers,
        });
        if let Some(why) = &self.skipped {
            j["skipped"] = json!(why);
        }
        if let Some(s) = &self.summary {
            j["relaxjit"] = summary_json(s);
            j["relaxjit"]["calls_per_sample"] = json!(self.calls_per_sample);
            j["relaxjit"]["samples_s"] = json!(self.samples);
        }
        if let Some(c) = self.compile {
            j["compile_s"] = json!(c.as_secs_f64());
        }
        if let Some(f) = self.first_call {
            j["first_call_s"] = json!(f.as_secs_f64());
        }
        if self.flops > 0.0 {
            j["flops"] = json!(self.flops);
        }
        if self.ops > 0 {
            j["ops"] = json!(self.ops);
        }
        if let Some(c) = &self.check {
            j["check"] = json!({
                "max_abs_diff": c.max_diff, "max_abs_onnxruntime": c.max_ort, "ok": c.ok,
            });
        }
        j
    }
}

fn summary_json(s: &Summary) -> Json {
    json!({
        "median_s": s.median, "q1_s": s.q1, "q3_s": s.q3, "min_s": s.min, "max_s": s.max,
        "samples": s.samples, "spread": s.spread(),
    })
}

/// The configurations a row is measured in: the default one, and for the dispatch chain each
/// exec mode (the point of that row is the cost per operation of each mode).
fn configs(entry: &Entry) -> Vec<(String, Config)> {
    let modes: Vec<(&str, ExecMode)> = if entry.ops > 0 {
        EXEC_MODES.to_vec()
    } else {
        vec![EXEC_MODES[0]]
    };
    modes
        .into_iter()
        .map(|(name, exec_mode)| {
            let key = if entry.ops > 0 {
                format!("{}/{name}", entry.workload.name)
            } else {
                entry.workload.name.to_string()
            };
            (
                key,
                Config {
                    exec_mode,
                    ..Config::default()
                },
            )
        })
        .collect()
}

/// A row compiled and linked, ready to time.
struct Ready<'a> {
    entry: &'a Entry,
    compiled: relaxjit::CompiledModule,
    vm: relaxjit::vm::VirtualMachine,
}

/// Compiles `entry` in `config`: its line (with the compile time, or why it is skipped) and,
/// unless skipped, the module to time.
fn compile<'a>(entry: &'a Entry, key: &str, config: &Config) -> Result<(Line, Option<Ready<'a>>)> {
    let w = &entry.workload;
    let mut line = Line {
        // The chain's `flops` counts its adds; it reads as time per operation instead.
        flops: if entry.ops > 0 { 0.0 } else { w.flops },
        ops: entry.ops,
        ..Line::new(key)
    };
    let t = Instant::now();
    let compiled = match entry.compile(config) {
        Ok(c) => c,
        Err(relaxjit::Error::Unsupported(why)) => {
            line.skipped = Some(why);
            return Ok((line, None));
        }
        Err(e) => return Err(e).with_context(|| format!("{key}: compiling")),
    };
    line.compile = Some(t.elapsed());
    let vm = compiled.vm()?;
    Ok((
        line,
        Some(Ready {
            entry,
            compiled,
            vm,
        }),
    ))
}

/// Times one round of `ready`'s calls into `line`: its samples join the earlier rounds', the
/// first call is the first round's.
fn time_round(line: &mut Line, ready: &Ready, plan: &Plan) -> Result<()> {
    let w = &ready.entry.workload;
    let key = line.key.clone();
    let progress = |done: usize, of: usize| {
        if std::io::stderr().is_terminal() {
            eprint!("\r{key}: sample {done}/{of} ");
            let _ = std::io::stderr().flush();
        }
    };
    let m = timing::sample(
        plan,
        || ready.compiled.invoke(&ready.vm, &w.func, &w.args).map(drop),
        progress,
    )
    .with_context(|| format!("{}: calling {}", line.key, w.func))?;
    clear_progress();
    line.first_call.get_or_insert(m.first_call);
    line.samples.extend(m.samples);
    line.calls_per_sample = line.calls_per_sample.max(m.calls_per_sample);
    line.summary = Summary::of(&line.samples);
    Ok(())
}

/// Adds one round's peer answer (`{PEER: {"samples": [...]} | {"skipped": why}}`) to the
/// earlier rounds' in `into`.
fn merge_peer_samples(into: &mut Json, answer: &Json) {
    let Some(answer) = answer.as_object() else {
        return;
    };
    if !into.is_object() {
        *into = json!({});
    }
    for (peer, v) in answer {
        let slot = &mut into[peer.as_str()];
        match (slot["samples"].as_array_mut(), v["samples"].as_array()) {
            (Some(have), Some(more)) => have.extend(more.iter().cloned()),
            _ => *slot = v.clone(),
        }
    }
}

/// Erases the progress line (on a terminal; elsewhere there is none).
fn clear_progress() {
    if std::io::stderr().is_terminal() {
        eprint!("\r{:60}\r", "");
    }
}

fn cell(s: Option<Summary>) -> String {
    match s {
        Some(s) => format_seconds(s.median),
        None => "–".into(),
    }
}

fn pct(x: f64) -> String {
    format!("±{:.0}%", 100.0 * x)
}

/// What a row's rate column says: GFLOP/s (beside numpy's) for rows that count flops, time per
/// operation for the dispatch chain.
fn rate(line: &Line) -> String {
    let Some(s) = line.summary else {
        return String::new();
    };
    let mut out = String::new();
    if line.flops > 0.0 {
        out = format!("{:.1} GFLOP/s", line.flops / s.median / 1e9);
        if let Some(np) = line.peer("numpy") {
            out += &format!(" (numpy {:.1})", line.flops / np.median / 1e9);
        }
    } else if line.ops > 0 {
        let per_op = |t: f64| format_seconds(t / line.ops as f64);
        out = format!("{}/op", per_op(s.median));
        for peer in ["onnxruntime", "numpy"] {
            if let Some(p) = line.peer(peer) {
                out += &format!(" ({peer} {})", per_op(p.median));
            }
        }
    }
    out
}

fn print_header() {
    println!(
        "{:20} {:>10} {:>6} {:>10} {:>10} {:>12} {:>10} {:>8} {:>13}  rate",
        "row",
        "relaxjit",
        "spread",
        "compile",
        "1st call",
        "onnxruntime",
        "numpy",
        "rj/ort",
        "output",
    );
}

/// The output column: whether relaxjit's output matched onnxruntime's, and their largest
/// difference relative to the output's largest magnitude.
fn check_cell(check: Option<Check>) -> String {
    match check {
        Some(c) => format!(
            "{} {:.0e}",
            if c.ok { "ok" } else { "MISMATCH" },
            c.max_diff / c.max_ort.max(f64::MIN_POSITIVE)
        ),
        None => "–".into(),
    }
}

fn print_line(line: &Line) {
    if let Some(why) = &line.skipped {
        let ort = match line.peer("onnxruntime") {
            Some(s) => format!(" (onnxruntime {})", format_seconds(s.median)),
            None => String::new(),
        };
        println!("{:20} skipped: {why}{ort}", line.key);
        return;
    }
    let s = line.summary;
    let ratio = match (s, line.peer("onnxruntime")) {
        (Some(s), Some(o)) => format!("{:.2}×", s.median / o.median),
        _ => "–".into(),
    };
    println!(
        "{:20} {:>10} {:>6} {:>10} {:>10} {:>12} {:>10} {:>8} {:>13}  {}",
        line.key,
        cell(s),
        s.map(|s| pct(s.spread())).unwrap_or_default(),
        line.compile
            .map(|d| format_seconds(d.as_secs_f64()))
            .unwrap_or_default(),
        line.first_call
            .map(|d| format_seconds(d.as_secs_f64()))
            .unwrap_or_default(),
        cell(line.peer("onnxruntime")),
        cell(line.peer("numpy")),
        ratio,
        check_cell(line.check),
        rate(line)
    );
}

/// The core-to-core round trip (`relaxjit_bench::probe`): whether the two threads of the run's
/// rows had a last-level cache in common, which moves every two-thread figure.
fn print_round_trip(when: &str, rt: Option<Duration>) {
    if let Some(rt) = rt {
        println!(
            "core-to-core round trip {when}: {:.0} ns (how to read it: bench/README.md)",
            rt.as_secs_f64() * 1e9
        );
    }
}

/// The machine and the run, for the JSON report; `round_trips` before and after the rows.
fn environment(peers: Option<&Peers>, round_trips: [Option<Duration>; 2]) -> Json {
    let ns = |rt: Option<Duration>| rt.map(|d| d.as_secs_f64() * 1e9);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_default();
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    json!({
        "unix_time": unix,
        "cpu": cpu,
        "threads": std::thread::available_parallelism().map_or(1, |n| n.get()),
        "load_average_1min": load,
        "core_round_trip_ns": [ns(round_trips[0]), ns(round_trips[1])],
        "peers": peers.map(|p| p.ready.clone()).unwrap_or(Json::Null),
    })
}

/// A row's change against the baseline: `(relative change of the median, threshold)`.
fn compare(now: &Json, base: &Json) -> Option<(f64, f64)> {
    let med = |j: &Json| j["relaxjit"]["median_s"].as_f64().filter(|m| *m > 0.0);
    let spread = |j: &Json| j["relaxjit"]["spread"].as_f64().unwrap_or(0.0);
    let (n, b) = (med(now)?, med(base)?);
    let threshold = (SPREADS * spread(now).max(spread(base))).max(MIN_THRESHOLD);
    Some((n / b - 1.0, threshold))
}

/// Prints the comparison with `baseline`; `Ok(false)` if a row regressed.
fn check_baseline(rows: &[Json], baseline: &Json, name: &str) -> bool {
    println!("\nagainst baseline {name}:");
    let mut ok = true;
    let base_rows = baseline["rows"].as_array().cloned().unwrap_or_default();
    for row in rows {
        let key = row["row"].as_str().unwrap_or("?");
        let Some(base) = base_rows.iter().find(|b| b["row"] == row["row"]) else {
            println!("  {key:20} not in the baseline");
            continue;
        };
        match compare(row, base) {
            Some((change, threshold)) => {
                let verdict = if change > threshold {
                    ok = false;
                    "REGRESSION"
                } else if change < -threshold {
                    "faster"
                } else {
                    "within noise"
                };
                println!(
                    "  {key:20} {:>+7.1}% (threshold ±{:.0}%): {verdict}",
                    100.0 * change,
                    100.0 * threshold
                );
            }
            None => println!("  {key:20} not measured in both runs"),
        }
    }
    ok
}

/// `cargo xtask bench …`; `Ok(false)` if a row regressed against `--baseline`.
pub fn run(args: &[String]) -> Result<bool> {
    let o = parse(args)?;
    if o.list {
        for r in workloads::ROWS.iter().chain(workloads::ZOO) {
            println!("{r}");
        }
        return Ok(true);
    }
    if cfg!(debug_assertions) {
        eprintln!(
            "warning: a debug build of xtask: the interpreter and the compiler run slower than \
             in release (`cargo xtask` builds release)"
        );
    }
    // Read the baseline first: a wrong name should not cost a whole run.
    let baseline = match &o.baseline {
        Some(name) => {
            let path = baseline_path(name);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("baseline {name}: cannot read {}", path.display()))?;
            Some(
                serde_json::from_str::<Json>(&text)
                    .with_context(|| format!("baseline {name}: {}", path.display()))?,
            )
        }
        None => None,
    };
    let mut peers = if o.peers {
        match Peers::start(&o.python) {
            Ok(p) => {
                let missing: Vec<&str> = p.ready["missing"]
                    .as_array()
                    .map(|m| m.iter().filter_map(Json::as_str).collect())
                    .unwrap_or_default();
                if !missing.is_empty() {
                    eprintln!(
                        "peers: `{}` lacks {} (pip install numpy onnx onnxruntime); those \
                         peers are skipped",
                        o.python,
                        missing.join(", ")
                    );
                }
                Some(p)
            }
            Err(e) => {
                eprintln!(
                    "peers skipped: {e:#} (give a Python with numpy, onnx and onnxruntime: \
                     --python PATH; pip install numpy onnx onnxruntime)"
                );
                None
            }
        }
    } else {
        None
    };
    let plan = Plan {
        budget: o.budget,
        ..Plan::default()
    };
    let names: Vec<&str> = match (o.rows.is_empty(), o.zoo) {
        (true, false) => workloads::ROWS.to_vec(),
        (true, true) => workloads::ZOO.to_vec(),
        (false, zoo) => {
            let mut names: Vec<&str> = o.rows.iter().map(String::as_str).collect();
            if zoo {
                for z in workloads::ZOO {
                    if !names.contains(z) {
                        names.push(z);
                    }
                }
            }
            names
        }
    };
    let start = Instant::now();
    let before = relaxjit_bench::probe::core_round_trip();
    print_round_trip("before the rows", before);
    print_header();
    let mut lines = Vec::new();
    // Without peers there is nothing to alternate with.
    let rounds = if peers.is_some() { o.rounds } else { 1 };
    let round_plan = Plan {
        budget: o.budget / rounds as u32,
        ..plan
    };
    for name in names {
        let row = workloads::row(name)?;
        let mut rows: Vec<(Line, Option<Ready>)> = Vec::new();
        match &row {
            Row::Ready(w) => {
                for (key, config) in configs(w) {
                    rows.push(compile(w, &key, &config)?);
                }
            }
            Row::Skipped(why) => rows.push((
                Line {
                    skipped: Some(why.clone()),
                    ..Line::new(name)
                },
                None,
            )),
        }
        for round in 0..rounds {
            for (line, ready) in &mut rows {
                if let Some(ready) = ready {
                    time_round(line, ready, &round_plan)?;
                }
            }
            let Some(p) = &mut peers else { continue };
            if std::io::stderr().is_terminal() {
                eprint!("\r{name}: peers… ");
            }
            // The outputs are compared once: the first round asks for onnxruntime's.
            let answer = p.measure(name, round_plan.budget, round == 0);
            clear_progress();
            match answer {
                Ok(answer) => {
                    for (line, _) in &mut rows {
                        merge_peer_samples(&mut line.peers, &answer);
                    }
                }
                // The peers are context: losing them ends their columns, not the run.
                Err(e) => {
                    eprintln!("peers stopped: {e:#}");
                    peers = None;
                    break;
                }
            }
        }
        for (line, ready) in &mut rows {
            let (Some(ready), Some(ort)) = (ready, line.peers["onnxruntime"].get_mut("output"))
            else {
                continue;
            };
            let ort = ort.take();
            let w = &ready.entry.workload;
            let got = ready
                .compiled
                .invoke(&ready.vm, &w.func, &w.args)
                .with_context(|| format!("{}: calling {}", line.key, w.func))?;
            line.check = Some(Check::of(&got, &ort).with_context(|| line.key.clone())?);
            // Keep the report to the timings.
            if let Some(o) = line.peers["onnxruntime"].as_object_mut() {
                o.remove("output");
            }
        }
        let row_lines: Vec<Line> = rows.into_iter().map(|(line, _)| line).collect();
        for line in &row_lines {
            print_line(line);
        }
        lines.extend(row_lines);
    }
    // Each reason a peer skipped a row, once.
    let skipped_peers: std::collections::BTreeSet<(&String, &str)> = lines
        .iter()
        .filter_map(|l| l.peers.as_object())
        .flat_map(|p| p.iter())
        .filter_map(|(peer, v)| Some((peer, v["skipped"].as_str()?)))
        .collect();
    for (peer, why) in skipped_peers {
        eprintln!("{peer} skipped: {why}");
    }
    let after = relaxjit_bench::probe::core_round_trip();
    print_round_trip("after the rows", after);
    println!("({:.0} s)", start.elapsed().as_secs_f64());
    let rows: Vec<Json> = lines.iter().map(Line::to_json).collect();
    let report = json!({
        "environment": environment(peers.as_ref(), [before, after]),
        "rows": rows,
    });
    if let Some(path) = &o.json {
        std::fs::write(path, serde_json::to_string_pretty(&report)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(name) = &o.save_baseline {
        let path = baseline_path(name);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, serde_json::to_string_pretty(&report)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("saved baseline {name}");
    }
    let mismatched: Vec<&str> = lines
        .iter()
        .filter(|l| l.check.is_some_and(|c| !c.ok))
        .map(|l| l.key.as_str())
        .collect();
    if !mismatched.is_empty() {
        eprintln!(
            "relaxjit's output differs from onnxruntime's: {}",
            mismatched.join(", ")
        );
    }
    let within_baseline = match (&baseline, &o.baseline) {
        (Some(b), Some(name)) => check_baseline(&rows, b, name),
        _ => true,
    };
    Ok(within_baseline && mismatched.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(median: f64, spread: f64) -> Json {
        json!({"relaxjit": {"median_s": median, "spread": spread}})
    }

    #[test]
    fn the_threshold_is_the_larger_spread_times_three_but_at_least_the_floor() {
        let (change, threshold) = compare(&row(1.2, 0.01), &row(1.0, 0.02)).unwrap();
        assert!((change - 0.2).abs() < 1e-12);
        assert_eq!(threshold, MIN_THRESHOLD);
        let (_, threshold) = compare(&row(1.2, 0.01), &row(1.0, 0.1)).unwrap();
        assert!((threshold - 0.3).abs() < 1e-12);
        assert_eq!(compare(&row(1.0, 0.0), &json!({})), None);
    }

    #[test]
    fn a_slower_row_beyond_its_threshold_fails_the_check() {
        let base = json!({"rows": [
            {"row": "a", "relaxjit": {"median_s": 1.0, "spread": 0.01}},
            {"row": "b", "relaxjit": {"median_s": 1.0, "spread": 0.01}},
        ]});
        let now = |a: f64, b: f64| {
            vec![
                json!({"row": "a", "relaxjit": {"median_s": a, "spread": 0.01}}),
                json!({"row": "b", "relaxjit": {"median_s": b, "spread": 0.01}}),
                json!({"row": "c", "relaxjit": {"median_s": 9.0, "spread": 0.01}}),
            ]
        };
        assert!(check_baseline(&now(1.05, 0.5), &base, "t"));
        assert!(!check_baseline(&now(1.05, 1.2), &base, "t"));
    }

    #[test]
    fn outputs_check_against_onnxruntime_within_the_tolerance() {
        let got = relaxjit::Value::Tensor(
            relaxjit::Tensor::from_slice(&[1, 3], &[1.0f32, -2.0, 0.5]).unwrap(),
        );
        let ort = |data: &[f64], shape: &[i64]| json!({"shape": shape, "data": data});
        let c = Check::of(&got, &ort(&[1.0, -2.0005, 0.5], &[1, 3])).unwrap();
        assert!(c.ok, "{c:?}");
        assert_eq!(c.max_ort, 2.0005);
        for (data, shape) in [
            (&[1.0, -2.01, 0.5][..], &[1, 3][..]),
            (&[1.0, -2.0, 0.5], &[3, 1]),
            (&[1.0, -2.0], &[1, 2]),
            (&[1.0, f64::NAN, 0.5], &[1, 3]),
        ] {
            let c = Check::of(&got, &ort(data, shape)).unwrap();
            assert!(!c.ok, "{data:?} {shape:?}: {c:?}");
        }
    }

    #[test]
    fn command_lines() {
        let p = |a: &[&str]| parse(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let o = p(&["mlp_b1", "--peers", "--python", "py", "--budget", "0.5"]).unwrap();
        assert_eq!(o.rows, vec!["mlp_b1"]);
        assert!(o.peers);
        assert_eq!(o.python, "py");
        assert_eq!(o.budget, Duration::from_millis(500));
        let o = p(&["zoo_shufflenet", "--zoo"]).unwrap();
        assert_eq!(o.rows, vec!["zoo_shufflenet"]);
        assert!(o.zoo);
        for (bad, says) in [
            (&["nope"][..], "unknown row `nope`"),
            (&["--budget", "0"], "not a number of seconds"),
            (&["--budget"], "--budget needs a value"),
            (&["--frob"], "unexpected argument `--frob`"),
        ] {
            let e = format!("{:#}", p(bad).err().unwrap());
            assert!(e.contains(says), "{bad:?}: {e}");
        }
        assert_eq!(
            baseline_path("x/y.json"),
            PathBuf::from("x/y.json"),
            "a path is taken as it is"
        );
        assert!(baseline_path("main").ends_with("bench/baselines/main.json"));
    }
}
