//! AttachGlobalSymbol: gives every function of the module a global symbol, its name in the
//! module, so that codegen and the linker can name it (TVM attaches `global_symbol`; here a
//! function without the attribute is public under its name, so the pass clears `private`).

use crate::Result;
use crate::ir::{BaseFunc, IRModule};

pub fn attach_global_symbol(module: &IRModule) -> Result<IRModule> {
    let mut out = module.clone();
    for f in out.functions.values_mut() {
        match f {
            BaseFunc::Relax(f) => f.private = false,
            BaseFunc::Tir(f) => f.private = false,
            BaseFunc::Extern(_) => {}
        }
    }
    Ok(out)
}
