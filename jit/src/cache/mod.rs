//! The artifact cache: compiled modules kept in files that a later process maps and runs
//! without calling Cranelift.
//!
//! * Key ([`KeyBuilder`]): SHA-256 over what the caller says determines the output (the
//!   canonical module text, pipeline options, exec mode), plus the format version, the relaxjit
//!   build ([`ArtifactCache::build`]) and the host ISA Cranelift compiles for
//!   ([`host_isa_description`]), each part length-prefixed so that no two part lists collide.
//! * Entry: one file `<hex key>.rjc` per key ([`entry`] has the layout), whose header repeats the
//!   key, the build and the ISA and checksums the rest.
//! * Load ([`ArtifactCache::load`]): map the file (read it if it is smaller than
//!   [`MAP_AT_BYTES`]), check the header and checksum, decode. The code is then copied into
//!   fresh executable pages by [`crate::code::CodeMemory`]. The constants are not copied from
//!   a mapped file: the entry keeps them aligned ([`entry`]), and they become tensors over the
//!   mapping ([`vm::Storage::shared`]), which stays mapped — copy-on-write, so that a kernel
//!   writing a constant never writes the file — for as long as any of them lives. From a read
//!   file they are copied. Relaxjit never writes an entry in place (see below), so a mapping
//!   stays valid after its entry is replaced, evicted or cleared.
//! * Safety: writes go to a temporary file in the same directory that is renamed over the entry,
//!   so a reader sees a whole old entry or a whole new one; two processes storing one key both
//!   succeed (the last rename wins, both files are complete). Whatever is wrong with an entry —
//!   unreadable, corrupted, truncated, another format, build or ISA — is a miss reported
//!   through the warning hook, and the caller's recompilation replaces it. The cache never
//!   fails a compile: store errors are warnings too.
//! * Aliases ([`ArtifactCache::store_with_aliases`]): the same entry file is linked under the
//!   key of the module's source text too, and its header lists that key, so that a hit skips
//!   the parse and reads one file. Where the entry exists already, or the file system cannot
//!   link, a small alias file naming the entry's key goes there instead
//!   ([`ArtifactCache::store_alias`]), never a copy.
//! * Size bound: after each store the least recently used entries (by modification time, which
//!   a hit refreshes when it is older than [`REFRESH_AFTER`]) are deleted, with every name
//!   linked to them, until the directory holds at most [`ArtifactCache::max_bytes`] besides the
//!   entry just stored.
//! * Hit path: a hit runs in a fresh process whose code pages are not mapped yet and whose
//!   caches are cold, so what it costs is mostly the code it touches: every 64 KiB window of
//!   the binary it enters first is a page fault (several microseconds on a virtual machine),
//!   and the functions a hit calls lie scattered over megabytes of text. On Linux those
//!   functions (here, in the `vm` loader and linker, and in `relaxjit`'s engine) are placed in
//!   one linker section, `relaxjit_hit`, which ELF linkers lay out as one contiguous run of
//!   code; a hit then faults in a few pages instead of one per function. Generic code the
//!   hit instantiates lands outside the section, wherever the linker puts the instantiating
//!   crate's code, and so does the standard library's own. The hit path therefore does without
//!   them: its vectors and strings come from [`vm::hit`] (allocation
//!   through `std::alloc`, once-per-process values through one atomic), its name maps are
//!   [`vm::NameMap`]s rather than hash maps, and on Unix the file is opened, sized, read and
//!   the code pages mapped with the system calls themselves rather than through `std::fs` and
//!   `memmap2`. What is left outside are a few pages of read-only data (string constants, jump
//!   tables) and the first touch of stack and heap. `faults c/h` of the `artifact_cache`
//!   example counts them.

pub mod entry;

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use crate::sha256::Sha256;

pub use entry::{Entry, Identity, LoadExecutable, Reject, Source};

/// The file name extension of entries.
const EXTENSION: &str = "rjc";

/// Entries smaller than this are read, larger ones mapped. For a small entry one `read` costs
/// less than setting up a mapping, faulting its pages in and unmapping it — which was most of
/// the system time of a small module's cache hit; a large entry is not copied twice.
pub const MAP_AT_BYTES: u64 = 256 << 10;

/// A hit refreshes the modification time of an entry (which eviction orders by) only when it
/// is older than this: least-recently-used to within a minute, and a hit that does not dirty
/// the file's inode (a metadata write the file system journals) for every load.
pub const REFRESH_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// The default size bound: 512 MiB, as Wasmtime's cache.
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;

/// The environment variable naming the cache directory.
pub const DIR_ENV: &str = "RELAXJIT_CACHE_DIR";

/// Receives the cache's warnings (one line each, without a prefix).
pub type WarnHook = Arc<dyn Fn(&str) + Send + Sync>;

/// A cache key: SHA-256 of everything the compiled output depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key(pub [u8; 32]);

impl Key {
    /// The key in hexadecimal (the entry's file stem).
    // On the hit path, which keeps its code in one linker section (module docs, "Hit path").
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn hex(&self) -> String {
        crate::sha256::hex(&self.0)
    }
}

/// Builds a [`Key`] from named parts.
pub struct KeyBuilder {
    h: Sha256,
}

impl KeyBuilder {
    /// A builder that already holds the format version, the relaxjit build `build` and the
    /// host ISA; [`ArtifactCache::key_builder`] gives one with the cache's build.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn new(build: &str) -> KeyBuilder {
        let mut b = KeyBuilder { h: Sha256::new() };
        b.part("format", &entry::FORMAT_VERSION.to_le_bytes());
        b.part("version", build.as_bytes());
        b.part("isa", host_isa_description().as_bytes());
        b
    }

    /// Adds a named part (length-prefixed, so parts never run into each other).
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn part(&mut self, name: &str, bytes: &[u8]) -> &mut KeyBuilder {
        for p in [name.as_bytes(), bytes] {
            self.h.update(&(p.len() as u64).to_le_bytes());
            self.h.update(p);
        }
        self
    }

    /// [`part`](Self::part) for `len` bytes that `pieces` hands over in order, a piece at a
    /// time (a tensor's, read in chunks rather than copied out whole). The key is the same as
    /// for `part` with the pieces joined.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn part_pieces(
        &mut self,
        name: &str,
        len: usize,
        pieces: impl FnOnce(&mut dyn FnMut(&[u8])),
    ) -> &mut KeyBuilder {
        self.h.update(&(name.len() as u64).to_le_bytes());
        self.h.update(name.as_bytes());
        self.h.update(&(len as u64).to_le_bytes());
        let mut seen = 0;
        pieces(&mut |piece| {
            seen += piece.len();
            self.h.update(piece);
        });
        debug_assert_eq!(
            seen, len,
            "part {name}: the pieces hold other than `len` bytes"
        );
        self
    }

    /// The key.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn finish(self) -> Key {
        Key(self.h.finalize())
    }
}

/// The build identity of a cache without one of its own ([`ArtifactCache::with_build`]): the
/// crate version, and for the executable running it its size and modification time, so that a
/// rebuilt binary (whose codegen may differ at the same version, as during development) never
/// loads code another build wrote — Wasmtime's rule too.
pub fn relaxjit_version() -> &'static str {
    static V: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        let exe = std::env::current_exe()
            .and_then(fs::metadata)
            .ok()
            .map(|m| {
                let t = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!(" exe {}:{t}", m.len())
            })
            .unwrap_or_default();
        format!("relaxjit {}{exe}", env!("CARGO_PKG_VERSION"))
    })
}

/// The target Cranelift compiles for ([`crate::isa::host_isa_description`]), computed once.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
pub fn host_isa_description() -> &'static str {
    // Not a `OnceLock`, whose generic code would lie outside the hit path's section.
    static D: vm::hit::Lazy<String> = vm::hit::Lazy::new();
    // No ISA means no compiling either; the description only has to differ from any real one.
    D.get_or_init(describe_host)
}

// A function rather than a closure: a closure made a `fn` pointer is called through a shim
// that would lie outside the section.
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn describe_host() -> String {
    crate::isa::host_isa_description().unwrap_or_else(|e| format!("no host isa: {e}"))
}

/// What `relaxjit cache stats` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheStats {
    /// The directory.
    pub dir: PathBuf,
    /// Entry files.
    pub entries: usize,
    /// Their total size.
    pub bytes: u64,
    /// The size bound.
    pub max_bytes: u64,
}

/// A cache directory.
#[derive(Clone)]
pub struct ArtifactCache {
    dir: PathBuf,
    max_bytes: u64,
    warn: WarnHook,
    build: Option<&'static str>,
}

impl std::fmt::Debug for ArtifactCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArtifactCache")
            .field("dir", &self.dir)
            .field("max_bytes", &self.max_bytes)
            .finish_non_exhaustive()
    }
}

/// Makes temporary file names unique within a process (the pid makes them unique across).
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl ArtifactCache {
    /// A cache in `dir` (created when first written) bounded to `max_bytes`, warning on stderr.
    pub fn new(dir: impl Into<PathBuf>, max_bytes: u64) -> ArtifactCache {
        ArtifactCache {
            dir: dir.into(),
            max_bytes,
            warn: Arc::new(|msg| eprintln!("relaxjit: warning: artifact cache: {msg}")),
            build: None,
        }
    }

    /// Keys and checks entries with the build identity `build` instead of
    /// [`relaxjit_version`]'s: an identity fixed when the code that compiles was built, which
    /// must change whenever that code (or its compiler, or its dependencies) does. The engine
    /// gives its own (`relaxjit`'s build script makes it).
    pub fn with_build(mut self, build: &'static str) -> ArtifactCache {
        self.build = Some(build);
        self
    }

    /// The build identity that keys and checks entries.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn build(&self) -> &'static str {
        self.build.unwrap_or_else(relaxjit_version)
    }

    /// A key builder that already holds the format version, this cache's build identity and
    /// the host ISA.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn key_builder(&self) -> KeyBuilder {
        KeyBuilder::new(self.build())
    }

    /// Sends warnings to `hook` instead of stderr.
    pub fn with_warn_hook(mut self, hook: WarnHook) -> ArtifactCache {
        self.warn = hook;
        self
    }

    /// The cache in [`ArtifactCache::default_dir`] with the default size bound, if there is
    /// such a directory.
    pub fn at_default_dir() -> Option<ArtifactCache> {
        Some(ArtifactCache::new(
            ArtifactCache::default_dir()?,
            DEFAULT_MAX_BYTES,
        ))
    }

    /// The directory: `$RELAXJIT_CACHE_DIR` if set, else the user's cache directory
    /// (`$XDG_CACHE_HOME/relaxjit`, `~/.cache/relaxjit`; `~/Library/Caches/relaxjit` on macOS;
    /// `%LOCALAPPDATA%\relaxjit` on Windows). `None` if none can be found.
    pub fn default_dir() -> Option<PathBuf> {
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        if let Some(d) = env(DIR_ENV) {
            return Some(d);
        }
        let base = if cfg!(windows) {
            env("LOCALAPPDATA")
        } else if cfg!(target_os = "macos") {
            env("HOME").map(|h| h.join("Library").join("Caches"))
        } else {
            env("XDG_CACHE_HOME").or_else(|| env("HOME").map(|h| h.join(".cache")))
        };
        base.map(|b| b.join("relaxjit"))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The size bound.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The file holding `key`'s entry.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn path_of(&self, key: &Key) -> PathBuf {
        // By hand rather than `format!` or `Path::join`, whose machinery (formatting, growing
        // the path) a cache hit would otherwise page in.
        let hex = key.hex();
        let dir = self.dir.as_os_str().as_encoded_bytes();
        let mut path = vm::hit::vec_with_capacity(dir.len() + 1 + hex.len() + 1 + EXTENSION.len());
        path.extend_from_slice(dir);
        if !dir.is_empty() && !dir.ends_with(std::path::MAIN_SEPARATOR_STR.as_bytes()) {
            path.extend_from_slice(std::path::MAIN_SEPARATOR_STR.as_bytes());
        }
        path.extend_from_slice(hex.as_bytes());
        path.push(b'.');
        path.extend_from_slice(EXTENSION.as_bytes());
        // SAFETY: the bytes are those of an `OsStr` followed by ASCII, which is how
        // `OsStr::as_encoded_bytes` allows them to be extended.
        PathBuf::from(unsafe { std::ffi::OsString::from_encoded_bytes_unchecked(path) })
    }

    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn identity(&self, key: &Key) -> Identity<'static> {
        Identity {
            key: key.0,
            version: self.build(),
            isa: host_isa_description(),
        }
    }

    /// Reports `msg` through the warning hook (stderr unless replaced).
    pub fn warn(&self, msg: &str) {
        (self.warn)(msg);
    }

    /// The entry stored under `key`, or `None` (absent, or unusable — then with a warning).
    /// A hit refreshes the entry's modification time, which eviction orders by. An alias file
    /// under `key` is followed to the entry it names.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn load(&self, key: &Key) -> Option<Entry> {
        self.load_with(key, &mut |b, _| Ok(vm::hit::copy_slice(b)))
    }

    /// [`load`](Self::load), the executable's bytes handed to `executable` where they lie in
    /// the file (or its mapping) instead of copied out, with the entry's constants
    /// ([`entry::decode_stored_with`]); its error makes the entry a warned miss.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    pub fn load_with<E>(
        &self,
        key: &Key,
        executable: &mut LoadExecutable<'_, E>,
    ) -> Option<Entry<E>> {
        match self.load_stored(key, executable)? {
            entry::Stored::Entry(e) => Some(e),
            entry::Stored::Alias(target) => match self.load_stored(&Key(target), executable)? {
                entry::Stored::Entry(e) => Some(e),
                entry::Stored::Alias(_) => {
                    self.warn(&format!(
                        "{}: an alias names another alias; recompiling",
                        self.path_of(key).display()
                    ));
                    None
                }
            },
        }
    }

    /// The checked contents of the file under `key` (an absent file is a silent miss, an
    /// unusable one a warned miss), refreshing its modification time on success.
    #[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
    fn load_stored<E>(
        &self,
        key: &Key,
        executable: &mut LoadExecutable<'_, E>,
    ) -> Option<entry::Stored<E>> {
        let path = self.path_of(key);
        let Opened { file, len, fresh } = match open_entry(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                self.warn(&format!("cannot open {}: {e}; recompiling", path.display()));
                return None;
            }
        };
        let decoded = if len == 0 {
            Err(Reject::NotAnEntry)
        } else if len < MAP_AT_BYTES {
            let bytes = match read_entry(&file, len as usize) {
                Ok(b) => b,
                Err(e) => {
                    self.warn(&format!("cannot read {}: {e}; recompiling", path.display()));
                    return None;
                }
            };
            entry::decode_stored_with(Source::Read(&bytes), &self.identity(key), executable)
        } else {
            match Mapping::new(&file) {
                Ok(map) => {
                    let map: Arc<dyn vm::SharedBytes> = Arc::new(map);
                    entry::decode_stored_with(Source::Mapped(&map), &self.identity(key), executable)
                }
                Err(e) => {
                    self.warn(&format!("cannot map {}: {e}; recompiling", path.display()));
                    return None;
                }
            }
        };
        match decoded {
            Ok(stored) => {
                if !fresh {
                    // Best effort: a read-only cache still hits, it only evicts less precisely.
                    let _ = file.set_modified(SystemTime::now());
                }
                Some(stored)
            }
            Err(why) => {
                self.warn(&format!("{}: {why}; recompiling", path.display()));
                None
            }
        }
    }

    /// Makes `alias` name the entry stored under `target` with a small alias file, e.g. when
    /// a module whose entry exists is compiled from a source text not yet linked to it: the
    /// entry is neither serialized nor written again. Failures are warnings.
    pub fn store_alias(&self, alias: &Key, target: &Key) {
        let bytes = entry::encode_alias(&self.identity(alias), &target.0);
        let path = self.path_of(alias);
        if let Err(e) = self.write_atomic(&path, &[], &bytes) {
            self.warn(&format!("cannot store {}: {e}", path.display()));
            return;
        }
        if let Err(e) = self.evict(&[path, self.path_of(target)]) {
            self.warn(&format!("cannot evict in {}: {e}", self.dir.display()));
        }
    }

    /// Stores `entry` under `key`, replacing any entry there, then evicts down to the size
    /// bound. Failures are warnings: the compile that produced the entry has succeeded anyway.
    pub fn store(&self, key: &Key, entry: &Entry) {
        self.store_with_aliases(key, &[], entry);
    }

    /// Stores `entry` under `key` and under each of `aliases` (e.g. the key of a module's
    /// source text, before parsing, so that a hit needs no parse): one file, hard-linked under
    /// every name (copied where the file system cannot link), whose header lists the aliases.
    /// An alias is an entry like any other: checked, evicted and cleared the same way.
    pub fn store_with_aliases(&self, key: &Key, aliases: &[Key], entry: &Entry) {
        let alias_keys: Vec<[u8; 32]> = aliases.iter().map(|k| k.0).collect();
        let bytes = entry::encode_with_aliases(&self.identity(key), &alias_keys, entry);
        let path = self.path_of(key);
        let links: Vec<Link> = aliases
            .iter()
            .map(|a| Link {
                path: self.path_of(a),
                alias: *a,
                target: *key,
            })
            .collect();
        if let Err(e) = self.write_atomic(&path, &links, &bytes) {
            self.warn(&format!("cannot store {}: {e}", path.display()));
            return;
        }
        let mut keep: Vec<PathBuf> = links.into_iter().map(|l| l.path).collect();
        keep.push(path);
        if let Err(e) = self.evict(&keep) {
            self.warn(&format!("cannot evict in {}: {e}", self.dir.display()));
        }
    }

    /// A temporary file name in the directory, unique across processes and threads.
    fn temp_path(&self, stem: &Path) -> PathBuf {
        self.dir.join(format!(
            ".{}.{}.{}.tmp",
            stem.file_stem().and_then(|s| s.to_str()).unwrap_or("entry"),
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ))
    }

    /// Writes `bytes` to a temporary file, links it under each of `aliases` (an alias file
    /// there instead where the file system cannot link) and renames it to `path`, so that
    /// every name holds a whole old file or a whole new one.
    fn write_atomic(&self, path: &Path, aliases: &[Link], bytes: &[u8]) -> std::io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let tmp = self.temp_path(path);
        let written = (|| {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            f.write_all(bytes)?;
            f.sync_data()?;
            for alias in aliases {
                let link = self.temp_path(&alias.path);
                if let Err(e) = fs::hard_link(&tmp, &link) {
                    let _ = fs::remove_file(&link);
                    // A file system without hard links gets an alias file.
                    if e.kind() == std::io::ErrorKind::AlreadyExists {
                        return Err(e);
                    }
                    let file = entry::encode_alias(&self.identity(&alias.alias), &alias.target.0);
                    self.write_atomic(&alias.path, &[], &file)?;
                    continue;
                }
                if let Err(e) = fs::rename(&link, &alias.path) {
                    let _ = fs::remove_file(&link);
                    return Err(e);
                }
            }
            fs::rename(&tmp, path)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written
    }

    /// The entry files, each with every name it is linked under.
    fn entries(&self) -> std::io::Result<Vec<Stored>> {
        let rd = match fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut out: Vec<Stored> = Vec::new();
        let mut by_file = std::collections::HashMap::new();
        for e in rd {
            let e = e?;
            let path = e.path();
            if path.extension().and_then(|x| x.to_str()) != Some(EXTENSION) {
                continue;
            }
            // An entry removed by another process between listing and stat is simply gone.
            if let Ok(m) = e.metadata()
                && m.is_file()
            {
                let modified = m.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                match file_id(&m).and_then(|id| by_file.get(&id).copied()) {
                    Some(i) => {
                        let s: &mut Stored = &mut out[i];
                        s.names.push(path);
                    }
                    None => {
                        if let Some(id) = file_id(&m) {
                            by_file.insert(id, out.len());
                        }
                        out.push(Stored {
                            names: vec![path],
                            bytes: m.len(),
                            modified,
                        });
                    }
                }
            }
        }
        Ok(out)
    }

    /// Deletes least recently used entries (with all their names) until the total is within
    /// the bound, except the one linked as `keep` (the entry just stored: deleting it would
    /// only make the next start compile again), so the directory exceeds the bound by at most
    /// one entry.
    fn evict(&self, keep: &[PathBuf]) -> std::io::Result<()> {
        let mut entries = self.entries()?;
        let mut total: u64 = entries.iter().map(|e| e.bytes).sum();
        if total <= self.max_bytes {
            return Ok(());
        }
        entries.retain(|e| !e.names.iter().any(|n| keep.contains(n)));
        entries.sort_by_key(|e| e.modified);
        for e in entries {
            if total <= self.max_bytes {
                break;
            }
            for name in &e.names {
                match fs::remove_file(name) {
                    Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(err),
                    _ => {}
                }
            }
            total -= e.bytes;
        }
        Ok(())
    }

    /// Number of entry names (aliases included) and size of the files behind them.
    pub fn stats(&self) -> std::io::Result<CacheStats> {
        let entries = self.entries()?;
        Ok(CacheStats {
            dir: self.dir.clone(),
            entries: entries.iter().map(|e| e.names.len()).sum(),
            bytes: entries.iter().map(|e| e.bytes).sum(),
            max_bytes: self.max_bytes,
        })
    }

    /// Deletes every entry and leftover temporary file; returns how many entry names there were.
    pub fn clear(&self) -> std::io::Result<usize> {
        let names: Vec<PathBuf> = self.entries()?.into_iter().flat_map(|e| e.names).collect();
        for path in &names {
            match fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        if let Ok(rd) = fs::read_dir(&self.dir) {
            for e in rd.flatten() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if name.starts_with('.') && name.ends_with(".tmp") {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
        Ok(names.len())
    }
}

/// An entry file mapped copy-on-write: the region a loaded module's constants are tensors over
/// ([`vm::Storage::shared`]), alive while any of them is.
///
/// What makes the mapping safe to keep for as long as a module runs:
/// * The file is never written or truncated in place by relaxjit: a store writes a temporary
///   file and renames it over the entry ([`ArtifactCache::write_atomic`]), and eviction and
///   `cache clear` unlink it. Either leaves the mapped inode and its data intact until the last
///   mapping goes. A foreign process truncating the file under a running model would make the
///   model's next touch of a page past the new end a `SIGBUS`: that is outside the contract,
///   as for every mapped file (and for the executable that runs relaxjit itself).
/// * Copy-on-write (`MAP_PRIVATE`, writable) rather than read-only, because constants can be
///   written: a module may hand a constant to `R.call_tir_inplace` (its kernel then writes
///   the tensor it was given), and compiled kernels write through raw pointers that no check
///   sees. A read-only mapping would turn such a write into a `SIGSEGV`; copy-on-write makes it
///   what it is with copied constants — a write to this process's own memory, here a private
///   copy of the page — and the file, the page cache and other processes never see it. Pages
///   never written stay the page cache's, shared, and cost no copy. The safe writers refuse
///   such tensors all the same ([`vm::Tensor::is_unique`]).
/// * Every byte is checked (checksum, bounds) before it is used.
struct Mapping {
    /// Held for its drop, which unmaps; `ptr` is its first byte.
    _map: memmap2::MmapMut,
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: `ptr` is the address of `_map`'s bytes, which are `Send` and `Sync` as the map is;
// all access through it is governed by `SharedBytes`' contract.
unsafe impl Send for Mapping {}
// SAFETY: as above.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps all of `file` copy-on-write.
    fn new(file: &fs::File) -> std::io::Result<Mapping> {
        // SAFETY: the mapped file is never modified in place by relaxjit (see the type's
        // docs); a write through the mapping goes to private pages, never to the file.
        let mut map = unsafe { memmap2::MmapOptions::new().map_copy(file)? };
        // Every byte is read at once (the checksum): one call maps all of the file's pages
        // readable instead of a fault per page (ResNet-50's 62 MB entry: hit 10.2 → 9.2 ms,
        // alternated). Not `MAP_POPULATE`, which on a private writable mapping copies every
        // page (42–47 ms). An older kernel without it faults as before.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::PopulateRead);
        let len = map.len();
        let ptr = std::ptr::NonNull::new(map.as_mut_ptr())
            .ok_or_else(|| std::io::Error::other("a mapping at address 0"))?;
        Ok(Mapping {
            _map: map,
            ptr,
            len,
        })
    }
}

// SAFETY: the `len` bytes at `ptr` are the mapping's, which stay mapped at that address,
// readable and writable (copy-on-write), until `_map` drops with the last `Arc` of this value.
// Nothing else holds `_map` (private to this type), so no `&mut [u8]` of it exists; the
// cache's decode reads the bytes before any tensor over them is used.
unsafe impl vm::SharedBytes for Mapping {
    fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
    fn len(&self) -> usize {
        self.len
    }
}

/// An entry file opened to be loaded.
struct Opened {
    file: fs::File,
    /// Its size in bytes.
    len: u64,
    /// Whether it was modified within [`REFRESH_AFTER`] (so a hit need not refresh it).
    fresh: bool,
}

/// Opens `path` for reading, with its size and whether it is fresh.
///
/// On Unix with `open`, `fstat` and `clock_gettime` directly: `File::open`, `File::metadata`
/// and `SystemTime` go through standard-library code outside the hit path's section (path
/// conversion, a `statx` probe, time arithmetic), which a hit would page in for one file.
#[cfg(unix)]
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn open_entry(path: &Path) -> std::io::Result<Opened> {
    use std::os::fd::FromRawFd as _;
    use std::os::unix::ffi::OsStrExt as _;
    let bytes = path.as_os_str().as_bytes();
    if bytes.contains(&0) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "a path with a NUL byte",
        ));
    }
    let mut c_path = vm::hit::vec_with_capacity(bytes.len() + 1);
    c_path.extend_from_slice(bytes);
    c_path.push(0);
    // SAFETY: `c_path` is NUL-terminated with no NUL before the end (checked above).
    let fd = unsafe { libc::open(c_path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    let file = unsafe { fs::File::from_raw_fd(fd) };
    // SAFETY: `stat` is plain old data, for which all zeroes is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open (owned by `file`) and `st` is a writable `stat`.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `timespec` is plain old data, for which all zeroes is a valid value.
    let mut now: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: `now` is a writable `timespec`.
    let clock = unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut now) };
    // In whole seconds, rounded towards "stale": a refresh too many costs one system call.
    let age = (now.tv_sec as i64).saturating_sub(st.st_mtime as i64);
    Ok(Opened {
        file,
        len: st.st_size.max(0) as u64,
        fresh: clock == 0 && (0..REFRESH_AFTER.as_secs() as i64).contains(&age),
    })
}

/// Opens `path` for reading, with its size and whether it is fresh.
#[cfg(not(unix))]
fn open_entry(path: &Path) -> std::io::Result<Opened> {
    let file = fs::File::open(path)?;
    let meta = file.metadata()?;
    let fresh = meta
        .modified()
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age <= REFRESH_AFTER);
    Ok(Opened {
        len: meta.len(),
        fresh,
        file,
    })
}

/// The first `len` bytes of `file`; an error if it is shorter.
///
/// On Unix with `read` directly into the vector's spare room: no zeroing first, and none of
/// `Read::read_exact`'s generic code outside the section.
#[cfg(unix)]
#[cfg_attr(target_os = "linux", unsafe(link_section = "relaxjit_hit"))]
fn read_entry(file: &fs::File, len: usize) -> std::io::Result<Vec<u8>> {
    use std::os::fd::AsRawFd as _;
    let mut bytes: Vec<u8> = vm::hit::vec_with_capacity(len);
    let mut filled = 0;
    while filled < len {
        // SAFETY: the destination is the vector's spare room from `filled` on, `len - filled`
        // bytes of its capacity of `len`; `read` writes at most that many.
        let n = unsafe {
            libc::read(
                file.as_raw_fd(),
                bytes.as_mut_ptr().add(filled).cast(),
                len - filled,
            )
        };
        match n {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n if n < 0 => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
            n => filled += n as usize,
        }
    }
    // SAFETY: `read` initialized all `len` bytes.
    unsafe { bytes.set_len(len) };
    Ok(bytes)
}

/// The first `len` bytes of `file`; an error if it is shorter.
#[cfg(not(unix))]
fn read_entry(mut file: &fs::File, len: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = vec![0; len];
    file.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// A second name of an entry being stored.
struct Link {
    path: PathBuf,
    /// The key the name stands for, and the entry's key: an alias file from one to the other
    /// is written there (built only then) if the entry cannot be hard-linked.
    alias: Key,
    target: Key,
}

/// One entry file in the directory.
struct Stored {
    /// Every name it is linked under (its key and its aliases).
    names: Vec<PathBuf>,
    bytes: u64,
    modified: SystemTime,
}

/// What tells two names of one file apart from two files: device and inode where there are
/// such; elsewhere every name counts as a file of its own.
fn file_id(m: &fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::{CodeBlob, Symbol};

    /// An entry whose code has `len` bytes, with a constant of `len` bytes too.
    fn entry(len: usize) -> Entry {
        Entry {
            executable: vec![1, 2, 3],
            constants: vec![vm::Tensor::from_slice(&[len as i64], &vec![7u8; len]).unwrap()],
            code: CodeBlob::from_parts(
                vec![0xc3; len],
                vec![Symbol {
                    name: "f".into(),
                    offset: 0,
                }],
            )
            .unwrap(),
            ..Entry::default()
        }
    }

    /// Both ways of reading an entry (read below [`MAP_AT_BYTES`], mapped above) give back
    /// what was stored, and both catch a flipped byte. Mapped, the constants are tensors over
    /// the mapping, which outlives the entry and the file.
    #[test]
    fn small_and_large_entries_load_and_are_checked() {
        let dir = std::env::temp_dir().join(format!("relaxjit-cache-unit-{}", std::process::id()));
        let warnings = Arc::new(std::sync::Mutex::new(Vec::new()));
        let w = warnings.clone();
        let cache = ArtifactCache::new(&dir, u64::MAX)
            .with_build("unit test build")
            .with_warn_hook(Arc::new(move |m| w.lock().unwrap().push(m.to_string())));
        for (i, len) in [100, MAP_AT_BYTES as usize + 4096].into_iter().enumerate() {
            let mut k = cache.key_builder();
            k.part("case", &[i as u8]);
            let key = k.finish();
            let e = entry(len);
            cache.store(&key, &e);
            let loaded = cache.load(&key).unwrap();
            assert_eq!(loaded, e, "{len} bytes");
            let constant = loaded.constants[0].clone();
            assert_eq!(
                constant.storage().is_shared_region(),
                len >= MAP_AT_BYTES as usize,
                "{len} bytes"
            );
            drop(loaded);
            assert!(constant.content_eq(&e.constants[0]), "{len} bytes");
            // Before the file is written in place below, which relaxjit never does.
            drop(constant);
            let path = cache.path_of(&key);
            let mut bytes = fs::read(&path).unwrap();
            let last = bytes.len() - 100;
            bytes[last] ^= 1;
            fs::write(&path, &bytes).unwrap();
            assert_eq!(cache.load(&key), None, "{len} bytes, flipped");
            let w = warnings.lock().unwrap().pop().unwrap();
            assert!(w.contains("checksum mismatch"), "{w}");
        }
        let _ = fs::remove_dir_all(&dir);
    }

    /// Another build keys entries differently, and an entry of another build put under this
    /// build's key is rejected by its header.
    #[test]
    fn a_part_in_pieces_keys_as_the_joined_bytes() {
        let bytes: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut k = KeyBuilder::new("b");
        k.part("data", &bytes);
        let whole = k.finish();
        let mut k = KeyBuilder::new("b");
        k.part_pieces("data", bytes.len(), |piece| {
            for chunk in bytes.chunks(3000) {
                piece(chunk);
            }
        });
        assert_eq!(k.finish(), whole);
        // The name and the length still separate parts.
        let mut k = KeyBuilder::new("b");
        k.part_pieces("dat", bytes.len(), |piece| piece(&bytes));
        assert_ne!(k.finish(), whole);
    }

    #[test]
    fn builds_never_share_entries() {
        let dir = std::env::temp_dir().join(format!("relaxjit-cache-build-{}", std::process::id()));
        let ours = ArtifactCache::new(&dir, u64::MAX).with_build("build a");
        let theirs = ArtifactCache::new(&dir, u64::MAX).with_build("build b");
        assert_eq!(ours.build(), "build a");
        let key = |c: &ArtifactCache| {
            let mut k = c.key_builder();
            k.part("module", b"same module");
            k.finish()
        };
        let (k_ours, k_theirs) = (key(&ours), key(&theirs));
        assert_ne!(k_ours, k_theirs);
        theirs.store(&k_theirs, &entry(16));
        fs::rename(theirs.path_of(&k_theirs), ours.path_of(&k_ours)).unwrap();
        let bytes = fs::read(ours.path_of(&k_ours)).unwrap();
        let id = ours.identity(&k_ours);
        let mut id_theirs = id.clone();
        id_theirs.key = k_theirs.0;
        assert_eq!(
            entry::decode(&bytes, &id),
            Err(Reject::Key),
            "the key is checked before the build"
        );
        id_theirs.version = "build b";
        assert!(entry::decode(&bytes, &id_theirs).is_ok());
        id_theirs.version = "build a";
        assert_eq!(
            entry::decode(&bytes, &id_theirs),
            Err(Reject::Version("build b".into()))
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
