//! The `tvm-bytecode` conformance mode over the repository's corpus: TVM's bytecode linked
//! with kernels compiled from TVM's lowered PrimFuncs must reproduce TVM's results.

use support::case::{default_corpus_dir, load_corpus};
use support::tvm_bytecode::{has_tvm_bytecode, run_tvm_bytecode};

/// Cases expected to fail, each with the reason. Keep this list short: a case here is a bug or
/// a missing feature, not a tolerance.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

#[test]
fn every_case_matches_tvm() {
    let cases = load_corpus(&default_corpus_dir()).expect("the corpus loads");
    let mut unexpected = Vec::new();
    let mut fixed = Vec::new();
    let mut passed = 0;
    let mut failed = 0;
    for case in cases.iter().filter(|c| has_tvm_bytecode(c)) {
        let known = KNOWN_FAILURES.iter().find(|(n, _)| *n == case.name);
        match (run_tvm_bytecode(case), known) {
            (Ok(()), None) => passed += 1,
            (Ok(()), Some((name, _))) => {
                passed += 1;
                fixed.push(format!("{name} passes now; remove it from KNOWN_FAILURES"));
            }
            (Err(e), None) => {
                failed += 1;
                unexpected.push(format!("FAIL {}: {e}", case.name));
            }
            (Err(_), Some(_)) => failed += 1,
        }
    }
    println!(
        "{passed} passed, {failed} failed ({} known)",
        KNOWN_FAILURES.len()
    );
    assert!(passed >= 80, "only {passed} cases ran");
    assert!(
        unexpected.is_empty() && fixed.is_empty(),
        "{}",
        unexpected
            .iter()
            .chain(&fixed)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
