//! Differential fuzzing of the operators with library fast paths ("opfuzz"): random Relax
//! programs of one such operator (and the epilogue the library fuses) run on the TIR path and
//! on the library kernels, in both exec modes, fused and unfused, at 1, 2 and 3 threads, must
//! agree.
//!
//! * [`program`]: a seed → a program in TVMScript and its inputs (a [`Case`]);
//! * [`inputs`]: the tensor data (small integers or uniform floats, NaN/±Inf at times);
//! * [`diff`]: the setups, the runs and the comparison, a [`Verdict`];
//! * [`case`]: a case as a `.py` file (the regression cases of `tests/cases/`);
//! * [`corpus`]: a case as a conformance corpus folder, for checking against Apache TVM
//!   (`scripts/tvm_diff.py`).
//!
//! Used by the bounded run in this crate's tests (a fixed range of seeds) and by the
//! long-running `cargo xtask fuzz-ops --seconds N [--seed S]`, which runs each case in a child
//! process so that a crash or a hang is a finding too. A seed is a complete report:
//! `cargo xtask fuzz-ops --seed S --count 1` replays it and prints its TVMScript.

pub mod case;
pub mod corpus;
pub mod diff;
pub mod inputs;
pub mod program;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub use case::{Case, Compare, TensorSpec};
pub use diff::{ErrorKind, Mismatch, Setup, Verdict, check, setups};
pub use program::generate;

/// Counts over a run of seeds.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Cases run.
    pub executed: u64,
    /// Agreeing cases by family and ending (`conv2d ok`, `matmul run-error`).
    pub agreed: BTreeMap<String, u64>,
    /// Cases calling each library kernel (under any setup).
    pub hits: BTreeMap<String, u64>,
    /// The disagreements: seed and what differs.
    pub mismatches: Vec<(u64, Mismatch)>,
}

impl Summary {
    /// Records the verdict of `case`, which called the library kernels `hits`.
    pub fn add(&mut self, case: &Case, verdict: Verdict, hits: &BTreeSet<String>) {
        self.executed += 1;
        for h in hits {
            *self.hits.entry(h.clone()).or_default() += 1;
        }
        match verdict {
            Verdict::Agree(e) => {
                let ending = match e {
                    None => "ok",
                    Some(ErrorKind::Compile) => "compile-error",
                    Some(ErrorKind::Run) => "run-error",
                };
                *self
                    .agreed
                    .entry(format!("{} {ending}", case.family))
                    .or_default() += 1;
            }
            Verdict::Mismatch(m) => self.mismatches.push((case.seed, m)),
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} cases, {} mismatches",
            self.executed,
            self.mismatches.len()
        )?;
        let agreed: Vec<String> = self
            .agreed
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        writeln!(f, "agreed: {}", agreed.join(", "))?;
        let hits: Vec<String> = self.hits.iter().map(|(k, v)| format!("{k} {v}")).collect();
        write!(
            f,
            "library kernels (cases calling each): {}",
            hits.join(", ")
        )
    }
}

/// Checks the programs of `seeds` under `setups`, calling `progress` before each.
pub fn run_seeds(
    setups: &[Setup],
    seeds: impl IntoIterator<Item = u64>,
    mut progress: impl FnMut(u64),
) -> Summary {
    let mut summary = Summary::default();
    for seed in seeds {
        progress(seed);
        let case = generate(seed);
        let mut hits = BTreeSet::new();
        let verdict = check(setups, &case, &mut hits);
        summary.add(&case, verdict, &hits);
    }
    summary
}

/// A case as a report: its file form (the header, then the TVMScript).
pub fn describe(case: &Case) -> String {
    case.to_file()
}
