//! The layout strings of convolutions and pools, as TVM writes them: one letter per axis,
//! upper-case for a primal axis (`N`, `C`, `D`, `H`, `W` for data; `O`, `I` and the spatial
//! letters for kernels) and a number before a lower-case letter for a sub-axis of that many
//! elements split off the primal axis of the same letter (`NCHW16c`: channel `c` of the
//! original is `C · 16 + c16`, the same split as TVM's `tir.Layout`). A layout holds each
//! letter at most once; every sub-axis's primal axis too.
//!
//! The operators' struct-info inference reads shapes through [`Layout::primal`] (the shape
//! as it would be in the primal layout, sub-axes merged back) and writes them through
//! [`Layout::layout_shape`]; ConvertLayout rewrites calls in any layout into the canonical
//! one with the permutations and reshapes that [`Layout::permutation_to_primal`] gives.

use tir::PrimExpr;

use crate::op::common::{dim, floordiv, mul};

/// One axis of a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Axis {
    /// A primal axis: its upper-case letter.
    Primal(char),
    /// A sub-axis: the upper-case letter of its primal axis and its number of elements.
    Sub(char, i64),
}

/// A parsed layout string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) axes: Vec<Axis>,
}

impl Layout {
    /// `None` unless `s` is a well-formed layout (see the module's header).
    pub(crate) fn parse(s: &str) -> Option<Layout> {
        let mut axes = Vec::new();
        let mut factor: Option<i64> = None;
        for ch in s.chars() {
            if let Some(d) = ch.to_digit(10) {
                let f = factor.unwrap_or(0).checked_mul(10)?.checked_add(d as i64)?;
                factor = Some(f);
            } else if ch.is_ascii_uppercase() {
                if factor.is_some() {
                    return None;
                }
                axes.push(Axis::Primal(ch));
            } else if ch.is_ascii_lowercase() {
                let f = factor.take().filter(|&f| f > 0)?;
                axes.push(Axis::Sub(ch.to_ascii_uppercase(), f));
            } else {
                return None;
            }
        }
        if factor.is_some() {
            return None;
        }
        let layout = Layout { axes };
        for (i, a) in layout.axes.iter().enumerate() {
            let twice = layout.axes[..i].contains(a)
                || layout.axes[..i]
                    .iter()
                    .any(|b| matches!((a, b), (Axis::Sub(x, _), Axis::Sub(y, _)) if x == y));
            if twice {
                return None;
            }
            if let Axis::Sub(p, _) = a
                && layout.position(*p).is_none()
            {
                return None;
            }
        }
        Some(layout)
    }

    /// The number of axes (the rank of a tensor in this layout).
    pub(crate) fn rank(&self) -> usize {
        self.axes.len()
    }

    /// Whether some primal axis is split.
    pub(crate) fn is_split(&self) -> bool {
        self.axes.iter().any(|a| matches!(a, Axis::Sub(..)))
    }

    /// The position of primal axis `letter`.
    pub(crate) fn position(&self, letter: char) -> Option<usize> {
        self.axes.iter().position(|&a| a == Axis::Primal(letter))
    }

    /// The position and size of the sub-axis of `letter`, if it is split.
    fn sub(&self, letter: char) -> Option<(usize, i64)> {
        self.axes.iter().enumerate().find_map(|(i, a)| match *a {
            Axis::Sub(p, f) if p == letter => Some((i, f)),
            _ => None,
        })
    }

    /// Whether the primal axes are exactly the letters of `order`, each once.
    pub(crate) fn has_primal(&self, order: &[char]) -> bool {
        let primal = self
            .axes
            .iter()
            .filter(|a| matches!(a, Axis::Primal(_)))
            .count();
        primal == order.len() && order.iter().all(|&c| self.position(c).is_some())
    }

    /// The extents of the primal axes `order` of a tensor of shape `shape` in this layout
    /// (a split axis's extent times its sub-axis's); `None` if the rank or the letters
    /// disagree.
    pub(crate) fn primal(&self, order: &[char], shape: &[PrimExpr]) -> Option<Vec<PrimExpr>> {
        if shape.len() != self.rank() || !self.has_primal(order) {
            return None;
        }
        order
            .iter()
            .map(|&c| {
                let outer = &shape[self.position(c)?];
                Some(match self.sub(c) {
                    Some((i, _)) => mul(outer, &shape[i]),
                    None => outer.clone(),
                })
            })
            .collect()
    }

    /// The shape in this layout of a tensor whose primal axes `order` have extents `primal`
    /// (a split axis holds its extent divided by its sub-axis's, rounded down, as TVM's
    /// layout conversion does); `None` if the letters disagree.
    pub(crate) fn layout_shape(
        &self,
        order: &[char],
        primal: &[PrimExpr],
    ) -> Option<Vec<PrimExpr>> {
        if primal.len() != order.len() || !self.has_primal(order) {
            return None;
        }
        let extent = |c: char| order.iter().position(|&o| o == c).map(|i| &primal[i]);
        self.axes
            .iter()
            .map(|&a| match a {
                Axis::Primal(c) => Some(match self.sub(c) {
                    Some((_, f)) => floordiv(extent(c)?, &dim(f)),
                    None => extent(c)?.clone(),
                }),
                Axis::Sub(_, f) => Some(dim(f)),
            })
            .collect()
    }

    /// How a tensor in this layout becomes one in the primal layout `order`: the axes of a
    /// permutation that puts each primal axis in `order`'s place with its sub-axis right
    /// after it, then (if some axis is split) the merge of each such pair into one axis.
    /// `None` if the letters disagree.
    pub(crate) fn permutation_to_primal(&self, order: &[char]) -> Option<Vec<usize>> {
        if !self.has_primal(order) {
            return None;
        }
        let mut axes = Vec::with_capacity(self.rank());
        for &c in order {
            axes.push(self.position(c)?);
            if let Some((i, _)) = self.sub(c) {
                axes.push(i);
            }
        }
        Some(axes)
    }

    /// The reverse of [`Layout::permutation_to_primal`]: a tensor in the primal layout `order`,
    /// each split axis's extent divided into (outer, sub-axis), permuted into this layout.
    /// The axes of that permutation, from the order `permutation_to_primal` leaves the axes in.
    pub(crate) fn permutation_from_primal(&self, order: &[char]) -> Option<Vec<usize>> {
        let to = self.permutation_to_primal(order)?;
        let mut inverse = vec![0; to.len()];
        for (i, &a) in to.iter().enumerate() {
            inverse[a] = i;
        }
        Some(inverse)
    }
}

/// The primal letters of data in `k` spatial dimensions: batch, channel, then `D`, `H`, `W`
/// (the last `k` of them).
pub(crate) fn data_order(k: usize) -> Vec<char> {
    ['N', 'C']
        .into_iter()
        .chain(['D', 'H', 'W'][3 - k.min(3)..].iter().copied())
        .collect()
}

/// The primal letters of kernels in `k` spatial dimensions: `order` is `['O', 'I']` for
/// convolutions, `['I', 'O']` for transposed ones.
pub(crate) fn kernel_order(first: [char; 2], k: usize) -> Vec<char> {
    first
        .into_iter()
        .chain(['D', 'H', 'W'][3 - k.min(3)..].iter().copied())
        .collect()
}

/// The number of spatial dimensions of a data layout (`NCHW` → 2, `NCHW16c` → 2).
pub(crate) fn spatial_rank(layout: &str) -> usize {
    layout
        .chars()
        .filter(|c| matches!(c, 'D' | 'H' | 'W'))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(v: &[i64]) -> Vec<PrimExpr> {
        v.iter().map(|&d| dim(d)).collect()
    }

    fn ints(v: &[PrimExpr]) -> Vec<i64> {
        v.iter().map(|e| e.as_int().expect("a constant")).collect()
    }

    #[test]
    fn layouts_parse() {
        let l = Layout::parse("NCHW16c").unwrap();
        assert_eq!(l.rank(), 5);
        assert!(l.is_split());
        assert_eq!(l.axes[4], Axis::Sub('C', 16));
        assert!(!Layout::parse("NHWC").unwrap().is_split());
        assert!(Layout::parse("OIHW16i16o").is_some());
        for bad in [
            "NCHW16",
            "NCHWc",
            "NCHW0c",
            "NCHW16c4c",
            "NCCHW",
            "NHW16c",
            "NC-HW",
            "N16CHW",
        ] {
            assert!(Layout::parse(bad).is_none(), "{bad} parsed");
        }
    }

    #[test]
    fn shapes_convert_between_split_and_primal() {
        let l = Layout::parse("NCHW16c").unwrap();
        let order = data_order(2);
        let p = l.primal(&order, &shape(&[1, 4, 7, 9, 16])).unwrap();
        assert_eq!(ints(&p), [1, 64, 7, 9]);
        let back = l.layout_shape(&order, &p).unwrap();
        assert_eq!(ints(&back), [1, 4, 7, 9, 16]);
        // Permutations and splits of other letters.
        let k = Layout::parse("HWOI8o").unwrap();
        let korder = kernel_order(['O', 'I'], 2);
        let p = k.primal(&korder, &shape(&[3, 5, 2, 6, 8])).unwrap();
        assert_eq!(ints(&p), [16, 6, 3, 5]);
        assert!(
            l.primal(&data_order(1), &shape(&[1, 4, 7, 9, 16]))
                .is_none()
        );
    }

    #[test]
    fn plans_are_inverse_permutations() {
        let l = Layout::parse("NHWC8c").unwrap();
        let to = l.permutation_to_primal(&data_order(2)).unwrap();
        assert_eq!(to, [0, 3, 4, 1, 2]);
        let from = l.permutation_from_primal(&data_order(2)).unwrap();
        for (i, &a) in to.iter().enumerate() {
            assert_eq!(from[a], i);
        }
    }
}
