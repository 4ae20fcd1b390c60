//! The one place compiled Relax functions meet a Cranelift module: declaring, defining and
//! finalizing their native code, and keeping that memory alive while any function uses it.
//!
//! Generated code calls out only through pointers it is handed (the helper table, the kernel
//! entries in the call context), never through relocations to absolute addresses, so this
//! holder can be replaced by a position-independent code blob without touching the translator.

use cranelift_codegen::Context;
use cranelift_codegen::ir::{AbiParam, Signature, types};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Module, default_libcall_names};

use crate::error::{Error, Result};
use crate::vmtir::runtime::{CallCtx, VmtirRuntime};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};

/// The native ABI of a compiled Relax function:
/// `extern "C" fn(ctx: *mut CallCtx, regs: *mut Value, rt: *const VmtirRuntime) -> i32`,
/// returning a `runtime::STATUS_*` code.
pub type NativeFn = unsafe extern "C" fn(*mut CallCtx, *mut vm::Value, *const VmtirRuntime) -> i32;

/// The host ISA for compiled Relax functions. Their code is a sequence of calls and branches
/// with nothing to optimize, so Cranelift's optimizer is off: it would only add compile time.
fn vmtir_isa() -> Result<OwnedTargetIsa> {
    let mut flags = settings::builder();
    flags.set("opt_level", "none")?;
    flags.set("regalloc_algorithm", "single_pass")?;
    flags.set(
        "enable_verifier",
        if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        },
    )?;
    flags.set("is_pic", "false")?;
    flags.set("use_colocated_libcalls", "false")?;
    let isa_builder = cranelift_native::builder().map_err(|msg| Error::Unsupported(msg.into()))?;
    Ok(isa_builder.finish(settings::Flags::new(flags))?)
}

/// A module being built: functions are declared and defined, then [`CodeBuilder::finish`]
/// makes them executable.
pub struct CodeBuilder {
    module: JITModule,
    pub ctx: Context,
    pub fctx: FunctionBuilderContext,
    pending: Vec<FuncId>,
}

impl CodeBuilder {
    pub fn new() -> Result<CodeBuilder> {
        let isa = vmtir_isa()?;
        let module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
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

    /// Defines the function now in `self.ctx`; returns its index for [`CompiledCode::get`].
    /// The context is cleared whether or not Cranelift accepts the function.
    pub fn define(&mut self) -> Result<usize> {
        let sig = self.ctx.func.signature.clone();
        let id = self.module.declare_anonymous_function(&sig);
        let defined = id.map_err(Error::from).and_then(|id| {
            self.module
                .define_function(id, &mut self.ctx)
                .map(|_| id)
                .map_err(|e| Error::Codegen(format!("{e:?}")))
        });
        self.module.clear_context(&mut self.ctx);
        self.pending.push(defined?);
        Ok(self.pending.len() - 1)
    }

    /// Clears a function abandoned half-way.
    pub fn discard(&mut self) {
        self.module.clear_context(&mut self.ctx);
    }

    /// Finalizes every defined function.
    pub fn finish(mut self) -> Result<CompiledCode> {
        self.module.finalize_definitions()?;
        let entries = self
            .pending
            .iter()
            .map(|&id| {
                let p = self.module.get_finalized_function(id);
                // SAFETY: every pending function was defined with `native_signature`, the ABI
                // of `NativeFn` in the ISA's default calling convention; the memory lives as
                // long as the returned `CompiledCode`, which owns the module.
                unsafe { std::mem::transmute::<*const u8, NativeFn>(p) }
            })
            .collect();
        Ok(CompiledCode {
            entries,
            module: Some(self.module),
        })
    }
}

/// Finalized native code of compiled Relax functions; freed on drop.
pub struct CompiledCode {
    entries: Vec<NativeFn>,
    module: Option<JITModule>,
}

// SAFETY: after finalization the module is never mutated again; it only keeps the executable
// memory alive until drop. The code is immutable and reentrant.
unsafe impl Send for CompiledCode {}
// SAFETY: as above; shared references give access to the entry points only.
unsafe impl Sync for CompiledCode {}

impl CompiledCode {
    /// The entry of the function defined as `index`.
    pub fn get(&self, index: usize) -> NativeFn {
        self.entries[index]
    }
}

impl Drop for CompiledCode {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: entry points are used only through an `Arc<CompiledCode>` held by each
            // linked function; we are the last owner, so no pointer is used again.
            unsafe { m.free_memory() };
        }
    }
}
