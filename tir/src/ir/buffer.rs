//! [`Buffer`]: a typed, shaped view of memory that TIR loads from and stores to.
//!
//! Buffers are shared immutable `Arc` nodes whose identity is the allocation: two buffers are
//! the same buffer only if they are the same `Arc` (as in TVM, where buffers compare by
//! reference). Structural comparison lives in [`crate::ir::structural_eq`].

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::ir::{DataType, PrimExpr, Range, Var};

/// TVM's default `data_alignment` (`runtime::kAllocAlignment`).
pub const DEFAULT_ALIGNMENT: i64 = 64;

/// The fields of a buffer.
#[derive(Clone, Debug)]
pub struct BufferNode {
    /// The buffer's name.
    pub name: String,
    /// The data pointer (a `handle` variable), printed `name.data`.
    pub data: Var,
    /// Element type.
    pub dtype: DataType,
    /// Extent of each dimension; empty for rank 0.
    pub shape: Vec<PrimExpr>,
    /// Element strides per dimension; empty means compact row-major.
    pub strides: Vec<PrimExpr>,
    /// Offset of element 0 from `data`, in elements (`0` or a variable).
    pub elem_offset: PrimExpr,
    /// Storage scope (`"global"`, `"shared"`, `"local"`...).
    pub scope: String,
    /// Alignment of `data` in bytes (printed `align=`).
    pub data_alignment: i64,
    /// `elem_offset` is a multiple of this.
    pub offset_factor: i64,
}

/// A buffer handle (cheap to clone; equality is identity).
#[derive(Clone)]
pub struct Buffer(Arc<BufferNode>);

impl Buffer {
    /// Wraps the fields into a new buffer identity.
    pub fn new(node: BufferNode) -> Buffer {
        Buffer(Arc::new(node))
    }

    /// A compact global buffer with a fresh data variable, zero offset and default alignment.
    pub fn simple(name: impl Into<String>, dtype: DataType, shape: Vec<PrimExpr>) -> Buffer {
        let name = name.into();
        let index_type = shape.first().map(|e| e.dtype()).unwrap_or(DataType::INT32);
        Buffer::new(BufferNode {
            data: Var::new(name.clone(), DataType::HANDLE),
            name,
            dtype,
            shape,
            strides: Vec::new(),
            elem_offset: PrimExpr::int(index_type, 0),
            scope: "global".to_string(),
            data_alignment: DEFAULT_ALIGNMENT,
            offset_factor: 1,
        })
    }

    /// Whether both handles are the same buffer.
    pub fn same_as(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.0.shape.len()
    }

    /// Whether this is a local scalar: TVM's `T.local_scalar`, the memory behind a mutable TIR
    /// local (`x: T.float32 = v`, later `x = v`), which TVMScript names without an index.
    /// TVM's `BufferVar::IsScalar` (one element of shape `(1,)`, compact, at offset 0, default
    /// alignment) restricted to the `"local"` scope, the one its scalar syntax allocates in.
    pub fn is_local_scalar(&self) -> bool {
        self.scope == "local"
            && matches!(self.shape.as_slice(), [e] if e.dtype() == DataType::INT32 && e.is_one())
            && self.strides.is_empty()
            && self.elem_offset.is_zero()
            && self.data_alignment == DEFAULT_ALIGNMENT
            && self.offset_factor == 1
    }

    /// A fresh local scalar (see [`Buffer::is_local_scalar`]) named `name`.
    pub fn local_scalar(name: impl Into<String>, dtype: DataType) -> Buffer {
        let b = Buffer::simple(name, dtype, vec![PrimExpr::int(DataType::INT32, 1)]);
        Buffer::new(BufferNode {
            scope: "local".to_string(),
            ..(*b).clone()
        })
    }

    /// A stable identity for hashing (the node's address while the buffer is alive).
    pub fn identity(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }
}

impl Deref for Buffer {
    type Target = BufferNode;

    fn deref(&self) -> &BufferNode {
        &self.0
    }
}

impl PartialEq for Buffer {
    fn eq(&self, other: &Buffer) -> bool {
        self.same_as(other)
    }
}

impl Eq for Buffer {}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Buffer({}: {} {:?})",
            self.0.name, self.0.dtype, self.0.shape
        )
    }
}

/// A rectangular region of a buffer: one [`Range`] per dimension (`A[v, 0:n]`).
#[derive(Clone, Debug)]
pub struct BufferRegion {
    /// The buffer.
    pub buffer: Buffer,
    /// One range per dimension.
    pub region: Vec<Range>,
}
