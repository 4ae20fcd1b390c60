//! The front half of the pipeline (`relax::pipeline::optimize`: LambdaLift, LegalizeOps,
//! AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR, DCE, CanonicalizeBindings) over the
//! conformance corpus, against TVM's `legalized.py` (which is `module.py` after LegalizeOps,
//! AnnotateTIROpPattern, FoldConstant, FuseOps and FuseTIR).
//!
//! For every case whose `module.py` optimizes:
//! * the PrimFuncs are compared with `legalized.py`'s by name and `tir::structural_equal` (those
//!   that LegalizeOps generated with possibly empty reductions decomposed as ours are,
//!   `corpus::as_our_legalization`), and
//!   whole modules with `relax::structural_equal`; the counts are printed, and the number of
//!   structurally equal modules may not fall below [`MIN_EQUAL_MODULES`];
//! * when `main` is nothing but `call_tir`s, tuples and constants, every call of case.json is
//!   run through the optimized kernels in `tir::interp` and compared with TVM's `expected`;
//!   all must match (except [`KNOWN_GAPS`]).
//!
//! `OPTIMIZE_VERBOSE=1` prints every difference.

use std::collections::HashMap;
use std::path::Path;

use relax::IRModule;
use relax::script::{ReadOptions, parse_module_with};
use relaxjit_relax as relax;
use serde_json::Value as Json;

mod corpus;

use corpus::call_tir_runner::*;
use corpus::cases;
/// Cases whose results do not match TVM's yet, with the reason.
const KNOWN_GAPS: &[&str] = &[];

/// Modules structurally equal to TVM's `legalized.py` (may only grow).
const MIN_EQUAL_MODULES: usize = 80;

// ----- the test ----------------------------------------------------------------------------

fn read(case: &Path, file: &str, json: &Json) -> Result<IRModule, String> {
    let src = std::fs::read_to_string(case.join(file)).map_err(|e| e.to_string())?;
    let metadata: Vec<vm::Tensor> = json["metadata"][file]["ir.GenericConst"]
        .as_array()
        .map(|a| a.iter().filter_map(vm_tensor_from_json).collect())
        .unwrap_or_default();
    parse_module_with(&src, &ReadOptions::with_metadata(metadata)).map_err(|e| e.to_string())
}

#[test]
fn optimize_matches_tvm_legalized_on_the_corpus() {
    let verbose = std::env::var_os("OPTIMIZE_VERBOSE").is_some();
    let (mut optimized, mut equal_modules, mut covered, mut matched) = (0, 0, 0, 0);
    let (mut funcs, mut funcs_named, mut funcs_equal, mut funcs_tvm) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    let mut not_optimized = Vec::new();
    for case in cases() {
        let name = case
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(text) = std::fs::read_to_string(case.join("case.json")) else {
            continue;
        };
        let Ok(json) = serde_json::from_str::<Json>(&text) else {
            failures.push(format!("{name}: case.json does not parse"));
            continue;
        };
        let module = match read(&case, "module.py", &json) {
            Ok(m) => m,
            Err(e) => {
                not_optimized.push(format!("{name}: module.py: {e}"));
                continue;
            }
        };
        // TVM's legalized.py legalizes every operator; library dispatch would replace some.
        let config = relax::pipeline::OptConfig {
            library: false,
            ..relax::pipeline::OptConfig::default()
        };
        let out = match relax::pipeline::optimize(&module, &config) {
            Ok(m) => m,
            Err(relax::Error::Unsupported(m)) => {
                not_optimized.push(format!("{name}: {m}"));
                continue;
            }
            Err(e) => {
                failures.push(format!("{name}: optimize failed: {e}"));
                continue;
            }
        };
        optimized += 1;
        if let Err(e) = relax::well_formed::check(&out) {
            failures.push(format!("{name}: optimized module is malformed: {e}"));
        }
        if let Ok(mut want) = read(&case, "legalized.py", &json) {
            // The PrimFuncs LegalizeOps generated (not the module's own) as ours generates them.
            for (fname, f) in want.functions.iter_mut() {
                if let relax::ir::BaseFunc::Tir(pf) = f
                    && module.get(fname).is_none()
                {
                    *pf = corpus::as_our_legalization(pf);
                }
            }
            let want_funcs: HashMap<&String, &tir::PrimFunc> = want.prim_funcs().collect();
            funcs_tvm += want_funcs.len();
            for (fname, f) in out.prim_funcs() {
                funcs += 1;
                if let Some(w) = want_funcs.get(fname) {
                    funcs_named += 1;
                    match tir::structural_diff(f, w) {
                        None => funcs_equal += 1,
                        Some(d) if verbose => println!("{name}/{fname}: {d}"),
                        Some(_) => {}
                    }
                } else if verbose {
                    println!("{name}/{fname}: not in legalized.py");
                }
            }
            match relax::structural_eq::structural_diff(&out, &want) {
                None => equal_modules += 1,
                Some(d) if verbose => println!("{name}: module differs: {d}"),
                Some(_) => {}
            }
        }
        if let Err(why) = coverage(&out) {
            if verbose {
                println!("{name}: not evaluated: {why}");
            }
            continue;
        }
        covered += 1;
        let wrong = check_main_calls(&out, &json);
        for (k, m) in &wrong {
            if !KNOWN_GAPS.contains(&name.as_str()) {
                failures.push(format!("{name}: call {k}: {m}"));
            } else if verbose {
                println!("{name} (known gap): call {k}: {m}");
            }
        }
        matched += usize::from(wrong.is_empty());
    }
    for s in &not_optimized {
        println!("not optimized: {s}");
    }
    println!(
        "optimize: {optimized} cases optimized, {equal_modules} modules structurally equal to legalized.py, {covered} evaluated, {matched} match TVM's results"
    );
    println!(
        "prim_funcs: {funcs} produced ({funcs_tvm} in legalized.py), {funcs_named} with a same-named TVM PrimFunc, {funcs_equal} structurally equal"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        equal_modules >= MIN_EQUAL_MODULES,
        "only {equal_modules} modules equal TVM's"
    );
}
