//! The bytes of one cache entry: a header that identifies and protects it, then the payload.
//!
//! ```text
//! magic "RLXJITC\0" · format version (u32) · checksum of everything after this field
//! · key (32 bytes) · aliases (u64 count, 32 bytes each) · relaxjit version (str) · host ISA (str)
//! · executable (bytes) · code (bytes) · symbols · kernel metadata · extra sections
//! ```
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
pub const FORMAT_VERSION: u32 = 4;

/// Bytes before the checksummed part: magic, format version, checksum.
const PREFIX: usize = 8 + 4 + 16;

/// What a compiled module stores: enough to rebuild it without compiling.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Entry<E = Vec<u8>> {
    /// `vm::Executable::save_to_bytes`, or what a loader made of those bytes while they were
    /// still in the file's mapping ([`decode_stored_with`]).
    pub executable: E,
    /// Every native function of the module, by symbol.
    pub code: CodeBlob,
    /// The kernels, in library order; each kernel's entry is the symbol its metadata names.
    pub kernels: Vec<KernelMeta>,
    /// Named byte sections for other producers of native code (e.g. what compiled mode records
    /// about its functions), so they need no format change.
    pub extra: Vec<(String, Vec<u8>)>,
}

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
    let mut body = Vec::with_capacity(entry.executable.len() + entry.code.bytes().len() + 4096);
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
    let mut out = Vec::with_capacity(PREFIX + body.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&checksum(&body));
    out.extend_from_slice(&body);
    out
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
    decode_stored_with(bytes, expected, &mut |b| Ok(vm::hit::copy_slice(b)))
}

/// [`decode_stored`], the executable's bytes handed to `executable` where they lie in
/// `bytes` rather than copied out: a loader that reads them once (deserializes the
/// executable, copying its constants out) spares the copy of the whole executable. An error
/// of `executable` rejects the entry as [`Reject::Malformed`].
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn decode_stored_with<E>(
    bytes: &[u8],
    expected: &Identity,
    executable: &mut dyn FnMut(&[u8]) -> Result<E, String>,
) -> Result<Stored<E>, Reject> {
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
        None => decode_payload(&mut r, executable)
            .map(Stored::Entry)
            .map_err(malformed),
    }
}

#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn decode_payload<E>(
    r: &mut Reader<'_>,
    executable: &mut dyn FnMut(&[u8]) -> Result<E, String>,
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
    if !r.b.is_empty() {
        return Err(format!("{} bytes after the last section", r.b.len()));
    }
    // Last, once the rest has parsed: a malformed entry costs no deserialization.
    let executable = executable(executable_bytes)?;
    Ok(Entry {
        executable,
        code,
        kernels,
        extra,
    })
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

    #[test]
    fn every_truncation_is_rejected() {
        let (id, entry) = sample();
        let bytes = encode(&id, &entry);
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n], &id).is_err(), "truncated to {n} bytes");
        }
    }
}
