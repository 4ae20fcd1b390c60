//! Our own code memory: Cranelift functions compiled to bytes, laid out in one
//! position-independent blob, and mapped executable.
//!
//! ```text
//! CodeBuilder (a cranelift_module::Module) ──finish──► CodeBlob (bytes + symbols)
//!     ──append──► one blob per compiled module ──CodeMemory::new──► executable pages
//!                                     └──── artifact cache (crate::cache) ────┘
//! ```
//!
//! Generated code reaches everything outside itself through the runtime table it is handed as
//! an argument ([`crate::kernel::runtime`]), so the only relocations are between functions of
//! the same builder (a kernel taking the address of its outlined parallel loops, a function
//! calling another); [`CodeBuilder::finish`] resolves them PC-relative inside the blob. The
//! blob is therefore position-independent as a whole: a cold compile and a load from the cache
//! copy the same bytes into fresh pages, and nothing is patched at load time. A relocation that
//! would need an absolute address (a libcall, a data object, an `Abs8` from a non-PIC
//! lowering) is refused with [`Error::Unsupported`] when the builder finishes, so such code can
//! never reach the cache.
//!
//! Pages are written while mapped read-write and then switched to read-execute; they are
//! never writable and executable at once.

use std::collections::HashMap;
use std::sync::Arc;

use cranelift_codegen::Context;
use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::isa::{OwnedTargetIsa, TargetIsa};
use cranelift_module::{
    DataDescription, DataId, FuncId, Linkage, Module, ModuleDeclarations, ModuleError, ModuleReloc,
    ModuleRelocTarget, ModuleResult,
};

use crate::error::{Error, Result};

/// One function's machine code before layout.
#[derive(Clone)]
struct CompiledFunc {
    bytes: Vec<u8>,
    align: u64,
    relocs: Vec<ModuleReloc>,
}

/// Collects compiled functions; a [`cranelift_module::Module`], so translators written against
/// that trait (declare, `declare_func_in_func`, define) use it unchanged.
///
/// Functions declared with a name become symbols of the finished [`CodeBlob`]; anonymous ones
/// (outlined loop bodies) are reachable only from the functions of this builder.
pub struct CodeBuilder {
    isa: OwnedTargetIsa,
    declarations: ModuleDeclarations,
    funcs: HashMap<FuncId, CompiledFunc>,
    max_instructions: usize,
}

/// The compile budget: the most Cranelift instructions one function may have when it is handed
/// to Cranelift. Compile time is mostly register allocation, which grows faster than the
/// function; past this a pathological but valid program (nested gathers, a Relax function of
/// hundreds of thousands of bindings) would hold a compile for minutes. The largest functions
/// of the benchmark models and the conformance corpus are two orders of magnitude smaller
/// (kernels: 2 014 instructions, `fused_matmul_add_relu` of `model_mlp_symbolic_batch`;
/// compiled Relax functions: 3 143, ResNet-50's `main`); `tests/compile_budget.rs` keeps the
/// budget at least 20 times above them.
pub const MAX_CLIF_INSTRUCTIONS: usize = 400_000;

impl CodeBuilder {
    /// A builder compiling for `isa`, within [`MAX_CLIF_INSTRUCTIONS`] per function.
    pub fn new(isa: OwnedTargetIsa) -> CodeBuilder {
        CodeBuilder {
            isa,
            declarations: ModuleDeclarations::default(),
            funcs: HashMap::new(),
            max_instructions: MAX_CLIF_INSTRUCTIONS,
        }
    }

    /// This builder with another budget of Cranelift instructions per function.
    pub fn with_max_instructions(self, max_instructions: usize) -> CodeBuilder {
        CodeBuilder {
            max_instructions,
            ..self
        }
    }

    /// [`Error::TooLarge`] naming `function` if `func` has more instructions than this
    /// builder's budget; to be asked before defining it, so that Cranelift never starts on it.
    pub fn check_size(&self, function: &str, func: &cranelift_codegen::ir::Function) -> Result<()> {
        let instructions = func.dfg.num_insts();
        if instructions > self.max_instructions {
            return Err(Error::TooLarge {
                function: function.to_string(),
                instructions,
                limit: self.max_instructions,
            });
        }
        Ok(())
    }

    /// A builder compiling for the host ([`crate::isa::host_isa`]).
    pub fn host() -> Result<CodeBuilder> {
        Ok(CodeBuilder::new(crate::isa::host_isa()?))
    }

    /// Lays the defined functions out in declaration order and resolves the relocations
    /// between them. Functions declared but never defined are left out; a reference to one
    /// is an error.
    pub fn finish(self) -> Result<CodeBlob> {
        let mut bytes = Vec::new();
        let mut offsets: HashMap<FuncId, u64> = HashMap::new();
        let mut symbols = Vec::new();
        let mut order: Vec<FuncId> = self.funcs.keys().copied().collect();
        order.sort();
        for id in &order {
            let f = &self.funcs[id];
            let align = f.align.max(1);
            let start = (bytes.len() as u64).div_ceil(align) * align;
            bytes.resize(start as usize, 0);
            bytes.extend_from_slice(&f.bytes);
            offsets.insert(*id, start);
            let decl = self.declarations.get_function_decl(*id);
            if let Some(name) = &decl.name {
                symbols.push(Symbol {
                    name: name.clone(),
                    offset: start,
                });
            }
        }
        for id in &order {
            let base = offsets[id];
            for r in &self.funcs[id].relocs {
                let target = match &r.name {
                    ModuleRelocTarget::User {
                        namespace: 0,
                        index,
                    } => {
                        let fid = FuncId::from_u32(*index);
                        *offsets.get(&fid).ok_or_else(|| {
                            Error::Module(format!(
                                "`{}` refers to `{}`, which was declared but never defined",
                                self.declarations.get_function_decl(*id).linkage_name(*id),
                                self.declarations.get_function_decl(fid).linkage_name(fid)
                            ))
                        })?
                    }
                    ModuleRelocTarget::FunctionOffset(fid, off) => {
                        offsets.get(fid).copied().ok_or_else(|| {
                            Error::Module("relocation into an undefined function".into())
                        })? + u64::from(*off)
                    }
                    other => {
                        return Err(Error::Unsupported(format!(
                            "code refers to `{other}`, which needs an absolute address; \
                             generated code must call out through the runtime table"
                        )));
                    }
                };
                let at = base + u64::from(r.offset);
                patch(&mut bytes, r.kind, at, target as i64 + r.addend)?;
            }
        }
        Ok(CodeBlob { bytes, symbols })
    }
}

/// Writes the PC-relative relocation `kind` at `at` so that it reaches `value` (an offset in
/// the same blob, addend included).
fn patch(bytes: &mut [u8], kind: Reloc, at: u64, value: i64) -> Result<()> {
    let pc = at as i64;
    let word = |bytes: &mut [u8], len: usize| -> Result<std::ops::Range<usize>> {
        let r = at as usize..at as usize + len;
        if r.end > bytes.len() {
            return Err(Error::Module(format!("relocation at {at} past the code")));
        }
        Ok(r)
    };
    match kind {
        Reloc::X86PCRel4 | Reloc::X86CallPCRel4 => {
            let delta = i32::try_from(value - pc)
                .map_err(|_| Error::Module("PC-relative reference beyond ±2 GiB".into()))?;
            let r = word(bytes, 4)?;
            bytes[r].copy_from_slice(&delta.to_le_bytes());
        }
        Reloc::Arm64Call => {
            let delta = (value - pc) >> 2;
            if !(-(1 << 25)..(1 << 25)).contains(&delta) {
                return Err(Error::Module("call beyond ±128 MiB".into()));
            }
            let r = word(bytes, 4)?;
            let old = u32::from_le_bytes(bytes[r.clone()].try_into().expect("4 bytes"));
            let new = (old & 0xfc00_0000) | (delta as u32 & 0x03ff_ffff);
            bytes[r].copy_from_slice(&new.to_le_bytes());
        }
        // `adrp` + `add` (aarch64 `func_addr` of a colocated function). `adrp` counts 4 KiB
        // pages from the page of the instruction, which stays position-independent because
        // code memory starts on a page boundary, so offsets keep their page offsets.
        Reloc::Aarch64AdrPrelPgHi21 => {
            let pages = ((value & !0xfff) - (pc & !0xfff)) >> 12;
            if !(-(1 << 20)..(1 << 20)).contains(&pages) {
                return Err(Error::Module("adrp beyond ±4 GiB".into()));
            }
            let r = word(bytes, 4)?;
            let old = u32::from_le_bytes(bytes[r.clone()].try_into().expect("4 bytes"));
            let (lo, hi) = ((pages as u32) & 0b11, ((pages as u32) >> 2) & 0x7_ffff);
            let new = (old & !((0b11 << 29) | (0x7_ffff << 5))) | (lo << 29) | (hi << 5);
            bytes[r].copy_from_slice(&new.to_le_bytes());
        }
        Reloc::Aarch64AddAbsLo12Nc => {
            let r = word(bytes, 4)?;
            let old = u32::from_le_bytes(bytes[r.clone()].try_into().expect("4 bytes"));
            let new = (old & !(0xfff << 10)) | (((value as u32) & 0xfff) << 10);
            bytes[r].copy_from_slice(&new.to_le_bytes());
        }
        other => {
            return Err(Error::Unsupported(format!(
                "relocation kind {other:?} cannot be resolved inside position-independent code"
            )));
        }
    }
    Ok(())
}

impl Module for CodeBuilder {
    fn isa(&self) -> &dyn TargetIsa {
        &*self.isa
    }

    fn declarations(&self) -> &ModuleDeclarations {
        &self.declarations
    }

    fn declare_function(
        &mut self,
        name: &str,
        linkage: Linkage,
        signature: &cranelift_codegen::ir::Signature,
    ) -> ModuleResult<FuncId> {
        let (id, _) = self
            .declarations
            .declare_function(name, linkage, signature)?;
        Ok(id)
    }

    fn declare_anonymous_function(
        &mut self,
        signature: &cranelift_codegen::ir::Signature,
    ) -> ModuleResult<FuncId> {
        self.declarations.declare_anonymous_function(signature)
    }

    fn declare_data(
        &mut self,
        name: &str,
        _linkage: Linkage,
        _writable: bool,
        _tls: bool,
    ) -> ModuleResult<DataId> {
        Err(no_data(&format!("data object `{name}`")))
    }

    fn declare_anonymous_data(&mut self, _writable: bool, _tls: bool) -> ModuleResult<DataId> {
        Err(no_data("data objects"))
    }

    fn define_function_with_control_plane(
        &mut self,
        id: FuncId,
        ctx: &mut Context,
        ctrl_plane: &mut ControlPlane,
    ) -> ModuleResult<()> {
        let decl = self.declarations.get_function_decl(id);
        if !decl.linkage.is_definable() {
            return Err(ModuleError::InvalidImportDefinition(
                decl.linkage_name(id).into_owned(),
            ));
        }
        if self.funcs.contains_key(&id) {
            return Err(ModuleError::DuplicateDefinition(
                decl.linkage_name(id).into_owned(),
            ));
        }
        // The callers ask `check_size` first, for an error naming the function; this keeps a
        // caller that does not within the budget too.
        if ctx.func.dfg.num_insts() > self.max_instructions {
            return Err(ModuleError::Compilation(
                cranelift_codegen::CodegenError::ImplLimitExceeded,
            ));
        }
        ctx.compile(&*self.isa, ctrl_plane)?;
        let compiled = ctx
            .compiled_code()
            .expect("Context::compile succeeded, so it holds the compiled code");
        let align = u64::from(compiled.buffer.alignment)
            .max(u64::from(self.isa.function_alignment().minimum))
            .max(self.isa.symbol_alignment());
        let relocs = compiled
            .buffer
            .relocs()
            .iter()
            .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, id))
            .collect();
        let bytes = compiled.code_buffer().to_vec();
        self.funcs.insert(
            id,
            CompiledFunc {
                bytes,
                align,
                relocs,
            },
        );
        Ok(())
    }

    fn define_function_bytes(
        &mut self,
        id: FuncId,
        alignment: u64,
        bytes: &[u8],
        relocs: &[ModuleReloc],
    ) -> ModuleResult<()> {
        let decl = self.declarations.get_function_decl(id);
        if self.funcs.contains_key(&id) {
            return Err(ModuleError::DuplicateDefinition(
                decl.linkage_name(id).into_owned(),
            ));
        }
        self.funcs.insert(
            id,
            CompiledFunc {
                bytes: bytes.to_vec(),
                align: alignment.max(u64::from(self.isa.function_alignment().minimum)),
                relocs: relocs.to_vec(),
            },
        );
        Ok(())
    }

    fn define_data(&mut self, _id: DataId, _data: &DataDescription) -> ModuleResult<()> {
        Err(no_data("data objects"))
    }
}

/// The error for data objects, which a blob of position-independent functions cannot hold.
fn no_data(what: &str) -> ModuleError {
    ModuleError::Compilation(cranelift_codegen::CodegenError::Unsupported(format!(
        "{what}: position-independent code blobs hold functions only"
    )))
}

/// A named entry point of a blob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The name it was declared under.
    pub name: String,
    /// Its offset from the start of the blob.
    pub offset: u64,
}

/// Linked, position-independent machine code and its symbols; not executable yet
/// ([`CodeMemory::new`] maps it). This is what the artifact cache stores.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeBlob {
    bytes: Vec<u8>,
    symbols: Vec<Symbol>,
}

/// The alignment of every blob appended to another: enough for any function and its constants
/// (Cranelift asks for at most 64 bytes), so appended code keeps the alignment it was laid out
/// with — and on aarch64 a whole 4 KiB page, because `adrp` resolved inside a blob counts pages
/// and holds only while the blob keeps its offset within a page.
const BLOB_ALIGN: u64 = if cfg!(target_arch = "aarch64") {
    4096
} else {
    64
};

impl CodeBlob {
    /// A blob from its parts (as read back from the cache). Every symbol must lie inside the
    /// code.
    // On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn from_parts(bytes: Vec<u8>, symbols: Vec<Symbol>) -> Result<CodeBlob> {
        if let Some(s) = symbols.iter().find(|s| s.offset >= bytes.len() as u64) {
            return Err(Error::Module(format!(
                "symbol `{}` at offset {} lies outside {} bytes of code",
                s.name,
                s.offset,
                bytes.len()
            )));
        }
        Ok(CodeBlob { bytes, symbols })
    }

    /// The machine code.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The named entry points, in layout order.
    pub fn symbols(&self) -> &[Symbol] {
        &self.symbols
    }

    /// The offset of `name`.
    pub fn offset_of(&self, name: &str) -> Option<u64> {
        self.symbols
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.offset)
    }

    /// Appends `other` (aligned) after this code, with its symbols. Blobs need no relocation to
    /// move, so this is a copy.
    pub fn append(&mut self, other: &CodeBlob) {
        let start = (self.bytes.len() as u64).div_ceil(BLOB_ALIGN) * BLOB_ALIGN;
        self.bytes.resize(start as usize, 0);
        self.bytes.extend_from_slice(&other.bytes);
        self.symbols.extend(other.symbols.iter().map(|s| Symbol {
            name: s.name.clone(),
            offset: start + s.offset,
        }));
    }
}

/// Executable pages holding one [`CodeBlob`]; freed (unmapped) when the last memory sharing
/// them drops. Whoever holds a function pointer into it holds an `Arc<CodeMemory>` too.
pub struct CodeMemory {
    /// The pages, shared by the blobs mapped together ([`CodeMemory::new_pair`]); `None` if
    /// they were all empty (a zero-length mapping is not allowed).
    map: Option<Arc<Pages>>,
    /// Where this blob's code lies in `map`.
    start: usize,
    len: usize,
    symbols: Vec<Symbol>,
    by_name: vm::NameMap<usize>,
}

impl std::fmt::Debug for CodeMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeMemory")
            .field("bytes", &self.len)
            .field("symbols", &self.symbols.len())
            .finish()
    }
}

impl CodeMemory {
    /// Copies `blob` into fresh anonymous pages and makes them read-execute.
    ///
    /// Copying rather than mapping a cache file executable keeps running code independent of
    /// the file: a later `cache clear`, an eviction or a truncation by another process cannot
    /// pull pages from under it (a shared file mapping would fault with SIGBUS).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn new(blob: CodeBlob) -> Result<Arc<CodeMemory>> {
        let mut starts = [0];
        let map = map_code(&[&blob.bytes], &mut starts)?;
        Ok(CodeMemory::in_map(map, starts[0], blob))
    }

    /// [`CodeMemory::new`] for two blobs at once (a compiled-mode module's kernels and its
    /// compiled functions), in one mapping: one `mmap` and one `mprotect` instead of two each,
    /// which a cache hit would otherwise spend the most of its system time on.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn new_pair(a: CodeBlob, b: CodeBlob) -> Result<(Arc<CodeMemory>, Arc<CodeMemory>)> {
        let mut starts = [0, 0];
        let map = map_code(&[&a.bytes, &b.bytes], &mut starts)?;
        Ok((
            CodeMemory::in_map(map.clone(), starts[0], a),
            CodeMemory::in_map(map, starts[1], b),
        ))
    }

    /// The memory of `blob`, whose code `map_code` copied to `start` of `map`.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn in_map(map: Option<Arc<Pages>>, start: usize, blob: CodeBlob) -> Arc<CodeMemory> {
        let mut by_name = vm::NameMap::with_capacity(blob.symbols.len());
        for s in &blob.symbols {
            by_name.insert_if_absent(vm::hit::copy_str(&s.name), s.offset as usize);
        }
        Arc::new(CodeMemory {
            map,
            start,
            len: blob.bytes.len(),
            symbols: blob.symbols,
            by_name,
        })
    }

    /// The address of the function declared as `name`.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn address(&self, name: &str) -> Option<*const u8> {
        let off = *self.by_name.get(name)?;
        let map = self.map.as_ref()?;
        // `from_parts` and `finish` keep every offset inside the code, which `map_code` copied
        // whole to `start`.
        Some(map[self.start + off..].as_ptr())
    }

    /// The symbols of the blob.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn symbols(&self) -> &[Symbol] {
        &self.symbols
    }

    /// The size of the code in bytes.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The blob this memory was made from (the pages are readable as well as executable).
    pub fn to_blob(&self) -> CodeBlob {
        CodeBlob {
            bytes: self
                .map
                .as_ref()
                .map_or_else(Vec::new, |m| m[self.start..self.start + self.len].to_vec()),
            symbols: self.symbols.clone(),
        }
    }

    /// Whether the blob was empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Code mappings larger than this are populated when made ([`map_code`]).
const POPULATE_AT_BYTES: usize = 16 << 10;

/// Copies `parts` into one fresh read-execute mapping, each at a multiple of [`BLOB_ALIGN`]
/// (where `starts` receives it), so that code keeps the alignment it was laid out with; `None`
/// if every part is empty.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn map_code(parts: &[&[u8]], starts: &mut [usize]) -> Result<Option<Arc<Pages>>> {
    let mut len = 0usize;
    for (part, start) in parts.iter().zip(starts.iter_mut()) {
        *start = len.div_ceil(BLOB_ALIGN as usize) * BLOB_ALIGN as usize;
        len = *start + part.len();
    }
    if len == 0 {
        return Ok(None);
    }
    // Populated if larger than a few pages: the kernel then hands over every page in the one
    // call instead of a page fault per page as the copy below first writes it, but for a page
    // or two the faults cost less than populating does (here about 5 µs against 8 for one
    // page, even at four).
    let mut rw = Pages::map(len, len > POPULATE_AT_BYTES)
        .map_err(|e| Error::Module(format!("cannot map code memory: {e}")))?;
    for (part, &start) in parts.iter().zip(starts.iter()) {
        rw.writable()[start..start + part.len()].copy_from_slice(part);
    }
    let rx = rw
        .make_exec()
        .map_err(|e| Error::Module(format!("cannot make code executable: {e}")))?;
    // SAFETY: `rx` is a live mapping of `rx.len()` bytes; clearing the instruction cache over
    // it only discards stale lines (architectures with coherent caches do nothing). The
    // pipeline flush then makes every thread see the new code.
    unsafe {
        wasmtime_jit_icache_coherence::clear_cache(rx.as_ptr().cast(), rx.len())
            .map_err(|e| Error::Module(format!("cannot clear the instruction cache: {e}")))?;
    }
    wasmtime_jit_icache_coherence::pipeline_flush_mt()
        .map_err(|e| Error::Module(format!("cannot flush the pipeline: {e}")))?;
    Ok(Some(Arc::new(rx)))
}

/// Anonymous pages for code: mapped read-write, then read-execute for good.
///
/// On Unix through `mmap` and `mprotect` directly rather than `memmap2`, whose code lies outside
/// the artifact cache's hit-path section (`crate::cache` docs, "Hit path"): on a virtual machine
/// the first call into it cost a compiled-mode hit more than the system calls themselves.
#[cfg(unix)]
pub(crate) struct Pages {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
    /// Whether the pages are read-execute (else read-write).
    exec: bool,
}

// SAFETY: `Pages` owns its mapping alone (nothing else holds the address); the pages are only
// written through `&mut self` while read-write, and read-execute pages are immutable.
#[cfg(unix)]
unsafe impl Send for Pages {}
// SAFETY: as above; a shared `Pages` only reads.
#[cfg(unix)]
unsafe impl Sync for Pages {}

#[cfg(unix)]
impl Pages {
    /// `len` (> 0) bytes of zeroed read-write pages; with `populate`, all made present at once
    /// (Linux), instead of a page fault per page at the first write.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn map(len: usize, populate: bool) -> std::io::Result<Pages> {
        let mut flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        #[cfg(target_os = "linux")]
        if populate {
            flags |= libc::MAP_POPULATE;
        }
        #[cfg(not(target_os = "linux"))]
        let _ = populate;
        // SAFETY: a fresh private anonymous mapping at an address of the kernel's choosing
        // touches no existing memory.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let ptr = std::ptr::NonNull::new(p.cast::<u8>())
            .ok_or_else(|| std::io::Error::other("mmap returned a null mapping"))?;
        Ok(Pages {
            ptr,
            len,
            exec: false,
        })
    }

    /// The bytes, to write (read-write pages only).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn writable(&mut self) -> &mut [u8] {
        assert!(!self.exec, "code pages are not writable once executable");
        // SAFETY: the mapping is `len` bytes, read-write, and owned by `self`, borrowed
        // mutably here.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// The pages made read-execute (and no longer writable).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn make_exec(mut self) -> std::io::Result<Pages> {
        // SAFETY: the range is exactly this mapping, which `self` owns.
        let r = unsafe {
            libc::mprotect(
                self.ptr.as_ptr().cast(),
                self.len,
                libc::PROT_READ | libc::PROT_EXEC,
            )
        };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
        self.exec = true;
        Ok(self)
    }
}

#[cfg(unix)]
impl std::ops::Deref for Pages {
    type Target = [u8];
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn deref(&self) -> &[u8] {
        // SAFETY: the mapping is `len` readable bytes owned by `self` (read-write or
        // read-execute, readable either way), written only through `&mut self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

#[cfg(unix)]
impl Drop for Pages {
    fn drop(&mut self) {
        // SAFETY: the range is exactly this mapping, which nothing uses after `self` (whoever
        // holds a function pointer into it holds the `Arc` that owns `self`).
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

/// Anonymous pages for code, through `memmap2` where there is no `mmap` to call.
#[cfg(not(unix))]
pub(crate) struct Pages(PagesState);

#[cfg(not(unix))]
enum PagesState {
    Writable(memmap2::MmapMut),
    Exec(memmap2::Mmap),
}

#[cfg(not(unix))]
impl Pages {
    fn map(len: usize, populate: bool) -> std::io::Result<Pages> {
        let mut options = memmap2::MmapOptions::new();
        options.len(len);
        if populate {
            options.populate();
        }
        Ok(Pages(PagesState::Writable(options.map_anon()?)))
    }

    fn writable(&mut self) -> &mut [u8] {
        match &mut self.0 {
            PagesState::Writable(m) => m,
            PagesState::Exec(_) => panic!("code pages are not writable once executable"),
        }
    }

    fn make_exec(self) -> std::io::Result<Pages> {
        Ok(Pages(PagesState::Exec(match self.0 {
            PagesState::Writable(m) => m.make_exec()?,
            exec => return Ok(Pages(exec)),
        })))
    }
}

#[cfg(not(unix))]
impl std::ops::Deref for Pages {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            PagesState::Writable(m) => m,
            PagesState::Exec(m) => m,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_codegen::ir::{AbiParam, InstBuilder, types};
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// `callee(x) = x + 1` (anonymous) and `caller(x) = callee(x) * 2` through a direct call and
    /// through `func_addr` + `call_indirect`: both kinds of intra-blob relocation.
    fn build() -> CodeBlob {
        let mut b = CodeBuilder::host().unwrap();
        let mut sig = b.make_signature();
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I64));
        let callee = b.declare_anonymous_function(&sig).unwrap();
        let caller = b.declare_function("caller", Linkage::Export, &sig).unwrap();
        let frontend = b.target_config();
        let mut ctx = b.make_context();
        let mut fctx = FunctionBuilderContext::new();
        ctx.func.signature = sig.clone();
        {
            let mut f = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let e = f.create_block();
            f.append_block_params_for_function_params(e);
            f.switch_to_block(e);
            let x = f.block_params(e)[0];
            let y = f.ins().iadd_imm_s(x, 1);
            f.ins().return_(&[y]);
            f.seal_all_blocks();
            f.finalize(frontend);
        }
        b.define_function(callee, &mut ctx).unwrap();
        b.clear_context(&mut ctx);
        ctx.func.signature = sig.clone();
        {
            let fref = b.declare_func_in_func(callee, &mut ctx.func);
            let mut f = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let e = f.create_block();
            f.append_block_params_for_function_params(e);
            f.switch_to_block(e);
            let x = f.block_params(e)[0];
            let c = f.ins().call(fref, &[x]);
            let a = f.inst_results(c)[0];
            let p = f.ins().func_addr(types::I64, fref);
            let sref = f.import_signature(sig.clone());
            let c = f.ins().call_indirect(sref, p, &[a]);
            let r = f.inst_results(c)[0];
            let r = f.ins().imul_imm_s(r, 2);
            f.ins().return_(&[r]);
            f.seal_all_blocks();
            f.finalize(frontend);
        }
        b.define_function(caller, &mut ctx).unwrap();
        b.finish().unwrap()
    }

    fn run(mem: &CodeMemory, x: i64) -> i64 {
        let p = mem.address("caller").unwrap();
        // SAFETY: `caller` was defined with the signature i64 -> i64 in the host's default
        // calling convention, and `mem` is alive for the call.
        let f = unsafe { std::mem::transmute::<*const u8, extern "C" fn(i64) -> i64>(p) };
        f(x)
    }

    #[test]
    fn relocations_resolve_inside_the_blob() {
        let blob = build();
        assert_eq!(
            blob.symbols().len(),
            1,
            "anonymous functions have no symbol"
        );
        let mem = CodeMemory::new(blob).unwrap();
        assert_eq!(run(&mem, 5), 14);
    }

    #[test]
    fn blobs_run_anywhere_they_are_copied() {
        let mut big = CodeBlob::default();
        let one = build();
        big.append(&CodeBlob::from_parts(vec![0xcc; 100], Vec::new()).unwrap());
        big.append(&one);
        assert!(big.offset_of("caller").unwrap() >= 100);
        let mem = CodeMemory::new(big).unwrap();
        assert_eq!(run(&mem, 1), 6);
    }

    /// Blobs mapped together run as if each were mapped alone, and each gives back its own
    /// blob; an empty one beside another has no code. (`b` is large enough for the mapping to
    /// be populated, `a` alone is not.)
    #[test]
    fn blobs_mapped_together_stay_apart() {
        let a = build();
        let mut b = CodeBlob::from_parts(vec![0xcc; POPULATE_AT_BYTES], Vec::new()).unwrap();
        b.append(&build());
        let (ma, mb) = CodeMemory::new_pair(a.clone(), b.clone()).unwrap();
        assert_eq!((run(&ma, 5), run(&mb, 1)), (14, 6));
        assert_eq!((ma.to_blob(), mb.to_blob()), (a.clone(), b));
        let (empty, mc) = CodeMemory::new_pair(CodeBlob::default(), a.clone()).unwrap();
        assert!(empty.is_empty() && empty.address("caller").is_none());
        assert_eq!(empty.to_blob(), CodeBlob::default());
        assert_eq!((run(&mc, 5), mc.to_blob()), (14, a));
    }

    #[test]
    fn references_outside_the_blob_are_refused() {
        let mut b = CodeBuilder::host().unwrap();
        let mut sig = b.make_signature();
        sig.returns.push(AbiParam::new(types::I64));
        let ext = b
            .declare_function("elsewhere", Linkage::Import, &sig)
            .unwrap();
        let f = b.declare_function("f", Linkage::Export, &sig).unwrap();
        let frontend = b.target_config();
        let mut ctx = b.make_context();
        let mut fctx = FunctionBuilderContext::new();
        ctx.func.signature = sig.clone();
        {
            let fref = b.declare_func_in_func(ext, &mut ctx.func);
            let mut fb = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let e = fb.create_block();
            fb.switch_to_block(e);
            let c = fb.ins().call(fref, &[]);
            let r = fb.inst_results(c)[0];
            fb.ins().return_(&[r]);
            fb.seal_all_blocks();
            fb.finalize(frontend);
        }
        b.define_function(f, &mut ctx).unwrap();
        let err = b.finish().unwrap_err().to_string();
        assert!(err.contains("elsewhere"), "{err}");
        assert!(
            CodeBuilder::host()
                .unwrap()
                .declare_data("d", Linkage::Local, false, false)
                .is_err(),
            "data objects have no place in a blob"
        );
    }

    /// The aarch64 patches, checked on the instruction words (this host may not run them).
    #[test]
    fn aarch64_relocations_encode_their_fields() {
        // adrp x0, <page +2>; add x0, x0, #0x10; bl <+0x100>
        let mut code = [0x9000_0000u32, 0x9100_0000, 0x9400_0000]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>();
        code.resize(0x3100, 0);
        patch(&mut code, Reloc::Aarch64AdrPrelPgHi21, 0, 0x2010).unwrap();
        patch(&mut code, Reloc::Aarch64AddAbsLo12Nc, 4, 0x2010).unwrap();
        patch(&mut code, Reloc::Arm64Call, 8, 0x108).unwrap();
        let word = |i: usize| u32::from_le_bytes(code[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(
            word(0),
            0x9000_0000 | (2 << 29),
            "adrp: two pages, immlo = 2"
        );
        assert_eq!(word(1), 0x9100_0000 | (0x10 << 10), "add: low 12 bits");
        assert_eq!(word(2), 0x9400_0000 | (0x100 >> 2), "bl: words forward");
        patch(&mut code, Reloc::Aarch64AdrPrelPgHi21, 0x3000, 0).unwrap();
        let back = u32::from_le_bytes(code[0x3000..0x3004].try_into().unwrap());
        let imm = ((back >> 29) & 0b11) | (((back >> 5) & 0x7_ffff) << 2);
        assert_eq!(imm, (-3i32 as u32) & 0x1f_ffff, "adrp: three pages back");
        assert!(patch(&mut code, Reloc::Abs8, 0, 0).is_err());
    }

    #[test]
    fn symbols_outside_the_code_are_refused() {
        let s = Symbol {
            name: "f".into(),
            offset: 4,
        };
        assert!(CodeBlob::from_parts(vec![0; 4], vec![s]).is_err());
    }
}
