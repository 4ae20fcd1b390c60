//! The conformance corpus format (`tests/conformance/README.md`): reading cases, turning JSON
//! values into VM values, and comparing results within a case's tolerances.
//!
//! Runners (the `cargo test` conformance tests and `cargo xtask conformance`) take any directory
//! in this format, so other corpora can be pointed at them.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use vm::{DataType, Tensor, Value};

pub use crate::json_tensor::{CaseError, metadata_from_json, tensor_from_json};
use crate::json_tensor::{err, float_of, int_list};

/// What a call must produce.
#[derive(Debug, Clone)]
pub enum Expected {
    Value(Value),
    /// TVM raised; `message` is the last line of its message (for information only).
    Error {
        message: String,
    },
}

#[derive(Debug, Clone)]
pub struct Call {
    pub function: String,
    pub inputs: Vec<Value>,
    pub expected: Expected,
}

/// One case folder.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub dir: PathBuf,
    pub description: String,
    pub tags: Vec<String>,
    pub rtol: f64,
    pub atol: f64,
    pub calls: Vec<Call>,
    pub pre_passes: Vec<String>,
    /// `metadata[FILE]["ir.GenericConst"]`: the tensor constants of each printed file.
    pub metadata: BTreeMap<String, Vec<Tensor>>,
}

impl Case {
    /// Reads `dir/case.json`.
    pub fn load(dir: &Path) -> Result<Case, CaseError> {
        let path = dir.join("case.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| CaseError(format!("{}: {e}", path.display())))?;
        let json: Json = serde_json::from_str(&text)
            .map_err(|e| CaseError(format!("{}: {e}", path.display())))?;
        Case::from_json(dir, &json).map_err(|e| CaseError(format!("{}: {e}", path.display())))
    }

    fn from_json(dir: &Path, json: &Json) -> Result<Case, CaseError> {
        let name = json["name"].as_str().unwrap_or_default().to_string();
        let strings = |v: &Json| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut calls = Vec::new();
        for (i, c) in json["calls"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let function = c["function"]
                .as_str()
                .ok_or_else(|| CaseError(format!("call {i} has no function name")))?
                .to_string();
            let inputs = c["inputs"]
                .as_array()
                .ok_or_else(|| CaseError(format!("call {i} has no inputs")))?
                .iter()
                .map(value_from_json)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| CaseError(format!("call {i} input: {e}")))?;
            let expected = if c["expect_error"].as_bool() == Some(true) {
                Expected::Error {
                    message: c["error_message"].as_str().unwrap_or_default().to_string(),
                }
            } else {
                Expected::Value(
                    value_from_json(&c["expected"])
                        .map_err(|e| CaseError(format!("call {i} expected: {e}")))?,
                )
            };
            calls.push(Call {
                function,
                inputs,
                expected,
            });
        }
        let mut metadata = BTreeMap::new();
        for file in json["metadata"]
            .as_object()
            .into_iter()
            .flat_map(|m| m.keys())
        {
            metadata.insert(file.clone(), metadata_from_json(json, file)?);
        }
        Ok(Case {
            name,
            dir: dir.to_path_buf(),
            description: json["description"].as_str().unwrap_or_default().to_string(),
            tags: strings(&json["tags"]),
            rtol: json["rtol"].as_f64().unwrap_or(0.0),
            atol: json["atol"].as_f64().unwrap_or(0.0),
            calls,
            pre_passes: strings(&json["pre_passes"]),
            metadata,
        })
    }

    /// The path of a file of this case (`module.py`, `tvm_exec.bin`, …).
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// Every case folder (a folder with a `case.json`) under `dir`, sorted by name.
pub fn load_corpus(dir: &Path) -> Result<Vec<Case>, CaseError> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| CaseError(format!("{}: {e}", dir.display())))?;
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    dirs.iter().map(|d| Case::load(d)).collect()
}

/// The corpus copy shipped in this repository (`tests/conformance` of the workspace root).
pub fn default_corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("tests")
        .join("conformance")
}

/// Converts a corpus VALUE (`{"tensor": …}`, `{"tuple": …}`, `{"shape": …}`, `{"int": …}`,
/// `{"float": …}`, `{"bool": …}`) to a VM value.
pub fn value_from_json(json: &Json) -> Result<Value, CaseError> {
    let Some(obj) = json.as_object().filter(|o| o.len() == 1) else {
        return err(format!(
            "a value must be an object with one key, got {json}"
        ));
    };
    let (kind, v) = obj.iter().next().expect("one entry");
    match kind.as_str() {
        "tensor" => tensor_from_json(v).map(Value::Tensor),
        "tuple" => Ok(Value::tuple(
            v.as_array()
                .ok_or_else(|| CaseError("a tuple must be a list".into()))?
                .iter()
                .map(value_from_json)
                .collect::<Result<Vec<_>, _>>()?,
        )),
        "shape" => Ok(Value::shape(int_list(v)?)),
        "int" => v
            .as_i64()
            .map(Value::Int)
            .ok_or_else(|| CaseError(format!("bad int {v}"))),
        "float" => float_of(v).map(Value::Float),
        "bool" => v
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| CaseError(format!("bad bool {v}"))),
        other => err(format!("unknown value kind `{other}`")),
    }
}

/// A tensor as the reference interpreter (`tir::interp`) takes it: a TIR dtype, a shape and
/// the little-endian bytes of its elements.
#[derive(Clone, Debug, PartialEq)]
pub struct RawTensor {
    pub dtype: tir::DataType,
    pub shape: Vec<i64>,
    pub data: Vec<u8>,
}

/// A corpus value in the reference interpreter's form: tensors and tuples of them.
#[derive(Clone, Debug, PartialEq)]
pub enum RawValue {
    Tensor(RawTensor),
    Tuple(Vec<RawValue>),
}

impl RawValue {
    /// Reads a corpus VALUE that is a tensor or a tuple of them.
    pub fn from_json(json: &Json) -> Result<RawValue, CaseError> {
        RawValue::from_vm(&value_from_json(json)?)
    }

    /// The same tensors (or tuple) in the interpreter's form.
    pub fn from_vm(value: &Value) -> Result<RawValue, CaseError> {
        match value {
            Value::Tensor(t) => Ok(RawValue::Tensor(RawTensor {
                dtype: tir::DataType::parse(&t.dtype().to_string())
                    .ok_or_else(|| CaseError(format!("dtype {} has no TIR form", t.dtype())))?,
                shape: t.shape().to_vec(),
                data: t.to_bytes(),
            })),
            Value::Tuple(t) => Ok(RawValue::Tuple(
                t.fields()
                    .iter()
                    .map(RawValue::from_vm)
                    .collect::<Result<_, _>>()?,
            )),
            other => err(format!("{other:?} is not a tensor or a tuple of them")),
        }
    }

    /// The same tensors (or tuple) as a VM value.
    pub fn to_vm(&self) -> Result<Value, CaseError> {
        match self {
            RawValue::Tensor(t) => {
                let dtype: DataType = t
                    .dtype
                    .to_string()
                    .parse()
                    .map_err(|e: vm::Error| CaseError(e.to_string()))?;
                Tensor::from_bytes(&t.shape, dtype, &t.data)
                    .map(Value::Tensor)
                    .map_err(|e| CaseError(e.to_string()))
            }
            RawValue::Tuple(items) => Ok(Value::tuple(
                items
                    .iter()
                    .map(RawValue::to_vm)
                    .collect::<Result<Vec<_>, _>>()?,
            )),
        }
    }
}

/// [`compare`] for an interpreter result and a corpus VALUE.
pub fn compare_raw(got: &RawValue, expected: &Json, rtol: f64, atol: f64) -> Result<(), String> {
    let expected = value_from_json(expected).map_err(|e| e.to_string())?;
    compare(
        &got.to_vm().map_err(|e| e.to_string())?,
        &expected,
        rtol,
        atol,
    )
}

/// Makes every call of `case` in order with `invoke` and checks each against its expectation:
/// a value within the case's tolerances, or an error where TVM raised. Returns the first
/// problem.
pub fn check_calls<E: fmt::Display>(
    case: &Case,
    mut invoke: impl FnMut(&Call) -> Result<Value, E>,
) -> Result<(), String> {
    for (i, call) in case.calls.iter().enumerate() {
        match (&call.expected, invoke(call)) {
            (Expected::Value(want), Ok(got)) => compare(&got, want, case.rtol, case.atol)
                .map_err(|e| format!("call {i} ({}): {e}", call.function))?,
            (Expected::Value(_), Err(e)) => {
                return Err(format!("call {i} ({}) failed: {e}", call.function));
            }
            (Expected::Error { .. }, Err(_)) => {}
            (Expected::Error { message }, Ok(got)) => {
                return Err(format!(
                    "call {i} ({}) returned {got:?}, but TVM raised: {message}",
                    call.function
                ));
            }
        }
    }
    Ok(())
}

/// Compares a result with the expected value: structure, dtype and shape exactly; integers and
/// bools exactly; floats within `atol + rtol * |expected|` plus one f64 ulp (serde_json's float
/// parser may be off by one; values of narrower types are rounded to their type, which recovers
/// them exactly), NaN matching NaN and infinities themselves. Returns a description of the
/// first difference.
pub fn compare(got: &Value, expected: &Value, rtol: f64, atol: f64) -> Result<(), String> {
    compare_at(got, expected, rtol, atol, "result")
}

fn compare_at(
    got: &Value,
    expected: &Value,
    rtol: f64,
    atol: f64,
    path: &str,
) -> Result<(), String> {
    let close = |g: f64, e: f64| {
        (g.is_nan() && e.is_nan())
            || (e.is_infinite() && g == e)
            || (e.is_finite()
                && g.is_finite()
                && (g - e).abs() <= atol + rtol * e.abs() + e.abs() * f64::EPSILON)
    };
    match (got, expected) {
        (Value::Tuple(g), Value::Tuple(e)) => {
            if g.len() != e.len() {
                return Err(format!(
                    "{path}: tuple of {} fields, expected {}",
                    g.len(),
                    e.len()
                ));
            }
            for (i, (g, e)) in g.iter().zip(e.iter()).enumerate() {
                compare_at(g, e, rtol, atol, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Value::Shape(g), Value::Shape(e)) if g == e => Ok(()),
        (Value::Int(g), Value::Int(e)) if g == e => Ok(()),
        (Value::Bool(g), Value::Bool(e)) if g == e => Ok(()),
        (Value::Float(g), Value::Float(e)) if close(*g, *e) => Ok(()),
        (Value::Tensor(g), Value::Tensor(e)) => {
            if g.dtype() != e.dtype() || g.shape() != e.shape() {
                return Err(format!(
                    "{path}: got a {} tensor of shape {:?}, expected {} of shape {:?}",
                    g.dtype(),
                    g.shape(),
                    e.dtype(),
                    e.shape()
                ));
            }
            let floating = e.dtype().is_floating();
            for i in 0..e.numel() {
                let ok = if floating {
                    close(
                        g.get_f64(i).unwrap_or(f64::NAN),
                        e.get_f64(i).unwrap_or(f64::NAN),
                    )
                } else {
                    g.get_i64(i) == e.get_i64(i)
                };
                if !ok {
                    return Err(format!(
                        "{path}: element {i} is {}, expected {} (rtol {rtol}, atol {atol})",
                        g.get_f64(i).unwrap_or(f64::NAN),
                        e.get_f64(i).unwrap_or(f64::NAN)
                    ));
                }
            }
            Ok(())
        }
        _ => Err(format!("{path}: got {got:?}, expected {expected:?}")),
    }
}

/// Pass/fail counts and one line per failure, closing with `N passed, M failed`.
#[derive(Debug, Default)]
pub struct Report {
    pub passed: usize,
    pub failures: Vec<String>,
    /// Cases without the file the mode reads (a corpus may leave one out, saying why in the
    /// case's `notes`).
    pub skipped: usize,
}

impl Report {
    pub fn record(&mut self, case: &str, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => self.passed += 1,
            Err(e) => self.failures.push(format!("FAIL {case}: {e}")),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in &self.failures {
            writeln!(f, "{line}")?;
        }
        write!(f, "{} passed, {} failed", self.passed, self.failures.len())?;
        if self.skipped > 0 {
            write!(f, ", {} skipped (no input file)", self.skipped)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_corpus_loads() {
        let cases = load_corpus(&default_corpus_dir()).unwrap();
        assert!(cases.len() >= 90, "{} cases", cases.len());
        assert!(cases.iter().all(|c| !c.calls.is_empty()));
    }

    #[test]
    fn comparison_rules() {
        let t = |d: &[f32]| Value::Tensor(Tensor::from_slice(&[d.len() as i64], d).unwrap());
        assert!(
            compare(
                &t(&[1.0, f32::NAN]),
                &t(&[1.0 + 1e-7, f32::NAN]),
                1e-5,
                1e-5
            )
            .is_ok()
        );
        assert!(compare(&t(&[1.1]), &t(&[1.0]), 1e-5, 1e-5).is_err());
        assert!(compare(&t(&[f32::INFINITY]), &t(&[f32::INFINITY]), 0.0, 0.0).is_ok());
        assert!(compare(&t(&[f32::NEG_INFINITY]), &t(&[f32::INFINITY]), 0.0, 0.0).is_err());
        assert!(compare(&t(&[-0.0]), &t(&[0.0]), 0.0, 0.0).is_ok());
        let i = Value::Tensor(Tensor::from_slice(&[1], &[3i32]).unwrap());
        assert!(compare(&i, &t(&[3.0]), 1.0, 1.0).is_err());
        assert!(
            compare(
                &Value::tuple(vec![i.clone()]),
                &Value::tuple(vec![]),
                0.0,
                0.0
            )
            .is_err()
        );
    }
}
