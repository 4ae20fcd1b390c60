//! The kernel ABI: the C-layout structures a compiled kernel reads and writes, and the status
//! codes it returns.
//!
//! Every kernel has the signature [`KernelFn`]:
//!
//! ```text
//! extern "C" fn(args: *const KernelArg, nargs: i64, rt: *const RuntimeTable,
//!               err: *mut KernelError) -> i32
//! ```
//!
//! It returns [`STATUS_OK`] (0) or one of the `ERR_*` codes, in which case it has filled `*err`
//! with the numbers a message needs (which argument, which dimension, expected and actual
//! values); the caller turns them into text with the kernel's metadata. Generated code reads the
//! fields at the byte offsets defined here (`*_OFFSET` constants), which tests pin to the Rust
//! layout.

use crate::kernel::runtime::RuntimeTable;

/// `KernelArg::kind` of a tensor argument.
pub const ARG_TENSOR: u32 = 0;
/// `KernelArg::kind` of an integer scalar (`KernelArg::scalar` holds the `i64`).
pub const ARG_INT: u32 = 1;
/// `KernelArg::kind` of a float scalar (`KernelArg::scalar` holds the `f64`'s bits).
pub const ARG_FLOAT: u32 = 2;

/// One argument of a kernel call: a tensor (data pointer, shape, rank, dtype) or a scalar.
///
/// For tensors, `data` points at the first element of a compact row-major array of
/// `prod(shape)` elements of `dtype`, valid for the duration of the call, and `shape` at `ndim`
/// dimensions.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct KernelArg {
    /// First element (tensors); null for scalars.
    pub data: *mut u8,
    /// `ndim` dimensions (tensors); null for scalars.
    pub shape: *const i64,
    /// The scalar's value: an `i64`, or an `f64`'s bits.
    pub scalar: i64,
    /// Rank (tensors).
    pub ndim: i32,
    /// `ARG_TENSOR`, `ARG_INT` or `ARG_FLOAT`.
    pub kind: u32,
    /// DLPack type code, bits and lanes packed as `code | bits << 8 | lanes << 16`.
    pub dtype: u32,
    /// Keeps the size a multiple of 8.
    pub _pad: u32,
}

/// Byte offset of [`KernelArg::data`].
pub const ARG_DATA_OFFSET: i32 = 0;
/// Byte offset of [`KernelArg::shape`].
pub const ARG_SHAPE_OFFSET: i32 = 8;
/// Byte offset of [`KernelArg::scalar`].
pub const ARG_SCALAR_OFFSET: i32 = 16;
/// Byte offset of [`KernelArg::ndim`].
pub const ARG_NDIM_OFFSET: i32 = 24;
/// Byte offset of [`KernelArg::kind`].
pub const ARG_KIND_OFFSET: i32 = 28;
/// Byte offset of [`KernelArg::dtype`].
pub const ARG_DTYPE_OFFSET: i32 = 32;
/// `size_of::<KernelArg>()`.
pub const ARG_SIZE: i64 = 40;

impl KernelArg {
    /// A tensor argument. `shape` must outlive the call.
    pub fn tensor(data: *mut u8, shape: &[i64], dtype: u32) -> KernelArg {
        KernelArg {
            data,
            shape: shape.as_ptr(),
            scalar: 0,
            ndim: shape.len() as i32,
            kind: ARG_TENSOR,
            dtype,
            _pad: 0,
        }
    }

    /// An integer scalar argument.
    pub fn int(v: i64) -> KernelArg {
        KernelArg {
            data: std::ptr::null_mut(),
            shape: std::ptr::null(),
            scalar: v,
            ndim: 0,
            kind: ARG_INT,
            dtype: pack_dtype(0, 64, 1),
            _pad: 0,
        }
    }

    /// A float scalar argument.
    pub fn float(v: f64) -> KernelArg {
        KernelArg {
            data: std::ptr::null_mut(),
            shape: std::ptr::null(),
            scalar: v.to_bits() as i64,
            ndim: 0,
            kind: ARG_FLOAT,
            dtype: pack_dtype(2, 64, 1),
            _pad: 0,
        }
    }
}

/// Packs a DLPack dtype triple the way [`KernelArg::dtype`] holds it.
pub const fn pack_dtype(code: u8, bits: u8, lanes: u16) -> u32 {
    code as u32 | (bits as u32) << 8 | (lanes as u32) << 16
}

/// What a failed kernel reports. Which fields mean what depends on `kind` (an `ERR_*` code):
///
/// | kind | `arg` | `dim` | `expected` | `actual` |
/// |---|---|---|---|---|
/// | `ERR_ARITY` | – | – | parameter count | `nargs` |
/// | `ERR_KIND` | argument | – | expected `ARG_*` | actual `ARG_*` |
/// | `ERR_RANK` | argument | – | rank | `ndim` |
/// | `ERR_DTYPE` | argument | – | packed dtype | packed dtype |
/// | `ERR_DIM` | argument | dimension | value | value |
/// | `ERR_STRIDE` | argument | dimension | stride | compact stride |
/// | `ERR_BOUNDS` | access site | – | element count | index |
/// | `ERR_DIV_ZERO` | – | – | – | – |
/// | `ERR_ASSERT` | assert site | – | – | – |
/// | `ERR_HELPER` | – | – | – | – (the helper left a message, see `runtime`) |
/// | `ERR_ALLOC` | allocation site | – | – | requested bytes |
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelError {
    /// The `ERR_*` code (also the kernel's return value).
    pub kind: i32,
    /// Argument index or site index.
    pub arg: i32,
    /// Dimension index.
    pub dim: i32,
    /// Keeps the layout explicit.
    pub _pad: i32,
    /// The expected value.
    pub expected: i64,
    /// The actual value.
    pub actual: i64,
}

/// Byte offset of [`KernelError::kind`].
pub const ERR_KIND_OFFSET: i32 = 0;
/// Byte offset of [`KernelError::arg`].
pub const ERR_ARG_OFFSET: i32 = 4;
/// Byte offset of [`KernelError::dim`].
pub const ERR_DIM_OFFSET: i32 = 8;
/// Byte offset of [`KernelError::expected`].
pub const ERR_EXPECTED_OFFSET: i32 = 16;
/// Byte offset of [`KernelError::actual`].
pub const ERR_ACTUAL_OFFSET: i32 = 24;

/// Success.
pub const STATUS_OK: i32 = 0;
/// Wrong number of arguments.
pub const ERR_ARITY: i32 = 1;
/// A tensor where a scalar was expected or the reverse.
pub const ERR_KIND: i32 = 2;
/// Wrong rank.
pub const ERR_RANK: i32 = 3;
/// Wrong dtype.
pub const ERR_DTYPE: i32 = 4;
/// A dimension differs from the buffer's (constant or already bound symbolic) extent.
pub const ERR_DIM: i32 = 5;
/// A declared stride differs from the argument's compact stride.
pub const ERR_STRIDE: i32 = 6;
/// An access outside its buffer.
pub const ERR_BOUNDS: i32 = 7;
/// Integer division or modulo by zero.
pub const ERR_DIV_ZERO: i32 = 8;
/// A TIR `assert` failed.
pub const ERR_ASSERT: i32 = 9;
/// A runtime helper failed and left a message.
pub const ERR_HELPER: i32 = 10;
/// A buffer allocation failed (negative or too large size, out of memory).
pub const ERR_ALLOC: i32 = 11;

/// The native signature of every kernel.
pub type KernelFn = unsafe extern "C" fn(
    args: *const KernelArg,
    nargs: i64,
    rt: *const RuntimeTable,
    err: *mut KernelError,
) -> i32;

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn layout_matches_the_offsets_generated_code_uses() {
        assert_eq!(offset_of!(KernelArg, data) as i32, ARG_DATA_OFFSET);
        assert_eq!(offset_of!(KernelArg, shape) as i32, ARG_SHAPE_OFFSET);
        assert_eq!(offset_of!(KernelArg, scalar) as i32, ARG_SCALAR_OFFSET);
        assert_eq!(offset_of!(KernelArg, ndim) as i32, ARG_NDIM_OFFSET);
        assert_eq!(offset_of!(KernelArg, kind) as i32, ARG_KIND_OFFSET);
        assert_eq!(offset_of!(KernelArg, dtype) as i32, ARG_DTYPE_OFFSET);
        assert_eq!(size_of::<KernelArg>() as i64, ARG_SIZE);
        assert_eq!(offset_of!(KernelError, kind) as i32, ERR_KIND_OFFSET);
        assert_eq!(offset_of!(KernelError, arg) as i32, ERR_ARG_OFFSET);
        assert_eq!(offset_of!(KernelError, dim) as i32, ERR_DIM_OFFSET);
        assert_eq!(
            offset_of!(KernelError, expected) as i32,
            ERR_EXPECTED_OFFSET
        );
        assert_eq!(offset_of!(KernelError, actual) as i32, ERR_ACTUAL_OFFSET);
    }
}
