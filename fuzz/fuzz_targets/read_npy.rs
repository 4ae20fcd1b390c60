//! Fuzzes the `.npy` reader: any bytes decode (`relaxjit::npy::from_npy_bytes`) to a tensor or
//! an error, never a panic or an allocation the input's size does not justify; a tensor it
//! reads writes back to bytes that read as the same tensor.
//!
//! Seed it with the repository's files, from this folder:
//!
//! ```sh
//! mkdir -p corpus/read_npy
//! find .. -name '*.npy' -not -path '../target/*' | while read f; do
//!     cp "$f" "corpus/read_npy/$(echo "${f#../}" | tr / _)"
//! done
//! cargo +nightly fuzz run read_npy corpus/read_npy -- -max_len=4096 -rss_limit_mb=1024
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;
use relaxjit::npy::{from_npy_bytes, to_npy_bytes};

fuzz_target!(|data: &[u8]| {
    let Ok(tensor) = from_npy_bytes(data) else {
        return;
    };
    let bytes = to_npy_bytes(&tensor).expect("a tensor read from .npy writes as .npy");
    let again = from_npy_bytes(&bytes).expect("written .npy bytes read back");
    assert_eq!(again.shape(), tensor.shape());
    assert_eq!(again.dtype(), tensor.dtype());
    assert_eq!(again.to_bytes(), tensor.to_bytes());
});
