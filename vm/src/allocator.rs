//! Allocators for `vm.builtin.alloc_storage`: TVM's naive and pooled strategies.
//!
//! The naive allocator allocates and frees on every request. The pooled allocator rounds sizes up
//! to 4 KiB pages and keeps freed buffers in a free list keyed by exact rounded size, so that a
//! VM running the same function repeatedly allocates nothing in steady state (TVM's default).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::Result;
use crate::tensor::{Device, RawBuffer, Storage};

/// How a VM allocates storage; TVM's `AllocatorType` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AllocatorKind {
    Naive = 1,
    #[default]
    Pooled = 2,
}

/// A source of host buffers. Buffers come back through [`Allocator::free`] when the last
/// `Storage` holding them drops.
pub trait Allocator: Send + Sync {
    fn kind(&self) -> AllocatorKind;
    /// A buffer of at least `size` bytes.
    fn take(&self, size: usize) -> Result<RawBuffer>;
    /// Returns a buffer obtained from `take`.
    fn free(&self, buffer: RawBuffer);
    /// Bytes currently held by live storages.
    fn used_bytes(&self) -> usize;
    /// Buffers obtained from the system so far (requests a pool served from its free lists
    /// are not counted): in steady state, a VM calling the same function again obtains none.
    fn system_allocations(&self) -> usize;
    /// Releases cached memory (`vm.builtin.memory_manager.clear`).
    fn clear(&self) {}
}

/// Allocates a storage of `size` bytes from `allocator`.
pub fn alloc_storage(
    allocator: &Arc<dyn Allocator>,
    size: usize,
    device: Device,
) -> Result<Storage> {
    let buffer = allocator.take(size)?;
    Ok(Storage::from_allocator(buffer, device, allocator.clone()))
}

/// Creates the allocator of a kind, and records it for [`clear_all`].
pub fn new_allocator(kind: AllocatorKind) -> Arc<dyn Allocator> {
    let allocator: Arc<dyn Allocator> = match kind {
        AllocatorKind::Naive => Arc::new(NaiveAllocator::default()),
        AllocatorKind::Pooled => Arc::new(PooledAllocator::default()),
    };
    let mut live = LIVE_ALLOCATORS.lock().unwrap_or_else(|e| e.into_inner());
    live.retain(|w| w.strong_count() > 0);
    live.push(Arc::downgrade(&allocator));
    allocator
}

/// Every allocator made by [`new_allocator`] that is still alive: TVM's `MemoryManager` keeps
/// one process-wide table, and `vm.builtin.memory_manager.clear` takes no VM argument.
static LIVE_ALLOCATORS: Mutex<Vec<Weak<dyn Allocator>>> = Mutex::new(Vec::new());

/// Releases the cached memory of every live allocator (`vm.builtin.memory_manager.clear`).
pub fn clear_all() {
    let live: Vec<Arc<dyn Allocator>> = LIVE_ALLOCATORS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter_map(Weak::upgrade)
        .collect();
    for allocator in live {
        allocator.clear();
    }
}

#[derive(Default)]
pub struct NaiveAllocator {
    used: AtomicUsize,
    fresh: AtomicUsize,
}

impl Allocator for NaiveAllocator {
    fn kind(&self) -> AllocatorKind {
        AllocatorKind::Naive
    }
    fn take(&self, size: usize) -> Result<RawBuffer> {
        let buffer = RawBuffer::zeroed(size)?;
        self.used.fetch_add(buffer.size(), Ordering::Relaxed);
        self.fresh.fetch_add(1, Ordering::Relaxed);
        Ok(buffer)
    }
    fn system_allocations(&self) -> usize {
        self.fresh.load(Ordering::Relaxed)
    }
    fn free(&self, buffer: RawBuffer) {
        self.used.fetch_sub(buffer.size(), Ordering::Relaxed);
    }
    fn used_bytes(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }
}

pub const POOL_PAGE_SIZE: usize = 4096;

#[derive(Default)]
pub struct PooledAllocator {
    free_lists: Mutex<HashMap<usize, Vec<RawBuffer>>>,
    used: AtomicUsize,
    fresh: AtomicUsize,
}

impl PooledAllocator {
    /// Bytes held in free lists, ready for reuse.
    pub fn cached_bytes(&self) -> usize {
        let lists = self.free_lists.lock().unwrap_or_else(|e| e.into_inner());
        lists.iter().map(|(size, v)| size * v.len()).sum()
    }
}

impl Allocator for PooledAllocator {
    fn kind(&self) -> AllocatorKind {
        AllocatorKind::Pooled
    }
    fn take(&self, size: usize) -> Result<RawBuffer> {
        let rounded = size
            .max(1)
            .checked_next_multiple_of(POOL_PAGE_SIZE)
            .ok_or_else(|| {
                crate::Error::runtime(format!(
                    "out of memory: cannot allocate {size} bytes (larger than any allocation can be)"
                ))
            })?;
        let reused = {
            let mut lists = self.free_lists.lock().unwrap_or_else(|e| e.into_inner());
            lists.get_mut(&rounded).and_then(Vec::pop)
        };
        let buffer = match reused {
            Some(b) => b,
            None => match RawBuffer::zeroed(rounded).inspect(|_| {
                self.fresh.fetch_add(1, Ordering::Relaxed);
            }) {
                Ok(b) => b,
                Err(_) => {
                    // As TVM does: release everything cached, then try once more.
                    self.clear();
                    let b = RawBuffer::zeroed(rounded)?;
                    self.fresh.fetch_add(1, Ordering::Relaxed);
                    b
                }
            },
        };
        self.used.fetch_add(rounded, Ordering::Relaxed);
        Ok(buffer)
    }
    fn free(&self, buffer: RawBuffer) {
        self.used.fetch_sub(buffer.size(), Ordering::Relaxed);
        let mut lists = self.free_lists.lock().unwrap_or_else(|e| e.into_inner());
        lists.entry(buffer.size()).or_default().push(buffer);
    }
    fn used_bytes(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }
    fn system_allocations(&self) -> usize {
        self.fresh.load(Ordering::Relaxed)
    }
    fn clear(&self) {
        self.free_lists
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DataType;

    #[test]
    fn pooled_reuses_freed_buffers() {
        let pooled = Arc::new(PooledAllocator::default());
        let a: Arc<dyn Allocator> = pooled.clone();
        let s = alloc_storage(&a, 100, Device::cpu(0)).unwrap();
        assert_eq!(s.size(), POOL_PAGE_SIZE);
        let p = s.as_ptr();
        drop(s);
        assert_eq!(pooled.cached_bytes(), POOL_PAGE_SIZE);
        let s2 = alloc_storage(&a, 4000, Device::cpu(0)).unwrap();
        assert_eq!(s2.as_ptr(), p);
        assert_eq!(a.used_bytes(), POOL_PAGE_SIZE);
        assert_eq!(a.system_allocations(), 1);
    }

    #[test]
    fn storage_outlives_its_tensor_handles_correctly() {
        let a = new_allocator(AllocatorKind::Naive);
        let s = alloc_storage(&a, 24, Device::cpu(0)).unwrap();
        let mut t = s.alloc_tensor(0, &[2, 3], DataType::F32).unwrap();
        drop(s);
        assert_eq!(a.used_bytes(), 24);
        t.copy_from_slice(&[1.0f32; 6]).unwrap();
        drop(t);
        assert_eq!(a.used_bytes(), 0);
    }

    #[test]
    fn huge_requests_are_errors_naming_the_size() {
        for kind in [AllocatorKind::Naive, AllocatorKind::Pooled] {
            let a = new_allocator(kind);
            for size in [usize::MAX, 1 << 50] {
                let err = alloc_storage(&a, size, Device::cpu(0)).unwrap_err();
                assert!(err.message().contains(&size.to_string()), "{kind:?}: {err}");
            }
            assert_eq!(a.used_bytes(), 0);
        }
    }
}
