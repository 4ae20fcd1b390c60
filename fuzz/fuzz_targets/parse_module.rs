//! Fuzz target: the whole-module TVMScript reader never panics, and what it accepts prints and
//! reads back (with the printer's metadata table) to a structurally equal module; a module with
//! metadata references read without their values only has to read back.
//!
//! Seed it with the corpus, from this folder:
//!
//! ```sh
//! mkdir -p corpus/parse_module
//! for f in ../tests/conformance/*/*.py; do
//!     cp "$f" "corpus/parse_module/$(basename "$(dirname "$f")")_$(basename "$f")"
//! done
//! cargo +nightly fuzz run parse_module -- -max_len=65536
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = relax::script::parse_module(text) else {
        return;
    };
    let (printed, table) = relax::script::print_module_with_metadata(&module);
    if has_placeholder(&module) {
        // The table's entries for metadata references read without their values are empty
        // stand-ins, not the values: reading them in would give the constants a shape their
        // bindings contradict. Such a module reads back as it was read, without a table (a
        // mixed module's array constants then come back as references, so only reading back
        // is checked).
        relax::script::parse_module(&printed).expect("printed module reads back");
        return;
    }
    let again = relax::script::parse_module_with(
        &printed,
        &relax::script::ReadOptions::with_metadata(table),
    )
    .expect("printed module reads back");
    assert!(relax::structural_eq::structural_equal(&module, &again));
});

/// Whether `module` holds a `metadata["ir.GenericConst"][i]` read without its value.
fn has_placeholder(module: &relax::IRModule) -> bool {
    struct Finder(bool);
    impl relax::ir::visit::Visitor for Finder {
        fn visit_constant(&mut self, c: &relax::ir::Constant) {
            self.0 |= c.is_placeholder();
        }
    }
    let mut finder = Finder(false);
    relax::ir::visit::walk_module(&mut finder, module);
    finder.0
}
