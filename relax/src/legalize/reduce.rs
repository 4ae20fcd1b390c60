//! Reductions: `sum`, `prod`, `max`, `min`, `mean`, `variance`, `std` (topi's `<x>_red`
//! blocks with `k<d>` reduction axes) and `argmax`/`argmin` (a two-buffer reduction with a
//! tie-breaking select, then a copy of the index).

use tir::{Buffer, CmpOp, DataType, PrimExpr, Stmt, StmtKind, Var};

use super::te::{self, Combiner, Te};
use super::{Lowered, OpCall, Result, Rule, unsupported};
use crate::ir::StructInfo;

pub(super) fn rule(name: &str) -> Option<Rule> {
    let r: Rule = match name {
        "sum" => |c| simple(c, "sum", Combiner::Sum),
        "prod" => |c| simple(c, "prod", Combiner::Prod),
        "max" => |c| simple(c, "max", Combiner::Max),
        "min" => |c| simple(c, "min", Combiner::Min),
        "mean" => mean,
        "variance" => |c| variance(c, false),
        "std" => |c| variance(c, true),
        "argmax" => |c| arg_reduce(c, "argmax", CmpOp::Gt),
        "argmin" => |c| arg_reduce(c, "argmin", CmpOp::Lt),
        "median" => median,
        _ => return None,
    };
    Some(r)
}

/// The reduced axes (normalized, sorted) of `axis=` over a rank-`ndim` tensor; `None` means all.
pub(crate) fn reduced_axes(c: &OpCall, ndim: usize) -> Vec<usize> {
    match c.attr_ints("axis") {
        None => (0..ndim).collect(),
        Some(list) => {
            let mut v: Vec<usize> = list
                .iter()
                .map(|&a| if a < 0 { a + ndim as i64 } else { a } as usize)
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        }
    }
}

/// One topi reduction stage over `src`: output `<name>_red`-style buffer `name`.
pub(crate) fn reduce_stage(
    te: &mut Te,
    name: &str,
    src: &Buffer,
    axes: &[usize],
    keepdims: bool,
    combiner: Combiner,
) -> Buffer {
    let shape = &src.shape;
    let out_shape: Vec<PrimExpr> = shape
        .iter()
        .enumerate()
        .filter_map(|(d, e)| {
            if axes.contains(&d) {
                keepdims.then(|| te::i64c(1))
            } else {
                Some(e.clone())
            }
        })
        .collect();
    let raxes: Vec<(String, PrimExpr)> = axes
        .iter()
        .map(|&d| (format!("k{d}"), shape[d].clone()))
        .collect();
    te.reduce(name, &out_shape, &raxes, combiner, None, |i, k| {
        te::load(src, source_index(shape.len(), axes, keepdims, i, k))
    })
}

/// The index of the reduced tensor for output index `i` and reduction index `k`.
fn source_index(
    ndim: usize,
    axes: &[usize],
    keepdims: bool,
    i: &[PrimExpr],
    k: &[PrimExpr],
) -> Vec<PrimExpr> {
    let mut out = Vec::new();
    let (mut oi, mut ki) = (0, 0);
    for d in 0..ndim {
        if axes.contains(&d) {
            out.push(k[ki].clone());
            ki += 1;
            if keepdims {
                oi += 1;
            }
        } else {
            out.push(i[oi].clone());
            oi += 1;
        }
    }
    out
}

fn simple(c: &OpCall, name: &str, comb: Combiner) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let axes = reduced_axes(c, x.ndim());
    let keep = c.attr_bool("keepdims").unwrap_or(false);
    let mut te = Te::new();
    let out = reduce_stage(
        &mut te,
        &format!("{}_red", x.buf.name),
        &x.buf,
        &axes,
        keep,
        comb,
    );
    c.finish(name, te, &[&x], &[out])
}

/// The number of reduced elements as a constant of `dt`, or a cast of the symbolic count.
fn count(shape: &[PrimExpr], axes: &[usize], dt: DataType) -> PrimExpr {
    let n = te::product(&axes.iter().map(|&d| shape[d].clone()).collect::<Vec<_>>());
    match n.as_int() {
        Some(v) => te::constf(dt, v as f64),
        None => te::cast(dt, n),
    }
}

/// `out[i] = src[i] / n` over `src`'s shape (`T_divide`).
fn divide_stage(te: &mut Te, src: &Buffer, n: PrimExpr) -> Buffer {
    let shape = src.shape.clone();
    te.compute("T_divide", "ax", &shape, |i| {
        te::div(te::load(src, i.to_vec()), n)
    })
}

fn mean(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let axes = reduced_axes(c, x.ndim());
    let keep = c.attr_bool("keepdims").unwrap_or(false);
    let mut te = Te::new();
    let red = reduce_stage(
        &mut te,
        &format!("{}_red", x.buf.name),
        &x.buf,
        &axes,
        keep,
        Combiner::Sum,
    );
    let n = count(x.shape(), &axes, x.dtype());
    let out = divide_stage(&mut te, &red, n);
    c.finish("mean", te, &[&x], &[out])
}

/// TVM's `_variance`: mean with keepdims, subtract, square, sum, divide (then `sqrt` for std).
fn variance(c: &OpCall, std: bool) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let axes = reduced_axes(c, x.ndim());
    let keep = c.attr_bool("keepdims").unwrap_or(false);
    let dt = x.dtype();
    let n = count(x.shape(), &axes, dt);
    let mut te = Te::new();
    let red = reduce_stage(
        &mut te,
        &format!("{}_red", x.buf.name),
        &x.buf,
        &axes,
        true,
        Combiner::Sum,
    );
    let mean = divide_stage(&mut te, &red, n.clone());
    let shape = x.shape().to_vec();
    let diff = te.compute("T_subtract", "ax", &shape, |i| {
        te::sub(
            te::load(&x.buf, i.to_vec()),
            te::load(
                &mean,
                super::elementwise::bcast_index(&mean.shape, &shape, i),
            ),
        )
    });
    let sq = te.compute("T_multiply", "ax", &shape, |i| {
        te::mul(te::load(&diff, i.to_vec()), te::load(&diff, i.to_vec()))
    });
    let sum = reduce_stage(&mut te, "T_multiply_red", &sq, &axes, keep, Combiner::Sum);
    let mut out = divide_stage(&mut te, &sum, n);
    let name = if std {
        let v = out.clone();
        let vshape = v.shape.clone();
        out = te.compute("compute", "i", &vshape, |i| {
            te::intrin("sqrt", vec![te::load(&v, i.to_vec())])
        });
        "std"
    } else {
        "variance"
    };
    c.finish(name, te, &[&x], &[out])
}

fn arg_reduce(c: &OpCall, name: &str, better: CmpOp) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let axes = reduced_axes(c, x.ndim());
    let keep = c.attr_bool("keepdims").unwrap_or(false);
    let shape = x.shape().to_vec();
    let dt = x.dtype();
    let (_, out_dt) = c.out_tensor()?;
    let out_shape: Vec<PrimExpr> = shape
        .iter()
        .enumerate()
        .filter_map(|(d, e)| {
            if axes.contains(&d) {
                keep.then(|| te::i64c(1))
            } else {
                Some(e.clone())
            }
        })
        .collect();
    let base = format!("{}_red", x.buf.name);
    let temp = format!("{base}_temp");
    let v0 = te::placeholder(&format!("{temp}_v0"), &out_shape, out_dt);
    let v1 = te::placeholder(&format!("{temp}_v1"), &out_shape, dt);
    let mut raxes: Vec<(String, PrimExpr)> = axes
        .iter()
        .map(|&d| (format!("k{d}"), shape[d].clone()))
        .collect();
    // A rank-0 tensor has no axis to reduce over: TOPI's reducer still folds its one element
    // (at flat position 0), which a reduction axis of extent 1 does.
    if raxes.is_empty() {
        raxes.push(("k0".to_string(), te::i64c(1)));
    }
    let mut te = Te::new();
    let init_v1 = if better == CmpOp::Gt {
        PrimExpr::min_value(dt)
    } else {
        PrimExpr::max_value(dt)
    };
    let (b0, b1) = (v0.clone(), v1.clone());
    te.custom(
        &temp,
        "ax",
        &out_shape,
        &raxes,
        vec![v0.clone(), v1.clone()],
        |i, k| {
            let src = te::load(&x.buf, source_index(shape.len(), &axes, keep, i, k));
            let mut flat = k[0].clone();
            for (j, kk) in k.iter().enumerate().skip(1) {
                flat = te::add(te::mul(flat, shape[axes[j]].clone()), kk.clone());
            }
            let flat = te::cast(out_dt, flat);
            let (init, body) =
                arg_fold_step(&b0, &b1, i, better, src, flat, init_v1.clone(), &temp);
            (Some(init), body)
        },
    );
    let out = te.compute(&base, "ax", &out_shape, |i| te::load(&v0, i.to_vec()));
    c.finish(name, te, &[&x], &[out])
}

/// One step of TVM's arg-max/arg-min fold (TOPI's `MakeArgmaxReducer`) over the pair
/// `(b0[i], b1[i])` (index, value): its init `(-1, start)` and its update with element `src` at
/// flat position `flat`, which takes the element unless the pair's value is better (`better`),
/// or equal with a smaller index. The update binds the new index and value
/// (`v_{temp}_v0`, `v_{temp}_v1`) before storing both. Used by `argmax`/`argmin` and by
/// `R.grad.max_pool2d_backward`'s window argmax.
#[allow(clippy::too_many_arguments)]
pub(super) fn arg_fold_step(
    b0: &Buffer,
    b1: &Buffer,
    i: &[PrimExpr],
    better: CmpOp,
    src: PrimExpr,
    flat: PrimExpr,
    start: PrimExpr,
    temp: &str,
) -> (Stmt, Stmt) {
    let cur0 = te::load(b0, i.to_vec());
    let cur1 = te::load(b1, i.to_vec());
    let init = Stmt::seq(vec![
        te::store(b0, i.to_vec(), PrimExpr::int(b0.dtype, -1)),
        te::store(b1, i.to_vec(), start),
    ]);
    let sel0 = te::select(
        te::or(
            te::cmp(better, cur1.clone(), src.clone()),
            te::and(
                te::cmp(CmpOp::Eq, cur1.clone(), src.clone()),
                te::cmp(CmpOp::Lt, cur0.clone(), flat.clone()),
            ),
        ),
        cur0,
        flat,
    );
    let sel1 = te::select(te::cmp(better, cur1.clone(), src.clone()), cur1, src);
    let l0 = Var::new(format!("v_{temp}_v0"), b0.dtype);
    let l1 = Var::new(format!("v_{temp}_v1"), b1.dtype);
    let stores = Stmt::seq(vec![
        te::store(b0, i.to_vec(), PrimExpr::from(&l0)),
        te::store(b1, i.to_vec(), PrimExpr::from(&l1)),
    ]);
    let body = Stmt::new(StmtKind::LetStmt {
        var: l0,
        value: sel0,
        body: Stmt::new(StmtKind::LetStmt {
            var: l1,
            value: sel1,
            body: stores,
        }),
    });
    (init, body)
}

/// `median(x, axis, keepdims)`: the lower median (sorted position `(n - 1) // 2`, like
/// `torch.median`) over one axis or over all elements; with an axis, also the index of that
/// element along the axis (a stable sort's). Computed without sorting: a `T_rank` stage
/// counts, for every element, the elements before it in a stable ascending order, then the
/// element whose rank is the middle one is selected by a sum with a single non-zero term.
fn median(c: &OpCall) -> Result<Lowered> {
    let x = c.tensor(0)?;
    let n = x.ndim();
    let axis = match c.attr_ints("axis").as_deref() {
        None => None,
        Some([a]) => {
            let a = if *a < 0 { a + n as i64 } else { *a };
            if a < 0 || a as usize >= n {
                return unsupported(format!("median: axis {a} of a rank-{n} tensor"));
            }
            Some(a as usize)
        }
        Some(list) => return unsupported(format!("median over axes {list:?} (one axis or all)")),
    };
    let keepdims = c.attr_bool("keepdims").unwrap_or(false);
    let red: Vec<usize> = match axis {
        Some(a) => vec![a],
        None => (0..n).collect(),
    };
    let shapes: Vec<Vec<PrimExpr>> = match &c.out {
        StructInfo::Tuple(items) => items
            .iter()
            .filter_map(|s| s.tensor_shape().map(<[PrimExpr]>::to_vec))
            .collect(),
        other => other
            .tensor_shape()
            .map(|s| vec![s.to_vec()])
            .unwrap_or_default(),
    };
    let want = if axis.is_some() { 2 } else { 1 };
    if shapes.len() != want {
        return unsupported("median: the result is not of known shape");
    }
    let xs = x.shape().to_vec();
    let count = red.iter().fold(te::i64c(1), |acc, &d| {
        te::mul(acc, te::cast(DataType::INT64, xs[d].clone()))
    });
    let mid = te::floordiv(te::sub(count, te::i64c(1)), te::i64c(2));
    // The flat position of an index among the reduced dimensions.
    let flat = |idx: &[PrimExpr]| -> PrimExpr {
        red.iter().fold(te::i64c(0), |acc, &d| {
            te::add(
                te::mul(acc, te::cast(DataType::INT64, xs[d].clone())),
                te::cast(DataType::INT64, idx[d].clone()),
            )
        })
    };
    let mut te = Te::new();
    let raxes: Vec<(String, PrimExpr)> = red
        .iter()
        .map(|&d| (format!("l{d}"), xs[d].clone()))
        .collect();
    let rank = te.reduce("T_rank", &xs, &raxes, Combiner::Sum, None, |j, l| {
        let mut other = j.to_vec();
        for (k, &d) in red.iter().enumerate() {
            other[d] = l[k].clone();
        }
        let (xj, xl) = (
            te::load(&x.buf, j.to_vec()),
            te::load(&x.buf, other.clone()),
        );
        let before = te::or(
            te::cmp(CmpOp::Lt, xl.clone(), xj.clone()),
            te::and(
                te::cmp(CmpOp::Eq, xl, xj),
                te::cmp(CmpOp::Lt, flat(&other), flat(j)),
            ),
        );
        te::select(before, te::i64c(1), te::i64c(0))
    });
    // The data index of output index `i` and reduction index `k`.
    let src = |i: &[PrimExpr], k: &[PrimExpr]| -> Vec<PrimExpr> {
        let mut kept = 0;
        let mut ks = k.iter();
        (0..n)
            .map(|d| {
                if red.contains(&d) {
                    if keepdims {
                        kept += 1;
                    }
                    ks.next().cloned().unwrap_or_else(|| te::i64c(0))
                } else {
                    let v = i.get(kept).cloned().unwrap_or_else(|| te::i64c(0));
                    kept += 1;
                    v
                }
            })
            .collect()
    };
    let kaxes: Vec<(String, PrimExpr)> = red
        .iter()
        .map(|&d| (format!("k{d}"), xs[d].clone()))
        .collect();
    let dt = x.dtype();
    let values = te.reduce(
        "T_median",
        &shapes[0],
        &kaxes,
        Combiner::Sum,
        None,
        |i, k| {
            let at = src(i, k);
            te::select(
                te::cmp(CmpOp::Eq, te::load(&rank, at.clone()), mid.clone()),
                te::load(&x.buf, at),
                te::zero(dt),
            )
        },
    );
    let mut outs = vec![values];
    if let (Some(a), Some(ishape)) = (axis, shapes.get(1)) {
        let indices = te.reduce(
            "T_median_index",
            ishape,
            &kaxes,
            Combiner::Sum,
            None,
            |i, k| {
                let at = src(i, k);
                te::select(
                    te::cmp(CmpOp::Eq, te::load(&rank, at.clone()), mid.clone()),
                    te::cast(DataType::INT64, at[a].clone()),
                    te::i64c(0),
                )
            },
        );
        outs.push(indices);
    }
    c.finish("median", te, &[&x], &outs)
}
