//! Allocation and once-per-process values for the artifact cache's hit path, whose code lies in
//! one linker section (`jit::cache` docs, "Hit path").
//!
//! `Vec::with_capacity`, `<[T]>::to_vec` and `String::from` end in the standard library's
//! `RawVecInner::try_allocate_in`, and `OnceLock::get_or_init` in `OnceLock::initialize`:
//! generic functions that each crate instantiates for itself and that the linker places among
//! that crate's other code, so that each copy a cache hit reaches is one more page fault on the
//! binary (a few microseconds on a virtual machine, against a hit of tens). The functions here
//! do the same work through `std::alloc` and one atomic, and every instance of them lies in the
//! section.

use std::alloc::{Layout, alloc, handle_alloc_error};
use std::sync::atomic::{AtomicPtr, Ordering};

/// `Vec::with_capacity(n)`.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn vec_with_capacity<T>(n: usize) -> Vec<T> {
    let Ok(layout) = Layout::array::<T>(n) else {
        capacity_overflow()
    };
    if layout.size() == 0 {
        return Vec::new();
    }
    // SAFETY: the layout's size is not zero (checked above).
    let p = unsafe { alloc(layout) };
    if p.is_null() {
        handle_alloc_error(layout);
    }
    // SAFETY: `p` comes from the global allocator with the layout of `n` `T`s — the alignment of
    // `T` and a size of `n * size_of::<T>()`, which is what `from_raw_parts` requires of a
    // vector of capacity `n` — and a length of 0 asks no element to be initialized.
    unsafe { Vec::from_raw_parts(p.cast::<T>(), 0, n) }
}

/// `s.to_vec()`.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn copy_slice<T: Copy>(s: &[T]) -> Vec<T> {
    let mut v = vec_with_capacity(s.len());
    // SAFETY: `v` has room for `s.len()` elements and does not overlap `s` (it is fresh); the
    // elements are `Copy`, so a bitwise copy initializes them.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), v.as_mut_ptr(), s.len());
        v.set_len(s.len());
    }
    v
}

/// `s.to_string()`.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn copy_str(s: &str) -> String {
    // SAFETY: the bytes are a copy of a `str`'s, so they are UTF-8.
    unsafe { String::from_utf8_unchecked(copy_slice(s.as_bytes())) }
}

/// `String::from_utf8(bytes.to_vec())`, without the copy when the bytes are not UTF-8.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn utf8_string(bytes: &[u8]) -> Result<String, std::str::Utf8Error> {
    std::str::from_utf8(bytes).map(copy_str)
}

#[cold]
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn capacity_overflow() -> ! {
    panic!("capacity overflow")
}

/// A value computed once per process, as with `OnceLock::get_or_init`. Threads that find it
/// unset at the same time each compute it and one result is kept, so `init` must give the same
/// value every time (as detecting the host does).
pub struct Lazy<T> {
    value: AtomicPtr<T>,
}

impl<T> Lazy<T> {
    /// No value yet.
    pub const fn new() -> Lazy<T> {
        Lazy {
            value: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// The value, computing it with `init` the first time.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn get_or_init(&'static self, init: fn() -> T) -> &'static T {
        let p = self.value.load(Ordering::Acquire);
        if !p.is_null() {
            // SAFETY: a non-null pointer is a leaked `Box` stored by `set` below, never freed or
            // written again; the acquire load pairs with the release of that store.
            return unsafe { &*p };
        }
        self.set(init())
    }

    #[cold]
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn set(&'static self, value: T) -> &'static T {
        let new = Box::into_raw(Box::new(value));
        match self.value.compare_exchange(
            std::ptr::null_mut(),
            new,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            // SAFETY: `new` is the leaked box just stored, which is never freed.
            Ok(_) => unsafe { &*new },
            Err(first) => {
                // SAFETY: `new` lost the race, so nobody else has seen it: it is still ours to
                // free. `first` is a leaked box another thread stored, as above.
                unsafe {
                    drop(Box::from_raw(new));
                    &*first
                }
            }
        }
    }
}

impl<T> Default for Lazy<T> {
    fn default() -> Lazy<T> {
        Lazy::new()
    }
}

// SAFETY: `Lazy<T>` hands out `&T` to any thread (so `T: Sync`) and the value is created on
// one thread and read on others (so `T: Send`), as for `OnceLock<T>`.
unsafe impl<T: Send + Sync> Sync for Lazy<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_equal_their_sources() {
        assert_eq!(copy_slice(&[1u8, 2, 3]), vec![1, 2, 3]);
        assert_eq!(copy_slice::<u64>(&[]), Vec::<u64>::new());
        assert_eq!(copy_slice(&[(); 4]).len(), 4);
        assert_eq!(copy_str("añb"), "añb");
        assert_eq!(utf8_string(b"ok").as_deref(), Ok("ok"));
        assert!(utf8_string(&[0xff]).is_err());
        let v: Vec<String> = vec_with_capacity(3);
        assert!(v.capacity() >= 3 && v.is_empty());
    }

    #[test]
    fn a_lazy_value_is_computed_once_and_shared() {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        static L: Lazy<String> = Lazy::new();
        fn init() -> String {
            N.fetch_add(1, Ordering::Relaxed);
            "value".to_string()
        }
        let threads: Vec<_> = (0..4)
            .map(|_| std::thread::spawn(|| L.get_or_init(init) as *const String as usize))
            .collect();
        let ptrs: Vec<usize> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(ptrs.iter().all(|&p| p == ptrs[0]));
        assert_eq!(L.get_or_init(init), "value");
        assert!((1..=4).contains(&N.load(Ordering::Relaxed)));
    }
}
