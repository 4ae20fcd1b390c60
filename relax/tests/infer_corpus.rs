//! Struct-info inference against TVM over the conformance corpus: for every `module.py`,
//! `legalized.py` and `tvm_lowered.py`, the struct info inferred for the value of every
//! binding must equal the annotation TVM printed for it (dimensions compared by the
//! simplifier), each function's result must agree with its declared return, and every module
//! must be well-formed.
//!
//! `SHOW_INFER=1` prints the counts per file.

use std::path::{Path, PathBuf};

use relax::normalize::Normalizer;
use relax::script::{ReadOptions, parse_module_with};
use relax::struct_info_ops::{Compatibility, compatibility, describe, struct_info_provably_equal};
use relax::{Binding, Expr, ExprKind, Function, SeqExpr, StructInfo};
use relaxjit_relax as relax;
use serde_json::Value as Json;

const FILES: &[&str] = &["module.py", "legalized.py", "tvm_lowered.py"];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance")
}

fn metadata(case: &Path, file: &str) -> Vec<vm::Tensor> {
    let Ok(text) = std::fs::read_to_string(case.join("case.json")) else {
        return Vec::new();
    };
    let Ok(json) = serde_json::from_str::<Json>(&text) else {
        return Vec::new();
    };
    support::case::metadata_from_json(&json, file).unwrap_or_default()
}

#[derive(Default)]
struct Tally {
    bindings: usize,
    agree: usize,
    results: usize,
    results_agree: usize,
    results_consistent: usize,
    mismatches: Vec<String>,
}

fn check_seq(n: &Normalizer, file: &str, func: &str, seq: &SeqExpr, t: &mut Tally) {
    for block in &seq.blocks {
        for b in &block.bindings {
            let Binding::Var { var, value } = b else {
                check_expr(n, file, func, b.value(), t);
                continue;
            };
            check_expr(n, file, func, value, t);
            t.bindings += 1;
            match n.infer(value).map(|si| as_printed(&si)) {
                Ok(si) if struct_info_provably_equal(&si, var.struct_info()) => t.agree += 1,
                Ok(si) => t.mismatches.push(format!(
                    "{file} {func}: `{}`: TVM printed {}, inferred {}",
                    var.name(),
                    describe(var.struct_info()),
                    describe(&si)
                )),
                Err(e) => t.mismatches.push(format!(
                    "{file} {func}: `{}`: TVM printed {}, inference failed: {e}",
                    var.name(),
                    describe(var.struct_info())
                )),
            }
        }
    }
    check_expr(n, file, func, &seq.body, t);
}

fn check_expr(n: &Normalizer, file: &str, func: &str, e: &Expr, t: &mut Tally) {
    match e.kind() {
        ExprKind::If(i) => {
            check_seq(n, file, func, &i.then_branch, t);
            check_seq(n, file, func, &i.else_branch, t);
        }
        ExprKind::Seq(s) => check_seq(n, file, func, s, t),
        ExprKind::Function(f) => check_function(n, file, &format!("{func}.{}", f.name), f, t),
        _ => {}
    }
}

/// The struct info as TVMScript prints it: prim values print as their dtype (`T.int64`),
/// without the known value.
fn as_printed(si: &StructInfo) -> StructInfo {
    match si {
        StructInfo::Prim { dtype, .. } => StructInfo::prim(*dtype),
        StructInfo::Tuple(fields) => StructInfo::Tuple(fields.iter().map(as_printed).collect()),
        other => other.clone(),
    }
}

fn check_function(n: &Normalizer, file: &str, name: &str, f: &Function, t: &mut Tally) {
    check_seq(n, file, name, &f.body, t);
    t.results += 1;
    match n.infer(&f.body.body).map(|si| as_printed(&si)) {
        Ok(si) if struct_info_provably_equal(&si, &f.ret_struct_info) => t.results_agree += 1,
        // A declared return may be more general (a variable defined inside the body is out of
        // scope in the signature) or more specific (lowered code returns a tensor whose
        // shape was checked at run time) than the body's: consistent, not equal.
        Ok(si)
            if compatibility(&f.ret_struct_info, &si) != Compatibility::No
                || compatibility(&si, &f.ret_struct_info) != Compatibility::No =>
        {
            t.results_consistent += 1
        }
        Ok(si) => t.mismatches.push(format!(
            "{file} {name}: returns {} but TVM printed -> {}",
            describe(&si),
            describe(&f.ret_struct_info)
        )),
        Err(e) => t.mismatches.push(format!("{file} {name}: result: {e}")),
    }
}

#[test]
fn inferred_struct_info_matches_tvm_annotations() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("conformance corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").exists())
        .collect();
    dirs.sort();
    let show = std::env::var_os("SHOW_INFER").is_some();
    let mut total = Tally::default();
    let mut files = 0;
    let mut parse_failures = Vec::new();
    let mut ill_formed = Vec::new();
    for case in &dirs {
        for file in FILES {
            let Ok(src) = std::fs::read_to_string(case.join(file)) else {
                continue;
            };
            let name = format!(
                "{}/{file}",
                case.file_name().unwrap_or_default().to_string_lossy()
            );
            let module =
                match parse_module_with(&src, &ReadOptions::with_metadata(metadata(case, file))) {
                    Ok(m) => m,
                    Err(e) => {
                        parse_failures.push(format!("{name}: {e}"));
                        continue;
                    }
                };
            files += 1;
            for msg in relax::well_formed::diagnostics(&module) {
                ill_formed.push(format!("{name}: {msg}"));
            }
            let n = Normalizer::new(&module);
            let mut t = Tally::default();
            for (fname, f) in module.relax_functions() {
                check_function(&n, &name, fname, f, &mut t);
            }
            if show {
                eprintln!(
                    "{name}: {}/{} bindings, {}/{} results",
                    t.agree, t.bindings, t.results_agree, t.results
                );
            }
            total.bindings += t.bindings;
            total.agree += t.agree;
            total.results += t.results;
            total.results_agree += t.results_agree;
            total.results_consistent += t.results_consistent;
            total.mismatches.extend(t.mismatches);
        }
    }
    eprintln!(
        "struct-info inference over {files} corpus files: {}/{} bindings agree with TVM's annotations; function results: {} equal to the declared return, {} consistent with it, of {}; {} ill-formed reports",
        total.agree,
        total.bindings,
        total.results_agree,
        total.results_consistent,
        total.results,
        ill_formed.len()
    );
    assert!(
        parse_failures.is_empty(),
        "files that do not parse:\n{}",
        parse_failures.join("\n")
    );
    assert!(files > 200, "only {files} corpus files");
    assert!(
        total.mismatches.is_empty(),
        "{} disagreements with TVM:\n{}",
        total.mismatches.len(),
        total.mismatches.join("\n")
    );
    assert!(
        ill_formed.is_empty(),
        "well-formedness reports:\n{}",
        ill_formed.join("\n")
    );
}
