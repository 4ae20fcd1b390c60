//! The user-style corpus (`tests/user_style/`, see its README): TVMScript as people write it,
//! each case with the outputs and the printed text of real TVM. Every case must compute what
//! TVM computed (compiled by our pipeline from `module.py`, run by the bytecode interpreter
//! and in compiled mode), and `relaxjit fmt` of `module.py` (parse, then print) must be
//! exactly TVM's `mod.script()` of it (`tvm_printed.py`).

use std::path::{Path, PathBuf};

use relaxjit::{Config, Engine, ExecMode};
use support::bytecode_mode::{Input, run_corpus_both};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/user_style")
}

fn case_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/user_style")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("module.py").is_file())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn every_user_style_case_computes_what_tvm_computed() {
    let compiled = Engine::new(Config {
        exec_mode: ExecMode::Compiled,
        ..Config::default()
    })
    .expect("an engine");
    let report = run_corpus_both(&Engine::default(), &compiled, &corpus_dir(), Input::Module)
        .expect("the corpus loads");
    println!("{report}");
    assert!(
        report.report.passed >= 30,
        "expected at least 30 cases, {} passed",
        report.report.passed
    );
    assert!(
        report.report.failures.is_empty(),
        "{}",
        report.report.failures.join("\n")
    );
}

#[test]
fn fmt_of_every_user_style_case_is_what_tvm_prints() {
    let mut equal = 0;
    let mut failures = Vec::new();
    let dirs = case_dirs();
    for dir in &dirs {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        let src = std::fs::read_to_string(dir.join("module.py")).expect("module.py");
        let tvm = std::fs::read_to_string(dir.join("tvm_printed.py")).expect("tvm_printed.py");
        match relax::script::parse_module(&src) {
            Ok(m) => {
                let ours = relax::script::print_module(&m);
                if ours.trim_end() == tvm.trim_end() {
                    equal += 1;
                } else {
                    failures.push(format!("{name}: printed text differs from TVM's:\n{ours}"));
                }
            }
            Err(e) => failures.push(format!("{name}: does not parse:\n{e}")),
        }
    }
    println!(
        "{equal} of {} printed exactly as TVM prints them",
        dirs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Our bytecode listing of every case (its `module.py` through our whole pipeline, without
/// fusion and the native library, as `relax.build` ran) against TVM's `tvm_exec.txt`. Identity is a goal, reported for
/// every case; `listing_identical.txt` names the cases identical today and may only grow.
#[test]
fn listings_of_user_style_cases_against_tvm() {
    let engine = Engine::new(Config {
        library: false,
        fusion: false,
        ..Config::default()
    })
    .expect("an engine");
    let mut identical = Vec::new();
    let mut diffs = Vec::new();
    let dirs = case_dirs();
    for dir in &dirs {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        let Ok(want) = std::fs::read_to_string(dir.join("tvm_exec.txt")) else {
            continue;
        };
        let case = support::case::Case::load(dir).expect("case.json");
        let compiled = support::bytecode_mode::compile_case(&engine, &case, Input::Module)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = compiled.executable().as_text();
        if got == want {
            identical.push(name.to_string());
        } else {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(g, w)| g != w)
                .unwrap_or(got.lines().count().min(want.lines().count()));
            diffs.push(format!(
                "{name}: line {}: ours {:?}, TVM's {:?}",
                line + 1,
                got.lines().nth(line).unwrap_or(""),
                want.lines().nth(line).unwrap_or("")
            ));
        }
    }
    println!(
        "{} of {} listings identical to TVM's",
        identical.len(),
        dirs.len()
    );
    for d in &diffs {
        println!("  differs: {d}");
    }
    let regressed: Vec<&str> = include_str!("user_style/listing_identical.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|n| !identical.iter().any(|i| i == n))
        .collect();
    assert!(regressed.is_empty(), "no longer identical: {regressed:?}");
}
