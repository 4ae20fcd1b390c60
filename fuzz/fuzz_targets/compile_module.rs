//! Fuzzes the whole pipeline on TVMScript: whatever `Engine::parse` accepts compiles (in both
//! exec modes) to `Ok` or `Err`, and every public function of what compiles runs on small
//! generated arguments (symbolic dimensions bound to 3, a few thousand elements in all) to a
//! value or an error — never a panic, an abort, a hang or an unbounded allocation.
//!
//! Seed it with modules, from this folder:
//!
//! ```sh
//! mkdir -p corpus/compile_module
//! for f in ../tests/conformance/*/*.py ../tests/user_style/*/*.py ../examples/*.py; do
//!     cp "$f" "corpus/compile_module/$(basename "$(dirname "$f")")_$(basename "$f")"
//! done
//! ASAN_OPTIONS=allocator_may_return_null=1 cargo +nightly fuzz run compile_module \
//!     corpus/compile_module -- -max_len=65536 -timeout=10 -rss_limit_mb=4096
//! ```
//!
//! `allocator_may_return_null=1`: a module may ask for more memory than exists, which a
//! normal build reports as "out of memory" but ASan turns into an abort.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = relaxjit::Engine::parse(text) else {
        return;
    };
    common::compile_and_call(&module);
});
