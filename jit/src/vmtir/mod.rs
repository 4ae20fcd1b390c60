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
//! * [`code`]: the Cranelift module, kept in one place; a module's functions are one
//!   position-independent blob, which [`VmtirModule::to_section`] and [`load`] carry through
//!   the artifact cache.
//!
//! A function the translator cannot compile stays bytecode (`VMFunc`) and is listed in
//! [`VmtirModule::fallbacks`]; compiling never fails because of one function.

pub mod code;
pub mod runtime;
pub mod translate;

use std::panic::resume_unwind;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cranelift_frontend::FunctionBuilder;
use vm::{Executable, FuncKind, InlineBuiltin, Library, Value, VmRef, VmTirFunc};

use crate::cache::entry::{Reader, put_bytes, put_str, put_u64};
use crate::code::{CodeBlob, CodeMemory, Symbol};
use crate::error::{Error, Result};
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
    pub executable: Arc<Executable>,
    functions: Vec<(String, VmTirFunc)>,
    /// Functions that stay bytecode.
    pub fallbacks: Vec<Fallback>,
    /// Translation and code generation, all functions together; for a module from [`load`],
    /// the time it took to map and link its code, from [`load_mapped`] to link it.
    pub compile_time: Duration,
    /// The code all compiled functions share; `None` if none was compiled.
    shared: Option<Arc<Shared>>,
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
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn add_to(&self, lib: &mut Library) {
        for (name, f) in &self.functions {
            lib.add_vmtir(name, f.clone());
        }
    }

    /// What [`load`] needs besides the executable and the kernels: the functions' code with
    /// their symbols, the argument-word pool, and the fallbacks.
    ///
    /// ```text
    /// code (bytes) · symbols (count, then name and offset each) · words (count, then i64 each)
    /// · fallbacks (count, then function and reason each)
    /// ```
    pub fn to_section(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let (blob, words) = match &self.shared {
            Some(s) => (s.code.blob(), s.words.as_slice()),
            None => (CodeBlob::default(), &[][..]),
        };
        put_bytes(&mut out, blob.bytes());
        put_u64(&mut out, blob.symbols().len() as u64);
        for s in blob.symbols() {
            put_str(&mut out, &s.name);
            put_u64(&mut out, s.offset);
        }
        put_u64(&mut out, words.len() as u64);
        for w in words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        put_u64(&mut out, self.fallbacks.len() as u64);
        for f in &self.fallbacks {
            put_str(&mut out, &f.function);
            put_str(&mut out, &f.reason);
        }
        out
    }
}

/// The name of the artifact cache's extra section holding [`VmtirModule::to_section`].
pub const SECTION: &str = "vmtir";

/// The compiled module that [`compile`] returned for `exec`'s bytecode, rebuilt without
/// compiling from its executable (`VmtirModule::executable`), the kernels it was compiled
/// against, and [`VmtirModule::to_section`]. The section must come from a compile by this
/// relaxjit build for this host (the artifact cache checks both before handing it over); a
/// section that does not parse, or lacks the code of a compiled function, is an error.
pub fn load(exec: &Executable, kernels: &KernelLibrary, section: &[u8]) -> Result<VmtirModule> {
    let start = Instant::now();
    let mut section = Section::parse(section)?;
    let code = CodeMemory::new(std::mem::take(&mut section.code))?;
    link_loaded(&Arc::new(exec.clone()), kernels, section, code, start)
}

/// [`VmtirModule::to_section`] read back, its code not mapped yet.
pub struct Section {
    /// The compiled functions' code, for the caller to map ([`CodeMemory::new_pair`] maps it
    /// with the kernels' code) and hand to [`load_mapped`].
    pub code: CodeBlob,
    words: Vec<i64>,
    fallbacks: Vec<Fallback>,
}

impl Section {
    /// Checks and decodes `section`: a section that does not parse is an error.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn parse(section: &[u8]) -> Result<Section> {
        let (code, words, fallbacks) = parse_section(section)
            .map_err(|m| Error::Module(format!("compiled-mode section: {m}")))?;
        Ok(Section {
            code,
            words,
            fallbacks,
        })
    }
}

/// [`load`] of a parsed section whose code the caller mapped as `code`.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn load_mapped(
    exec: &Arc<Executable>,
    kernels: &KernelLibrary,
    section: Section,
    code: Arc<CodeMemory>,
) -> Result<VmtirModule> {
    link_loaded(exec, kernels, section, code, Instant::now())
}

/// Links the compiled functions of `section`, whose code is `code`, to `exec` and `kernels`;
/// the module records the time since `start` as its compile time.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn link_loaded(
    exec: &Arc<Executable>,
    kernels: &KernelLibrary,
    section: Section,
    code: Arc<CodeMemory>,
    start: Instant,
) -> Result<VmtirModule> {
    let malformed = |m: String| Error::Module(format!("compiled-mode section: {m}"));
    exec.validate()
        .map_err(|e| Error::Module(format!("the executable does not validate: {e}")))?;
    // Loops rather than iterator adaptors, whose generic code would lie outside the hit path's
    // section.
    let mut compiled: Vec<usize> = vm::hit::vec_with_capacity(exec.func_table.len());
    for (i, f) in exec.func_table.iter().enumerate() {
        if f.kind == FuncKind::VMTIRFunc {
            compiled.push(i);
        }
    }
    if code.symbols().len() != compiled.len() {
        return Err(malformed(format!(
            "{} functions of code for {} compiled functions",
            code.symbols().len(),
            compiled.len()
        )));
    }
    let mut functions = Vec::new();
    let mut shared = None;
    if !compiled.is_empty() {
        let mut symbols: Vec<String> = vm::hit::vec_with_capacity(compiled.len());
        for &fi in &compiled {
            symbols.push(code::symbol(&exec.func_table[fi].name));
        }
        let code = CompiledCode::from_memory(code, &symbols)?;
        let (_, used) = kernel_slots(exec, kernels);
        let s = Arc::new(Shared::new(exec, code, used, section.words));
        let mut done = vm::hit::vec_with_capacity(compiled.len());
        for (index, &fi) in compiled.iter().enumerate() {
            done.push((fi, index));
        }
        functions = link(exec, &s, done);
        shared = Some(s);
    }
    Ok(VmtirModule {
        executable: Arc::clone(exec),
        functions,
        fallbacks: section.fallbacks,
        compile_time: start.elapsed(),
        shared,
    })
}

/// The code, the argument words and the fallbacks of [`VmtirModule::to_section`].
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn parse_section(
    section: &[u8],
) -> std::result::Result<(CodeBlob, Vec<i64>, Vec<Fallback>), String> {
    let mut r = Reader { b: section };
    // `vm::hit`'s vectors, whose code lies in the section.
    let code = vm::hit::copy_slice(r.bytes()?);
    let n = r.count(16)?;
    let mut symbols = vm::hit::vec_with_capacity(n);
    for _ in 0..n {
        symbols.push(Symbol {
            name: r.str()?,
            offset: r.u64()?,
        });
    }
    let blob = CodeBlob::from_parts(code, symbols).map_err(|e| e.to_string())?;
    let n = r.count(8)?;
    let mut words = vm::hit::vec_with_capacity(n);
    for _ in 0..n {
        words.push(r.u64()? as i64);
    }
    let n = r.count(16)?;
    let mut fallbacks = vm::hit::vec_with_capacity(n);
    for _ in 0..n {
        fallbacks.push(Fallback {
            function: r.str()?,
            reason: r.str()?,
        });
    }
    if !r.b.is_empty() {
        return Err(format!("{} bytes after the fallbacks", r.b.len()));
    }
    Ok((blob, words, fallbacks))
}

/// What every compiled function of one module shares.
struct Shared {
    code: CompiledCode,
    kernels: Vec<Kernel>,
    entries: Vec<KernelFn>,
    /// Argument words of every Call, addressed by generated code through `CallCtx::words`.
    words: Vec<i64>,
    /// The function-table entries named as the builtins generated code performs in place,
    /// with the builtin each must be (see `CallCtx::in_place_blocked`).
    builtins: Vec<(usize, InlineBuiltin)>,
}

impl Shared {
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn new(exec: &Executable, code: CompiledCode, kernels: Vec<Kernel>, words: Vec<i64>) -> Shared {
        // Loops rather than iterator adaptors: this runs on an artifact cache hit, whose code
        // should stay in its section.
        let mut entries = vm::hit::vec_with_capacity(kernels.len());
        for k in &kernels {
            entries.push(k.entry());
        }
        let mut builtins = vm::hit::vec_with_capacity(exec.func_table.len());
        for (i, f) in exec.func_table.iter().enumerate() {
            if f.kind != FuncKind::PackedFunc {
                continue;
            }
            match InlineBuiltin::from_name(&f.name) {
                Some(b @ (InlineBuiltin::NullValue | InlineBuiltin::AllocTensor)) => {
                    builtins.push((i, b));
                }
                Some(InlineBuiltin::AllocStorage) | None => {}
            }
        }
        Shared {
            code,
            kernels,
            entries,
            words,
            builtins,
        }
    }
}

/// The `VmTirFunc` of every compiled function `(function-table index, code index)` of `exec`
/// (whose table already records them as `VMTIRFunc`, with their register file sizes).
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn link(
    exec: &Executable,
    shared: &Arc<Shared>,
    done: Vec<(usize, usize)>,
) -> Vec<(String, VmTirFunc)> {
    let mut functions = vm::hit::vec_with_capacity(done.len());
    for (fi, index) in done {
        let info = &exec.func_table[fi];
        let native = shared.code.get(index);
        functions.push((
            vm::hit::copy_str(&info.name),
            vmtir_func(shared.clone(), native, info.register_file_size as usize),
        ));
    }
    functions
}

/// The kernel slots of `exec`'s calls: for each `PackedFunc` that is one of `kernels`, its
/// slot (by function-table index), handed out in order of function-table index; and the
/// kernels by slot. A load computes the same slots as the compile that generated the code, from
/// the same executable and kernels.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn kernel_slots(exec: &Executable, kernels: &KernelLibrary) -> (Vec<Option<usize>>, Vec<Kernel>) {
    // Loops, a `NameMap` and `vm::hit`'s vectors rather than `collect` and hash maps: this runs
    // on an artifact cache hit, whose code should stay in its section.
    let all = kernels.kernels();
    let mut by_symbol = vm::NameMap::with_capacity(all.len());
    for (i, k) in all.iter().enumerate() {
        by_symbol.insert(vm::hit::copy_str(k.symbol()), i);
    }
    let mut slot_of_func = vm::hit::vec_with_capacity(exec.func_table.len());
    let mut used: Vec<Kernel> = vm::hit::vec_with_capacity(all.len());
    for f in &exec.func_table {
        let kernel = match f.kind {
            FuncKind::PackedFunc => by_symbol.get(f.name.as_str()),
            _ => None,
        };
        slot_of_func.push(kernel.map(|&k| {
            used.push(all[k].clone());
            used.len() - 1
        }));
    }
    (slot_of_func, used)
}

// SAFETY: `entries` are entry points of kernels whose code `kernels` keeps alive; they are
// plain function pointers to immutable, reentrant code.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

/// Compiles every bytecode function of `exec`; calls of the kernels in `kernels` go to their
/// native entries. `exec` must validate (the error is the validation's otherwise). A function
/// that cannot be translated, or a failure of code generation as a whole, leaves functions as
/// bytecode and lists them as fallbacks; so does one over the compile budget
/// ([`crate::code::MAX_CLIF_INSTRUCTIONS`]), which the interpreter runs instead of Cranelift
/// taking minutes over it.
pub fn compile(exec: &Executable, kernels: &KernelLibrary) -> vm::Result<VmtirModule> {
    compile_within(exec, kernels, crate::code::MAX_CLIF_INSTRUCTIONS)
}

/// [`compile`] within a compile budget of `max_instructions` Cranelift instructions per
/// function: a function over it stays bytecode, its fallback reason naming its size.
pub fn compile_within(
    exec: &Executable,
    kernels: &KernelLibrary,
    max_instructions: usize,
) -> vm::Result<VmtirModule> {
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
    let mut kept = None;
    match compile_functions(exec, kernels, &candidates, max_instructions) {
        Ok((shared, done, failed)) => {
            let shared = Arc::new(shared);
            for &(fi, _) in &done {
                let info = &mut out.func_table[fi];
                info.kind = FuncKind::VMTIRFunc;
                info.register_file_size = info.register_file_size.max(info.num_args + 1);
            }
            functions = link(&out, &shared, done);
            fallbacks.extend(failed);
            kept = Some(shared);
        }
        Err(e) => fallbacks.extend(candidates.iter().map(|&fi| Fallback {
            function: exec.func_table[fi].name.clone(),
            reason: e.to_string(),
        })),
    }
    Ok(VmtirModule {
        executable: Arc::new(out),
        functions,
        fallbacks,
        compile_time: start.elapsed(),
        shared: kept,
    })
}

/// The number of Cranelift instructions each bytecode function of `exec` translates to (what
/// [`compile`] hands Cranelift, and the compile budget counts), by name; functions the
/// translator refuses are left out. Translates without compiling; for tests and diagnostics.
pub fn clif_instructions(
    exec: &Executable,
    kernels: &KernelLibrary,
) -> vm::Result<Vec<(String, usize)>> {
    exec.validate()?;
    let internal = |e: Error| vm::Error::internal(e.to_string());
    let mut cb = CodeBuilder::new(usize::MAX).map_err(internal)?;
    let call_conv = cb.call_conv();
    let sig = cb.native_signature();
    let frontend = cb.target_config();
    let (slot_of_func, _) = kernel_slots(exec, kernels);
    let slots = |fi: usize| slot_of_func.get(fi).copied().flatten();
    let mut words = Vec::new();
    let mut sizes = Vec::new();
    for (fi, info) in exec.func_table.iter().enumerate() {
        if info.kind != FuncKind::VMFunc {
            continue;
        }
        cb.ctx.func.signature = sig.clone();
        let mut b = FunctionBuilder::new(&mut cb.ctx.func, &mut cb.fctx);
        let r = translate::translate(
            &mut b,
            call_conv,
            exec,
            fi,
            info.num_args,
            &slots,
            &mut words,
        );
        if r.is_ok() {
            b.finalize(frontend);
            sizes.push((info.name.clone(), cb.ctx.func.dfg.num_insts()));
        }
        cb.discard();
    }
    Ok(sizes)
}

type Compiled = (Shared, Vec<(usize, usize)>, Vec<Fallback>);

fn compile_functions(
    exec: &Executable,
    kernels: &KernelLibrary,
    candidates: &[usize],
    max_instructions: usize,
) -> Result<Compiled> {
    let mut cb = CodeBuilder::new(max_instructions)?;
    let call_conv = cb.call_conv();
    let sig = cb.native_signature();
    let frontend = cb.target_config();
    let (slot_of_func, used) = kernel_slots(exec, kernels);
    let slots = |fi: usize| slot_of_func.get(fi).copied().flatten();
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
        let defined = translated.and_then(|()| cb.define(&exec.func_table[fi].name));
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
    Ok((Shared::new(exec, code, used, words), done, failed))
}

/// The `VmTirFunc` running `native` on a register file of at least `regs_needed` values.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
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
            instrumented: vmref.instrument_flag(),
            in_place_blocked: if shared
                .builtins
                .iter()
                .all(|&(f, b)| vmref.inline_builtin(f) == Some(b))
            {
                vmref.instrument_flag()
            } else {
                &runtime::IN_PLACE_NEVER
            },
            kernel_info: &shared.kernels,
            vm: vmref,
            regs_len: regs.len(),
            call_args: Vec::new(),
            spare: vm::Spare::default(),
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
