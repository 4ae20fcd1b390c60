//! Robustness: randomly mutated corpus files (deleted, inserted, swapped and replaced
//! characters; deterministic seed) must give either prim_funcs that round-trip, or a positioned
//! error — never a panic. Runs a fixed number of mutations so that it stays fast.

use std::path::Path;

use relaxjit_tir as tir;

/// xorshift64*: a tiny deterministic generator, enough to pick mutation sites.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Fragments that are likely to produce near-valid TVMScript.
const INSERTS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    ":",
    ",",
    ".",
    "=",
    " ",
    "\n",
    "    ",
    "\"",
    "#",
    "0",
    "-",
    "+",
    "*",
    "//",
    "%",
    "T.",
    "T.int64(",
    "T.float32(",
    "x",
    "i",
    "v_ax0",
    "()",
    "[()]",
    "\\",
    "if ",
    "for ",
    "with ",
    "def ",
    "@",
    "not ",
    " and ",
    " or ",
    "<",
    "==",
    "1e-05",
    "-0.0",
    "\"inf\"",
    "T.sblock(\"b\")",
    "T.axis.remap(\"SR\", ",
    "T.reads(",
    "T.init():",
    "\t",
    "é",
    "None",
    "True",
    "T.Buffer((",
    "T.grid(",
    "range(",
    "T.let[T.float32]",
    "T.Cast(\"int64\", ",
];

fn mutate(rng: &mut Rng, src: &str) -> String {
    let mut chars: Vec<char> = src.chars().collect();
    let edits = 1 + rng.below(3);
    for _ in 0..edits {
        let len = chars.len();
        let at = rng.below(len + 1);
        match rng.below(5) {
            0 if len > 0 => {
                let n = 1 + rng.below(4);
                let end = (at + n).min(len);
                chars.drain(at.min(len)..end);
            }
            1 => {
                let frag = INSERTS[rng.below(INSERTS.len())];
                for (k, c) in frag.chars().enumerate() {
                    chars.insert(at + k, c);
                }
            }
            2 if len > 1 => {
                let i = at.min(len - 2);
                chars.swap(i, i + 1);
            }
            3 if len > 0 => {
                let i = at.min(len - 1);
                let pool: Vec<char> = "()[]:,.=+-*/%<> \n\"0123456789abcTRx_".chars().collect();
                chars[i] = pool[rng.below(pool.len())];
            }
            _ => {
                // Duplicate or drop a whole line.
                let text: String = chars.iter().collect();
                let mut lines: Vec<&str> = text.split('\n').collect();
                let l = rng.below(lines.len());
                if rng.below(2) == 0 {
                    let line = lines[l];
                    lines.insert(l, line);
                } else if lines.len() > 1 {
                    lines.remove(l);
                }
                chars = lines.join("\n").chars().collect();
            }
        }
    }
    chars.into_iter().collect()
}

#[test]
fn mutated_corpus_never_panics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance");
    let mut sources = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.sort();
    for d in dirs {
        for name in ["legalized.py", "module.py", "tvm_lowered.py"] {
            if let Ok(s) = std::fs::read_to_string(d.join(name))
                && s.contains("@T.prim_func")
            {
                sources.push(s);
            }
        }
    }
    assert!(!sources.is_empty(), "conformance corpus not found");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut errors) = (0, 0);
    let mut failures = Vec::new();
    for i in 0..2000 {
        let src = &sources[rng.below(sources.len())];
        let mutated = mutate(&mut rng, src);
        match tir::parse_module_prim_funcs(&mutated) {
            Ok(funcs) => {
                ok += 1;
                for f in &funcs {
                    let text = tir::script::print_module_prim_funcs(std::slice::from_ref(f));
                    match tir::parse_module_prim_funcs(&text) {
                        Ok(back) if back.len() == 1 => {
                            if let Some(d) = tir::structural_diff(f, &back[0]) {
                                failures.push(format!("mutation {i}: {}: {d}", f.name));
                            }
                        }
                        Ok(_) => failures.push(format!("mutation {i}: {} lost", f.name)),
                        Err(e) => failures.push(format!(
                            "mutation {i}: printed {} does not parse:\n{}",
                            f.name,
                            e.render(&text)
                        )),
                    }
                }
            }
            Err(e) => {
                errors += 1;
                let lines = mutated.split('\n').count() as u32;
                if e.line == 0 || e.line > lines.max(1) || e.column == 0 || e.message.is_empty() {
                    failures.push(format!("mutation {i}: bad error position {e}"));
                }
                assert!(e.render(&mutated).contains('^'));
            }
        }
    }
    println!("mutations: {ok} parsed, {errors} rejected");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        errors > 500,
        "mutations should mostly break the text ({errors} errors)"
    );
}
