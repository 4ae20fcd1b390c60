//! Round trips of hand-written TVMScript (`tests/script/*.py`): every form the reader accepts
//! beyond what TVM prints. Each file parses, prints as its `.expected` file (regenerate with
//! `BLESS=1`), and the printed text parses back to a structurally equal module and prints the
//! same again.

use std::path::Path;

use relaxjit_relax as relax;

use relax::script::{ReadOptions, parse_module, parse_module_with, print_module_with_metadata};
use relax::structural_eq::structural_diff;

#[test]
fn handwritten_forms_round_trip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/script");
    let bless = std::env::var_os("BLESS").is_some();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/script")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for path in files {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(&path).expect("read");
        let module = match parse_module(&src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: does not parse:\n{e}"));
                continue;
            }
        };
        let (printed, table) = print_module_with_metadata(&module);
        let expected_path = path.with_extension("expected");
        if bless {
            std::fs::write(&expected_path, &printed).expect("write expectation");
        } else {
            match std::fs::read_to_string(&expected_path) {
                Ok(expected) if expected == printed => {}
                Ok(_) => failures.push(format!(
                    "{name}: printed text differs from {} (BLESS=1 to update):\n{printed}",
                    expected_path.display()
                )),
                Err(_) => failures.push(format!(
                    "{name}: no {} (BLESS=1 to create)",
                    expected_path.display()
                )),
            }
        }
        match parse_module_with(&printed, &ReadOptions::with_metadata(table.clone())) {
            Ok(again) => {
                if let Some(d) = structural_diff(&module, &again) {
                    failures.push(format!("{name}: round trip differs: {d}\n{printed}"));
                }
                let (printed_again, _) = print_module_with_metadata(&again);
                if printed_again != printed {
                    failures.push(format!("{name}: printing is not a fixed point"));
                }
            }
            Err(e) => failures.push(format!(
                "{name}: printed text does not parse:\n{e}\n{printed}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
