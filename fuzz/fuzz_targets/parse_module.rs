//! Fuzz target: the whole-module TVMScript reader never panics, and what it accepts prints and
//! reads back to a structurally equal module.
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
    let again = relax::script::parse_module_with(
        &printed,
        &relax::script::ReadOptions::with_metadata(table),
    )
    .expect("printed module reads back");
    assert!(relax::structural_eq::structural_equal(&module, &again));
});
