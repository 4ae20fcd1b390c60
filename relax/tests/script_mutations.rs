//! Robustness of the reader: random mutations of corpus files (deleted, inserted, duplicated
//! and swapped pieces) must give either a module or an error, never a panic. A mutated file that
//! still parses must also print, and the printed text must parse back to an equal module.

use std::path::Path;

use relaxjit_relax as relax;

use relax::script::{ReadOptions, parse_module_with, print_module_with_metadata};
use relax::structural_eq::structural_diff;

const MUTATIONS: usize = 2000;

/// Fragments worth inserting: delimiters, keywords and dialect names.
const FRAGMENTS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "=",
    ".",
    "\n",
    "    ",
    "\"",
    "'",
    "#",
    "-",
    "*",
    "1",
    "0",
    "-1",
    "99999999999999999999999",
    "1.5e300",
    "x",
    "R.",
    "T.",
    "cls.",
    "R.Tensor",
    "R.Tuple",
    "R.add",
    "R.call_tir",
    "R.match_cast",
    "R.output",
    "return ",
    "if ",
    "else:",
    "with ",
    "def ",
    "@R.function",
    "lambda",
    "None",
    "True",
    "metadata",
    "n",
    "T.int64()",
    "\"n * \"",
    "dtype=",
    "ndim=-2",
    "out_ty=",
    "ty_args=",
    "R.shape([",
    "R.const(",
    "R.prim_value(",
];

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// A char boundary of `s` at or before `i`.
fn boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate(src: &str, rng: &mut Rng) -> String {
    let mut s = src.to_string();
    for _ in 0..1 + rng.below(3) {
        let at = boundary(&s, rng.below(s.len() + 1));
        match rng.below(6) {
            0 => {
                let end = boundary(&s, at + 1 + rng.below(12));
                s.replace_range(at..end, "");
            }
            1 | 2 => {
                let f = FRAGMENTS[rng.below(FRAGMENTS.len())];
                s.insert_str(at, f);
            }
            3 => {
                let lines: Vec<&str> = s.lines().collect();
                let i = rng.below(lines.len());
                let j = rng.below(lines.len());
                let mut out: Vec<&str> = lines.clone();
                if i < out.len() && j < out.len() {
                    out.swap(i, j);
                }
                s = out.join("\n");
            }
            4 => {
                let lines: Vec<&str> = s.lines().collect();
                let i = rng.below(lines.len());
                let mut out: Vec<&str> = lines.clone();
                if let Some(l) = lines.get(i) {
                    out.insert(i, l);
                }
                s = out.join("\n");
            }
            _ => {
                // Replace a digit run by another number.
                if let Some(pos) = s[at..].find(|c: char| c.is_ascii_digit()) {
                    let start = at + pos;
                    let end = s[start..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(s.len(), |e| start + e);
                    let n = ["0", "-1", "3", "65536", "4294967296"][rng.below(5)];
                    s.replace_range(start..end, n);
                }
            }
        }
    }
    s
}

#[test]
fn mutated_corpus_files_give_errors_not_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance");
    let mut sources = Vec::new();
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    cases.sort();
    for case in cases {
        for file in ["module.py", "legalized.py", "tvm_lowered.py"] {
            if let Ok(s) = std::fs::read_to_string(case.join(file)) {
                sources.push(s);
            }
        }
    }
    assert!(!sources.is_empty());
    // Metadata references resolve against a small table, so that mutations past them are
    // exercised too.
    let table: Vec<vm::Tensor> = (0..4)
        .map(|_| vm::Tensor::zeros(&[2, 3], vm::DataType::F32).expect("tensor"))
        .collect();
    let opts = ReadOptions::with_metadata(table);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut errors) = (0, 0);
    let mut failures = Vec::new();
    for k in 0..MUTATIONS {
        let src = &sources[rng.below(sources.len())];
        let mutated = mutate(src, &mut rng);
        match parse_module_with(&mutated, &opts) {
            Err(e) => {
                errors += 1;
                let text = e.to_string();
                if !text.starts_with("error: ") {
                    failures.push(format!("mutation {k}: unpositioned error {text}"));
                }
            }
            Ok(m) => {
                ok += 1;
                let (printed, table) = print_module_with_metadata(&m);
                match parse_module_with(&printed, &ReadOptions::with_metadata(table)) {
                    Ok(again) => {
                        if let Some(d) = structural_diff(&m, &again) {
                            failures.push(format!("mutation {k}: round trip differs: {d}\n{mutated}"));
                        }
                    }
                    Err(e) => failures.push(format!(
                        "mutation {k}: printed text does not parse: {e}\n--- mutated:\n{mutated}\n--- printed:\n{printed}"
                    )),
                }
            }
        }
    }
    println!("{MUTATIONS} mutations: {ok} still parse, {errors} errors");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        errors > MUTATIONS / 4,
        "too few mutations were errors: {errors}"
    );
}
