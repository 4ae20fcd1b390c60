//! Imports, compiles and runs ONNX models, printing the time of each stage: a light model
//! (`light_*.onnx`) on onnx's dummy input with its expected output checked, any other model on
//! generated inputs.
//!
//! `cargo run --release -p relaxjit-onnx --example onnx_check -- FILE.onnx|DIR...`

use std::path::{Path, PathBuf};
use std::time::Instant;

use relaxjit::{Engine, Tensor, Value};
use relaxjit_onnx::{ImportOptions, decode_tensor, import_file};

fn ms(d: std::time::Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn check(model: &Path) -> anyhow::Result<()> {
    let t = Instant::now();
    let imported = import_file(model, &ImportOptions::default())?;
    let import = t.elapsed();
    let engine = Engine::default();
    let t = Instant::now();
    let compiled = engine.compile(&imported.module)?;
    let compile = t.elapsed();
    let func = imported
        .module
        .relax_function("main")
        .ok_or_else(|| anyhow::anyhow!("no main"))?;
    let mut args = Vec::new();
    for p in &func.params {
        let shape: Vec<i64> = p
            .struct_info()
            .tensor_shape()
            .ok_or_else(|| anyhow::anyhow!("parameter {} has no shape", p.name()))?
            .iter()
            .map(|d| d.as_int().unwrap_or(1))
            .collect();
        let n: i64 = shape.iter().product();
        let v: Vec<f32> = (0..n).map(|i| (i as f64 / n as f64) as f32).collect();
        args.push(Value::Tensor(Tensor::from_slice(&shape, &v)?));
    }
    let vm = compiled.vm()?;
    let t = Instant::now();
    let out = compiled.invoke(&vm, "main", &args)?;
    let first = t.elapsed();
    let t = Instant::now();
    compiled.invoke(&vm, "main", &args)?;
    let second = t.elapsed();
    let mut verdict = String::new();
    let stem = model.file_stem().unwrap_or_default().to_string_lossy();
    let expected = model.with_file_name(format!("{stem}_output_0.pb"));
    if let (Value::Tensor(got), true) = (&out, expected.exists()) {
        let want = decode_tensor(&std::fs::read(&expected)?)?;
        let (g, w) = (got.to_vec::<f32>()?, want.to_vec::<f32>()?);
        let max_err = g
            .iter()
            .zip(&w)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        let ok = g.len() == w.len()
            && g.iter()
                .zip(&w)
                .all(|(a, b)| (a - b).abs() <= 1e-5 + 1e-4 * b.abs());
        verdict = format!(
            " | expected output: {} (max abs error {max_err:.1e})",
            if ok { "match" } else { "MISMATCH" }
        );
    }
    println!(
        "{stem}: import {} | compile {} | first call {} | next call {}{verdict}",
        ms(import),
        ms(compile),
        ms(first),
        ms(second)
    );
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let mut models: Vec<PathBuf> = Vec::new();
    for a in std::env::args().skip(1) {
        let p = PathBuf::from(a);
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(&p)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "onnx"))
                .collect();
            v.sort();
            models.extend(v);
        } else {
            models.push(p);
        }
    }
    if models.is_empty() {
        anyhow::bail!("usage: onnx_check FILE.onnx|DIR...");
    }
    let mut failed = false;
    for m in &models {
        if let Err(e) = check(m) {
            println!("{}: {e:#}", m.display());
            failed = true;
        }
    }
    if failed {
        anyhow::bail!("some models failed");
    }
    Ok(())
}
