//! The bounded differential run of opfuzz (a fixed range of seeds, deterministic) and the
//! regression cases of `tests/cases/`: each a `.py` file written by `Case::to_file` (header
//! comments: arguments, constants, inputs, comparison; then the module), run under every setup
//! and required to agree.

use std::collections::BTreeSet;
use std::path::Path;

use program_fuzz::{Case, Verdict};

/// Seeds of the bounded run: about half a minute in release on two cores.
const SEEDS: std::ops::Range<u64> = 0..1500;

#[test]
fn generated_programs_agree_across_setups() {
    let setups = program_fuzz::setups();
    let summary = program_fuzz::run_seeds(&setups, SEEDS, |_| {});
    println!("{summary}");
    let mut report = String::new();
    for (seed, m) in &summary.mismatches {
        report += &format!(
            "\nseed {seed}: {} ({})\n{}\n{}",
            m.class,
            m.setup,
            m.detail,
            program_fuzz::describe(&program_fuzz::generate(*seed))
        );
    }
    assert!(summary.mismatches.is_empty(), "{report}");
}

#[test]
fn regression_cases_agree_across_setups() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/cases")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    let setups = program_fuzz::setups();
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a case file");
        let case = Case::from_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut hits = BTreeSet::new();
        match program_fuzz::check(&setups, &case, &mut hits) {
            Verdict::Agree(_) => println!("ok {} {hits:?}", path.display()),
            Verdict::Mismatch(m) => failures.push(format!(
                "{}: {} ({}): {}",
                path.display(),
                m.class,
                m.setup,
                m.detail
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_case_file_reads_back() {
    for seed in 0..50 {
        let case = program_fuzz::generate(seed);
        let back = Case::from_file(&case.to_file()).expect("a case file");
        assert_eq!(back.args, case.args, "seed {seed}");
        assert_eq!(back.consts, case.consts, "seed {seed}");
        assert_eq!(
            (back.input_seed, back.integers, back.special, back.compare),
            (case.input_seed, case.integers, case.special, case.compare),
            "seed {seed}"
        );
        assert_eq!(back.seed, seed);
    }
}
