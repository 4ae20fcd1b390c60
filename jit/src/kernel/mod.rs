//! TIR kernels: PrimFuncs compiled by Cranelift to native functions with one checked C ABI,
//! exposed as `vm` packed functions under their global symbols.
//!
//! ```text
//! PrimFunc ──tir::transform::lower──► LoweredFunc ──codegen::Translator──► CLIF
//!          ──cranelift-jit──► machine code ──Kernel──► vm::PackedFunc (destination-passing)
//! ```
//!
//! * [`abi`]: the C layout of arguments ([`abi::KernelArg`]) and errors ([`abi::KernelError`]).
//! * [`runtime`]: the table of helpers generated code calls (math, half conversions,
//!   allocation, parallel-for, sort); code holds no absolute addresses.
//! * [`codegen`]: the translator; [`meta`]: what a kernel knows to describe its failures.
//!
//! Each PrimFunc compiles on its own into a [`KernelObject`]; within one process, structurally
//! identical PrimFuncs (same TVMScript text, same options) compile once, whatever module they
//! come from ([`KernelLibrary::compile_with`]). A [`KernelLibrary`] lays the objects of a module
//! out in one [`CodeBlob`] mapped as one [`CodeMemory`]; each [`Kernel`] keeps that memory
//! alive, so packed functions may outlive the library value. The blob and the metadata are what
//! the artifact cache stores ([`KernelLibrary::from_code`] is the way back).

pub mod abi;
pub(crate) mod codegen;
pub mod meta;
pub mod runtime;
mod sort;

use std::sync::Arc;

use crate::sha256::Sha256;
use cranelift_codegen::ir::{AbiParam, types};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{Linkage, Module};
use dashmap::DashMap;
use tir::PrimFunc;
use vm::{PackedFunc, Value};

use crate::code::{CodeBlob, CodeBuilder, CodeMemory, MAX_CLIF_INSTRUCTIONS};
use crate::error::{Error, Result};
use crate::isa::{HostFeatures, host_isa};
use abi::{KernelArg, KernelError, KernelFn, STATUS_OK};
use meta::KernelMeta;
use runtime::RuntimeTable;

/// One compiled PrimFunc.
#[derive(Clone)]
pub struct Kernel {
    meta: Arc<KernelMeta>,
    f: KernelFn,
    _code: Arc<CodeMemory>,
}

/// One PrimFunc compiled on its own: position-independent code whose entry is the kernel's
/// symbol (outlined loop bodies follow it, anonymous), and what the kernel needs to describe
/// its failures.
#[derive(Clone, Debug)]
pub struct KernelObject {
    /// The code.
    pub blob: CodeBlob,
    /// The metadata.
    pub meta: KernelMeta,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Kernel({})", self.meta.symbol)
    }
}

/// Arguments converted without a heap allocation up to this many.
const INLINE_ARGS: usize = 16;

const EMPTY_ARG: KernelArg = KernelArg {
    data: std::ptr::null_mut(),
    shape: std::ptr::null(),
    scalar: 0,
    ndim: 0,
    kind: u32::MAX,
    dtype: 0,
    _pad: 0,
};

fn pack_vm_dtype(d: vm::DataType) -> u32 {
    abi::pack_dtype(d.code, d.bits, d.lanes)
}

/// A tensor in the kernel ABI; its pointers borrow from `t` and are valid while it lives.
#[inline]
pub(crate) fn tensor_arg(t: &vm::Tensor) -> KernelArg {
    // SAFETY: taking the pointer is harmless; the kernel writes through it into its output
    // buffers. `as_mut_ptr`'s contract (no other thread touches those bytes meanwhile) is that
    // of every destination-passing packed function, as in TVM: the VM hands a kernel outputs
    // it allocated for this call, and runs one instruction at a time. It is not checked here
    // (see `Kernel::call`'s docs).
    let data = unsafe { t.as_mut_ptr() };
    KernelArg::tensor(data, t.shape(), pack_vm_dtype(t.dtype()))
}

impl Kernel {
    /// The symbol the kernel is linked under.
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn symbol(&self) -> &str {
        &self.meta.symbol
    }

    /// The kernel's metadata (parameters, failure sites).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn meta(&self) -> &KernelMeta {
        &self.meta
    }

    /// Runs the kernel on VM values in destination-passing style: tensors (inputs and outputs)
    /// and scalars. Every argument is checked by the kernel before any memory is touched.
    ///
    /// The kernel writes its output tensors through their shared handles (`vm::Tensor::
    /// as_mut_ptr`): the caller must not let another thread read or write an output while the
    /// call runs. The VM meets this for the tensors it allocates; a caller sharing an output
    /// tensor across threads does not, and that is a data race this method cannot detect.
    pub fn call(&self, args: &[Value]) -> vm::Result<()> {
        self.call_iter(args.iter(), args.len())
    }

    /// [`call`](Self::call) on arguments borrowed from wherever they live.
    pub fn call_borrowed(&self, args: &[&Value]) -> vm::Result<()> {
        self.call_iter(args.iter().copied(), args.len())
    }

    #[inline]
    fn call_iter<'a>(&self, args: impl Iterator<Item = &'a Value>, nargs: usize) -> vm::Result<()> {
        // Only the slots in use are written: filling all of them first costs as much as a
        // small kernel's whole body.
        let mut inline = [const { std::mem::MaybeUninit::<KernelArg>::uninit() }; INLINE_ARGS];
        let mut spilled = Vec::new();
        let slots: &mut [std::mem::MaybeUninit<KernelArg>] = if nargs <= INLINE_ARGS {
            &mut inline[..nargs]
        } else {
            spilled.resize(nargs, std::mem::MaybeUninit::new(EMPTY_ARG));
            &mut spilled
        };
        let mut written = 0;
        for (i, (a, slot)) in args.zip(slots.iter_mut()).enumerate() {
            // Tensors, the usual case, without the out-of-line conversion.
            let arg = match a {
                Value::Tensor(t) => tensor_arg(t),
                _ => self.arg_of(i, a)?,
            };
            *slot = std::mem::MaybeUninit::new(arg);
            written += 1;
        }
        if written != nargs {
            return Err(vm::Error::internal(format!(
                "{}: {nargs} arguments announced, {written} given",
                self.meta.name
            )));
        }
        // SAFETY: the loop wrote every slot (`slots` has exactly `nargs` entries and `written`
        // counts the ones written, and an argument that cannot be converted returns before
        // this point), and `MaybeUninit<KernelArg>` has the layout of `KernelArg`.
        let slots: &[KernelArg] =
            unsafe { std::slice::from_raw_parts(slots.as_ptr().cast::<KernelArg>(), slots.len()) };
        let mut err = KernelError::default();
        // SAFETY: every KernelArg was built from a live `Value` borrowed for this call: tensor
        // data pointers are valid for `numel * dtype.bytes()` bytes and shape pointers for
        // `ndim` dimensions (Tensor's invariant). The kernel checks arity, kinds, ranks, dtypes
        // and every dimension before reading data, and bounds-checks every access it cannot
        // prove in bounds; `err` is a local it may write.
        let status = unsafe {
            (self.f)(
                slots.as_ptr(),
                slots.len() as i64,
                RuntimeTable::get(),
                &mut err,
            )
        };
        if status == STATUS_OK {
            return Ok(());
        }
        Err(self.failure(status, &mut err))
    }

    /// The native entry point (the [`KernelFn`] ABI); compiled Relax functions call it directly.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(crate) fn entry(&self) -> KernelFn {
        self.f
    }

    /// Argument `i` of a call in the kernel ABI: tensors by data pointer and shape, numbers as
    /// scalars; anything else is a type error naming the parameter. A tensor's pointers borrow
    /// from `a` and are valid while it lives.
    #[inline]
    pub(crate) fn arg_of(&self, i: usize, a: &Value) -> vm::Result<KernelArg> {
        Ok(match a {
            Value::Tensor(t) => tensor_arg(t),
            Value::Int(v) => KernelArg::int(*v),
            Value::Bool(b) => KernelArg::int(*b as i64),
            Value::Float(v) => KernelArg::float(*v),
            other => {
                let name = self
                    .meta
                    .params
                    .get(i)
                    .map(|p| format!("`{}`", p.name))
                    .unwrap_or_else(|| format!("#{i}"));
                return Err(vm::Error::type_error(format!(
                    "{}: argument {name} must be a tensor or a number, got {}",
                    self.meta.name,
                    other.type_name()
                )));
            }
        })
    }

    /// The error a call that returned `status` (not [`STATUS_OK`]) with `err` filled reports.
    pub(crate) fn failure(&self, status: i32, err: &mut KernelError) -> vm::Error {
        err.kind = status;
        let msg = self.meta.describe(err);
        match status {
            abi::ERR_BOUNDS => vm::Error::index(msg),
            abi::ERR_ARITY | abi::ERR_RANK | abi::ERR_DTYPE | abi::ERR_DIM | abi::ERR_STRIDE => {
                vm::Error::value_error(msg)
            }
            abi::ERR_KIND => vm::Error::type_error(msg),
            _ => vm::Error::runtime(msg),
        }
    }

    /// The kernel as a packed function returning `None` (TVM's destination-passing calls).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn packed(&self) -> PackedFunc {
        let k = self.clone();
        PackedFunc::new_borrowing(self.meta.symbol.clone(), move |args| {
            k.call_borrowed(args)?;
            Ok(Value::Null)
        })
    }
}

/// What [`KernelLibrary::compile_with`] may do beyond the plain scalar translation. Every
/// optimization but `contract_fma` is exact — results are bit-for-bit those of the scalar,
/// serial code — so those switches only trade speed; `contract_fma` rounds `a * b + c` once
/// instead of twice, as TVM's LLVM backend does. Tests compare each setting with the reference
/// and with the interpreter `tir::interp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// 128-bit SIMD for contiguous innermost loops (with a scalar retry when the host cannot
    /// lower some vector operation).
    pub vectorize: bool,
    /// Outermost loops with enough independent work run on rayon's pool.
    pub parallel: bool,
    /// Loop-nest rewrites (`tir::transform::interchange_reductions`): a reduction loop
    /// interchanged outward so that a contiguous spatial loop becomes innermost and
    /// vectorizable, or else four rows of a reduction jammed together; and reduction
    /// accumulators kept in registers across their loop.
    pub loop_transforms: bool,
    /// Float `a * b + c` as one fused multiply-add where the host has FMA (TVM's LLVM backend
    /// allows the same contraction: `AllowFPOpFusion = Fast`). Changes the last bit of results.
    pub contract_fma: bool,
}

impl Default for CompileOptions {
    /// Everything on.
    fn default() -> CompileOptions {
        CompileOptions {
            vectorize: true,
            parallel: true,
            loop_transforms: true,
            contract_fma: true,
        }
    }
}

impl CompileOptions {
    /// Everything off: the scalar, serial translation of the lowered function as written.
    pub fn reference() -> CompileOptions {
        CompileOptions {
            vectorize: false,
            parallel: false,
            loop_transforms: false,
            contract_fma: false,
        }
    }
}

/// Translation settings that do not borrow anything.
#[derive(Clone, Copy)]
struct Options0 {
    call_conv: cranelift_codegen::isa::CallConv,
    host: HostFeatures,
    vectorize: bool,
    parallel: bool,
    promote: bool,
    contract: bool,
}

impl Options0 {
    /// The translator's options, declaring outlined loops in `module` if given.
    fn with_module(self, module: Option<&mut CodeBuilder>) -> codegen::Options<'_> {
        codegen::Options {
            call_conv: self.call_conv,
            host: self.host,
            vectorize: self.vectorize,
            promote: self.promote,
            contract: self.contract,
            module,
        }
    }
}

/// Translates and defines one kernel (as `id`) and the parallel loop bodies it outlines;
/// returns its metadata and the number of Cranelift instructions translated (all functions).
fn compile_one(
    module: &mut CodeBuilder,
    ctx: &mut cranelift_codegen::Context,
    fctx: &mut FunctionBuilderContext,
    lowered: &tir::transform::LoweredFunc,
    id: cranelift_module::FuncId,
    sig: &cranelift_codegen::ir::Signature,
    o: Options0,
) -> Result<(KernelMeta, usize)> {
    let frontend = module.target_config();
    ctx.func.signature = sig.clone();
    let (mut meta, outlines) = {
        let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
        let r = codegen::Translator::translate(
            &mut b,
            lowered,
            o.with_module(if o.parallel { Some(&mut *module) } else { None }),
        );
        match r {
            Ok(r) => {
                b.finalize(frontend);
                r
            }
            Err(e) => {
                module.clear_context(ctx);
                return Err(e);
            }
        }
    };
    let mut insts = ctx.func.dfg.num_insts();
    let defined = module
        .check_size(&lowered.name, &ctx.func)
        .and_then(|()| define_function(module, id, ctx));
    module.clear_context(ctx);
    defined?;
    for (k, outline) in outlines.iter().enumerate() {
        ctx.func.signature = codegen::outline_signature(o.call_conv);
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
            let r = codegen::Translator::translate_outline(
                &mut b,
                outline,
                o.with_module(None),
                lowered.no_alias,
                meta.clone(),
            );
            match r {
                Ok(m) => {
                    b.finalize(frontend);
                    meta = m;
                }
                Err(e) => {
                    module.clear_context(ctx);
                    return Err(e);
                }
            }
        }
        insts += ctx.func.dfg.num_insts();
        let defined = module
            .check_size(
                &format!("{} (parallel loop body {k})", lowered.name),
                &ctx.func,
            )
            .and_then(|()| define_function(module, outline.id, ctx));
        module.clear_context(ctx);
        defined?;
    }
    Ok((meta, insts))
}

/// Cranelift's compile of the function in `ctx`, defined as `id`. Cranelift reports what its
/// verifier finds as errors, but IR it cannot lower (which the translator should never build,
/// so a bug of ours) makes it panic: that is caught and becomes an error too, so that a
/// compile never unwinds into the caller. The builder is not used again after an error.
fn define_function(
    module: &mut CodeBuilder,
    id: cranelift_module::FuncId,
    ctx: &mut cranelift_codegen::Context,
) -> Result<()> {
    let name = ctx.func.name.to_string();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        module
            .define_function(id, ctx)
            .map_err(|e| Error::Codegen(format!("{e:?}")))
    })) {
        Ok(defined) => defined,
        Err(payload) => {
            let why = runtime::panic_message(payload.as_ref());
            Err(Error::Codegen(format!(
                "internal compiler error: Cranelift failed on {name}: {why}"
            )))
        }
    }
}

/// The process-wide map of compiled PrimFuncs, keyed by [`object_key`]: what lets a module
/// compiled again, or another module sharing its operators, skip Cranelift.
static OBJECTS: std::sync::LazyLock<DashMap<[u8; 32], Arc<KernelObject>>> =
    std::sync::LazyLock::new(DashMap::new);

/// The code bytes [`OBJECTS`] holds, approximately (racing inserts may count twice).
static OBJECT_BYTES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Past this much code the map starts over, so that a process compiling endless distinct
/// functions (a fuzzer) stays bounded. Libraries already built keep their own code.
const MAX_OBJECT_BYTES: usize = 64 << 20;

/// Remembers `object` under `key` (or returns the one another thread stored first).
fn remember(key: [u8; 32], object: Arc<KernelObject>) -> Arc<KernelObject> {
    use std::sync::atomic::Ordering;
    let size = object.blob.bytes().len();
    if OBJECT_BYTES.fetch_add(size, Ordering::Relaxed) + size > MAX_OBJECT_BYTES {
        OBJECTS.clear();
        OBJECT_BYTES.store(size, Ordering::Relaxed);
    }
    OBJECTS.entry(key).or_insert(object).clone()
}

/// The structural hash of a PrimFunc under `options`: SHA-256 of its TVMScript text (the printer
/// is canonical — names made unique, floats with round-trip precision — and its output parses
/// back to the same function) and of the options. The text includes the function's name, so
/// the cached metadata (which names it) is exact for every module that hits.
fn object_key(func: &PrimFunc, options: CompileOptions) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(tir::print_prim_func(func).as_bytes());
    h.update(&[
        options.vectorize as u8,
        options.parallel as u8,
        options.loop_transforms as u8,
        options.contract_fma as u8,
    ]);
    h.finalize()
}

/// The number of Cranelift instructions `func` translates to under `options` (the kernel's
/// function and the loop bodies it outlines, before Cranelift's own passes): the size of what
/// the register allocator is given, which is what a kernel's compile time follows. Compiles
/// `func` (without remembering it); for tests and diagnostics.
pub fn clif_instructions(func: &PrimFunc, options: CompileOptions) -> Result<usize> {
    Ok(compile_object(&host_isa()?, func, options, usize::MAX)?.1)
}

/// Compiles one PrimFunc into its own object: vector code first; if Cranelift cannot lower
/// some vector operation on this host, the scalar translation is always possible, in a fresh
/// builder so that nothing of the first attempt remains. Also returns the number of Cranelift
/// instructions the object was compiled from.
fn compile_object(
    isa: &OwnedTargetIsa,
    func: &PrimFunc,
    options: CompileOptions,
    max_instructions: usize,
) -> Result<(KernelObject, usize)> {
    let host = HostFeatures::of_isa(&**isa);
    let call_conv = isa.default_call_conv();
    // Fused elementwise chains as one pass over memory (a loop transform too).
    let inlined;
    let func = if options.loop_transforms {
        inlined = tir::transform::inline_elementwise(&tir::transform::simplify_block_indices(func));
        &inlined
    } else {
        func
    };
    let mut lowered = tir::transform::lower(func).map_err(|e| Error::Unsupported(e.to_string()))?;
    lowered.body = tir::transform::simplify_indices(&lowered.body);
    // The interchange reorders accesses of distinct buffers, so it needs `noalias`.
    if options.loop_transforms && lowered.no_alias {
        lowered.body = tir::transform::interchange_reductions(&lowered.body);
        // The interchange puts reduction loops outside spatial ones: `for k in n: for j in m`
        // over an empty `m` must not count to `n`.
        lowered.body = tir::transform::skip_empty_nests(&lowered.body);
    }
    let attempts: &[bool] = if options.vectorize {
        &[true, false]
    } else {
        &[false]
    };
    let mut outcome = Err(Error::Unsupported(String::new()));
    for &vectorize in attempts {
        let mut module = CodeBuilder::new(isa.clone()).with_max_instructions(max_instructions);
        let mut ctx = module.make_context();
        let mut fctx = FunctionBuilderContext::new();
        let mut sig = module.make_signature();
        sig.params.extend([AbiParam::new(types::I64); 4]);
        sig.returns.push(AbiParam::new(types::I32));
        let id = module.declare_function(&lowered.symbol, Linkage::Export, &sig)?;
        outcome = compile_one(
            &mut module,
            &mut ctx,
            &mut fctx,
            &lowered,
            id,
            &sig,
            Options0 {
                call_conv,
                host,
                vectorize,
                parallel: options.parallel,
                promote: options.loop_transforms,
                contract: options.contract_fma,
            },
        )
        .and_then(|(meta, insts)| {
            let object = KernelObject {
                blob: module.finish()?,
                meta,
            };
            Ok((object, insts))
        })
        .map_err(|e| match e {
            Error::Unsupported(m) => Error::Unsupported(format!("`{}`: {m}", func.name)),
            Error::Codegen(m) => Error::Codegen(format!("`{}`: {m}", func.name)),
            e => e,
        });
        if outcome.is_ok() || matches!(outcome, Err(Error::Unsupported(_))) {
            break;
        }
    }
    outcome
}

/// Kernels compiled together.
#[derive(Clone, Debug, Default)]
pub struct KernelLibrary {
    kernels: Vec<Kernel>,
    /// The code of every kernel; `None` only for the empty default library.
    code: Option<Arc<CodeMemory>>,
}

impl KernelLibrary {
    /// Compiles every function of `funcs` for the host with every optimization.
    pub fn compile(funcs: &[PrimFunc]) -> Result<KernelLibrary> {
        KernelLibrary::compile_with(funcs, CompileOptions::default())
    }

    /// Compiles every function of `funcs` for the host with the given optimizations. A
    /// function compiled before in this process with the same options (by [`object_key`]) is
    /// not compiled again.
    pub fn compile_with(funcs: &[PrimFunc], options: CompileOptions) -> Result<KernelLibrary> {
        KernelLibrary::compile_within(funcs, options, MAX_CLIF_INSTRUCTIONS)
    }

    /// [`KernelLibrary::compile_with`] within a compile budget of `max_instructions` Cranelift
    /// instructions per function (the kernel and each loop body it outlines) instead of
    /// [`MAX_CLIF_INSTRUCTIONS`]: a kernel over it is [`Error::TooLarge`]. A function compiled
    /// before under another budget is reused as it is.
    pub fn compile_within(
        funcs: &[PrimFunc],
        options: CompileOptions,
        max_instructions: usize,
    ) -> Result<KernelLibrary> {
        let isa = host_isa()?;
        let mut objects = Vec::with_capacity(funcs.len());
        for func in funcs {
            let key = object_key(func, options);
            let object = match OBJECTS.get(&key) {
                Some(o) => o.clone(),
                None => remember(
                    key,
                    Arc::new(compile_object(&isa, func, options, max_instructions)?.0),
                ),
            };
            objects.push(object);
        }
        let mut blob = CodeBlob::default();
        for o in &objects {
            blob.append(&o.blob);
        }
        KernelLibrary::from_code(blob, objects.iter().map(|o| o.meta.clone()).collect())
    }

    /// Whether `func` (by [`object_key`]) was compiled with `options` before in this process,
    /// so that compiling it again reuses that code instead of calling Cranelift.
    pub fn is_compiled_in_process(func: &PrimFunc, options: CompileOptions) -> bool {
        OBJECTS.contains_key(&object_key(func, options))
    }

    /// The library whose code is `blob` and whose kernels are described by `metas`, in order:
    /// each kernel's entry is the blob's symbol `meta.symbol`. This is how the artifact cache
    /// turns a stored entry back into the library a compile returns.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn from_code(blob: CodeBlob, metas: Vec<KernelMeta>) -> Result<KernelLibrary> {
        KernelLibrary::from_memory(CodeMemory::new(blob)?, metas)
    }

    /// [`KernelLibrary::from_code`] over code already mapped (e.g. together with a
    /// compiled-mode module's functions, [`CodeMemory::new_pair`]).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn from_memory(code: Arc<CodeMemory>, metas: Vec<KernelMeta>) -> Result<KernelLibrary> {
        // A loop popping from the back rather than an iterator collected into a `Result`: the
        // adaptors' generic code (the `IntoIter` too) would lie outside the hit path's section.
        let mut metas = metas;
        let mut kernels = Vec::with_capacity(metas.len());
        while let Some(meta) = metas.pop() {
            let Some(p) = code.address(&meta.symbol) else {
                return Err(Error::Module(format!(
                    "no code for kernel `{}`",
                    meta.symbol
                )));
            };
            kernels.push(Kernel {
                meta: Arc::new(meta),
                // SAFETY: every kernel symbol of a blob is a function defined with the kernel
                // signature (4 × i64 → i32 in the ISA's default C calling convention), which
                // is `KernelFn`'s ABI — `compile_object` declares it so, and a cache entry is
                // accepted only when its checksum matches what a compile for this ISA and
                // relaxjit version wrote. The memory lives as long as `code`, which the
                // kernel holds.
                f: unsafe { std::mem::transmute::<*const u8, KernelFn>(p) },
                _code: code.clone(),
            });
        }
        kernels.reverse();
        Ok(KernelLibrary {
            kernels,
            code: Some(code),
        })
    }

    /// The machine code of every kernel, as one blob (what the artifact cache stores).
    pub fn code_blob(&self) -> CodeBlob {
        self.code.as_ref().map(|c| c.to_blob()).unwrap_or_default()
    }

    /// The kernels, in the order of the functions given to [`KernelLibrary::compile`].
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn kernels(&self) -> &[Kernel] {
        &self.kernels
    }

    /// The kernel linked under `symbol`.
    pub fn get(&self, symbol: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.symbol() == symbol)
    }

    /// Adds every kernel to `lib` as a packed function under its symbol, and the library
    /// kernels (`crate::library`) that dispatched modules call.
    pub fn add_to(&self, lib: &mut vm::Library) {
        for k in &self.kernels {
            lib.add_packed(k.symbol(), k.packed());
        }
        crate::library::add_to(lib);
    }

    /// Adds every kernel to `lib`, and the library kernels that `exec` calls: what a VM
    /// running `exec` needs, without a function for every library kernel variant.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn add_for(&self, lib: &mut vm::Library, exec: &vm::Executable) {
        for k in &self.kernels {
            lib.add_packed(k.symbol(), k.packed());
        }
        crate::library::add_named(
            lib,
            exec.func_table
                .iter()
                .filter(|f| f.kind == vm::FuncKind::PackedFunc)
                .map(|f| f.name.as_str()),
        );
    }
}
