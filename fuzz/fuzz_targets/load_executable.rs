//! Fuzzes `Executable::load_from_bytes`: any bytes load to `Ok` or `Err`, never a panic, an
//! abort or an unbounded allocation; whatever loads prints, and saving it is a fixed point.
//! The same bytes also go to `Executable::load_from_bytes_external` (the artifact cache's
//! format, the tensors' bytes left out), given zero tensors of the shapes it asks for (up to
//! a bound, else an error): it too loads or errs, and what loads saves back (externally) to a
//! fixed point.
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
use vm::{Error, Executable, Tensor};

/// Zero tensors for the external loader, refusing large ones as a real caller (the cache,
/// whose tensors lie in its file) would refuse shapes its section does not hold.
fn zeros(_: usize, shape: &[i64], dtype: vm::DataType) -> vm::Result<Tensor> {
    let n = shape
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul(d).filter(|_| d >= 0));
    match n {
        Some(n) if n <= 1 << 16 => Tensor::zeros(shape, dtype),
        _ => Err(Error::load(format!("no tensor of shape {shape:?}"))),
    }
}

fn external(data: &[u8]) {
    let Ok(exec) = Executable::load_from_bytes_external(data, &mut zeros) else {
        return;
    };
    let _ = exec.as_text();
    let mut given = Vec::new();
    let saved = exec
        .save_to_bytes_external(&mut |t| given.push(t.clone()))
        .expect("a loaded executable always saves");
    let again = Executable::load_from_bytes_external(&saved, &mut |k, _, _| Ok(given[k].clone()))
        .expect("saved bytes load again");
    assert_eq!(again.as_text(), exec.as_text());
}

fuzz_target!(|data: &[u8]| {
    external(data);
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
