//! House rules checked as a test: every Rust file of the crate starts with a `//!` line that
//! says what it is for, and no source file uses `unsafe`.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_file_has_a_module_doc_and_no_unsafe() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("tests"), &mut files);
    assert!(files.len() > 10);
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        if !text.starts_with("//! ") {
            bad.push(format!("{}: does not start with a `//!` line", f.display()));
        }
        let is_src = f.starts_with(root.join("src"));
        if is_src && text.contains(&format!("{} {{", "unsafe")) {
            bad.push(format!("{}: uses unsafe", f.display()));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
