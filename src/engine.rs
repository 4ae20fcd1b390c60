//! The [`Engine`]: a Relax module in, a runnable [`CompiledModule`] out.
//!
//! ```text
//! TVMScript ─parse─► IRModule ─optimize─► legalized, fused module ─lower─► lowered module
//!   ─VMCodeGen─► vm::Executable (bytecode) + PrimFuncs ─KernelLibrary::compile─► kernels
//!   ─► CompiledModule { Arc<Executable>, kernels, vm::Library } ─vm()─► VirtualMachine
//! ONNX ─onnx::import_file─► IRModule (Engine::compile_onnx), then as above
//! ```
//!
//! A [`CompiledModule`] is immutable and `Send + Sync`: compile once, then give each thread
//! (each caller) its own [`VirtualMachine`] from [`CompiledModule::vm`]. Everything that can
//! fail because of the input module fails in [`Engine::compile`] — parsing, legalization, a
//! construct the passes do not handle, a kernel the JIT cannot compile, a call the linker cannot
//! resolve — with an [`Error`] naming the stage and the construct; calls fail only on what
//! depends on the arguments (shapes, values).
//!
//! Kernels run their parallel loops on rayon. With [`Config::threads`] set, the engine owns a
//! pool of that size and [`CompiledModule::invoke`] / [`CompiledModule::run`] run the parallel
//! loops of their calls in it (the VM itself stays on the caller's thread); a call made
//! directly on the VM (`vm.invoke`) runs its loops on rayon's global pool.

use std::borrow::Cow;
use std::sync::Arc;

use jit::cache::ArtifactCache;
use jit::kernel::KernelLibrary;
use relax::IRModule;
use relax::script::ReadOptions;
use vm::{AllocatorKind, Executable, Library, Tensor, Value, VirtualMachine, VmConfig};

use crate::error::{Error, Result};

/// How compiled Relax functions execute.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExecMode {
    /// The bytecode interpreter dispatches every instruction; kernels are native code.
    #[default]
    Bytecode,
    /// Each Relax function compiled to native code (`__vmtir__<name>`, `jit::vmtir`) that runs
    /// on the register file without the dispatch loop; calls of JIT'd kernels go straight to
    /// their native entries. A function that cannot be compiled stays bytecode, and is listed
    /// in [`CompiledModule::fallbacks`].
    Compiled,
}

impl std::str::FromStr for ExecMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<ExecMode> {
        match s {
            "bytecode" => Ok(ExecMode::Bytecode),
            "compiled" => Ok(ExecMode::Compiled),
            _ => Err(Error::InvalidArgument(format!(
                "unknown exec mode `{s}` (expected `bytecode` or `compiled`)"
            ))),
        }
    }
}

/// How an [`Engine`] compiles and runs.
#[derive(Clone, Debug)]
pub struct Config {
    pub exec_mode: ExecMode,
    /// Fuse elementwise chains and injective epilogues into their producers (on by default,
    /// unlike TVM's CPU default).
    pub fusion: bool,
    /// Run float matmuls and conv2ds (with their epilogues) on native library kernels
    /// (`relax::transform::dispatch_library`), also those of a module that arrives legalized
    /// (`relax::transform::raise_call_tir`); off, they take the TIR path.
    pub library: bool,
    /// Threads for the kernels' parallel loops; `None` uses rayon's global pool (one thread
    /// per core unless `RAYON_NUM_THREADS` says otherwise). At most [`MAX_THREADS`].
    pub threads: Option<usize>,
    /// The storage allocator of each VM.
    pub allocator: AllocatorKind,
    /// FoldConstant computes no constant larger than this many bytes at compile time; a bigger
    /// one (`R.zeros(R.shape([100000000000]), "float32")`) stays a call, so compiling never
    /// allocates what the program asks for, and the run time reports an allocation error if
    /// memory is short. Default [`relax::transform::DEFAULT_MAX_FOLD_BYTES`] (16 MiB).
    pub max_fold_bytes: usize,
    /// The artifact cache ([`jit::cache`]): a compile whose key is stored loads the module
    /// instead of compiling it, and a compile stores what it produced. Off (`None`) by default;
    /// [`ArtifactCache::at_default_dir`] gives the cache in `$RELAXJIT_CACHE_DIR` or the user's
    /// cache directory. In compiled exec mode the entry holds the compiled functions' code too.
    pub cache: Option<ArtifactCache>,
}

/// The most threads [`Config::threads`] may ask for. Fixed rather than a multiple of the core
/// count, so that a configuration valid on one machine is valid on every machine; above the
/// hardware threads of today's largest two-socket hosts (2 × 192 cores × 2), so no real machine
/// is held back, and low enough that starting the pool takes milliseconds, not the minutes (and
/// the gigabytes of thread stacks) that 100000 threads would.
pub const MAX_THREADS: usize = 1024;

impl Default for Config {
    fn default() -> Config {
        Config {
            exec_mode: ExecMode::Bytecode,
            fusion: true,
            library: true,
            threads: None,
            allocator: AllocatorKind::Pooled,
            max_fold_bytes: relax::transform::DEFAULT_MAX_FOLD_BYTES,
            cache: None,
        }
    }
}

/// The identity of this build of relaxjit: the version and a fingerprint of the sources,
/// dependencies, compiler and profile that compile modules (made by the build script). The
/// artifact cache keys entries by it, so no other build ever loads them.
pub const BUILD: &str = env!("RELAXJIT_BUILD");

/// Compiles Relax modules according to a [`Config`].
#[derive(Clone, Debug, Default)]
pub struct Engine {
    config: Config,
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl Engine {
    /// An engine with `config`; builds its thread pool if `config.threads` is set. Its cache
    /// (if any) keys entries by this build of relaxjit ([`BUILD`]).
    pub fn new(mut config: Config) -> Result<Engine> {
        config.cache = config.cache.map(|c| c.with_build(BUILD));
        let pool = match config.threads {
            None => None,
            Some(0) => {
                return Err(Error::InvalidArgument(
                    "threads must be at least 1 (or None for the global pool)".into(),
                ));
            }
            Some(n) if n > MAX_THREADS => {
                return Err(Error::InvalidArgument(format!(
                    "threads must be at most {MAX_THREADS}, got {n} (this machine has {} hardware threads)",
                    std::thread::available_parallelism().map_or(1, |n| n.get())
                )));
            }
            Some(n) => Some(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("relaxjit-kernel-{i}"))
                    .build()
                    .map_err(|e| Error::Unsupported(format!("cannot start {n} threads: {e}")))?,
            )),
        };
        Ok(Engine { config, pool })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Parses TVMScript (a whole `@I.ir_module`, as TVM prints it) without metadata constants.
    pub fn parse(src: &str) -> Result<IRModule> {
        Engine::parse_with_metadata(src, Vec::new())
    }

    /// Parses TVMScript whose `metadata["ir.GenericConst"][i]` refers to `metadata[i]`.
    pub fn parse_with_metadata(src: &str, metadata: Vec<Tensor>) -> Result<IRModule> {
        relax::script::parse_module_with(src, &ReadOptions::with_metadata(metadata))
            .map_err(|e| Error::relax("parsing TVMScript", e))
    }

    /// The high-level passes (`relax::pipeline::OPT_PASSES`): LambdaLift, LegalizeOps (every
    /// operator becomes a `call_tir` of a PrimFunc; an operator without a rule is an error
    /// naming it, its function and its variable), AnnotateTIROpPattern, FoldConstant, FuseOps
    /// and FuseTIR if [`Config::fusion`], cleanups. The result is what the backend takes, the
    /// analogue of TVM's `legalized.py`.
    pub fn optimize(&self, module: &IRModule) -> Result<IRModule> {
        let config = relax::pipeline::OptConfig {
            fusion: self.config.fusion,
            library: self.config.library,
            max_fold_bytes: self.config.max_fold_bytes,
        };
        relax::pipeline::optimize(module, &config).map_err(|e| Error::relax("optimizing", e))
    }

    /// [`optimize`](Self::optimize) and the backend passes (`relax::pipeline::PASSES`): the
    /// module VMCodeGen turns into bytecode (TVM's `tvm_lowered.py`), with PrimFuncs, shape
    /// functions and `vm.builtin.*` calls.
    pub fn lower(&self, module: &IRModule) -> Result<IRModule> {
        let m = self.optimize(module)?;
        relax::pipeline::lower(&m).map_err(|e| Error::relax("lowering", e))
    }

    /// Compiles a module: optimization, lowering, bytecode, kernels, link check — or, with
    /// [`Config::cache`] holding the module's entry, loads it from there.
    pub fn compile(&self, module: &IRModule) -> Result<CompiledModule> {
        self.compile_aliased(module, None)
    }

    /// [`compile`](Self::compile), storing the entry under the cache key `alias` too (the key
    /// of the source text `module` was parsed from) — also when the module itself was a hit
    /// (then as an alias file naming its entry), so that the next compile of that text finds
    /// it without parsing.
    fn compile_aliased(
        &self,
        module: &IRModule,
        alias: Option<&jit::cache::Key>,
    ) -> Result<CompiledModule> {
        let cached = self.cache_key(module);
        if let Some((cache, key)) = &cached
            && let Some(hit) = self.load_cached(cache, key)
        {
            if let Some(alias) = alias {
                cache.store_alias(alias, key);
            }
            return Ok(hit);
        }
        let lowered = self.lower(module)?;
        let (exec, prim_funcs) =
            relax::codegen::codegen(&lowered).map_err(|e| Error::relax("VMCodeGen", e))?;
        let funcs: Vec<tir::PrimFunc> = prim_funcs.prim_funcs().map(|(_, f)| f.clone()).collect();
        let kernels = KernelLibrary::compile(&funcs)?;
        let mut library = Library::new();
        kernels.add_for(&mut library, &exec);
        let mut vmtir = None;
        if self.config.exec_mode == ExecMode::Compiled {
            let module =
                jit::vmtir::compile(&exec, &kernels).map_err(|error| Error::Link { error })?;
            module.add_to(&mut library);
            vmtir = Some(VmtirInfo { module });
        }
        let compiled = CompiledModule {
            // In compiled mode, the executable recording the compiled functions.
            exec: vmtir
                .as_ref()
                .map_or_else(|| Arc::new(exec), |v| v.module.executable.clone()),
            kernels,
            library,
            vmtir,
            vm_config: VmConfig {
                allocator: self.config.allocator,
                ..VmConfig::default()
            },
            pool: self.pool.clone(),
            from_cache: false,
            parallel: false,
        }
        .with_parallel();
        // Resolving every function the bytecode names here makes a missing kernel or builtin a
        // compile-time error, without building a VM that nobody would use.
        compiled
            .exec
            .validate()
            .map_err(|error| Error::Link { error })?;
        compiled
            .library
            .check_link(&compiled.exec)
            .map_err(|error| Error::Link { error })?;
        if let Some((cache, key)) = &cached
            && let Some(entry) = crate::cache::to_entry(cache, &compiled)
        {
            cache.store_with_aliases(key, alias.copied().as_slice(), &entry);
        }
        Ok(compiled)
    }

    /// The cache and the key of compiling `module`, if this compile uses the cache.
    fn cache_key(&self, module: &IRModule) -> Option<(&ArtifactCache, jit::cache::Key)> {
        let cache = self.cache_key_parts()?;
        Some((cache, crate::cache::key(cache, &self.config, module)?))
    }

    /// The cache, if compiles of this engine use it.
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn cache_key_parts(&self) -> Option<&ArtifactCache> {
        self.config.cache.as_ref()
    }

    /// The module stored under `key`, linked and checked as a compile checks it; `None` (a
    /// miss, with a warning if an entry was there but unusable) otherwise.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn load_cached(&self, cache: &ArtifactCache, key: &jit::cache::Key) -> Option<CompiledModule> {
        // The executable deserialized where it lies in the entry's mapping, not copied first.
        let entry = cache.load_with(key, &mut crate::cache::load_executable)?;
        let compiled = self.config.exec_mode == ExecMode::Compiled;
        let loaded = crate::cache::from_entry(entry, compiled).and_then(|loaded| {
            let (exec, kernels, library, vmtir) = loaded;
            // `Executable::load_from_bytes` has validated the executable.
            library.check_link(&exec).map_err(|e| e.to_string())?;
            Ok(CompiledModule {
                exec,
                kernels,
                library,
                vm_config: crate::cache::vm_config(&self.config),
                pool: self.pool.clone(),
                from_cache: true,
                vmtir: vmtir.map(|module| VmtirInfo { module }),
                parallel: false,
            }
            .with_parallel())
        });
        match loaded {
            Ok(m) => Some(m),
            Err(e) => {
                cache.warn(&format!(
                    "{}: {e}; recompiling",
                    cache.path_of(key).display()
                ));
                None
            }
        }
    }

    /// Parses TVMScript and compiles it.
    pub fn compile_str(&self, src: &str) -> Result<CompiledModule> {
        self.compile_str_with_metadata(src, Vec::new())
    }

    /// Parses TVMScript with metadata constants and compiles it.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn compile_str_with_metadata(
        &self,
        src: &str,
        metadata: Vec<Tensor>,
    ) -> Result<CompiledModule> {
        // With a cache, the entry is linked under the source text's key too: a hit reads one
        // file and skips the parse.
        let alias = self.cache_key_parts().map(|cache| {
            (
                cache,
                crate::cache::source_key(cache, &self.config, src, &metadata),
            )
        });
        if let Some((cache, akey)) = &alias
            && let Some(hit) = self.load_cached(cache, akey)
        {
            return Ok(hit);
        }
        let module = Engine::parse_with_metadata(src, metadata)?;
        self.compile_aliased(&module, alias.as_ref().map(|(_, k)| k))
    }

    /// Imports an ONNX model (see [`onnx::import_file`]): the module, the graph's input and
    /// output names, and with `keep_params_in_input` the initializers' values.
    pub fn import_onnx<'a>(
        model: impl Into<OnnxModel<'a>>,
        options: &onnx::ImportOptions,
    ) -> Result<onnx::ImportedModel> {
        Ok(match model.into() {
            OnnxModel::Bytes(b) => onnx::import_bytes(b, options)?,
            OnnxModel::InFolder { bytes, folder } => {
                onnx::import_in(Cow::Borrowed(bytes), Some(folder), options)?
            }
            OnnxModel::Path(p) => onnx::import_file(p, options)?,
        })
    }

    /// Imports an ONNX model and compiles it; its function is `options.func_name` (`main`),
    /// taking the graph inputs (then the initializers, with `keep_params_in_input`).
    ///
    /// With a cache ([`Config::cache`]), the entry is linked under the key of the model's
    /// bytes, its external-data files' bytes and `options` too ([`crate::cache::onnx_key`]):
    /// a hit reads those and one entry, and neither imports the model nor hashes the module's
    /// constants.
    pub fn compile_onnx<'a>(
        &self,
        model: impl Into<OnnxModel<'a>>,
        options: &onnx::ImportOptions,
    ) -> Result<CompiledModule> {
        // A file is read once, for the key and the import.
        let (bytes, folder) = match model.into() {
            OnnxModel::Bytes(b) => (Cow::Borrowed(b), None),
            OnnxModel::InFolder { bytes, folder } => (Cow::Borrowed(bytes), Some(folder)),
            OnnxModel::Path(p) => {
                let bytes = std::fs::read(p).map_err(|error| onnx::Error::Io {
                    path: p.to_path_buf(),
                    error,
                })?;
                (Cow::Owned(bytes), Some(onnx::model_folder(p)))
            }
        };
        let alias = self.cache_key_parts().and_then(|cache| {
            Some((
                cache,
                crate::cache::onnx_key(cache, &self.config, &bytes, folder, options)?,
            ))
        });
        if let Some((cache, akey)) = &alias
            && let Some(hit) = self.load_cached(cache, akey)
        {
            return Ok(hit);
        }
        let module = onnx::import_in(bytes, folder, options)?.module;
        self.compile_aliased(&module, alias.as_ref().map(|(_, k)| k))
    }

    /// The one-shot case: compiles `src` with the default configuration and calls `func`.
    pub fn compile_and_run(src: &str, func: &str, args: &[Value]) -> Result<Value> {
        Engine::default().compile_str(src)?.run(func, args)
    }
}

/// An ONNX model for [`Engine::compile_onnx`]: serialized bytes, or a file (whose folder
/// holds its external-data files, if any).
#[derive(Clone, Copy, Debug)]
pub enum OnnxModel<'a> {
    /// A model without external data.
    Bytes(&'a [u8]),
    /// A model read already, whose external-data files are in `folder`.
    InFolder {
        bytes: &'a [u8],
        folder: &'a std::path::Path,
    },
    /// A model file; its external-data files are in its folder.
    Path(&'a std::path::Path),
}

impl<'a> From<&'a [u8]> for OnnxModel<'a> {
    fn from(b: &'a [u8]) -> OnnxModel<'a> {
        OnnxModel::Bytes(b)
    }
}

impl<'a> From<&'a Vec<u8>> for OnnxModel<'a> {
    fn from(b: &'a Vec<u8>) -> OnnxModel<'a> {
        OnnxModel::Bytes(b)
    }
}

impl<'a> From<&'a std::path::Path> for OnnxModel<'a> {
    fn from(p: &'a std::path::Path) -> OnnxModel<'a> {
        OnnxModel::Path(p)
    }
}

impl<'a> From<&'a std::path::PathBuf> for OnnxModel<'a> {
    fn from(p: &'a std::path::PathBuf) -> OnnxModel<'a> {
        OnnxModel::Path(p)
    }
}

/// A compiled module: the executable, its kernels and the library linking them. Immutable and
/// `Send + Sync`; each caller makes its own VM with [`vm`](Self::vm).
#[derive(Clone)]
pub struct CompiledModule {
    exec: Arc<Executable>,
    kernels: KernelLibrary,
    library: Library,
    vm_config: VmConfig,
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Loaded from the artifact cache rather than compiled.
    from_cache: bool,
    /// Compiled mode only: what `jit::vmtir` did.
    vmtir: Option<VmtirInfo>,
    /// Whether a call may start parallel loops (a kernel has one, or a library kernel is
    /// called), and so leads a team of the pool's workers (`jit::pool::call`).
    parallel: bool,
}

/// What compiled mode recorded for a module.
#[derive(Clone, Debug)]
struct VmtirInfo {
    module: jit::vmtir::VmtirModule,
}

impl std::fmt::Debug for CompiledModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledModule")
            .field("functions", &self.exec.func_table.len())
            .field("kernels", &self.kernels.kernels().len())
            .finish_non_exhaustive()
    }
}

impl CompiledModule {
    /// The bytecode executable (`as_text()`, `as_python()`, `stats()`, serialization).
    pub fn executable(&self) -> &Arc<Executable> {
        &self.exec
    }

    /// The compiled kernels (PrimFuncs and shape functions).
    pub fn kernels(&self) -> &KernelLibrary {
        &self.kernels
    }

    /// The mode the functions run in: [`ExecMode::Compiled`] if compiled mode translated them
    /// (even if some fell back to bytecode).
    pub fn exec_mode(&self) -> ExecMode {
        if self.vmtir.is_some() {
            ExecMode::Compiled
        } else {
            ExecMode::Bytecode
        }
    }

    /// Compiled mode: the functions that stay bytecode because they could not be compiled,
    /// with the reason. Empty in bytecode mode.
    pub fn fallbacks(&self) -> &[jit::vmtir::Fallback] {
        self.vmtir.as_ref().map_or(&[], |v| &v.module.fallbacks)
    }

    /// Compiled mode: the time spent translating the functions to native code (included in
    /// the compile time), or for a module from the artifact cache the time spent linking their
    /// stored code (mapped with the kernels'). `None` in bytecode mode.
    pub fn vmtir_compile_time(&self) -> Option<std::time::Duration> {
        self.vmtir.as_ref().map(|v| v.module.compile_time)
    }

    /// Compiled mode: the compiled functions (what the artifact cache stores of them).
    pub(crate) fn vmtir_module(&self) -> Option<&jit::vmtir::VmtirModule> {
        self.vmtir.as_ref().map(|v| &v.module)
    }

    /// Whether this module was loaded from the artifact cache ([`Config::cache`]).
    pub fn from_cache(&self) -> bool {
        self.from_cache
    }

    /// The functions linked into every VM.
    pub fn library(&self) -> &Library {
        &self.library
    }

    /// A fresh VM for one caller.
    pub fn vm(&self) -> Result<VirtualMachine> {
        VirtualMachine::new(self.exec.clone(), &self.library, self.vm_config.clone())
            .map_err(|error| Error::Link { error })
    }

    /// Sets [`parallel`](Self::parallel) from the kernels and the functions the executable
    /// calls.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn with_parallel(mut self) -> CompiledModule {
        let prefix = relax::transform::dispatch_library::PREFIX;
        self.parallel = self
            .kernels
            .kernels()
            .iter()
            .any(|k| k.meta().parallel_loops > 0)
            || self
                .exec
                .func_table
                .iter()
                .any(|f| f.kind == vm::FuncKind::PackedFunc && f.name.starts_with(prefix));
        self
    }

    /// Calls `func` on `vm` with the engine's thread pool (if it has one, else rayon's global
    /// pool) as the pool of the kernels' parallel loops. A module whose kernels start parallel
    /// loops runs the call on the caller's thread as the lead of the pool's other workers
    /// (`jit::pool::call`): they spin for its loops' work, and on to the next call, and the
    /// call never crosses into the pool.
    pub fn invoke(&self, vm: &VirtualMachine, func: &str, args: &[Value]) -> Result<Value> {
        let _pool = self
            .pool
            .is_some()
            .then(|| jit::pool::enter(self.pool.clone()));
        if self.parallel {
            return Ok(jit::pool::call(self.pool.as_deref(), || {
                vm.invoke(func, args)
            })?);
        }
        Ok(vm.invoke(func, args)?)
    }

    /// Calls `func` on a fresh VM.
    pub fn run(&self, func: &str, args: &[Value]) -> Result<Value> {
        let vm = self.vm()?;
        self.invoke(&vm, func, args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn compiled_modules_are_shareable() {
        assert_send_sync::<CompiledModule>();
        assert_send_sync::<Engine>();
    }
}
