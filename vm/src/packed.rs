//! `PackedFunc` — a type-erased callable over `&[Value]` — and the process-wide registry of
//! global functions by TVM name (`vm.builtin.match_shape`, a kernel's global symbol, …).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, RwLock};

use crate::{Error, Result, Value};

type Callable = dyn Fn(&[Value]) -> Result<Value> + Send + Sync;
type BorrowingCallable = dyn Fn(&[&Value]) -> Result<Value> + Send + Sync;

enum Body {
    Values(Box<Callable>),
    Borrowing(Box<BorrowingCallable>),
}

struct PackedInner {
    name: String,
    f: Body,
}

/// Arguments up to this many are gathered on the stack for a borrowing function.
const INLINE_REFS: usize = 8;

/// A callable taking positional [`Value`]s (TVM's `ffi::Function`). Cheap to clone.
#[derive(Clone)]
pub struct PackedFunc(Arc<PackedInner>);

impl PackedFunc {
    /// Wraps a closure; `name` is used in error messages and listings.
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn new(
        name: impl Into<String>,
        f: impl Fn(&[Value]) -> Result<Value> + Send + Sync + 'static,
    ) -> PackedFunc {
        PackedFunc(Arc::new(PackedInner {
            name: name.into(),
            f: Body::Values(Box::new(f)),
        }))
    }

    /// Wraps a closure that takes its arguments as references, so that a caller whose values
    /// live elsewhere (the VM's registers) hands them over without moving or cloning them
    /// ([`call_borrowed`](Self::call_borrowed)), as TVM passes borrowed views.
    pub fn new_borrowing(
        name: impl Into<String>,
        f: impl Fn(&[&Value]) -> Result<Value> + Send + Sync + 'static,
    ) -> PackedFunc {
        PackedFunc(Arc::new(PackedInner {
            name: name.into(),
            f: Body::Borrowing(Box::new(f)),
        }))
    }

    #[inline]
    pub fn call(&self, args: &[Value]) -> Result<Value> {
        match &self.0.f {
            Body::Values(f) => f(args),
            Body::Borrowing(f) => match args {
                [] => f(&[]),
                [first, ..] if args.len() <= INLINE_REFS => {
                    let mut refs = [first; INLINE_REFS];
                    for (r, a) in refs.iter_mut().zip(args) {
                        *r = a;
                    }
                    f(&refs[..args.len()])
                }
                _ => f(&args.iter().collect::<Vec<_>>()),
            },
        }
    }

    /// Whether the function takes its arguments as references ([`new_borrowing`](Self::new_borrowing)).
    #[inline]
    pub fn is_borrowing(&self) -> bool {
        matches!(self.0.f, Body::Borrowing(_))
    }

    /// Calls the function on borrowed arguments: directly for a borrowing function, through
    /// clones for the others.
    #[inline]
    pub fn call_borrowed(&self, args: &[&Value]) -> Result<Value> {
        match &self.0.f {
            Body::Borrowing(f) => f(args),
            Body::Values(f) => f(&args.iter().map(|&v| v.clone()).collect::<Vec<_>>()),
        }
    }

    pub fn name(&self) -> &str {
        &self.0.name
    }

    pub fn ptr_eq(&self, other: &PackedFunc) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for PackedFunc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PackedFunc({})", self.name())
    }
}

/// The global function registry (`tvm.ffi.register_func` / `get_global_func`).
///
/// It holds the `vm.builtin.*` library from the start, each builtin's function made on its
/// first lookup (`crate::builtin::builtin`), and whatever is registered or removed over it.
pub struct Registry {
    /// Names registered (`Some`) or removed (`None`) since the process started; every other
    /// name is a builtin or unknown. Created on the first change.
    changes: RwLock<Option<HashMap<String, Option<PackedFunc>>>>,
}

static REGISTRY: Registry = Registry {
    changes: RwLock::new(None),
};

impl Registry {
    /// The process-wide registry.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn global() -> &'static Registry {
        &REGISTRY
    }

    /// Runs `f` on the changes, under the write lock.
    fn change<T>(&self, f: impl FnOnce(&mut HashMap<String, Option<PackedFunc>>) -> T) -> T {
        let mut changes = self.changes.write().unwrap_or_else(|e| e.into_inner());
        f(changes.get_or_insert_with(HashMap::new))
    }

    /// What `name` resolves to in `changes`, else among the builtins.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn resolve(
        changes: Option<&HashMap<String, Option<PackedFunc>>>,
        name: &str,
    ) -> Option<PackedFunc> {
        match changes.and_then(|c| c.get(name)) {
            Some(changed) => changed.clone(),
            None => crate::builtin::builtin(name),
        }
    }

    /// Registers `f` under `name`. Without `allow_override`, an existing name is an error.
    pub fn register(&self, name: &str, f: PackedFunc, allow_override: bool) -> Result<()> {
        self.change(|changes| {
            if !allow_override && Registry::resolve(Some(changes), name).is_some() {
                return Err(Error::value_error(format!(
                    "Global Function `{name}` is already registered"
                )));
            }
            changes.insert(name.to_string(), Some(f));
            Ok(())
        })
    }

    /// Registers a closure under `name`, replacing any previous function of that name.
    pub fn register_fn(
        &self,
        name: &str,
        f: impl Fn(&[Value]) -> Result<Value> + Send + Sync + 'static,
    ) {
        let f = PackedFunc::new(name, f);
        self.change(|changes| changes.insert(name.to_string(), Some(f)));
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn get(&self, name: &str) -> Option<PackedFunc> {
        let changes = self.changes.read().unwrap_or_else(|e| e.into_inner());
        Registry::resolve(changes.as_ref(), name)
    }

    pub fn remove(&self, name: &str) -> Option<PackedFunc> {
        self.change(|changes| {
            let was = Registry::resolve(Some(changes), name);
            if was.is_some() {
                changes.insert(name.to_string(), None);
            }
            was
        })
    }

    /// All registered names, sorted.
    pub fn list(&self) -> Vec<String> {
        let changes = self.changes.read().unwrap_or_else(|e| e.into_inner());
        let changed = |name: &str| changes.as_ref().is_some_and(|c| c.contains_key(name));
        let mut names: Vec<String> = crate::builtin::BUILTINS
            .iter()
            .filter(|(name, _)| !changed(name))
            .map(|(name, _)| name.to_string())
            .chain(
                changes
                    .iter()
                    .flatten()
                    .filter_map(|(name, f)| f.as_ref().map(|_| name.clone())),
            )
            .collect();
        names.sort();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The builtins are there from the start, one object each; registering over one replaces
    /// it (only with `allow_override`), removing hides it, and `list` follows both. A private
    /// registry, so that the global one's users in other tests see no change.
    #[test]
    fn the_registry_holds_the_builtins_and_what_changes_over_them() {
        let r = Registry {
            changes: RwLock::new(None),
        };
        let name = "vm.builtin.make_tuple";
        let builtin = r.get(name).unwrap();
        assert!(
            builtin.ptr_eq(&r.get(name).unwrap()),
            "one object per builtin"
        );
        assert!(builtin.ptr_eq(&Registry::global().get(name).unwrap()));
        assert_eq!(r.list().len(), crate::builtin::BUILTINS.len());
        assert!(r.list().iter().any(|n| n == name));

        let mine = PackedFunc::new(name, |_: &[Value]| Ok(Value::Int(7)));
        assert!(r.register(name, mine.clone(), false).is_err());
        r.register(name, mine.clone(), true).unwrap();
        assert!(r.get(name).unwrap().ptr_eq(&mine));
        assert!(r.remove(name).unwrap().ptr_eq(&mine));
        assert!(r.get(name).is_none());
        assert!(r.remove(name).is_none());
        assert!(!r.list().iter().any(|n| n == name));
        r.register(name, mine.clone(), false).unwrap();
        assert!(r.get(name).unwrap().ptr_eq(&mine));

        assert!(r.get("my.func").is_none());
        r.register_fn("my.func", |_| Ok(Value::Int(1)));
        assert!(r.list().iter().any(|n| n == "my.func"));
        assert_eq!(r.list().len(), crate::builtin::BUILTINS.len() + 1);
    }

    /// Both kinds of function answer both kinds of call with the same arguments, in order, for
    /// any count (the borrowing kind gathers up to `INLINE_REFS` on the stack, more on the heap).
    #[test]
    fn borrowing_and_value_functions_take_both_calls() {
        let sum = |args: &mut dyn Iterator<Item = &Value>| -> Result<Value> {
            let mut s = 0;
            for (i, a) in args.enumerate() {
                s += a.as_int()? * (i as i64 + 1);
            }
            Ok(Value::Int(s))
        };
        let by_value = PackedFunc::new("v", move |a: &[Value]| sum(&mut a.iter()));
        let borrowing =
            PackedFunc::new_borrowing("b", move |a: &[&Value]| sum(&mut a.iter().copied()));
        assert!(borrowing.is_borrowing() && !by_value.is_borrowing());
        for n in [0, 1, 3, INLINE_REFS, INLINE_REFS + 3] {
            let args: Vec<Value> = (0..n as i64).map(|i| Value::Int(10 + i)).collect();
            let refs: Vec<&Value> = args.iter().collect();
            let want: i64 = (0..n as i64).map(|i| (10 + i) * (i + 1)).sum();
            for f in [&by_value, &borrowing] {
                assert_eq!(f.call(&args).unwrap().as_int().unwrap(), want, "{n}");
                assert_eq!(
                    f.call_borrowed(&refs).unwrap().as_int().unwrap(),
                    want,
                    "{n}"
                );
            }
        }
    }
}
