//! Embeds the relaxjit build identity (`RELAXJIT_BUILD`) that keys the artifact cache, so that
//! an entry is never loaded by a build whose compiler could have produced other code for it.
//!
//! The identity is the package version and a fingerprint of everything the compiled output of
//! a module depends on besides the module: the sources and manifests of the crates on the
//! compile path (this one, `jit`, `relax`, `tir`, `vm`), `Cargo.lock` (the exact Cranelift and
//! every other dependency), the compiler and the profile. Any edit there makes a new build
//! identity, and so new cache keys; the process computes nothing at run time (finding and
//! stat-ing its own executable, as the fallback of `jit::cache` does, costs a cache hit more
//! than the rest of it). Outside this workspace (the crate packaged alone) the sibling
//! directories are absent and their published versions, pinned by `Cargo.lock` or the
//! dependents' requirements, stand for them.

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

/// What the compiled output depends on, relative to this crate's directory.
const INPUTS: &[&str] = &[
    "src",
    "Cargo.toml",
    "Cargo.lock",
    "jit/src",
    "jit/Cargo.toml",
    "relax/src",
    "relax/Cargo.toml",
    "tir/src",
    "tir/Cargo.toml",
    "vm/src",
    "vm/Cargo.toml",
];

/// Build settings that change the emitted code or the compiler's behaviour.
const ENV: &[&str] = &[
    "TARGET",
    "PROFILE",
    "OPT_LEVEL",
    "DEBUG",
    "CARGO_CFG_DEBUG_ASSERTIONS",
    "CARGO_CFG_TARGET_FEATURE",
    "CARGO_ENCODED_RUSTFLAGS",
];

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut files = Vec::new();
    for input in INPUTS {
        let path = root.join(input);
        println!("cargo:rerun-if-changed={}", path.display());
        collect(&path, &mut files);
    }
    files.sort();
    // Two differently seeded 64-bit streams: 128 bits, so that two builds never share an
    // identity by accident (nobody chooses sources to collide with a build they do not have).
    let mut h = [DefaultHasher::new(), DefaultHasher::new()];
    h[1].write(b"relaxjit build identity, second stream");
    let mut feed = |bytes: &[u8]| {
        for h in &mut h {
            h.write_usize(bytes.len());
            h.write(bytes);
        }
    };
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap_or(file);
        feed(rel.to_string_lossy().as_bytes());
        match std::fs::read(file) {
            Ok(bytes) => feed(&bytes),
            Err(e) => panic!("cannot read {}: {e}", file.display()),
        }
    }
    for var in ENV {
        println!("cargo:rerun-if-env-changed={var}");
        feed(var.as_bytes());
        feed(std::env::var(var).unwrap_or_default().as_bytes());
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    feed(&version);
    println!(
        "cargo:rustc-env=RELAXJIT_BUILD=relaxjit {} {:016x}{:016x}",
        std::env::var("CARGO_PKG_VERSION").expect("set by cargo"),
        h[0].finish(),
        h[1].finish()
    );
}

/// Every file at or under `path` (nothing if it does not exist).
fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    let Ok(meta) = std::fs::metadata(path) else {
        return;
    };
    if meta.is_file() {
        out.push(path.to_path_buf());
        return;
    }
    let entries =
        std::fs::read_dir(path).unwrap_or_else(|e| panic!("cannot list {}: {e}", path.display()));
    for e in entries {
        let e = e.unwrap_or_else(|e| panic!("cannot list {}: {e}", path.display()));
        collect(&e.path(), out);
    }
}
