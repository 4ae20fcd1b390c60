//! `PackedFunc` — a type-erased callable over `&[Value]` — and the process-wide registry of
//! global functions by TVM name (`vm.builtin.match_shape`, a kernel's global symbol, …).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

use crate::{Error, Result, Value};

type Callable = dyn Fn(&[Value]) -> Result<Value> + Send + Sync;

struct PackedInner {
    name: String,
    f: Box<Callable>,
}

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
            f: Box::new(f),
        }))
    }

    #[inline]
    pub fn call(&self, args: &[Value]) -> Result<Value> {
        (self.0.f)(args)
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
