//! The one place compiled Relax functions meet Cranelift: declaring and defining their native
//! code in a [`crate::code::CodeBuilder`], and keeping the resulting [`CodeMemory`] alive while
//! any function uses it.
//!
//! Generated code calls out only through pointers it is handed (the helper table, the kernel
//! entries in the call context), never through relocations to absolute addresses, so the
//! functions of a module form one position-independent [`CodeBlob`]: what the artifact cache
//! stores, and what [`CompiledCode::from_blob`] maps again without compiling.

use std::sync::Arc;

use cranelift_codegen::Context;
use cranelift_codegen::ir::{AbiParam, Signature, types};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_module::{FuncId, Linkage, Module};

use crate::code::{CodeBlob, CodeMemory};
use crate::error::{Error, Result};
use crate::vmtir::runtime::{CallCtx, VmtirRuntime};

/// The native ABI of a compiled Relax function:
/// `extern "C" fn(ctx: *mut CallCtx, regs: *mut Value, rt: *const VmtirRuntime) -> i32`,
/// returning a `runtime::STATUS_*` code.
pub type NativeFn = unsafe extern "C" fn(*mut CallCtx, *mut vm::Value, *const VmtirRuntime) -> i32;

/// The symbol of the compiled Relax function `name` (TVM's `__vmtir__` prefix).
// On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn symbol(name: &str) -> String {
    // By hand rather than `format!`, whose machinery a cache hit would otherwise page in.
    const PREFIX: &str = "__vmtir__";
    let mut s = vm::hit::vec_with_capacity(PREFIX.len() + name.len());
    s.extend_from_slice(PREFIX.as_bytes());
    s.extend_from_slice(name.as_bytes());
    // SAFETY: the bytes are those of two `str`s, one after the other.
    unsafe { String::from_utf8_unchecked(s) }
}

/// A module being built: functions are declared and defined, then [`CodeBuilder::finish`]
/// lays them out in one blob and makes it executable.
pub struct CodeBuilder {
    module: crate::code::CodeBuilder,
    pub ctx: Context,
    pub fctx: FunctionBuilderContext,
    /// Defined functions: symbol and id.
    pending: Vec<(String, FuncId)>,
}

impl CodeBuilder {
    /// A builder for the host. The code of compiled functions is a sequence of calls and
    /// branches with nothing to optimize, so Cranelift's optimizer is off: it would only add
    /// compile time. A function of more than `max_instructions` Cranelift instructions is not
    /// defined ([`Error::TooLarge`]).
    pub fn new(max_instructions: usize) -> Result<CodeBuilder> {
        let isa = crate::isa::host_isa_with(&[
            ("opt_level", "none"),
            ("regalloc_algorithm", "single_pass"),
        ])?;
        let module = crate::code::CodeBuilder::new(isa).with_max_instructions(max_instructions);
        let ctx = module.make_context();
        Ok(CodeBuilder {
            module,
            ctx,
            fctx: FunctionBuilderContext::new(),
            pending: Vec::new(),
        })
    }

    pub fn target_config(&self) -> cranelift_codegen::isa::TargetFrontendConfig {
        self.module.target_config()
    }

    pub fn call_conv(&self) -> CallConv {
        self.module.isa().default_call_conv()
    }

    /// The signature of [`NativeFn`].
    pub fn native_signature(&self) -> Signature {
        let mut sig = self.module.make_signature();
        sig.params.extend([AbiParam::new(types::I64); 3]);
        sig.returns.push(AbiParam::new(types::I32));
        sig
    }

    /// Defines the function now in `self.ctx` as the compiled Relax function `name`
    /// ([`symbol`]); returns its index for [`CompiledCode::get`]. The context is cleared
    /// whether or not Cranelift accepts the function, or the budget does.
    pub fn define(&mut self, name: &str) -> Result<usize> {
        let sig = self.ctx.func.signature.clone();
        let symbol = symbol(name);
        if let Err(e) = self.module.check_size(&symbol, &self.ctx.func) {
            self.module.clear_context(&mut self.ctx);
            return Err(e);
        }
        let id = self.module.declare_function(&symbol, Linkage::Export, &sig);
        let defined = id.map_err(Error::from).and_then(|id| {
            self.module
                .define_function(id, &mut self.ctx)
                .map(|_| id)
                .map_err(|e| Error::Codegen(format!("{e:?}")))
        });
        self.module.clear_context(&mut self.ctx);
        self.pending.push((symbol, defined?));
        Ok(self.pending.len() - 1)
    }

    /// Clears a function abandoned half-way.
    pub fn discard(&mut self) {
        self.module.clear_context(&mut self.ctx);
    }

    /// Lays out every defined function and maps the code executable.
    pub fn finish(self) -> Result<CompiledCode> {
        let blob = self.module.finish()?;
        let symbols: Vec<String> = self.pending.into_iter().map(|(s, _)| s).collect();
        CompiledCode::from_blob(blob, &symbols)
    }
}

/// Native code of compiled Relax functions; unmapped when the last user drops it.
pub struct CompiledCode {
    entries: Vec<NativeFn>,
    memory: Arc<CodeMemory>,
}

impl CompiledCode {
    /// Maps `blob` and looks up `symbols` (each one a function defined by a
    /// [`CodeBuilder`] for this host and this relaxjit build, as a cache entry checked against
    /// both holds); entry `i` of the result is `symbols[i]`.
    pub fn from_blob(blob: CodeBlob, symbols: &[String]) -> Result<CompiledCode> {
        CompiledCode::from_memory(CodeMemory::new(blob)?, symbols)
    }

    /// [`CompiledCode::from_blob`] over code already mapped.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn from_memory(memory: Arc<CodeMemory>, symbols: &[String]) -> Result<CompiledCode> {
        // A loop rather than an iterator collected into a `Result`, whose generic code would
        // lie outside the artifact cache's hit-path section.
        let mut entries = vm::hit::vec_with_capacity(symbols.len());
        for s in symbols {
            let Some(p) = memory.address(s) else {
                return Err(Error::Module(format!("no code for `{s}`")));
            };
            // SAFETY: every symbol of a compiled-mode blob is a function that
            // `CodeBuilder::define` defined with `native_signature`, the ABI of `NativeFn` in
            // the ISA's default calling convention; the memory lives as long as `self`, which
            // holds it.
            entries.push(unsafe { std::mem::transmute::<*const u8, NativeFn>(p) });
        }
        Ok(CompiledCode { entries, memory })
    }

    /// The entry of the function defined as `index`.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn get(&self, index: usize) -> NativeFn {
        self.entries[index]
    }

    /// The code as a blob, with a symbol per function (what the artifact cache stores).
    pub fn blob(&self) -> CodeBlob {
        self.memory.to_blob()
    }
}
