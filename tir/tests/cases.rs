//! Data-driven printer tests for TIR forms beyond the corpus: every `cases/NAME.py` is parsed,
//! printed, and compared with the expected text — the file itself when it is already in
//! canonical printed form, or `cases/NAME.out.py` when it starts with `# Not canonical`.
//! The printed text must parse back to structurally equal functions and print identically
//! again. `BLESS=1` rewrites the `.out.py` files.

use std::path::Path;

use relaxjit_tir as tir;

#[test]
fn cases_print_and_round_trip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let bless = std::env::var_os("BLESS").is_some();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    let mut failures = Vec::new();
    let mut count = 0;
    for path in entries {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        if !name.ends_with(".py") || name.ends_with(".out.py") {
            continue;
        }
        count += 1;
        let src = std::fs::read_to_string(&path).unwrap_or_default();
        let funcs = match tir::parse_module_prim_funcs(&src) {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{name}: {}", e.render(&src)));
                continue;
            }
        };
        let printed = tir::script::print_module_prim_funcs(&funcs);
        let expected_path = if src.starts_with("# Not canonical") {
            path.with_extension("out.py")
        } else {
            path.clone()
        };
        if bless && expected_path != path {
            let _ = std::fs::write(&expected_path, &printed);
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if printed != expected {
            failures.push(format!(
                "{name}: printed text differs\n--- expected\n{expected}--- printed\n{printed}"
            ));
        }
        match tir::parse_module_prim_funcs(&printed) {
            Ok(back) => {
                if back.len() != funcs.len() {
                    failures.push(format!("{name}: reparse found {} functions", back.len()));
                }
                for (a, b) in funcs.iter().zip(&back) {
                    if let Some(d) = tir::structural_diff(a, b) {
                        failures.push(format!("{name} {}: {d}", a.name));
                    }
                }
                let again = tir::script::print_module_prim_funcs(&back);
                if again != printed {
                    failures.push(format!("{name}: printing is not a fixed point\n{again}"));
                }
            }
            Err(e) => failures.push(format!(
                "{name}: printed text does not parse\n{}",
                e.render(&printed)
            )),
        }
    }
    assert!(count > 0, "no cases found in {}", dir.display());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
