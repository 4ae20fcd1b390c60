//! LegalizeOps over the conformance corpus.
//!
//! For every case, `module.py` is read (with its metadata constants) and legalized. Then:
//!
//! * (a) when `main` has become nothing but `call_tir` bindings, tuples, tuple indexing and
//!   constants, every call of case.json is evaluated by running the generated PrimFuncs in
//!   `tir::interp` and compared with TVM's `expected` (tolerances from case.json; calls marked
//!   `expect_error` want an error from the argument checks or the interpreter);
//! * (b) each generated PrimFunc is compared with the PrimFunc of the same name in TVM's
//!   `legalized.py` (then `tvm_lowered.py`) by `tir::structural_equal`, ignoring the
//!   `op_pattern` attribute that AnnotateTIROpPattern adds after legalization and with TVM's
//!   possibly empty reductions decomposed as ours are (`corpus::as_our_legalization`); the
//!   count is printed.
//!
//! Cases whose `pre_passes` include a pass we cannot apply here (LambdaLift) are skipped with
//! the reason printed; `DispatchSortScan` is part of our LegalizeOps. `LEGALIZE_VERBOSE=1`
//! prints uncovered programs, structural differences and failures in detail.

use std::collections::HashMap;
use std::path::Path;

use relax::script::{ReadOptions, parse_module_with};
use relaxjit_relax as relax;
use serde_json::Value as Json;
use tir::PrimFunc;

mod corpus;

use corpus::call_tir_runner::*;
use corpus::cases;
/// Cases whose results do not yet match TVM's, with the reason.
const KNOWN_GAPS: &[&str] = &[];

/// How many cases legalize at least (operators without a rule yet fail the others with an
/// `Unsupported` error naming the operator, which the test prints).
const MIN_LEGALIZED: usize = 95;

// ----- the test ----------------------------------------------------------------------------

fn reference_funcs(case: &Path) -> HashMap<String, PrimFunc> {
    let mut out = HashMap::new();
    for file in ["tvm_lowered.py", "legalized.py"] {
        let Ok(src) = std::fs::read_to_string(case.join(file)) else {
            continue;
        };
        if let Ok(funcs) = tir::parse_module_prim_funcs(&src) {
            for mut f in funcs {
                f.attrs.remove("op_pattern");
                // After TVM's whole pipeline (tvm_lowered.py) the kernels are public with a
                // global symbol (AttachGlobalSymbol); that is not LegalizeOps' business.
                f.attrs.remove("global_symbol");
                f.private = true;
                out.insert(f.name.clone(), corpus::as_our_legalization(&f));
            }
        }
    }
    out
}

#[test]
fn legalize_ops_matches_tvm_on_the_corpus() {
    let verbose = std::env::var_os("LEGALIZE_VERBOSE").is_some();
    let (mut legalized, mut covered, mut matched) = (0, 0, 0);
    let (mut generated, mut with_ref, mut equal) = (0, 0, 0);
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    let mut not_legalized = Vec::new();
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
        let pre: Vec<&str> = json["pre_passes"]
            .as_array()
            .map(|a| a.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        if pre.contains(&"LambdaLift") {
            skipped.push(format!("{name}: needs pre-pass LambdaLift"));
            continue;
        }
        let Ok(src) = std::fs::read_to_string(case.join("module.py")) else {
            continue;
        };
        let metadata: Vec<vm::Tensor> = json["metadata"]["module.py"]["ir.GenericConst"]
            .as_array()
            .map(|a| a.iter().filter_map(vm_tensor_from_json).collect())
            .unwrap_or_default();
        let module = match parse_module_with(&src, &ReadOptions::with_metadata(metadata)) {
            Ok(m) => m,
            Err(e) => {
                skipped.push(format!("{name}: module.py does not parse yet: {e}"));
                continue;
            }
        };
        let out = match relax::legalize::legalize_ops(&module) {
            Ok(m) => m,
            Err(relax::Error::Unsupported(m)) => {
                not_legalized.push(format!("{name}: {m}"));
                continue;
            }
            Err(e) => {
                failures.push(format!("{name}: legalize_ops failed: {e}"));
                continue;
            }
        };
        legalized += 1;
        // (b) structural equality with TVM's PrimFuncs of the same name.
        let refs = reference_funcs(&case);
        for (fname, f) in out.prim_funcs() {
            if module.get(fname).is_some() {
                continue;
            }
            generated += 1;
            if let Some(r) = refs.get(fname) {
                with_ref += 1;
                match tir::structural_diff(f, r) {
                    None => equal += 1,
                    Some(d) if verbose => println!("{name}/{fname}: differs from TVM: {d}\n{f}"),
                    Some(_) => {}
                }
            }
        }
        // (a) results.
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
    for s in &skipped {
        println!("skipped {s}");
    }
    for s in &not_legalized {
        println!("not legalized: {s}");
    }
    println!(
        "legalize_ops: {legalized} cases legalized, {covered} evaluated, {matched} match TVM's results"
    );
    println!(
        "prim_funcs: {generated} generated, {with_ref} with a same-named TVM PrimFunc, {equal} structurally equal"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        legalized >= MIN_LEGALIZED,
        "only {legalized} cases legalize"
    );
}

/// A call LegalizeOps cannot lower (here an unsupported layout; operators without a rule fail
/// the same way) is an error naming the operator, the function and the binding.
#[test]
fn an_operator_without_legalization_is_an_error_naming_op_function_and_binding() {
    let src = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 4, 2), dtype="float32")) -> R.Tensor((1, 2, 2, 2), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((1, 2, 2, 2), dtype="float32") = R.nn.adaptive_avg_pool2d(x, output_size=[2, 2], layout="NHWC")
            R.output(y)
        return y
"#;
    let module = relax::parse_module(src).expect("parses");
    let err = relax::legalize::legalize_ops(&module)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.contains("relax.nn.adaptive_avg_pool2d")
            && err.contains("`y`")
            && err.contains("`main`"),
        "{err}"
    );
}

/// Registered operators that LegalizeOps cannot lower yet, listed in `legalize_missing/*.txt`.
/// Each fails at compile time with an error naming it; the lists may only shrink (a new
/// operator must come with its rule).
fn without_rule() -> Vec<&'static str> {
    [
        include_str!("legalize_missing/nn.txt"),
        include_str!("legalize_missing/other.txt"),
    ]
    .iter()
    .flat_map(|f| f.lines())
    .map(str::trim)
    .filter(|l| !l.is_empty() && !l.starts_with('#'))
    .collect()
}

#[test]
fn every_registered_operator_has_a_legalization_or_is_listed() {
    let missing: Vec<&str> = relax::op::all()
        .iter()
        .map(|op| op.name)
        .filter(|name| !relax::legalize::handles(name))
        .collect();
    let listed = without_rule();
    let unlisted: Vec<&&str> = missing.iter().filter(|n| !listed.contains(n)).collect();
    let stale: Vec<&&str> = listed.iter().filter(|n| !missing.contains(n)).collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "operators without a legalization that are not listed: {unlisted:?}\nlisted but now legalized: {stale:?}"
    );
}
