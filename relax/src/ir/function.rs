//! [`Function`] and [`IRModule`]: Relax functions and the module that holds them beside TIR
//! PrimFuncs.

use std::collections::BTreeMap;

use crate::ir::{Attrs, SeqExpr, StructInfo, Var};

/// A Relax function (`@R.function def name(params) -> ret: body`).
#[derive(Clone, Debug)]
pub struct Function {
    /// The name under which it was written (`def name`); the module key for global functions.
    pub name: String,
    pub params: Vec<Var>,
    pub body: SeqExpr,
    pub ret_struct_info: StructInfo,
    /// `pure=False` in the decorator makes a function impure.
    pub is_pure: bool,
    /// `@R.function(private=True)`.
    pub private: bool,
    /// `R.func_attr({...})`.
    pub attrs: Attrs,
}

impl Function {
    /// The struct info of the function as a value.
    pub fn struct_info(&self) -> StructInfo {
        StructInfo::Func {
            params: Some(
                self.params
                    .iter()
                    .map(|p| p.struct_info().clone())
                    .collect(),
            ),
            ret: Box::new(self.ret_struct_info.clone()),
            pure: self.is_pure,
        }
    }
}

/// A function the module declares but does not define (`name = R.ExternFunc("symbol")` in the
/// module class, TVM's `relax.ExternFunc`): a call of it calls the VM's packed function
/// `global_symbol`, found when the executable is loaded.
#[derive(Clone, Debug)]
pub struct ExternFunc {
    /// The packed function's name.
    pub global_symbol: String,
    /// Its type: `R.Callable(...)` as written, else TVM's default, an opaque impure function
    /// of any result.
    pub struct_info: StructInfo,
}

impl ExternFunc {
    /// The struct info of an extern function declared without one.
    pub fn default_struct_info() -> StructInfo {
        StructInfo::Func {
            params: None,
            ret: Box::new(StructInfo::Any),
            pure: false,
        }
    }
}

/// A module function: Relax, TIR, or an extern declaration.
#[derive(Clone, Debug)]
pub enum BaseFunc {
    Relax(Function),
    Tir(tir::PrimFunc),
    Extern(ExternFunc),
}

/// A module of global functions by name (sorted, which is also TVM's printing order within each
/// kind), with module attributes.
#[derive(Clone, Debug, Default)]
pub struct IRModule {
    pub functions: BTreeMap<String, BaseFunc>,
    pub attrs: Attrs,
    /// `I.module_global_infos({...})`: named lists of global infos, in the order written.
    pub global_infos: Vec<(String, Vec<VDevice>)>,
}

/// A virtual device, `I.vdevice(target, vdevice_id, memory_scope)` in
/// `I.module_global_infos({"vdevice": [...]})`: where TVM places tensors annotated
/// `vdevice="<kind>:<index>"`. relaxjit keeps and prints them, and runs every tensor on the
/// host whatever its device.
#[derive(Clone, Debug)]
pub struct VDevice {
    /// The target as a dict (`{"kind": "cuda", "arch": "sm_86", …}`; a target written as a
    /// string, `"llvm"`, is `{"kind": "llvm"}`).
    pub target: Attrs,
    pub vdevice_id: i64,
    pub memory_scope: String,
}

impl IRModule {
    pub fn new() -> IRModule {
        IRModule::default()
    }
    pub fn add(&mut self, name: impl Into<String>, f: BaseFunc) {
        self.functions.insert(name.into(), f);
    }
    pub fn get(&self, name: &str) -> Option<&BaseFunc> {
        self.functions.get(name)
    }
    pub fn relax_function(&self, name: &str) -> Option<&Function> {
        match self.functions.get(name) {
            Some(BaseFunc::Relax(f)) => Some(f),
            _ => None,
        }
    }
    pub fn prim_func(&self, name: &str) -> Option<&tir::PrimFunc> {
        match self.functions.get(name) {
            Some(BaseFunc::Tir(f)) => Some(f),
            _ => None,
        }
    }
    pub fn relax_functions(&self) -> impl Iterator<Item = (&String, &Function)> {
        self.functions.iter().filter_map(|(n, f)| match f {
            BaseFunc::Relax(f) => Some((n, f)),
            _ => None,
        })
    }
    pub fn prim_funcs(&self) -> impl Iterator<Item = (&String, &tir::PrimFunc)> {
        self.functions.iter().filter_map(|(n, f)| match f {
            BaseFunc::Tir(f) => Some((n, f)),
            _ => None,
        })
    }
}
