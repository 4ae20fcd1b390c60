//! The sort family of TVM's runtime (`tvm.contrib.sort.sort`, `argsort`, `topk`): one order, one
//! output-shape rule and one driver, shared by the reference interpreter ([`crate::interp`]) and
//! the JIT's runtime helper, so that the two cannot disagree.
//!
//! Semantics, after TVM's `src/runtime/contrib/sort/sort.cc`:
//!
//! * for every position outside `axis`, the slice along `axis` is sorted **stably**: ties keep
//!   index order, also when descending (TVM runs `std::stable_sort` with `>`, it does not
//!   reverse an ascending sort);
//! * top-k writes the first `k` of that order; `k < 1` or `k` beyond the axis means the whole
//!   axis;
//! * every output has the input's shape with the axis extent replaced by that `k` (sort and
//!   argsort: the input's shape). TVM 0.27's struct info for `R.topk` clamps `k` the same way,
//!   but its legalized TIR sizes the outputs with the unclamped `k` and its runtime, which
//!   checks no shape, leaves the extra elements uninitialised; here any other shape is an error.
//!
//! NaN: TVM compares with `<` / `>`, which is not a strict weak order once NaN is involved, so
//! TVM's placement of NaN is unspecified (TVM 0.27's argsort of `[1, nan, -0, 0, inf, -inf,
//! nan, 1, -1]` returns `[2 0 1 5 6 8 3 7 4]`, which is not sorted at all). [`SortKey::total_cmp`]
//! follows numpy instead: NaN sorts after `+inf`, so an ascending sort puts NaNs last and a
//! descending sort or `topk(largest=True)` puts them first (as PyTorch's `sort`/`topk` do). All
//! NaNs are equal to each other, and `-0.0` equals `+0.0` (as with `<`), so both keep index order.

use std::cmp::Ordering;

/// A sort-family call whose arguments do not fit together (axis, shapes, dtypes), or a row that
/// cannot be allocated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SortError(pub String);

/// One element as the sort sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SortKey {
    /// A floating-point element (any width, widened exactly to `f64`).
    Float(f64),
    /// A signed integer or `bool` element.
    Int(i64),
    /// An unsigned integer element.
    UInt(u64),
}

impl SortKey {
    /// The total order of the module doc: numbers by value (`-0.0 == 0.0`), NaN after `+inf`,
    /// NaNs equal. Keys of different kinds never meet in one tensor; they order by kind so that
    /// the relation stays total.
    pub fn total_cmp(self, other: SortKey) -> Ordering {
        match (self, other) {
            (SortKey::Float(a), SortKey::Float(b)) => match (a.is_nan(), b.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) if a < b => Ordering::Less,
                (false, false) if a > b => Ordering::Greater,
                (false, false) => Ordering::Equal,
            },
            (SortKey::Int(a), SortKey::Int(b)) => a.cmp(&b),
            (SortKey::UInt(a), SortKey::UInt(b)) => a.cmp(&b),
            (a, b) => a.kind_rank().cmp(&b.kind_rank()),
        }
    }

    fn kind_rank(self) -> u8 {
        match self {
            SortKey::Float(_) => 0,
            SortKey::Int(_) => 1,
            SortKey::UInt(_) => 2,
        }
    }
}

/// Where one sorted element goes: element `dst` of each output (row-major, compact) receives the
/// input's element `src`, which is at position `index` along the axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Element of the outputs (`< `[`SortPlan::output_len`]).
    pub dst: usize,
    /// Element of the input (`< `[`SortPlan::input_len`]).
    pub src: usize,
    /// The element's position along the axis: what argsort and topk's indices output receive.
    pub index: i64,
}

/// What a caller gives [`SortPlan::run`]: element reads and the writes of placements, plus how
/// its errors carry a [`SortError`].
pub trait SortAccess {
    /// The caller's error.
    type Error;
    /// Element `elem` of the input.
    fn key(&mut self, elem: usize) -> Result<SortKey, Self::Error>;
    /// Writes one placement into the outputs.
    fn place(&mut self, p: Placement) -> Result<(), Self::Error>;
    /// `e` as the caller's error.
    fn fail(&self, e: SortError) -> Self::Error;
}

/// A checked sort-family call: the axis resolved, the extents multiplied without overflow, the
/// number of elements written per slice, and the shape every output must have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortPlan {
    /// The axis, non-negative.
    pub axis: usize,
    /// Product of the dimensions before the axis.
    before: usize,
    /// The axis extent.
    len: usize,
    /// Product of the dimensions after the axis.
    after: usize,
    /// Elements written per slice.
    k: usize,
    /// The shape every output must have.
    pub output_shape: Vec<i64>,
}

/// The product of `dims`, or `None` if a dimension is negative or the nonzero ones multiply
/// past `isize::MAX`: `vm::tensor::checked_numel`'s rule (numpy's), which this crate, knowing
/// nothing of `vm`, states again.
fn product(dims: &[i64]) -> Option<usize> {
    let mut n = 1usize;
    let mut empty = false;
    for &d in dims {
        match usize::try_from(d).ok()? {
            0 => empty = true,
            d => n = n.checked_mul(d).filter(|&m| m <= isize::MAX as usize)?,
        }
    }
    Some(if empty { 0 } else { n })
}

impl SortPlan {
    /// Plans sorting `input_shape` along `axis` (negative counts from the end); `top_k` is
    /// topk's `k` (`None` for sort and argsort).
    pub fn new(input_shape: &[i64], axis: i64, top_k: Option<i64>) -> Result<SortPlan, SortError> {
        let ndim = input_shape.len() as i64;
        let resolved = if axis < 0 { axis + ndim } else { axis };
        if resolved < 0 || resolved >= ndim {
            return Err(SortError(format!(
                "axis {axis} is out of range for rank {ndim}"
            )));
        }
        let axis = resolved as usize;
        if let Some(d) = input_shape.iter().find(|&&d| d < 0) {
            return Err(SortError(format!(
                "input shape {input_shape:?} has a negative dimension {d}"
            )));
        }
        let too_large = || SortError(format!("input shape {input_shape:?} is too large"));
        product(input_shape).ok_or_else(too_large)?;
        let before = product(&input_shape[..axis]).ok_or_else(too_large)?;
        let after = product(&input_shape[axis + 1..]).ok_or_else(too_large)?;
        let len = usize::try_from(input_shape[axis]).map_err(|_| too_large())?;
        let k = match top_k {
            Some(k) if k >= 1 && (k as u64) < len as u64 => k as usize,
            _ => len,
        };
        let mut output_shape = input_shape.to_vec();
        output_shape[axis] = k as i64;
        Ok(SortPlan {
            axis,
            before,
            len,
            after,
            k,
            output_shape,
        })
    }

    /// Elements of the input.
    pub fn input_len(&self) -> usize {
        self.before * self.len * self.after
    }

    /// Elements of each output.
    pub fn output_len(&self) -> usize {
        self.before * self.k * self.after
    }

    /// The output-shape rule: `what` (e.g. `"indices output"`) must have exactly
    /// [`SortPlan::output_shape`].
    pub fn check_output(&self, what: &str, shape: &[i64]) -> Result<(), SortError> {
        if shape == self.output_shape.as_slice() {
            Ok(())
        } else {
            Err(SortError(format!(
                "{what} has shape {shape:?}, expected {:?}",
                self.output_shape
            )))
        }
    }

    /// The values output must have the input's dtype; `values` and `input` are dtype names.
    pub fn check_values_dtype(values: &str, input: &str) -> Result<(), SortError> {
        if values == input {
            Ok(())
        } else {
            Err(SortError(format!(
                "values output has dtype {values}, the input {input}"
            )))
        }
    }

    /// Sorts every slice and hands each of the first `k` elements of its order to
    /// `access.place`. Reads every input element once through `access.key`.
    pub fn run<A: SortAccess>(&self, ascend: bool, access: &mut A) -> Result<(), A::Error> {
        let len = self.len as i64;
        self.run_counted(ascend, access, |_| Ok(len))
    }

    /// The number of slices (the input's elements outside the axis): what a per-slice count
    /// tensor of [`SortPlan::run_counted`] holds.
    pub fn slices(&self) -> usize {
        self.before * self.after
    }

    /// The per-slice counts of [`SortPlan::run_counted`] must be integers (`is_int`; `dtype`
    /// names their type), one per slice.
    pub fn check_counts(&self, shape: &[i64], is_int: bool, dtype: &str) -> Result<(), SortError> {
        if is_int && product(shape) == Some(self.slices()) {
            return Ok(());
        }
        Err(SortError(format!(
            "the counts must be {} integers (one per slice along axis {}), got a {dtype} tensor \
             of shape {shape:?}",
            self.slices(),
            self.axis
        )))
    }

    /// [`SortPlan::run`] sorting, in slice `s` (numbered `i · after + j` for the dimensions
    /// before and after the axis), only its first `count(s)` elements; the others keep their
    /// positions (index `q` at position `q`). TVM's `tvm.contrib.sort.argsort_nms`, which
    /// sorts a row's valid boxes only. A negative count sorts nothing (TVM's loop does not
    /// run); one beyond the axis is an error (TVM reads past the slice).
    pub fn run_counted<A: SortAccess>(
        &self,
        ascend: bool,
        access: &mut A,
        mut count: impl FnMut(usize) -> Result<i64, A::Error>,
    ) -> Result<(), A::Error> {
        // An empty input has no slice to sort, however long its axis: nothing to allocate.
        if self.input_len() == 0 {
            return Ok(());
        }
        let mut row: Vec<(usize, SortKey)> = Vec::new();
        if row.try_reserve_exact(self.len).is_err() {
            return Err(access.fail(SortError(format!(
                "cannot allocate a row of {} elements",
                self.len
            ))));
        }
        for i in 0..self.before {
            for j in 0..self.after {
                let slice = i * self.after + j;
                let n = count(slice)?;
                if n > self.len as i64 {
                    return Err(access.fail(SortError(format!(
                        "slice {slice} counts {n} elements to sort, more than the axis' {}",
                        self.len
                    ))));
                }
                let n = n.max(0) as usize;
                row.clear();
                let src_base = i * self.len * self.after + j;
                for q in 0..self.len {
                    let src = src_base + q * self.after;
                    // The elements past the count are not compared (nor read, as in TVM).
                    let key = if q < n {
                        access.key(src)?
                    } else {
                        SortKey::Int(0)
                    };
                    row.push((src, key));
                }
                // `sort_by` is stable, and `reverse` keeps equal keys equal, so ties keep index
                // order in both directions.
                row[..n].sort_by(|a, b| {
                    let o = a.1.total_cmp(b.1);
                    if ascend { o } else { o.reverse() }
                });
                let dst_base = i * self.k * self.after + j;
                for (q, &(src, _)) in row.iter().take(self.k).enumerate() {
                    access.place(Placement {
                        dst: dst_base + q * self.after,
                        src,
                        index: ((src - src_base) / self.after) as i64,
                    })?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorts `keys` (one slice) and returns the placements' indices.
    fn order(keys: &[SortKey], ascend: bool, k: Option<i64>) -> Vec<i64> {
        struct Mem<'a>(&'a [SortKey], Vec<i64>);
        impl SortAccess for Mem<'_> {
            type Error = SortError;
            fn key(&mut self, elem: usize) -> Result<SortKey, SortError> {
                Ok(self.0[elem])
            }
            fn place(&mut self, p: Placement) -> Result<(), SortError> {
                assert_eq!(p.dst, self.1.len());
                self.1.push(p.index);
                Ok(())
            }
            fn fail(&self, e: SortError) -> SortError {
                e
            }
        }
        let plan = SortPlan::new(&[keys.len() as i64], 0, k).unwrap();
        let mut m = Mem(keys, Vec::new());
        plan.run(ascend, &mut m).unwrap();
        m.1
    }

    #[test]
    fn nan_is_the_largest_and_ties_keep_index_order() {
        let nan = f64::NAN;
        let keys: Vec<SortKey> = [
            1.0,
            nan,
            -0.0,
            0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -nan,
            1.0,
        ]
        .into_iter()
        .map(SortKey::Float)
        .collect();
        assert_eq!(order(&keys, true, None), [5, 2, 3, 0, 7, 4, 1, 6]);
        assert_eq!(order(&keys, false, None), [1, 6, 4, 0, 7, 2, 3, 5]);
        assert_eq!(order(&keys, false, Some(3)), [1, 6, 4]);
        assert_eq!(order(&keys, true, Some(0)).len(), keys.len());
        assert_eq!(order(&keys, true, Some(100)).len(), keys.len());
    }

    /// `argsort_nms`: per slice only the counted prefix is sorted (and read), the rest keep
    /// their positions; a negative count sorts nothing, one past the axis is an error.
    #[test]
    fn a_counted_sort_orders_only_each_slices_prefix() {
        struct Mem(Vec<f64>, Vec<i64>, Vec<usize>);
        impl SortAccess for Mem {
            type Error = SortError;
            fn key(&mut self, elem: usize) -> Result<SortKey, SortError> {
                self.2.push(elem);
                Ok(SortKey::Float(self.0[elem]))
            }
            fn place(&mut self, p: Placement) -> Result<(), SortError> {
                self.1[p.dst] = p.index;
                Ok(())
            }
            fn fail(&self, e: SortError) -> SortError {
                e
            }
        }
        // Shape (2, 4, 2), axis 1: four slices (i, j) of four elements, `after` = 2.
        let data: Vec<f64> = (0..16).map(|v| ((v * 7) % 5) as f64).collect();
        let plan = SortPlan::new(&[2, 4, 2], 1, None).unwrap();
        assert_eq!(plan.slices(), 4);
        let counts = [3i64, 0, -1, 4];
        let mut m = Mem(data.clone(), vec![-1; 16], Vec::new());
        plan.run_counted(false, &mut m, |s| Ok(counts[s])).unwrap();
        for (s, &n) in counts.iter().enumerate() {
            let (i, j) = (s / 2, s % 2);
            let at = |q: usize| i * 8 + q * 2 + j;
            let got: Vec<i64> = (0..4).map(|q| m.1[at(q)]).collect();
            let n = n.max(0) as usize;
            let mut want: Vec<i64> = (0..n as i64).collect();
            want.sort_by(|&a, &b| data[at(b as usize)].total_cmp(&data[at(a as usize)]));
            want.extend(n as i64..4);
            assert_eq!(got, want, "slice {s}");
        }
        // Only counted elements were read: 3 + 0 + 0 + 4.
        assert_eq!(m.2.len(), 7);
        let mut m = Mem(data, vec![-1; 16], Vec::new());
        let e = plan.run_counted(true, &mut m, |_| Ok(5)).unwrap_err();
        assert!(e.0.contains("more than the axis"), "{e}");
    }

    #[test]
    fn unsigned_keys_compare_unsigned() {
        let keys = [SortKey::UInt(u64::MAX), SortKey::UInt(1), SortKey::UInt(0)];
        assert_eq!(order(&keys, true, None), [2, 1, 0]);
    }

    #[test]
    fn plans_check_axis_shapes_and_overflow() {
        let p = SortPlan::new(&[2, 5, 3], -2, Some(2)).unwrap();
        assert_eq!(p.axis, 1);
        assert_eq!(p.output_shape, [2, 2, 3]);
        assert_eq!((p.input_len(), p.output_len()), (30, 12));
        assert!(p.check_output("values output", &[2, 2, 3]).is_ok());
        let e = p.check_output("values output", &[2, 5, 3]).unwrap_err();
        assert!(e.0.contains("expected [2, 2, 3]"), "{e}");
        assert!(SortPlan::new(&[4], 1, None).is_err());
        assert!(SortPlan::new(&[], 0, None).is_err());
        assert!(SortPlan::new(&[-1, 2], 1, None).is_err());
        assert!(SortPlan::new(&[1 << 62, 1 << 62], 1, None).is_err());
        assert_eq!(SortPlan::new(&[0, 3], 1, None).unwrap().input_len(), 0);
    }

    /// An empty input has nothing to sort, however long its axis: no row is allocated (a row
    /// of 2^31 keys was, and failed), no element is read or placed.
    #[test]
    fn an_empty_input_sorts_without_allocating() {
        struct Untouched;
        impl SortAccess for Untouched {
            type Error = SortError;
            fn key(&mut self, elem: usize) -> Result<SortKey, SortError> {
                Err(SortError(format!("read element {elem}")))
            }
            fn place(&mut self, p: Placement) -> Result<(), SortError> {
                Err(SortError(format!("placed {p:?}")))
            }
            fn fail(&self, e: SortError) -> SortError {
                e
            }
        }
        let big = 1i64 << 31;
        for (shape, axis) in [([big, big, 0], 0), ([0, big, big], 1), ([big, 0, big], 2)] {
            let plan = SortPlan::new(&shape, axis, None).unwrap();
            assert_eq!(plan.output_shape, shape);
            plan.run(true, &mut Untouched).unwrap();
        }
        // numpy's rule: too large wherever the zero is.
        let huge = 1i64 << 40;
        for shape in [[huge, huge, 0], [0, huge, huge]] {
            let e = SortPlan::new(&shape, 0, None).unwrap_err();
            assert!(e.0.contains("is too large"), "{e}");
        }
    }
}
