//! The TVMScript reader and printer over the conformance corpus: every `module.py`,
//! `legalized.py` and `tvm_lowered.py` parses, printing then parsing gives a structurally equal
//! module, and the printed text is compared with TVM's byte for byte.
//!
//! `SHOW_DIFF=1` prints the first differing line of every file that does not print
//! byte-identically.

use std::path::{Path, PathBuf};

use relax::script::{ReadOptions, parse_module_with, print_module_with_metadata};
use relax::structural_eq::structural_diff;
use relaxjit_relax as relax;
use serde_json::Value as Json;

const FILES: &[&str] = &["module.py", "legalized.py", "tvm_lowered.py"];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance")
}

fn cases() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("conformance corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").exists())
        .collect();
    dirs.sort();
    dirs
}

fn float_of(x: &Json) -> f64 {
    match x {
        Json::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            other => panic!("bad float {other}"),
        },
        _ => x.as_f64().expect("float element"),
    }
}

fn tensor_from_json(v: &Json) -> vm::Tensor {
    let t = &v["tensor"];
    let dtype = t["dtype"].as_str().expect("dtype");
    let shape: Vec<i64> = t["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_i64().expect("dim"))
        .collect();
    let data = t["data"].as_array().expect("data");
    let r = match dtype {
        "float32" => {
            let d: Vec<f32> = data.iter().map(|x| float_of(x) as f32).collect();
            vm::Tensor::from_slice(&shape, &d)
        }
        "float64" => {
            let d: Vec<f64> = data.iter().map(float_of).collect();
            vm::Tensor::from_slice(&shape, &d)
        }
        "float16" => {
            let d: Vec<half::f16> = data
                .iter()
                .map(|x| half::f16::from_f64(float_of(x)))
                .collect();
            vm::Tensor::from_slice(&shape, &d)
        }
        "int32" => {
            let d: Vec<i32> = data.iter().map(|x| x.as_i64().unwrap() as i32).collect();
            vm::Tensor::from_slice(&shape, &d)
        }
        "int64" => {
            let d: Vec<i64> = data.iter().map(|x| x.as_i64().unwrap()).collect();
            vm::Tensor::from_slice(&shape, &d)
        }
        "bool" => {
            let d: Vec<bool> = data.iter().map(|x| x.as_bool().unwrap()).collect();
            vm::Tensor::from_slice(&shape, &d)
        }
        other => panic!("dtype {other} not handled in this test"),
    };
    r.expect("tensor")
}

/// The metadata table of `file` in `case.json`.
fn metadata(case: &Path, file: &str) -> Vec<vm::Tensor> {
    let text = std::fs::read_to_string(case.join("case.json")).expect("case.json");
    let json: Json = serde_json::from_str(&text).expect("case.json parses");
    match json["metadata"][file]["ir.GenericConst"].as_array() {
        Some(items) => items.iter().map(tensor_from_json).collect(),
        None => Vec::new(),
    }
}

fn first_difference(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  tvm: {x}\n  ours: {y}", i + 1);
        }
    }
    format!(
        "lengths differ ({} vs {} lines)",
        a.lines().count(),
        b.lines().count()
    )
}

#[test]
fn corpus_parses_round_trips_and_prints_like_tvm() {
    let show = std::env::var_os("SHOW_DIFF").is_some();
    let mut failures = Vec::new();
    let mut report = Vec::new();
    let (mut identical_total, mut files_total) = (0, 0);
    // While the operator table is being written, files that use operators are not checked.
    let registry_empty = relax::op::all().is_empty();
    let mut skipped = 0;
    for file in FILES {
        let (mut total, mut parsed, mut equal, mut identical) = (0, 0, 0, 0);
        for case in cases() {
            let path = case.join(file);
            let Ok(src) = std::fs::read_to_string(&path) else {
                continue;
            };
            total += 1;
            let name = format!(
                "{}/{file}",
                case.file_name().unwrap_or_default().to_string_lossy()
            );
            let opts = ReadOptions::with_metadata(metadata(&case, file));
            let module = match parse_module_with(&src, &opts) {
                Ok(m) => m,
                Err(e) if registry_empty && e.to_string().contains("unknown operator") => {
                    skipped += 1;
                    continue;
                }
                Err(e) => {
                    failures.push(format!("{name}: does not parse:\n{e}"));
                    continue;
                }
            };
            parsed += 1;
            let (printed, table) = print_module_with_metadata(&module);
            match parse_module_with(&printed, &ReadOptions::with_metadata(table)) {
                Ok(again) => match structural_diff(&module, &again) {
                    None => equal += 1,
                    Some(d) => failures.push(format!("{name}: round trip differs: {d}")),
                },
                Err(e) => failures.push(format!(
                    "{name}: printed text does not parse:\n{e}\n{printed}"
                )),
            }
            if printed == src {
                identical += 1;
            } else if show {
                println!("{name}: {}", first_difference(&src, &printed));
            }
        }
        identical_total += identical;
        files_total += total;
        report.push(format!(
            "{file}: {total} files, {parsed} parse, {equal} round-trip equal, {identical} byte-identical"
        ));
    }
    for r in &report {
        println!("{r}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    if registry_empty {
        println!("operator registry empty: {skipped} files using operators skipped");
        return;
    }
    // Every file of the corpus prints exactly as TVM printed it.
    assert_eq!(identical_total, files_total, "byte-identical files");
}
