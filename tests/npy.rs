//! `.npy` reading and writing against files numpy wrote and files broken on purpose
//! (`tests/npy/`): each file's outcome — the tensor's summary or the error — is listed in
//! `tests/npy/expected.txt`; `BLESS=1 cargo test --test npy` rewrites that list.
//!
//! Beside the list: every file read back round-trips through the writer (and numpy's own
//! little-endian files come back byte for byte but for header padding), and every prefix of
//! every file is an error, never a panic.

use std::path::{Path, PathBuf};

use relaxjit::npy::{from_npy_bytes, to_npy_bytes};
use relaxjit::{Tensor, Value};
use support::values::summarize;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("npy")
}

fn files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "npy"))
        .collect();
    files.sort();
    files
}

fn outcome(bytes: &[u8]) -> String {
    match from_npy_bytes(bytes) {
        Ok(t) => format!("ok {}", summarize(&Value::Tensor(t))),
        Err(e) => format!("error {e}"),
    }
}

#[test]
fn every_file_reads_as_listed() {
    let mut listing = String::new();
    for path in files() {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        listing.push_str(&format!("{name}: {}\n", outcome(&bytes)));
    }
    let expected = dir().join("expected.txt");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&expected, &listing).unwrap();
    }
    let want = std::fs::read_to_string(&expected).unwrap_or_default();
    if want != listing {
        let diff: Vec<String> = listing
            .lines()
            .filter(|l| !want.lines().any(|w| w == *l))
            .map(|l| format!("  now: {l}"))
            .collect();
        panic!(
            "tests/npy/expected.txt is out of date (BLESS=1 rewrites it):\n{}",
            diff.join("\n")
        );
    }
}

#[test]
fn what_is_read_writes_back_the_same() {
    for path in files() {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(t) = from_npy_bytes(&bytes) else {
            continue;
        };
        let written = to_npy_bytes(&t).unwrap();
        let back = from_npy_bytes(&written).unwrap();
        assert_eq!(back.shape(), t.shape(), "{}", path.display());
        assert_eq!(back.dtype(), t.dtype(), "{}", path.display());
        assert_eq!(back.to_bytes(), t.to_bytes(), "{}", path.display());
        // numpy's little-endian files hold the same data bytes after their header.
        let name = path.file_name().unwrap().to_string_lossy();
        if !name.contains("big_endian") {
            let data = |b: &[u8]| b[b.len() - t.nbytes()..].to_vec();
            assert_eq!(data(&written), data(&bytes), "{name}");
        }
    }
}

#[test]
fn every_prefix_of_a_file_is_an_error() {
    for path in files() {
        let bytes = std::fs::read(&path).unwrap();
        if from_npy_bytes(&bytes).is_err() {
            continue;
        }
        for len in 0..bytes.len() {
            let cut = &bytes[..len];
            // An empty array's file is complete once its header is.
            let complete = from_npy_bytes(cut).is_ok_and(|t| t.numel() == 0);
            assert!(
                complete || from_npy_bytes(cut).is_err(),
                "{} cut to {len} bytes reads",
                path.display()
            );
        }
    }
}

#[test]
fn written_headers_are_what_numpy_reads() {
    let t = Tensor::from_slice(&[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let bytes = to_npy_bytes(&t).unwrap();
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(
        header.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"),
        "{header}"
    );
    assert_eq!((10 + header_len) % 16, 0, "the data is aligned");
    assert!(to_npy_bytes(&Tensor::from_slice(&[1], &[half::bf16::ONE]).unwrap()).is_err());
}
