//! Parses every prim_func of the conformance corpus and checks that printing and re-parsing
//! gives a structurally equal function; reports how many print byte-identically to TVM.

use std::path::{Path, PathBuf};

use relaxjit_tir as tir;
use tir::syntax::ast;

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance");
    let mut files = Vec::new();
    let Ok(dirs) = std::fs::read_dir(&root) else {
        return files;
    };
    let mut dirs: Vec<PathBuf> = dirs.filter_map(|d| d.ok().map(|d| d.path())).collect();
    dirs.sort();
    for d in dirs {
        for name in ["module.py", "legalized.py", "tvm_lowered.py"] {
            let p = d.join(name);
            if p.is_file() {
                files.push(p);
            }
        }
    }
    files
}

/// The source text of each prim_func definition of a module, dedented to column 0.
fn original_texts(src: &str) -> Vec<String> {
    let Ok(module) = tir::syntax::parse_module(src) else {
        return Vec::new();
    };
    let lines: Vec<&str> = src.lines().collect();
    let mut out = Vec::new();
    for s in &module.body {
        let ast::StmtKind::ClassDef(c) = &s.kind else {
            continue;
        };
        for m in &c.body {
            if let ast::StmtKind::FunctionDef(def) = &m.kind
                && tir::script::is_prim_func(def)
            {
                let start = def.span.line as usize - 1;
                let end_line = src[..def.span.end].lines().count();
                let text: Vec<&str> = lines[start..end_line]
                    .iter()
                    .map(|l| l.strip_prefix("    ").unwrap_or(l))
                    .collect();
                out.push(text.join("\n"));
            }
        }
    }
    out
}

#[test]
fn corpus_prim_funcs_round_trip() {
    let files = corpus_files();
    assert!(!files.is_empty(), "conformance corpus not found");
    let (mut total, mut identical) = (0usize, 0usize);
    let mut failures = Vec::new();
    let mut first_diffs = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance"))
            .unwrap_or(path)
            .display()
            .to_string();
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let funcs = match tir::parse_module_prim_funcs(&src) {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{rel}: parse error\n{}", e.render(&src)));
                continue;
            }
        };
        let originals = original_texts(&src);
        for (i, f) in funcs.iter().enumerate() {
            total += 1;
            let printed = tir::print_prim_func(f);
            if originals.get(i) == Some(&printed) {
                identical += 1;
            } else if first_diffs.len() < 3 {
                first_diffs.push(format!(
                    "{rel} {}:\n--- tvm\n{}\n--- ours\n{printed}",
                    f.name,
                    originals.get(i).map(String::as_str).unwrap_or("")
                ));
            }
            let text = tir::script::print_module_prim_funcs(std::slice::from_ref(f));
            match tir::parse_module_prim_funcs(&text) {
                Ok(back) if back.len() == 1 => {
                    if let Some(d) = tir::structural_diff(f, &back[0]) {
                        failures.push(format!("{rel} {}: round trip differs: {d}", f.name));
                    }
                }
                Ok(_) => failures.push(format!("{rel} {}: reparse lost the function", f.name)),
                Err(e) => failures.push(format!(
                    "{rel} {}: printed text does not parse\n{}",
                    f.name,
                    e.render(&text)
                )),
            }
        }
    }
    println!("prim_funcs: {total}, byte-identical to TVM: {identical}");
    for d in &first_diffs {
        println!("{d}\n");
    }
    for f in &failures {
        println!("{f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
    assert!(
        total > 300,
        "expected the whole corpus, parsed {total} prim_funcs"
    );
}
