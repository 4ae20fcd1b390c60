//! End-to-end tests of RaiseCallTIR (`relax::transform::raise_call_tir`): modules in legalized
//! form — matmuls and convolutions as `R.call_tir` of TIR PrimFuncs — compiled with
//! `Config::library`, where their PrimFuncs must become library kernels (`relaxjit.*`), and
//! without, where they run as the TIR loop nests (the reference), in both exec modes, on the same
//! random inputs. The modules are the TVM-printed ones of the pass's golden tests
//! (`relax/tests/passes/raise_call_tir_*.py`) and the legalization (LegalizeOps alone, printed
//! and read back) of a table of matmuls and convolutions with bias and activation: every
//! stride, padding, dilation and group form, batch broadcast, a transposed weight, symbolic
//! extents.

use std::path::PathBuf;

use relaxjit::{Config, Engine, ExecMode, Tensor, Value};

/// A module to run: its text and the value of each symbolic extent of its parameters.
struct Case {
    name: String,
    src: String,
}

/// Extent given to every symbolic dimension of a parameter.
const SYMBOLIC_EXTENT: i64 = 3;

fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0) as f32
        })
        .collect()
}

/// Random arguments for `main` of `src`, from its parameters' struct info.
fn arguments(src: &str) -> Vec<Value> {
    let m = relaxjit::relax::parse_module(src).expect("the case parses");
    let main = m.relax_function("main").expect("a main function");
    main.params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let si = p.struct_info();
            let dims: Vec<i64> = si
                .tensor_shape()
                .expect("tensor parameters of known rank")
                .iter()
                .map(|d| d.as_int().unwrap_or(SYMBOLIC_EXTENT))
                .collect();
            let n = dims.iter().product::<i64>() as usize;
            let v = random(n, i as u64 + 1);
            let t = match si.tensor_dtype().map(|d| d.to_string()).as_deref() {
                Some("float64") => {
                    let v: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
                    Tensor::from_slice(&dims, &v)
                }
                Some("float16") => {
                    let v: Vec<half::f16> = v.iter().map(|&x| half::f16::from_f32(x)).collect();
                    Tensor::from_slice(&dims, &v)
                }
                Some("int32") => {
                    let v: Vec<i32> = v.iter().map(|&x| (x * 100.0) as i32).collect();
                    Tensor::from_slice(&dims, &v)
                }
                _ => Tensor::from_slice(&dims, &v),
            };
            Value::Tensor(t.expect("a tensor"))
        })
        .collect()
}

fn flatten(v: &Value, out: &mut Vec<f64>) {
    match v {
        Value::Tensor(t) => out.extend((0..t.numel()).map(|i| t.get_f64(i).unwrap())),
        Value::Tuple(items) => items.iter().for_each(|i| flatten(i, out)),
        other => panic!("unexpected result {other:?}"),
    }
}

/// The golden-test inputs of the pass, as they are (the `# passes:` line is a comment).
fn printed_cases() -> Vec<Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("relax/tests/passes");
    ["raise_call_tir_matmul.py", "raise_call_tir_conv2d.py"]
        .iter()
        .map(|f| Case {
            name: f.to_string(),
            src: std::fs::read_to_string(dir.join(f)).expect("the golden input"),
        })
        .collect()
}

/// `main(params) -> out` with `body` (lines binding `y` last) in a dataflow block.
fn module(params: &[(&str, String)], body: &[String], out: &str) -> String {
    let params: Vec<String> = params
        .iter()
        .map(|(n, s)| format!("{n}: R.Tensor({s}, dtype=\"float32\")"))
        .collect();
    let mut src =
        String::from("n = TypeVar(\"n\")\n@I.ir_module\nclass Module:\n    @R.function\n");
    src += &format!(
        "    def main({}) -> R.Tensor({out}, dtype=\"float32\"):\n        with R.dataflow():\n",
        params.join(", ")
    );
    for line in body {
        src += &format!("            {line}\n");
    }
    src + "            R.output(y)\n        return y\n"
}

/// A shape's text; a negative extent is the symbolic `n`.
fn shape(d: &[i64]) -> String {
    let items: Vec<String> = d
        .iter()
        .map(|&v| if v < 0 { "n".into() } else { v.to_string() })
        .collect();
    match &items[..] {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

/// Convolutions: (x, out channels, kernel, stride, padding, dilation, groups), each with a bias
/// and a relu after it; a negative extent is the symbolic `n`.
#[allow(clippy::type_complexity)]
const CONVS: &[([i64; 4], i64, [i64; 2], [i64; 2], [i64; 4], [i64; 2], i64)] = &[
    ([1, 3, 8, 8], 4, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 1),
    ([2, 8, 9, 7], 16, [3, 3], [2, 2], [1, 1, 1, 1], [1, 1], 1),
    ([1, 4, 10, 10], 6, [3, 2], [1, 2], [0, 2, 1, 0], [2, 1], 2),
    ([1, 6, 12, 12], 6, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 6),
    ([1, 4, 9, 9], 8, [5, 5], [2, 1], [2, 2, 2, 2], [1, 2], 4),
    ([2, 32, 7, 7], 64, [1, 1], [1, 1], [0, 0, 0, 0], [1, 1], 1),
    ([1, 16, 14, 14], 32, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 1),
    ([-1, 3, 8, 8], 4, [3, 3], [1, 1], [1, 1, 1, 1], [1, 1], 1),
];

/// Matmuls: (a, b, right operand written transposed), each with a bias after it; a negative
/// extent is the symbolic `n`.
const MATMULS: &[(&[i64], &[i64], bool)] = &[
    (&[5, 7], &[7, 3], false),
    (&[5, 7], &[7, 3], true),
    (&[2, 5, 7], &[2, 7, 3], false),
    (&[2, 5, 7], &[7, 3], false),
    (&[1, 5, 7], &[3, 7, 4], false),
    (&[-1, 7], &[7, 9], true),
    (&[33, 64], &[64, 40], false),
];

/// The table above as high-level modules, legalized (LegalizeOps only, so that every operator
/// is one PrimFunc) and printed.
fn legalized_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for &(x, o, k, s, p, d, g) in CONVS {
        let w = [o, x[1] / g, k[0], k[1]];
        let ext = |i: usize| (x[i + 2] + p[i] + p[i + 2] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
        let out = [x[0], o, ext(0), ext(1)];
        let body = vec![
            format!(
                "c = R.nn.conv2d(x, w, strides={s:?}, padding={p:?}, dilation={d:?}, groups={g}, data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", out_dtype=\"void\")"
            ),
            "cb = R.add(c, b)".to_string(),
            "y = R.nn.relu(cb)".to_string(),
        ];
        let params = [
            ("x", shape(&x)),
            ("w", shape(&w)),
            ("b", shape(&[1, o, 1, 1])),
        ];
        cases.push((
            format!("conv2d x={x:?} w={w:?} s={s:?} p={p:?} d={d:?} g={g}"),
            module(&params, &body, &shape(&out)),
        ));
    }
    for &(a, b, tb) in MATMULS {
        let text = shape;
        let (ab, bb) = (&a[..a.len() - 2], &b[..b.len() - 2]);
        // Right-aligned broadcast of the batch extents.
        let nb = ab.len().max(bb.len());
        let dim = |s: &[i64], i: usize| (i + s.len()).checked_sub(nb).map_or(1, |j| s[j]);
        let batch: Vec<i64> = (0..nb)
            .map(|i| match (dim(ab, i), dim(bb, i)) {
                (1, y) => y,
                (x, _) => x,
            })
            .collect();
        let mut out = batch;
        out.extend([a[a.len() - 2], b[b.len() - 1]]);
        let mut params = vec![("a", text(a))];
        let mut body = Vec::new();
        if tb {
            params.push(("bt", text(&[b[1], b[0]])));
            body.push("b = R.permute_dims(bt, axes=None)".to_string());
        } else {
            params.push(("b", text(b)));
        }
        let n = out.len();
        params.push(("c", text(&out[n - 1..])));
        body.push("m = R.matmul(a, b, out_dtype=\"void\")".to_string());
        body.push("y = R.add(m, c)".to_string());
        cases.push((
            format!(
                "matmul {a:?} @ {b:?}{}",
                if tb { " (transposed)" } else { "" }
            ),
            module(&params, &body, &text(&out)),
        ));
    }
    cases
        .into_iter()
        .map(|(name, src)| {
            let m = relaxjit::relax::parse_module(&src)
                .unwrap_or_else(|e| panic!("{name}: {e}\n{src}"));
            let legalized = relaxjit::relax::legalize::legalize_ops(&m)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            Case {
                name,
                src: relaxjit::relax::print_module(&legalized),
            }
        })
        .collect()
}

/// Compiles and runs every case with and without the library in `mode`; returns what went
/// wrong.
fn compare(cases: &[Case], mode: ExecMode) -> Vec<String> {
    let engine = |library| {
        Engine::new(Config {
            exec_mode: mode,
            library,
            ..Config::default()
        })
        .unwrap()
    };
    let (lib, tir) = (engine(true), engine(false));
    let mut failures = Vec::new();
    for case in cases {
        let args = arguments(&case.src);
        let run = |engine: &Engine, library: bool| -> Result<Vec<f64>, String> {
            let m = engine.compile_str(&case.src).map_err(|e| e.to_string())?;
            let listing = m.executable().as_text();
            if listing.contains("relaxjit.") != library {
                return Err(format!("library kernels called: {}\n{listing}", !library));
            }
            let out = m.run("main", &args).map_err(|e| e.to_string())?;
            let mut v = Vec::new();
            flatten(&out, &mut v);
            Ok(v)
        };
        match (run(&lib, true), run(&tir, false)) {
            (Ok(got), Ok(want)) => {
                let bad = got.len() != want.len()
                    || got
                        .iter()
                        .zip(&want)
                        .any(|(g, w)| (g - w).abs() > 1e-4 * (1.0 + w.abs()));
                if bad {
                    failures.push(format!("{mode:?} {}: results differ", case.name));
                }
            }
            (g, w) => failures.push(format!(
                "{mode:?} {}: library {:?}, TIR {:?}",
                case.name,
                g.err(),
                w.err()
            )),
        }
    }
    failures
}

#[test]
fn raised_tvm_printed_prim_funcs_match_the_tir_path() {
    let cases = printed_cases();
    let mut failures = compare(&cases, ExecMode::Bytecode);
    failures.extend(compare(&cases, ExecMode::Compiled));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn raised_legalized_operators_match_the_tir_path() {
    let cases = legalized_cases();
    let mut failures = compare(&cases, ExecMode::Bytecode);
    failures.extend(compare(&cases, ExecMode::Compiled));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The near misses stay TIR: compiled with the library, the module calls no library kernel,
/// and its results are the TIR path's exactly.
#[test]
fn near_misses_stay_tir() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("relax/tests/passes");
    let src = std::fs::read_to_string(dir.join("raise_call_tir_near_miss.py")).unwrap();
    let m = relaxjit::relax::parse_module(&src).unwrap();
    let config = relaxjit::relax::pipeline::OptConfig::default();
    let optimized = relaxjit::relax::pipeline::optimize(&m, &config).unwrap();
    let text = relaxjit::relax::print_module(&optimized);
    assert!(!text.contains("relaxjit."), "{text}");
}
