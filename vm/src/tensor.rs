//! `Device`, `Storage` and `Tensor`: reference-counted, 64-byte-aligned host memory and
//! contiguous row-major views into it.
//!
//! A `Storage` is one allocation. A `Tensor` is (storage, byte offset, shape, dtype): several
//! tensors may view one storage (that is how the VM's memory planner reuses memory, and how
//! `vm.builtin.reshape` makes views). Tensors are shared handles to mutable memory, as TVM's are:
//! kernels write their outputs through them. The safe methods here copy in and out; the raw
//! pointer accessors are for kernels and carry the usual aliasing caveats.

use std::alloc::Layout;
use std::fmt;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::allocator::Allocator;
use crate::{DataType, Error, Result};

/// Every allocation is aligned to this many bytes (a cache line, and enough for AVX-512 loads).
pub const ALLOC_ALIGNMENT: usize = 64;

/// DLPack device types; relaxjit computes on the host only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Device {
    pub device_type: i32,
    pub device_id: i32,
}

impl Device {
    pub const CPU_TYPE: i32 = 1;
    pub const fn cpu(id: i32) -> Device {
        Device {
            device_type: Device::CPU_TYPE,
            device_id: id,
        }
    }
    pub fn is_cpu(self) -> bool {
        self.device_type == Device::CPU_TYPE
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.device_type {
            Device::CPU_TYPE => write!(f, "cpu({})", self.device_id),
            t => write!(f, "device({t}, {})", self.device_id),
        }
    }
}

/// A raw 64-byte-aligned host buffer, zeroed when first allocated; allocators hand these out
/// and take them back.
pub struct RawBuffer {
    ptr: NonNull<u8>,
    size: usize,
}

// SAFETY: a RawBuffer owns its memory exclusively; the bytes are plain data.
unsafe impl Send for RawBuffer {}
// SAFETY: shared access hands out raw pointers only; callers synchronise writes as for TVM tensors.
unsafe impl Sync for RawBuffer {}

impl RawBuffer {
    /// Allocates `size` zeroed bytes (at least one, so the pointer is never dangling).
    pub fn zeroed(size: usize) -> Result<RawBuffer> {
        let layout = Self::layout(size)?;
        // SAFETY: the layout has a non-zero size (at least ALLOC_ALIGNMENT).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr)
            .ok_or_else(|| Error::runtime(format!("out of memory allocating {size} bytes")))?;
        Ok(RawBuffer { ptr, size })
    }

    fn layout(size: usize) -> Result<Layout> {
        let padded = size.max(1).div_ceil(ALLOC_ALIGNMENT) * ALLOC_ALIGNMENT;
        Layout::from_size_align(padded, ALLOC_ALIGNMENT)
            .map_err(|_| Error::runtime(format!("cannot allocate {size} bytes: size too large")))
    }

    pub fn size(&self) -> usize {
        self.size
    }
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for RawBuffer {
    fn drop(&mut self) {
        let layout = Self::layout(self.size).expect("layout was valid when allocated");
        // SAFETY: ptr was returned by alloc_zeroed with exactly this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) }
    }
}

pub(crate) struct StorageInner {
    /// `Some` until drop, when the buffer goes back to its allocator.
    buffer: Option<RawBuffer>,
    device: Device,
    allocator: Option<Arc<dyn Allocator>>,
}

impl Drop for StorageInner {
    fn drop(&mut self) {
        if let (Some(buffer), Some(allocator)) = (self.buffer.take(), self.allocator.take()) {
            allocator.free(buffer);
        }
    }
}

/// One host allocation (TVM's `vm.Storage`), shared by reference counting. Tensors allocated in
/// it keep it alive.
#[derive(Clone)]
pub struct Storage(Arc<StorageInner>);

impl Storage {
    /// A fresh zeroed storage of `size` bytes, not owned by any pool.
    pub fn new(size: usize, device: Device) -> Result<Storage> {
        Ok(Storage(Arc::new(StorageInner {
            buffer: Some(RawBuffer::zeroed(size)?),
            device,
            allocator: None,
        })))
    }

    /// Wraps a buffer taken from `allocator`; it returns there when the last handle drops.
    pub(crate) fn from_allocator(
        buffer: RawBuffer,
        device: Device,
        allocator: Arc<dyn Allocator>,
    ) -> Storage {
        Storage(Arc::new(StorageInner {
            buffer: Some(buffer),
            device,
            allocator: Some(allocator),
        }))
    }

    fn buffer(&self) -> &RawBuffer {
        self.0
            .buffer
            .as_ref()
            .expect("storage buffer is present until drop")
    }
    /// Usable size in bytes.
    pub fn size(&self) -> usize {
        self.buffer().size()
    }
    pub fn device(&self) -> Device {
        self.0.device
    }
    pub fn as_ptr(&self) -> *mut u8 {
        self.buffer().ptr()
    }
    pub fn ptr_eq(&self, other: &Storage) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// A tensor at `offset` bytes into this storage (`vm.builtin.alloc_tensor`).
    pub fn alloc_tensor(&self, offset: i64, shape: &[i64], dtype: DataType) -> Result<Tensor> {
        let nbytes = checked_nbytes(shape, dtype)?;
        let end = usize::try_from(offset)
            .ok()
            .and_then(|o| o.checked_add(nbytes));
        match end {
            Some(end) if end <= self.size() => Ok(Tensor::from_parts(
                self.clone(),
                offset as usize,
                shape.to_vec(),
                dtype,
            )),
            _ => Err(Error::runtime(format!(
                "Check failed: offset + needed_size <= this->buffer.size ({offset} + {nbytes} vs. {}): storage allocation failure, attempted to allocate {nbytes} at offset {offset} in region that is {} bytes",
                self.size(),
                self.size()
            ))),
        }
    }
}

impl fmt::Debug for Storage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Storage({} bytes on {})", self.size(), self.device())
    }
}

/// Number of elements of a shape, or an error if a dimension is negative or the product overflows.
pub fn checked_numel(shape: &[i64]) -> Result<usize> {
    let mut n: usize = 1;
    for &d in shape {
        let d = usize::try_from(d).map_err(|_| {
            Error::value_error(format!("negative dimension {d} in shape {shape:?}"))
        })?;
        n = n
            .checked_mul(d)
            .ok_or_else(|| Error::value_error(format!("shape {shape:?} is too large")))?;
    }
    Ok(n)
}

/// Bytes a contiguous tensor of this shape and dtype occupies.
pub fn checked_nbytes(shape: &[i64], dtype: DataType) -> Result<usize> {
    checked_numel(shape)?
        .checked_mul(dtype.bytes())
        .ok_or_else(|| Error::value_error(format!("shape {shape:?} of {dtype} is too large")))
}

struct TensorInner {
    storage: Storage,
    byte_offset: usize,
    shape: Vec<i64>,
    dtype: DataType,
}

/// A contiguous row-major n-dimensional array on the host: a view into a [`Storage`].
///
/// Cloning is cheap (a reference count). Invariant: `byte_offset + numel * dtype.bytes()` lies
/// within the storage, so every element is addressable.
#[derive(Clone)]
pub struct Tensor(Arc<TensorInner>);

/// Rust scalar types that can be tensor elements.
pub trait Element: Copy + Send + Sync + 'static {
    const DTYPE: DataType;
}

macro_rules! element {
    ($($t:ty => $d:expr),*) => { $(impl Element for $t { const DTYPE: DataType = $d; })* };
}
element!(f32 => DataType::F32, f64 => DataType::F64, i8 => DataType::I8, i16 => DataType::I16,
    i32 => DataType::I32, i64 => DataType::I64, u8 => DataType::U8, u16 => DataType::U16,
    u32 => DataType::U32, u64 => DataType::U64, bool => DataType::BOOL,
    half::f16 => DataType::F16, half::bf16 => DataType::BF16);

impl Tensor {
    fn from_parts(
        storage: Storage,
        byte_offset: usize,
        shape: Vec<i64>,
        dtype: DataType,
    ) -> Tensor {
        Tensor(Arc::new(TensorInner {
            storage,
            byte_offset,
            shape,
            dtype,
        }))
    }

    /// A zero-filled tensor in a storage of its own.
    pub fn zeros(shape: &[i64], dtype: DataType) -> Result<Tensor> {
        let nbytes = checked_nbytes(shape, dtype)?;
        let storage = Storage::new(nbytes, Device::cpu(0))?;
        Ok(Tensor::from_parts(storage, 0, shape.to_vec(), dtype))
    }

    /// A tensor holding a copy of `data`, which must have `prod(shape)` elements.
    pub fn from_slice<T: Element>(shape: &[i64], data: &[T]) -> Result<Tensor> {
        let t = Tensor::zeros(shape, T::DTYPE)?;
        t.copy_from_slice(data)?;
        Ok(t)
    }

    /// A tensor of `dtype` made from raw little-endian element bytes.
    pub fn from_bytes(shape: &[i64], dtype: DataType, bytes: &[u8]) -> Result<Tensor> {
        let t = Tensor::zeros(shape, dtype)?;
        t.copy_from_bytes(bytes)?;
        Ok(t)
    }

    /// A rank-0 tensor.
    pub fn scalar<T: Element>(value: T) -> Tensor {
        Tensor::from_slice(&[], &[value]).expect("a scalar always fits")
    }

    pub fn shape(&self) -> &[i64] {
        &self.0.shape
    }
    pub fn ndim(&self) -> usize {
        self.0.shape.len()
    }
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }
    pub fn device(&self) -> Device {
        self.0.storage.device()
    }
    pub fn storage(&self) -> &Storage {
        &self.0.storage
    }
    pub fn byte_offset(&self) -> usize {
        self.0.byte_offset
    }
    pub fn numel(&self) -> usize {
        // Validated when the tensor was made.
        self.0.shape.iter().map(|&d| d as usize).product()
    }
    pub fn nbytes(&self) -> usize {
        self.numel() * self.dtype().bytes()
    }
    /// Whether two handles are the same tensor object.
    pub fn ptr_eq(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Pointer to the first element. Valid for `nbytes()` bytes while any handle to this
    /// tensor's storage lives.
    pub fn as_ptr(&self) -> *const u8 {
        // SAFETY: the invariant of Tensor keeps byte_offset within the storage.
        unsafe { self.0.storage.as_ptr().add(self.0.byte_offset) }
    }

    /// Mutable pointer to the first element, for kernels that write their outputs. Writing through
    /// it while another thread reads or writes the same bytes is a data race: the VM runs one
    /// instruction at a time, and parallel kernels split their outputs into disjoint parts.
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.as_ptr() as *mut u8
    }

    /// The element bytes, copied out.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.nbytes()];
        // SAFETY: as_ptr is valid for nbytes bytes; `out` is a fresh, distinct allocation.
        unsafe { std::ptr::copy_nonoverlapping(self.as_ptr(), out.as_mut_ptr(), out.len()) };
        out
    }

    /// The elements, copied out. Errors if `T` is not the tensor's dtype.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.expect_dtype(T::DTYPE)?;
        let n = self.numel();
        let mut out = Vec::<T>::with_capacity(n);
        // SAFETY: the source holds n elements of T (dtype checked); bool tensors hold 0/1 bytes
        // written by our kernels or from_slice. The destination has capacity n.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.as_ptr(),
                out.as_mut_ptr() as *mut u8,
                n * size_of::<T>(),
            );
            out.set_len(n);
        }
        if T::DTYPE == DataType::BOOL {
            // Normalise bytes that are not 0/1 (possible if produced by foreign code) to keep
            // `bool` values valid.
            let bytes = self.to_bytes();
            let fixed: Vec<u8> = bytes.iter().map(|&b| (b != 0) as u8).collect();
            // SAFETY: each byte is now 0 or 1, a valid bool; sizes match.
            unsafe {
                std::ptr::copy_nonoverlapping(fixed.as_ptr(), out.as_mut_ptr() as *mut u8, n)
            };
        }
        Ok(out)
    }

    /// Overwrites the elements with `data`. Errors on a dtype or length mismatch.
    pub fn copy_from_slice<T: Element>(&self, data: &[T]) -> Result<()> {
        self.expect_dtype(T::DTYPE)?;
        if data.len() != self.numel() {
            return Err(Error::value_error(format!(
                "cannot copy {} elements into a tensor of shape {:?}",
                data.len(),
                self.shape()
            )));
        }
        // SAFETY: the tensor holds exactly data.len() elements of T; `data` is a separate Rust
        // slice, so the ranges do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr() as *const u8,
                self.as_mut_ptr(),
                std::mem::size_of_val(data),
            )
        };
        Ok(())
    }

    /// Overwrites the elements with raw bytes. Errors unless `bytes.len() == nbytes()`.
    pub fn copy_from_bytes(&self, bytes: &[u8]) -> Result<()> {
        if bytes.len() != self.nbytes() {
            return Err(Error::value_error(format!(
                "cannot copy {} bytes into a tensor of shape {:?} and dtype {} ({} bytes)",
                bytes.len(),
                self.shape(),
                self.dtype(),
                self.nbytes()
            )));
        }
        // SAFETY: both ranges are nbytes long and do not overlap (bytes is a Rust slice the
        // caller borrows; if it were this tensor's own memory, copy would still be well-defined
        // because we use `copy`, which permits overlap).
        unsafe { std::ptr::copy(bytes.as_ptr(), self.as_mut_ptr(), bytes.len()) };
        Ok(())
    }

    /// Copies the contents of `src`, which must have the same dtype and element count.
    pub fn copy_from(&self, src: &Tensor) -> Result<()> {
        if src.dtype() != self.dtype() || src.numel() != self.numel() {
            return Err(Error::value_error(format!(
                "cannot copy a tensor of shape {:?} and dtype {} into one of shape {:?} and dtype {}",
                src.shape(),
                src.dtype(),
                self.shape(),
                self.dtype()
            )));
        }
        // SAFETY: both are valid for nbytes; `copy` allows the ranges to overlap.
        unsafe { std::ptr::copy(src.as_ptr(), self.as_mut_ptr(), self.nbytes()) };
        Ok(())
    }

    /// A new tensor with its own storage and the same contents.
    pub fn deep_copy(&self) -> Result<Tensor> {
        let t = Tensor::zeros(self.shape(), self.dtype())?;
        t.copy_from(self)?;
        Ok(t)
    }

    /// A view of the same bytes with another shape and dtype (`CreateView`): no copy.
    pub fn view(&self, shape: &[i64], dtype: DataType) -> Result<Tensor> {
        let nbytes = checked_nbytes(shape, dtype)?;
        if nbytes > self.nbytes() {
            return Err(Error::value_error(format!(
                "Check failed: view size ({nbytes} bytes) must be no larger than the tensor's ({} bytes): cannot view shape {:?} {} as shape {:?} {}",
                self.nbytes(),
                self.shape(),
                self.dtype(),
                shape,
                dtype
            )));
        }
        Ok(Tensor::from_parts(
            self.0.storage.clone(),
            self.0.byte_offset,
            shape.to_vec(),
            dtype,
        ))
    }

    fn expect_dtype(&self, dtype: DataType) -> Result<()> {
        if self.dtype() != dtype {
            return Err(Error::type_error(format!(
                "tensor has dtype {}, but {dtype} was requested",
                self.dtype()
            )));
        }
        Ok(())
    }

    /// Element `i` (flat, row-major) widened to f64, for printing and comparisons.
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        if i >= self.numel() || self.dtype().lanes != 1 {
            return None;
        }
        let bytes = self.dtype().bytes();
        let mut b = [0u8; 8];
        // SAFETY: i < numel, so bytes [i*bytes, (i+1)*bytes) are within the tensor.
        unsafe {
            std::ptr::copy_nonoverlapping(self.as_ptr().add(i * bytes), b.as_mut_ptr(), bytes)
        };
        let d = self.dtype();
        Some(match (d.type_code()?, d.bits) {
            (crate::TypeCode::Float, 64) => f64::from_le_bytes(b),
            (crate::TypeCode::Float, 32) => f32::from_le_bytes(b[..4].try_into().ok()?) as f64,
            (crate::TypeCode::Float, 16) => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
            (crate::TypeCode::BFloat, 16) => half::bf16::from_le_bytes([b[0], b[1]]).to_f64(),
            (crate::TypeCode::Int, 8) => b[0] as i8 as f64,
            (crate::TypeCode::Int, 16) => i16::from_le_bytes([b[0], b[1]]) as f64,
            (crate::TypeCode::Int, 32) => i32::from_le_bytes(b[..4].try_into().ok()?) as f64,
            (crate::TypeCode::Int, 64) => i64::from_le_bytes(b) as f64,
            (crate::TypeCode::UInt | crate::TypeCode::Bool, 8) => b[0] as f64,
            (crate::TypeCode::UInt, 16) => u16::from_le_bytes([b[0], b[1]]) as f64,
            (crate::TypeCode::UInt, 32) => u32::from_le_bytes(b[..4].try_into().ok()?) as f64,
            (crate::TypeCode::UInt, 64) => u64::from_le_bytes(b) as f64,
            _ => return None,
        })
    }

    /// Element `i` of an integer or bool tensor as i64 (exact).
    pub fn get_i64(&self, i: usize) -> Option<i64> {
        if i >= self.numel() || self.dtype().lanes != 1 {
            return None;
        }
        let d = self.dtype();
        let bytes = d.bytes();
        let mut b = [0u8; 8];
        // SAFETY: i < numel, so the element's bytes are within the tensor.
        unsafe {
            std::ptr::copy_nonoverlapping(self.as_ptr().add(i * bytes), b.as_mut_ptr(), bytes)
        };
        Some(match (d.type_code()?, d.bits) {
            (crate::TypeCode::Int, 8) => b[0] as i8 as i64,
            (crate::TypeCode::Int, 16) => i16::from_le_bytes([b[0], b[1]]) as i64,
            (crate::TypeCode::Int, 32) => i32::from_le_bytes(b[..4].try_into().ok()?) as i64,
            (crate::TypeCode::Int, 64) => i64::from_le_bytes(b),
            (crate::TypeCode::UInt | crate::TypeCode::Bool, 8) => b[0] as i64,
            (crate::TypeCode::UInt, 16) => u16::from_le_bytes([b[0], b[1]]) as i64,
            (crate::TypeCode::UInt, 32) => u32::from_le_bytes(b[..4].try_into().ok()?) as i64,
            (crate::TypeCode::UInt, 64) => u64::from_le_bytes(b) as i64,
            _ => return None,
        })
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor(shape={:?}, dtype={}", self.shape(), self.dtype())?;
        let n = self.numel().min(8);
        let vals: Vec<String> = (0..n)
            .map(|i| match self.get_f64(i) {
                Some(v) => format!("{v}"),
                None => "?".into(),
            })
            .collect();
        write!(
            f,
            ", data=[{}{}])",
            vals.join(", "),
            if self.numel() > n { ", …" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensors_are_aligned_and_zeroed() {
        for n in [0, 1, 3, 17, 1000] {
            let t = Tensor::zeros(&[n], DataType::F32).unwrap();
            assert_eq!(t.as_ptr() as usize % ALLOC_ALIGNMENT, 0);
            assert!(t.to_vec::<f32>().unwrap().iter().all(|&x| x == 0.0));
        }
    }

    #[test]
    fn views_share_storage() {
        let t = Tensor::from_slice(&[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap();
        let v = t.view(&[6], DataType::I32).unwrap();
        v.copy_from_slice(&[6i32, 5, 4, 3, 2, 1]).unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![6, 5, 4, 3, 2, 1]);
        assert!(t.view(&[7], DataType::I32).is_err());
        assert!(t.view(&[-1], DataType::I32).is_err());
    }

    #[test]
    fn storage_bounds_are_checked() {
        let s = Storage::new(96, Device::cpu(0)).unwrap();
        assert!(s.alloc_tensor(0, &[2, 3, 4], DataType::F32).is_ok());
        assert!(s.alloc_tensor(4, &[2, 3, 4], DataType::F32).is_err());
        assert!(s.alloc_tensor(-1, &[1], DataType::F32).is_err());
        assert!(s.alloc_tensor(0, &[i64::MAX, 2], DataType::F32).is_err());
    }

    #[test]
    fn dtype_mismatch_is_an_error() {
        let t = Tensor::zeros(&[2], DataType::F32).unwrap();
        assert!(t.to_vec::<i32>().is_err());
        assert!(t.copy_from_slice(&[1.0f32]).is_err());
    }
}
