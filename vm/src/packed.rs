//! `PackedFunc` — a type-erased callable over `&[Value]` — and the process-wide registry of
//! global functions by TVM name (`vm.builtin.match_shape`, a kernel's global symbol, …).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

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
/// The `vm.builtin.*` library is registered the first time the registry is touched.
pub struct Registry {
    funcs: RwLock<HashMap<String, PackedFunc>>,
}

static REGISTRY: OnceLock<Registry> = OnceLock::new();

impl Registry {
    /// The process-wide registry.
    pub fn global() -> &'static Registry {
        REGISTRY.get_or_init(|| {
            let registry = Registry {
                funcs: RwLock::new(HashMap::new()),
            };
            crate::builtin::register_all(&registry);
            registry
        })
    }

    /// Registers `f` under `name`. Without `allow_override`, an existing name is an error.
    pub fn register(&self, name: &str, f: PackedFunc, allow_override: bool) -> Result<()> {
        let mut funcs = self.funcs.write().unwrap_or_else(|e| e.into_inner());
        if !allow_override && funcs.contains_key(name) {
            return Err(Error::value_error(format!(
                "Global Function `{name}` is already registered"
            )));
        }
        funcs.insert(name.to_string(), f);
        Ok(())
    }

    /// Registers a closure under `name`, replacing any previous function of that name.
    pub fn register_fn(
        &self,
        name: &str,
        f: impl Fn(&[Value]) -> Result<Value> + Send + Sync + 'static,
    ) {
        let mut funcs = self.funcs.write().unwrap_or_else(|e| e.into_inner());
        funcs.insert(name.to_string(), PackedFunc::new(name, f));
    }

    pub fn get(&self, name: &str) -> Option<PackedFunc> {
        self.funcs
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned()
    }

    pub fn remove(&self, name: &str) -> Option<PackedFunc> {
        self.funcs
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(name)
    }

    /// All registered names, sorted.
    pub fn list(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .funcs
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .cloned()
            .collect();
        names.sort();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
