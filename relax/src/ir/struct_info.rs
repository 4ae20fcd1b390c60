//! [`StructInfo`]: what Relax knows statically about a value (TVM 0.27 calls it "type"):
//! tensors with (possibly symbolic) shapes and dtypes, shapes, prim values, tuples, functions.
//!
//! Symbolic dimensions are TIR expressions over `tir::Var`s shared within a function; two shapes
//! are compared by the simplifier (so `n * 4` equals `4 * n`), not by syntax.

use tir::{DataType, PrimExpr};

/// Static information about a Relax value.
#[derive(Clone, Debug)]
pub enum StructInfo {
    /// `R.Any`: nothing is known (TVM's `ObjectStructInfo`).
    Any,
    /// `R.Prim(dtype)` / `T.int64`: a scalar, optionally with a known value.
    Prim {
        dtype: DataType,
        value: Option<PrimExpr>,
    },
    /// `R.Shape([...])` or `R.Shape(ndim=k)`; `ndim == -1` means unknown rank.
    Shape {
        values: Option<Vec<PrimExpr>>,
        ndim: i64,
    },
    /// `R.Tensor(shape, dtype)`. `dtype == None` is an unknown dtype; `ndim == -1` an unknown
    /// rank. When `shape` is known, `ndim == shape.len()`.
    Tensor {
        shape: Option<Vec<PrimExpr>>,
        dtype: Option<DataType>,
        ndim: i64,
        vdevice: Option<String>,
    },
    /// `R.Tuple(...)`.
    Tuple(Vec<StructInfo>),
    /// `R.Callable(params, ret)`; `params == None` means any parameters.
    Func {
        params: Option<Vec<StructInfo>>,
        ret: Box<StructInfo>,
        pure: bool,
    },
}

impl StructInfo {
    /// A tensor of known shape and dtype.
    pub fn tensor(shape: Vec<PrimExpr>, dtype: DataType) -> StructInfo {
        let ndim = shape.len() as i64;
        StructInfo::Tensor {
            shape: Some(shape),
            dtype: Some(dtype),
            ndim,
            vdevice: None,
        }
    }
    /// A tensor of known rank (or −1) and dtype (or unknown), shape unknown.
    pub fn tensor_ndim(ndim: i64, dtype: Option<DataType>) -> StructInfo {
        StructInfo::Tensor {
            shape: None,
            dtype,
            ndim,
            vdevice: None,
        }
    }
    /// A shape of known dimensions.
    pub fn shape(values: Vec<PrimExpr>) -> StructInfo {
        let ndim = values.len() as i64;
        StructInfo::Shape {
            values: Some(values),
            ndim,
        }
    }
    /// A prim value of a dtype with unknown value.
    pub fn prim(dtype: DataType) -> StructInfo {
        StructInfo::Prim { dtype, value: None }
    }
    /// The empty tuple, `R.Tuple()`: the type of a call made for its side effects.
    pub fn void() -> StructInfo {
        StructInfo::Tuple(Vec::new())
    }
    pub fn is_void(&self) -> bool {
        matches!(self, StructInfo::Tuple(f) if f.is_empty())
    }

    /// The shape of a tensor, if statically known.
    pub fn tensor_shape(&self) -> Option<&[PrimExpr]> {
        match self {
            StructInfo::Tensor { shape: Some(s), .. } => Some(s),
            _ => None,
        }
    }
    /// The dtype of a tensor, if known.
    pub fn tensor_dtype(&self) -> Option<DataType> {
        match self {
            StructInfo::Tensor { dtype, .. } => *dtype,
            _ => None,
        }
    }
    /// The rank of a tensor or shape, if known (None for other kinds or unknown rank).
    pub fn ndim(&self) -> Option<usize> {
        match self {
            StructInfo::Tensor { ndim, .. } | StructInfo::Shape { ndim, .. } if *ndim >= 0 => {
                Some(*ndim as usize)
            }
            _ => None,
        }
    }
}
