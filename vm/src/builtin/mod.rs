//! The `vm.builtin.*` library: the packed functions that Relax codegen calls by name, with TVM's
//! names, argument conventions and error texts (`src/runtime/vm/builtin.cc`).
//!
//! Every builtin is a plain `fn(&[Value]) -> Result<Value>` listed in [`BUILTINS`], so that the
//! interpreter reaches it through the global registry and a JIT can also link it directly. Each
//! one validates its arguments: bytecode from a file or a builder is data, and a wrong argument is
//! an error naming the builtin and the argument, never a panic or an out-of-bounds access.
//!
//! Where TVM trusts its codegen and would crash or read garbage (a `match_shape` heap code with
//! no heap, a heap index past its end), these return an error instead.

mod call;
mod check;
mod data;
mod debug;
mod memory;
mod set;
mod shape;
mod vision;

use std::sync::OnceLock;

use crate::inline::InlineBuiltin;
use crate::packed::PackedFunc;
use crate::tensor::Tensor;
use crate::value::ShapeTuple;
use crate::vm::VmRef;
use crate::{DataType, Error, Result, Value};

pub use memory::alloc_storage_with;
pub use shape::{MakeShapeCode, MatchShapeCode};

/// The signature every builtin has.
pub type BuiltinFn = fn(&[Value]) -> Result<Value>;

/// Every builtin, by its TVM name.
pub const BUILTINS: &[(&str, BuiltinFn)] = &[
    // Shape and type machinery.
    ("vm.builtin.alloc_shape_heap", shape::alloc_shape_heap),
    ("vm.builtin.match_shape", shape::match_shape),
    ("vm.builtin.make_shape", shape::make_shape),
    ("vm.builtin.match_prim_value", shape::match_prim_value),
    ("vm.builtin.make_prim_value", shape::make_prim_value),
    ("vm.builtin.check_tensor_info", check::check_tensor_info),
    ("vm.builtin.check_shape_info", check::check_shape_info),
    (
        "vm.builtin.check_prim_value_info",
        check::check_prim_value_info,
    ),
    ("vm.builtin.check_tuple_info", check::check_tuple_info),
    ("vm.builtin.check_func_info", check::check_func_info),
    ("vm.builtin.check_string_info", check::check_string_info),
    // Storage and memory.
    ("vm.builtin.alloc_storage", memory::alloc_storage),
    ("vm.builtin.alloc_tensor", memory::alloc_tensor),
    (
        "vm.builtin.memory_manager.clear",
        memory::memory_manager_clear,
    ),
    ("vm.builtin.to_device", memory::to_device),
    ("vm.builtin.ensure_zero_offset", memory::ensure_zero_offset),
    ("runtime.TVMTensorCreateView", memory::tensor_create_view),
    // Closures and calls.
    ("vm.builtin.make_closure", call::make_closure),
    ("vm.builtin.invoke_closure", call::invoke_closure),
    ("vm.builtin.call_tir_dyn", call::call_tir_dyn),
    ("vm.builtin.invoke_debug_func", call::invoke_debug_func),
    ("vm.builtin.call_py_func", call::call_py_func),
    ("vm.builtin.register_py_func", call::register_py_func),
    ("vm.builtin.get_py_func", call::get_py_func),
    (
        "vm.builtin.clear_py_func_registry",
        call::clear_py_func_registry,
    ),
    // Data structures and misc.
    ("vm.builtin.copy", data::copy),
    ("vm.builtin.null_value", data::null_value),
    ("vm.builtin.make_tuple", data::make_tuple),
    ("vm.builtin.tuple_getitem", data::tuple_getitem),
    ("vm.builtin.tuple_reset_item", data::tuple_reset_item),
    ("vm.builtin.read_if_cond", data::read_if_cond),
    ("vm.builtin.shape_of", data::shape_of),
    ("vm.builtin.reshape", data::reshape),
    ("vm.builtin.tensor_to_shape", data::tensor_to_shape),
    ("relax.run.shape_to_tensor", data::shape_to_tensor),
    // What TVM's Python package registers for `R.nonzero` and `R.unique` (their `FCallPacked`).
    ("relax.run.nonzero", set::nonzero),
    ("relax.run.unique", set::unique),
    // The non-maximum suppressions `R.vision.*non_max_suppression` are legalized to.
    ("relax.run.non_max_suppression", vision::non_max_suppression),
    (
        "relax.run.all_class_non_max_suppression",
        vision::all_class_non_max_suppression,
    ),
    // What TVM's Python package registers for `R.print` and `R.assert_op`.
    ("relax.run.print", debug::print),
    ("relax.run.assert_op", debug::assert_op),
    // relaxjit's own: what TVM legalizes into a shape function, a match_cast and a kernel.
    (
        "relaxjit.dynamic_strided_slice",
        data::dynamic_strided_slice,
    ),
];

/// The function object of each builtin ([`BUILTINS`], same order), made the first time the
/// builtin is looked up: a process builds the few builtins its programs call rather than the
/// whole table, and each builtin has one object, by which the interpreter recognizes it.
static FUNCS: [OnceLock<PackedFunc>; BUILTINS.len()] = [const { OnceLock::new() }; BUILTINS.len()];

/// The function object of the builtin `name`; `None` if no builtin has that name. The global
/// registry ([`crate::packed::Registry`]) answers with it for a name nobody registered or
/// removed.
// On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub(crate) fn builtin(name: &str) -> Option<PackedFunc> {
    let i = BUILTINS.iter().position(|&(n, _)| n == name)?;
    let (name, f) = BUILTINS[i];
    Some(FUNCS[i].get_or_init(|| PackedFunc::new(name, f)).clone())
}

/// The function objects of the builtins the interpreter runs inline (see `inline.rs`). A
/// function resolved from the registry is one of these unless someone replaced the builtin, in
/// which case the interpreter calls the replacement like any packed function.
pub(crate) struct KnownBuiltins {
    pub(crate) null_value: Option<PackedFunc>,
    pub(crate) alloc_tensor: Option<PackedFunc>,
    pub(crate) alloc_storage: Option<PackedFunc>,
}

/// The builtins the interpreter runs inline.
pub(crate) fn known() -> Option<&'static KnownBuiltins> {
    static KNOWN: OnceLock<KnownBuiltins> = OnceLock::new();
    Some(KNOWN.get_or_init(|| KnownBuiltins {
        null_value: builtin(InlineBuiltin::NullValue.name()),
        alloc_tensor: builtin(InlineBuiltin::AllocTensor.name()),
        alloc_storage: builtin(InlineBuiltin::AllocStorage.name()),
    }))
}

/// The arguments of one builtin call, with accessors that turn a wrong argument into an error
/// naming the builtin, the position and the parameter.
#[derive(Clone, Copy)]
pub(crate) struct Args<'a> {
    name: &'static str,
    args: &'a [Value],
}

impl<'a> Args<'a> {
    pub(crate) fn new(name: &'static str, args: &'a [Value]) -> Args<'a> {
        Args { name, args }
    }

    pub(crate) fn len(&self) -> usize {
        self.args.len()
    }

    pub(crate) fn all(&self) -> &'a [Value] {
        self.args
    }

    /// Checks that there are between `min` and `max` arguments (inclusive).
    pub(crate) fn expect_len(&self, min: usize, max: usize, signature: &str) -> Result<()> {
        let n = self.args.len();
        if (min..=max).contains(&n) {
            return Ok(());
        }
        let expected = if min == max {
            format!("{min}")
        } else if max == usize::MAX {
            format!("at least {min}")
        } else {
            format!("{min} to {max}")
        };
        Err(Error::type_error(format!(
            "Mismatched number of arguments when calling: `{}{signature}`. Expected {expected} but got {n} arguments",
            self.name
        )))
    }

    /// Argument `i`, which the caller has already checked exists.
    pub(crate) fn get(&self, i: usize) -> &'a Value {
        &self.args[i]
    }

    fn mismatch(&self, i: usize, param: &str, expected: &str) -> Error {
        Error::type_error(format!(
            "Mismatched type on argument #{i} ({param}) when calling `{}`: expected {expected}, but got {}",
            self.name,
            self.args[i].type_name()
        ))
    }

    pub(crate) fn int(&self, i: usize, param: &str) -> Result<i64> {
        match &self.args[i] {
            Value::Int(v) => Ok(*v),
            Value::Bool(b) => Ok(*b as i64),
            _ => Err(self.mismatch(i, param, "int")),
        }
    }

    /// A non-negative int usable as a count or an index.
    pub(crate) fn usize(&self, i: usize, param: &str) -> Result<usize> {
        let v = self.int(i, param)?;
        usize::try_from(v).map_err(|_| {
            Error::value_error(format!(
                "{}: argument #{i} ({param}) must be non-negative, but got {v}",
                self.name
            ))
        })
    }

    pub(crate) fn tensor(&self, i: usize, param: &str) -> Result<&'a Tensor> {
        match &self.args[i] {
            Value::Tensor(t) => Ok(t),
            _ => Err(self.mismatch(i, param, "ffi.Tensor")),
        }
    }

    pub(crate) fn shape(&self, i: usize, param: &str) -> Result<&'a ShapeTuple> {
        match &self.args[i] {
            Value::Shape(s) => Ok(s),
            _ => Err(self.mismatch(i, param, "ffi.Shape")),
        }
    }

    pub(crate) fn str(&self, i: usize, param: &str) -> Result<&'a str> {
        match &self.args[i] {
            Value::Str(s) => Ok(s.as_str()),
            _ => Err(self.mismatch(i, param, "ffi.String")),
        }
    }

    /// An `Optional<String>`: None reads as the empty string. Out-of-range positions read as
    /// None too, for trailing optional parameters.
    pub(crate) fn opt_str(&self, i: usize, param: &str) -> Result<&'a str> {
        match self.args.get(i) {
            None | Some(Value::Null) => Ok(""),
            Some(Value::Str(s)) => Ok(s.as_str()),
            Some(_) => Err(self.mismatch(i, param, "Optional<ffi.String>")),
        }
    }

    /// A dtype, given as a `DataType` or as its string form (instrumented calls pass strings).
    pub(crate) fn dtype(&self, i: usize, param: &str) -> Result<DataType> {
        match &self.args[i] {
            v @ (Value::DType(_) | Value::Str(_)) => v.as_dtype().map_err(|e| {
                Error::value_error(format!(
                    "{}: argument #{i} ({param}): {}",
                    self.name,
                    e.message()
                ))
            }),
            _ => Err(self.mismatch(i, param, "DataType")),
        }
    }

    /// An `Optional<DataType>`.
    pub(crate) fn opt_dtype(&self, i: usize, param: &str) -> Result<Option<DataType>> {
        match &self.args[i] {
            Value::Null => Ok(None),
            _ => self.dtype(i, param).map(Some),
        }
    }

    /// The `%vm` context argument.
    pub(crate) fn vm(&self, i: usize) -> Result<&'a VmRef> {
        match &self.args[i] {
            Value::Vm(vm) => Ok(vm),
            _ => Err(self.mismatch(i, "ctx", "the VM context (%vm)")),
        }
    }
}

/// `err_ctx` followed by `msg`, as TVM's `err_ctx.value_or("") << " msg"` reads, without the
/// doubled space when the context ends in one.
pub(crate) fn with_ctx(err_ctx: &str, msg: impl std::fmt::Display) -> String {
    let ctx = err_ctx.trim_end();
    if ctx.is_empty() {
        msg.to_string()
    } else {
        format!("{ctx} {msg}")
    }
}
