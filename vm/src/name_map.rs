//! [`NameMap`]: the map from function names to what they stand for that a loaded module is
//! made of (an executable's function map, a [`crate::Library`], the symbols of JIT code).
//!
//! A vector of entries sorted by name, searched by bisection, rather than a `HashMap`: these
//! maps are built on every artifact-cache hit, and a hash map's generic code (insertion, table
//! allocation, hashing) is instantiated in each crate and placed among that crate's other code,
//! a page fault on the binary for each copy a hit reaches. Every method here lies in the hit
//! path's linker section (`jit::cache` docs, "Hit path"). The maps hold tens to hundreds of
//! names, are built once and then read: bisection costs no more than hashing a name would, and
//! building by insertion moves at most a few thousand entries.

use std::borrow::Borrow;
use std::cmp::Ordering;

/// Names (unique) and their values, in name order.
#[derive(Clone, PartialEq, Eq)]
pub struct NameMap<V> {
    entries: Vec<(String, V)>,
}

impl<V> Default for NameMap<V> {
    fn default() -> NameMap<V> {
        NameMap::new()
    }
}

impl<V: std::fmt::Debug> std::fmt::Debug for NameMap<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V> NameMap<V> {
    /// An empty map.
    pub const fn new() -> NameMap<V> {
        NameMap {
            entries: Vec::new(),
        }
    }

    /// An empty map with room for `n` names.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn with_capacity(n: usize) -> NameMap<V> {
        NameMap {
            entries: crate::hit::vec_with_capacity(n),
        }
    }

    /// Where `name` is (`Ok`), or where it would go (`Err`).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn find(&self, name: &str) -> Result<usize, usize> {
        // By hand rather than `binary_search_by`, whose generic code would lie outside the
        // section.
        let (mut lo, mut hi) = (0, self.entries.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.entries[mid].0.as_bytes().cmp(name.as_bytes()) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    /// Sets `name` to `value`; the value it had, if any.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn insert(&mut self, name: String, value: V) -> Option<V> {
        match self.find(&name) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.insert_at(i, (name, value));
                None
            }
        }
    }

    /// Sets `name` to `value` unless it has a value already; whether it was set.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn insert_if_absent(&mut self, name: String, value: V) -> bool {
        match self.find(&name) {
            Ok(_) => false,
            Err(i) => {
                self.insert_at(i, (name, value));
                true
            }
        }
    }

    /// `Vec::insert`, with the growth in the section.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn insert_at(&mut self, i: usize, entry: (String, V)) {
        let len = self.entries.len();
        if len == self.entries.capacity() {
            let mut grown = crate::hit::vec_with_capacity((2 * len).max(4));
            // SAFETY: `grown` has room for more than `len` entries; the entries move bitwise
            // into it and `self.entries` forgets them (length 0) before it is dropped, so each
            // is owned exactly once.
            unsafe {
                std::ptr::copy_nonoverlapping(self.entries.as_ptr(), grown.as_mut_ptr(), len);
                grown.set_len(len);
                self.entries.set_len(0);
            }
            self.entries = grown;
        }
        // SAFETY: `i <= len` (a `find` result) and there is room for one more entry: the tail
        // moves up by one (`copy` allows the overlap), and the write fills the gap it leaves.
        unsafe {
            let p = self.entries.as_mut_ptr();
            std::ptr::copy(p.add(i), p.add(i + 1), len - i);
            std::ptr::write(p.add(i), entry);
            self.entries.set_len(len + 1);
        }
    }

    /// The value of `name`.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn get<Q: Borrow<str> + ?Sized>(&self, name: &Q) -> Option<&V> {
        match self.find(name.borrow()) {
            Ok(i) => Some(&self.entries[i].1),
            Err(_) => None,
        }
    }

    /// Whether `name` has a value.
    pub fn contains_key<Q: Borrow<str> + ?Sized>(&self, name: &Q) -> bool {
        self.find(name.borrow()).is_ok()
    }

    /// Removes `name`; the value it had.
    pub fn remove<Q: Borrow<str> + ?Sized>(&mut self, name: &Q) -> Option<V> {
        let i = self.find(name.borrow()).ok()?;
        Some(self.entries.remove(i).1)
    }

    /// The number of names.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no names.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The names and their values, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values, in name order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }
}

impl<V> FromIterator<(String, V)> for NameMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> NameMap<V> {
        let mut map = NameMap::new();
        map.extend(iter);
        map
    }
}

impl<V> Extend<(String, V)> for NameMap<V> {
    fn extend<I: IntoIterator<Item = (String, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The same operations on a `NameMap` and a `BTreeMap` give the same answers.
    #[test]
    fn behaves_as_an_ordered_map() {
        let mut ours = NameMap::with_capacity(1);
        let mut model = BTreeMap::new();
        // Every insertion position (front, back, middle), replacements and growth.
        let names = [
            "m", "a", "z", "f", "a", "q", "", "zz", "m", "b", "y", "c", "ab", "f",
        ];
        for (i, n) in names.iter().enumerate() {
            assert_eq!(
                ours.insert(n.to_string(), i),
                model.insert(n.to_string(), i),
                "{n}"
            );
            assert_eq!(ours.len(), model.len());
        }
        assert!(!ours.insert_if_absent("m".into(), 99));
        assert!(ours.insert_if_absent("n".into(), 99));
        model.entry("n".to_string()).or_insert(99);
        for n in names.iter().chain(&["n", "nope", "zzz", "0"]) {
            assert_eq!(ours.get(*n), model.get(*n), "{n}");
            assert_eq!(ours.contains_key(*n), model.contains_key(*n));
        }
        let listed: Vec<(&String, &usize)> = ours.iter().collect();
        assert_eq!(listed, model.iter().collect::<Vec<_>>());
        assert_eq!(ours.remove("f"), model.remove("f"));
        assert_eq!(ours.remove("f"), None);
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            model.keys().collect::<Vec<_>>()
        );
        assert_eq!(format!("{ours:?}"), format!("{model:?}"));
        let collected: NameMap<usize> = model.clone().into_iter().collect();
        assert_eq!(collected, ours);
        assert!(NameMap::<u8>::new().is_empty());
    }
}
