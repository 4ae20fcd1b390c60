//! Shared helpers of the corpus tests: finding the cases of `tests/conformance`, reading their
//! `case.json` metadata tensors (through the shared case format, `support::case`), and comparing
//! bytecode listings.

#![allow(dead_code)]

pub mod call_tir_runner;

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

/// The conformance corpus at the workspace root.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance")
}

/// The case folders, sorted by name.
pub fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("case.json").is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

pub fn case_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub fn case_json(dir: &Path) -> Json {
    let text = std::fs::read_to_string(dir.join("case.json")).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or(Json::Null)
}

/// The tensors of `case.json` `metadata[file]["ir.GenericConst"]`.
pub fn metadata(json: &Json, file: &str) -> Result<Vec<vm::Tensor>, String> {
    support::case::metadata_from_json(json, file).map_err(|e| e.to_string())
}

/// The `pre_passes` of a case.
pub fn pre_passes(json: &Json) -> Vec<String> {
    json["pre_passes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// `func` as our LegalizeOps would generate it from TVM's legalization of the same operator:
/// reductions that may be empty decomposed into init and update blocks
/// (`tir::transform::decompose_empty_reductions`, the one deliberate difference from TVM's TIR).
pub fn as_our_legalization(func: &tir::PrimFunc) -> tir::PrimFunc {
    tir::PrimFunc {
        body: tir::transform::decompose_empty_reductions(&func.body),
        ..func.clone()
    }
}

/// A short description of the first difference between two listings.
pub fn first_difference(got: &str, want: &str) -> String {
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        if g != w {
            return format!("line {}: got `{g}`, TVM `{w}`", i + 1);
        }
    }
    format!(
        "lengths differ: {} lines, TVM {}",
        got.lines().count(),
        want.lines().count()
    )
}

/// Our bytecode listings compared with TVM's `tvm_exec.txt`, case by case; `guarded` is a
/// checked-in list of the cases identical so far, which may only grow.
#[derive(Default)]
pub struct Listings {
    compared: usize,
    identical: Vec<String>,
    diffs: Vec<String>,
    failures: Vec<String>,
}

impl Listings {
    /// Records our listing `got` for case `name` against TVM's `want`.
    pub fn compare(&mut self, name: String, got: &str, want: &str) {
        self.compared += 1;
        if got == want {
            self.identical.push(name);
        } else {
            self.diffs
                .push(format!("{name}: {}", first_difference(got, want)));
        }
    }

    /// Records that case `name` could not be built.
    pub fn fail(&mut self, name: &str, why: String) {
        self.failures.push(format!("{name}: {why}"));
    }

    /// Prints the counts and differences, then asserts that nothing failed and that every case
    /// named in `guarded` (one per line, `#` comments) is still identical.
    pub fn finish(self, stage: &str, guarded: &str) {
        println!(
            "{stage}: {}/{} listings identical to TVM's",
            self.identical.len(),
            self.compared
        );
        for d in &self.diffs {
            println!("  differs: {d}");
        }
        for f in &self.failures {
            println!("  FAILED: {f}");
        }
        let regressed: Vec<&str> = guarded
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter(|n| !self.identical.iter().any(|i| i == n))
            .collect();
        assert!(
            self.failures.is_empty(),
            "{stage} failed: {:#?}",
            self.failures
        );
        assert!(regressed.is_empty(), "no longer identical: {regressed:?}");
    }
}
