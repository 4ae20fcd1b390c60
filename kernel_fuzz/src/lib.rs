//! Differential fuzzing of TIR kernels: random PrimFuncs compiled by the JIT (`jit`) and run
//! by the reference interpreter (`tir::interp`) must agree.
//!
//! * [`program`]: a seed → a program and its argument shapes (a [`Case`]);
//! * [`inputs`]: tensor data with NaN, ±Inf, −0.0, denormals and extreme integers;
//! * [`diff`]: runs a case both ways and returns a [`Verdict`];
//! * [`shrink`]: reduces a failing case to a small one that fails the same way.
//!
//! Used by the bounded run in this crate's tests (a fixed range of seeds) and by the
//! long-running `cargo xtask fuzz --seconds N [--seed S]`. A seed is a complete report:
//! `cargo xtask fuzz --seed S --count 1` replays it.

pub mod diff;
pub mod emit;
pub mod inputs;
pub mod program;
pub mod rng;
pub mod shrink;

use std::collections::BTreeMap;
use std::fmt;

pub use diff::{Ending, Mismatch, Skip, Verdict, check};
pub use program::{Case, generate};

/// Counts of verdicts over a run of seeds.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Cases run.
    pub executed: u64,
    /// Agreeing cases by their common ending (`"ok"`, `"out-of-bounds"`, ...).
    pub agreed: BTreeMap<&'static str, u64>,
    /// Skipped cases by reason.
    pub skipped: BTreeMap<Skip, u64>,
    /// The disagreements: seed and what differs.
    pub mismatches: Vec<(u64, Mismatch)>,
}

impl Summary {
    /// Records the verdict of `seed`.
    pub fn add(&mut self, seed: u64, verdict: Verdict) {
        self.executed += 1;
        match verdict {
            Verdict::Agree(e) => *self.agreed.entry(e.class()).or_default() += 1,
            Verdict::Skipped(s) => *self.skipped.entry(s).or_default() += 1,
            Verdict::Mismatch(m) => self.mismatches.push((seed, m)),
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} cases: agreed", self.executed)?;
        for (k, v) in &self.agreed {
            write!(f, " {k} {v},")?;
        }
        write!(f, " skipped")?;
        for (k, v) in &self.skipped {
            write!(f, " {k:?} {v},")?;
        }
        write!(f, " mismatches {}", self.mismatches.len())
    }
}

/// Checks the programs of `seeds`, calling `progress` before each.
pub fn run_seeds(seeds: impl IntoIterator<Item = u64>, mut progress: impl FnMut(u64)) -> Summary {
    let mut summary = Summary::default();
    for seed in seeds {
        progress(seed);
        summary.add(seed, check(&generate(seed)));
    }
    summary
}

/// Shrinks the failing `case` (whose mismatch is `class`) with at most `budget` candidate runs.
pub fn shrink_mismatch(case: &Case, class: &str, budget: usize) -> Case {
    shrink::shrink(
        case,
        budget,
        |c| matches!(check(c), Verdict::Mismatch(m) if m.class == class),
    )
}

/// A case as a report: the program in TVMScript, its argument shapes and input seed.
pub fn describe(case: &Case) -> String {
    format!(
        "{}# argument shapes: {:?}, input seed: {}\n",
        tir::print_prim_func(&case.func),
        case.shapes,
        case.input_seed
    )
}
