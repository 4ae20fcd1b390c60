//! ONNX backend test data (onnx 1.23's `light`, `pytorch-converted`, `pytorch-operator` and
//! `simple` sets, copied under `tests/data/`, and `ops/`, small models at recent opsets with
//! onnxruntime's outputs, written by `scripts/gen_op_tests.py`), run by one data-driven runner: every model is
//! imported, compiled and run on its test inputs, and its outputs must match the expected
//! ones within rtol 1e-4, atol 1e-5.
//!
//! `tests/data/out_of_scope.txt` lists the tests the importer does not handle, each with the
//! reason; for those the runner checks that import fails with an error naming the operator,
//! so that the list stays true. `tests/data/slow.txt` lists models whose inference is too slow
//! for every `cargo test` run; they are imported and compiled here, and run in full by
//! `cargo run --release -p relaxjit-onnx --example onnx_check -- onnx/tests/data/light`.
//!
//! Our own `ops/` cases run in both exec modes (bytecode and compiled), the others in the
//! default one.
//!
//! `ONNX_TEST=name` runs only the tests whose name contains `name`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use relaxjit::{Config, Engine, ExecMode, Tensor, Value};
use relaxjit_onnx::{ImportOptions, decode_tensor, import_file};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// `name: reason` lines (a `#` starts a comment).
fn read_list(file: &str) -> HashMap<String, String> {
    let text = std::fs::read_to_string(data_dir().join(file)).unwrap_or_default();
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| match l.split_once(':') {
            Some((n, r)) => (n.trim().to_string(), r.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

/// One test: a model and its data sets (inputs, expected outputs), read when it runs.
struct Case {
    name: String,
    model: PathBuf,
    sets: Sets,
    /// Also run in compiled mode.
    both_modes: bool,
}

enum Sets {
    /// `test_data_set_*` folders.
    Dirs(Vec<PathBuf>),
    /// A light model's expected output, for the dummy input.
    Light(PathBuf),
}

impl Sets {
    fn read(&self) -> Vec<(Vec<Tensor>, Vec<Tensor>)> {
        match self {
            Sets::Dirs(ds) => ds
                .iter()
                .map(|d| (numbered(d, "input"), numbered(d, "output")))
                .collect(),
            Sets::Light(p) => vec![(Vec::new(), vec![read_pb(p)])],
        }
    }
}

fn read_pb(path: &Path) -> Tensor {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    decode_tensor(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn numbered(dir: &Path, prefix: &str) -> Vec<Tensor> {
    let mut out = Vec::new();
    for i in 0.. {
        let p = dir.join(format!("{prefix}_{i}.pb"));
        if !p.exists() {
            break;
        }
        out.push(read_pb(&p));
    }
    out
}

/// The input onnx's backend runner makes for a light model: `arange(n) / n` in the input's
/// shape.
fn dummy_input(shape: &[i64]) -> Tensor {
    let n: i64 = shape.iter().product();
    let v: Vec<f32> = (0..n).map(|i| (i as f64 / n as f64) as f32).collect();
    Tensor::from_slice(shape, &v).unwrap()
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for set in ["pytorch-converted", "pytorch-operator", "simple", "ops"] {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(data_dir().join(set))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        dirs.sort();
        for dir in dirs {
            let mut ds: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_dir())
                .collect();
            ds.sort();
            cases.push(Case {
                name: dir.file_name().unwrap().to_string_lossy().into_owned(),
                model: dir.join("model.onnx"),
                sets: Sets::Dirs(ds),
                both_modes: set == "ops",
            });
        }
    }
    let mut light: Vec<PathBuf> = std::fs::read_dir(data_dir().join("light"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "onnx"))
        .collect();
    light.sort();
    for model in light {
        let stem = model.file_stem().unwrap().to_string_lossy().into_owned();
        let expected = model.with_file_name(format!("{stem}_output_0.pb"));
        cases.push(Case {
            name: stem,
            model,
            sets: Sets::Light(expected),
            both_modes: false,
        });
    }
    cases
}

fn flatten(v: &Value, out: &mut Vec<Tensor>) {
    match v {
        Value::Tuple(t) => t.fields().iter().for_each(|f| flatten(f, out)),
        Value::Tensor(t) => out.push(t.clone()),
        other => panic!("an output is not a tensor: {}", other.type_name()),
    }
}

/// The first element out of tolerance, if any.
fn mismatch(got: &Tensor, want: &Tensor) -> Option<String> {
    if got.shape() != want.shape() {
        return Some(format!(
            "shape {:?}, expected {:?}",
            got.shape(),
            want.shape()
        ));
    }
    if got.dtype() != want.dtype() {
        return Some(format!("dtype {}, expected {}", got.dtype(), want.dtype()));
    }
    for i in 0..want.numel() {
        let (g, w) = (got.get_f64(i).unwrap(), want.get_f64(i).unwrap());
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= 1e-5 + 1e-4 * w.abs();
        if !ok {
            return Some(format!("element {i}: {g}, expected {w}"));
        }
    }
    None
}

fn run_case(case: &Case, run: bool) -> Result<(), String> {
    let imported =
        import_file(&case.model, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let modes: &[ExecMode] = if case.both_modes {
        &[ExecMode::Bytecode, ExecMode::Compiled]
    } else {
        &[ExecMode::Bytecode]
    };
    for &mode in modes {
        run_in(case, &imported.module, mode, run).map_err(|e| format!("{mode:?} mode: {e}"))?;
    }
    Ok(())
}

fn run_in(
    case: &Case,
    module: &relaxjit::relax::IRModule,
    mode: ExecMode,
    run: bool,
) -> Result<(), String> {
    let engine = Engine::new(Config {
        exec_mode: mode,
        ..Config::default()
    })
    .map_err(|e| e.to_string())?;
    let compiled = engine
        .compile(module)
        .map_err(|e| format!("compile: {e}"))?;
    if !run {
        return Ok(());
    }
    let func = module.relax_function("main").unwrap();
    for (k, (inputs, expected)) in case.sets.read().iter().enumerate() {
        let inputs: Vec<Value> = if inputs.is_empty() {
            func.params
                .iter()
                .map(|p| {
                    let shape: Vec<i64> = p
                        .struct_info()
                        .tensor_shape()
                        .unwrap()
                        .iter()
                        .map(|d| d.as_int().unwrap())
                        .collect();
                    Value::Tensor(dummy_input(&shape))
                })
                .collect()
        } else {
            inputs.iter().cloned().map(Value::Tensor).collect()
        };
        let out = compiled
            .run("main", &inputs)
            .map_err(|e| format!("data set {k}: {e}"))?;
        let mut got = Vec::new();
        flatten(&out, &mut got);
        if got.len() != expected.len() {
            return Err(format!(
                "data set {k}: {} outputs, expected {}",
                got.len(),
                expected.len()
            ));
        }
        for (i, (g, w)) in got.iter().zip(expected).enumerate() {
            if let Some(m) = mismatch(g, w) {
                return Err(format!("data set {k}, output {i}: {m}"));
            }
        }
    }
    Ok(())
}

#[test]
fn onnx_backend_tests() {
    let out_of_scope = read_list("out_of_scope.txt");
    let slow = read_list("slow.txt");
    let filter = std::env::var("ONNX_TEST").ok();
    let mut failures = Vec::new();
    let mut passed = 0;
    let all = cases();
    for name in out_of_scope.keys().chain(slow.keys()) {
        assert!(
            all.iter().any(|c| &c.name == name),
            "the lists name `{name}`, which is not a test"
        );
    }
    for case in &all {
        if filter
            .as_ref()
            .is_some_and(|f| !case.name.contains(f.as_str()))
        {
            continue;
        }
        let start = std::time::Instant::now();
        let result = if let Some(reason) = out_of_scope.get(&case.name) {
            match import_file(&case.model, &ImportOptions::default()) {
                Ok(_) => Err(format!(
                    "listed as out of scope ({reason}) but it imports: run it instead"
                )),
                Err(e) if e.to_string().contains("unsupported") => Ok(()),
                Err(e) => Err(format!("import fails, but not as unsupported: {e}")),
            }
        } else {
            run_case(case, !slow.contains_key(&case.name))
        };
        eprintln!(
            "{:<60} {:>8.0} ms",
            case.name,
            start.elapsed().as_secs_f64() * 1e3
        );
        match result {
            Ok(()) => passed += 1,
            Err(e) => failures.push(format!("{}: {e}", case.name)),
        }
    }
    eprintln!("{passed} ONNX backend tests passed");
    assert!(
        failures.is_empty(),
        "{} of {} ONNX backend tests failed:\n{}",
        failures.len(),
        failures.len() + passed,
        failures.join("\n")
    );
}
