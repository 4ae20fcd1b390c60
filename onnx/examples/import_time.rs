//! The import time of an ONNX model: reading the file alone, and `import_file` (read, decode,
//! weights to tensors, building Relax), as the median of 5 runs.
//!
//! `cargo run --release -p relaxjit-onnx --example import_time -- MODEL.onnx`

use std::time::{Duration, Instant};

use relaxjit_onnx::{ImportOptions, import_file};

fn median(mut v: Vec<Duration>) -> String {
    v.sort();
    format!("{:.1} ms", v[v.len() / 2].as_secs_f64() * 1e3)
}

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: import_time MODEL.onnx"))?;
    let (mut read, mut import) = (Vec::new(), Vec::new());
    let mut functions = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let bytes = std::fs::read(&path)?;
        read.push(t.elapsed());
        drop(bytes);
        let t = Instant::now();
        let m = import_file(&path, &ImportOptions::default())?;
        import.push(t.elapsed());
        functions = m.module.functions.len();
    }
    println!(
        "{path}: import_file {} (of which reading the file alone takes {}) | {functions} function(s)",
        median(import),
        median(read)
    );
    Ok(())
}
