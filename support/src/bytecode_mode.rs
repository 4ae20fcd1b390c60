//! The `bytecode` conformance mode: our whole compiler on each case — `module.py` (or
//! `legalized.py`) parsed, put through the [`Engine`] (LegalizeOps, the backend passes,
//! VMCodeGen, kernel JIT) and run by the bytecode interpreter — must compute what TVM computed
//! for every call of the case, in order, on one VM.
//!
//! Beside pass/fail, the runner compares our `as_text()` with TVM's `tvm_exec.txt` and counts
//! identical listings. TVM built `module.py` without fusion, so with fusion on, a case with
//! several operators differs by construction; the count is information, not a verdict.

use std::fmt;
use std::panic::AssertUnwindSafe;
use std::path::Path;

use crate::case::{Case, Report, check_calls, load_corpus};
use relaxjit::{CompiledModule, Engine};

/// Which printed file of a case is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// `module.py`: high-level operators, legalized by our LegalizeOps.
    Module,
    /// `legalized.py`: TVM's legalized and fused module (`call_tir` of TVM's PrimFuncs).
    Legalized,
}

impl Input {
    pub fn file_name(self) -> &'static str {
        match self {
            Input::Module => "module.py",
            Input::Legalized => "legalized.py",
        }
    }
}

/// The outcome of one case.
#[derive(Debug)]
pub struct CaseOutcome {
    /// `Ok` if every call matched; otherwise the first problem.
    pub result: Result<(), String>,
    /// Our bytecode listing, if the module compiled.
    pub listing: Option<String>,
}

/// Compiles a case's `input` file with `engine` (after the case's pre-passes).
pub fn compile_case(engine: &Engine, case: &Case, input: Input) -> Result<CompiledModule, String> {
    let file = input.file_name();
    let path = case.file(file);
    let src = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let metadata = case.metadata.get(file).cloned().unwrap_or_default();
    let mut module = Engine::parse_with_metadata(&src, metadata).map_err(|e| format!("{e}"))?;
    for pass in &case.pre_passes {
        module = match pass.as_str() {
            "LambdaLift" => relax::transform::lambda_lift(&module)
                .map_err(|e| format!("pre-pass LambdaLift: {e}"))?,
            // TVM's LegalizeOps leaves sort/scan operators to this backend dispatch; ours
            // legalizes them itself, so there is nothing left for it to do.
            "DispatchSortScan" => module,
            other => return Err(format!("unknown pre-pass `{other}`")),
        };
    }
    engine.compile(&module).map_err(|e| format!("{e}"))
}

/// Runs the calls of a case in order on one VM and compares each with its expectation.
pub fn run_calls(compiled: &CompiledModule, case: &Case) -> Result<(), String> {
    let vm = compiled.vm().map_err(|e| e.to_string())?;
    check_calls(case, |call| {
        compiled.invoke(&vm, &call.function, &call.inputs)
    })
}

/// Runs one case from `input`. A panic anywhere (a bug, never an acceptable outcome) is caught
/// and reported as the case's failure, so that one case cannot stop a corpus run.
pub fn run_case(engine: &Engine, case: &Case, input: Input) -> CaseOutcome {
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let compiled = match compile_case(engine, case, input) {
            Ok(c) => c,
            Err(e) => {
                return CaseOutcome {
                    result: Err(format!("compile: {e}")),
                    listing: None,
                };
            }
        };
        CaseOutcome {
            result: run_calls(&compiled, case),
            listing: Some(compiled.executable().as_text()),
        }
    }));
    outcome.unwrap_or_else(|payload| {
        let msg = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        CaseOutcome {
            result: Err(format!("panicked: {msg}")),
            listing: None,
        }
    })
}

/// A corpus run: pass/fail per case and the listing comparison with TVM.
#[derive(Debug, Default)]
pub struct BytecodeReport {
    pub input: Option<Input>,
    pub report: Report,
    /// Cases whose listing could be compared (compiled, with a `tvm_exec.txt`).
    pub compared: usize,
    /// Cases whose `as_text()` equals TVM's `tvm_exec.txt`.
    pub identical: Vec<String>,
    /// Cases whose listing differs, with the first differing line (ours, then TVM's).
    pub differing: Vec<String>,
}

impl fmt::Display for BytecodeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.input.map_or("", Input::file_name);
        writeln!(
            f,
            "{file}: as_text identical to tvm_exec.txt: {}/{}",
            self.identical.len(),
            self.compared
        )?;
        for d in &self.differing {
            writeln!(f, "  as_text differs: {d}")?;
        }
        write!(f, "{}", self.report)
    }
}

/// Runs every case of the corpus in `dir` from `input` with `engine`.
pub fn run_corpus(engine: &Engine, dir: &Path, input: Input) -> Result<BytecodeReport, String> {
    let cases = load_corpus(dir).map_err(|e| e.to_string())?;
    let mut out = BytecodeReport {
        input: Some(input),
        ..BytecodeReport::default()
    };
    for case in &cases {
        let outcome = run_case(engine, case, input);
        if let (Some(ours), Ok(tvm)) = (
            &outcome.listing,
            std::fs::read_to_string(case.file("tvm_exec.txt")),
        ) {
            out.compared += 1;
            if *ours == tvm {
                out.identical.push(case.name.clone());
            } else {
                // Bounded by the longer listing: texts that differ only in line endings or a
                // trailing newline have no differing line, and report line 1.
                let longest = ours.lines().count().max(tvm.lines().count());
                let (line, (a, b)) = ours
                    .lines()
                    .chain(std::iter::repeat(""))
                    .zip(tvm.lines().chain(std::iter::repeat("")))
                    .take(longest)
                    .enumerate()
                    .find(|(_, (a, b))| a != b)
                    .unwrap_or((0, ("", "")));
                out.differing.push(format!(
                    "{} line {}: `{}` vs TVM `{}`",
                    case.name,
                    line + 1,
                    a.trim(),
                    b.trim()
                ));
            }
        }
        out.report.record(&case.name, outcome.result);
    }
    Ok(out)
}
