//! The engine's side of the artifact cache ([`jit::cache`]): the key of a compile, and a
//! [`CompiledModule`] turned into an entry and back.
//!
//! The key covers the module as canonical TVMScript (the printer's output, which parses back to
//! the same module) with every metadata tensor's dtype, shape and bytes, the [`Config`] fields
//! that change what is compiled (exec mode, fusion, library dispatch, the constant-folding
//! limit) and the kernel compile options; [`ArtifactCache::key_builder`] adds the relaxjit build
//! and the host ISA. Fields that only shape the run (threads, allocator) are applied to the
//! loaded module from the current configuration instead.
//!
//! Two aliases name the same entries from what a module was made of, so that a hit skips
//! making it (and hashing its constants): [`source_key`], the TVMScript text with its
//! metadata, and [`onnx_key`], an ONNX model's bytes with its external-data files and the
//! import options. For ResNet-50 from ONNX (100 MB of weights) the alias brought a cache hit
//! of `relaxjit bench` from 264–338 ms to 113–124 ms (the import, the print and reparse, and
//! the SHA-256 of every weight left out), and with the executable read in place
//! ([`ArtifactCache::load_with`]) to 43–53 ms on a quiet machine, against 309–335 ms without
//! the cache. The entry keeps the executable's tensor constants in an aligned section of its
//! own ([`vm::Executable::save_to_bytes_external`], [`jit::cache::entry`]), so that a hit uses
//! them where they lie in the mapping instead of copying each into a tensor of its own
//! ([`load_executable`]); a `.bin` file of TVM's format is read as before, copying. That took
//! the ResNet-50 hit (a 62 MB entry) from 37–50 ms to 10–15 ms (minima of seven interleaved
//! runs each: 37.2 and 10.1 ms; on a busier minute 52.8 and 13.7 ms), its page faults from
//! about 10,500 to 3,600 a process, and left the first call as it was. What the hit then spends
//! is the checksum of the whole file (nine tenths of its samples) and the ONNX model's
//! signature and key (one tenth).

use std::sync::Arc;

use jit::cache::{ArtifactCache, Entry, Key, KeyBuilder};
use jit::code::CodeMemory;
use jit::kernel::{CompileOptions, KernelLibrary};
use relax::IRModule;
use vm::{Executable, Library, VmConfig};

use crate::engine::{CompiledModule, Config};

/// The key of compiling `module` under `config`; `None` if the module's text does not stand
/// for it (it does not parse back to a structurally equal module — which a module built in
/// Rust that the printer cannot express fully could do), so that two modules printing alike
/// can never share an entry.
pub(crate) fn key(cache: &ArtifactCache, config: &Config, module: &IRModule) -> Option<Key> {
    let (text, metadata) = relax::script::print_module_with_metadata(module);
    let options = relax::script::ReadOptions::with_metadata(metadata.clone());
    let reparsed = relax::script::parse_module_with(&text, &options).ok()?;
    if !relax::structural_equal(&reparsed, module) {
        return None;
    }
    let mut k = cache.key_builder();
    k.part("module", text.as_bytes());
    config_parts(&mut k, config, &metadata);
    Some(k.finish())
}

/// From this many bytes of metadata, the key hashes each tensor on its own, in parallel.
const PARALLEL_HASH_BYTES: usize = 16 << 20;

/// The metadata tensors and the configuration, after the text of a key.
// On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn config_parts(k: &mut KeyBuilder, config: &Config, metadata: &[vm::Tensor]) {
    // A model's weights (hundreds of MB) are hashed a tensor per task on the pool, each to its
    // own digest, which the key then takes; a small module's constants go into the key
    // itself, sparing its hit the pool's start.
    let bytes: usize = metadata.iter().map(vm::Tensor::nbytes).sum();
    let digests: Vec<[u8; 32]> = if bytes >= PARALLEL_HASH_BYTES {
        use rayon::prelude::*;
        metadata
            .par_iter()
            .map(|t| {
                let mut h = jit::sha256::Sha256::new();
                t.read_chunks(|c| h.update(c));
                h.finalize()
            })
            .collect()
    } else {
        Vec::new()
    };
    for (i, t) in metadata.iter().enumerate() {
        let d = t.dtype();
        k.part("metadata.dtype", &[d.code, d.bits]);
        k.part("metadata.lanes", &d.lanes.to_le_bytes());
        let shape: Vec<u8> = t.shape().iter().flat_map(|d| d.to_le_bytes()).collect();
        k.part("metadata.shape", &shape);
        match digests.get(i) {
            Some(digest) => k.part("metadata.digest", digest),
            None => k.part_pieces("metadata.data", t.nbytes(), |piece| t.read_chunks(piece)),
        };
    }
    let exec_mode: &[u8] = match config.exec_mode {
        crate::ExecMode::Bytecode => b"bytecode",
        crate::ExecMode::Compiled => b"compiled",
    };
    k.part("exec_mode", exec_mode);
    k.part("fusion", &[config.fusion as u8]);
    k.part("library", &[config.library as u8]);
    k.part(
        "max_fold_bytes",
        &(config.max_fold_bytes as u64).to_le_bytes(),
    );
    // Destructured, so that a new option cannot be left out of the key; bytes rather than
    // `Debug` text, whose formatting machinery a cache hit would otherwise page in.
    let CompileOptions {
        vectorize,
        parallel,
        loop_transforms,
        contract_fma,
    } = CompileOptions::default();
    k.part(
        "kernel_options",
        &[vectorize, parallel, loop_transforms, contract_fma].map(u8::from),
    );
}

/// The key of compiling the TVMScript `src` with `metadata` under `config`, before parsing:
/// an alias of [`key`] that spares a hit the parse.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub(crate) fn source_key(
    cache: &ArtifactCache,
    config: &Config,
    src: &str,
    metadata: &[vm::Tensor],
) -> Key {
    let mut k = cache.key_builder();
    k.part("source", src.as_bytes());
    config_parts(&mut k, config, metadata);
    k.finish()
}

/// The key of importing the ONNX `model` with `options` and compiling it under `config`:
/// an alias of [`key`] that spares a hit the import. It covers the model's bytes, the bytes
/// of every external-data file its initializers name ([`onnx::Signature::external_data`],
/// the only files an import reads, in the model's `folder`) and every import option; `None`
/// (no alias, the compile keyed as usual) if the model cannot be decoded, or an external-data
/// file cannot be read — the import then reports what is wrong.
pub(crate) fn onnx_key(
    cache: &ArtifactCache,
    config: &Config,
    bytes: &[u8],
    folder: Option<&std::path::Path>,
    options: &onnx::ImportOptions,
) -> Option<Key> {
    let signature = onnx::signature(bytes).ok()?;
    let mut k = cache.key_builder();
    k.part("onnx", bytes);
    // Destructured, so that a new option cannot be left out of the key.
    let onnx::ImportOptions {
        keep_params_in_input,
        func_name,
        constant_fill_budget,
    } = options;
    k.part(
        "onnx.keep_params_in_input",
        &[u8::from(*keep_params_in_input)],
    );
    k.part("onnx.func_name", func_name.as_bytes());
    k.part(
        "onnx.constant_fill_budget",
        &(*constant_fill_budget as u64).to_le_bytes(),
    );
    for location in &signature.external_data {
        // Without a folder, or outside it, the file is not read: the import fails, uncached.
        let data = std::fs::read(onnx::tensor::external_path(folder?, location)?).ok()?;
        k.part("onnx.external_data.location", location.as_bytes());
        k.part("onnx.external_data.bytes", &data);
    }
    config_parts(&mut k, config, &[]);
    Some(k.finish())
}

/// The entry that rebuilds `compiled`; `None` (with a warning) if its executable holds
/// something the serialized format cannot.
pub(crate) fn to_entry(cache: &ArtifactCache, compiled: &CompiledModule) -> Option<Entry> {
    let mut constants = Vec::new();
    let executable = match compiled
        .executable()
        .save_to_bytes_external(&mut |t| constants.push(t.clone()))
    {
        Ok(b) => b,
        Err(e) => {
            cache.warn(&format!(
                "not cached: the executable cannot be serialized: {e}"
            ));
            return None;
        }
    };
    let kernels = compiled.kernels();
    Some(Entry {
        executable,
        constants,
        code: kernels.code_blob(),
        kernels: kernels.kernels().iter().map(|k| k.meta().clone()).collect(),
        extra: compiled
            .vmtir_module()
            .map(|m| {
                vec![(
                    jit::vmtir::SECTION.to_string(),
                    jit::vmtir::VmtirModule::to_section(m),
                )]
            })
            .unwrap_or_default(),
    })
}

/// The parts of a compiled module rebuilt from `entry`: the executable, the kernels over the
/// entry's code, the library linking them, and in compiled exec mode (`compiled`) the compiled
/// functions over the code of the entry's [`jit::vmtir::SECTION`]. The caller checks the link
/// as after a compile.
pub(crate) type Loaded = (
    Arc<Executable>,
    KernelLibrary,
    Library,
    Option<jit::vmtir::VmtirModule>,
);

/// The executable of an entry's bytes and constants ([`ArtifactCache::load_with`]): its
/// tensor constants are the entry's tensors themselves, over the file's mapping when it is
/// mapped.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub(crate) fn load_executable(
    bytes: &[u8],
    constants: &[vm::Tensor],
) -> Result<Arc<Executable>, String> {
    // Matches and loops rather than `Result` and `Iterator` adapters, whose closures and
    // generic code would lie outside the hit path's section.
    let exec = match Executable::load_from_bytes_external(bytes, &mut |k, _, _| {
        tensor_constant(constants, k)
    }) {
        Ok(exec) => exec,
        Err(e) => return Err(load_error(e)),
    };
    let mut used = 0;
    for c in &exec.constants {
        used += usize::from(matches!(c, vm::Value::Tensor(_)));
    }
    if used != constants.len() {
        return Err(load_error(vm::Error::load(format!(
            "{used} tensor constants, of the {} the entry holds",
            constants.len()
        ))));
    }
    Ok(Arc::new(exec))
}

/// The `k`th of an entry's tensor constants.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn tensor_constant(constants: &[vm::Tensor], k: usize) -> vm::Result<vm::Tensor> {
    match constants.get(k) {
        Some(t) => Ok(t.clone()),
        None => Err(vm::Error::load(format!(
            "tensor constant {k}, of the {} the entry holds",
            constants.len()
        ))),
    }
}

#[cold]
fn load_error(e: vm::Error) -> String {
    format!("the stored executable does not load: {e}")
}

#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub(crate) fn from_entry(entry: Entry<Arc<Executable>>, compiled: bool) -> Result<Loaded, String> {
    let exec = entry.executable;
    let section = match entry.extra.as_slice() {
        [] => None,
        [(name, bytes)] if name == jit::vmtir::SECTION => Some(bytes),
        other => {
            let names: Vec<&str> = other.iter().map(|(n, _)| n.as_str()).collect();
            return Err(format!("unexpected sections {names:?}"));
        }
    };
    let code_error = |e: jit::Error| format!("the stored code does not load: {e}");
    let compiled_error = |e: jit::Error| format!("the stored compiled functions do not load: {e}");
    match (compiled, section) {
        (false, None) => {
            let kernels =
                KernelLibrary::from_code(entry.code, entry.kernels).map_err(code_error)?;
            let mut library = Library::new();
            kernels.add_for(&mut library, &exec);
            Ok((exec, kernels, library, None))
        }
        (true, Some(section)) => {
            // The kernels' code and the compiled functions' in one mapping.
            let mut section = jit::vmtir::Section::parse(section).map_err(compiled_error)?;
            let (kernel_code, vmtir_code) =
                CodeMemory::new_pair(entry.code, std::mem::take(&mut section.code))
                    .map_err(code_error)?;
            let kernels =
                KernelLibrary::from_memory(kernel_code, entry.kernels).map_err(code_error)?;
            let mut library = Library::new();
            kernels.add_for(&mut library, &exec);
            let m = jit::vmtir::load_mapped(&exec, &kernels, section, vmtir_code)
                .map_err(compiled_error)?;
            m.add_to(&mut library);
            Ok((exec, kernels, library, Some(m)))
        }
        (true, None) => Err("no compiled functions in a compiled-mode entry".into()),
        (false, Some(_)) => Err("compiled functions in a bytecode-mode entry".into()),
    }
}

/// The VM settings a loaded module gets: as for a compile under `config`.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub(crate) fn vm_config(config: &Config) -> VmConfig {
    VmConfig {
        allocator: config.allocator,
        ..VmConfig::default()
    }
}
