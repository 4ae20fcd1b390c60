//! Sliding windows along one axis, as convolutions and pools slide them: how many positions a
//! window takes over padded data, how far the last of them reaches, and the extent a transposed
//! convolution produces.
//!
//! One home for these formulas: shape inference (`R.nn.conv*`, `R.nn.*_pool*`), legalization
//! and the library kernels' shape checks all call them, so that they agree on every input.
//! Attributes are anything an `int64` holds (TVM takes them as such, and the operator fuzzer
//! tries strides and dilations up to 2^63 − 1): the arithmetic is exact (`i128`) where the
//! values are known, and a result that an `int64` cannot hold is `None`, never a wrapped value.

use crate::ir::{BinaryOp, CmpOp, DataType, ExprKind, PrimExpr};

use super::Analyzer;

/// The attributes of one axis of a sliding window: `stride`, `dilation` (both positive) and the
/// padding before and after the data (negative padding crops, as TVM's convolutions take it);
/// `ceil_mode` keeps a last window that starts inside the padded data but reaches past it
/// (pools only), unless it starts in the padding after the data (TVM's rule, as PyTorch's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlidingWindow {
    pub stride: i64,
    pub dilation: i64,
    pub pad_before: i64,
    pub pad_after: i64,
    pub ceil_mode: bool,
}

impl SlidingWindow {
    /// Whether the attributes are valid: positive stride and dilation.
    pub fn is_valid(&self) -> bool {
        self.stride > 0 && self.dilation > 0
    }

    /// `dilation · (kernel − 1) + 1`: the elements a window of `kernel` taps spans.
    pub fn span(&self, kernel: i64) -> i128 {
        i128::from(self.dilation) * (i128::from(kernel) - 1) + 1
    }

    /// `size + pad_before + pad_after`: the padded data's extent.
    pub fn padded(&self, size: i64) -> i128 {
        i128::from(size) + i128::from(self.pad_before) + i128::from(self.pad_after)
    }

    /// The number of window positions over `size` elements:
    /// `⌊(size + padding − span) / stride⌋ + 1`, with `⌈…⌉` in ceil mode (TVM's
    /// `floordiv(n + pad - span + stride - 1, stride) + 1`, without the sum that may wrap),
    /// less one in ceil mode when the last window starts in the padding after the data
    /// (`(count − 1) · stride ≥ size + pad_before`, TVM's pool inference and TOPI's pool).
    /// Zero or negative when the window is longer than the padded data; `None` when the
    /// attributes are invalid or the count exceeds `i64::MAX`.
    pub fn positions(&self, size: i64, kernel: i64) -> Option<i64> {
        if !self.is_valid() || kernel < 1 {
            return None;
        }
        let room = self.padded(size) - self.span(kernel);
        let stride = i128::from(self.stride);
        let steps = if self.ceil_mode {
            (room - 1).div_euclid(stride) + 1
        } else {
            room.div_euclid(stride)
        };
        let mut count = steps + 1;
        // At most 3 · 2^63 / stride + 2 positions: the product stays far inside an i128.
        if self.ceil_mode && (count - 1) * stride >= i128::from(size) + i128::from(self.pad_before)
        {
            count -= 1;
        }
        i64::try_from(count).ok()
    }

    /// [`positions`](Self::positions) for a size or kernel known only as an expression (a
    /// symbolic dimension), as `int64` TIR arithmetic in `size`'s type, simplified; constant
    /// operands give a constant. `None` when a constant part of the formula exceeds `i64::MAX`
    /// or the attributes are invalid.
    pub fn positions_expr(&self, size: &PrimExpr, kernel: &PrimExpr) -> Option<PrimExpr> {
        let dtype = size.dtype();
        if let (Some(n), Some(k)) = (size.as_int(), kernel.as_int()) {
            return Some(PrimExpr::int(dtype, self.positions(n, k)?));
        }
        if !self.is_valid() {
            return None;
        }
        let int = |v: i128| i64::try_from(v).ok().map(|v| PrimExpr::int(dtype, v));
        let bin = PrimExpr::binary;
        // room = size + padding − span, with its constant parts summed exactly.
        let room = match kernel.as_int() {
            Some(k) => bin(
                BinaryOp::Add,
                size.clone(),
                int(self.padded(0) - self.span(k))?,
            ),
            None => {
                let padded = bin(BinaryOp::Add, size.clone(), int(self.padded(0) - 1)?);
                bin(BinaryOp::Sub, padded, self.reach_expr(kernel, dtype))
            }
        };
        let stride = int(self.stride.into())?;
        let steps = if self.ceil_mode {
            let before = bin(BinaryOp::Sub, room, PrimExpr::int(dtype, 1));
            bin(
                BinaryOp::Add,
                bin(BinaryOp::FloorDiv, before, stride.clone()),
                PrimExpr::int(dtype, 1),
            )
        } else {
            bin(BinaryOp::FloorDiv, room, stride.clone())
        };
        let count = bin(BinaryOp::Add, steps.clone(), PrimExpr::int(dtype, 1));
        let count = if self.ceil_mode {
            // `steps · stride ≥ size + pad_before`: the last window starts after the data.
            let last_start = bin(BinaryOp::Mul, steps.clone(), stride);
            let data_end = bin(BinaryOp::Add, size.clone(), int(self.pad_before.into())?);
            PrimExpr::new(ExprKind::Select {
                cond: PrimExpr::cmp(CmpOp::Ge, last_start, data_end),
                true_value: steps,
                false_value: count,
            })
        } else {
            count
        };
        Some(Analyzer::new().simplify(&count))
    }

    /// `dilation · (kernel − 1)` for a kernel known only as an expression, its constants in
    /// `dtype` (the size's).
    fn reach_expr(&self, kernel: &PrimExpr, dtype: DataType) -> PrimExpr {
        let taps = PrimExpr::binary(BinaryOp::Sub, kernel.clone(), PrimExpr::int(dtype, 1));
        PrimExpr::binary(BinaryOp::Mul, PrimExpr::int(dtype, self.dilation), taps)
    }

    /// `(out − 1) · stride + span`: the elements that `out` windows of `kernel` taps cover
    /// (one window when `out` is 0).
    pub fn covered(&self, out: i64, kernel: i64) -> i128 {
        (i128::from(out.max(1)) - 1) * i128::from(self.stride) + self.span(kernel)
    }

    /// How many elements past the padded data the last of `out` windows reaches (ceil mode's
    /// last window may); zero or negative when it stays inside.
    pub fn overhang(&self, size: i64, kernel: i64, out: i64) -> i128 {
        self.covered(out, kernel) - self.padded(size)
    }

    /// The output extent of a transposed convolution over `size` input elements:
    /// `(size − 1) · stride + span − padding + output_padding`, or `None` past `i64::MAX`.
    pub fn transposed_extent(&self, size: i64, kernel: i64, output_padding: i64) -> Option<i64> {
        let v = (i128::from(size) - 1) * i128::from(self.stride) + self.span(kernel)
            - i128::from(self.pad_before)
            - i128::from(self.pad_after)
            + i128::from(output_padding);
        i64::try_from(v).ok()
    }

    /// [`transposed_extent`](Self::transposed_extent) for a size or kernel known only as an
    /// expression, in `size`'s type, simplified; `None` when a constant part exceeds `i64::MAX`.
    pub fn transposed_extent_expr(
        &self,
        size: &PrimExpr,
        kernel: &PrimExpr,
        output_padding: i64,
    ) -> Option<PrimExpr> {
        let dtype = size.dtype();
        if let (Some(n), Some(k)) = (size.as_int(), kernel.as_int()) {
            return Some(PrimExpr::int(
                dtype,
                self.transposed_extent(n, k, output_padding)?,
            ));
        }
        let int = |v: i128| i64::try_from(v).ok().map(|v| PrimExpr::int(dtype, v));
        let bin = PrimExpr::binary;
        let shift = i128::from(output_padding) - self.padded(0);
        let grown = bin(
            BinaryOp::Mul,
            bin(BinaryOp::Sub, size.clone(), PrimExpr::int(dtype, 1)),
            int(self.stride.into())?,
        );
        let extent = match kernel.as_int() {
            Some(k) => bin(BinaryOp::Add, grown, int(self.span(k) + shift)?),
            None => bin(
                BinaryOp::Add,
                bin(BinaryOp::Add, grown, self.reach_expr(kernel, dtype)),
                int(shift + 1)?,
            ),
        };
        Some(Analyzer::new().simplify(&extent))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{DataType, Var};

    fn window(stride: i64, dilation: i64, pads: (i64, i64), ceil_mode: bool) -> SlidingWindow {
        SlidingWindow {
            stride,
            dilation,
            pad_before: pads.0,
            pad_after: pads.1,
            ceil_mode,
        }
    }

    /// The counts against an enumeration of window starts: in floor mode the windows that fit
    /// in the padded data, in ceil mode (TVM's) also one more that starts within `stride - 1`
    /// of the last fitting start, then without the last if it starts after the data and the
    /// padding before it.
    #[test]
    fn positions_count_the_windows() {
        for size in 0..12 {
            for kernel in 1..5 {
                for stride in 1..4 {
                    for dilation in 1..3 {
                        for pads in [(0, 0), (1, 0), (1, 2)] {
                            for ceil in [false, true] {
                                let w = window(stride, dilation, pads, ceil);
                                let room = size + pads.0 + pads.1 - (dilation * (kernel - 1) + 1);
                                let last = if ceil { room + stride - 1 } else { room };
                                let got = w.positions(size, kernel).unwrap();
                                if last < 0 {
                                    assert!(got <= 0, "size {size} kernel {kernel} {w:?}: {got}");
                                    continue;
                                }
                                let mut want = (0..=last).step_by(stride as usize).count() as i64;
                                if ceil && (want - 1) * stride >= size + pads.0 {
                                    want -= 1;
                                }
                                assert_eq!(
                                    got, want,
                                    "size {size} kernel {kernel} {w:?}: {got} windows, want {want}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn huge_attributes_do_not_wrap() {
        // dilation 2^62 over 5 taps spans 2^64 + 1 elements: no window fits one element.
        let w = window(2, 1 << 62, (0, 0), false);
        assert!(w.positions(1, 5).unwrap() <= 0);
        // A stride near 2^63 in ceil mode: the second window over 7 elements would start
        // 2^63 - 2 elements in, past the data: one window.
        let w = window(i64::MAX - 1, 1, (0, 0), true);
        assert_eq!(w.positions(7, 3), Some(1));
        // ... and one that starts inside the data is kept: 3 over 7 elements at stride 3.
        assert_eq!(window(3, 1, (0, 0), true).positions(7, 2), Some(3));
        // TVM's seed-8 pool: 2 rows, a window of 1 at stride 5 in ceil mode give one row;
        // 10 columns padded by (1, 1), a window of 3 at stride 4 give 3.
        assert_eq!(window(5, 1, (0, 0), true).positions(2, 1), Some(1));
        assert_eq!(window(4, 1, (1, 1), true).positions(10, 3), Some(3));
        // Padding that sums past 2^63 with stride 1: more positions than an int64 holds.
        let w = window(1, 1, (i64::MAX, i64::MAX), false);
        assert_eq!(w.positions(1, 1), None);
        // Invalid attributes.
        assert_eq!(window(0, 1, (0, 0), false).positions(4, 1), None);
        // Negative padding crops (TVM runs such convolutions).
        assert_eq!(window(1, 1, (-1, 0), false).positions(4, 1), Some(3));
        assert_eq!(
            window(1, 1 << 62, (0, 0), false).transposed_extent(2, 5, 0),
            None
        );
        assert_eq!(
            window(2, 1, (1, 1), false).transposed_extent(4, 3, 1),
            Some(8)
        );
        let n = PrimExpr::from(&Var::new("n", DataType::INT64));
        let e = window(2, 1, (1, 1), false).transposed_extent_expr(&n, &PrimExpr::i64(3), 1);
        assert_eq!(e.unwrap().to_string(), "n * T.int64(2)");
    }

    #[test]
    fn symbolic_sizes_fold_their_constants_exactly() {
        let n = PrimExpr::from(&Var::new("n", DataType::INT64));
        let w = window(2, 1, (1, 1), false);
        let e = w.positions_expr(&n, &PrimExpr::i64(3)).unwrap();
        assert_eq!(e.to_string(), "(n + T.int64(1)) // T.int64(2)");
        let e = window(2, 1, (1, 1), true)
            .positions_expr(&n, &PrimExpr::i64(3))
            .unwrap();
        // Ceil mode drops a last window that starts after the data, as TVM's if_then_else.
        assert_eq!(
            e.to_string(),
            "T.Select(n // T.int64(2) * T.int64(2) >= n + T.int64(1), n // T.int64(2), n // T.int64(2) + T.int64(1))"
        );
        // A symbolic kernel: `n + 2 - (2 · (k - 1) + 1)` windows at stride 1.
        let k = PrimExpr::from(&Var::new("k", DataType::INT64));
        let e = window(1, 2, (1, 1), false).positions_expr(&n, &k).unwrap();
        assert_eq!(e.to_string(), "n - k * T.int64(2) + T.int64(4)");
        // ... and transposed: `(n - 1) · 2 + 2 · (k - 1) + 1 - 2`.
        let e = window(2, 2, (1, 1), false)
            .transposed_extent_expr(&n, &k, 0)
            .unwrap();
        assert_eq!(
            e.to_string(),
            "n * T.int64(2) + k * T.int64(2) - T.int64(5)"
        );
        // A dilated span past i64::MAX is no expression at all.
        let w = window(1, 1 << 62, (0, 0), false);
        assert!(w.positions_expr(&n, &PrimExpr::i64(5)).is_none());
        // Constants give a constant.
        let e = window(1, 1, (0, 0), false)
            .positions_expr(&PrimExpr::i64(7), &PrimExpr::i64(3))
            .unwrap();
        assert_eq!(e.as_int(), Some(5));
    }
}
