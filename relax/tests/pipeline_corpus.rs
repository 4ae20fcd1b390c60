//! The backend pipeline against TVM: every corpus case's `legalized.py` goes through our passes
//! (`relax::pipeline::build`) and VMCodeGen, and the listing is compared with TVM's
//! `tvm_exec.txt`.
//!
//! The pipeline must succeed on every case except the known gaps below. Identity with TVM is a
//! goal, reported for all cases; `pipeline_identical.txt` names the cases that are identical
//! today and may only grow, so a regression fails. (TVM built `module.py` without fusion, while
//! `legalized.py` is fused, so multi-op cases differ by construction.)

mod corpus;

use relaxjit_relax as relax;

use relax::script::{ReadOptions, parse_module_with};

/// Cases the pipeline cannot build yet, with the reason.
const KNOWN_GAPS: &[(&str, &str)] = &[];

#[test]
fn pipeline_matches_tvm_bytecode() {
    let mut listings = corpus::Listings::default();
    for dir in corpus::cases() {
        let name = corpus::case_name(&dir);
        let Ok(src) = std::fs::read_to_string(dir.join("legalized.py")) else {
            continue;
        };
        let json = corpus::case_json(&dir);
        let result = corpus::metadata(&json, "legalized.py")
            .map_err(|e| format!("metadata: {e}"))
            .and_then(|meta| {
                parse_module_with(&src, &ReadOptions::with_metadata(meta))
                    .map_err(|e| format!("parse: {e}"))
            })
            .and_then(|m| {
                let m = if corpus::pre_passes(&json).iter().any(|p| p == "LambdaLift") {
                    relax::transform::lambda_lift(&m).map_err(|e| format!("LambdaLift: {e}"))?
                } else {
                    m
                };
                relax::pipeline::build(&m).map_err(|e| format!("pipeline: {e}"))
            });
        match result {
            Err(e) => {
                if !KNOWN_GAPS.iter().any(|(n, _)| *n == name) {
                    listings.fail(&name, e);
                } else {
                    println!("  known gap: {name}: {e}");
                }
            }
            Ok((exec, _)) => {
                let Ok(want) = std::fs::read_to_string(dir.join("tvm_exec.txt")) else {
                    continue;
                };
                listings.compare(name, &exec.as_text(), &want);
            }
        }
    }
    listings.finish("pipeline", include_str!("pipeline_identical.txt"));
}
