//! `Device`, `Storage` and `Tensor`: reference-counted, 64-byte-aligned host memory and
//! contiguous row-major views into it.
//!
//! A `Storage` is one allocation. A `Tensor` is (storage, byte offset, shape, dtype): several
//! tensors may view one storage (that is how the VM's memory planner reuses memory, and how
//! `vm.builtin.reshape` makes views). Tensors are shared handles to mutable memory, as TVM's are:
//! kernels write their outputs through them.
//!
//! Writing is sound by construction: the safe writers ([`Tensor::bytes_mut`],
//! [`Tensor::copy_from_slice`], ...) take `&mut self` and refuse (with an error) unless this
//! handle is the only one reaching its bytes — no clone of the tensor, no other view of its
//! storage, no `Storage` handle — the check [`Tensor::is_unique`] makes. Writing through a shared
//! handle (a kernel filling an output the VM also holds in a register) goes through the `unsafe`
//! [`Tensor::as_mut_ptr`], whose contract puts the absence of concurrent access on the caller.
//!
//! Every allocation is fallible: a size that overflows, does not form a valid layout, or that the
//! system allocator refuses is an error naming the bytes requested, never an abort.

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

/// The system block behind an aligned buffer of `size` bytes: `size` rounded up to whole
/// `ALLOC_ALIGNMENT` blocks (at least one), plus one block of slack in front, at the system
/// allocator's own 16-byte alignment. Asking the allocator for `ALLOC_ALIGNMENT` instead would
/// make it allocate and then `memset` the whole block (`posix_memalign` has no zeroed form),
/// where `calloc` of a large block maps fresh pages, which are zero already and cost nothing
/// until touched: a 16 GB buffer that a call allocates and then rejects is no 16 GB written.
/// `None` for a size no allocation can have (checked: a size near `usize::MAX` must not wrap).
fn aligned_layout(size: usize) -> Option<Layout> {
    size.max(1)
        .checked_next_multiple_of(ALLOC_ALIGNMENT)?
        .checked_add(ALLOC_ALIGNMENT)
        .and_then(|total| Layout::from_size_align(total, 16).ok())
}

/// `size` zeroed bytes (at least one) starting at an `ALLOC_ALIGNMENT` boundary, or null if
/// the system cannot provide them. The buffer starts at the first boundary at least 16 bytes
/// into the system block ([`aligned_layout`]), whose address is kept in the 8 bytes before it
/// for [`free_aligned`]. Tensor storage and compiled kernels' heap buffers both come from here.
pub fn alloc_zeroed_aligned(size: usize) -> *mut u8 {
    let Some(layout) = aligned_layout(size) else {
        return std::ptr::null_mut();
    };
    // SAFETY: the layout has a non-zero size (at least 2 * ALLOC_ALIGNMENT).
    let base = unsafe { std::alloc::alloc_zeroed(layout) };
    if base.is_null() {
        return base;
    }
    advise_huge_pages(base, layout.size());
    // `base` is 16-byte aligned, so `skip` is in [16, ALLOC_ALIGNMENT]: the 8-byte header
    // and the padded buffer both fit in the block, which is ALLOC_ALIGNMENT bytes longer.
    let skip = ALLOC_ALIGNMENT - (base as usize % ALLOC_ALIGNMENT);
    // SAFETY: `skip <= ALLOC_ALIGNMENT`, inside the block (see above).
    let ptr = unsafe { base.add(skip) };
    // SAFETY: `ptr - 8 >= base + 8`, inside the block; the write need not be aligned.
    unsafe { ptr.cast::<*mut u8>().sub(1).write_unaligned(base) };
    ptr
}

/// Buffers from this size up ask for transparent huge pages ([`advise_huge_pages`]).
const HUGE_PAGE_BUFFER: usize = 4 << 20;

/// Asks Linux to back the whole 2 MiB pages inside a fresh buffer of `len` bytes at `base`
/// (at least [`HUGE_PAGE_BUFFER`]) with transparent huge pages where the system allows them
/// on request (`/sys/kernel/mm/transparent_hugepage/enabled` set to `madvise`, the default of
/// many distributions). A model's weights and activations are hundreds of MB that each fault
/// in 4 KiB at a time otherwise: compiling ResNet-50 spent a third of its time in page
/// faults. The pages are still mapped only when first touched, so a buffer that is never
/// written costs no memory. Advice the system does not take changes nothing.
fn advise_huge_pages(base: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    if len >= HUGE_PAGE_BUFFER {
        const HUGE: usize = 2 << 20;
        let start = (base as usize).next_multiple_of(HUGE);
        let end = (base as usize + len) / HUGE * HUGE;
        if start < end {
            // SAFETY: `start..end` lies inside the block the allocator just returned to us
            // (`base..base + len`), which nothing else uses; `madvise` with `MADV_HUGEPAGE`
            // only changes how the kernel backs those pages, not their contents or mapping.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (base, len);
}

/// Gives back a buffer of [`alloc_zeroed_aligned`].
///
/// # Safety
/// `ptr` was returned (non-null) by `alloc_zeroed_aligned(size)` with the same `size`, and is
/// not used or freed again.
pub unsafe fn free_aligned(ptr: *mut u8, size: usize) {
    let layout = aligned_layout(size).expect("the layout was valid when allocated");
    // SAFETY: by the contract, `alloc_zeroed_aligned` wrote the block's address in the 8 bytes
    // before `ptr`, and that block was allocated with exactly this layout.
    unsafe {
        let base = ptr.cast::<*mut u8>().sub(1).read_unaligned();
        std::alloc::dealloc(base, layout);
    }
}

/// A raw 64-byte-aligned host buffer, zeroed when first allocated ([`alloc_zeroed_aligned`]);
/// allocators hand these out and take them back.
pub struct RawBuffer {
    ptr: NonNull<u8>,
    size: usize,
}

// SAFETY: a RawBuffer owns its memory exclusively; the bytes are plain data.
unsafe impl Send for RawBuffer {}
// SAFETY: `&RawBuffer` gives out only a raw pointer; reading or writing through it is `unsafe`,
// and the caller of that `unsafe` operation guarantees the absence of data races.
unsafe impl Sync for RawBuffer {}

impl RawBuffer {
    /// Allocates `size` zeroed bytes (at least one, so the pointer is never dangling). A size
    /// the system cannot provide is an error naming it.
    pub fn zeroed(size: usize) -> Result<RawBuffer> {
        if aligned_layout(size).is_none() {
            return Err(Error::runtime(format!(
                "out of memory: cannot allocate {size} bytes (larger than any allocation can be)"
            )));
        }
        let ptr = NonNull::new(alloc_zeroed_aligned(size)).ok_or_else(|| {
            Error::runtime(format!("out of memory: cannot allocate {size} bytes"))
        })?;
        Ok(RawBuffer { ptr, size })
    }

    pub fn size(&self) -> usize {
        self.size
    }
    #[inline]
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for RawBuffer {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `alloc_zeroed_aligned(self.size)` and is freed only here.
        unsafe { free_aligned(self.ptr.as_ptr(), self.size) }
    }
}

/// Bytes kept at a fixed address by an owner outside the VM — the artifact cache's mapping of
/// an entry file — over which [`Storage::shared`] makes storages without copying: the
/// constants of a loaded module. Storages hold the region by reference counting, so it lives
/// as long as any tensor over it (or the executable holding those tensors) does, and it is
/// never given to an allocator.
///
/// # Safety
///
/// An implementation guarantees that the [`len`](Self::len) bytes at [`as_ptr`](Self::as_ptr)
/// stay valid at that address, readable and writable, for as long as the value lives, and that
/// nothing but the tensors made over it reads them mutably or writes them while it is shared
/// (no `&mut [u8]` to them, no other writer). Writable, because kernels may write any tensor
/// they are handed, a constant too (`R.call_tir_inplace` on a constant is valid Relax): a
/// copy-on-write mapping of a file keeps such a write private to the process.
pub unsafe trait SharedBytes: Send + Sync + 'static {
    /// The first byte.
    fn as_ptr(&self) -> *mut u8;
    /// The number of bytes.
    fn len(&self) -> usize;
    /// Whether there are no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What owns a storage's bytes, and where they go when its last handle drops.
enum Owner {
    /// A buffer of the VM's; back to `allocator` if it came from one, else freed. `Some` until
    /// drop.
    Buffer(Option<RawBuffer>, Option<Arc<dyn Allocator>>),
    /// A range of a shared region ([`Storage::shared`]), held only to keep it alive.
    Region { _region: Arc<dyn SharedBytes> },
}

pub(crate) struct StorageInner {
    /// The first byte, [`ALLOC_ALIGNMENT`]-aligned, valid for `size` bytes while `owner` lives.
    ptr: NonNull<u8>,
    size: usize,
    device: Device,
    owner: Owner,
}

// SAFETY: `ptr` is a cached address of bytes `owner` owns (a `RawBuffer`, which is `Send` and
// `Sync`, or a `SharedBytes` region, which is too); every access to them through it is governed
// by `Tensor::as_mut_ptr`'s contract.
unsafe impl Send for StorageInner {}
// SAFETY: as above.
unsafe impl Sync for StorageInner {}

impl Drop for StorageInner {
    fn drop(&mut self) {
        if let Owner::Buffer(buffer, allocator) = &mut self.owner
            && let (Some(buffer), Some(allocator)) = (buffer.take(), allocator.take())
        {
            allocator.free(buffer);
        }
    }
}

/// One host allocation (TVM's `vm.Storage`), shared by reference counting. Tensors allocated in
/// it keep it alive. Its bytes are a buffer of the VM's, or a range of a region shared with
/// other storages ([`Storage::shared`]).
#[derive(Clone)]
pub struct Storage(Arc<StorageInner>);

impl Storage {
    /// A fresh zeroed storage of `size` bytes, not owned by any pool.
    pub fn new(size: usize, device: Device) -> Result<Storage> {
        Ok(Storage::from_buffer(RawBuffer::zeroed(size)?, device, None))
    }

    /// Wraps a buffer taken from `allocator`; it returns there when the last handle drops.
    pub(crate) fn from_allocator(
        buffer: RawBuffer,
        device: Device,
        allocator: Arc<dyn Allocator>,
    ) -> Storage {
        Storage::from_buffer(buffer, device, Some(allocator))
    }

    fn from_buffer(
        buffer: RawBuffer,
        device: Device,
        allocator: Option<Arc<dyn Allocator>>,
    ) -> Storage {
        Storage(Arc::new(StorageInner {
            ptr: buffer.ptr,
            size: buffer.size,
            device,
            owner: Owner::Buffer(Some(buffer), allocator),
        }))
    }

    /// A host storage over `len` bytes of `region` from byte `offset` on, without a copy: the
    /// region lives while the storage (or a tensor in it) does. Errors if the range does not
    /// lie within the region or does not start at an [`ALLOC_ALIGNMENT`] boundary, the
    /// alignment every other storage has and kernels may rely on.
    ///
    /// Such a storage is never [`unique`](Tensor::is_unique): its bytes belong to the region,
    /// so the safe writers refuse its tensors.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn shared(region: Arc<dyn SharedBytes>, offset: usize, len: usize) -> Result<Storage> {
        if offset.checked_add(len).is_none_or(|end| end > region.len()) {
            return Err(Error::runtime(format!(
                "a storage of {len} bytes at offset {offset} does not lie within a shared region of {} bytes",
                region.len()
            )));
        }
        // SAFETY: `offset <= region.len()` (checked above), so the result lies within the
        // region's bytes or one past them.
        let ptr = unsafe { region.as_ptr().add(offset) };
        if !(ptr as usize).is_multiple_of(ALLOC_ALIGNMENT) {
            return Err(Error::runtime(format!(
                "a storage at offset {offset} of a shared region is not aligned to {ALLOC_ALIGNMENT} bytes"
            )));
        }
        let ptr =
            NonNull::new(ptr).ok_or_else(|| Error::runtime("a shared region at address 0"))?;
        Ok(Storage(Arc::new(StorageInner {
            ptr,
            size: len,
            device: Device::cpu(0),
            owner: Owner::Region { _region: region },
        })))
    }

    /// Whether the bytes are a range of a shared region ([`Storage::shared`]) rather than a
    /// buffer of the VM's.
    pub fn is_shared_region(&self) -> bool {
        matches!(self.0.owner, Owner::Region { .. })
    }

    /// Usable size in bytes.
    #[inline]
    pub fn size(&self) -> usize {
        self.0.size
    }
    pub fn device(&self) -> Device {
        self.0.device
    }
    /// The first byte. Reading through it is subject to the same rule as [`Tensor::as_ptr`].
    #[inline]
    pub fn as_ptr(&self) -> *const u8 {
        self.0.ptr.as_ptr()
    }
    pub fn ptr_eq(&self, other: &Storage) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// A tensor at `offset` bytes into this storage (`vm.builtin.alloc_tensor`).
    pub fn alloc_tensor(&self, offset: i64, shape: &[i64], dtype: DataType) -> Result<Tensor> {
        self.alloc_tensor_reusing(None, offset, shape, dtype)
    }

    /// [`alloc_tensor`](Self::alloc_tensor), made in the handle of `spare` (see
    /// [`Tensor::into_spare`]) instead of a fresh allocation. Either way the result is a
    /// tensor object no one else holds; `spare` is released if the allocation fails.
    #[inline]
    pub fn alloc_tensor_reusing(
        &self,
        spare: Option<SpareTensor>,
        offset: i64,
        shape: &[i64],
        dtype: DataType,
    ) -> Result<Tensor> {
        let nbytes = checked_nbytes(shape, dtype)?;
        let end = usize::try_from(offset)
            .ok()
            .and_then(|o| o.checked_add(nbytes));
        match end {
            Some(end) if end <= self.size() => {
                // A `SpareTensor` is the only handle to its tensor object (there are no weak
                // ones): `into_spare` checked it, and it lends out no reference through which a clone
                // could be made since; `get_mut` checks it again.
                if let Some(SpareTensor(mut t)) = spare
                    && let Some(inner) = t.0.get_mut()
                {
                    inner.set(self, offset as usize, shape, dtype);
                    return Ok(t);
                }
                Ok(Tensor::from_parts(
                    self.clone(),
                    offset as usize,
                    shape,
                    dtype,
                ))
            }
            _ => Err(self.out_of_bounds(offset, nbytes)),
        }
    }

    #[cold]
    fn out_of_bounds(&self, offset: i64, nbytes: usize) -> Error {
        Error::runtime(format!(
            "Check failed: offset + needed_size <= this->buffer.size ({offset} + {nbytes} vs. {}): storage allocation failure, attempted to allocate {nbytes} at offset {offset} in region that is {} bytes",
            self.size(),
            self.size()
        ))
    }
}

impl fmt::Debug for Storage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Storage({} bytes on {})", self.size(), self.device())
    }
}

/// Number of elements of a shape, or an error if a dimension is negative or the shape is too
/// large: its nonzero dimensions multiply past `isize::MAX`.
///
/// numpy's rule (`PyArray_NewFromDescr_int` in ctors.c): zero dimensions are skipped in the
/// overflow check, so whether a shape is too large does not depend on the order of its
/// dimensions — `[2^40, 2^40, 0]` and `[0, 2^40, 2^40]` are both too large, though either
/// would have no elements. The bound is numpy's `npy_intp` and Rust's allocation limit. Every
/// element count and byte size of a shape goes through this and [`checked_nbytes`], so that a
/// shape one place accepts is one every other place can count without overflowing (in any
/// order: each partial product is 0 or at most the product of the nonzero dimensions).
#[inline]
pub fn checked_numel(shape: &[i64]) -> Result<usize> {
    checked_size(shape, 1).ok_or_else(|| size_error(shape, None))
}

/// `unit` times the dimensions of `shape` (0 if one is 0), or `None` if a dimension is
/// negative or `unit` times the nonzero dimensions exceeds `isize::MAX`.
#[inline]
fn checked_size(shape: &[i64], unit: usize) -> Option<usize> {
    let mut n = unit;
    let mut empty = false;
    for &d in shape {
        let d = usize::try_from(d).ok()?;
        if d == 0 {
            empty = true;
            continue;
        }
        n = n.checked_mul(d).filter(|&m| m <= isize::MAX as usize)?;
    }
    Some(if empty { 0 } else { n })
}

/// Why [`checked_size`] refused `shape`: a negative dimension, or the size.
#[cold]
fn size_error(shape: &[i64], dtype: Option<DataType>) -> Error {
    if let Some(d) = shape.iter().find(|&&d| d < 0) {
        return Error::value_error(format!("negative dimension {d} in shape {shape:?}"));
    }
    match dtype {
        Some(dtype) => Error::value_error(format!("shape {shape:?} of {dtype} is too large")),
        None => Error::value_error(format!("shape {shape:?} is too large")),
    }
}

/// Bytes a contiguous tensor of this shape and dtype occupies; the same rule as
/// [`checked_numel`], with the element size in the product (as numpy has it).
#[inline]
pub fn checked_nbytes(shape: &[i64], dtype: DataType) -> Result<usize> {
    checked_numel(shape)?;
    checked_size(shape, dtype.bytes()).ok_or_else(|| size_error(shape, Some(dtype)))
}

/// Dimensions stored inline up to this rank, so that making a tensor of ordinary rank (the VM
/// does it for every intermediate, every call) allocates nothing but its handle.
pub const INLINE_DIMS: usize = 6;

/// Where compiled code (`__vmtir__<name>`) finds a tensor's kernel-call description: a
/// `Value::Tensor`'s payload (see [`crate::value::layout`]) is the address of the tensor object,
/// and these are byte offsets into it.
pub mod layout {
    /// `usize`: the number of references (`Tensor` handles) to the object. A thread holding
    /// a reference that reads 1 (with acquire ordering) holds the only one.
    pub const COUNT: i32 = 0;
    /// `*mut u8`: the first element (the storage's buffer plus the byte offset).
    pub const DATA: i32 = 8;
    /// `u32`: the rank.
    pub const NDIM: i32 = 16;
    /// `u32`: the dtype packed as `code | bits << 8 | lanes << 16` (a `repr(C)` `DataType`).
    pub const DTYPE: i32 = 20;
    /// `[i64; INLINE_DIMS]`: the dimensions, when the rank is at most
    /// [`INLINE_DIMS`](super::INLINE_DIMS) (larger shapes live elsewhere).
    pub const DIMS: i32 = 24;
    /// `usize`: the byte offset into the storage.
    pub const BYTE_OFFSET: i32 = 72;
    /// `usize`: the storage's size in bytes.
    pub const STORAGE_SIZE: i32 = 80;
    /// The storage handle: eight bytes, equal for two handles exactly when they are the same
    /// storage (the payload of a `Value::Storage` holding it).
    pub const STORAGE: i32 = 88;
}

/// The tensor object. `repr(C)`, and its first fields are a description of the tensor that
/// compiled code reads, and remakes in place when it holds the only reference ([`layout`]);
/// `data` and `storage_size` are derived from `storage` and `byte_offset`, and `ndim`, `dims`
/// and `heap_dims` hold the shape, so every writer goes through [`TensorInner::new`] or
/// [`TensorInner::set`], which keep them consistent (as compiled code does).
#[repr(C)]
struct TensorInner {
    count: std::sync::atomic::AtomicUsize,
    data: *mut u8,
    ndim: u32,
    dtype: DataType,
    /// The dimensions when `ndim <= INLINE_DIMS`.
    dims: [i64; INLINE_DIMS],
    byte_offset: usize,
    storage_size: usize,
    storage: Storage,
    /// The dimensions when `ndim > INLINE_DIMS` (and only then).
    heap_dims: Option<Box<[i64]>>,
}

// SAFETY: `data` points into `storage`'s buffer, which the object keeps alive and which is
// `Send` and `Sync`; the pointer is only a cached address of those bytes, and every access to
// the bytes through it is governed by `Tensor::as_mut_ptr`'s contract, as through `storage`.
unsafe impl Send for TensorInner {}
// SAFETY: as above.
unsafe impl Sync for TensorInner {}

impl TensorInner {
    /// `byte_offset + nbytes` must lie within `storage` (the invariant of `Tensor`).
    fn new(storage: Storage, byte_offset: usize, shape: &[i64], dtype: DataType) -> TensorInner {
        let mut inner = TensorInner {
            count: std::sync::atomic::AtomicUsize::new(0),
            data: std::ptr::null_mut(),
            ndim: 0,
            dtype,
            dims: [0; INLINE_DIMS],
            byte_offset,
            storage_size: storage.size(),
            storage,
            heap_dims: None,
        };
        inner.set_shape(shape);
        inner.data = inner.data_ptr();
        inner
    }

    /// Makes this object the tensor at `byte_offset` of `storage` with `shape` and `dtype`,
    /// keeping its dimensions inline when they fit. The same precondition as [`Self::new`].
    #[inline(always)]
    fn set(&mut self, storage: &Storage, byte_offset: usize, shape: &[i64], dtype: DataType) {
        if !self.storage.ptr_eq(storage) {
            self.storage = storage.clone();
            self.storage_size = storage.size();
        }
        self.byte_offset = byte_offset;
        self.dtype = dtype;
        self.set_shape(shape);
        self.data = self.data_ptr();
    }

    #[inline(always)]
    fn set_shape(&mut self, shape: &[i64]) {
        if shape.len() <= INLINE_DIMS {
            // Element by element: shapes are short, and a `memcpy` call costs more.
            for (d, &s) in self.dims.iter_mut().zip(shape) {
                *d = s;
            }
            if self.heap_dims.is_some() {
                self.heap_dims = None;
            }
        } else {
            self.heap_dims = Some(shape.into());
        }
        self.ndim = shape.len() as u32;
    }

    #[inline]
    fn shape(&self) -> &[i64] {
        match &self.heap_dims {
            Some(dims) => dims,
            None => &self.dims[..self.ndim as usize],
        }
    }

    #[inline]
    fn data_ptr(&self) -> *mut u8 {
        // SAFETY: the invariant of Tensor keeps byte_offset within the storage's allocation.
        unsafe { self.storage.0.ptr.as_ptr().add(self.byte_offset) }
    }
}

/// A counted reference to a tensor object. The count is the object's own (`TensorInner::count`,
/// at [`layout::COUNT`]) rather than an `Arc`'s, whose layout is private, so that compiled code
/// may check in place that a register holds the only reference; the counting follows `Arc`'s
/// (relaxed increments, release decrements, an acquire fence before freeing). There are no weak
/// references.
#[repr(transparent)]
struct TensorRc(NonNull<TensorInner>);

// SAFETY: the object is shared between threads only through its atomic count and `&`
// access (`TensorInner` is `Send` and `Sync`), and freed by the thread that releases the last
// reference after an acquire fence, as `Arc<TensorInner>` does.
unsafe impl Send for TensorRc {}
// SAFETY: as above.
unsafe impl Sync for TensorRc {}

impl TensorRc {
    fn new(mut inner: TensorInner) -> TensorRc {
        *inner.count.get_mut() = 1;
        TensorRc(NonNull::from(Box::leak(Box::new(inner))))
    }

    /// The object, mutable, if this is the only reference to it.
    #[inline]
    fn get_mut(&mut self) -> Option<&mut TensorInner> {
        // Acquire: synchronizes with the release decrements of references dropped by other
        // threads, so their accesses happen before ours.
        if self.count.load(std::sync::atomic::Ordering::Acquire) == 1 {
            // SAFETY: this is the only reference (no weak ones exist), and the `&mut` borrow
            // of it keeps it so (no clone can be made) for the result's lifetime.
            Some(unsafe { &mut *self.0.as_ptr() })
        } else {
            None
        }
    }

    fn ptr_eq(&self, other: &TensorRc) -> bool {
        self.0 == other.0
    }

    fn as_ptr(&self) -> *const TensorInner {
        self.0.as_ptr()
    }
}

impl std::ops::Deref for TensorRc {
    type Target = TensorInner;
    #[inline]
    fn deref(&self) -> &TensorInner {
        // SAFETY: the object lives while this reference does.
        unsafe { self.0.as_ref() }
    }
}

impl Clone for TensorRc {
    #[inline]
    fn clone(&self) -> TensorRc {
        use std::sync::atomic::Ordering;
        // Relaxed, as `Arc::clone`: a new reference is made from an existing one, which keeps
        // the object alive. A count past `isize::MAX` (leaked clones) aborts, as `Arc`'s does.
        if self.count.fetch_add(1, Ordering::Relaxed) > isize::MAX as usize {
            std::process::abort();
        }
        TensorRc(self.0)
    }
}

impl Drop for TensorRc {
    #[inline]
    fn drop(&mut self) {
        use std::sync::atomic::{Ordering, fence};
        if self.count.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        fence(Ordering::Acquire);
        // SAFETY: the object was made by `Box::leak` in `new`, and this was its last reference
        // (the count reached zero; the fence orders every other reference's accesses before
        // this), so nothing reads it any more.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

/// A contiguous row-major n-dimensional array on the host: a view into a [`Storage`].
///
/// Cloning is cheap (a reference count). Invariant: `byte_offset + numel * dtype.bytes()` lies
/// within the storage, so every element is addressable.
#[derive(Clone)]
#[repr(transparent)]
pub struct Tensor(TensorRc);

/// A tensor handle that is the only handle to its tensor object, kept to be
/// made into another tensor without allocating ([`Tensor::into_spare`],
/// [`Storage::alloc_tensor_reusing`]). It lends out nothing, so it stays the only one.
pub struct SpareTensor(Tensor);

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
    fn from_parts(storage: Storage, byte_offset: usize, shape: &[i64], dtype: DataType) -> Tensor {
        Tensor(TensorRc::new(TensorInner::new(
            storage,
            byte_offset,
            shape,
            dtype,
        )))
    }

    /// A zero-filled tensor in a storage of its own.
    pub fn zeros(shape: &[i64], dtype: DataType) -> Result<Tensor> {
        Tensor::zeros_on(shape, dtype, Device::cpu(0))
    }

    /// A zero-filled tensor in a fresh storage of its own on `device`.
    pub fn zeros_on(shape: &[i64], dtype: DataType, device: Device) -> Result<Tensor> {
        let nbytes = checked_nbytes(shape, dtype)?;
        let storage = Storage::new(nbytes, device)?;
        Ok(Tensor::from_parts(storage, 0, shape, dtype))
    }

    /// A tensor holding a copy of `data`, which must have `prod(shape)` elements.
    pub fn from_slice<T: Element>(shape: &[i64], data: &[T]) -> Result<Tensor> {
        let mut t = Tensor::zeros(shape, T::DTYPE)?;
        t.copy_from_slice(data)?;
        Ok(t)
    }

    /// A tensor of `dtype` made from raw little-endian element bytes.
    pub fn from_bytes(shape: &[i64], dtype: DataType, bytes: &[u8]) -> Result<Tensor> {
        let mut t = Tensor::zeros(shape, dtype)?;
        t.copy_from_bytes(bytes)?;
        Ok(t)
    }

    /// A rank-0 tensor.
    pub fn scalar<T: Element>(value: T) -> Tensor {
        Tensor::from_slice(&[], &[value]).expect("a scalar always fits")
    }

    #[inline]
    pub fn shape(&self) -> &[i64] {
        self.0.shape()
    }
    pub fn ndim(&self) -> usize {
        self.0.ndim as usize
    }
    #[inline]
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
        self.0.shape().iter().map(|&d| d as usize).product()
    }
    pub fn nbytes(&self) -> usize {
        self.numel() * self.dtype().bytes()
    }
    /// This handle, kept for [`Storage::alloc_tensor_reusing`], if it is the only handle to its
    /// tensor object and its storage stays alive without it (another handle to the storage
    /// exists); otherwise `None`, and the handle is released here as a drop would. The second
    /// condition means keeping a spare never keeps a storage alive by itself.
    #[inline]
    pub fn into_spare(mut self) -> Option<SpareTensor> {
        let inner = self.0.get_mut()?;
        (Arc::strong_count(&inner.storage.0) > 1).then_some(SpareTensor(self))
    }

    /// `storage.alloc_tensor(offset, shape, dtype)` made in this handle's tensor object, in
    /// place, if this is the only handle to it: nothing is allocated and no count changes
    /// unless the storage does. `false` (this handle untouched) when the handle is shared or the
    /// tensor would not fit in the storage (`alloc_tensor` reports that).
    #[inline]
    pub fn remake_in(
        &mut self,
        storage: &Storage,
        offset: usize,
        shape: &[i64],
        dtype: DataType,
    ) -> bool {
        let fits = checked_nbytes(shape, dtype)
            .ok()
            .and_then(|n| offset.checked_add(n))
            .is_some_and(|end| end <= storage.size());
        match self.0.get_mut() {
            Some(inner) if fits => {
                inner.set(storage, offset, shape, dtype);
                true
            }
            _ => false,
        }
    }

    /// The address of the tensor object: the payload of a `Value::Tensor`, at which compiled
    /// code reads the fields of [`layout`].
    pub fn object_address(&self) -> *const u8 {
        self.0.as_ptr().cast()
    }

    /// Whether two handles are the same tensor object.
    pub fn ptr_eq(&self, other: &Tensor) -> bool {
        self.0.ptr_eq(&other.0)
    }

    /// Pointer to the first element. Valid for `nbytes()` bytes while any handle to this
    /// tensor's storage lives; reading through it must not overlap a write made through
    /// [`as_mut_ptr`](Self::as_mut_ptr) by another thread.
    pub fn as_ptr(&self) -> *const u8 {
        self.data_ptr()
    }

    #[inline]
    fn data_ptr(&self) -> *mut u8 {
        self.0.data
    }

    /// Mutable pointer to the first element, for kernels that write their outputs through a
    /// shared handle (destination-passing style, as TVM's). Valid for `nbytes()` bytes while any
    /// handle to this tensor's storage lives.
    ///
    /// # Safety
    ///
    /// While the caller writes through the returned pointer, no other thread may read or write
    /// any of these bytes, through this tensor, a clone, another view of the same storage, or a
    /// pointer obtained earlier; and the bytes written must be valid elements of the dtype
    /// (`0` or `1` for `bool`). Code holding unique access should use
    /// [`bytes_mut`](Self::bytes_mut) instead, which checks it.
    #[inline]
    pub unsafe fn as_mut_ptr(&self) -> *mut u8 {
        self.data_ptr()
    }

    /// Whether this handle is the only way to reach its bytes: the tensor object is not shared
    /// (no clone) and neither is its storage (no other view, no `Storage` handle). Owning
    /// `&mut self` means no new handle can appear while the caller holds the borrow.
    /// A storage over a shared region ([`Storage::shared`]) is never unique: its bytes belong
    /// to the region (a loaded module's constants).
    pub fn is_unique(&mut self) -> bool {
        match self.0.get_mut() {
            Some(inner) => {
                !inner.storage.is_shared_region() && Arc::get_mut(&mut inner.storage.0).is_some()
            }
            None => false,
        }
    }

    /// The element bytes, writable. Errors unless this handle is the only one reaching them
    /// ([`is_unique`](Self::is_unique)): writing through a shared handle would race with the
    /// holders of the other handles.
    pub fn bytes_mut(&mut self) -> Result<&mut [u8]> {
        if !self.is_unique() {
            if self.storage().is_shared_region() {
                return Err(Error::runtime(format!(
                    "cannot write a tensor of shape {:?} and dtype {} in place: its bytes are a loaded module's constant data; write into a copy (`deep_copy`)",
                    self.shape(),
                    self.dtype()
                )));
            }
            return Err(Error::runtime(format!(
                "cannot write a tensor of shape {:?} and dtype {} through a shared handle: its storage is also held elsewhere (a clone, another view, or the VM); write into a copy (`deep_copy`)",
                self.shape(),
                self.dtype()
            )));
        }
        let (ptr, len) = (self.data_ptr(), self.nbytes());
        // SAFETY: the tensor's invariant makes `ptr` valid for `len` bytes of its storage's
        // allocation, which lives as long as `self`. Uniqueness was just checked and the `&mut`
        // borrow of `self` keeps it for the slice's lifetime: no other handle exists to read or
        // write these bytes (raw pointers taken earlier fall under `as_mut_ptr`'s contract).
        // Every byte pattern is a valid `u8`.
        Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
    }

    /// The element bytes, copied out.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.append_bytes_to(&mut out);
        out
    }

    /// Appends the element bytes to `out`, copied once (no intermediate buffer).
    pub fn append_bytes_to(&self, out: &mut Vec<u8>) {
        let (n, at) = (self.nbytes(), out.len());
        out.reserve(n);
        // SAFETY: `as_ptr` is valid for `nbytes()` bytes (the tensor's invariant); the
        // destination is the `n` spare bytes just reserved in `out`, a distinct allocation,
        // all written before the length covers them. Reading is subject to `as_ptr`'s rule.
        unsafe {
            std::ptr::copy_nonoverlapping(self.as_ptr(), out.as_mut_ptr().add(at), n);
            out.set_len(at + n);
        }
    }

    /// Hands the element bytes to `f` in order, a chunk of up to 8 KiB at a time, without
    /// copying the whole tensor (hashing a model's weights of hundreds of MB for a cache key).
    pub fn read_chunks(&self, mut f: impl FnMut(&[u8])) {
        const CHUNK: usize = 1 << 13;
        let (n, p) = (self.nbytes(), self.as_ptr());
        let mut buf = [0u8; CHUNK];
        let mut start = 0;
        while start < n {
            let len = CHUNK.min(n - start);
            // SAFETY: the pointer is valid for `n` bytes (the tensor's invariant) and
            // `start + len <= n`; the destination is a distinct local. Reading is subject to
            // `as_ptr`'s rule, as for `to_bytes`.
            unsafe { std::ptr::copy_nonoverlapping(p.add(start), buf.as_mut_ptr(), len) };
            f(&buf[..len]);
            start += len;
        }
    }

    /// Whether two tensors hold the same dtype, shape and bytes, compared in place, chunk by
    /// chunk, without copying either (constant pools compare weights of hundreds of MB).
    pub fn content_eq(&self, other: &Tensor) -> bool {
        if self.ptr_eq(other) {
            return true;
        }
        if self.dtype() != other.dtype() || self.shape() != other.shape() {
            return false;
        }
        let n = self.nbytes();
        let (a, b) = (self.as_ptr(), other.as_ptr());
        if a == b {
            return true;
        }
        const CHUNK: usize = 1 << 13;
        let mut start = 0;
        while start < n {
            let len = CHUNK.min(n - start);
            let (mut x, mut y) = ([0u8; CHUNK], [0u8; CHUNK]);
            // SAFETY: both pointers are valid for `n` bytes (each tensor's invariant) and
            // `start + len <= n`; the destinations are distinct locals. Reading is subject to
            // `as_ptr`'s rule, as for `to_bytes`.
            unsafe {
                std::ptr::copy_nonoverlapping(a.add(start), x.as_mut_ptr(), len);
                std::ptr::copy_nonoverlapping(b.add(start), y.as_mut_ptr(), len);
            }
            if x[..len] != y[..len] {
                return false;
            }
            start += len;
        }
        true
    }

    /// Up to `count` bytes spread evenly over the tensor's data (all of them when it is
    /// smaller): a fingerprint for hashing large tensors that costs the same at any size.
    pub fn sample_bytes(&self, count: usize) -> Vec<u8> {
        let n = self.nbytes();
        if n <= count {
            return self.to_bytes();
        }
        let p = self.as_ptr();
        (0..count)
            .map(|i| {
                let at = i * (n - 1) / (count - 1).max(1);
                // SAFETY: `at < n`, and the pointer is valid for `n` bytes; reading is subject
                // to `as_ptr`'s rule, as for `to_bytes`.
                unsafe { p.add(at).read() }
            })
            .collect()
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

    /// Overwrites the elements with `data`. Errors on a dtype or length mismatch, and if the
    /// tensor is shared ([`bytes_mut`](Self::bytes_mut)).
    pub fn copy_from_slice<T: Element>(&mut self, data: &[T]) -> Result<()> {
        self.expect_dtype(T::DTYPE)?;
        if data.len() != self.numel() {
            return Err(Error::value_error(format!(
                "cannot copy {} elements into a tensor of shape {:?}",
                data.len(),
                self.shape()
            )));
        }
        let dst = self.bytes_mut()?;
        // SAFETY: `dst` holds exactly data.len() elements of T (dtype and length checked above);
        // `data` is a shared borrow and `dst` a unique one, so the ranges do not overlap. The
        // elements are plain data of the tensor's dtype.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr() as *const u8,
                dst.as_mut_ptr(),
                std::mem::size_of_val(data),
            )
        };
        Ok(())
    }

    /// Overwrites the elements with raw bytes. Errors unless `bytes.len() == nbytes()`, and if
    /// the tensor is shared ([`bytes_mut`](Self::bytes_mut)).
    pub fn copy_from_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.len() != self.nbytes() {
            return Err(Error::value_error(format!(
                "cannot copy {} bytes into a tensor of shape {:?} and dtype {} ({} bytes)",
                bytes.len(),
                self.shape(),
                self.dtype(),
                self.nbytes()
            )));
        }
        self.bytes_mut()?.copy_from_slice(bytes);
        Ok(())
    }

    /// Copies the contents of `src`, which must have the same dtype and element count. Errors if
    /// this tensor is shared ([`bytes_mut`](Self::bytes_mut)) — in particular if `src` views
    /// the same storage.
    pub fn copy_from(&mut self, src: &Tensor) -> Result<()> {
        self.check_copy_source(src)?;
        let dst = self.bytes_mut()?;
        // SAFETY: `src` is valid for `dst.len()` bytes (same dtype and element count) and lives
        // in another storage (ours is unique, so `src` cannot view it): no overlap.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    /// [`copy_from_slice`](Self::copy_from_slice) through a shared handle, for packed functions
    /// that fill an output the caller also holds (destination-passing style). Errors on a dtype
    /// or length mismatch.
    ///
    /// # Safety
    ///
    /// As for [`as_mut_ptr`](Self::as_mut_ptr): during the call no other thread reads or writes
    /// this tensor's bytes through any handle, view or earlier pointer.
    pub unsafe fn copy_from_slice_shared<T: Element>(&self, data: &[T]) -> Result<()> {
        self.expect_dtype(T::DTYPE)?;
        if data.len() != self.numel() {
            return Err(Error::value_error(format!(
                "cannot copy {} elements into a tensor of shape {:?}",
                data.len(),
                self.shape()
            )));
        }
        // SAFETY: the tensor holds exactly data.len() elements of T (checked above) and `data`
        // is a Rust slice, which cannot be this tensor's memory while a kernel may write it
        // (the caller's contract); `copy` tolerates overlap regardless. No concurrent access:
        // the caller's contract.
        unsafe {
            std::ptr::copy(
                data.as_ptr() as *const u8,
                self.as_mut_ptr(),
                std::mem::size_of_val(data),
            )
        };
        Ok(())
    }

    /// [`copy_from`](Self::copy_from) through a shared handle; `src` may view the same storage.
    ///
    /// # Safety
    ///
    /// As for [`as_mut_ptr`](Self::as_mut_ptr): during the call no other thread reads or writes
    /// this tensor's bytes, and no other thread writes `src`'s.
    pub unsafe fn copy_from_shared(&self, src: &Tensor) -> Result<()> {
        self.check_copy_source(src)?;
        // SAFETY: both are valid for nbytes (same dtype and element count); `copy` allows the
        // ranges to overlap. No concurrent access: the caller's contract.
        unsafe { std::ptr::copy(src.as_ptr(), self.as_mut_ptr(), self.nbytes()) };
        Ok(())
    }

    /// A new tensor with its own storage and the same contents.
    pub fn deep_copy(&self) -> Result<Tensor> {
        let mut t = Tensor::zeros_on(self.shape(), self.dtype(), self.device())?;
        t.copy_from(self)?;
        Ok(t)
    }

    /// A view of the same bytes with another shape and dtype (`CreateView`): no copy.
    pub fn view(&self, shape: &[i64], dtype: DataType) -> Result<Tensor> {
        self.view_at(shape, dtype, 0)
    }

    /// A view of this tensor's bytes from `relative_byte_offset` on, with another shape and
    /// dtype (TVM's `runtime.TVMTensorCreateView`, `R.memory.view`): no copy. The view must lie
    /// within this tensor's bytes.
    pub fn view_at(
        &self,
        shape: &[i64],
        dtype: DataType,
        relative_byte_offset: i64,
    ) -> Result<Tensor> {
        let nbytes = checked_nbytes(shape, dtype)?;
        let offset = usize::try_from(relative_byte_offset).map_err(|_| {
            Error::value_error(format!(
                "a view's relative byte offset must not be negative, got {relative_byte_offset}"
            ))
        })?;
        if offset
            .checked_add(nbytes)
            .is_none_or(|end| end > self.nbytes())
        {
            return Err(Error::value_error(format!(
                "Check failed: view size ({nbytes} bytes at byte offset {offset}) must lie within the tensor's {} bytes: cannot view shape {:?} {} as shape {:?} {}",
                self.nbytes(),
                self.shape(),
                self.dtype(),
                shape,
                dtype
            )));
        }
        Ok(Tensor::from_parts(
            self.0.storage.clone(),
            self.0.byte_offset + offset,
            shape,
            dtype,
        ))
    }

    fn check_copy_source(&self, src: &Tensor) -> Result<()> {
        if src.dtype() != self.dtype() || src.numel() != self.numel() {
            return Err(Error::value_error(format!(
                "cannot copy a tensor of shape {:?} and dtype {} into one of shape {:?} and dtype {}",
                src.shape(),
                src.dtype(),
                self.shape(),
                self.dtype()
            )));
        }
        Ok(())
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
    fn chunks_read_join_to_the_bytes() {
        for n in [0usize, 1, 2048, 2049, 5000] {
            let data: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
            let t = Tensor::from_slice(&[n as i64], &data).unwrap();
            let mut joined = Vec::new();
            let mut pieces = 0;
            t.read_chunks(|c| {
                joined.extend_from_slice(c);
                pieces += 1;
            });
            assert_eq!(joined, t.to_bytes());
            assert_eq!(pieces, (4 * n).div_ceil(1 << 13));
        }
    }

    /// numpy's rule: whether a shape is too large does not depend on where its zero dimension
    /// is; a shape that is not too large has 0 elements if one dimension is 0.
    #[test]
    fn a_shape_is_too_large_wherever_its_zero_is() {
        let big = 1i64 << 40;
        for shape in [[big, big, 0], [0, big, big], [big, 0, big]] {
            let e = checked_numel(&shape).unwrap_err().to_string();
            assert!(e.contains("is too large"), "{shape:?}: {e}");
            let e = checked_nbytes(&shape, DataType::I8)
                .unwrap_err()
                .to_string();
            assert!(e.contains("is too large"), "{shape:?}: {e}");
            assert!(Tensor::zeros(&shape, DataType::F32).is_err(), "{shape:?}");
        }
        let fits = 1i64 << 31;
        for shape in [[fits, fits, 0], [0, fits, fits], [fits, 0, fits]] {
            assert_eq!(checked_numel(&shape).unwrap(), 0, "{shape:?}");
            assert_eq!(
                checked_nbytes(&shape, DataType::I8).unwrap(),
                0,
                "{shape:?}"
            );
            assert_eq!(Tensor::zeros(&shape, DataType::I8).unwrap().numel(), 0);
            // 2^62 elements of 4 bytes are more bytes than `isize::MAX`, as numpy counts them.
            let e = checked_nbytes(&shape, DataType::F32)
                .unwrap_err()
                .to_string();
            assert!(e.contains("float32 is too large"), "{shape:?}: {e}");
        }
        // The bound is `isize::MAX`, in elements and in bytes.
        assert!(checked_numel(&[1 << 62, 2]).is_err());
        assert_eq!(checked_numel(&[1 << 61, 2]).unwrap(), 1 << 62);
        assert!(checked_nbytes(&[1 << 61, 2], DataType::F16).is_err());
        let e = checked_numel(&[0, -1, big, big]).unwrap_err().to_string();
        assert!(e.contains("negative dimension -1"), "{e}");
    }

    /// Pages of this process in memory (`/proc/self/statm`'s second field).
    #[cfg(target_os = "linux")]
    fn resident_pages() -> usize {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
        statm.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// A large zeroed buffer is aligned, reads as zeros at both ends, and is not written when
    /// allocated: a gigabyte adds far less than a gigabyte to the process's resident memory.
    #[cfg(target_os = "linux")]
    #[test]
    fn large_zeroed_buffers_are_not_written_up_front() {
        let size = 1 << 30;
        let before = resident_pages();
        let b = RawBuffer::zeroed(size).unwrap();
        let grown = resident_pages().saturating_sub(before) * 4096;
        assert_eq!(b.ptr() as usize % ALLOC_ALIGNMENT, 0);
        // SAFETY: both offsets are inside the buffer's `size` bytes, which nothing else uses.
        let (first, last) = unsafe { (*b.ptr(), *b.ptr().add(size - 1)) };
        assert_eq!((first, last), (0, 0));
        assert!(
            grown < 64 << 20,
            "allocating 1 GiB made {grown} bytes resident"
        );
    }

    /// A region of test bytes: a buffer of the VM's own, so aligned.
    struct Region(RawBuffer);

    // SAFETY: the buffer's bytes stay allocated, unmoved and writable while the value lives,
    // and nothing else reaches them.
    unsafe impl SharedBytes for Region {
        fn as_ptr(&self) -> *mut u8 {
            self.0.ptr()
        }
        fn len(&self) -> usize {
            self.0.size()
        }
    }

    /// Storages over a shared region view its bytes without a copy and keep it alive; a range
    /// outside it or off the alignment is an error; the safe writers refuse such tensors.
    #[test]
    fn storages_over_a_shared_region() {
        let buffer = RawBuffer::zeroed(256).unwrap();
        // SAFETY: the buffer is ours alone and 256 bytes long.
        unsafe { std::ptr::write_bytes(buffer.ptr().add(64), 5, 16) };
        let base = buffer.ptr() as usize;
        let region: Arc<dyn SharedBytes> = Arc::new(Region(buffer));
        let storage = Storage::shared(region.clone(), 64, 16).unwrap();
        assert!(storage.is_shared_region());
        assert_eq!(storage.as_ptr() as usize, base + 64);
        let mut t = storage.alloc_tensor(0, &[4], DataType::I32).unwrap();
        drop(storage);
        drop(region);
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![0x0505_0505; 4]);
        let e = t.bytes_mut().unwrap_err().to_string();
        assert!(e.contains("constant data"), "{e}");
        assert!(!t.is_unique());
        let region: Arc<dyn SharedBytes> = Arc::new(Region(RawBuffer::zeroed(256).unwrap()));
        for (offset, len, what) in [(200, 64, "does not lie"), (32, 16, "not aligned")] {
            let e = Storage::shared(region.clone(), offset, len).unwrap_err();
            assert!(e.to_string().contains(what), "{e}");
        }
        assert!(Storage::shared(region.clone(), usize::MAX, 2).is_err());
    }

    #[test]
    fn views_share_storage() {
        let t = Tensor::from_slice(&[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap();
        let v = t.view(&[6], DataType::I32).unwrap();
        // SAFETY: this thread holds every handle to the storage and reads none while writing.
        unsafe { (v.as_mut_ptr() as *mut i32).write_unaligned(6) };
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![6, 2, 3, 4, 5, 6]);
        assert!(t.view(&[7], DataType::I32).is_err());
        assert!(t.view(&[-1], DataType::I32).is_err());
    }

    #[test]
    fn shared_tensors_refuse_safe_writes() {
        let mut t = Tensor::from_slice(&[3], &[1.0f32, 2.0, 3.0]).unwrap();
        assert!(t.is_unique());
        let clone = t.clone();
        let err = t.copy_from_slice(&[0.0f32; 3]).unwrap_err();
        assert!(err.message().contains("shared handle"), "{err}");
        assert!(t.bytes_mut().is_err());
        // A clone moved to another thread keeps reading the old values: nothing was written.
        let read = std::thread::spawn(move || clone.to_vec::<f32>().unwrap())
            .join()
            .unwrap();
        assert_eq!(read, vec![1.0, 2.0, 3.0]);
        // The clone is gone: the write goes through.
        t.copy_from_slice(&[4.0f32, 5.0, 6.0]).unwrap();
        assert_eq!(t.to_vec::<f32>().unwrap(), vec![4.0, 5.0, 6.0]);

        // Another view of the storage, or a storage handle, makes it shared too.
        let view = t.view(&[2], DataType::F32).unwrap();
        assert!(t.copy_from_bytes(&[0u8; 12]).is_err());
        drop(view);
        let storage = t.storage().clone();
        let src = Tensor::from_slice(&[3], &[7.0f32, 8.0, 9.0]).unwrap();
        assert!(t.copy_from(&src).is_err());
        drop(storage);
        t.copy_from(&src).unwrap();
        assert_eq!(t.to_vec::<f32>().unwrap(), vec![7.0, 8.0, 9.0]);
        // A view onto shared storage can never write safely, even as the only handle to itself.
        let mut v = t.view(&[3], DataType::F32).unwrap();
        assert!(v.copy_from_slice(&[0.0f32; 3]).is_err());
    }

    #[test]
    fn huge_allocations_are_errors() {
        for size in [usize::MAX, usize::MAX - 10, isize::MAX as usize] {
            let err = RawBuffer::zeroed(size)
                .err()
                .expect("no allocation this large");
            assert!(err.message().contains(&size.to_string()), "{err}");
        }
        // Beyond the 128 TiB user address space of x86-64 and AArch64 Linux: refused by any
        // allocator regardless of overcommit.
        let err = Tensor::zeros(&[1 << 46, 4], DataType::F32).unwrap_err();
        assert!(err.message().contains("1125899906842624 bytes"), "{err}");
        assert!(Tensor::zeros(&[i64::MAX, 2], DataType::F32).is_err());
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
        let mut t = Tensor::zeros(&[2], DataType::F32).unwrap();
        assert!(t.to_vec::<i32>().is_err());
        assert!(t.copy_from_slice(&[1.0f32]).is_err());
    }

    /// Compiled code reads these fields at the offsets of `layout`.
    #[test]
    fn the_layout_is_where_compiled_code_reads_it() {
        use std::mem::offset_of;
        assert_eq!(offset_of!(TensorInner, data), layout::DATA as usize);
        assert_eq!(offset_of!(TensorInner, ndim), layout::NDIM as usize);
        assert_eq!(offset_of!(TensorInner, dtype), layout::DTYPE as usize);
        assert_eq!(offset_of!(TensorInner, dims), layout::DIMS as usize);
        assert_eq!(offset_of!(TensorInner, count), layout::COUNT as usize);
        assert_eq!(
            offset_of!(TensorInner, byte_offset),
            layout::BYTE_OFFSET as usize
        );
        assert_eq!(
            offset_of!(TensorInner, storage_size),
            layout::STORAGE_SIZE as usize
        );
        assert_eq!(offset_of!(TensorInner, storage), layout::STORAGE as usize);
        assert_eq!(size_of::<Storage>(), 8);
        let s = Storage::new(256, Device::cpu(0)).unwrap();
        for shape in [&[3i64, 4][..], &[1, 2, 1, 2, 1, 2, 1, 2]] {
            let t = s.alloc_tensor(64, shape, DataType::F16).unwrap();
            let p = t.object_address();
            // SAFETY: `p` is the live object of `t`, read at the offsets the layout names.
            let (data, ndim, dtype) = unsafe {
                (
                    p.add(layout::DATA as usize).cast::<*const u8>().read(),
                    p.add(layout::NDIM as usize).cast::<u32>().read(),
                    p.add(layout::DTYPE as usize).cast::<u32>().read(),
                )
            };
            // SAFETY: as above.
            let (count, offset, size, storage) = unsafe {
                (
                    p.add(layout::COUNT as usize).cast::<usize>().read(),
                    p.add(layout::BYTE_OFFSET as usize).cast::<usize>().read(),
                    p.add(layout::STORAGE_SIZE as usize).cast::<usize>().read(),
                    p.add(layout::STORAGE as usize).cast::<usize>().read(),
                )
            };
            let handle = s.clone();
            // SAFETY: a `Storage` is eight bytes (asserted above), read as an integer.
            let bits = unsafe { std::mem::transmute_copy::<Storage, usize>(&handle) };
            assert_eq!((count, offset, size, storage), (1, 64, 256, bits));
            let u = t.clone();
            // SAFETY: as above.
            let count = unsafe { p.add(layout::COUNT as usize).cast::<usize>().read() };
            assert_eq!(count, 2);
            drop(u);
            assert_eq!(data, t.as_ptr());
            assert_eq!(ndim as usize, shape.len());
            assert_eq!(dtype, 2 | 16 << 8 | 1 << 16);
            if shape.len() <= INLINE_DIMS {
                // SAFETY: as above; the rank is at most INLINE_DIMS.
                let dims = unsafe {
                    std::slice::from_raw_parts(
                        p.add(layout::DIMS as usize).cast::<i64>(),
                        shape.len(),
                    )
                };
                assert_eq!(dims, shape);
            }
        }
    }

    /// `remake_in` makes an unshared handle the tensor `alloc_tensor` would, in place, and
    /// refuses a shared handle and a tensor that does not fit.
    #[test]
    fn remake_in_reuses_only_an_unshared_handle() {
        let a = Storage::new(64, Device::cpu(0)).unwrap();
        let b = Storage::new(64, Device::cpu(0)).unwrap();
        let mut t = a.alloc_tensor(0, &[4], DataType::F32).unwrap();
        let handle = t.object_address();
        assert!(t.remake_in(&b, 8, &[1, 2, 3, 4, 1, 1, 1], DataType::I8));
        assert_eq!(t.object_address(), handle);
        assert!(t.storage().ptr_eq(&b));
        assert_eq!(
            (t.byte_offset(), t.shape(), t.dtype(), t.as_ptr()),
            (
                8,
                &[1, 2, 3, 4, 1, 1, 1][..],
                DataType::I8,
                b.as_ptr().wrapping_add(8)
            )
        );
        assert!(t.remake_in(&a, 0, &[2], DataType::F64));
        assert_eq!((t.shape(), t.ndim()), (&[2i64][..], 1));
        assert!(!t.remake_in(&a, 8, &[8], DataType::F64), "does not fit");
        assert!(
            !t.remake_in(&a, 0, &[-1], DataType::F64),
            "a negative dimension"
        );
        let shared = t.clone();
        assert!(!t.remake_in(&b, 0, &[1], DataType::F32), "shared");
        assert_eq!(shared.shape(), [2]);
    }

    /// A handle kept by `into_spare` becomes the next tensor of `alloc_tensor_reusing`, with
    /// the new storage, offset, shape and dtype; a shared handle, or one whose storage nothing
    /// else holds, is not kept.
    #[test]
    fn spare_handles_are_reused_only_when_unshared() {
        let a = Storage::new(64, Device::cpu(0)).unwrap();
        let b = Storage::new(64, Device::cpu(0)).unwrap();
        let t = a.alloc_tensor(0, &[4], DataType::F32).unwrap();
        let handle = t.0.as_ptr();
        let spare = t.into_spare().expect("unshared, and `a` holds the storage");
        let u = b
            .alloc_tensor_reusing(Some(spare), 8, &[2, 3], DataType::I16)
            .unwrap();
        assert_eq!(u.0.as_ptr(), handle, "the handle is reused");
        assert!(
            u.clone().into_spare().is_none(),
            "a reused handle is an ordinary one"
        );
        assert!(u.storage().ptr_eq(&b));
        assert_eq!(
            (u.byte_offset(), u.shape(), u.dtype()),
            (8, &[2, 3][..], DataType::I16)
        );
        // A handle with a clone is released, not kept.
        let shared = u.clone();
        assert!(u.into_spare().is_none());
        assert_eq!(shared.shape(), [2, 3]);
        // A handle that alone keeps its storage alive is released.
        let lone = Tensor::zeros(&[4], DataType::F32).unwrap();
        assert!(lone.into_spare().is_none());
        // A spare is released when the allocation fails.
        let t = a.alloc_tensor(0, &[4], DataType::F32).unwrap();
        let spare = t.into_spare();
        assert!(
            a.alloc_tensor_reusing(spare, 0, &[100], DataType::F32)
                .is_err()
        );
    }
}
