//! Tidy checks run as ordinary tests: every Rust file says what it is for in a `//!` line, and
//! every `unsafe` block is argued for by a `// SAFETY:` comment just above it.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if p.is_dir() {
            if !matches!(name, "target" | ".git" | "conformance") && !name.starts_with('.') {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

fn workspace_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(root, &mut files);
    files.sort();
    files
}

#[test]
fn every_file_starts_with_a_module_doc() {
    let bad: Vec<String> = workspace_files()
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            !text.trim_start().starts_with("//!")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        bad.is_empty(),
        "files without a leading `//!` line:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_unsafe_block_has_a_safety_comment() {
    let mut bad = Vec::new();
    for p in workspace_files() {
        if p.ends_with("tests/tidy.rs") {
            continue; // its patterns would match themselves
        }
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            let is_block = code.contains("unsafe {") || code.trim_end().ends_with("unsafe");
            if !is_block || code.contains("unsafe fn") || code.contains("unsafe impl") {
                continue;
            }
            let window = &lines[i.saturating_sub(6)..=i];
            if !window.iter().any(|l| l.contains("SAFETY:")) {
                bad.push(format!("{}:{}", p.display(), i + 1));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "`unsafe` blocks without a `// SAFETY:` comment:\n{}",
        bad.join("\n")
    );
}
