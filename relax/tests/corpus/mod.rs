//! Shared helpers of the corpus tests: finding the cases of `tests/conformance`, reading their
//! `case.json` metadata tensors, and comparing bytecode listings.

#![allow(dead_code)]

pub mod call_tir_runner;

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

/// The conformance corpus at the workspace root.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance")
}

/// The case folders, sorted by name.
pub fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("case.json").is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

pub fn case_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub fn case_json(dir: &Path) -> Json {
    let text = std::fs::read_to_string(dir.join("case.json")).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or(Json::Null)
}

/// The tensors of `case.json` `metadata[file]["ir.GenericConst"]`.
pub fn metadata(json: &Json, file: &str) -> Result<Vec<vm::Tensor>, String> {
    match json["metadata"][file]["ir.GenericConst"].as_array() {
        None => Ok(Vec::new()),
        Some(items) => items
            .iter()
            .map(|v| tensor_from_json(&v["tensor"]))
            .collect(),
    }
}

/// The `pre_passes` of a case.
pub fn pre_passes(json: &Json) -> Vec<String> {
    json["pre_passes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn float_of(v: &Json) -> Result<f64, String> {
    match v {
        Json::Number(n) => n.as_f64().ok_or_else(|| format!("bad number {n}")),
        Json::String(s) => match s.as_str() {
            "nan" => Ok(f64::NAN),
            "inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            _ => Err(format!("bad float {s:?}")),
        },
        Json::Bool(b) => Ok(*b as u8 as f64),
        _ => Err(format!("expected a float, got {v}")),
    }
}

/// f32 → IEEE half bits, rounding to nearest even.
fn f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1u32 << shift) - 1);
        let mut h = m >> shift;
        if rest > half || (rest == half && h & 1 == 1) {
            h += 1;
        }
        return sign | h as u16;
    }
    let rest = man & 0x1fff;
    let mut h = ((e as u32) << 10) | (man >> 13);
    if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
        h += 1;
    }
    sign | h as u16
}

/// Builds a tensor from `{"dtype", "shape", "data"}`.
pub fn tensor_from_json(v: &Json) -> Result<vm::Tensor, String> {
    let dtype_s = v["dtype"].as_str().ok_or("tensor without dtype")?;
    let dtype: vm::DataType = dtype_s.parse().map_err(|e: vm::Error| e.to_string())?;
    let shape: Vec<i64> = v["shape"]
        .as_array()
        .ok_or("tensor without shape")?
        .iter()
        .map(|d| d.as_i64().ok_or("bad dim"))
        .collect::<Result<_, _>>()?;
    let data = v["data"].as_array().ok_or("tensor without data")?;
    let mut bytes = Vec::new();
    for x in data {
        let int = || -> Result<i64, String> {
            match x {
                Json::Bool(b) => Ok(*b as i64),
                _ => x.as_i64().ok_or_else(|| format!("bad int {x}")),
            }
        };
        match dtype_s {
            "float64" => bytes.extend(float_of(x)?.to_le_bytes()),
            "float32" => bytes.extend((float_of(x)? as f32).to_le_bytes()),
            "float16" => bytes.extend(f16_bits(float_of(x)? as f32).to_le_bytes()),
            "bool" | "int8" | "uint8" => bytes.push(int()? as u8),
            "int16" | "uint16" => bytes.extend((int()? as i16).to_le_bytes()),
            "int32" | "uint32" => bytes.extend((int()? as i32).to_le_bytes()),
            "int64" | "uint64" => bytes.extend(int()?.to_le_bytes()),
            other => return Err(format!("unsupported dtype {other}")),
        }
    }
    vm::Tensor::from_bytes(&shape, dtype, &bytes).map_err(|e| e.to_string())
}

/// A short description of the first difference between two listings.
pub fn first_difference(got: &str, want: &str) -> String {
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        if g != w {
            return format!("line {}: got `{g}`, TVM `{w}`", i + 1);
        }
    }
    format!(
        "lengths differ: {} lines, TVM {}",
        got.lines().count(),
        want.lines().count()
    )
}

/// Our bytecode listings compared with TVM's `tvm_exec.txt`, case by case; `guarded` is a
/// checked-in list of the cases identical so far, which may only grow.
#[derive(Default)]
pub struct Listings {
    compared: usize,
    identical: Vec<String>,
    diffs: Vec<String>,
    failures: Vec<String>,
}

impl Listings {
    /// Records our listing `got` for case `name` against TVM's `want`.
    pub fn compare(&mut self, name: String, got: &str, want: &str) {
        self.compared += 1;
        if got == want {
            self.identical.push(name);
        } else {
            self.diffs
                .push(format!("{name}: {}", first_difference(got, want)));
        }
    }

    /// Records that case `name` could not be built.
    pub fn fail(&mut self, name: &str, why: String) {
        self.failures.push(format!("{name}: {why}"));
    }

    /// Prints the counts and differences, then asserts that nothing failed and that every case
    /// named in `guarded` (one per line, `#` comments) is still identical.
    pub fn finish(self, stage: &str, guarded: &str) {
        println!(
            "{stage}: {}/{} listings identical to TVM's",
            self.identical.len(),
            self.compared
        );
        for d in &self.diffs {
            println!("  differs: {d}");
        }
        for f in &self.failures {
            println!("  FAILED: {f}");
        }
        let regressed: Vec<&str> = guarded
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter(|n| !self.identical.iter().any(|i| i == n))
            .collect();
        assert!(
            self.failures.is_empty(),
            "{stage} failed: {:#?}",
            self.failures
        );
        assert!(regressed.is_empty(), "no longer identical: {regressed:?}");
    }
}
