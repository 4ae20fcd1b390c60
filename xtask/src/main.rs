//! `cargo xtask …`: the workspace's tasks that `cargo build`/`cargo test` cannot express.
//!
//! ```text
//! cargo xtask conformance --mode tvm-bytecode [--dir DIR]
//! ```
//!
//! `conformance` runs a corpus (default: the repository's copy, `tests/conformance`) in one
//! execution mode, prints one line per failing case and closes with `N passed, M failed`; the
//! exit status is nonzero if any case failed. Modes:
//! * `tvm-bytecode`: TVM's bytecode (`tvm_exec.bin`) with kernels compiled from
//!   `tvm_lowered.py`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use relaxjit::conformance::{Report, default_corpus_dir};

const USAGE: &str = "usage: cargo xtask conformance --mode MODE [--dir DIR]
modes: tvm-bytecode";

/// An execution mode of the conformance runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// TVM's bytecode linked with our kernels.
    TvmBytecode,
}

impl Mode {
    fn parse(s: &str) -> Result<Mode> {
        match s {
            "tvm-bytecode" => Ok(Mode::TvmBytecode),
            _ => bail!("unknown mode `{s}`\n{USAGE}"),
        }
    }

    fn run(self, dir: &std::path::Path) -> Result<Report> {
        match self {
            Mode::TvmBytecode => relaxjit::tvm_bytecode::run_corpus(dir)
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("running the corpus in {}", dir.display())),
        }
    }
}

struct ConformanceArgs {
    mode: Mode,
    dir: PathBuf,
}

fn parse_conformance(args: &[String]) -> Result<ConformanceArgs> {
    let mut mode = None;
    let mut dir = None;
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
            "-h" | "--help" => bail!("{USAGE}"),
            other => bail!("unexpected argument `{other}`\n{USAGE}"),
        }
    }
    Ok(ConformanceArgs {
        mode: mode.with_context(|| format!("--mode is required\n{USAGE}"))?,
        dir: dir.unwrap_or_else(default_corpus_dir),
    })
}

fn run() -> Result<bool> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("conformance") => {
            let c = parse_conformance(&args[1..])?;
            let report = c.mode.run(&c.dir)?;
            if report.passed + report.failures.len() == 0 {
                bail!("no case for this mode in {}", c.dir.display());
            }
            println!("{report}");
            Ok(report.failures.is_empty())
        }
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
