//! The bytes of one cache entry: a header that identifies and protects it, then the payload.
//!
//! ```text
//! magic "RLXJITC\0" · format version (u32) · checksum of everything after this field
//! · key (32 bytes) · aliases (u64 count, 32 bytes each) · relaxjit version (str) · host ISA (str)
//! · executable (bytes) · code (bytes) · symbols · kernel metadata · extra sections
//! · constants: count (u64) · per constant dtype (u8 code, u8 bits, u16 lanes), shape (u64
//!   rank, i64 each), offset (u64), length (u64) · zero padding to a 64-byte boundary of the
//!   file · the constants' bytes, each at its offset from here
//! ```
//!
//! The executable is [`vm::Executable::save_to_bytes_external`]: TVM's format with the bytes
//! of its tensor constants left out, which the constants section holds instead, in the order
//! of the constant pool, each at an offset that is a multiple of [`CONSTANT_ALIGNMENT`] from
//! a file offset that is one too. A file mapped at a page boundary thus holds every constant
//! at the alignment a tensor's storage has ([`vm::tensor::ALLOC_ALIGNMENT`]), and a hit makes
//! the constants tensors over the mapping ([`vm::Storage::shared`]) instead of copying them
//! ([`Constants`] says how). Offsets only grow and ranges never overlap, so no two constants
//! share a byte.
//!
//! The aliases are the other keys the same file is stored under (hard links, or copies where
//! the file system has none): the key of a module's source text before parsing, which names
//! the entry of its canonical text. A file is accepted under a name only if its header lists
//! that key, so a renamed or misplaced file is a miss.
//!
//! A key can also name another key's entry through an alias file, which a hit follows to that
//! entry (one more file read): written where the entry already exists under its own key (a
//! hit under a new alias) or where the file system cannot link, so that neither copies the
//! entry:
//!
//! ```text
//! magic "RLXJITA\0" · format version (u32) · checksum of everything after this field
//! · key (32 bytes) · the entry's key (32 bytes) · relaxjit version (str) · host ISA (str)
//! ```
//!
//! Integers are little-endian; a `str`/`bytes` is a u64 length and the bytes. [`decode`]
//! checks everything before trusting anything: every length against what is left, every count
//! against the bytes it would need, every enum tag; any defect is a [`Reject`] naming it, never a
//! panic. The checksum ([`crate::checksum`], 16 bytes) covers the key and both identity strings
//! too, so a flipped byte anywhere past the magic is caught even if it would parse.

use crate::checksum::checksum;
use tir::{DataType, TypeCode};

use crate::code::{CodeBlob, Symbol};
use crate::kernel::meta::{DimMeta, KernelMeta, ParamMeta, TensorMeta};

/// The first bytes of every entry file.
pub const MAGIC: [u8; 8] = *b"RLXJITC\0";

/// The first bytes of every alias file.
pub const ALIAS_MAGIC: [u8; 8] = *b"RLXJITA\0";

/// Bumped whenever the layout below changes; older entries are then misses.
pub const FORMAT_VERSION: u32 = 5;

/// The alignment of every constant's bytes in an entry file: that of a tensor's storage.
pub const CONSTANT_ALIGNMENT: usize = vm::tensor::ALLOC_ALIGNMENT;

/// Bytes before the checksummed part: magic, format version, checksum.
const PREFIX: usize = 8 + 4 + 16;

/// What a compiled module stores: enough to rebuild it without compiling.
#[derive(Clone, Debug, Default)]
pub struct Entry<E = Vec<u8>> {
    /// [`vm::Executable::save_to_bytes_external`], or what a loader made of those bytes and
    /// [`constants`](Self::constants) while the bytes were still in the file's mapping
    /// ([`decode_stored_with`]).
    pub executable: E,
    /// The executable's tensor constants, in the order of its constant pool. Loaded from a
    /// mapped file, they are tensors over the mapping ([`Constants`]).
    pub constants: Vec<vm::Tensor>,
    /// Every native function of the module, by symbol.
    pub code: CodeBlob,
    /// The kernels, in library order; each kernel's entry is the symbol its metadata names.
    pub kernels: Vec<KernelMeta>,
    /// Named byte sections for other producers of native code (e.g. what compiled mode records
    /// about its functions), so they need no format change.
    pub extra: Vec<(String, Vec<u8>)>,
}

/// Equal parts, the constants compared by dtype, shape and bytes.
impl<E: PartialEq> PartialEq for Entry<E> {
    fn eq(&self, other: &Entry<E>) -> bool {
        self.executable == other.executable
            && self.constants.len() == other.constants.len()
            && self
                .constants
                .iter()
                .zip(&other.constants)
                .all(|(a, b)| a.content_eq(b))
            && self.code == other.code
            && self.kernels == other.kernels
            && self.extra == other.extra
    }
}

/// Where the bytes of an entry lie while it is decoded: a mapping of the file, over which the
/// constants become tensors without a copy, or bytes read into memory, from which they are
/// copied (small entries, [`super::MAP_AT_BYTES`]).
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// Bytes of the caller's, valid only during the decode: the constants are copied.
    Read(&'a [u8]),
    /// The whole file, mapped: the constants are tensors over the region, which they keep
    /// alive.
    Mapped(&'a std::sync::Arc<dyn vm::SharedBytes>),
}

impl<'a> Source<'a> {
    /// The file's bytes.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn bytes(self) -> &'a [u8] {
        match self {
            Source::Read(b) => b,
            Source::Mapped(region) => {
                // SAFETY: `SharedBytes` keeps the `len()` bytes at `as_ptr()` valid and unmoved
                // while the region lives, which `'a` (a borrow of an `Arc` of it) covers, and
                // they are not written while shared: no kernel runs on the tensors made over
                // them before the decode returns and this borrow ends.
                unsafe { std::slice::from_raw_parts(region.as_ptr(), region.len()) }
            }
        }
    }
}

/// What a loader makes of an entry's executable bytes and constants
/// ([`decode_stored_with`]); its error rejects the entry.
pub type LoadExecutable<'a, E> = dyn FnMut(&[u8], &[vm::Tensor]) -> Result<E, String> + 'a;

/// Who wrote an entry: checked against the host before the payload is used. It borrows its
/// strings, which the cache has for the life of the process: a hit builds one per file it
/// reads, and owned copies would only be allocated and dropped again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity<'a> {
    /// The cache key the entry was stored under.
    pub key: [u8; 32],
    /// [`super::relaxjit_version`] of the writer.
    pub version: &'a str,
    /// [`super::host_isa_description`] of the writer.
    pub isa: &'a str,
}

/// Why an entry file was not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reject {
    /// Not an entry (bad magic) or shorter than a header.
    NotAnEntry,
    /// Written by another version of the format.
    Format(u32),
    /// The checksum does not match: corrupted or truncated.
    Checksum,
    /// Stored under another key and not aliased to this one (a renamed or misplaced file).
    Key,
    /// Written by another relaxjit build.
    Version(String),
    /// Compiled for other ISA flags.
    Isa(String),
    /// The payload does not parse although its checksum matches (a writer bug).
    Malformed(String),
}

impl std::fmt::Display for Reject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reject::NotAnEntry => write!(f, "not a cache entry (bad magic or too short)"),
            Reject::Format(v) => write!(f, "entry format {v}, expected {FORMAT_VERSION}"),
            Reject::Checksum => write!(f, "checksum mismatch (corrupted or truncated)"),
            Reject::Key => write!(f, "entry stored under another key"),
            Reject::Version(v) => write!(f, "written by another relaxjit build ({v})"),
            Reject::Isa(i) => write!(f, "compiled for other ISA flags ({i})"),
            Reject::Malformed(m) => write!(f, "malformed payload: {m}"),
        }
    }
}

/// The file bytes of `entry` under `id`, with no aliases.
pub fn encode(id: &Identity, entry: &Entry) -> Vec<u8> {
    encode_with_aliases(id, &[], entry)
}

/// The file bytes of `entry` under `id`, to be stored under the keys `aliases` as well.
pub fn encode_with_aliases(id: &Identity, aliases: &[[u8; 32]], entry: &Entry) -> Vec<u8> {
    let constant_bytes: usize = entry
        .constants
        .iter()
        .map(|t| t.nbytes() + CONSTANT_ALIGNMENT)
        .sum();
    // The body is written after room for the prefix, whose checksum is filled in last: a
    // constant's alignment counts from the start of the file.
    let mut body = Vec::with_capacity(
        PREFIX + entry.executable.len() + entry.code.bytes().len() + constant_bytes + 4096,
    );
    body.resize(PREFIX, 0);
    body.extend_from_slice(&id.key);
    put_u64(&mut body, aliases.len() as u64);
    for a in aliases {
        body.extend_from_slice(a);
    }
    put_str(&mut body, id.version);
    put_str(&mut body, id.isa);
    put_bytes(&mut body, &entry.executable);
    put_bytes(&mut body, entry.code.bytes());
    put_u64(&mut body, entry.code.symbols().len() as u64);
    for s in entry.code.symbols() {
        put_str(&mut body, &s.name);
        put_u64(&mut body, s.offset);
    }
    put_u64(&mut body, entry.kernels.len() as u64);
    for k in &entry.kernels {
        put_meta(&mut body, k);
    }
    put_u64(&mut body, entry.extra.len() as u64);
    for (name, bytes) in &entry.extra {
        put_str(&mut body, name);
        put_bytes(&mut body, bytes);
    }
    put_constants(&mut body, &entry.constants);
    let sum = checksum(&body[PREFIX..]);
    body[..8].copy_from_slice(&MAGIC);
    body[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    body[12..PREFIX].copy_from_slice(&sum);
    body
}

/// The constants section; `out` is the file from its first byte, so that padding to
/// [`CONSTANT_ALIGNMENT`] counts from there.
fn put_constants(out: &mut Vec<u8>, constants: &[vm::Tensor]) {
    put_u64(out, constants.len() as u64);
    let mut offset = 0;
    for t in constants {
        let d = t.dtype();
        out.extend_from_slice(&[d.code, d.bits]);
        out.extend_from_slice(&d.lanes.to_le_bytes());
        put_u64(out, t.ndim() as u64);
        for &n in t.shape() {
            out.extend_from_slice(&n.to_le_bytes());
        }
        put_u64(out, offset as u64);
        put_u64(out, t.nbytes() as u64);
        offset = (offset + t.nbytes()).next_multiple_of(CONSTANT_ALIGNMENT);
    }
    out.resize(out.len().next_multiple_of(CONSTANT_ALIGNMENT), 0);
    for t in constants {
        out.resize(out.len().next_multiple_of(CONSTANT_ALIGNMENT), 0);
        t.append_bytes_to(out);
    }
}

/// The file bytes of an alias: `id.key` names the entry stored under `target`.
pub fn encode_alias(id: &Identity, target: &[u8; 32]) -> Vec<u8> {
    let mut body = Vec::with_capacity(64 + 16 + id.version.len() + id.isa.len());
    body.extend_from_slice(&id.key);
    body.extend_from_slice(target);
    put_str(&mut body, id.version);
    put_str(&mut body, id.isa);
    let mut out = Vec::with_capacity(PREFIX + body.len());
    out.extend_from_slice(&ALIAS_MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&checksum(&body));
    out.extend_from_slice(&body);
    out
}

/// What a file under a key holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Stored<E = Vec<u8>> {
    /// The entry itself.
    Entry(Entry<E>),
    /// An alias: the key the entry is stored under.
    Alias([u8; 32]),
}

/// Checks `bytes` against `expected` and decodes the payload; an alias file is
/// [`Reject::NotAnEntry`].
pub fn decode(bytes: &[u8], expected: &Identity) -> Result<Entry, Reject> {
    match decode_stored(bytes, expected)? {
        Stored::Entry(e) => Ok(e),
        Stored::Alias(_) => Err(Reject::NotAnEntry),
    }
}

/// Checks `bytes` (an entry or an alias file) against `expected` and decodes it.
// On the artifact cache's hit path: one linker section for all of it (`jit::cache` docs).
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn decode_stored(bytes: &[u8], expected: &Identity) -> Result<Stored, Reject> {
    decode_stored_with(Source::Read(bytes), expected, &mut |b, _| {
        Ok(vm::hit::copy_slice(b))
    })
}

/// [`decode_stored`] of the file at `source`, the executable's bytes handed to `executable`
/// with the entry's constants where they lie rather than copied out: a loader that reads
/// them once (deserializes the executable) spares the copy of the whole executable. Mapped,
/// the constants are tensors over the mapping. An error of `executable` rejects the entry as
/// [`Reject::Malformed`].
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn decode_stored_with<E>(
    source: Source<'_>,
    expected: &Identity,
    executable: &mut LoadExecutable<'_, E>,
) -> Result<Stored<E>, Reject> {
    let bytes = source.bytes();
    if bytes.len() < PREFIX {
        return Err(Reject::NotAnEntry);
    }
    let alias = match bytes[..8].try_into().expect("8 bytes") {
        MAGIC => false,
        ALIAS_MAGIC => true,
        _ => return Err(Reject::NotAnEntry),
    };
    let format = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if format != FORMAT_VERSION {
        return Err(Reject::Format(format));
    }
    let body = &bytes[PREFIX..];
    if checksum(body) != bytes[12..PREFIX] {
        return Err(Reject::Checksum);
    }
    let mut r = Reader { b: body };
    let malformed = Reject::Malformed;
    let key = r.take(32).map_err(malformed)?;
    let (aliases, target) = if alias {
        (&[][..], Some(r.take(32).map_err(malformed)?))
    } else {
        let n = r.count(32).map_err(malformed)?;
        (r.take(32 * n).map_err(malformed)?, None)
    };
    // A loop rather than `Iterator::any`, whose generic code would lie outside the hit path's
    // section.
    let mut aliased = false;
    for a in aliases.chunks_exact(32) {
        aliased |= a == expected.key;
    }
    if key != expected.key && !aliased {
        return Err(Reject::Key);
    }
    let version = r.str().map_err(malformed)?;
    if version != expected.version {
        return Err(Reject::Version(version));
    }
    let isa = r.str().map_err(malformed)?;
    if isa != expected.isa {
        return Err(Reject::Isa(isa));
    }
    match target {
        Some(target) => {
            if !r.b.is_empty() {
                return Err(malformed(format!("{} bytes after an alias", r.b.len())));
            }
            Ok(Stored::Alias(target.try_into().expect("32 bytes")))
        }
        None => decode_payload(&mut r, source, executable)
            .map(Stored::Entry)
            .map_err(malformed),
    }
}

#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn decode_payload<E>(
    r: &mut Reader<'_>,
    source: Source<'_>,
    executable: &mut LoadExecutable<'_, E>,
) -> Result<Entry<E>, String> {
    // The copies and vectors through `vm::hit`, whose code lies in the hit path's section.
    let executable_bytes = r.bytes()?;
    let code = vm::hit::copy_slice(r.bytes()?);
    let n = r.count(9)?;
    let mut symbols = vm::hit::vec_with_capacity(n);
    for _ in 0..n {
        symbols.push(Symbol {
            name: r.str()?,
            offset: r.u64()?,
        });
    }
    let code = CodeBlob::from_parts(code, symbols).map_err(|e| e.to_string())?;
    let n = r.count(8)?;
    let mut kernels = vm::hit::vec_with_capacity(n);
    for _ in 0..n {
        kernels.push(get_meta(r)?);
    }
    let n = r.count(16)?;
    let mut extra = vm::hit::vec_with_capacity(n);
    for _ in 0..n {
        extra.push((r.str()?, vm::hit::copy_slice(r.bytes()?)));
    }
    let constants = get_constants(r, source)?;
    // Last, once the rest has parsed: a malformed entry costs no deserialization.
    let executable = executable(executable_bytes, &constants)?;
    Ok(Entry {
        executable,
        constants,
        code,
        kernels,
        extra,
    })
}

/// The constants section, the rest of the file (`r` reads the file's bytes at `source` from
/// [`PREFIX`] on): each constant a tensor over the mapping where the file is mapped, else a
/// copy.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn get_constants(r: &mut Reader<'_>, source: Source<'_>) -> Result<Vec<vm::Tensor>, String> {
    // The smallest record: a dtype, a rank of 0, an offset and a length.
    let n = r.count(4 + 8 + 8 + 8)?;
    let mut records = vm::hit::vec_with_capacity(n);
    for i in 0..n {
        let [code, bits, l0, l1] = r.take(4)?.try_into().expect("4 bytes");
        let dtype = vm::DataType {
            code,
            bits,
            lanes: u16::from_le_bytes([l0, l1]),
        };
        // What the executable's format can hold (`vm::serialize`); its loader checks that
        // each constant has the dtype and shape of its record.
        if dtype.bits == 0 || dtype.lanes != 1 {
            return Err(format!(
                "constant {i}: dtype {dtype} of {} lanes",
                dtype.lanes
            ));
        }
        let rank = r.count(8)?;
        let mut shape = vm::hit::vec_with_capacity(rank);
        for _ in 0..rank {
            shape.push(r.u64()? as i64);
        }
        let (offset, len) = (r.usize()?, r.usize()?);
        let nbytes = vm::tensor::checked_nbytes(&shape, dtype)
            .map_err(|e| format!("constant {i}: {}", e.message()))?;
        if nbytes != len {
            return Err(format!(
                "constant {i}: {len} bytes for shape {shape:?} of {dtype} ({nbytes} bytes)"
            ));
        }
        records.push((shape, dtype, offset, len));
    }
    let file = source.bytes();
    // Where the data starts in the file: the reader's position, rounded up to the alignment.
    let at = file.len() - r.b.len();
    r.take(at.next_multiple_of(CONSTANT_ALIGNMENT) - at)?;
    let data = std::mem::take(&mut r.b);
    let mut constants = vm::hit::vec_with_capacity(n);
    let mut end = 0;
    for (i, (shape, dtype, offset, len)) in records.iter().enumerate() {
        let (dtype, offset, len) = (*dtype, *offset, *len);
        if offset % CONSTANT_ALIGNMENT != 0
            || offset < end
            || len > data.len().saturating_sub(offset)
        {
            return Err(format!(
                "constant {i}: {len} bytes at offset {offset} are not an aligned range after the previous constant's (ending at {end}) within the {} bytes of the section",
                data.len()
            ));
        }
        end = offset + len;
        let bytes = &data[offset..end];
        let tensor = match source {
            Source::Mapped(region) => {
                let start = bytes.as_ptr() as usize - region.as_ptr() as usize;
                vm::Storage::shared(std::sync::Arc::clone(region), start, len)
                    .and_then(|s| s.alloc_tensor(0, shape, dtype))
            }
            Source::Read(_) => vm::Tensor::from_bytes(shape, dtype, bytes),
        };
        constants.push(tensor.map_err(|e| format!("constant {i}: {}", e.message()))?);
    }
    if data.len() != end {
        return Err(format!(
            "{} bytes after the last constant",
            data.len() - end
        ));
    }
    Ok(constants)
}

pub(crate) fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(crate) fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_u64(out, b.len() as u64);
    out.extend_from_slice(b);
}

pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_bytes(out, s.as_bytes());
}

fn put_strs(out: &mut Vec<u8>, v: &[String]) {
    put_u64(out, v.len() as u64);
    for s in v {
        put_str(out, s);
    }
}

fn put_dtype(out: &mut Vec<u8>, d: DataType) {
    let code = match d.code {
        TypeCode::Int => 0u8,
        TypeCode::UInt => 1,
        TypeCode::Float => 2,
        TypeCode::Handle => 3,
        TypeCode::BFloat => 4,
    };
    out.push(code);
    out.push(d.bits);
    out.extend_from_slice(&d.lanes.to_le_bytes());
}

fn put_opt_dtype(out: &mut Vec<u8>, d: Option<DataType>) {
    match d {
        None => out.push(0),
        Some(d) => {
            out.push(1);
            put_dtype(out, d);
        }
    }
}

fn put_meta(out: &mut Vec<u8>, m: &KernelMeta) {
    put_str(out, &m.name);
    put_str(out, &m.symbol);
    put_u64(out, m.params.len() as u64);
    for p in &m.params {
        put_str(out, &p.name);
        match &p.tensor {
            None => out.push(0),
            Some(t) => {
                out.push(1);
                put_dtype(out, t.dtype);
                put_strs(out, &t.shape);
                put_u64(out, t.dims.len() as u64);
                for d in &t.dims {
                    match d {
                        DimMeta::Bind(v) => {
                            out.push(0);
                            put_str(out, v);
                        }
                        DimMeta::Check { expr, origin } => {
                            out.push(1);
                            put_str(out, expr);
                            match origin {
                                None => out.push(0),
                                Some((v, p, d)) => {
                                    out.push(1);
                                    put_str(out, v);
                                    put_u64(out, *p as u64);
                                    put_u64(out, *d as u64);
                                }
                            }
                        }
                    }
                }
            }
        }
        put_opt_dtype(out, p.scalar);
    }
    put_strs(out, &m.sites);
    put_strs(out, &m.asserts);
    put_strs(out, &m.allocs);
    put_u64(out, m.vector_loops as u64);
    put_u64(out, m.parallel_loops as u64);
    put_u64(out, m.promoted_loops as u64);
}

/// A bounds-checked cursor over the payload.
/// Reads what the `put_*` functions wrote, checking every length against what is left.
pub(crate) struct Reader<'a> {
    pub(crate) b: &'a [u8],
}

impl<'a> Reader<'a> {
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.b.len() {
            return Err(format!("{n} bytes wanted, {} left", self.b.len()));
        }
        let (head, tail) = self.b.split_at(n);
        self.b = tail;
        Ok(head)
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(crate) fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(crate) fn usize(&mut self) -> Result<usize, String> {
        usize::try_from(self.u64()?).map_err(|_| "a count beyond the address space".to_string())
    }

    /// A count of items that take at least `min_bytes` each: never more than the bytes left
    /// could hold, so a corrupted count cannot make us allocate without bound.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(crate) fn count(&mut self, min_bytes: usize) -> Result<usize, String> {
        let n = self.usize()?;
        if n.saturating_mul(min_bytes) > self.b.len() {
            return Err(format!("{n} items cannot fit in {} bytes", self.b.len()));
        }
        Ok(n)
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(crate) fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.usize()?;
        self.take(n)
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub(crate) fn str(&mut self) -> Result<String, String> {
        let b = self.bytes()?;
        vm::hit::utf8_string(b).map_err(|_| "a string is not UTF-8".to_string())
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn strs(&mut self) -> Result<Vec<String>, String> {
        let n = self.count(8)?;
        // A loop rather than `collect`, whose generic code would lie outside the section.
        let mut v = vm::hit::vec_with_capacity(n);
        for _ in 0..n {
            v.push(self.str()?);
        }
        Ok(v)
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn dtype(&mut self) -> Result<DataType, String> {
        let code = match self.u8()? {
            0 => TypeCode::Int,
            1 => TypeCode::UInt,
            2 => TypeCode::Float,
            3 => TypeCode::Handle,
            4 => TypeCode::BFloat,
            c => return Err(format!("dtype code {c}")),
        };
        let bits = self.u8()?;
        let lanes = u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes"));
        Ok(DataType { code, bits, lanes })
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn flag(&mut self) -> Result<bool, String> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            t => Err(format!("tag {t} where 0 or 1 was expected")),
        }
    }
}

#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn get_meta(r: &mut Reader<'_>) -> Result<KernelMeta, String> {
    let name = r.str()?;
    let symbol = r.str()?;
    let n = r.count(10)?;
    let mut params = vm::hit::vec_with_capacity(n);
    for _ in 0..n {
        let pname = r.str()?;
        let tensor = if r.flag()? {
            let dtype = r.dtype()?;
            let shape = r.strs()?;
            let nd = r.count(9)?;
            let mut dims = vm::hit::vec_with_capacity(nd);
            for _ in 0..nd {
                dims.push(if r.flag()? {
                    let expr = r.str()?;
                    let origin = if r.flag()? {
                        Some((r.str()?, r.usize()?, r.usize()?))
                    } else {
                        None
                    };
                    DimMeta::Check { expr, origin }
                } else {
                    DimMeta::Bind(r.str()?)
                });
            }
            Some(TensorMeta { dtype, shape, dims })
        } else {
            None
        };
        let scalar = if r.flag()? { Some(r.dtype()?) } else { None };
        params.push(ParamMeta {
            name: pname,
            tensor,
            scalar,
        });
    }
    Ok(KernelMeta {
        name,
        symbol,
        params,
        sites: r.strs()?,
        asserts: r.strs()?,
        allocs: r.strs()?,
        vector_loops: r.usize()?,
        parallel_loops: r.usize()?,
        promoted_loops: r.usize()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (Identity<'static>, Entry) {
        let f32 = DataType {
            code: TypeCode::Float,
            bits: 32,
            lanes: 1,
        };
        let meta = KernelMeta {
            name: "add".into(),
            symbol: "add".into(),
            params: vec![
                ParamMeta {
                    name: "A".into(),
                    tensor: Some(TensorMeta {
                        dtype: f32,
                        shape: vec!["n".into(), "4".into()],
                        dims: vec![
                            DimMeta::Bind("n".into()),
                            DimMeta::Check {
                                expr: "4".into(),
                                origin: Some(("n".into(), 0, 0)),
                            },
                        ],
                    }),
                    scalar: None,
                },
                ParamMeta {
                    name: "s".into(),
                    tensor: None,
                    scalar: Some(f32),
                },
            ],
            sites: vec!["A".into()],
            asserts: vec!["x > 0".into()],
            allocs: vec![],
            vector_loops: 1,
            parallel_loops: 2,
            promoted_loops: 3,
        };
        let code = CodeBlob::from_parts(
            vec![0x90; 32],
            vec![Symbol {
                name: "add".into(),
                offset: 16,
            }],
        )
        .unwrap();
        let id = Identity {
            key: [7; 32],
            version: "v",
            isa: "x",
        };
        let entry = Entry {
            executable: vec![1, 2, 3],
            constants: vec![
                vm::Tensor::from_slice(&[3], &[1.5f32, -2.0, 0.25]).unwrap(),
                vm::Tensor::scalar(7i64),
                vm::Tensor::from_slice(&[2, 0], &[0i8; 0]).unwrap(),
                vm::Tensor::from_slice(&[65], &[3u8; 65]).unwrap(),
            ],
            code,
            kernels: vec![meta],
            extra: vec![("vmtir".into(), vec![9])],
        };
        (id, entry)
    }

    #[test]
    fn entries_round_trip() {
        let (id, entry) = sample();
        assert_eq!(decode(&encode(&id, &entry), &id), Ok(entry));
    }

    /// An entry is accepted under its key and each alias, and under no other key.
    #[test]
    fn aliases_name_the_same_entry() {
        let (id, entry) = sample();
        let bytes = encode_with_aliases(&id, &[[8; 32], [9; 32]], &entry);
        for key in [[7; 32], [8; 32], [9; 32]] {
            let named = Identity { key, ..id.clone() };
            assert_eq!(decode(&bytes, &named).as_ref(), Ok(&entry));
        }
        let other = Identity {
            key: [10; 32],
            ..id
        };
        assert_eq!(decode(&bytes, &other), Err(Reject::Key));
    }

    /// An alias file names its target under its own key only, is no entry, and is checked
    /// like one: every flipped byte and every truncation is rejected.
    #[test]
    fn alias_files_round_trip_and_are_checked() {
        let (id, _) = sample();
        let bytes = encode_alias(&id, &[5; 32]);
        assert_eq!(decode_stored(&bytes, &id), Ok(Stored::Alias([5; 32])));
        assert_eq!(decode(&bytes, &id), Err(Reject::NotAnEntry));
        let other = Identity {
            key: [5; 32],
            ..id.clone()
        };
        assert_eq!(decode_stored(&bytes, &other), Err(Reject::Key));
        let isa = Identity {
            isa: "y",
            ..id.clone()
        };
        assert_eq!(decode_stored(&bytes, &isa), Err(Reject::Isa("x".into())));
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 1;
            assert!(decode_stored(&b, &id).is_err(), "byte {i} flipped");
        }
        for n in 0..bytes.len() {
            assert!(decode_stored(&bytes[..n], &id).is_err(), "truncated to {n}");
        }
    }

    /// Where the constants section of [`sample`]'s file starts, and where its data does.
    fn constants_layout(id: &Identity, entry: &Entry) -> (usize, usize) {
        // Without constants, the file ends with the last extra section (a non-zero byte), the
        // count (zero) and zero padding.
        let empty = Entry {
            constants: vec![],
            ..entry.clone()
        };
        let bytes = encode(id, &empty);
        let records = bytes.iter().rposition(|&b| b != 0).unwrap() + 1;
        let len: usize = entry
            .constants
            .iter()
            .map(|t| 4 + 8 + 8 * t.ndim() + 16)
            .sum();
        let data = (records + 8 + len).next_multiple_of(CONSTANT_ALIGNMENT);
        (records, data)
    }

    /// Every constant's bytes start at a multiple of [`CONSTANT_ALIGNMENT`] from the start of
    /// the file, as its record says; read (not mapped) they are copies.
    #[test]
    fn constants_lie_aligned_in_the_file() {
        let (id, entry) = sample();
        let bytes = encode(&id, &entry);
        let decoded = decode(&bytes, &id).unwrap();
        for (t, stored) in decoded.constants.iter().zip(&entry.constants) {
            assert!(!t.storage().is_shared_region());
            assert!(t.content_eq(stored));
        }
        let (_, mut at) = constants_layout(&id, &entry);
        for t in &entry.constants {
            assert_eq!(at % CONSTANT_ALIGNMENT, 0);
            assert_eq!(&bytes[at..at + t.nbytes()], t.to_bytes(), "{t:?}");
            at = (at + t.nbytes()).next_multiple_of(CONSTANT_ALIGNMENT);
        }
    }

    /// Ranges that overlap, are misaligned or leave bytes over are malformed, even under a
    /// valid checksum.
    #[test]
    fn constant_ranges_are_checked() {
        let (id, entry) = sample();
        let bytes = encode(&id, &entry);
        let (records, _) = constants_layout(&id, &entry);
        // The second record's offset: after the count, the first record (dtype, rank, one
        // dimension, offset, length) and the second's dtype and rank.
        let second_offset = records + 8 + (4 + 8 + 8 + 8 + 8) + 4 + 8;
        assert_eq!(bytes[second_offset..second_offset + 8], 64u64.to_le_bytes());
        for (name, offset) in [("overlapping", 0u64), ("misaligned", 65)] {
            let mut b = bytes.clone();
            b[second_offset..second_offset + 8].copy_from_slice(&offset.to_le_bytes());
            let sum = checksum(&b[PREFIX..]);
            b[12..PREFIX].copy_from_slice(&sum);
            match decode(&b, &id) {
                Err(Reject::Malformed(m)) => assert!(m.contains("constant 1"), "{name}: {m}"),
                other => panic!("{name}: {other:?}"),
            }
        }
        let mut b = bytes.clone();
        b.push(0);
        let sum = checksum(&b[PREFIX..]);
        b[12..PREFIX].copy_from_slice(&sum);
        assert_eq!(
            decode(&b, &id),
            Err(Reject::Malformed("1 bytes after the last constant".into()))
        );
    }

    #[test]
    fn every_truncation_is_rejected() {
        let (id, entry) = sample();
        let bytes = encode(&id, &entry);
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n], &id).is_err(), "truncated to {n} bytes");
        }
    }
}
