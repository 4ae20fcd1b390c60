//! `R.bucketize`, `R.multinomial_from_uniform`, `R.nonzero` and `R.unique`.
//!
//! `nonzero` and `unique` become, as TVM's `FCallPacked` attribute makes them, calls of the
//! runtime's `relax.run.nonzero` and `relax.run.unique` (`vm::builtin`), which allocate their
//! results: the counts, and so the results' shapes, are known only then.
//!
//! `bucketize` is TVM's `topi.searchsorted(boundaries, input, right, out_dtype)`: the index
//! at which each value would be inserted into the sorted boundaries (before equal ones, or
//! after them with `right`). TVM's kernel binary-searches in a `while` loop, which our TIR
//! does not have; here the index is the number of boundaries below the value (`<`, or `<=`
//! with `right`), a reduction over the boundaries. The two agree whenever the boundaries
//! are sorted, as TVM requires (its result on unsorted boundaries is "undefined"; this one
//! is the count).
//!
//! `multinomial_from_uniform` has no legalization in TVM: its `DispatchSampling` pass
//! rewrites it, for a CPU target, into `R.cumsum(prob, axis=1)` and the `get_sample_index`
//! kernel of `relax.backend.gpu_generic`; the kernel here is that pair in one function: a
//! running sum of each probability row, then for sample `i` the column TVM's kernel writes
//! last in row `sample_indices[i, 0]`: the first column whose cumulative probability exceeds
//! `uniform_sample[i, 0]` (the last column when none does) whenever the sums do not decrease;
//! for rows where they do (negative probabilities), still the column TVM writes last, and 0
//! where TVM writes none (its output is then uninitialized memory). A row index outside `prob`
//! is a run-time out-of-bounds error (TVM reads outside the buffer).

use tir::{CmpOp, DataType, ForKind, PrimExpr, Stmt, Var};

use super::te::{self, Combiner, Te};
use super::{Lowered, OpCall, Result, Rule, TArg, unsupported};
use crate::Error;

pub(super) fn rule(name: &str) -> Option<Rule> {
    let r: Rule = match name {
        "bucketize" => bucketize,
        "multinomial_from_uniform" => multinomial_from_uniform,
        // TVM's `FCallPacked`: the runtime's `relax.run.nonzero`, which allocates the result
        // (its shape depends on the data).
        "nonzero" => |c| {
            Ok(Lowered::Expr(crate::transform::call_pure_packed(
                "relax.run.nonzero",
                c.call.args.clone(),
                c.out.clone(),
            )))
        },
        "unique" => |c| {
            Ok(Lowered::Expr(crate::transform::call_pure_packed(
                "relax.run.unique",
                c.call.args.clone(),
                c.out.clone(),
            )))
        },
        _ => return None,
    };
    Some(r)
}

fn invalid<T>(c: &OpCall, msg: impl std::fmt::Display) -> Result<T> {
    Err(Error::TypeInference(format!(
        "{}: {msg}",
        crate::op::common::script_name(c.call)
    )))
}

fn bucketize(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let b = c.tensor(1)?;
    if b.ndim() != 1 {
        return invalid(
            c,
            format!("boundaries must be a 1-D tensor, got rank {}", b.ndim()),
        );
    }
    let (shape, dt) = c.out_tensor()?;
    let right = c.attr_bool("right").unwrap_or(false);
    let op = if right { CmpOp::Le } else { CmpOp::Lt };
    let mut te = Te::new();
    let raxes = [("k".to_string(), b.shape()[0].clone())];
    let out = te.reduce_named(
        "searchsorted",
        "ax",
        &shape,
        &raxes,
        Combiner::Sum,
        None,
        |i, k| {
            let below = te::cmp(
                op,
                te::load(&b.buf, vec![k[0].clone()]),
                te::load(&x.buf, i.to_vec()),
            );
            te::select(below, te::one(dt), te::zero(dt))
        },
    );
    c.finish("bucketize", te, &[&x, &b], &[out])
}

fn multinomial_from_uniform(c: &OpCall) -> Result<Lowered> {
    let prob = c.tensor(0)?;
    let sample = c.tensor(1)?;
    let rows = c.tensor(2)?;
    let (shape, dt) = c.out_tensor()?;
    if prob.ndim() != 2 || sample.ndim() != 2 || rows.ndim() != 2 {
        return invalid(c, "prob, uniform_sample and sample_indices must be 2-D");
    }
    let pdt = prob.dtype();
    if !pdt.is_float() || !sample.dtype().is_float() || !rows.dtype().is_int() {
        return invalid(
            c,
            format!(
                "prob and uniform_sample must be float tensors and sample_indices an integer \
                 one, got {}, {} and {}",
                pdt,
                sample.dtype(),
                rows.dtype()
            ),
        );
    }
    if shape.len() != 2 {
        return unsupported("multinomial_from_uniform result that is not 2-D");
    }
    let (batch, vocab) = (prob.shape()[0].clone(), prob.shape()[1].clone());
    // The running sums of the probability rows (TVM's `R.cumsum(prob, axis=1)`).
    let cumsum = te::placeholder("cumsum", prob.shape(), pdt);
    let (r, j) = (
        Var::new("r", DataType::INT64),
        Var::new("j", DataType::INT64),
    );
    let (rv, jv) = (PrimExpr::from(&r), PrimExpr::from(&j));
    let first = te::store(
        &cumsum,
        vec![rv.clone(), te::i64c(0)],
        te::load(&prob.buf, vec![rv.clone(), te::i64c(0)]),
    );
    let next = te::add(jv.clone(), te::i64c(1));
    let step = te::store(
        &cumsum,
        vec![rv.clone(), next.clone()],
        te::add(
            te::load(&cumsum, vec![rv.clone(), jv.clone()]),
            te::load(&prob.buf, vec![rv.clone(), next]),
        ),
    );
    let row = Stmt::new(tir::StmtKind::IfThenElse {
        cond: te::cmp(CmpOp::Gt, vocab.clone(), te::i64c(0)),
        then_case: Stmt::seq(vec![
            first,
            te::for_loop(
                &j,
                te::sub(vocab.clone(), te::i64c(1)),
                ForKind::Serial,
                step,
            ),
        ]),
        else_case: None,
    });
    let mut te = Te::new();
    te.opaque(
        "cumsum",
        vec![cumsum.clone()],
        te::for_loop(&r, batch, ForKind::Serial, row),
    );
    // TVM's kernel, for column `j` in order: `j = 0` writes 0 when `u < cum[0]` (or there is
    // one column); a later `j` writes `j` when `u < cum[j]` (or `j` is the last column) and
    // `u >= cum[j − 1]`. The last write stands, so the result is the largest such `j`, and 0
    // where none writes. Over `k = j − 1 < vocab − 1`, as a max from 0.
    let raxes = [(
        "k".to_string(),
        te::max(te::sub(vocab.clone(), te::i64c(1)), te::i64c(0)),
    )];
    let out = te.reduce_named(
        "T_get_sample_index",
        "ax",
        &shape,
        &raxes,
        Combiner::Max,
        Some(te::zero(dt)),
        |i, k| {
            let row = te::cast(
                DataType::INT64,
                te::load(&rows.buf, vec![i[0].clone(), te::i64c(0)]),
            );
            let u = te::load(&sample.buf, vec![i[0].clone(), te::i64c(0)]);
            let j = te::add(k[0].clone(), te::i64c(1));
            let cum = |at: PrimExpr| te::load(&cumsum, vec![row.clone(), at]);
            let reached = te::or(
                te::cmp(CmpOp::Lt, u.clone(), cum(j.clone())),
                te::cmp(CmpOp::Eq, te::add(j.clone(), te::i64c(1)), vocab.clone()),
            );
            let past = te::cmp(CmpOp::Ge, u, cum(k[0].clone()));
            te::select(te::and(reached, past), te::cast(dt, j), te::zero(dt))
        },
    );
    let inputs: [&TArg; 3] = [&prob, &sample, &rows];
    c.finish("multinomial_from_uniform", te, &inputs, &[out])
}
