//! `relax.run.nonzero` and `relax.run.unique`: the packed functions TVM's `R.nonzero` and
//! `R.unique` call (their `FCallPacked`; in TVM numpy functions registered by the Python
//! package), whose results' shapes depend on the data and so are allocated here.

use super::Args;
use crate::{Error, Result, Tensor, Value};

/// `relax.run.nonzero(x) -> Tensor`: the positions of the non-zero elements of `x` as an
/// `int64` tensor `(rank, count)`, column `k` the index of the `k`-th non-zero element in
/// row-major order (`np.stack(np.atleast_1d(x).nonzero())`: a rank-0 `x` counts as `(1,)`).
/// A NaN is non-zero, as in numpy.
pub(super) fn nonzero(args: &[Value]) -> Result<Value> {
    let a = Args::new("relax.run.nonzero", args);
    a.expect_len(1, 1, "(x: Tensor)")?;
    let x = a.tensor(0, "x")?;
    let dtype = x.dtype();
    if dtype.lanes != 1 {
        return Err(Error::value_error(format!(
            "{}: x of vector dtype {dtype}",
            a.name
        )));
    }
    let shape: Vec<i64> = if x.ndim() == 0 {
        vec![1]
    } else {
        x.shape().to_vec()
    };
    let float = dtype.is_floating();
    let mut hits = Vec::new();
    for k in 0..x.numel() {
        let nonzero = if float {
            x.get_f64(k).map(|v| v != 0.0)
        } else {
            x.get_i64(k).map(|v| v != 0)
        };
        match nonzero {
            Some(true) => hits.push(k),
            Some(false) => {}
            None => {
                return Err(Error::value_error(format!(
                    "{}: cannot read elements of dtype {dtype}",
                    a.name
                )));
            }
        }
    }
    let rank = shape.len();
    let count = hits.len();
    let mut data = vec![0i64; rank * count];
    for (col, &flat) in hits.iter().enumerate() {
        let mut rest = flat as i64;
        for axis in (0..rank).rev() {
            let dim = shape[axis].max(1);
            data[axis * count + col] = rest % dim;
            rest /= dim;
        }
    }
    let out =
        Tensor::from_slice(&[rank as i64, count as i64], &data).map_err(|e| e.context(a.name))?;
    Ok(Value::Tensor(out))
}

/// One element as a sort key: floats by value with NaN after everything (numpy's order, and
/// its `unique`, which takes every NaN as one value), integers exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Key {
    Int(i64),
    Float(f64),
}

impl Key {
    fn cmp(&self, other: &Key) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match (self, other) {
            (Key::Int(a), Key::Int(b)) => a.cmp(b),
            (Key::Float(a), Key::Float(b)) => match (a.is_nan(), b.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                // -0.0 and 0.0 are one value, as in numpy.
                (false, false) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
            },
            (Key::Int(_), Key::Float(_)) => Ordering::Less,
            (Key::Float(_), Key::Int(_)) => Ordering::Greater,
        }
    }
}

/// `relax.run.unique(x, sorted, return_index, return_inverse, return_counts[, axis])`: TVM's
/// `R.unique` (its `FCallPacked`, numpy's `np.unique` in TVM's Python package). Without
/// `axis` the unique values of the flattened `x`; with it, the unique slices along `axis`
/// (compared element by element in row-major order). `sorted` false orders them by first
/// occurrence instead of ascending, and renumbers `inverse` to match, as TVM's function does.
/// Returns the values alone, or a tuple of the values and the requested `int64` tensors
/// (first-occurrence index, inverse, counts), in that order.
pub(super) fn unique(args: &[Value]) -> Result<Value> {
    let a = Args::new("relax.run.unique", args);
    a.expect_len(
        5,
        6,
        "(x: Tensor, sorted: bool, return_index: bool, return_inverse: bool, return_counts: bool[, axis: int])",
    )?;
    let x = a.tensor(0, "x")?;
    let sorted = a.int(1, "sorted")? != 0;
    let want_index = a.int(2, "return_index")? != 0;
    let want_inverse = a.int(3, "return_inverse")? != 0;
    let want_counts = a.int(4, "return_counts")? != 0;
    let dtype = x.dtype();
    if dtype.lanes != 1 || dtype.bits % 8 != 0 {
        return Err(Error::value_error(format!(
            "{}: x of dtype {dtype}",
            a.name
        )));
    }
    let float = dtype.is_floating();
    let key = |k: usize| -> Result<Key> {
        let v = if float {
            x.get_f64(k).map(Key::Float)
        } else {
            x.get_i64(k).map(Key::Int)
        };
        v.ok_or_else(|| {
            Error::value_error(format!("{}: cannot read elements of dtype {dtype}", a.name))
        })
    };
    // The input as `outer × n × inner` with the slices along the middle axis.
    let shape: Vec<i64> = if x.ndim() == 0 {
        vec![1]
    } else {
        x.shape().to_vec()
    };
    let axis = match args.get(5) {
        None | Some(Value::Null) => None,
        Some(_) => {
            let raw = a.int(5, "axis")?;
            let rank = shape.len() as i64;
            if raw < -rank || raw >= rank {
                return Err(Error::value_error(format!(
                    "{}: axis {raw} is out of range for a tensor of rank {rank}",
                    a.name
                )));
            }
            Some((if raw < 0 { raw + rank } else { raw }) as usize)
        }
    };
    let numel = x.numel();
    let (outer, n, inner) = match axis {
        None => (1, numel, 1),
        Some(ax) => {
            let p = |s: &[i64]| s.iter().product::<i64>() as usize;
            (p(&shape[..ax]), shape[ax] as usize, p(&shape[ax + 1..]))
        }
    };
    let slices: Vec<Vec<Key>> = (0..n)
        .map(|j| {
            let mut s = Vec::with_capacity(outer * inner);
            for o in 0..outer {
                for i in 0..inner {
                    s.push(key((o * n + j) * inner + i)?);
                }
            }
            Ok(s)
        })
        .collect::<Result<_>>()?;
    let order_of = |p: &usize, q: &usize| {
        slices[*p]
            .iter()
            .zip(&slices[*q])
            .map(|(a, b)| a.cmp(b))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    };
    // Stable: within a group of equal slices the first is the first occurrence.
    let mut by_value: Vec<usize> = (0..n).collect();
    by_value.sort_by(order_of);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &j in &by_value {
        match groups.last_mut() {
            Some(g) if order_of(&g[0], &j).is_eq() => g.push(j),
            _ => groups.push(vec![j]),
        }
    }
    if !sorted {
        groups.sort_by_key(|g| g[0]);
    }
    let count = groups.len();
    let mut inverse = vec![0i64; n];
    for (u, g) in groups.iter().enumerate() {
        for &j in g {
            inverse[j] = u as i64;
        }
    }
    // The values: the first slice of each group, gathered along the axis.
    let mut out_shape = shape.clone();
    match axis {
        None => out_shape = vec![count as i64],
        Some(ax) => out_shape[ax] = count as i64,
    }
    let mut values = Tensor::zeros(&out_shape, dtype).map_err(|e| e.context(a.name))?;
    let elem = dtype.bytes();
    {
        let dst = values.bytes_mut()?;
        // SAFETY: a tensor's storage holds `nbytes` bytes from its data pointer, every byte
        // pattern is a valid `u8`, and `x` is not written while this runs (`values` is a
        // fresh tensor, so the two do not overlap).
        let src = unsafe { std::slice::from_raw_parts(x.as_ptr(), x.nbytes()) };
        for (u, g) in groups.iter().enumerate() {
            for o in 0..outer {
                for i in 0..inner {
                    let from = ((o * n + g[0]) * inner + i) * elem;
                    let to = ((o * count + u) * inner + i) * elem;
                    let (Some(from), Some(to)) =
                        (src.get(from..from + elem), dst.get_mut(to..to + elem))
                    else {
                        return Err(Error::internal(format!(
                            "{}: an element outside the tensors",
                            a.name
                        )));
                    };
                    to.copy_from_slice(from);
                }
            }
        }
    }
    let ints = |v: Vec<i64>| -> Result<Value> {
        let len = v.len() as i64;
        Ok(Value::Tensor(
            Tensor::from_slice(&[len], &v).map_err(|e| e.context(a.name))?,
        ))
    };
    if !(want_index || want_inverse || want_counts) {
        return Ok(Value::Tensor(values));
    }
    let mut fields = vec![Value::Tensor(values)];
    if want_index {
        fields.push(ints(groups.iter().map(|g| g[0] as i64).collect())?);
    }
    if want_inverse {
        fields.push(ints(inverse)?);
    }
    if want_counts {
        fields.push(ints(groups.iter().map(|g| g.len() as i64).collect())?);
    }
    Ok(Value::tuple(fields))
}
