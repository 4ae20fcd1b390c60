//! A generated program and everything needed to run it again: the TVMScript module, the
//! arguments handed to `main` (dtype, shape, value range), the metadata constants, how the
//! input values are drawn, and how exactly the library path must match the TIR path.
//!
//! A case is also a file (`tests/cases/*.py`): the module's text after a header of comment
//! lines, which [`Case::to_file`] writes and [`Case::from_file`] reads:
//!
//! ```text
//! # opfuzz: conv2d, seed 42
//! # arg: float32 [1, 3, 5, 5]
//! # arg: int64 [4] in -2..6
//! # const: float32 [4, 3, 3, 3]
//! # inputs: seed 17, integers, special
//! # compare: exact
//! ```
//!
//! `# compare:` is `exact` or `reduction K` (floats within a tolerance scaled by `K`, the
//! length of the longest sum an output element is made of).

use std::fmt::Write as _;

/// A tensor handed to the program: an argument of `main` or a metadata constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorSpec {
    /// A dtype as TVMScript spells it (`float32`, `int64`, `bool`).
    pub dtype: String,
    pub shape: Vec<i64>,
    /// The range the values are drawn from (both ends included), for integer data that must
    /// stay in range (take's indices); `None` for the default of the dtype.
    pub range: Option<(i64, i64)>,
}

impl TensorSpec {
    pub fn new(dtype: &str, shape: &[i64]) -> TensorSpec {
        TensorSpec {
            dtype: dtype.to_string(),
            shape: shape.to_vec(),
            range: None,
        }
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().map(|&d| d.max(0) as usize).product()
    }
}

/// How the library path's results must match the TIR path's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// The same values (a zero of either sign matches a zero, a NaN any NaN): integer
    /// results, copies, and float sums of small integers (exact in any order).
    Exact,
    /// Floats within a tolerance scaled by the length of the longest sum per element.
    Reduction(u64),
}

/// A program and its inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The operator family the generator chose (`matmul`, `conv2d`, ...).
    pub family: String,
    /// The seed the case was generated from (0 for a hand-written one).
    pub seed: u64,
    /// The module in TVMScript; its `main` returns one tensor.
    pub script: String,
    pub args: Vec<TensorSpec>,
    /// `metadata["ir.GenericConst"][i]`.
    pub consts: Vec<TensorSpec>,
    pub input_seed: u64,
    /// Float inputs are small integers (else uniform in [-1, 1)).
    pub integers: bool,
    /// A few float inputs are NaN, ±Inf or -0.0.
    pub special: bool,
    pub compare: Compare,
}

impl Case {
    /// The case as a `.py` file: the header lines, then the script.
    pub fn to_file(&self) -> String {
        let mut s = format!("# opfuzz: {}, seed {}\n", self.family, self.seed);
        let spec = |s: &mut String, kind: &str, t: &TensorSpec| {
            let shape: Vec<String> = t.shape.iter().map(i64::to_string).collect();
            let _ = write!(s, "# {kind}: {} [{}]", t.dtype, shape.join(", "));
            if let Some((lo, hi)) = t.range {
                let _ = write!(s, " in {lo}..{hi}");
            }
            s.push('\n');
        };
        for a in &self.args {
            spec(&mut s, "arg", a);
        }
        for c in &self.consts {
            spec(&mut s, "const", c);
        }
        let _ = writeln!(
            s,
            "# inputs: seed {}{}{}",
            self.input_seed,
            if self.integers { ", integers" } else { "" },
            if self.special { ", special" } else { "" }
        );
        match self.compare {
            Compare::Exact => s.push_str("# compare: exact\n"),
            Compare::Reduction(k) => {
                let _ = writeln!(s, "# compare: reduction {k}");
            }
        }
        s.push_str(&self.script);
        s
    }

    /// Reads a case written by [`Case::to_file`] (the script is the whole text: the header
    /// lines are comments to the parser).
    pub fn from_file(text: &str) -> Result<Case, String> {
        let mut case = Case {
            family: String::new(),
            seed: 0,
            script: text.to_string(),
            args: Vec::new(),
            consts: Vec::new(),
            input_seed: 0,
            integers: false,
            special: false,
            compare: Compare::Reduction(1),
        };
        let spec = |rest: &str| -> Result<TensorSpec, String> {
            let (dtype, rest) = rest.split_once(' ').ok_or("a dtype and a shape")?;
            let (shape, range) = match rest.split_once(" in ") {
                Some((s, r)) => {
                    let (lo, hi) = r.split_once("..").ok_or("a range `lo..hi`")?;
                    let lo = lo.trim().parse().map_err(|_| "a range start")?;
                    let hi = hi.trim().parse().map_err(|_| "a range end")?;
                    (s, Some((lo, hi)))
                }
                None => (rest, None),
            };
            let inner = shape
                .trim()
                .strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .ok_or("a shape `[d, ...]`")?;
            let shape = inner
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|d| d.parse().map_err(|_| format!("a dimension, not `{d}`")))
                .collect::<Result<_, _>>()?;
            Ok(TensorSpec {
                dtype: dtype.to_string(),
                shape,
                range,
            })
        };
        for line in text.lines() {
            let Some((key, rest)) = line.strip_prefix("# ").and_then(|l| l.split_once(": ")) else {
                continue;
            };
            match key {
                "opfuzz" => {
                    let (family, seed) = rest.split_once(", seed ").ok_or("`family, seed S`")?;
                    case.family = family.to_string();
                    case.seed = seed.trim().parse().map_err(|_| "a seed")?;
                }
                "arg" => case.args.push(spec(rest)?),
                "const" => case.consts.push(spec(rest)?),
                "inputs" => {
                    for part in rest.split(", ") {
                        match part {
                            "integers" => case.integers = true,
                            "special" => case.special = true,
                            p => {
                                let s = p.strip_prefix("seed ").ok_or("`seed S`")?;
                                case.input_seed = s.trim().parse().map_err(|_| "an input seed")?;
                            }
                        }
                    }
                }
                "compare" => {
                    case.compare = match rest.trim() {
                        "exact" => Compare::Exact,
                        r => Compare::Reduction(
                            r.strip_prefix("reduction ")
                                .and_then(|k| k.trim().parse().ok())
                                .ok_or("`exact` or `reduction K`")?,
                        ),
                    }
                }
                _ => {}
            }
        }
        Ok(case)
    }
}
