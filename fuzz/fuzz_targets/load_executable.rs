//! Fuzzes `Executable::load_from_bytes`: any bytes load to `Ok` or `Err`, never a panic, an
//! abort or an unbounded allocation; whatever loads prints, and saving it is a fixed point.
//!
//! Seed it with TVM's files, from this folder:
//!
//! ```sh
//! mkdir -p corpus/load_executable
//! for d in ../tests/conformance/*/; do
//!     cp "$d/tvm_exec.bin" "corpus/load_executable/$(basename "$d").bin" 2>/dev/null
//! done
//! cargo +nightly fuzz run load_executable -- -rss_limit_mb=512
//! ```
#![no_main]

use libfuzzer_sys::fuzz_target;
use vm::Executable;

fuzz_target!(|data: &[u8]| {
    let Ok(exec) = Executable::load_from_bytes(data) else {
        return;
    };
    let text = exec.as_text();
    let _ = exec.as_python();
    let _ = exec.stats();
    let saved = exec
        .save_to_bytes()
        .expect("a loaded executable always saves");
    let again = Executable::load_from_bytes(&saved).expect("saved bytes load again");
    assert_eq!(again.as_text(), text);
    assert_eq!(again.save_to_bytes().ok().as_deref(), Some(&saved[..]));
});
