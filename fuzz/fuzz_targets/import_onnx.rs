//! Fuzzes the ONNX front door: any bytes import (`Engine::import_onnx`) to `Ok` or `Err`, and
//! what imports compiles (both exec modes) and runs on small generated inputs to a value or an
//! error — never a panic, an abort, a hang or an unbounded allocation. The import's own
//! constants are held to 1 MiB (`ImportOptions::constant_fill_budget`).
//!
//! Seed it with the test models, from this folder:
//!
//! ```sh
//! mkdir -p corpus/import_onnx
//! find ../onnx/tests/data -name '*.onnx' -size -500k | while read f; do
//!     cp "$f" "corpus/import_onnx/$(echo "${f#../}" | tr / _)"
//! done
//! cargo +nightly fuzz run import_onnx corpus/import_onnx -- -timeout=10
//! ```

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use relaxjit::onnx::ImportOptions;

fuzz_target!(|data: &[u8]| {
    let options = ImportOptions {
        constant_fill_budget: 1 << 20,
        ..ImportOptions::default()
    };
    let Ok(imported) = relaxjit::Engine::import_onnx(data, &options) else {
        return;
    };
    common::compile_and_call(&imported.module);
});
