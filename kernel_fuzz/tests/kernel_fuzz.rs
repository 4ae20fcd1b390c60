//! The bounded differential fuzz run (a fixed range of seeds, deterministic), the regression
//! cases of `tests/cases/`, and checks of the fuzzer's own parts: the input generators cover
//! every special value, generated programs always terminate, shrinking keeps a failure.
//!
//! A case file is a TVMScript `@T.prim_func` followed by comment lines:
//! `# shapes: [[4], [2, 3]]` (one per parameter), `# input seed: 17`, `# expect: <ending>`
//! (`ok`, `out-of-bounds`, `division-by-zero`, `different-faults`), and, for a bug whose fix is
//! owned by other work, `# open: <who fixes it and what>`: such a case is parsed but not run
//! (it may crash or hang the process) unless `KERNEL_FUZZ_RUN_OPEN=1` is set, which runs
//! them all and reports which now agree; take the line off when the fix lands.

use std::path::Path;

use kernel_fuzz::diff::{self, Ending, Verdict};
use kernel_fuzz::{Case, inputs, shrink};
use proptest::prelude::*;
use tir::{DataType, PrimFunc};

/// Seeds of the bounded run: a few seconds in release.
const SEEDS: std::ops::Range<u64> = 0..1000;

#[test]
fn generated_programs_agree_with_the_interpreter() {
    let summary = kernel_fuzz::run_seeds(SEEDS, |_| {});
    println!("{summary}");
    let mut report = String::new();
    for (seed, m) in &summary.mismatches {
        let small = kernel_fuzz::shrink_mismatch(&kernel_fuzz::generate(*seed), &m.class, 200);
        report += &format!(
            "\nseed {seed}: {}\n{}\n{}",
            m.class,
            m.detail,
            kernel_fuzz::describe(&small)
        );
    }
    assert!(summary.mismatches.is_empty(), "{report}");
    // The generator keeps its balance: most programs run, a fair share hits each edge.
    let share = |k: &str| summary.agreed.get(k).copied().unwrap_or(0) * 100 / summary.executed;
    assert!(share("ok") >= 20, "{summary}");
    assert!(share("out-of-bounds") >= 5, "{summary}");
    assert!(share("division-by-zero") >= 5, "{summary}");
}

#[test]
fn generated_programs_terminate() {
    for seed in SEEDS {
        let case = kernel_fuzz::generate(seed);
        assert!(
            shrink::terminates(&case.func.body),
            "seed {seed}: a long loop may run for ever\n{}",
            kernel_fuzz::describe(&case)
        );
    }
}

/// Tree nodes of the expressions of `func`'s body (a shared subexpression counts each time).
fn tree_nodes(func: &PrimFunc) -> usize {
    let mut n = 0;
    func.body.visit(&mut |s| {
        for e in s.exprs() {
            e.visit(&mut |_| n += 1);
        }
    });
    n
}

/// The structural bound every generated program's translation keeps: Cranelift instructions
/// linear in the program's size, `FIXED` for the prologue (argument checks) plus `PER_NODE` per
/// expression node (the largest seen over seeds 0..5000 is about 600 + 5 per node). What it
/// guards against is a transform that copies a subexpression per use, which multiplies the
/// size per nesting level (seed 571519 gave Cranelift a million instructions).
fn within_linear_size(func: &PrimFunc, insts: usize) -> bool {
    const FIXED: usize = 2_000;
    const PER_NODE: usize = 40;
    insts <= FIXED + PER_NODE * tree_nodes(func)
}

#[test]
fn generated_programs_translate_to_a_linear_size() {
    for seed in SEEDS {
        let case = kernel_fuzz::generate(seed);
        for (name, options) in diff::CONFIGS {
            let Ok(insts) = jit::kernel::clif_instructions(&case.func, options) else {
                continue;
            };
            assert!(
                within_linear_size(&case.func, insts),
                "seed {seed} ({name}): {insts} Cranelift instructions for {} nodes\n{}",
                tree_nodes(&case.func),
                kernel_fuzz::describe(&case)
            );
        }
    }
}

/// Seed 571519 nests gathers six deep in a 2-D buffer's index: flattening once read each
/// gathered index five times to check it against its dimension, a million Cranelift
/// instructions (24 s in the register allocator). It agrees with the interpreter and its
/// translation is linear in its size.
#[test]
fn nested_gathers_of_seed_571519_agree_and_translate_to_a_linear_size() {
    let case = kernel_fuzz::generate(571519);
    assert_eq!(
        kernel_fuzz::check(&case),
        Verdict::Agree(Ending::Ok),
        "{}",
        kernel_fuzz::describe(&case)
    );
    for (name, options) in diff::CONFIGS {
        let insts = jit::kernel::clif_instructions(&case.func, options).unwrap();
        assert!(
            within_linear_size(&case.func, insts),
            "{name}: {insts} Cranelift instructions for {} nodes",
            tree_nodes(&case.func)
        );
    }
}

/// Seed 114316 stores through `B[1 - i0, B[k, 0]]` in a loop of 2^62 iterations: the
/// interpreter stops at a dimension index, while the kernel's flat offsets stay inside `B` for
/// ever (the loop keeps writing the value it indexes with). The harness must not run it.
#[test]
fn a_dimension_index_in_a_long_loop_is_not_run_by_the_jit() {
    let case = kernel_fuzz::generate(114316);
    assert!(
        matches!(
            kernel_fuzz::check(&case),
            Verdict::Skipped(kernel_fuzz::diff::Skip::DimensionIndex)
        ),
        "{}",
        kernel_fuzz::describe(&case)
    );
}

/// The variants of a kernel written for TVM (`emit`: casts spelled out, indices, float
/// operands and narrowing integer casts hidden from TVM's simplifier) compute what the kernel computes, on every generated
/// program that runs to the end.
#[test]
fn variants_written_for_tvm_agree_with_the_kernel_on_generated_programs() {
    let (mut spelled, mut scoped, mut hidden) = (0, 0, 0);
    for seed in SEEDS {
        let case = kernel_fuzz::generate(seed);
        let inputs = diff::input_data(&case);
        let (ending, want) = diff::run_interp(&case, &inputs);
        if ending != Ending::Ok {
            continue;
        }
        let readable = kernel_fuzz::emit::allocations_in_own_blocks(&case.func);
        let text = tir::print_prim_func(&readable);
        // The rewrite moved an allocation followed by other statements into its own block.
        scoped += usize::from(text != tir::print_prim_func(&case.func));
        assert!(
            !text.contains("with T.decl_buffer"),
            "seed {seed}: a scoped allocation TVM 0.27 does not read\n{text}"
        );
        let casts = kernel_fuzz::emit::saturating_casts(&readable);
        spelled += usize::from(casts.is_some());
        let base = casts.unwrap_or_else(|| readable.clone());
        let indices = kernel_fuzz::emit::opaque_indices(&base);
        let floats = kernel_fuzz::emit::opaque_float_operands(&indices);
        let narrowing = kernel_fuzz::emit::opaque_narrowing_casts(&floats);
        hidden += usize::from(tir::print_prim_func(&narrowing) != tir::print_prim_func(&floats));
        for (name, func) in [
            ("allocations", readable),
            ("casts", base),
            ("indices", indices),
            ("floats", floats),
            ("narrowing casts", narrowing),
        ] {
            let variant = Case {
                func,
                ..case.clone()
            };
            let (ending, got) = diff::run_interp(&variant, &inputs);
            assert!(
                ending == Ending::Ok && got == want,
                "seed {seed}, {name}: {ending:?}\n{}",
                kernel_fuzz::describe(&variant)
            );
        }
    }
    assert!(
        spelled >= 50,
        "only {spelled} programs had a float -> integer cast"
    );
    assert!(
        scoped >= 5,
        "only {scoped} programs had an allocation followed by other statements"
    );
    assert!(
        hidden >= 20,
        "only {hidden} programs had a narrowing integer cast"
    );
}

/// The spelled-out casts saturate NaN, ±Inf and out-of-range values as relaxjit's casts do, in
/// the interpreter and in the JIT, from `float32` and `float64` to signed and unsigned types.
#[test]
fn spelled_out_casts_saturate() {
    let src = r#"
@T.prim_func
def casts(A: T.Buffer((T.int64(12),), "float32"), B: T.Buffer((T.int64(12),), "int32"), C: T.Buffer((T.int64(12),), "uint8"), D: T.Buffer((T.int64(12),), "int64"), E: T.Buffer((T.int64(12),), "int8")):
    T.func_attr({"tirx.noalias": True})
    for i in range(T.int64(12)):
        B[i] = T.Cast("int32", A[i])
        C[i] = T.Cast("uint8", A[i])
        D[i] = T.Cast("int64", A[i])
        E[i] = T.Cast("int8", T.Cast("float64", A[i]) * T.float64(2.0))
"#;
    let func = tir::parse_module_prim_funcs(src).unwrap().remove(0);
    let spelled = kernel_fuzz::emit::saturating_casts(&func).unwrap();
    let a: [f32; 12] = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        3e9,
        -3e9,
        2.5,
        -2.5,
        255.9,
        -0.9,
        2147483520.0,
        -2147483648.0,
        1e19,
    ];
    let mut inputs = vec![a.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()];
    for dt in [
        DataType::INT32,
        DataType::UINT8,
        DataType::INT64,
        DataType::INT8,
    ] {
        inputs.push(vec![0; 12 * dt.bytes()]);
    }
    let case = |func: &PrimFunc| Case {
        func: func.clone(),
        shapes: vec![vec![12]; 5],
        input_seed: 0,
    };
    let (max32, min32) = (i64::from(i32::MAX), i64::from(i32::MIN));
    let want: [Vec<i64>; 4] = [
        vec![
            0, max32, min32, max32, min32, 2, -2, 255, 0, 2147483520, min32, max32,
        ],
        vec![0, 255, 0, 255, 0, 2, 0, 255, 0, 255, 0, 255],
        vec![
            0,
            i64::MAX,
            i64::MIN,
            3_000_000_000,
            -3_000_000_000,
            2,
            -2,
            255,
            0,
            2147483520,
            min32,
            i64::MAX,
        ],
        vec![0, 127, -128, 127, -128, 5, -5, 127, -1, 127, -128, 127],
    ];
    let ints = |bytes: &[u8], dt: DataType| -> Vec<i64> {
        bytes
            .chunks(dt.bytes())
            .map(|c| {
                let mut raw = [0u8; 8];
                raw[..c.len()].copy_from_slice(c);
                let v = i64::from_le_bytes(raw);
                if dt.is_uint() {
                    v
                } else {
                    let bits = 64 - 8 * c.len() as u32;
                    (v << bits) >> bits
                }
            })
            .collect()
    };
    let dts = [
        DataType::INT32,
        DataType::UINT8,
        DataType::INT64,
        DataType::INT8,
    ];
    for f in [&func, &spelled] {
        let (ending, out) = diff::run_interp(&case(f), &inputs);
        assert_eq!(ending, Ending::Ok);
        for (k, dt) in dts.iter().enumerate() {
            assert_eq!(ints(&out[k + 1], *dt), want[k], "interpreter, {dt}");
        }
        for (name, options) in diff::CONFIGS {
            let (ending, out) = diff::run_jit(&case(f), options, &inputs).unwrap();
            assert_eq!(ending, Ending::Ok);
            for (k, dt) in dts.iter().enumerate() {
                assert_eq!(ints(&out[k + 1], *dt), want[k], "JIT ({name}), {dt}");
            }
        }
    }
}

#[test]
fn shrinking_keeps_the_failure_and_reduces_the_program() {
    // A stand-in failure: "the program stores into a 2-D buffer at a floor-modulo index".
    let fails = |c: &Case| {
        let mut found = false;
        c.func.body.visit(&mut |s| {
            if let tir::StmtKind::BufferStore { indices, .. } = s.kind() {
                found |= indices.len() == 2
                    && indices.iter().any(|i| {
                        matches!(
                            i.kind(),
                            tir::ExprKind::Binary {
                                op: tir::BinaryOp::FloorMod,
                                ..
                            }
                        )
                    });
            }
        });
        found
    };
    let size = |c: &Case| kernel_fuzz::describe(c).len();
    let mut shrunk = 0;
    for seed in 0..60 {
        let case = kernel_fuzz::generate(seed);
        if !fails(&case) {
            continue;
        }
        let small = shrink::shrink(&case, 2000, fails);
        assert!(fails(&small), "seed {seed}: shrinking lost the failure");
        assert!(size(&small) <= size(&case));
        let stores = kernel_fuzz::describe(&small).matches("] = ").count();
        assert_eq!(stores, 1, "seed {seed}:\n{}", kernel_fuzz::describe(&small));
        shrunk += 1;
    }
    assert!(
        shrunk >= 5,
        "only {shrunk} programs had the stand-in failure"
    );
}

#[test]
fn input_generators_cover_the_special_values() {
    let mut rng = kernel_fuzz::rng::Rng::new(7);
    let floats = inputs::fill(DataType::FLOAT32, 4000, &mut rng);
    let f: Vec<f32> = floats
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert!(f.iter().any(|x| x.is_nan()));
    assert!(f.contains(&f32::INFINITY));
    assert!(f.contains(&f32::NEG_INFINITY));
    assert!(f.iter().any(|x| *x == 0.0 && x.is_sign_negative()));
    assert!(f.iter().any(|x| x.is_subnormal()));
    assert!(f.contains(&f32::MAX));
    for (dt, min, max) in [
        (DataType::INT32, i64::from(i32::MIN), i64::from(i32::MAX)),
        (DataType::INT64, i64::MIN, i64::MAX),
        (DataType::INT8, -128, 127),
    ] {
        let bytes = inputs::fill(dt, 4000, &mut rng);
        let v: Vec<i64> = bytes
            .chunks(dt.bytes())
            .map(|c| {
                let mut raw = [0u8; 8];
                raw[..c.len()].copy_from_slice(c);
                let bits = 64 - 8 * c.len() as u32;
                (i64::from_le_bytes(raw) << bits) >> bits
            })
            .collect();
        for want in [min, max, 0, -1] {
            assert!(v.contains(&want), "{dt}: no {want}");
        }
    }
    for dt in [DataType::FLOAT64, DataType::FLOAT16] {
        let mut r = kernel_fuzz::rng::Rng::new(3);
        let has_nan = (0..2000).any(|_| inputs::is_nan(inputs::element(dt, &mut r), dt));
        assert!(has_nan, "{dt}: no NaN");
    }
}

/// `C[i] = max(A[i] * B[i], A[i] - B[i])` on float32 and `D[i] = A[i] // B[i]`-style integer
/// division on int32, written by hand.
fn elementwise() -> (PrimFunc, PrimFunc) {
    let src = r#"
@T.prim_func
def fmix(A: T.Buffer((T.int64(8),), "float32"), B: T.Buffer((T.int64(8),), "float32"), C: T.Buffer((T.int64(8),), "float32")):
    T.func_attr({"tirx.noalias": True})
    for i in range(T.int64(8)):
        C[i] = T.max(A[i] * B[i], A[i] - B[i]) + T.min(T.fabs(A[i]), T.sqrt(B[i]))

@T.prim_func
def imix(A: T.Buffer((T.int64(8),), "int32"), B: T.Buffer((T.int64(8),), "int32"), C: T.Buffer((T.int64(8),), "int32")):
    T.func_attr({"tirx.noalias": True})
    for i in range(T.int64(8)):
        C[i] = A[i] * B[i] + T.max(A[i], B[i]) - (A[i] + B[i])
"#;
    let mut funcs = tir::parse_module_prim_funcs(src).unwrap().into_iter();
    (funcs.next().unwrap(), funcs.next().unwrap())
}

fn to_bytes(v: &[u64], dt: DataType) -> Vec<u8> {
    v.iter()
        .flat_map(|x| x.to_le_bytes()[..dt.bytes()].to_vec())
        .collect()
}

/// Runs `func` on three 8-element buffers both ways; returns the interpreter's verdict.
fn elementwise_agrees(func: &PrimFunc, a: &[u64], b: &[u64], dt: DataType) -> Verdict {
    let case = Case {
        func: func.clone(),
        shapes: vec![vec![8]; 3],
        input_seed: 0,
    };
    let data = vec![to_bytes(a, dt), to_bytes(b, dt), vec![0u8; 8 * dt.bytes()]];
    let (interp, interp_out) = diff::run_interp(&case, &data);
    for (_, options) in diff::CONFIGS {
        let (jit, jit_out) = diff::run_jit(&case, options, &data).unwrap();
        if jit != interp {
            return Verdict::Mismatch(diff::Mismatch {
                class: "ending".into(),
                detail: format!("{interp:?} vs {jit:?}"),
            });
        }
        for (x, y) in interp_out[2]
            .chunks(dt.bytes())
            .zip(jit_out[2].chunks(dt.bytes()))
        {
            let bits = |c: &[u8]| {
                let mut raw = [0u8; 8];
                raw[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(raw)
            };
            if !inputs::same_element(bits(x), bits(y), dt) {
                return Verdict::Mismatch(diff::Mismatch {
                    class: "values".into(),
                    detail: format!("{:#x} vs {:#x}", bits(x), bits(y)),
                });
            }
        }
    }
    Verdict::Agree(interp)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The proptest form of the input generators drives hand-written kernels.
    #[test]
    fn special_inputs_give_the_same_bits(
        a in prop::collection::vec(inputs::elements(DataType::FLOAT32), 8),
        b in prop::collection::vec(inputs::elements(DataType::FLOAT32), 8),
        x in prop::collection::vec(inputs::elements(DataType::INT32), 8),
        y in prop::collection::vec(inputs::elements(DataType::INT32), 8),
    ) {
        let (fmix, imix) = elementwise();
        prop_assert_eq!(elementwise_agrees(&fmix, &a, &b, DataType::FLOAT32), Verdict::Agree(Ending::Ok));
        prop_assert_eq!(elementwise_agrees(&imix, &x, &y, DataType::INT32), Verdict::Agree(Ending::Ok));
    }
}

// ----- regression cases --------------------------------------------------------------------

struct CaseFile {
    case: Case,
    expect: String,
    open: Option<String>,
}

fn read_case(path: &Path) -> CaseFile {
    let text = std::fs::read_to_string(path).unwrap();
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("# {key}: ")))
            .map(str::trim)
            .map(String::from)
    };
    let func = match tir::parse_module_prim_funcs(&text) {
        Ok(mut f) if f.len() == 1 => f.remove(0),
        Ok(f) => panic!("{}: {} functions", path.display(), f.len()),
        Err(e) => panic!("{}: {}", path.display(), e.render(&text)),
    };
    let shapes = field("shapes").unwrap_or_else(|| panic!("{}: no `# shapes:`", path.display()));
    let shapes: Vec<Vec<i64>> = shapes
        .trim_matches(|c| c == '[' || c == ']')
        .split("], [")
        .map(|dims| {
            dims.split(',')
                .filter(|d| !d.trim().is_empty())
                .map(|d| d.trim().parse().unwrap())
                .collect()
        })
        .collect();
    CaseFile {
        case: Case {
            func,
            shapes,
            input_seed: field("input seed").map_or(0, |s| s.parse().unwrap()),
        },
        expect: field("expect").unwrap_or_else(|| panic!("{}: no `# expect:`", path.display())),
        open: field("open"),
    }
}

#[test]
fn regression_cases_agree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    let run_open = std::env::var_os("KERNEL_FUZZ_RUN_OPEN").is_some();
    let mut failures = Vec::new();
    for path in &paths {
        let c = read_case(path);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if let Some(open) = &c.open {
            if !run_open {
                println!("{name}: not run, open: {open}");
                continue;
            }
            println!("{name}: running");
            let verdict = kernel_fuzz::check(&c.case);
            let fixed = matches!(&verdict, Verdict::Agree(e) if e.class() == c.expect);
            let state = if fixed { "FIXED" } else { "still open" };
            println!("{name}: {state}: {verdict:?}");
            continue;
        }
        match kernel_fuzz::check(&c.case) {
            Verdict::Agree(e) if e.class() == c.expect => {}
            v => failures.push(format!(
                "{name}: expected agreement on `{}`, got {v:?}",
                c.expect
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
