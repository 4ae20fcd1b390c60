//! A case as a folder of the conformance corpus format (`tests/conformance/README.md`), for
//! checking the generated programs against another implementation (Apache TVM, through
//! `scripts/tvm_diff.py`): `module.py` (the program), `opfuzz.py` (the case file, to replay
//! it), and `case.json` with the inputs and the metadata constants but no expectation yet —
//! the other implementation writes what it returned into `expected` (or `expect_error`),
//! then the conformance runner checks relaxjit against it.
//!
//! The tolerance follows the case's [`Compare`]: `exact` cases are compared exactly, the
//! others within [`crate::diff::tolerance`] for their longest sum. `notes` records how
//! relaxjit's run of the case ended (`relaxjit: ok`, `relaxjit: compile error: …`, `relaxjit:
//! run error: …`), so that a program the other implementation rejects can be checked against
//! what relaxjit did with it.

use std::path::{Path, PathBuf};

use relaxjit::{Tensor, Value};
use serde_json::{Value as Json, json};
use support::json_tensor::tensor_to_json;

use crate::case::{Case, Compare};
use crate::diff::{ErrorKind, Run, tolerance};
use crate::inputs;

/// The folder name of `case` in an emitted corpus.
pub fn folder_name(case: &Case) -> String {
    format!("opfuzz_{:06}_{}", case.seed, case.family)
}

/// A tensor as the corpus writes it: `{"tensor": {"dtype", "shape", "data"}}`
/// ([`support::json_tensor::tensor_to_json`], the format's one writer).
pub fn tensor_json(t: &Tensor) -> Result<Json, String> {
    let tensor = tensor_to_json(t).map_err(|e| e.to_string())?;
    Ok(json!({ "tensor": tensor }))
}

/// The `(rtol, atol)` of `case`: zero for `exact`, else what opfuzz allows the library path
/// for a sum of `k` terms, for the case's widest float dtype.
pub fn tolerances(case: &Case) -> (f64, f64) {
    let Compare::Reduction(k) = case.compare else {
        return (0.0, 0.0);
    };
    let dtype = if case.args.iter().any(|a| a.dtype == "float32") {
        "float32"
    } else {
        "float64"
    };
    let magnitude = if case.integers { 9.0 } else { 1.0 };
    let atol = tolerance(dtype, k, 0.0, magnitude);
    // `tolerance` grows by one ulp-scaled unit per unit of |want|.
    let rtol = tolerance(dtype, k, 1.0, magnitude) - atol;
    (rtol, atol)
}

/// How relaxjit's run ended, as the note of the case.
pub fn ending_note(run: &Run) -> String {
    match run {
        Run::Ok(_) => "relaxjit: ok".into(),
        Run::Err(ErrorKind::Compile, e) => format!("relaxjit: compile error: {e}"),
        Run::Err(ErrorKind::Run, e) => format!("relaxjit: run error: {e}"),
    }
}

/// `case.json` of `case` (no `expected` in its call yet), with `note` in `notes`.
pub fn case_json(case: &Case, note: &str) -> Result<Json, String> {
    let (args, consts) = inputs::inputs(case);
    let inputs = args
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => tensor_json(t),
            other => Err(format!("an argument that is not a tensor: {other:?}")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let consts = consts
        .iter()
        .map(tensor_json)
        .collect::<Result<Vec<_>, _>>()?;
    let (rtol, atol) = tolerances(case);
    let mut j = json!({
        "name": folder_name(case),
        "description": format!("opfuzz {} program of seed {}", case.family, case.seed),
        "tags": ["opfuzz", case.family],
        "rtol": rtol,
        "atol": atol,
        "calls": [{"function": "main", "inputs": inputs}],
        "notes": [note],
    });
    if !consts.is_empty() {
        j["metadata"] = json!({"module.py": {"ir.GenericConst": consts}});
    }
    Ok(j)
}

/// Writes `case` as the folder `dir/<folder_name>`; returns its path.
pub fn write_case(case: &Case, dir: &Path, note: &str) -> Result<PathBuf, String> {
    let folder = dir.join(folder_name(case));
    let io = |e: std::io::Error| format!("{}: {e}", folder.display());
    std::fs::create_dir_all(&folder).map_err(io)?;
    std::fs::write(folder.join("module.py"), &case.script).map_err(io)?;
    std::fs::write(folder.join("opfuzz.py"), case.to_file()).map_err(io)?;
    let text = serde_json::to_string(&case_json(case, note)?).map_err(|e| e.to_string())?;
    std::fs::write(folder.join("case.json"), text + "\n").map_err(io)?;
    Ok(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_json_reads_back_as_the_inputs() {
        for seed in 0..40 {
            let case = crate::generate(seed);
            let j = case_json(&case, "relaxjit: ok").expect("a case.json");
            let given = j["calls"][0]["inputs"].as_array().expect("inputs");
            assert_eq!(given.len(), case.args.len(), "seed {seed}");
            let (args, _) = inputs::inputs(&case);
            for ((g, spec), arg) in given.iter().zip(&case.args).zip(&args) {
                assert_eq!(g["tensor"]["dtype"], json!(spec.dtype), "seed {seed}");
                assert_eq!(g["tensor"]["shape"], json!(spec.shape), "seed {seed}");
                let back = support::json_tensor::tensor_from_json(&g["tensor"]).expect("a tensor");
                let Value::Tensor(arg) = arg else {
                    panic!("seed {seed}: an argument that is not a tensor")
                };
                // The generated inputs' NaNs are the quiet NaN the format reads back.
                assert!(back.content_eq(arg), "seed {seed}: {g}");
            }
            let (rtol, atol) = tolerances(&case);
            assert!(rtol >= 0.0 && atol >= 0.0);
            assert_eq!(
                case.compare == Compare::Exact,
                atol == 0.0,
                "seed {seed}: {:?}",
                case.compare
            );
        }
    }

    #[test]
    fn tensors_are_wrapped_for_the_corpus() {
        let t = Tensor::from_slice(&[2], &[f32::NAN, -0.0]).unwrap();
        let j = tensor_json(&t).unwrap();
        assert_eq!(j["tensor"]["dtype"], json!("float32"));
        assert_eq!(j["tensor"]["data"], json!(["nan", -0.0]));
    }
}
