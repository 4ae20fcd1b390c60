//! The executable format against TVM's own output: every conformance case's `tvm_exec.bin`
//! must load, save back to the same bytes, and print `as_text()` / `as_python()` exactly as
//! `tvm_exec.txt` / `tvm_exec.py`; and mutated bytes must load to `Ok` or `Err`, never panic.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use relaxjit_vm::{Executable, Value};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance")
}

struct Case {
    name: String,
    bin: Vec<u8>,
    dir: PathBuf,
}

/// Every case folder that holds a `tvm_exec.bin`, sorted by name.
fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let mut cases: Vec<Case> = std::fs::read_dir(corpus_dir())
            .expect("the conformance corpus is present")
            .filter_map(|e| {
                let dir = e.ok()?.path();
                let bin = std::fs::read(dir.join("tvm_exec.bin")).ok()?;
                let name = dir.file_name()?.to_string_lossy().into_owned();
                Some(Case { name, bin, dir })
            })
            .collect();
        cases.sort_by(|a, b| a.name.cmp(&b.name));
        cases
    })
}

/// The first line where `actual` and `expected` differ, for a readable failure.
fn first_difference(actual: &str, expected: &str) -> String {
    let (a, e): (Vec<_>, Vec<_>) = (actual.lines().collect(), expected.lines().collect());
    for i in 0..a.len().max(e.len()) {
        if a.get(i) != e.get(i) {
            return format!(
                "line {}:\n    actual:   {:?}\n    expected: {:?}",
                i + 1,
                a.get(i),
                e.get(i)
            );
        }
    }
    "trailing newline differs".to_string()
}

#[test]
fn corpus_loads_saves_and_prints_like_tvm() {
    let cases = cases();
    assert!(cases.len() >= 90, "only {} corpus cases found", cases.len());
    let mut failures = Vec::new();
    let (mut saved, mut text, mut python) = (0, 0, 0);
    for case in cases {
        let exec = match Executable::load_from_bytes(&case.bin) {
            Ok(e) => e,
            Err(e) => {
                failures.push(format!("{}: load: {e}", case.name));
                continue;
            }
        };
        match exec.save_to_bytes() {
            Ok(b) if b == case.bin => saved += 1,
            Ok(b) => failures.push(format!(
                "{}: save gives {} bytes, not the {} loaded (first difference at byte {})",
                case.name,
                b.len(),
                case.bin.len(),
                b.iter().zip(&case.bin).take_while(|(x, y)| x == y).count()
            )),
            Err(e) => failures.push(format!("{}: save: {e}", case.name)),
        }
        for (file, actual, count) in [
            ("tvm_exec.txt", exec.as_text(), &mut text),
            ("tvm_exec.py", exec.as_python(), &mut python),
        ] {
            match std::fs::read_to_string(case.dir.join(file)) {
                Ok(expected) if expected == actual => *count += 1,
                Ok(expected) => failures.push(format!(
                    "{}: {file} differs at {}",
                    case.name,
                    first_difference(&actual, &expected)
                )),
                Err(e) => failures.push(format!("{}: cannot read {file}: {e}", case.name)),
            }
        }
        // TVM's Stats() rejects float constants; everything else must print.
        let has_float = exec.constants.iter().any(|c| matches!(c, Value::Float(_)));
        match exec.stats() {
            Ok(s) if s.starts_with("Relax VM executable statistics:\n") => {}
            Ok(s) => failures.push(format!("{}: stats: {s:?}", case.name)),
            Err(e) if has_float => assert!(e.message().contains("float"), "{e}"),
            Err(e) => failures.push(format!("{}: stats: {e}", case.name)),
        }
    }
    eprintln!(
        "{} cases: {saved} byte-identical saves, {text} identical as_text, {python} identical as_python",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// One edit of a byte string; positions are fractions of the current length.
#[derive(Clone, Debug)]
enum Mutation {
    FlipBit(prop::sample::Index, u8),
    SetByte(prop::sample::Index, u8),
    Insert(prop::sample::Index, Vec<u8>),
    Delete(prop::sample::Index, usize),
    Truncate(prop::sample::Index),
    /// Overwrites eight bytes with a value likely to be a dangerous length or index.
    SetWord(prop::sample::Index, u64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let word = prop_oneof![
        Just(u64::MAX),
        Just(1u64 << 60),
        Just(1u64 << 32),
        Just(i64::MAX as u64),
        Just(0u64),
        Just(1u64 << 54),
        0u64..4096,
        any::<u64>(),
    ];
    prop_oneof![
        4 => (any::<prop::sample::Index>(), 0u8..8).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        2 => (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::SetByte(i, b)),
        1 => (any::<prop::sample::Index>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => (any::<prop::sample::Index>(), 1usize..32).prop_map(|(i, n)| Mutation::Delete(i, n)),
        1 => any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        2 => (any::<prop::sample::Index>(), word).prop_map(|(i, w)| Mutation::SetWord(i, w)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    let len = bytes.len();
    match m {
        Mutation::FlipBit(i, b) => bytes[i.index(len)] ^= 1 << b,
        Mutation::SetByte(i, b) => bytes[i.index(len)] = *b,
        Mutation::Insert(i, b) => {
            let at = i.index(len + 1);
            bytes.splice(at..at, b.iter().copied());
        }
        Mutation::Delete(i, n) => {
            let at = i.index(len);
            bytes.drain(at..(at + n).min(len));
        }
        Mutation::Truncate(i) => bytes.truncate(i.index(len)),
        Mutation::SetWord(i, w) => {
            let at = i.index(len);
            let end = (at + 8).min(len);
            bytes[at..end].copy_from_slice(&w.to_le_bytes()[..end - at]);
        }
    }
}

/// Loading never panics; whatever loads prints and saves, and saving is then a fixed point.
fn check_mutant(bytes: &[u8], loaded: &AtomicUsize) -> Result<(), TestCaseError> {
    let Ok(exec) = Executable::load_from_bytes(bytes) else {
        return Ok(());
    };
    loaded.fetch_add(1, Ordering::Relaxed);
    let _ = exec.as_text();
    let _ = exec.as_python();
    let _ = exec.stats();
    let saved = exec
        .save_to_bytes()
        .map_err(|e| TestCaseError::fail(format!("a loaded executable does not save: {e}")))?;
    let again = Executable::load_from_bytes(&saved)
        .map_err(|e| TestCaseError::fail(format!("saved bytes do not load: {e}")))?;
    prop_assert_eq!(again.as_text(), exec.as_text());
    prop_assert!(again.save_to_bytes().ok().as_deref() == Some(&saved[..]));
    Ok(())
}

#[test]
fn mutated_executables_never_panic() {
    let cases = cases();
    assert!(!cases.is_empty());
    const CASES: usize = 4000;
    let loaded = AtomicUsize::new(0);
    let config = Config {
        cases: CASES as u32,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[0x5e; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let strategy = (0..cases.len(), prop::collection::vec(mutation(), 1..6));
    runner
        .run(&strategy, |(case, mutations)| {
            let mut bytes = cases[case].bin.clone();
            for m in &mutations {
                apply(&mut bytes, m);
            }
            check_mutant(&bytes, &loaded)
        })
        .unwrap();
    // Mutants that still load (a flipped bit in a name, a constant or a tensor) exercise the
    // printers and the saver; make sure there are some.
    let loaded = loaded.into_inner();
    eprintln!("{loaded} of {CASES} mutants loaded");
    assert!(
        loaded > CASES / 50,
        "only {loaded} of {CASES} mutants loaded"
    );
}

#[test]
fn every_truncation_of_one_file_is_an_error() {
    let case = cases()
        .iter()
        .min_by_key(|c| c.bin.len())
        .expect("a corpus case");
    for n in 0..case.bin.len() {
        match Executable::load_from_bytes(&case.bin[..n]) {
            Err(e) => assert!(
                e.message().contains("truncated") || e.message().contains("larger than"),
                "{n}: {e}"
            ),
            Ok(_) => panic!("{}: a {n}-byte prefix loaded", case.name),
        }
    }
}

/// A small executable with one constant of every kind, and its bytes.
fn sample() -> Vec<u8> {
    use relaxjit_vm::{DataType, ExecBuilder as B, Tensor};
    let mut ib = B::new();
    ib.emit_function("main", 1, &["x"]).unwrap();
    let mut args = vec![B::r(0)];
    for v in [
        Value::str("hello"),
        Value::Int(1 << 60),
        Value::Float(2.5),
        Value::DType(DataType::BOOL),
        Value::shape(vec![7, 8]),
        Value::Tensor(Tensor::from_slice(&[3], &[1i32, 2, 3]).unwrap()),
    ] {
        args.push(ib.convert_constant(v).unwrap());
    }
    ib.emit_call("test.vm.f", &args, B::r(1)).unwrap();
    ib.emit_ret(B::r(1)).unwrap();
    ib.end_function("main").unwrap();
    ib.get().unwrap().save_to_bytes().unwrap()
}

fn find(bytes: &[u8], needle: &[u8]) -> usize {
    bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("needle present")
}

/// Each corruption of `sample()` is refused with a message naming the problem and its place.
#[test]
fn corruptions_give_precise_errors() {
    type Edit = fn(&mut Vec<u8>);
    let cases: &[(&str, Edit, &str)] = &[
        (
            "magic",
            |b| b[0] ^= 1,
            "bad magic number 0xd225de2f4214151f at byte 0",
        ),
        (
            "version",
            |b| b[19] = b'5',
            "bytecode version \"0.15\" at byte 8",
        ),
        (
            "function count",
            |b| b[20..28].copy_from_slice(&(1u64 << 60).to_le_bytes()),
            "function table length 1152921504606846976 at byte 20",
        ),
        (
            "function kind",
            |b| b[28] = 9,
            "function 0 at byte 28 has unknown kind 9",
        ),
        (
            "function name",
            |b| b[41] = 0xff,
            "name of function 0 at byte 40 is not valid UTF-8 (bad byte at 41)",
        ),
        (
            "constant type",
            |b| {
                let at = find(b, b"hello") - 12;
                b[at] = 66;
            },
            "constant 0 at byte 170 has type index 66",
        ),
        (
            "string constant",
            |b| {
                let at = find(b, b"hello");
                b[at + 1] = 0xc3;
            },
            "constant 0 at byte 182 is not valid UTF-8 (bad byte at 183)",
        ),
        (
            "tensor magic",
            |b| {
                let at = find(b, &0xDD5E_40F0_96B4_A13Fu64.to_le_bytes());
                b[at] ^= 0xff;
            },
            "constant 5: bad tensor magic",
        ),
        (
            "tensor size",
            |b| {
                let at = find(b, &12i64.to_le_bytes());
                b[at] = 13;
            },
            "constant 5: tensor data size 13",
        ),
        (
            "trailing bytes",
            |b| b.push(0),
            "1 unexpected bytes after the code section",
        ),
        (
            "truncated",
            |b| b.truncate(24),
            "truncated input: function table length at byte 20 needs 8 bytes, but only 4 remain",
        ),
        (
            "truncated code",
            |b| b.truncate(b.len() - 3),
            "instruction data length 13 at byte 335 is larger than the 101 bytes that remain",
        ),
        (
            "register out of range",
            |b| {
                // The `ret %1` at the end: make it `ret %5`.
                let n = b.len();
                b[n - 8] = 5;
            },
            "function 0 `main`: instruction 1: result register 5 is outside the register file of size 2",
        ),
    ];
    let good = sample();
    assert!(Executable::load_from_bytes(&good).is_ok());
    let mut failures = Vec::new();
    for (name, edit, expected) in cases {
        let mut bytes = good.clone();
        edit(&mut bytes);
        match Executable::load_from_bytes(&bytes) {
            Ok(_) => failures.push(format!("{name}: loaded")),
            Err(e) if e.message().contains(expected) => {}
            Err(e) => failures.push(format!("{name}: {e}\n    expected: {expected}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
