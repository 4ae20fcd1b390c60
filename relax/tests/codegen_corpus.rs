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

#[test]
fn codegen_matches_tvm_bytecode() {
    let mut listings = corpus::Listings::default();
    for dir in corpus::cases() {
        let name = corpus::case_name(&dir);
        let (Ok(src), Ok(want)) = (
            std::fs::read_to_string(dir.join("tvm_lowered.py")),
            std::fs::read_to_string(dir.join("tvm_exec.txt")),
        ) else {
            continue;
        };
        let json = corpus::case_json(&dir);
        let result = corpus::metadata(&json, "tvm_lowered.py")
            .map_err(|e| format!("metadata: {e}"))
            .and_then(|meta| {
                parse_module_with(&src, &ReadOptions::with_metadata(meta))
                    .map_err(|e| format!("parse: {e}"))
            })
            .and_then(|m| relax::codegen::codegen(&m).map_err(|e| format!("codegen: {e}")));
        match result {
            Err(e) => listings.fail(&name, e),
            Ok((exec, _)) => listings.compare(name, &exec.as_text(), &want),
        }
    }
    listings.finish("VMCodeGen", include_str!("codegen_identical.txt"));
}
