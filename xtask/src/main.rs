//! `cargo xtask …`: the workspace's tasks that `cargo build`/`cargo test` cannot express.
//!
//! ```text
//! cargo xtask conformance --mode tvm-bytecode [--dir DIR]
//! cargo xtask conformance --mode bytecode|compiled|both [--dir DIR] [--input module|legalized|both] [--no-fusion]
//! cargo xtask fuzz [--seconds N] [--seed S] [--count C] [--stall-seconds T]
//! cargo xtask fuzz --emit DIR [--seed S] [--count C]
//! cargo xtask fuzz-ops [--seconds N] [--seed S] [--count C] [--stall-seconds T]
//! cargo xtask fuzz-ops --emit DIR [--seed S] [--count C]
//! cargo xtask bench [ROW…] [--peers] [--python PATH] [--json FILE] [--save-baseline NAME] [--baseline NAME]
//! ```
//!
//! `conformance` runs a corpus (default: the repository's copy, `tests/conformance`) in one
//! execution mode, prints one line per failing case and closes with `N passed, M failed`; the
//! exit status is nonzero if any case failed. Modes:
//! * `tvm-bytecode`: TVM's bytecode (`tvm_exec.bin`) with kernels compiled from
//!   `tvm_lowered.py`.
//! * `bytecode`: our whole compiler (the `Engine`) on `module.py` and/or `legalized.py`, run by
//!   the bytecode interpreter; also counts listings identical to TVM's `tvm_exec.txt`.
//! * `compiled`: the same with every Relax function compiled to native code
//!   (`ExecMode::Compiled`); a function left to bytecode fails its case.
//! * `both`: each call in both modes; bytecode is checked against TVM and compiled must agree
//!   with bytecode bit for bit on every output, or fail with the same error.
//!
//! `fuzz` runs the kernel differential fuzzer (see [`fuzz`]); `fuzz-ops` the operator
//! differential fuzzer, library kernels against the TIR path (see [`fuzz_ops`]); `bench` the
//! performance suite of issue 10 beside onnxruntime and numpy (see [`bench`]).

mod bench;
mod fuzz;
mod fuzz_ops;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use support::bytecode_mode::Input;
use support::case::{Report, default_corpus_dir};

const USAGE: &str = "usage: cargo xtask conformance --mode MODE [--dir DIR] [--input module|legalized|both] [--no-fusion]
modes: tvm-bytecode, bytecode, compiled, both (--input: which file of each case bytecode mode compiles, default
both; --no-fusion: compile without FuseOps/FuseTIR, as TVM built tvm_exec.txt)
       cargo xtask fuzz [--seconds N] [--seed S] [--count C] [--stall-seconds T]
       cargo xtask fuzz-ops [--seconds N] [--seed S] [--count C] [--stall-seconds T]
       cargo xtask fuzz-ops --emit DIR [--seed S] [--count C]
       cargo xtask bench [ROW…] [--peers] [--python PATH] [--json FILE] [--save-baseline NAME] [--baseline NAME] [--budget SECONDS] [--list]";

/// An execution mode of the conformance runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// TVM's bytecode linked with our kernels.
    TvmBytecode,
    /// Our pipeline and the bytecode interpreter, from `module.py` and/or `legalized.py`.
    Bytecode,
    /// Our pipeline with every Relax function compiled to native code.
    Compiled,
    /// Bytecode and compiled side by side, differentially.
    Both,
}

impl Mode {
    fn parse(s: &str) -> Result<Mode> {
        match s {
            "tvm-bytecode" => Ok(Mode::TvmBytecode),
            "bytecode" => Ok(Mode::Bytecode),
            "compiled" => Ok(Mode::Compiled),
            "both" => Ok(Mode::Both),
            _ => bail!("unknown mode `{s}`\n{USAGE}"),
        }
    }

    fn run(self, dir: &std::path::Path, inputs: &[Input], fusion: bool) -> Result<Report> {
        match self {
            Mode::Bytecode | Mode::Compiled | Mode::Both => {
                let engine_in = |exec_mode| {
                    relaxjit::Engine::new(relaxjit::Config {
                        fusion,
                        exec_mode,
                        ..relaxjit::Config::default()
                    })
                };
                let bytecode = engine_in(relaxjit::ExecMode::Bytecode)?;
                let compiled = engine_in(relaxjit::ExecMode::Compiled)?;
                let mut all = Report::default();
                for &input in inputs {
                    let r = match self {
                        Mode::Bytecode => support::bytecode_mode::run_corpus(&bytecode, dir, input),
                        Mode::Compiled => support::bytecode_mode::run_corpus(&compiled, dir, input),
                        _ => support::bytecode_mode::run_corpus_both(
                            &bytecode, &compiled, dir, input,
                        ),
                    }
                    .map_err(anyhow::Error::msg)
                    .with_context(|| format!("running the corpus in {}", dir.display()))?;
                    println!("{r}");
                    all.passed += r.report.passed;
                    all.skipped += r.report.skipped;
                    all.failures.extend(
                        r.report
                            .failures
                            .into_iter()
                            .map(|f| format!("{}: {f}", input.file_name())),
                    );
                }
                Ok(all)
            }
            Mode::TvmBytecode => support::tvm_bytecode::run_corpus(dir)
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("running the corpus in {}", dir.display())),
        }
    }
}

struct ConformanceArgs {
    mode: Mode,
    dir: PathBuf,
    /// The files bytecode mode compiles.
    inputs: Vec<Input>,
    fusion: bool,
}

fn parse_inputs(s: &str) -> Result<Vec<Input>> {
    match s {
        "module" => Ok(vec![Input::Module]),
        "legalized" => Ok(vec![Input::Legalized]),
        "both" => Ok(vec![Input::Module, Input::Legalized]),
        _ => bail!("unknown --input `{s}`\n{USAGE}"),
    }
}

fn parse_conformance(args: &[String]) -> Result<ConformanceArgs> {
    let mut mode = None;
    let mut dir = None;
    let mut inputs = None;
    let mut fusion = true;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .with_context(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--mode" => mode = Some(Mode::parse(&value("--mode")?)?),
            "--dir" => dir = Some(PathBuf::from(value("--dir")?)),
            "--input" => inputs = Some(parse_inputs(&value("--input")?)?),
            "--no-fusion" => fusion = false,
            "-h" | "--help" => bail!("{USAGE}"),
            other => bail!("unexpected argument `{other}`\n{USAGE}"),
        }
    }
    Ok(ConformanceArgs {
        mode: mode.with_context(|| format!("--mode is required\n{USAGE}"))?,
        dir: dir.unwrap_or_else(default_corpus_dir),
        inputs: inputs.unwrap_or_else(|| vec![Input::Module, Input::Legalized]),
        fusion,
    })
}

/// `cargo xtask conformance …`; `Ok(false)` if a case failed.
fn conformance(args: &[String]) -> Result<bool> {
    let c = parse_conformance(args)?;
    let report = c.mode.run(&c.dir, &c.inputs, c.fusion)?;
    if report.passed + report.failures.len() == 0 {
        bail!("no case for this mode in {}", c.dir.display());
    }
    let ours = matches!(c.mode, Mode::Bytecode | Mode::Compiled | Mode::Both);
    if ours && c.inputs.len() > 1 {
        // Each input's report was printed; close with the total.
        let skipped = match report.skipped {
            0 => String::new(),
            n => format!(", {n} skipped (no input file)"),
        };
        println!(
            "total: {} passed, {} failed{skipped}",
            report.passed,
            report.failures.len()
        );
    } else if !ours {
        println!("{report}");
    }
    Ok(report.failures.is_empty())
}

fn run() -> Result<bool> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("conformance") => conformance(&args[1..]),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("fuzz-worker") => fuzz::worker(&args[1..]),
        Some("fuzz-ops") => fuzz_ops::run(&args[1..]),
        Some("fuzz-ops-worker") => fuzz_ops::worker(&args[1..]),
        Some(other) => bail!("unknown task `{other}`\n{USAGE}"),
        None => bail!("{USAGE}"),
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{e:#}");
            ExitCode::from(2)
        }
    }
}
