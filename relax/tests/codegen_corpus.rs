//! VMCodeGen against TVM: every corpus case's `tvm_lowered.py` (the module TVM's own codegen
//! consumed) goes through our VMCodeGen alone, and the listing is compared byte for byte with
//! TVM's `tvm_exec.txt`.
//!
//! Cases whose listing is identical today are named in `codegen_identical.txt` beside this file;
//! that list may only grow, so a regression fails. The others are printed with their first
//! difference. Every case must at least compile.

mod corpus;

use relaxjit_relax as relax;

use relax::script::{ReadOptions, parse_module_with};

fn identical_list() -> Vec<String> {
    include_str!("codegen_identical.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn codegen_matches_tvm_bytecode() {
    let mut total = 0;
    let mut identical = Vec::new();
    let mut failures = Vec::new();
    let mut diffs = Vec::new();
    for dir in corpus::cases() {
        let name = corpus::case_name(&dir);
        let (Ok(src), Ok(want)) = (
            std::fs::read_to_string(dir.join("tvm_lowered.py")),
            std::fs::read_to_string(dir.join("tvm_exec.txt")),
        ) else {
            continue;
        };
        total += 1;
        let json = corpus::case_json(&dir);
        let result = corpus::metadata(&json, "tvm_lowered.py")
            .map_err(|e| format!("metadata: {e}"))
            .and_then(|meta| {
                parse_module_with(&src, &ReadOptions::with_metadata(meta))
                    .map_err(|e| format!("parse: {e}"))
            })
            .and_then(|m| relax::codegen::codegen(&m).map_err(|e| format!("codegen: {e}")));
        match result {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok((exec, _)) => {
                let got = exec.as_text();
                if got == want {
                    identical.push(name);
                } else {
                    diffs.push(format!("{name}: {}", corpus::first_difference(&got, &want)));
                }
            }
        }
    }
    println!(
        "VMCodeGen: {}/{total} listings identical to TVM's",
        identical.len()
    );
    for d in &diffs {
        println!("  differs: {d}");
    }
    for f in &failures {
        println!("  FAILED: {f}");
    }
    let regressed: Vec<String> = identical_list()
        .into_iter()
        .filter(|n| !identical.contains(n))
        .collect();
    assert!(failures.is_empty(), "codegen failed: {failures:#?}");
    assert!(regressed.is_empty(), "no longer identical: {regressed:?}");
}
