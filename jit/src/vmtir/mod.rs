//! Compiled exec mode (TVM's `exec_mode="compiled"`): every bytecode function of an
//! [`Executable`] translated by Cranelift into a native `__vmtir__<name>` that runs on the
//! register file, with the same results and the same errors as the interpreter.
//!
//! ```text
//! Executable (bytecode) ──translate──► CLIF per function ──code──► native code
//!   ──► VmtirModule { Executable with VMTIRFunc entries, one vm::VmTirFunc per function }
//! ```
//!
//! * [`translate`]: bytecode to CLIF, one block per instruction; Calls go through helpers,
//!   calls of JIT'd kernels straight to the kernel's entry.
//! * [`runtime`]: the helpers and the per-invocation context.
//! * [`code`]: the Cranelift module, kept in one place.
//!
//! A function the translator cannot compile stays bytecode (`VMFunc`) and is listed in
//! [`VmtirModule::fallbacks`]; compiling never fails because of one function.

pub mod code;
pub mod runtime;
pub mod translate;

use std::collections::HashMap;
use std::panic::resume_unwind;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cranelift_frontend::FunctionBuilder;
use vm::{Executable, FuncKind, Library, Value, VmRef, VmTirFunc};

use crate::error::Result;
use crate::kernel::abi::KernelFn;
use crate::kernel::{Kernel, KernelLibrary};
use code::{CodeBuilder, CompiledCode, NativeFn};
use runtime::{CallCtx, STATUS_ERROR, STATUS_OK, STATUS_PANIC, VmtirRuntime};

/// A function left to the interpreter, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fallback {
    pub function: String,
    pub reason: String,
}

/// The compiled functions of an executable.
#[derive(Clone)]
pub struct VmtirModule {
    /// The executable with every compiled function recorded as `VMTIRFunc`
    /// (`@f num_inputs=N vm_tir_func;` in `as_text()`); fallbacks stay `VMFunc`.
    pub executable: Executable,
    functions: Vec<(String, VmTirFunc)>,
    /// Functions that stay bytecode.
    pub fallbacks: Vec<Fallback>,
    /// Translation and code generation, all functions together.
    pub compile_time: Duration,
}

impl std::fmt::Debug for VmtirModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VmtirModule")
            .field(
                "compiled",
                &self.functions.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field("fallbacks", &self.fallbacks)
            .field("compile_time", &self.compile_time)
            .finish()
    }
}

impl VmtirModule {
    /// Names of the compiled functions.
    pub fn compiled(&self) -> impl Iterator<Item = &str> {
        self.functions.iter().map(|(n, _)| n.as_str())
    }

    /// Adds every compiled function to `lib` (what `Library::link` resolves `VMTIRFunc`s by).
    pub fn add_to(&self, lib: &mut Library) {
        for (name, f) in &self.functions {
            lib.add_vmtir(name, f.clone());
        }
    }
}

/// What every compiled function of one module shares.
struct Shared {
    code: CompiledCode,
    kernels: Vec<Kernel>,
    entries: Vec<KernelFn>,
    /// Argument words of every Call, addressed by generated code through `CallCtx::words`.
    words: Vec<i64>,
}

// SAFETY: `entries` are entry points of kernels whose code `kernels` keeps alive; they are
// plain function pointers to immutable, reentrant code.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

/// Compiles every bytecode function of `exec`; calls of the kernels in `kernels` go to their
/// native entries. `exec` must validate (the error is the validation's otherwise). A function
/// that cannot be translated, or a failure of code generation as a whole, leaves functions as
/// bytecode and lists them as fallbacks.
pub fn compile(exec: &Executable, kernels: &KernelLibrary) -> vm::Result<VmtirModule> {
    let start = Instant::now();
    exec.validate()?;
    let mut out = exec.clone();
    let candidates: Vec<usize> = exec
        .func_table
        .iter()
        .enumerate()
        .filter(|(_, f)| f.kind == FuncKind::VMFunc)
        .map(|(i, _)| i)
        .collect();
    let mut fallbacks = Vec::new();
    let mut functions = Vec::new();
    match compile_functions(exec, kernels, &candidates) {
        Ok((shared, done, failed)) => {
            let shared = Arc::new(shared);
            for (fi, index) in done {
                let info = &mut out.func_table[fi];
                info.kind = FuncKind::VMTIRFunc;
                info.register_file_size = info.register_file_size.max(info.num_args + 1);
                let native = shared.code.get(index);
                functions.push((
                    info.name.clone(),
                    vmtir_func(shared.clone(), native, info.register_file_size as usize),
                ));
            }
            fallbacks.extend(failed);
        }
        Err(e) => fallbacks.extend(candidates.iter().map(|&fi| Fallback {
            function: exec.func_table[fi].name.clone(),
            reason: e.to_string(),
        })),
    }
    Ok(VmtirModule {
        executable: out,
        functions,
        fallbacks,
        compile_time: start.elapsed(),
    })
}

type Compiled = (Shared, Vec<(usize, usize)>, Vec<Fallback>);

fn compile_functions(
    exec: &Executable,
    kernels: &KernelLibrary,
    candidates: &[usize],
) -> Result<Compiled> {
    let mut cb = CodeBuilder::new()?;
    let call_conv = cb.call_conv();
    let sig = cb.native_signature();
    let frontend = cb.target_config();
    // Kernel slots are handed out in order of first use, per function-table index.
    let by_symbol: HashMap<&str, &Kernel> =
        kernels.kernels().iter().map(|k| (k.symbol(), k)).collect();
    let mut slot_of_func: HashMap<usize, usize> = HashMap::new();
    let mut used: Vec<Kernel> = Vec::new();
    for (i, f) in exec.func_table.iter().enumerate() {
        if f.kind == FuncKind::PackedFunc
            && let Some(k) = by_symbol.get(f.name.as_str())
        {
            slot_of_func.insert(i, used.len());
            used.push((*k).clone());
        }
    }
    let slots = |fi: usize| slot_of_func.get(&fi).copied();
    let mut done = Vec::new();
    let mut failed = Vec::new();
    let mut words = Vec::new();
    for &fi in candidates {
        cb.ctx.func.signature = sig.clone();
        let translated = {
            let mut b = FunctionBuilder::new(&mut cb.ctx.func, &mut cb.fctx);
            let r = translate::translate(
                &mut b,
                call_conv,
                exec,
                fi,
                exec.func_table[fi].num_args,
                &slots,
                &mut words,
            );
            if r.is_ok() {
                b.finalize(frontend);
            }
            r
        };
        let defined = translated.and_then(|()| cb.define());
        match defined {
            Ok(index) => done.push((fi, index)),
            Err(e) => {
                cb.discard();
                failed.push(Fallback {
                    function: exec.func_table[fi].name.clone(),
                    reason: e.to_string(),
                });
            }
        }
    }
    let code = cb.finish()?;
    let entries = used.iter().map(Kernel::entry).collect();
    Ok((
        Shared {
            code,
            kernels: used,
            entries,
            words,
        },
        done,
        failed,
    ))
}

/// The `VmTirFunc` running `native` on a register file of at least `regs_needed` values.
fn vmtir_func(shared: Arc<Shared>, native: NativeFn, regs_needed: usize) -> VmTirFunc {
    Arc::new(move |vmref: &VmRef, regs: &mut [Value]| {
        if regs.len() < regs_needed {
            return Err(vm::Error::internal(format!(
                "a compiled function needs {regs_needed} registers, but got {}",
                regs.len()
            )));
        }
        let mut ctx = CallCtx {
            kernels: shared.entries.as_ptr(),
            words: shared.words.as_ptr(),
            kernel_info: &shared.kernels,
            vm: vmref,
            regs_len: regs.len(),
            call_args: Vec::new(),
            error: None,
            panic: None,
        };
        // SAFETY: `native` is code of `shared` (alive here) with the `NativeFn` ABI; it reads
        // `ctx.kernels` (`shared.entries`, one entry per slot its calls use) and `ctx.words`
        // (`shared.words`, holding every word range its Calls name) and passes `ctx`
        // and `regs` (a live register file of `ctx.regs_len` values, at least the size of
        // every register the function's validated bytecode names) to the helpers, whose
        // contracts these are.
        let status = unsafe { native(&mut ctx, regs.as_mut_ptr(), VmtirRuntime::get()) };
        match status {
            STATUS_OK => Ok(()),
            STATUS_ERROR => Err(ctx.error.take().unwrap_or_else(|| {
                vm::Error::internal("a compiled function failed without an error")
            })),
            STATUS_PANIC => match ctx.panic.take() {
                Some(payload) => resume_unwind(payload),
                None => Err(vm::Error::internal(
                    "a compiled function reported a panic without its payload",
                )),
            },
            other => Err(vm::Error::internal(format!(
                "a compiled function returned the unknown status {other}"
            ))),
        }
    })
}
