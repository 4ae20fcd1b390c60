//! Reductions and scans over an axis of extent 0 (`R.sum(x, axis=[1])` with `x` of shape `(3, 0)`, and
//! the same with the extent symbolic and 0 only at run time): every output element is the
//! reduction's init as TVM's legalization defines it (0 for sum, 1 for prod, the dtype's lowest
//! value for max, its highest for min, -1 for argmax/argmin), and what follows from it (mean
//! and variance divide 0 by 0: NaN; an integer mean is a division-by-zero error). The same in
//! every configuration (bytecode and compiled, fusion and library kernels on and off), on the
//! first call and on a second call of the same VM, whose memory pool then hands out storage
//! that earlier intermediates filled — an output left unwritten would show those values.
//! A cumulative sum or product over an empty axis is an empty tensor (its legalization once
//! divided the element count by the axis' extent to count the rows: a division by zero), and
//! so is a strided slice of one (a backward slice once clamped its start to `0..=-1`: a panic).

use relaxjit::{Config, Engine, ExecMode, Tensor, Value, vm};

/// What every element of the reduction's output must be.
#[derive(Clone, Copy, Debug)]
enum Want {
    Float(f64),
    Int(i64),
    Nan,
    /// The call fails with an error containing this text.
    Error(&'static str),
}

struct Case {
    /// The reduction, over `x`.
    expr: &'static str,
    dtype: &'static str,
    out_dtype: &'static str,
    want: Want,
}

fn case(expr: &'static str, dtype: &'static str, out_dtype: &'static str, want: Want) -> Case {
    Case {
        expr,
        dtype,
        out_dtype,
        want,
    }
}

fn cases() -> Vec<Case> {
    use Want::*;
    let f32_lowest = f64::from(f32::MIN);
    let f32_highest = f64::from(f32::MAX);
    vec![
        case(
            "R.sum(x, axis=[1], keepdims=False)",
            "float32",
            "float32",
            Float(0.0),
        ),
        case(
            "R.prod(x, axis=[1], keepdims=False)",
            "float32",
            "float32",
            Float(1.0),
        ),
        case(
            "R.max(x, axis=[1], keepdims=False)",
            "float32",
            "float32",
            Float(f32_lowest),
        ),
        case(
            "R.min(x, axis=[1], keepdims=False)",
            "float32",
            "float32",
            Float(f32_highest),
        ),
        case(
            "R.max(x, axis=[1], keepdims=False)",
            "float16",
            "float16",
            Float(-65504.0),
        ),
        case(
            "R.mean(x, axis=[1], keepdims=False)",
            "float32",
            "float32",
            Nan,
        ),
        case(
            "R.variance(x, axis=[1], keepdims=False)",
            "float32",
            "float32",
            Nan,
        ),
        case(
            "R.std(x, axis=[1], keepdims=False)",
            "float32",
            "float32",
            Nan,
        ),
        case(
            "R.argmax(x, axis=1, keepdims=False)",
            "float32",
            "int64",
            Int(-1),
        ),
        case(
            "R.argmin(x, axis=1, keepdims=False)",
            "float32",
            "int64",
            Int(-1),
        ),
        case(
            "R.sum(x, axis=[1], keepdims=False)",
            "int32",
            "int32",
            Int(0),
        ),
        case(
            "R.max(x, axis=[1], keepdims=False)",
            "int32",
            "int32",
            Int(i32::MIN.into()),
        ),
        case(
            "R.min(x, axis=[1], keepdims=False)",
            "int64",
            "int64",
            Int(i64::MAX),
        ),
        case(
            "R.prod(x, axis=[1], keepdims=False)",
            "int64",
            "int64",
            Int(1),
        ),
        case(
            "R.mean(x, axis=[1], keepdims=False)",
            "int32",
            "int32",
            Error("division by zero"),
        ),
    ]
}

/// `main(x, z)`: the reduction `y` of `x` (`(n, m)` → `(n,)`) and, computed before it so that
/// its intermediates die first, `(z + z) * (z + z)`.
fn module(c: &Case, x_shape: &str) -> String {
    format!(
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor({x_shape}, dtype="{dt}"), z: R.Tensor(("n",), dtype="{dt}")) -> R.Tuple(R.Tensor(("n",), dtype="{odt}"), R.Tensor(("n",), dtype="{dt}")):
        n = T.int64()
        with R.dataflow():
            t1: R.Tensor((n,), dtype="{dt}") = R.add(z, z)
            t2: R.Tensor((n,), dtype="{dt}") = R.multiply(t1, t1)
            y: R.Tensor((n,), dtype="{odt}") = {expr}
            gv: R.Tuple(R.Tensor((n,), dtype="{odt}"), R.Tensor((n,), dtype="{dt}")) = y, t2
            R.output(gv)
        return gv
"#,
        dt = c.dtype,
        odt = c.out_dtype,
        expr = c.expr,
    )
}

fn configs() -> Vec<(String, Config)> {
    let mut out = Vec::new();
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        for fusion in [true, false] {
            for library in [true, false] {
                let config = Config {
                    exec_mode,
                    fusion,
                    library,
                    ..Config::default()
                };
                out.push((
                    format!("{exec_mode:?} fusion={fusion} library={library}"),
                    config,
                ));
            }
        }
    }
    out
}

/// `z` of `n` elements in `dtype`, all equal to `v`.
fn filled(dtype: &str, n: usize, v: i8) -> Tensor {
    match dtype {
        "float32" => Tensor::from_slice(&[n as i64], &vec![f32::from(v); n]).unwrap(),
        "float16" => Tensor::from_slice(&[n as i64], &vec![half::f16::from(v); n]).unwrap(),
        "int32" => Tensor::from_slice(&[n as i64], &vec![i32::from(v); n]).unwrap(),
        "int64" => Tensor::from_slice(&[n as i64], &vec![i64::from(v); n]).unwrap(),
        other => panic!("no filler for {other}"),
    }
}

fn check(what: &str, c: &Case, out: Result<Value, relaxjit::Error>, n: usize) {
    let out = match (out, c.want) {
        (Err(e), Want::Error(text)) => {
            assert!(e.to_string().contains(text), "{what}: {e}");
            return;
        }
        (Ok(v), Want::Error(text)) => panic!("{what}: want an error ({text}), got {v:?}"),
        (Err(e), _) => panic!("{what}: {e}"),
        (Ok(v), _) => v,
    };
    let Value::Tuple(fields) = out else {
        panic!("{what}: not a tuple: {out:?}");
    };
    let y = fields[0].as_tensor().unwrap();
    assert_eq!(y.shape(), [n as i64], "{what}");
    for i in 0..n {
        let ok = match c.want {
            Want::Float(w) => y.get_f64(i) == Some(w),
            Want::Nan => y.get_f64(i).is_some_and(f64::is_nan),
            Want::Int(w) => y.get_i64(i) == Some(w),
            Want::Error(_) => unreachable!(),
        };
        assert!(
            ok,
            "{what}: element {i} is {:?} / {:?}, want {:?}",
            y.get_f64(i),
            y.get_i64(i),
            c.want
        );
    }
}

#[test]
fn reductions_over_an_empty_axis_give_their_init_in_every_configuration() {
    const N: usize = 5;
    for (name, config) in configs() {
        let engine = Engine::new(config).unwrap();
        for c in cases() {
            // The reduced extent static (0) and symbolic (`m`, 0 at run time).
            for x_shape in ["(\"n\", 0)", "(\"n\", \"m\")"] {
                let src = module(&c, x_shape);
                let what = format!("{name}: {} {} over x{x_shape}", c.expr, c.dtype);
                let compiled = engine
                    .compile_str(&src)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let vm = compiled.vm().unwrap();
                let x: Value = Tensor::zeros(&[N as i64, 0], c.dtype.parse().unwrap())
                    .unwrap()
                    .into();
                for v in [3, 7] {
                    let z = filled(c.dtype, N, v).into();
                    let out = compiled.invoke(&vm, "main", &[x.clone(), z]);
                    check(&what, &c, out, N);
                }
            }
        }
    }
}

/// The same reductions over an axis that is not empty still reduce (the symbolic module of
/// the test above, with `m = 2`): the init runs once per output element, before the steps.
#[test]
fn the_symbolic_reduction_still_reduces_a_non_empty_axis() {
    for (name, config) in configs() {
        let engine = Engine::new(config).unwrap();
        let c = case(
            "R.sum(x, axis=[1], keepdims=False)",
            "float32",
            "float32",
            Want::Float(0.0),
        );
        let compiled = engine.compile_str(&module(&c, "(\"n\", \"m\")")).unwrap();
        let vm = compiled.vm().unwrap();
        let x = Tensor::from_slice(&[3, 2], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        for _ in 0..2 {
            let out = compiled
                .invoke(
                    &vm,
                    "main",
                    &[x.clone().into(), filled("float32", 3, 1).into()],
                )
                .unwrap();
            let Value::Tuple(fields) = out else {
                panic!("{name}: not a tuple");
            };
            let y = fields[0].as_tensor().unwrap().to_vec::<f32>().unwrap();
            assert_eq!(y, [3.0, 7.0, 11.0], "{name}");
        }
    }
}

/// `R.matmul` over a contracted axis of 0 is a matrix of zeros, whether the library kernel or
/// the legalized TIR computes it.
#[test]
fn a_matmul_over_an_empty_inner_axis_is_zero() {
    let src = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3, "k"), dtype="float32"), b: R.Tensor(("k", 4), dtype="float32"), z: R.Tensor((3, 4), dtype="float32")) -> R.Tuple(R.Tensor((3, 4), dtype="float32"), R.Tensor((3, 4), dtype="float32")):
        k = T.int64()
        with R.dataflow():
            t1: R.Tensor((3, 4), dtype="float32") = R.add(z, z)
            t2: R.Tensor((3, 4), dtype="float32") = R.multiply(t1, t1)
            y: R.Tensor((3, 4), dtype="float32") = R.matmul(a, b, out_dtype=None)
            gv: R.Tuple(R.Tensor((3, 4), dtype="float32"), R.Tensor((3, 4), dtype="float32")) = y, t2
            R.output(gv)
        return gv
"#;
    for (name, config) in configs() {
        let compiled = Engine::new(config).unwrap().compile_str(src).unwrap();
        let vm = compiled.vm().unwrap();
        let a = Tensor::zeros(&[3, 0], vm::DataType::F32).unwrap();
        let b = Tensor::zeros(&[0, 4], vm::DataType::F32).unwrap();
        for v in [3, 7] {
            let z = Tensor::from_slice(&[3, 4], &[v as f32; 12]).unwrap();
            let out = compiled
                .invoke(&vm, "main", &[a.clone().into(), b.clone().into(), z.into()])
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let Value::Tuple(fields) = out else {
                panic!("{name}: not a tuple");
            };
            let y = fields[0].as_tensor().unwrap().to_vec::<f32>().unwrap();
            assert_eq!(y, [0.0; 12], "{name}");
        }
    }
}

/// `R.cumsum`/`R.cumprod` over an axis of `x: (3, m)`, and over the flattened tensor: empty
/// results at `m = 0`, the scans at `m = 2`.
#[test]
fn scans_over_an_empty_axis_are_empty() {
    let module = |expr: &str, out: &str| {
        format!(
            r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, "m"), dtype="float32")) -> R.Tensor({out}, dtype="float32"):
        m = T.int64()
        with R.dataflow():
            y: R.Tensor({out}, dtype="float32") = {expr}
            R.output(y)
        return y
"#
        )
    };
    let x2 = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let cases: [(&str, &str, [f32; 6]); 5] = [
        (
            "R.cumsum(x, axis=1, dtype=None, exclusive=False)",
            "(3, m)",
            [1.0, 3.0, 3.0, 7.0, 5.0, 11.0],
        ),
        (
            "R.cumsum(x, axis=1, dtype=None, exclusive=True)",
            "(3, m)",
            [0.0, 1.0, 0.0, 3.0, 0.0, 5.0],
        ),
        (
            "R.cumprod(x, axis=1, dtype=None, exclusive=False)",
            "(3, m)",
            [1.0, 2.0, 3.0, 12.0, 5.0, 30.0],
        ),
        (
            "R.cumsum(x, axis=0, dtype=None, exclusive=False)",
            "(3, m)",
            [1.0, 2.0, 4.0, 6.0, 9.0, 12.0],
        ),
        (
            "R.cumsum(x, axis=None, dtype=None, exclusive=False)",
            "(3 * m,)",
            [1.0, 3.0, 6.0, 10.0, 15.0, 21.0],
        ),
    ];
    for (name, config) in configs() {
        let engine = Engine::new(config).unwrap();
        for (expr, out, want) in &cases {
            let compiled = engine
                .compile_str(&module(expr, out))
                .unwrap_or_else(|e| panic!("{name}: {expr}: {e}"));
            for m in [0i64, 2] {
                let x = Tensor::from_slice(&[3, m], &x2[..3 * m as usize]).unwrap();
                let y = compiled
                    .run("main", &[x.into()])
                    .unwrap_or_else(|e| panic!("{name}: {expr} at m = {m}: {e}"));
                let y = y.as_tensor().unwrap();
                assert_eq!(y.numel(), 3 * m as usize, "{name}: {expr} at m = {m}");
                if m == 2 {
                    assert_eq!(y.to_vec::<f32>().unwrap(), want, "{name}: {expr}");
                }
            }
        }
    }
}

/// `R.strided_slice` of the empty axis of `x: (3, 0)`, forward and backward, from any start.
#[test]
fn slices_of_an_empty_axis_are_empty() {
    for (begin, end, stride) in [
        (-1, -100, -1),
        (0, 5, 1),
        (5, 0, -2),
        (0, 0, -1),
        (-3, 2, 3),
    ] {
        let src = format!(
            r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 0), dtype="float32")) -> R.Tensor((3, 0), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((3, 0), dtype="float32") = R.strided_slice(x, (1,), ({begin},), ({end},), ({stride},), assume_inbound=False)
            R.output(y)
        return y
"#
        );
        for (name, config) in configs() {
            let what = format!("{name}: slice {begin}:{end}:{stride}");
            let y = Engine::new(config)
                .unwrap()
                .compile_str(&src)
                .unwrap_or_else(|e| panic!("{what}: {e}"))
                .run(
                    "main",
                    &[Tensor::from_slice::<f32>(&[3, 0], &[]).unwrap().into()],
                )
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(y.as_tensor().unwrap().shape(), [3, 0], "{what}");
        }
    }
}

/// A tensor with an empty axis is empty however long its other axes are, and so is the work:
/// `R.add` of two `(2^60, 0)` tensors ran its outer loop 2^60 times around an empty inner one
/// (a hang). (2^60, the longest axis numpy's rule allows a float32 tensor with an empty one
/// beside it in a power of two: 2^62 elements of 4 bytes are more than `isize::MAX` bytes.) The same with the shape known only at run time, after the reduction interchange
/// (which puts `sum`'s reduction loop outside the empty spatial one), for a scan whose body is
/// a condition false for every row, and for the library matmul.
#[test]
fn a_long_axis_beside_an_empty_one_is_not_iterated() {
    const LONG: i64 = 1 << 60;
    let module = |shape: &str, expr: &str| {
        format!(
            r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor({shape}, dtype="float32")):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            y = {expr}
            R.output(y)
        return y
"#
        )
    };
    let cases: [(&str, [i64; 2], &[i64]); 7] = [
        ("R.add(x, x)", [LONG, 0], &[LONG, 0]),
        ("R.nn.relu(R.exp(R.add(x, x)))", [LONG, 0], &[LONG, 0]),
        ("R.sum(x, axis=[0], keepdims=True)", [LONG, 0], &[1, 0]),
        ("R.cumsum(x, axis=1)", [LONG, 0], &[LONG, 0]),
        ("R.cumsum(x, axis=0)", [0, LONG], &[0, LONG]),
        (
            "R.matmul(x, R.zeros(R.shape([0, 0]), dtype=\"float32\"))",
            [LONG, 0],
            &[LONG, 0],
        ),
        (
            "R.multiply(x, R.sum(x, axis=[0], keepdims=True))",
            [LONG, 0],
            &[LONG, 0],
        ),
    ];
    for (name, config) in configs() {
        let engine = Engine::new(config).unwrap();
        for (expr, dims, want) in &cases {
            let x = Tensor::zeros(dims, vm::DataType::F32).unwrap();
            let fixed = format!("({}, {})", dims[0], dims[1]);
            for shape in [fixed.as_str(), "(\"n\", \"m\")"] {
                let what = format!("{name}: {expr} of {shape} = {dims:?}");
                let compiled = engine
                    .compile_str(&module(shape, expr))
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let y = compiled
                    .run("main", &[x.clone().into()])
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(y.as_tensor().unwrap().shape(), *want, "{what}");
            }
        }
    }
}
