//! The differential check: a [`Case`] compiled and run under every [`Setup`] must agree with
//! the reference, the TIR path (`library: false, fusion: false`, bytecode).
//!
//! What counts as agreement:
//! * both fail, with an error of the same kind ([`ErrorKind`]: compiling or running; the
//!   text may differ, since a library kernel names itself);
//! * both succeed with outputs of one dtype and shape, and
//!   - a setup that differs from another only in the exec mode ([`Setup::twin`]) gives the
//!     very same bits (a NaN matching any NaN): compiled code runs the same kernels;
//!   - against the reference, integers and [`Compare::Exact`] cases give equal values (a zero
//!     matching a zero of either sign), and floats otherwise are within
//!     [`tolerance`]: the library sums in another order, and a kernel's transcendental
//!     functions round differently; a NaN must match a NaN, an infinity the same infinity.
//!
//! Every setup's library calls are collected: the `relaxjit.*` names in the bytecode listing,
//! which tell which kernels the generator reached.

use std::collections::BTreeSet;

use relaxjit::{Config, Engine, ExecMode, Tensor, Value};

use crate::case::{Case, Compare};
use crate::inputs;

/// A configuration a case runs under.
pub struct Setup {
    pub name: &'static str,
    pub engine: Engine,
    /// The setup (by index) that differs from this one only in the exec mode: its outputs
    /// must be the same bits.
    pub twin: Option<usize>,
}

/// The setups, the reference first.
pub fn setups() -> Vec<Setup> {
    let config = |library, fusion, exec_mode, threads| Config {
        library,
        fusion,
        exec_mode,
        threads,
        ..Config::default()
    };
    let table: [(&str, Config, Option<usize>); 10] = [
        ("tir", config(false, false, ExecMode::Bytecode, None), None),
        (
            "tir-compiled",
            config(false, false, ExecMode::Compiled, None),
            Some(0),
        ),
        (
            "tir-fused",
            config(false, true, ExecMode::Bytecode, None),
            None,
        ),
        (
            "library",
            config(true, true, ExecMode::Bytecode, None),
            None,
        ),
        (
            "library-compiled",
            config(true, true, ExecMode::Compiled, None),
            Some(3),
        ),
        (
            "library-unfused",
            config(true, false, ExecMode::Bytecode, None),
            None,
        ),
        (
            "library-threads-1",
            config(true, true, ExecMode::Bytecode, Some(1)),
            None,
        ),
        (
            "library-threads-2",
            config(true, true, ExecMode::Bytecode, Some(2)),
            None,
        ),
        (
            "library-threads-3",
            config(true, true, ExecMode::Bytecode, Some(3)),
            None,
        ),
        (
            "library-threads-3-compiled",
            config(true, true, ExecMode::Compiled, Some(3)),
            Some(8),
        ),
    ];
    table
        .into_iter()
        .map(|(name, config, twin)| Setup {
            name,
            engine: Engine::new(config).expect("a valid configuration"),
            twin,
        })
        .collect()
}

/// What kind of failure a run ended in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ErrorKind {
    /// Parsing, a pass, the kernel JIT or linking rejected the module.
    Compile,
    /// The VM or a kernel failed while running.
    Run,
}

/// An output tensor: dtype, shape, and each element (floats as f64, integers exactly).
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub dtype: String,
    pub shape: Vec<i64>,
    pub values: Values,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Float(Vec<f64>),
    Int(Vec<i64>),
}

/// How one setup's run ended.
#[derive(Clone, Debug)]
pub enum Run {
    Ok(Output),
    Err(ErrorKind, String),
}

fn output(v: &Value) -> Result<Output, String> {
    let t: &Tensor = v
        .as_tensor()
        .map_err(|_| format!("main returned {v:?}, not a tensor"))?;
    let dt = t.dtype();
    let n = t.numel();
    let float = dt.to_string().starts_with("float") || dt.to_string().starts_with("bfloat");
    let values = if float {
        Values::Float((0..n).map(|i| t.get_f64(i).unwrap_or(f64::NAN)).collect())
    } else {
        Values::Int((0..n).map(|i| t.get_i64(i).unwrap_or(i64::MIN)).collect())
    };
    Ok(Output {
        dtype: dt.to_string(),
        shape: t.shape().to_vec(),
        values,
    })
}

/// Compiles and runs `case` under `setup`; also returns the library kernels its bytecode
/// calls.
pub fn run(setup: &Setup, case: &Case) -> (Run, BTreeSet<String>) {
    let (args, consts) = inputs::inputs(case);
    let m = match setup.engine.compile_str_with_metadata(&case.script, consts) {
        Ok(m) => m,
        Err(e) => return (Run::Err(ErrorKind::Compile, e.to_string()), BTreeSet::new()),
    };
    let kernels = library_calls(&m.executable().as_text());
    let run = match m.run("main", &args) {
        Ok(v) => match output(&v) {
            Ok(o) => Run::Ok(o),
            Err(e) => Run::Err(ErrorKind::Run, e),
        },
        Err(relaxjit::Error::Runtime(e)) => Run::Err(ErrorKind::Run, e.to_string()),
        Err(e) => Run::Err(ErrorKind::Compile, e.to_string()),
    };
    (run, kernels)
}

/// The `relaxjit.*` functions named in a bytecode listing.
pub fn library_calls(listing: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = listing;
    while let Some(at) = rest.find("relaxjit.") {
        let tail = &rest[at + "relaxjit.".len()..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        out.insert(tail[..end].to_string());
        rest = &tail[end..];
    }
    out
}

/// How far a float result of the library path may lie from the reference `want`: a few
/// units in the last place of `dtype` per term of a sum of `k` terms, relative to what the
/// terms may add up to (`magnitude`, the largest term), plus room for the transcendental
/// functions of the epilogues and normalizations.
pub fn tolerance(dtype: &str, k: u64, want: f64, magnitude: f64) -> f64 {
    let eps = match dtype {
        "float64" => f64::EPSILON,
        "float16" => 9.8e-4,
        _ => f64::from(f32::EPSILON),
    };
    let k = k as f64 + 2.0;
    eps * 16.0 * k * (1.0 + want.abs() + k * magnitude)
}

/// A disagreement: which setup, and what differs.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// A short stable name: `error-vs-ok`, `error-kind`, `shape`, `values`, `bits`.
    pub class: &'static str,
    pub setup: &'static str,
    pub detail: String,
}

/// The verdict on a case.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Every setup agreed: all ran (`None`) or all failed the same way.
    Agree(Option<ErrorKind>),
    Mismatch(Mismatch),
}

/// Runs `case` under every setup and compares; `hits` collects the library kernels the
/// setups called.
pub fn check(setups: &[Setup], case: &Case, hits: &mut BTreeSet<String>) -> Verdict {
    let runs: Vec<Run> = setups
        .iter()
        .map(|s| {
            let (r, k) = run(s, case);
            hits.extend(k);
            r
        })
        .collect();
    let reference = &runs[0];
    for (setup, got) in setups.iter().zip(&runs).skip(1) {
        let (want, exact_bits, against) = match setup.twin {
            Some(t) => (&runs[t], true, setups[t].name),
            None => (reference, false, setups[0].name),
        };
        let mismatch = |class, detail: String| {
            Verdict::Mismatch(Mismatch {
                class,
                setup: setup.name,
                detail: format!("{} vs {against}: {detail}", setup.name),
            })
        };
        match (got, want) {
            (Run::Err(a, ea), Run::Err(b, eb)) => {
                if a != b {
                    return mismatch("error-kind", format!("{a:?} `{ea}` vs {b:?} `{eb}`"));
                }
            }
            (Run::Err(k, e), Run::Ok(_)) => {
                return mismatch("error-vs-ok", format!("fails ({k:?}: {e}), the other runs"));
            }
            (Run::Ok(_), Run::Err(k, e)) => {
                return mismatch("error-vs-ok", format!("runs, the other fails ({k:?}: {e})"));
            }
            (Run::Ok(g), Run::Ok(w)) => {
                if g.dtype != w.dtype || g.shape != w.shape {
                    return mismatch(
                        "shape",
                        format!("{} {:?} vs {} {:?}", g.dtype, g.shape, w.dtype, w.shape),
                    );
                }
                if let Some(d) = compare_values(case, g, w, exact_bits) {
                    return mismatch(if exact_bits { "bits" } else { "values" }, d);
                }
            }
        }
    }
    match reference {
        Run::Ok(_) => Verdict::Agree(None),
        Run::Err(k, _) => Verdict::Agree(Some(*k)),
    }
}

/// The first element of `got` that does not match `want`, described.
fn compare_values(case: &Case, got: &Output, want: &Output, exact_bits: bool) -> Option<String> {
    let at = |i: usize| {
        let mut idx = vec![0; got.shape.len()];
        let mut r = i as i64;
        for d in (0..got.shape.len()).rev() {
            let e = got.shape[d].max(1);
            idx[d] = r % e;
            r /= e;
        }
        idx
    };
    match (&got.values, &want.values) {
        (Values::Int(g), Values::Int(w)) => g
            .iter()
            .zip(w)
            .position(|(a, b)| a != b)
            .map(|i| format!("element {:?}: {} vs {}", at(i), g[i], w[i])),
        (Values::Float(g), Values::Float(w)) => {
            let magnitude = if case.integers { 9.0 } else { 1.0 };
            let bad = |a: f64, b: f64| -> bool {
                if a.is_nan() || b.is_nan() {
                    return a.is_nan() != b.is_nan();
                }
                if exact_bits {
                    return a.to_bits() != b.to_bits();
                }
                if a.is_infinite() || b.is_infinite() {
                    return a != b;
                }
                match case.compare {
                    Compare::Exact => a != b,
                    Compare::Reduction(k) => (a - b).abs() > tolerance(&got.dtype, k, b, magnitude),
                }
            };
            g.iter().zip(w).position(|(&a, &b)| bad(a, b)).map(|i| {
                let wrong = g.iter().zip(w).filter(|(a, b)| bad(**a, **b)).count();
                format!(
                    "element {:?}: {:?} vs {:?} ({wrong} of {} elements differ)",
                    at(i),
                    g[i],
                    w[i],
                    g.len()
                )
            })
        }
        _ => Some("float vs integer values".into()),
    }
}
