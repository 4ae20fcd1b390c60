//! Fuzzes the ONNX front door: any bytes import (`Engine::import_onnx`) to `Ok` or `Err`, and
//! what imports compiles (both exec modes) and runs on small generated inputs to a value or an
//! error — never a panic, an abort, a hang or an unbounded allocation. The import's own
//! constants are held to 1 MiB (`ImportOptions::constant_fill_budget`).
//!
//! Seed it with the test models, from this folder:
//!
//! ```sh
//! mkdir -p corpus/import_onnx
//! find ../onnx/tests/data -name '*.onnx' -size -30k | while read f; do
//!     cp "$f" "corpus/import_onnx/$(echo "${f#../}" | tr / _)"
//! done
//! ASAN_OPTIONS=allocator_may_return_null=1 \
//!     cargo +nightly fuzz run import_onnx corpus/import_onnx -- -timeout=10 -rss_limit_mb=4096
//! ```
//!
//! Two settings keep the fuzzer on real findings. Bigger models (the light zoo, ResNet-50)
//! compile in seconds in a release build but take longer than the timeout under ASan, so they
//! stay out of the seeds. A model may ask for more memory than exists (a 52 TB output): a
//! normal build returns null from the allocator and the VM reports "out of memory", but ASan
//! aborts on such a request unless `allocator_may_return_null=1`.

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
