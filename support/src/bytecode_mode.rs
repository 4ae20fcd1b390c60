//! The `bytecode` conformance mode: our whole compiler on each case — `module.py` (or
//! `legalized.py`) parsed, put through the [`Engine`] (LegalizeOps, the backend passes,
//! VMCodeGen, kernel JIT) and run by the bytecode interpreter — must compute what TVM computed
//! for every call of the case, in order, on one VM.
//!
//! The same runner serves compiled mode (an [`Engine`] with `ExecMode::Compiled`: a function
//! left to bytecode fails the case, since the mode was asked for) and, through
//! [`run_corpus_both`], the differential run of the two modes: each call runs on a bytecode VM
//! and on a compiled VM, the bytecode result is checked against TVM's, and the compiled result
//! must equal it bit for bit (or both must fail with the same message).
//!
//! Beside pass/fail, the runner compares our `as_text()` with TVM's `tvm_exec.txt` and counts
//! identical listings. TVM built `module.py` without fusion, so with fusion on, a case with
//! several operators differs by construction; the count is information, not a verdict.

use std::fmt;
use std::panic::AssertUnwindSafe;
use std::path::Path;

use crate::case::{Case, Report, check_calls, load_corpus};
use relaxjit::{CompiledModule, Engine, ExecMode};
use vm::Value;

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
    let compiled = engine.compile(&module).map_err(|e| format!("{e}"))?;
    if engine.config().exec_mode == ExecMode::Compiled
        && let Some(f) = compiled.fallbacks().first()
    {
        return Err(format!(
            "compiled mode left `{}` to bytecode: {}",
            f.function, f.reason
        ));
    }
    Ok(compiled)
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
    catch_case(|| {
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
    })
}

/// Runs one case from `input` in both modes, call by call: `bytecode`'s results are checked
/// against TVM's, and `compiled`'s must be identical to them — every output bit for bit, or the
/// same error message. The listing is the bytecode one.
pub fn run_case_both(
    bytecode: &Engine,
    compiled: &Engine,
    case: &Case,
    input: Input,
) -> CaseOutcome {
    catch_case(|| {
        let compile = |engine: &Engine, mode: &str| {
            compile_case(engine, case, input).map_err(|e| format!("compile ({mode}): {e}"))
        };
        let (b, c) = match (compile(bytecode, "bytecode"), compile(compiled, "compiled")) {
            (Ok(b), Ok(c)) => (b, c),
            (Err(e), _) | (_, Err(e)) => {
                return CaseOutcome {
                    result: Err(e),
                    listing: None,
                };
            }
        };
        let result = (|| {
            let vm_b = b.vm().map_err(|e| e.to_string())?;
            let vm_c = c.vm().map_err(|e| e.to_string())?;
            let mut disagreement = None;
            let checked = check_calls(case, |call| {
                // Fresh copies of the inputs for each mode, so that a call writing into its
                // arguments cannot make the modes see different inputs.
                let got_b = b.invoke(&vm_b, &call.function, &deep_copy(&call.inputs));
                let got_c = c.invoke(&vm_c, &call.function, &deep_copy(&call.inputs));
                let agree = match (&got_b, &got_c) {
                    (Ok(x), Ok(y)) => identical(x, y, "result"),
                    (Err(x), Err(y)) if x.to_string() == y.to_string() => Ok(()),
                    (x, y) => Err(format!(
                        "bytecode gave {}, compiled gave {}",
                        describe(x),
                        describe(y)
                    )),
                };
                if let Err(e) = agree
                    && disagreement.is_none()
                {
                    disagreement = Some(format!("call of {}: modes disagree: {e}", call.function));
                }
                got_b
            });
            checked?;
            disagreement.map_or(Ok(()), Err)
        })();
        CaseOutcome {
            result,
            listing: Some(b.executable().as_text()),
        }
    })
}

fn describe(r: &Result<Value, relaxjit::Error>) -> String {
    match r {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("the error `{e}`"),
    }
}

fn deep_copy(values: &[Value]) -> Vec<Value> {
    values
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => t.deep_copy().map_or_else(|_| v.clone(), Value::Tensor),
            Value::Tuple(t) => Value::tuple(deep_copy(t.fields())),
            other => other.clone(),
        })
        .collect()
}

/// Whether two results are the same value bit for bit: same structure, dtypes, shapes and
/// bytes; floats compared by their bits (so NaN payloads and signed zeros count).
pub fn identical(a: &Value, b: &Value, path: &str) -> Result<(), String> {
    match (a, b) {
        (Value::Tensor(x), Value::Tensor(y)) => {
            if x.dtype() != y.dtype() || x.shape() != y.shape() {
                return Err(format!(
                    "{path}: {} {:?} vs {} {:?}",
                    x.dtype(),
                    x.shape(),
                    y.dtype(),
                    y.shape()
                ));
            }
            let (bx, by) = (x.to_bytes(), y.to_bytes());
            match bx.iter().zip(&by).position(|(p, q)| p != q) {
                None => Ok(()),
                Some(i) => Err(format!("{path}: the tensors differ at byte {i}")),
            }
        }
        (Value::Tuple(x), Value::Tuple(y)) => {
            if x.len() != y.len() {
                return Err(format!("{path}: {} vs {} fields", x.len(), y.len()));
            }
            for (i, (p, q)) in x.iter().zip(y.iter()).enumerate() {
                identical(p, q, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Value::Float(x), Value::Float(y)) if x.to_bits() == y.to_bits() => Ok(()),
        (Value::Int(x), Value::Int(y)) if x == y => Ok(()),
        (Value::Bool(x), Value::Bool(y)) if x == y => Ok(()),
        (Value::Shape(x), Value::Shape(y)) if x == y => Ok(()),
        (Value::Str(x), Value::Str(y)) if x == y => Ok(()),
        (Value::DType(x), Value::DType(y)) if x == y => Ok(()),
        (Value::Null, Value::Null) => Ok(()),
        (Value::Closure(x), Value::Closure(y))
            if x.func_name() == y.func_name() && x.bound_args().len() == y.bound_args().len() =>
        {
            for (i, (p, q)) in x.bound_args().iter().zip(y.bound_args()).enumerate() {
                identical(p, q, &format!("{path}.bound[{i}]"))?;
            }
            Ok(())
        }
        (Value::Func(x), Value::Func(y)) if x.name() == y.name() => Ok(()),
        (Value::Float(_) | Value::Int(_) | Value::Bool(_) | Value::Shape(_), _)
        | (Value::Str(_) | Value::DType(_) | Value::Null | Value::Closure(_), _)
        | (Value::Func(_), _) => Err(format!("{path}: {a:?} vs {b:?}")),
        _ if a.type_name() == b.type_name() => Ok(()),
        _ => Err(format!("{path}: {} vs {}", a.type_name(), b.type_name())),
    }
}

fn catch_case(f: impl FnOnce() -> CaseOutcome) -> CaseOutcome {
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(f));
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
    corpus(dir, input, |case| run_case(engine, case, input))
}

/// Runs every case of the corpus in `dir` from `input` in both modes ([`run_case_both`]).
pub fn run_corpus_both(
    bytecode: &Engine,
    compiled: &Engine,
    dir: &Path,
    input: Input,
) -> Result<BytecodeReport, String> {
    corpus(dir, input, |case| {
        run_case_both(bytecode, compiled, case, input)
    })
}

fn corpus(
    dir: &Path,
    input: Input,
    mut run: impl FnMut(&Case) -> CaseOutcome,
) -> Result<BytecodeReport, String> {
    let cases = load_corpus(dir).map_err(|e| e.to_string())?;
    let mut out = BytecodeReport {
        input: Some(input),
        ..BytecodeReport::default()
    };
    for case in &cases {
        if !case.file(input.file_name()).is_file() {
            out.report.skipped += 1;
            continue;
        }
        let outcome = run(case);
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
