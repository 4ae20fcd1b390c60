//! The memory and VM builtins that TVMScript spells like operators (`R.vm.alloc_storage`,
//! `R.memory.alloc_tensor`, `R.shape_of`, `R.null_value`, …), described with the registry's
//! parameter lists like the registry's so that the reader and printer bind them like any operator.
//!
//! The registry in [`crate::op`] is consulted first; these definitions only fill in the names it
//! does not have, with TVM 0.27's parameter lists and defaults.

use tir::DataType;

use crate::ir::AttrValue;
use crate::op::{self, OpParam, ParamKind};

/// An operator's spelling and parameters, from the registry or from [`BUILTINS`].
#[derive(Clone, Copy)]
pub(crate) struct OpView {
    pub name: &'static str,
    pub script_name: &'static str,
    pub params: &'static [OpParam],
    /// The registry's definition, if the operator comes from there.
    pub def: Option<&'static op::OpDef>,
}

/// A builtin the registry may not have.
struct Builtin {
    name: &'static str,
    script_name: &'static str,
    params: &'static [OpParam],
}

impl Builtin {
    fn view(&'static self) -> OpView {
        OpView {
            name: self.name,
            script_name: self.script_name,
            params: self.params,
            def: None,
        }
    }
}

fn from_registry(d: &'static op::OpDef) -> OpView {
    OpView {
        name: d.name,
        script_name: d.script_name,
        params: d.params,
        def: Some(d),
    }
}

/// The definition of the operator spelled `script_name`: the registry's, else a builtin.
pub(crate) fn lookup_script(script_name: &str) -> Option<OpView> {
    op::lookup_script(script_name)
        .map(from_registry)
        .or_else(|| {
            BUILTINS
                .iter()
                .find(|d| d.script_name == script_name)
                .map(Builtin::view)
        })
}

/// The definition of the operator registered as `name`: the registry's, else a builtin.
pub(crate) fn lookup(name: &str) -> Option<OpView> {
    op::lookup(name)
        .map(from_registry)
        .or_else(|| BUILTINS.iter().find(|d| d.name == name).map(Builtin::view))
}

const fn expr(name: &'static str) -> OpParam {
    OpParam {
        name,
        kind: ParamKind::Expr,
        default: None,
    }
}

const fn expr_or(name: &'static str, default: fn() -> AttrValue) -> OpParam {
    OpParam {
        name,
        kind: ParamKind::Expr,
        default: Some(default),
    }
}

fn zero() -> AttrValue {
    AttrValue::Int(0)
}
fn global() -> AttrValue {
    AttrValue::Str("global".into())
}
fn uint8() -> AttrValue {
    AttrValue::DType(DataType::UINT8)
}

static BUILTINS: &[Builtin] = &[
    Builtin {
        name: "relax.null_value",
        script_name: "R.null_value",
        params: &[],
    },
    Builtin {
        name: "relax.shape_of",
        script_name: "R.shape_of",
        params: &[expr("expr")],
    },
    Builtin {
        name: "relax.vm.alloc_storage",
        script_name: "R.vm.alloc_storage",
        params: &[
            expr("size"),
            expr_or("runtime_device_index", zero),
            expr_or("dtype", uint8),
            expr_or("storage_scope", global),
        ],
    },
    Builtin {
        name: "relax.vm.alloc_tensor",
        script_name: "R.vm.alloc_tensor",
        params: &[
            expr("storage"),
            expr("offset"),
            expr("shape"),
            expr("dtype"),
            expr_or("runtime_device_index", zero),
        ],
    },
    Builtin {
        name: "relax.vm.kill_object",
        script_name: "R.vm.kill_object",
        params: &[expr("obj")],
    },
    Builtin {
        name: "relax.memory.alloc_storage",
        script_name: "R.memory.alloc_storage",
        params: &[
            expr("size"),
            expr_or("virtual_device_index", zero),
            expr_or("storage_scope", global),
            expr("dtype"),
        ],
    },
    Builtin {
        name: "relax.memory.alloc_tensor",
        script_name: "R.memory.alloc_tensor",
        params: &[
            expr("storage"),
            expr("offset"),
            expr("shape"),
            expr("dtype"),
        ],
    },
    Builtin {
        name: "relax.memory.kill_storage",
        script_name: "R.memory.kill_storage",
        params: &[expr("storage")],
    },
    Builtin {
        name: "relax.memory.kill_tensor",
        script_name: "R.memory.kill_tensor",
        params: &[expr("tensor")],
    },
    Builtin {
        name: "relax.builtin.alloc_tensor",
        script_name: "R.builtin.alloc_tensor",
        params: &[
            expr("shape"),
            expr("dtype"),
            expr("runtime_device_index"),
            expr_or("storage_scope", global),
        ],
    },
];
