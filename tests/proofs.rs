//! The bounds proofs that make kernels fast keep succeeding: for every module of the
//! conformance corpus (`tests/conformance/*/module.py`), the accesses each compiled kernel
//! still checks at run time and the loops it runs in parallel or as vector code are listed in
//! `tests/proofs.expected`. A change to the bounds analysis that loses a proof (a check comes
//! back, a loop stops being parallel) shows up as a diff; `BLESS=1` rewrites the expectation.

use std::fmt::Write;
use std::path::PathBuf;

use relaxjit::{Config, Engine};

#[test]
fn kernel_checks_and_parallel_loops_match_the_expectation() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/conformance");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the conformance corpus")
        .filter_map(|e| e.ok().map(|e| e.path().join("module.py")))
        .filter(|p| p.is_file())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    // The TIR kernels, matmul and conv2d included: the library path would replace those.
    let engine = Engine::new(Config {
        library: false,
        ..Config::default()
    })
    .unwrap();
    let mut got = String::new();
    for path in &cases {
        let case = path
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(path).expect("readable case");
        let compiled = match engine.compile_str(&text) {
            Ok(c) => c,
            Err(_) => {
                let _ = writeln!(got, "{case}: does not compile");
                continue;
            }
        };
        let mut kernels: Vec<_> = compiled.kernels().kernels().iter().collect();
        kernels.sort_by(|a, b| a.meta().name.cmp(&b.meta().name));
        for k in kernels {
            let m = k.meta();
            let _ = writeln!(
                got,
                "{case} {}: checks [{}] parallel {} vector {}",
                m.name,
                m.sites.join(", "),
                m.parallel_loops,
                m.vector_loops
            );
        }
    }
    let expected = root.join("tests/proofs.expected");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&expected, &got).expect("writable expectation");
        return;
    }
    let want = std::fs::read_to_string(&expected).unwrap_or_default();
    let diff: Vec<String> = got
        .lines()
        .zip(want.lines().chain(std::iter::repeat("<missing>")))
        .filter(|(g, w)| g != w)
        .map(|(g, w)| format!("  want {w}\n  got  {g}"))
        .collect();
    assert!(
        diff.is_empty() && got.lines().count() == want.lines().count(),
        "differs from {} (BLESS=1 to update):\n{}",
        expected.display(),
        diff.join("\n")
    );
}
