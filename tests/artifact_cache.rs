//! The artifact cache through the engine, in both exec modes: a hit after a miss runs the same
//! code with the same results and the same errors; every kind of damaged entry (a flipped byte in the code, in the
//! executable or in the header; truncation; another format, build or ISA; a damaged alias file)
//! is a warned miss that recompiles and replaces the entry; two `relaxjit` processes racing on
//! one key both succeed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use relaxjit::jit::cache::{ArtifactCache, DEFAULT_MAX_BYTES, Identity, Key, entry};
use relaxjit::{CompiledModule, Config, Engine, ExecMode, Tensor, Value};

const MODES: [ExecMode; 2] = [ExecMode::Bytecode, ExecMode::Compiled];

/// Three kernels (matmul, bias add, relu after fusion) over a symbolic batch.
const MODULE: &str = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 16), dtype="float32"), w: R.Tensor((16, 8), dtype="float32"), b: R.Tensor((8,), dtype="float32")) -> R.Tensor(("n", 8), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            h: R.Tensor((n, 8), dtype="float32") = R.matmul(x, w, out_dtype=None)
            h1: R.Tensor((n, 8), dtype="float32") = R.add(h, b)
            h2: R.Tensor((n, 8), dtype="float32") = R.nn.relu(h1)
            R.output(h2)
        return h2
"#;

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("artifact_cache_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

type Warnings = Arc<Mutex<Vec<String>>>;

/// Compiles parsed text: the module's own key, no alias of its source.
fn compile(engine: &Engine, src: &str) -> relaxjit::Result<CompiledModule> {
    engine.compile(&Engine::parse(src)?)
}

fn engine(dir: &Path) -> (Engine, Warnings) {
    engine_in(dir, ExecMode::Bytecode)
}

fn engine_in(dir: &Path, exec_mode: ExecMode) -> (Engine, Warnings) {
    let warnings: Warnings = Arc::default();
    let w = warnings.clone();
    let cache = ArtifactCache::new(dir, DEFAULT_MAX_BYTES)
        .with_warn_hook(Arc::new(move |m| w.lock().unwrap().push(m.to_string())));
    let engine = Engine::new(Config {
        cache: Some(cache),
        exec_mode,
        ..Config::default()
    })
    .unwrap();
    (engine, warnings)
}

fn tensor(shape: &[i64], seed: u32) -> Value {
    let n: i64 = shape.iter().product();
    let v: Vec<f32> = (0..n)
        .map(|i| ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 97) as f32 / 48.0 - 1.0)
        .collect();
    Value::Tensor(Tensor::from_slice(shape, &v).unwrap())
}

/// The output bytes of a good call and the message of a bad one.
fn behaviour(m: &CompiledModule) -> (Vec<u8>, String) {
    let args = [tensor(&[3, 16], 1), tensor(&[16, 8], 2), tensor(&[8], 3)];
    let out = match m.run("main", &args).unwrap() {
        Value::Tensor(t) => t.to_bytes(),
        other => panic!("expected a tensor, got {other:?}"),
    };
    let bad = [tensor(&[3, 15], 1), tensor(&[16, 8], 2), tensor(&[8], 3)];
    let err = m.run("main", &bad).unwrap_err().to_string();
    (out, err)
}

/// The one entry file in `dir`.
fn entry_file(dir: &Path) -> PathBuf {
    let files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rjc"))
        .collect();
    assert_eq!(files.len(), 1, "one entry in {}: {files:?}", dir.display());
    files[0].clone()
}

fn key_of(path: &Path) -> Key {
    let hex = path.file_stem().unwrap().to_str().unwrap();
    let mut k = [0u8; 32];
    for (i, b) in k.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    Key(k)
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the section is stored verbatim")
}

/// Rewrites a valid entry as another writer would have, with a valid checksum.
fn rewrite(bytes: &[u8], path: &Path, change: impl Fn(&mut Identity)) -> Vec<u8> {
    rewrite_entry(bytes, path, |id, _| change(id))
}

/// The identity the host expects of the entry file at `path`.
fn identity(path: &Path) -> Identity<'static> {
    Identity {
        key: key_of(path).0,
        version: relaxjit::BUILD,
        isa: relaxjit::jit::cache::host_isa_description(),
    }
}

/// Rewrites a valid entry with another identity or payload, with a valid checksum.
fn rewrite_entry(
    bytes: &[u8],
    path: &Path,
    change: impl Fn(&mut Identity, &mut entry::Entry),
) -> Vec<u8> {
    let mut id = identity(path);
    let mut e = entry::decode(bytes, &id).unwrap();
    change(&mut id, &mut e);
    entry::encode(&id, &e)
}

/// The compiled-mode section of a valid entry.
fn vmtir_section(bytes: &[u8], path: &Path) -> Vec<u8> {
    let e = entry::decode(bytes, &identity(path)).unwrap();
    let [(name, section)] = e.extra.as_slice() else {
        panic!("one extra section, got {:?}", e.extra.len());
    };
    assert_eq!(name, relaxjit::jit::vmtir::SECTION);
    section.clone()
}

#[test]
fn a_hit_after_a_miss_behaves_the_same() {
    for mode in MODES {
        hit_after_miss(mode);
    }
}

fn hit_after_miss(mode: ExecMode) {
    let dir = scratch(&format!("hit_{mode:?}"));
    let (engine, warnings) = engine_in(&dir, mode);
    let cold = compile(&engine, MODULE).unwrap();
    assert!(!cold.from_cache());
    let hit = compile(&engine, MODULE).unwrap();
    assert!(
        hit.from_cache(),
        "{mode:?}: the second compile loads the entry"
    );
    assert_eq!(behaviour(&cold), behaviour(&hit), "{mode:?}");
    assert_eq!(hit.exec_mode(), mode);
    assert_eq!(cold.fallbacks(), hit.fallbacks());
    if mode == ExecMode::Compiled {
        assert!(cold.fallbacks().is_empty(), "{:?}", cold.fallbacks());
        assert!(
            hit.executable().as_text().contains("vm_tir_func"),
            "the loaded functions run compiled:\n{}",
            hit.executable().as_text()
        );
        // The compiled function is linked from the entry, not from the interpreter.
        assert!(hit.library().link(hit.executable()).is_ok());
    }
    assert_eq!(
        cold.kernels().code_blob(),
        hit.kernels().code_blob(),
        "the same machine code"
    );
    assert_eq!(
        cold.executable().as_text(),
        hit.executable().as_text(),
        "the same bytecode"
    );
    assert!(warnings.lock().unwrap().is_empty(), "{warnings:?}");
    let stats = engine.config().cache.as_ref().unwrap().stats().unwrap();
    assert_eq!(stats.entries, 1);
    assert!(stats.bytes > 0);
}

#[test]
fn the_exec_modes_keep_separate_entries() {
    let dir = scratch("modes");
    let (bytecode, _) = engine_in(&dir, ExecMode::Bytecode);
    let (compiled, warnings) = engine_in(&dir, ExecMode::Compiled);
    let b = compile(&bytecode, MODULE).unwrap();
    let c = compile(&compiled, MODULE).unwrap();
    assert!(
        !c.from_cache(),
        "a bytecode entry is not a compiled-mode hit"
    );
    assert_eq!(c.exec_mode(), ExecMode::Compiled);
    assert!(compile(&compiled, MODULE).unwrap().from_cache());
    assert!(compile(&bytecode, MODULE).unwrap().from_cache());
    assert_eq!(behaviour(&b), behaviour(&c));
    let cache = bytecode.config().cache.as_ref().unwrap();
    assert_eq!(cache.stats().unwrap().entries, 2);
    assert!(warnings.lock().unwrap().is_empty(), "{warnings:?}");
}

#[test]
fn the_source_text_alias_spares_the_parse_and_survives_eviction() {
    let dir = scratch("alias");
    let (engine, warnings) = engine(&dir);
    let cold = engine.compile_str(MODULE).unwrap();
    assert!(!cold.from_cache());
    let cache = engine.config().cache.as_ref().unwrap();
    assert_eq!(cache.stats().unwrap().entries, 2, "the entry and the alias");
    // The alias is the entry itself under a second name, so a hit reads one file.
    let canonical = cache.path_of(&Key(key_of_module(MODULE)));
    assert_eq!(
        std::fs::read(other_entry(&dir, &canonical)).unwrap(),
        std::fs::read(&canonical).unwrap()
    );
    let hit = engine.compile_str(MODULE).unwrap();
    assert!(hit.from_cache());
    assert_eq!(behaviour(&cold), behaviour(&hit));
    // The same module written differently has another alias but the same entry.
    let respaced = MODULE.replace("(x, w, out_dtype=None)", "(x,  w, out_dtype=None)");
    assert!(engine.compile_str(&respaced).unwrap().from_cache());
    assert_eq!(cache.stats().unwrap().entries, 3, "one entry, two aliases");
    // An alias outlives the removal of the canonical name.
    std::fs::remove_file(&canonical).unwrap();
    assert!(engine.compile_str(MODULE).unwrap().from_cache());
    assert!(!compile(&engine, MODULE).unwrap().from_cache());
    assert!(compile(&engine, MODULE).unwrap().from_cache());
    assert!(warnings.lock().unwrap().is_empty(), "{warnings:?}");
}

/// An entry file in `dir` other than `not`.
fn other_entry(dir: &Path, not: &Path) -> PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "rjc") && p != not)
        .expect("a second entry file")
}

/// A file under an alias's name that does not list the alias — another module's entry moved
/// there, or a damaged alias — is a warned miss, and the next compile of the text links the
/// right entry again.
#[test]
fn a_misplaced_alias_is_a_warned_miss_that_gets_replaced() {
    for mode in MODES {
        let dir = scratch(&format!("alias_damage_{mode:?}"));
        let (engine, warnings) = engine_in(&dir, mode);
        let expected = behaviour(&engine.compile_str(MODULE).unwrap());
        let cache = engine.config().cache.as_ref().unwrap();
        let canonical = cache.path_of(&Key(key_of_module_in(MODULE, mode)));
        assert!(canonical.exists());
        let alias = other_entry(&dir, &canonical);
        let foreign = scratch(&format!("alias_damage_foreign_{mode:?}"));
        let (other, _) = engine_in(&foreign, mode);
        compile(&other, &variant(1)).unwrap();
        std::fs::remove_file(&alias).unwrap();
        std::fs::copy(entry_file(&foreign), &alias).unwrap();

        let again = engine.compile_str(MODULE).unwrap();
        let seen = std::mem::take(&mut *warnings.lock().unwrap());
        assert!(
            seen.len() == 1 && seen[0].contains("another key"),
            "{mode:?}: {seen:?}"
        );
        assert!(again.from_cache(), "the canonical entry is still good");
        assert_eq!(behaviour(&again), expected);
        let replaced = engine.compile_str(MODULE).unwrap();
        assert!(replaced.from_cache());
        assert!(warnings.lock().unwrap().is_empty(), "{warnings:?}");
        // The canonical entry hit, so the alias was replaced by an alias file naming it.
        let bytes = std::fs::read(&alias).unwrap();
        assert_eq!(
            entry::decode_stored(&bytes, &identity(&alias)),
            Ok(entry::Stored::Alias(key_of(&canonical).0))
        );
    }
}

/// A source text compiled after its module's entry exists gets a small alias file naming
/// the entry (not a copy); a damaged alias file is a warned miss that gets replaced, and one
/// whose entry is gone is a silent miss that recompiles and links the new entry.
#[test]
fn alias_files_name_an_entry_and_are_checked() {
    let dir = scratch("alias_file");
    let (engine, warnings) = engine(&dir);
    let expected = behaviour(&compile(&engine, MODULE).unwrap());
    let canonical = entry_file(&dir);
    let entry_bytes = std::fs::metadata(&canonical).unwrap().len();

    let hit = engine.compile_str(MODULE).unwrap();
    assert!(hit.from_cache());
    let alias = other_entry(&dir, &canonical);
    let bytes = std::fs::read(&alias).unwrap();
    assert_eq!(bytes[..8], entry::ALIAS_MAGIC);
    assert!(
        (bytes.len() as u64) < entry_bytes.min(2048),
        "an alias file of {} bytes for an entry of {entry_bytes}",
        bytes.len()
    );
    let through_alias = engine.compile_str(MODULE).unwrap();
    assert!(through_alias.from_cache());
    assert_eq!(behaviour(&through_alias), expected);
    assert!(warnings.lock().unwrap().is_empty(), "{warnings:?}");

    // A flipped byte: warned, the entry still hits by its own key, the alias is rewritten.
    let mut damaged = bytes.clone();
    let last = damaged.len() - 1;
    damaged[last] ^= 1;
    std::fs::write(&alias, &damaged).unwrap();
    let again = engine.compile_str(MODULE).unwrap();
    let seen = std::mem::take(&mut *warnings.lock().unwrap());
    assert!(
        seen.len() == 1 && seen[0].contains("checksum mismatch"),
        "{seen:?}"
    );
    assert!(again.from_cache());
    assert_eq!(std::fs::read(&alias).unwrap(), bytes);

    // The entry evicted: the alias leads nowhere, which is a plain miss.
    std::fs::remove_file(&canonical).unwrap();
    let recompiled = engine.compile_str(MODULE).unwrap();
    assert!(!recompiled.from_cache());
    assert_eq!(behaviour(&recompiled), expected);
    assert!(warnings.lock().unwrap().is_empty(), "{warnings:?}");
    assert_eq!(
        std::fs::read(&alias).unwrap(),
        std::fs::read(&canonical).unwrap(),
        "the recompile links the new entry under the alias"
    );
    assert!(engine.compile_str(MODULE).unwrap().from_cache());
}

/// The file stem of the canonical entry of `src`: the entry a parsed compile stores.
fn key_of_module(src: &str) -> [u8; 32] {
    key_of_module_in(src, ExecMode::Bytecode)
}

/// [`key_of_module`] in exec mode `mode`.
fn key_of_module_in(src: &str, mode: ExecMode) -> [u8; 32] {
    static PROBES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = scratch(&format!("key_probe_{n}"));
    let (engine, _) = engine_in(&dir, mode);
    compile(&engine, src).unwrap();
    key_of(&entry_file(&dir)).0
}

/// A damage and the words the warning must contain.
struct Damage {
    name: &'static str,
    apply: fn(&CompiledModule, &Path, Vec<u8>) -> Vec<u8>,
    warning: &'static str,
    /// The damage is to the compiled functions, which only compiled-mode entries hold.
    compiled_only: bool,
}

const DAMAGES: &[Damage] = &[
    Damage {
        name: "flipped byte in the code",
        apply: |m, _, mut b| {
            let code = m.kernels().code_blob();
            let at = find(&b, code.bytes()) + code.bytes().len() / 2;
            b[at] ^= 0x40;
            b
        },
        warning: "checksum mismatch",
        compiled_only: false,
    },
    Damage {
        name: "flipped byte in the executable",
        apply: |m, _, mut b| {
            let exec = m.executable().save_to_bytes().unwrap();
            let at = find(&b, &exec) + exec.len() / 2;
            b[at] ^= 0x01;
            b
        },
        warning: "checksum mismatch",
        compiled_only: false,
    },
    Damage {
        name: "flipped byte in the header's key",
        apply: |_, _, mut b| {
            b[8 + 4 + 32 + 5] ^= 0x80;
            b
        },
        warning: "checksum mismatch",
        compiled_only: false,
    },
    Damage {
        name: "flipped byte in the magic",
        apply: |_, _, mut b| {
            b[0] ^= 0xff;
            b
        },
        warning: "not a cache entry",
        compiled_only: false,
    },
    Damage {
        name: "truncation",
        apply: |_, _, mut b| {
            b.truncate(b.len() * 2 / 3);
            b
        },
        warning: "checksum mismatch",
        compiled_only: false,
    },
    Damage {
        name: "truncation inside the header",
        apply: |_, _, mut b| {
            b.truncate(20);
            b
        },
        warning: "not a cache entry",
        compiled_only: false,
    },
    Damage {
        name: "empty file",
        apply: |_, _, _| Vec::new(),
        warning: "not a cache entry",
        compiled_only: false,
    },
    Damage {
        name: "another format version",
        apply: |_, _, mut b| {
            b[8..12].copy_from_slice(&(entry::FORMAT_VERSION + 1).to_le_bytes());
            b
        },
        warning: "entry format",
        compiled_only: false,
    },
    Damage {
        name: "another relaxjit build",
        apply: |_, p, b| rewrite(&b, p, |id| id.version = "relaxjit 0.0.0-other"),
        warning: "another relaxjit build",
        compiled_only: false,
    },
    Damage {
        name: "other ISA flags",
        apply: |_, p, b| rewrite(&b, p, |id| id.isa = "x86_64 has_avx=false"),
        warning: "other ISA flags",
        compiled_only: false,
    },
    Damage {
        name: "stored under another key",
        apply: |_, p, b| rewrite(&b, p, |id| id.key[0] ^= 1),
        warning: "another key",
        compiled_only: false,
    },
    Damage {
        name: "flipped byte in the compiled functions' code",
        apply: |_, p, mut b| {
            let section = vmtir_section(&b, p);
            let at = find(&b, &section) + 8 + 16;
            b[at] ^= 0x10;
            b
        },
        warning: "checksum mismatch",
        compiled_only: true,
    },
    Damage {
        name: "compiled-mode section cut short, checksum valid",
        apply: |_, p, b| {
            rewrite_entry(&b, p, |_, e| {
                let section = &mut e.extra[0].1;
                section.truncate(section.len() - 3);
            })
        },
        warning: "the stored compiled functions do not load",
        compiled_only: true,
    },
    Damage {
        name: "compiled-mode section missing, checksum valid",
        apply: |_, p, b| rewrite_entry(&b, p, |_, e| e.extra.clear()),
        warning: "no compiled functions",
        compiled_only: true,
    },
];

#[test]
fn damaged_entries_are_warned_misses_that_get_replaced() {
    let mut failures = Vec::new();
    let cases = MODES.iter().flat_map(|&m| {
        DAMAGES
            .iter()
            .enumerate()
            .filter(move |(_, d)| m == ExecMode::Compiled || !d.compiled_only)
            .map(move |(i, d)| (m, i, d))
    });
    for (mode, i, d) in cases {
        let dir = scratch(&format!("damage_{mode:?}_{i}"));
        let (engine, warnings) = engine_in(&dir, mode);
        let cold = compile(&engine, MODULE).unwrap();
        let expected = behaviour(&cold);
        let path = entry_file(&dir);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, (d.apply)(&cold, &path, bytes)).unwrap();

        let again = compile(&engine, MODULE).unwrap();
        let seen = std::mem::take(&mut *warnings.lock().unwrap());
        let mut problems = Vec::new();
        if again.from_cache() {
            problems.push("the damaged entry was used".to_string());
        }
        if !(seen.len() == 1 && seen[0].contains(d.warning)) {
            problems.push(format!(
                "warnings {seen:?}, expected one with `{}`",
                d.warning
            ));
        }
        if behaviour(&again) != expected {
            problems.push("the recompiled module behaves differently".into());
        }
        let replaced = compile(&engine, MODULE).unwrap();
        if !replaced.from_cache() || !warnings.lock().unwrap().is_empty() {
            problems.push(format!(
                "the entry was not replaced (hit: {}, warnings {:?})",
                replaced.from_cache(),
                warnings.lock().unwrap()
            ));
        } else if behaviour(&replaced) != expected {
            problems.push("the replaced entry behaves differently".into());
        }
        if again.exec_mode() != mode || replaced.exec_mode() != mode {
            problems.push("the exec mode changed".into());
        }
        if !problems.is_empty() {
            failures.push(format!("{mode:?}, {}: {}", d.name, problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Three modules that compile to entries of about the same size.
const VARIANTS: [(&str, &str); 3] = [
    ("R.nn.relu(h1)", "R.nn.relu(h1)"),
    ("R.nn.relu(h1)", "R.add(h1, h1)"),
    ("R.nn.relu(h1)", "R.multiply(h1, h1)"),
];

fn variant(i: usize) -> String {
    MODULE.replace(VARIANTS[i].0, VARIANTS[i].1)
}

fn set_mtime(path: &Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn the_size_bound_evicts_the_least_recently_used() {
    let dir = scratch("lru");
    let (big, _) = engine(&dir);
    let cache = big.config().cache.clone().unwrap();
    let path = |i: usize| cache.path_of(&Key(key_of_module(&variant(i))));
    compile(&big, &variant(0)).unwrap();
    compile(&big, &variant(1)).unwrap();
    let two = cache.stats().unwrap().bytes;
    // Variant 0 was stored first, but a hit makes it the most recently used.
    set_mtime(&path(0), 1_000);
    set_mtime(&path(1), 2_000);
    assert!(compile(&big, &variant(0)).unwrap().from_cache());
    // Room for two entries and a bit: storing a third evicts the least recently used.
    let small = Engine::new(Config {
        cache: Some(ArtifactCache::new(&dir, two + two / 4)),
        ..Config::default()
    })
    .unwrap();
    compile(&small, &variant(2)).unwrap();
    let left: Vec<bool> = (0..3).map(|i| path(i).exists()).collect();
    assert_eq!(
        left,
        [true, false, true],
        "variant 1 was the least recently used"
    );
    let cache = small.config().cache.as_ref().unwrap();
    assert_eq!(cache.clear().unwrap(), 2, "clear removes what is left");
    assert_eq!(cache.stats().unwrap().entries, 0);
}

#[test]
fn two_processes_racing_on_one_key_both_succeed() {
    let dir = scratch("race");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_relaxjit"))
            .args(["run", "tests/cli/add.py"])
            .current_dir(root)
            .env("RELAXJIT_CACHE_DIR", &dir)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let outputs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let results: Vec<String> = outputs
        .iter()
        .map(|o| {
            let stdout = String::from_utf8_lossy(&o.stdout);
            assert!(
                o.status.success(),
                "status {:?}\nstdout:\n{stdout}\nstderr:\n{}",
                o.status,
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(
                !String::from_utf8_lossy(&o.stderr).contains("warning"),
                "no warning in a race: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            stdout
                .lines()
                .filter(|l| l.starts_with("output"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    assert!(!results[0].is_empty());
    assert_eq!(results[0], results[1]);
    entry_file(&dir);
    let third = spawn().wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&third.stdout);
    assert!(third.status.success());
    assert!(stdout.contains("from the artifact cache"), "{stdout}");
    assert!(stdout.contains(&results[0]), "{stdout}");
}

#[test]
fn the_command_line_uses_and_manages_the_cache() {
    let dir = scratch("cli");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let relaxjit = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_relaxjit"))
            .args(args)
            .current_dir(root)
            .env("RELAXJIT_CACHE_DIR", &dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{args:?}: {stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        stdout
    };
    let run = ["run", "tests/cli/add.py"];
    // An ONNX model: the second run loads it without importing it (the key of its bytes),
    // its inputs made from the model's signature.
    let onnx = [
        "run",
        "onnx/tests/data/pytorch-operator/test_operator_basic/model.onnx",
        "--input",
        "0=tests/cli/onnx_basic_input_0.npy",
        "--input",
        "input_1=tests/cli/onnx_basic_input_1.npy",
    ];
    let lines: [(&[&str], &str); 8] = [
        (&run, "(1 TIR kernel)"),
        (&run, "(1 TIR kernel, from the artifact cache)"),
        (&["run", "tests/cli/add.py", "--no-cache"], "(1 TIR kernel)"),
        (&["cache", "stats"], "entries:   1\nsize:      "),
        (&["cache", "clear"], "removed 1 entry from "),
        (&["cache", "stats"], "entries:   0\n"),
        (&onnx, "output: float32[1] [-0.6020]"),
        (
            &onnx,
            ", from the artifact cache)\ninput input_0: float32[1] [0.4000]",
        ),
    ];
    for (args, want) in lines {
        let out = relaxjit(args);
        assert!(
            out.contains(want),
            "{args:?} printed\n{out}\nwithout `{want}`"
        );
    }
}

/// The engine keys its entries by this build's identity, fixed when relaxjit was built.
#[test]
fn entries_are_keyed_by_the_build_identity() {
    let parts: Vec<&str> = relaxjit::BUILD.split(' ').collect();
    assert_eq!(parts.len(), 3, "{}", relaxjit::BUILD);
    assert_eq!(parts[0], "relaxjit");
    assert_eq!(parts[1], env!("CARGO_PKG_VERSION"));
    assert_eq!(parts[2].len(), 32);
    assert!(parts[2].bytes().all(|b| b.is_ascii_hexdigit()));
    let dir = scratch("build_identity");
    let cache = ArtifactCache::new(&dir, DEFAULT_MAX_BYTES).with_build("some other build");
    let engine = Engine::new(Config {
        cache: Some(cache),
        ..Config::default()
    })
    .unwrap();
    assert_eq!(
        engine.config().cache.as_ref().unwrap().build(),
        relaxjit::BUILD
    );
}

/// Weights of 16 MiB and more are hashed a tensor per task (`src/cache.rs`): the same weights
/// hit, and a single changed weight — in either tensor — is another entry.
#[test]
fn large_weights_key_by_every_byte() {
    const SRC: &str = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2097152,), dtype="float32")) -> R.Tensor((2097152,), dtype="float32"):
        a: R.Tensor((2097152,), dtype="float32") = metadata["ir.GenericConst"][0]
        b: R.Tensor((2097152,), dtype="float32") = metadata["ir.GenericConst"][1]
        y: R.Tensor((2097152,), dtype="float32") = R.add(x, a)
        z: R.Tensor((2097152,), dtype="float32") = R.multiply(y, b)
        return z
"#;
    const N: usize = 1 << 21;
    let weights = |changed: Option<(usize, usize)>| -> Vec<Tensor> {
        (0..2)
            .map(|t| {
                let mut v: Vec<f32> = (0..N).map(|i| (i % 97) as f32 * 0.25 + t as f32).collect();
                if let Some((ct, at)) = changed
                    && ct == t
                {
                    v[at] += 1.0;
                }
                Tensor::from_slice(&[N as i64], &v).unwrap()
            })
            .collect()
    };
    let dir = scratch("large_weights");
    let (engine, warnings) = engine(&dir);
    let compile = |w: Vec<Tensor>| engine.compile_str_with_metadata(SRC, w).unwrap();
    assert!(!compile(weights(None)).from_cache());
    assert!(compile(weights(None)).from_cache());
    // The last element of the first tensor, the first of the second.
    for changed in [(0, N - 1), (1, 0)] {
        let m = compile(weights(Some(changed)));
        assert!(!m.from_cache(), "weight {changed:?} changed, yet a hit");
        let x = Tensor::from_slice(&[N as i64], &vec![1.0f32; N]).unwrap();
        let out = m.run("main", &[x.into()]).unwrap();
        let out = out.as_tensor().unwrap().to_vec::<f32>().unwrap();
        let (t, at) = changed;
        let mut want_a = (at % 97) as f32 * 0.25;
        let mut want_b = (at % 97) as f32 * 0.25 + 1.0;
        if t == 0 {
            want_a += 1.0;
        } else {
            want_b += 1.0;
        }
        assert_eq!(out[at], (1.0 + want_a) * want_b);
    }
    assert!(warnings.lock().unwrap().is_empty());
}

/// A module with two constants: `a` of `n` elements, added to the input, and `c` of four,
/// whose sum scales it; `weight` returns `a` itself.
fn constants_module(n: usize) -> String {
    format!(
        r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(({n},), dtype="float32")) -> R.Tensor(({n},), dtype="float32"):
        a: R.Tensor(({n},), dtype="float32") = metadata["ir.GenericConst"][0]
        c: R.Tensor((4,), dtype="float32") = metadata["ir.GenericConst"][1]
        y: R.Tensor(({n},), dtype="float32") = R.add(x, a)
        s: R.Tensor((), dtype="float32") = R.sum(c, axis=None, keepdims=False)
        z: R.Tensor(({n},), dtype="float32") = R.multiply(y, s)
        return z

    @R.function
    def weight() -> R.Tensor(({n},), dtype="float32"):
        a: R.Tensor(({n},), dtype="float32") = metadata["ir.GenericConst"][0]
        return a
"#
    )
}

/// Compiles [`constants_module`] parsed: one entry file, under the module's own key.
fn compile_constants(engine: &Engine, src: &str, n: usize) -> CompiledModule {
    engine
        .compile(&Engine::parse_with_metadata(src, constants(n)).unwrap())
        .unwrap()
}

fn constants(n: usize) -> Vec<Tensor> {
    let a: Vec<f32> = (0..n).map(|i| (i % 89) as f32 * 0.5 - 3.0).collect();
    vec![
        Tensor::from_slice(&[n as i64], &a).unwrap(),
        Tensor::from_slice(&[4], &[0.25f32, 0.5, -0.125, 1.0]).unwrap(),
    ]
}

/// The tensor constants of a compiled module's executable.
fn tensor_constants(m: &CompiledModule) -> Vec<Tensor> {
    m.executable()
        .constants
        .iter()
        .filter_map(|c| c.as_tensor().ok().cloned())
        .collect()
}

/// `main` of [`constants_module`] on a fixed input, as bytes.
fn constants_behaviour(m: &CompiledModule, n: usize) -> Vec<u8> {
    let x: Vec<f32> = (0..n).map(|i| (i % 13) as f32 - 6.0).collect();
    let x = Tensor::from_slice(&[n as i64], &x).unwrap();
    let out = m.run("main", &[x.into()]).unwrap();
    out.as_tensor().unwrap().to_bytes()
}

/// A hit of an entry that is mapped ([`jit::cache::MAP_AT_BYTES`] and more) makes its
/// constants tensors over the mapping, aligned as every storage is; a small entry, read
/// rather than mapped, copies them. Both give the results of the compile, in both exec modes,
/// and the safe writers refuse mapped constants.
#[test]
fn a_hit_maps_large_entries_constants_and_copies_small_ones() {
    let large = relaxjit::jit::cache::MAP_AT_BYTES as usize / 4 * 2;
    for mode in MODES {
        for (n, mapped) in [(1024, false), (large, true)] {
            let dir = scratch(&format!("constants_{mode:?}_{n}"));
            let (engine, warnings) = engine_in(&dir, mode);
            let src = constants_module(n);
            let cold = compile_constants(&engine, &src, n);
            assert!(!cold.from_cache());
            let hit = compile_constants(&engine, &src, n);
            assert!(hit.from_cache(), "{mode:?}, {n}: a hit");
            let size = std::fs::metadata(entry_file(&dir)).unwrap().len();
            assert_eq!(
                size >= relaxjit::jit::cache::MAP_AT_BYTES,
                mapped,
                "{mode:?}, {n}: an entry of {size} bytes"
            );
            assert_eq!(
                constants_behaviour(&cold, n),
                constants_behaviour(&hit, n),
                "{mode:?}, {n}"
            );
            let ours = tensor_constants(&hit);
            assert_eq!(ours.len(), 2, "{mode:?}, {n}: {ours:?}");
            for (t, want) in ours.iter().zip(tensor_constants(&cold)) {
                assert!(t.content_eq(&want), "{mode:?}, {n}: {t:?}");
                assert_eq!(t.storage().is_shared_region(), mapped, "{mode:?}, {n}");
                assert_eq!(
                    t.as_ptr() as usize % relaxjit::vm::tensor::ALLOC_ALIGNMENT,
                    0
                );
            }
            let mut weight = hit.run("weight", &[]).unwrap().as_tensor().unwrap().clone();
            assert!(weight.content_eq(&constants(n)[0]));
            let refused = weight.bytes_mut().map(|_| ()).unwrap_err().to_string();
            assert!(
                refused.contains(if mapped {
                    "constant data"
                } else {
                    "shared handle"
                }),
                "{refused}"
            );
            assert!(warnings.lock().unwrap().is_empty(), "{warnings:?}");
        }
    }
}

/// The mapping of a hit lives as long as anything over it: a VM, and a constant the module
/// returned, stay valid after the module, and then the VM, are dropped — and after the entry
/// file is deleted.
#[test]
fn mapped_constants_outlive_the_module_and_the_file() {
    let n = relaxjit::jit::cache::MAP_AT_BYTES as usize / 2;
    for mode in MODES {
        let dir = scratch(&format!("outlive_{mode:?}"));
        let (engine, _) = engine_in(&dir, mode);
        let src = constants_module(n);
        let cold = compile_constants(&engine, &src, n);
        let expected = constants_behaviour(&cold, n);
        drop(cold);
        let hit = compile_constants(&engine, &src, n);
        assert!(hit.from_cache());
        let vm = hit.vm().unwrap();
        let weight = hit.run("weight", &[]).unwrap().as_tensor().unwrap().clone();
        assert!(weight.storage().is_shared_region());
        drop(hit);
        std::fs::remove_dir_all(&dir).unwrap();
        let x: Vec<f32> = (0..n).map(|i| (i % 13) as f32 - 6.0).collect();
        let x = Tensor::from_slice(&[n as i64], &x).unwrap();
        let out = vm.invoke("main", &[x.into()]).unwrap();
        assert_eq!(out.as_tensor().unwrap().to_bytes(), expected, "{mode:?}");
        drop(vm);
        assert!(weight.content_eq(&constants(n)[0]), "{mode:?}");
    }
}

/// A flipped byte in a mapped constant is a checksum mismatch; constants that do not fit the
/// executable's records, under a valid checksum, do not load. Both are warned misses.
#[test]
fn damaged_constants_are_warned_misses() {
    let n = relaxjit::jit::cache::MAP_AT_BYTES as usize / 2;
    let src = constants_module(n);
    type Change = fn(&mut entry::Entry);
    let cases: [(&str, Option<Change>, &str); 4] = [
        ("flipped byte", None, "checksum mismatch"),
        (
            "a constant of another shape",
            Some(|e| e.constants[1] = Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap()),
            "does not load",
        ),
        (
            "a constant missing",
            Some(|e| {
                e.constants.pop();
            }),
            "does not load",
        ),
        (
            "a constant too many",
            Some(|e| e.constants.push(Tensor::scalar(1.0f32))),
            "does not load",
        ),
    ];
    for mode in MODES {
        for (name, change, warning) in cases {
            let dir = scratch(&format!("damaged_constants_{mode:?}"));
            let (engine, warnings) = engine_in(&dir, mode);
            let cold = compile_constants(&engine, &src, n);
            let expected = constants_behaviour(&cold, n);
            let path = entry_file(&dir);
            let mut bytes = std::fs::read(&path).unwrap();
            match change {
                None => {
                    let a = constants(n)[0].to_bytes();
                    let at = find(&bytes, &a) + a.len() / 3;
                    bytes[at] ^= 0x04;
                }
                Some(change) => bytes = rewrite_entry(&bytes, &path, |_, e| change(e)),
            }
            std::fs::write(&path, bytes).unwrap();
            let again = compile_constants(&engine, &src, n);
            let seen = std::mem::take(&mut *warnings.lock().unwrap());
            assert!(
                !again.from_cache(),
                "{mode:?}, {name}: the damaged entry was used"
            );
            assert!(
                seen.len() == 1 && seen[0].contains(warning),
                "{mode:?}, {name}: warnings {seen:?}, expected one with `{warning}`"
            );
            assert_eq!(constants_behaviour(&again, n), expected, "{mode:?}, {name}");
        }
    }
}

/// A kernel that writes a constant in place (`R.call_tir_inplace`, valid Relax) writes the
/// hit's copy-on-write mapping: each call adds one, as it does to the compiled module's own
/// constant, and never the file — the next hit starts from the stored values again.
#[test]
fn writing_a_mapped_constant_never_writes_the_entry() {
    const SRC: &str = r#"@I.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((131072,), "float32")):
        for i in range(131072):
            with T.block("b"):
                vi = T.axis.spatial(131072, i)
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main() -> R.Tensor((131072,), dtype="float32"):
        cls = Module
        a: R.Tensor((131072,), dtype="float32") = R.const(np.full((131072,), 2.5, dtype="float32"))
        b = R.call_tir_inplace(cls.add_one, (a,), out_sinfo=R.Tensor((131072,), dtype="float32"), inplace_indices=[0])
        return b
"#;
    let calls = |m: &CompiledModule| -> Vec<f32> {
        (0..2)
            .map(|_| {
                let out = m.run("main", &[]).unwrap();
                let v = out.as_tensor().unwrap().to_vec::<f32>().unwrap();
                assert!(v.iter().all(|&x| x == v[0]), "{:?}", &v[..4]);
                v[0]
            })
            .collect()
    };
    for mode in MODES {
        let dir = scratch(&format!("inplace_{mode:?}"));
        let (engine, warnings) = engine_in(&dir, mode);
        let cold = compile(&engine, SRC).unwrap();
        assert_eq!(calls(&cold), [3.5, 4.5], "{mode:?}");
        let stored = std::fs::read(entry_file(&dir)).unwrap();
        for _ in 0..2 {
            let hit = compile(&engine, SRC).unwrap();
            assert!(hit.from_cache(), "{mode:?}");
            assert!(
                tensor_constants(&hit)[0].storage().is_shared_region(),
                "{mode:?}: the constant is mapped"
            );
            assert_eq!(calls(&hit), [3.5, 4.5], "{mode:?}");
        }
        assert_eq!(std::fs::read(entry_file(&dir)).unwrap(), stored, "{mode:?}");
        assert!(warnings.lock().unwrap().is_empty(), "{warnings:?}");
    }
}
