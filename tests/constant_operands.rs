//! Differential test for operators with several constant operands (the class of the conv2d +
//! batch_norm wrong result): random chains of conv2d, batch_norm, layer_norm, per-channel
//! broadcast arithmetic and relu whose parameters are `metadata` constants, compiled by the whole
//! pipeline (fusion on and off) and compared with a plain Rust evaluation of the same chain.
//!
//! Legalization names every argument that is not a variable `rxplaceholder`, so the PrimFuncs
//! of these modules hold several distinct buffers with one name. Code that compares expressions
//! or keys values by their printed text instead of by identity conflates them; printing and
//! re-parsing the module hides such bugs (the printer makes names unique), which is why this
//! test builds its modules in memory and never round-trips them. The module `bn_after_conv`
//! (`tests/regressions/`) is the reduced real-model case, with TVM's output.

use relaxjit::bytecode_mode::{Input, run_corpus};
use relaxjit::{Config, Engine, Tensor};

/// A small deterministic generator (xorshift64*), so failures reproduce from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
    fn vec(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

/// A dense NCHW (or any rank) f32 array for the reference evaluation.
#[derive(Clone)]
struct Array {
    shape: Vec<usize>,
    data: Vec<f32>,
}

/// One step of a chain; constants are indices into the module's metadata table.
enum Step {
    Conv {
        weight: usize,
        stride: usize,
        pad: usize,
    },
    BatchNorm([usize; 4]),
    LayerNorm([usize; 2]),
    /// `op(x, c)` with `c` of shape `(C, 1, 1)`.
    Channel {
        op: &'static str,
        c: usize,
    },
    Relu,
}

struct Program {
    input: Array,
    consts: Vec<Array>,
    steps: Vec<Step>,
}

fn shape_text(s: &[usize]) -> String {
    let dims: Vec<String> = s.iter().map(|d| d.to_string()).collect();
    if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    }
}

fn ty(s: &[usize]) -> String {
    format!("R.Tensor({}, dtype=\"float32\")", shape_text(s))
}

fn conv_shape(x: &[usize], w: &[usize], stride: usize, pad: usize) -> Vec<usize> {
    let out = |n: usize, k: usize| (n + 2 * pad - k) / stride + 1;
    vec![x[0], w[0], out(x[2], w[2]), out(x[3], w[3])]
}

fn random_program(rng: &mut Rng) -> Program {
    let mut shape = vec![1, rng.range(1, 6), rng.range(1, 9), rng.range(1, 19)];
    let input = Array {
        data: rng.vec(shape.iter().product(), -2.0, 2.0),
        shape: shape.clone(),
    };
    let mut consts: Vec<Array> = Vec::new();
    let mut steps = Vec::new();
    let add_const = |rng: &mut Rng, consts: &mut Vec<Array>, shape: Vec<usize>, lo, hi| {
        // Now and then reuse an earlier constant of the same shape: one buffer passed twice.
        if rng.below(5) == 0
            && let Some(i) = consts.iter().position(|c| c.shape == shape)
        {
            return i;
        }
        let n = shape.iter().product();
        // Ones and zeros, as ONNX importers produce for default gamma/beta.
        let data = match rng.below(4) {
            0 => vec![1.0; n],
            1 => vec![0.0; n],
            _ => rng.vec(n, lo, hi),
        };
        consts.push(Array { shape, data });
        consts.len() - 1
    };
    for _ in 0..rng.range(1, 4) {
        let c = shape[1];
        let step = match rng.below(6) {
            0 => {
                let k = [1, 3][rng.below(2)];
                let (stride, pad) = (rng.range(1, 2), rng.range(0, 1));
                if shape[2] + 2 * pad < k || shape[3] + 2 * pad < k {
                    continue;
                }
                let w = vec![rng.range(1, 6), c, k, k];
                let weight = add_const(rng, &mut consts, w.clone(), -0.5, 0.5);
                shape = conv_shape(&shape, &w, stride, pad);
                Step::Conv {
                    weight,
                    stride,
                    pad,
                }
            }
            1 => {
                let gamma = add_const(rng, &mut consts, vec![c], -2.0, 2.0);
                let beta = add_const(rng, &mut consts, vec![c], -2.0, 2.0);
                let mean = add_const(rng, &mut consts, vec![c], -1.0, 1.0);
                // A variance must be positive: never reuse another constant for it.
                consts.push(Array {
                    shape: vec![c],
                    data: rng.vec(c, 0.25, 4.0),
                });
                Step::BatchNorm([gamma, beta, mean, consts.len() - 1])
            }
            2 => {
                let w = shape[3];
                let gamma = add_const(rng, &mut consts, vec![w], -2.0, 2.0);
                let beta = add_const(rng, &mut consts, vec![w], -2.0, 2.0);
                Step::LayerNorm([gamma, beta])
            }
            3 => Step::Relu,
            _ => {
                let op = ["add", "subtract", "multiply", "maximum", "minimum"][rng.below(5)];
                let c = add_const(rng, &mut consts, vec![c, 1, 1], -2.0, 2.0);
                Step::Channel { op, c }
            }
        };
        steps.push(step);
    }
    Program {
        input,
        consts,
        steps,
    }
}

/// The program as TVMScript, as TVM's ONNX importer would print it.
fn script(p: &Program) -> String {
    let mut body = String::new();
    let mut shape = p.input.shape.clone();
    let mut x = "data_0".to_string();
    let c = |i: usize| format!("metadata[\"ir.GenericConst\"][{i}]");
    for (n, step) in p.steps.iter().enumerate() {
        let v = format!("lv{n}");
        let line = match step {
            Step::Conv {
                weight,
                stride,
                pad,
            } => {
                shape = conv_shape(&shape, &p.consts[*weight].shape, *stride, *pad);
                format!(
                    "{v}: {} = R.nn.conv2d({x}, {}, strides=[{stride}, {stride}], padding=[{pad}, {pad}, {pad}, {pad}], dilation=[1, 1], groups=1, data_layout=\"NCHW\", kernel_layout=\"OIHW\", out_layout=\"NCHW\", out_dtype=None)",
                    ty(&shape),
                    c(*weight)
                )
            }
            Step::BatchNorm([g, b, m, var]) => {
                let ch = shape[1];
                body.push_str(&format!(
                    "            {v}_t: R.Tuple({}, {}, {}) = R.nn.batch_norm({x}, {}, {}, {}, {}, axis=1, epsilon=9.9999997473787516e-06, center=True, scale=True, momentum=0.90000000000000002, training=False)\n",
                    ty(&shape),
                    ty(&[ch]),
                    ty(&[ch]),
                    c(*g),
                    c(*b),
                    c(*m),
                    c(*var)
                ));
                format!("{v}: {} = {v}_t[0]", ty(&shape))
            }
            Step::LayerNorm([g, b]) => format!(
                "{v}: {} = R.nn.layer_norm({x}, {}, {}, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)",
                ty(&shape),
                c(*g),
                c(*b)
            ),
            Step::Channel { op, c: k } => format!("{v}: {} = R.{op}({x}, {})", ty(&shape), c(*k)),
            Step::Relu => format!("{v}: {} = R.nn.relu({x})", ty(&shape)),
        };
        body.push_str(&format!("            {line}\n"));
        x = v;
    }
    format!(
        "@I.ir_module\nclass Module:\n    @R.function\n    def main(data_0: {}) -> {}:\n        with R.dataflow():\n{body}            gv: {} = {x}\n            R.output(gv)\n        return gv\n",
        ty(&p.input.shape),
        ty(&shape),
        ty(&shape)
    )
}

fn index(shape: &[usize], i: &[usize]) -> usize {
    i.iter().zip(shape).fold(0, |acc, (i, d)| acc * d + i)
}

/// The chain evaluated directly, in f64.
fn reference(p: &Program) -> Array {
    let mut x = p.input.clone();
    for step in &p.steps {
        let s = x.shape.clone();
        x = match step {
            Step::Conv {
                weight,
                stride,
                pad,
            } => {
                let w = &p.consts[*weight];
                let o = conv_shape(&s, &w.shape, *stride, *pad);
                let mut out = vec![0.0f32; o.iter().product()];
                for f in 0..o[1] {
                    for y in 0..o[2] {
                        for xx in 0..o[3] {
                            let mut acc = 0.0f64;
                            for ci in 0..s[1] {
                                for ky in 0..w.shape[2] {
                                    for kx in 0..w.shape[3] {
                                        let iy = (y * stride + ky) as i64 - *pad as i64;
                                        let ix = (xx * stride + kx) as i64 - *pad as i64;
                                        if iy < 0
                                            || ix < 0
                                            || iy >= s[2] as i64
                                            || ix >= s[3] as i64
                                        {
                                            continue;
                                        }
                                        let a =
                                            x.data[index(&s, &[0, ci, iy as usize, ix as usize])];
                                        let b = w.data[index(&w.shape, &[f, ci, ky, kx])];
                                        acc += a as f64 * b as f64;
                                    }
                                }
                            }
                            out[index(&o, &[0, f, y, xx])] = acc as f32;
                        }
                    }
                }
                Array {
                    shape: o,
                    data: out,
                }
            }
            Step::BatchNorm([g, b, m, v]) => {
                let (g, b, m, v) = (&p.consts[*g], &p.consts[*b], &p.consts[*m], &p.consts[*v]);
                let per = s[2] * s[3];
                let data = x
                    .data
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| {
                        let c = (i / per) % s[1];
                        let inv = 1.0 / (v.data[c] as f64 + 9.9999997473787516e-06).sqrt();
                        ((a as f64 - m.data[c] as f64) * inv * g.data[c] as f64 + b.data[c] as f64)
                            as f32
                    })
                    .collect();
                Array { shape: s, data }
            }
            Step::LayerNorm([g, b]) => {
                let (g, b) = (&p.consts[*g], &p.consts[*b]);
                let w = s[3];
                let mut data = Vec::with_capacity(x.data.len());
                for row in x.data.chunks(w) {
                    let mean = row.iter().map(|&a| a as f64).sum::<f64>() / w as f64;
                    let var =
                        row.iter().map(|&a| (a as f64 - mean).powi(2)).sum::<f64>() / w as f64;
                    let inv = 1.0 / (var + 1e-5).sqrt();
                    for (j, &a) in row.iter().enumerate() {
                        data.push(
                            ((a as f64 - mean) * inv * g.data[j] as f64 + b.data[j] as f64) as f32,
                        );
                    }
                }
                Array { shape: s, data }
            }
            Step::Channel { op, c } => {
                let c = &p.consts[*c];
                let per = s[2] * s[3];
                let data = x
                    .data
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| {
                        let k = c.data[(i / per) % s[1]];
                        match *op {
                            "add" => a + k,
                            "subtract" => a - k,
                            "multiply" => a * k,
                            "maximum" => a.max(k),
                            _ => a.min(k),
                        }
                    })
                    .collect();
                Array { shape: s, data }
            }
            Step::Relu => Array {
                shape: s,
                data: x.data.iter().map(|&a| a.max(0.0)).collect(),
            },
        };
    }
    x
}

fn tensor(a: &Array) -> Tensor {
    let shape: Vec<i64> = a.shape.iter().map(|&d| d as i64).collect();
    Tensor::from_slice(&shape, &a.data).expect("a well-formed array")
}

#[test]
fn random_chains_with_constant_operands_match_the_reference() {
    let engines = [true, false].map(|fusion| {
        Engine::new(Config {
            fusion,
            ..Config::default()
        })
        .unwrap()
    });
    let mut failures = Vec::new();
    for seed in 1..=60u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let p = random_program(&mut rng);
        let src = script(&p);
        let want = reference(&p);
        for engine in &engines {
            let module = Engine::parse_with_metadata(&src, p.consts.iter().map(tensor).collect())
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
            let got = engine
                .compile(&module)
                .and_then(|c| c.run("main", &[tensor(&p.input).into()]))
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
            let got: Vec<f32> = got.as_tensor().unwrap().to_vec().unwrap();
            let bad = got
                .iter()
                .zip(&want.data)
                .position(|(a, b)| (a - b).abs() > 1e-4 + 1e-4 * b.abs());
            if let Some(i) = bad {
                failures.push(format!(
                    "seed {seed}, fusion {}: element {i} is {} instead of {}\n{src}",
                    engine.config().fusion,
                    got[i],
                    want.data[i]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The reduced real-model case, with what TVM computed for it.
#[test]
fn regression_cases_match_tvm() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    for fusion in [true, false] {
        let engine = Engine::new(Config {
            fusion,
            ..Config::default()
        })
        .unwrap();
        let report = run_corpus(&engine, &dir, Input::Module).expect("the cases load");
        println!("{report}");
        assert!(report.report.passed > 0, "no case ran");
        assert!(
            report.report.failures.is_empty(),
            "fusion {fusion}: {:?}",
            report.report.failures
        );
    }
}
