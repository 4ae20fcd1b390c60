//! The `bytecode` conformance mode over the repository's corpus: every case, compiled by our
//! own pipeline from `module.py` and, separately, from `legalized.py`, must compute what TVM
//! computed — except the known failures listed below with their reasons. A case that fails and
//! is not listed fails the test; a listed case that passes is reported so the list can shrink.
//!
//! The same corpus runs in both exec modes side by side (`run_corpus_both`): compiled mode must
//! compile every function (no fallback to bytecode) and agree with bytecode mode bit for bit on
//! every output and on every error.
//!
//! The number of bytecode listings identical to TVM's `tvm_exec.txt` is printed, not asserted
//! (with fusion on, our module differs from the unfused one TVM built).

use relaxjit::{Config, Engine, ExecMode};
use support::bytecode_mode::{BytecodeReport, Input, run_corpus, run_corpus_both};
use support::case::default_corpus_dir;

/// Cases that fail from `module.py`, with the reason.
const KNOWN_MODULE_FAILURES: &[(&str, &str)] = &[];

/// Cases that fail from `legalized.py`, with the reason.
const KNOWN_LEGALIZED_FAILURES: &[(&str, &str)] = &[];

fn check(engine: &Engine, input: Input, known: &[(&str, &str)]) {
    let report = run_corpus(engine, &default_corpus_dir(), input).expect("the corpus loads");
    check_report(report, input, known);
}

fn check_both(fusion: bool, input: Input, known: &[(&str, &str)]) {
    let engine = |exec_mode| {
        Engine::new(Config {
            exec_mode,
            fusion,
            ..Config::default()
        })
        .unwrap()
    };
    let report = run_corpus_both(
        &engine(ExecMode::Bytecode),
        &engine(ExecMode::Compiled),
        &default_corpus_dir(),
        input,
    )
    .expect("the corpus loads");
    check_report(report, input, known);
}

fn check_report(report: BytecodeReport, input: Input, known: &[(&str, &str)]) {
    println!("{report}");
    let failed: Vec<&str> = report
        .report
        .failures
        .iter()
        .filter_map(|f| f.strip_prefix("FAIL ")?.split(':').next())
        .collect();
    for (name, _) in known {
        if !failed.contains(name) {
            println!(
                "{}: `{name}` passes now; remove it from the known failures",
                input.file_name()
            );
        }
    }
    let unexpected: Vec<&String> = report
        .report
        .failures
        .iter()
        .filter(|f| {
            let name = f.strip_prefix("FAIL ").and_then(|f| f.split(':').next());
            !known.iter().any(|(n, _)| Some(*n) == name)
        })
        .collect();
    assert!(
        report.report.passed > 0,
        "no case ran from {}",
        input.file_name()
    );
    assert!(
        unexpected.is_empty(),
        "{} failures not in the known list:\n{}",
        input.file_name(),
        unexpected
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn every_case_from_module_py() {
    check(&Engine::default(), Input::Module, KNOWN_MODULE_FAILURES);
}

/// Without fusion our module is the one TVM built, so this run's listing count is the one to
/// compare with TVM.
#[test]
fn every_case_from_module_py_without_fusion() {
    let engine = Engine::new(Config {
        fusion: false,
        ..Config::default()
    })
    .unwrap();
    println!("(without fusion)");
    check(&engine, Input::Module, KNOWN_MODULE_FAILURES);
}

#[test]
fn every_case_from_legalized_py() {
    check(
        &Engine::default(),
        Input::Legalized,
        KNOWN_LEGALIZED_FAILURES,
    );
}

#[test]
fn every_case_in_both_modes_from_module_py() {
    check_both(true, Input::Module, KNOWN_MODULE_FAILURES);
}

/// Unfused: one kernel call per operator, so the most direct kernel calls.
#[test]
fn every_case_in_both_modes_from_module_py_without_fusion() {
    check_both(false, Input::Module, KNOWN_MODULE_FAILURES);
}

#[test]
fn every_case_in_both_modes_from_legalized_py() {
    check_both(true, Input::Legalized, KNOWN_LEGALIZED_FAILURES);
}
