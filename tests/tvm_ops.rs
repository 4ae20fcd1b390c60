//! The operator table checked against real TVM: `tests/tvm_ops/` holds one conformance case per
//! line of `relax/tests/ops/cases.txt` and of `tests/tvm_ops/more_calls.txt` that TVM 0.27 could
//! build and run (made by
//! `tests/tvm_ops/generate.py` with Apache TVM; see its README). Every case must compute what
//! TVM's VM returned, from `module.py` (our inference, legalization and kernels) and from
//! `legalized.py` (TVM's kernels through our TIR reader and JIT), in both exec modes, with and
//! without fusion. A case may leave a file out only where TVM itself is wrong or reads outside
//! its buffers; it says so in its `notes`.

use std::path::{Path, PathBuf};

use relaxjit::{Config, Engine, ExecMode};
use support::bytecode_mode::{Input, run_corpus_both};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("tvm_ops")
}

fn check(input: Input, fusion: bool) {
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
        &corpus(),
        input,
    )
    .expect("the corpus loads");
    println!("{report}");
    assert!(
        report.report.passed >= 330,
        "only {} cases ran from {}",
        report.report.passed,
        input.file_name()
    );
    assert!(
        report.report.failures.is_empty(),
        "{}:\n{}",
        input.file_name(),
        report.report.failures.join("\n")
    );
}

#[test]
fn every_operator_from_module_py() {
    check(Input::Module, true);
}

#[test]
fn every_operator_from_module_py_without_fusion() {
    check(Input::Module, false);
}

#[test]
fn every_operator_from_legalized_py() {
    check(Input::Legalized, true);
}

/// A case without one of the printed files says why in its `notes`.
#[test]
fn left_out_files_are_explained() {
    let mut left_out = 0;
    for entry in std::fs::read_dir(corpus()).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(text) = std::fs::read_to_string(dir.join("case.json")) else {
            continue;
        };
        for file in ["module.py", "legalized.py"] {
            if !dir.join(file).is_file() {
                left_out += 1;
                let json: serde_json::Value = serde_json::from_str(&text).unwrap();
                let explained = json["notes"].as_array().is_some_and(|notes| {
                    notes
                        .iter()
                        .any(|n| n.as_str().is_some_and(|n| n.contains(file)))
                });
                assert!(
                    explained,
                    "{} has no {file} and no note saying why",
                    dir.display()
                );
            }
        }
    }
    assert!(left_out <= 8, "{left_out} files left out");
}
