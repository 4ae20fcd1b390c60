//! [`Var`]: a named, typed TIR variable whose identity is a unique id, not its name.
//!
//! Two `Var`s with the same name are different variables (TVMScript renames them `v`, `v_1` when
//! printing); a clone is the same variable. Vars are shared, immutable `Arc`s like TVM's.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ir::DataType;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The identity of a [`Var`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u64);

/// A TIR variable: loop variables, block iteration variables, let-bound values, symbolic shape
/// variables, function parameters and buffer data pointers (`handle`).
#[derive(Clone)]
pub struct Var(Arc<VarNode>);

struct VarNode {
    id: VarId,
    name: String,
    dtype: DataType,
}

impl Var {
    /// A fresh variable, distinct from every other.
    pub fn new(name: impl Into<String>, dtype: DataType) -> Var {
        Var(Arc::new(VarNode {
            id: VarId(NEXT_ID.fetch_add(1, Ordering::Relaxed)),
            name: name.into(),
            dtype,
        }))
    }

    /// Its identity.
    pub fn id(&self) -> VarId {
        self.0.id
    }

    /// Its name hint (not necessarily unique).
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// Its type.
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }

    /// A fresh variable with the same name and type.
    pub fn fresh_copy(&self) -> Var {
        Var::new(self.name(), self.dtype())
    }
}

impl PartialEq for Var {
    fn eq(&self, other: &Var) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for Var {}

impl Hash for Var {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.id.hash(state);
    }
}

impl fmt::Debug for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}: {}", self.0.name, self.0.id.0, self.0.dtype)
    }
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.name)
    }
}
