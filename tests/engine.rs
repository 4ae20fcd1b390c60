//! The Engine's public contract: compile once and run on many VMs and threads, one-shot runs,
//! compile-time errors that name the stage and construct, run-time errors instead of panics,
//! exec-mode and thread configuration, `.npy` files.

use std::sync::Arc;

use relaxjit::{Config, Engine, Error, ExecMode, Tensor, Value};
use support::values::{random_inputs, summarize};

const ADD_MUL: &str = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((2, 3), dtype="float32") = R.add(x, y)
            b: R.Tensor((2, 3), dtype="float32") = R.multiply(a, R.const(2.0, "float32"))
            R.output(b)
        return b
"#;

const DYNAMIC: &str = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            y: R.Tensor((n, 4), dtype="float32") = R.exp(x)
            R.output(y)
        return y
"#;

fn inputs() -> Vec<Value> {
    vec![
        Tensor::from_slice(&[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])
            .unwrap()
            .into(),
        Tensor::from_slice(&[3], &[10.0f32, 20.0, 30.0])
            .unwrap()
            .into(),
    ]
}

const WANT: [f32; 6] = [22.0, 44.0, 66.0, 28.0, 50.0, 72.0];

/// An engine of the default configuration in `exec_mode`.
fn engine(exec_mode: ExecMode) -> Engine {
    Engine::new(Config {
        exec_mode,
        ..Config::default()
    })
    .unwrap()
}

fn as_f32(v: &Value) -> Vec<f32> {
    v.as_tensor().unwrap().to_vec::<f32>().unwrap()
}

#[test]
fn compile_and_run_one_shot() {
    let out = Engine::compile_and_run(ADD_MUL, "main", &inputs()).unwrap();
    assert_eq!(out.as_tensor().unwrap().shape(), [2, 3]);
    assert_eq!(as_f32(&out), WANT);
}

#[test]
fn one_compiled_module_many_vms_and_threads() {
    let compiled = Arc::new(Engine::default().compile_str(ADD_MUL).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let compiled = compiled.clone();
            std::thread::spawn(move || {
                let vm = compiled.vm().unwrap();
                (0..3)
                    .map(|_| as_f32(&compiled.invoke(&vm, "main", &inputs()).unwrap()))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for t in threads {
        for got in t.join().unwrap() {
            assert_eq!(got, WANT);
        }
    }
}

#[test]
fn symbolic_shapes_run_at_any_size() {
    let compiled = Engine::default().compile_str(DYNAMIC).unwrap();
    let vm = compiled.vm().unwrap();
    for n in [1i64, 5] {
        let x = Tensor::from_slice(&[n, 4], &vec![0.0f32; 4 * n as usize]).unwrap();
        let out = compiled.invoke(&vm, "main", &[x.into()]).unwrap();
        assert_eq!(out.as_tensor().unwrap().shape(), [n, 4]);
        assert!(as_f32(&out).iter().all(|v| *v == 1.0));
    }
}

#[test]
fn a_thread_count_gives_the_engine_its_own_pool() {
    let engine = Engine::new(Config {
        threads: Some(2),
        ..Config::default()
    })
    .unwrap();
    let out = engine
        .compile_str(ADD_MUL)
        .unwrap()
        .run("main", &inputs())
        .unwrap();
    assert_eq!(as_f32(&out), WANT);
    let zero = Engine::new(Config {
        threads: Some(0),
        ..Config::default()
    });
    assert!(matches!(zero, Err(Error::InvalidArgument(_))));
}

/// Compiled mode: every function is recorded as a VMTIRFunc (TVM's `vm_tir_func` listing), none
/// falls back, and the result equals bytecode mode's bit for bit.
#[test]
fn compiled_exec_mode_runs_native_functions() {
    let engine = Engine::new(Config {
        exec_mode: ExecMode::Compiled,
        ..Config::default()
    })
    .unwrap();
    let compiled = engine.compile_str(ADD_MUL).unwrap();
    assert_eq!(compiled.exec_mode(), ExecMode::Compiled);
    assert!(
        compiled.fallbacks().is_empty(),
        "{:?}",
        compiled.fallbacks()
    );
    assert!(compiled.vmtir_compile_time().is_some());
    let text = compiled.executable().as_text();
    assert!(text.contains("@main num_inputs=2 vm_tir_func;"), "{text}");
    let out = compiled.run("main", &inputs()).unwrap();
    assert_eq!(as_f32(&out), WANT);
    let bytecode = Engine::default().compile_str(ADD_MUL).unwrap();
    assert_eq!(bytecode.exec_mode(), ExecMode::Bytecode);
    assert!(bytecode.vmtir_compile_time().is_none());
    assert_eq!("compiled".parse::<ExecMode>().unwrap(), ExecMode::Compiled);
    assert!("jit".parse::<ExecMode>().is_err());
}

/// Compile-time errors carry the stage and enough to find the construct.
#[test]
fn bad_modules_fail_at_compile_time_with_context() {
    let cases: &[(&str, &[&str])] = &[
        (
            "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tensor((2,), dtype=\"float32\"):\n        return R.nonexistent_op(x)\n",
            &["parsing TVMScript", "nonexistent_op", "5:"],
        ),
        ("not a module at all", &["parsing TVMScript"]),
    ];
    for (src, wants) in cases {
        let e = Engine::default().compile_str(src).unwrap_err().to_string();
        for w in *wants {
            assert!(e.contains(w), "{e:?} should mention {w:?}");
        }
    }
}

/// An operator LegalizeOps cannot lower (here: an attribute combination without a rule) is a
/// compile-time error naming the pass, the operator, the binding and the function.
#[test]
fn an_operator_without_a_rule_fails_at_compile_time() {
    let src = "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1, 4, 5, 5), dtype=\"float32\")):\n        y = R.nn.softplus(x, beta=0.0, threshold=20.0)\n        return y\n";
    let e = Engine::default()
        .compile_str(src)
        .expect_err("softplus with beta 0 has no legalization")
        .to_string();
    for w in ["LegalizeOps", "relax.nn.softplus", "`y`", "`main`"] {
        assert!(e.contains(w), "{e:?} should mention {w:?}");
    }
}

/// Errors that depend on the arguments are run-time errors, never panics.
#[test]
fn bad_calls_are_errors() {
    let compiled = Engine::default().compile_str(ADD_MUL).unwrap();
    let vm = compiled.vm().unwrap();
    let wrong_shape: Vec<Value> = vec![
        Tensor::from_slice(&[3, 2], &[0.0f32; 6]).unwrap().into(),
        Tensor::from_slice(&[3], &[0.0f32; 3]).unwrap().into(),
    ];
    let wrong_dtype: Vec<Value> = vec![
        Tensor::from_slice(&[2, 3], &[0i32; 6]).unwrap().into(),
        Tensor::from_slice(&[3], &[0.0f32; 3]).unwrap().into(),
    ];
    for (func, args) in [
        ("main", wrong_shape),
        ("main", wrong_dtype),
        ("main", vec![]),
        ("main", vec![Value::Int(1), Value::Int(2)]),
        ("missing", inputs()),
    ] {
        assert!(matches!(
            compiled.invoke(&vm, func, &args),
            Err(Error::Runtime(_))
        ));
    }
    // The VM is still usable afterwards.
    assert_eq!(
        as_f32(&compiled.invoke(&vm, "main", &inputs()).unwrap()),
        WANT
    );
}

#[test]
fn generated_inputs_and_summaries() {
    let module = Engine::parse(ADD_MUL).unwrap();
    let main = module.relax_function("main").unwrap();
    let args = random_inputs(main, 42).unwrap();
    assert_eq!(args.len(), 2);
    assert_eq!(
        random_inputs(main, 42).unwrap()[0]
            .as_tensor()
            .unwrap()
            .to_bytes(),
        args[0].as_tensor().unwrap().to_bytes()
    );
    let out = Engine::default()
        .compile(&module)
        .unwrap()
        .run("main", &args)
        .unwrap();
    assert!(
        summarize(&out).starts_with("float32[2, 3] ["),
        "{}",
        summarize(&out)
    );
    let dynamic = Engine::parse(DYNAMIC).unwrap();
    let e = random_inputs(dynamic.relax_function("main").unwrap(), 1).unwrap_err();
    assert!(e.to_string().contains("`x`"), "{e}");
}

#[test]
fn npy_files_round_trip() {
    let dir = std::env::temp_dir().join(format!("relaxjit-engine-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("x.npy");
    let t = Tensor::from_slice(&[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    relaxjit::npy::write_npy(&path, &t).unwrap();
    let back = relaxjit::npy::read_npy(&path).unwrap();
    assert_eq!(back.shape(), [2, 3]);
    assert_eq!(back.to_vec::<f32>().unwrap(), t.to_vec::<f32>().unwrap());
    let missing = relaxjit::npy::read_npy(&dir.join("missing.npy")).unwrap_err();
    assert!(matches!(missing, Error::Io { .. }));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The demo computes the same with and without fusion, on a one-thread pool and in compiled
/// mode: a differential check of FuseOps/FuseTIR, of the parallel kernels and of the compiled
/// Relax functions on a whole model.
#[test]
fn the_demo_agrees_across_configurations() {
    use support::demo::run_demo;
    let run = |config: Config| {
        let report = run_demo(&Engine::new(config).unwrap(), 2).unwrap();
        as_f32(&report.output)
    };
    let fused = run(Config::default());
    assert_eq!(fused.len(), 16 * 64);
    // Compiled mode runs the same kernels on the same values: identical bits.
    let compiled = run(Config {
        exec_mode: ExecMode::Compiled,
        ..Config::default()
    });
    assert!(
        fused
            .iter()
            .zip(&compiled)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "compiled mode differs from bytecode mode"
    );
    assert!(fused.iter().all(|v| v.is_finite()));
    for config in [
        Config {
            fusion: false,
            ..Config::default()
        },
        Config {
            threads: Some(1),
            ..Config::default()
        },
    ] {
        let other = run(config.clone());
        let worst = fused
            .iter()
            .zip(&other)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{config:?}: differs by {worst}");
    }
}

/// Older TVM releases printed an unset `out_dtype` as `"void"` (`R.nn.conv2d(…, out_dtype="void")`,
/// `R.matmul(…, out_dtype="void")`): it means the operands' dtype, as `None` does, on every
/// path (the library kernels and the TIR legalization).
#[test]
fn out_dtype_void_means_unset() {
    let module = |out_dtype: &str| {
        format!(
            r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 8, 8), dtype="float32"), w: R.Tensor((6, 4, 3, 3), dtype="float32"), m: R.Tensor((6, 6), dtype="float32")) -> R.Tensor((1, 6, 6, 6), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 6, 6, 6), dtype="float32") = R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype={out_dtype})
            y: R.Tensor((1, 6, 6, 6), dtype="float32") = R.matmul(c, m, out_dtype={out_dtype})
            R.output(y)
        return y
"#
        )
    };
    let parsed = Engine::parse(&module("None")).unwrap();
    let args = random_inputs(parsed.relax_function("main").unwrap(), 7).unwrap();
    let run = |text: &str, library: bool| {
        let engine = Engine::new(Config {
            library,
            ..Config::default()
        })
        .unwrap();
        as_f32(
            &engine
                .compile_str(text)
                .unwrap()
                .run("main", &args)
                .unwrap(),
        )
    };
    let want = run(&module("None"), false);
    for library in [false, true] {
        let got = run(&module(r#""void""#), library);
        assert_eq!(got.len(), want.len());
        let worst = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "library {library}: differs by {worst}");
    }
}

/// `R.call_tir_inplace`: the callee takes the inputs and only the outputs not written in place
/// (an in-place output is its input, passed once), in both exec modes; and a `Primitive`
/// function (a group as TVM's FuseOps prints it) holding in-place calls, which FuseTIR cannot
/// merge, runs unfused with the same results instead of failing to compile.
#[test]
fn call_tir_inplace_and_unmergeable_groups() {
    const PRIM_FUNCS: &str = r#"
    @T.prim_func(private=True)
    def add(A: T.Buffer((T.int64(4), T.int64(5)), "float32"), B: T.Buffer((), "float32"), Out: T.Buffer((T.int64(4), T.int64(5)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for ax0, ax1 in T.grid(T.int64(4), T.int64(5)):
            with T.block("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v_ax0, v_ax1], B[()])
                T.writes(Out[v_ax0, v_ax1])
                Out[v_ax0, v_ax1] = A[v_ax0, v_ax1] + B[()]

    @T.prim_func(private=True)
    def exp_inplace(A: T.Buffer((T.int64(4), T.int64(5)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i0, i1 in T.grid(T.int64(4), T.int64(5)):
            with T.block("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(A[v_i0, v_i1])
                T.writes(A[v_i0, v_i1])
                A[v_i0, v_i1] = T.exp(A[v_i0, v_i1])
"#;
    let flat = format!(
        r#"# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:{PRIM_FUNCS}
    @R.function
    def main(x: R.Tensor((4, 5), dtype="float32"), p: R.Tensor((), dtype="float32")) -> R.Tensor((4, 5), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.add, (x, p), out_sinfo=R.Tensor((4, 5), dtype="float32"))
            gv: R.Tensor((4, 5), dtype="float32") = R.call_tir_inplace(cls.exp_inplace, (lv,), out_sinfo=R.Tensor((4, 5), dtype="float32"), inplace_indices=[0])
            R.output(gv)
        return gv
"#
    );
    let grouped = format!(
        r#"# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:{PRIM_FUNCS}
    @R.function(private=True)
    def fused_add_exp_inplace(x: R.Tensor((4, 5), dtype="float32"), p: R.Tensor((), dtype="float32")) -> R.Tensor((4, 5), dtype="float32"):
        R.func_attr({{"Primitive": True}})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.add, (x, p), out_sinfo=R.Tensor((4, 5), dtype="float32"))
            gv: R.Tensor((4, 5), dtype="float32") = R.call_tir_inplace(cls.exp_inplace, (lv,), out_sinfo=R.Tensor((4, 5), dtype="float32"), inplace_indices=[0])
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 5), dtype="float32"), p: R.Tensor((), dtype="float32")) -> R.Tensor((4, 5), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv: R.Tensor((4, 5), dtype="float32") = cls.fused_add_exp_inplace(x, p)
            R.output(gv)
        return gv
"#
    );
    let x: Vec<f32> = (0..20).map(|i| i as f32 * 0.1 - 1.0).collect();
    let args: Vec<Value> = vec![
        Tensor::from_slice(&[4, 5], &x).unwrap().into(),
        Tensor::from_slice(&[], &[0.25f32]).unwrap().into(),
    ];
    for (text, what) in [(&flat, "call_tir_inplace"), (&grouped, "a group with it")] {
        for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
            let engine = Engine::new(Config {
                exec_mode,
                ..Config::default()
            })
            .unwrap();
            let compiled = engine
                .compile_str(text)
                .unwrap_or_else(|e| panic!("{what}, {exec_mode:?}: {e}"));
            let got = as_f32(&compiled.run("main", &args).unwrap());
            for (g, v) in got.iter().zip(&x) {
                let want = (v + 0.25).exp();
                assert!(
                    (g - want).abs() <= 1e-6 * want,
                    "{what}, {exec_mode:?}: {g} for exp({v} + 0.25) = {want}"
                );
            }
        }
    }
}

/// `R.floor`, `R.ceil`, `R.round` and `R.trunc` of an integer tensor are copies (TVM's `tir`
/// builders return an integer argument itself), in both exec modes.
#[test]
fn rounding_an_integer_tensor_is_a_copy() {
    for op in ["floor", "ceil", "round", "trunc"] {
        for dtype in ["int32", "int64"] {
            let text = format!(
                r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((5,), dtype="{dtype}")) -> R.Tensor((5,), dtype="{dtype}"):
        gv: R.Tensor((5,), dtype="{dtype}") = R.{op}(x)
        return gv
"#
            );
            let x = [-7i64, -1, 0, 3, 1 << 40];
            let arg: Value = if dtype == "int32" {
                let v: Vec<i32> = x.iter().map(|&v| v as i32).collect();
                Tensor::from_slice(&[5], &v).unwrap().into()
            } else {
                Tensor::from_slice(&[5], &x).unwrap().into()
            };
            for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
                let engine = Engine::new(Config {
                    exec_mode,
                    ..Config::default()
                })
                .unwrap();
                let out = engine
                    .compile_str(&text)
                    .unwrap_or_else(|e| panic!("R.{op} of {dtype}: {e}"))
                    .run("main", std::slice::from_ref(&arg))
                    .unwrap();
                let same =
                    out.as_tensor().unwrap().to_bytes() == arg.as_tensor().unwrap().to_bytes();
                assert!(same, "R.{op} of {dtype}, {exec_mode:?}: not a copy");
            }
        }
    }
}

/// `R.call_tir_with_grad` (its struct info under the old keyword `out_sinfo`, as TVM printed
/// it) runs as the `call_tir` it is at run time; the gradient's TE function it names is for
/// TVM's Gradient pass only.
#[test]
fn call_tir_with_grad_runs_as_call_tir() {
    let text = r#"# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f_mul(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32"), C: T.Buffer((T.int64(3),), "float32")):
        for i in range(T.int64(3)):
            with T.block("mul"):
                vi = T.axis.spatial(T.int64(3), i)
                C[vi] = A[vi] * B[vi]

    @R.function
    def main(a: R.Tensor((3,), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((3,), dtype="float32") = R.call_tir_with_grad(cls.f_mul, (a, b), out_sinfo=R.Tensor((3,), dtype="float32"), te_grad_name="f_mul_grad")
            gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)
            R.output(gv)
        return gv
"#;
    let args: Vec<Value> = vec![
        Tensor::from_slice(&[3], &[1.0f32, 2.0, 3.0])
            .unwrap()
            .into(),
        Tensor::from_slice(&[3], &[4.0f32, -5.0, 6.0])
            .unwrap()
            .into(),
    ];
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = engine(exec_mode);
        let out = engine
            .compile_str(text)
            .unwrap()
            .run("main", &args)
            .unwrap();
        assert_eq!(as_f32(&out), [12.0], "{exec_mode:?}");
    }
}

/// A `call_tir` whose output is annotated without dtype (`out_sinfo=R.Tensor((3,))`, as TVM's
/// own tests write it) allocates the dtype of the callee's output buffer, fused or not.
#[test]
fn call_tir_output_without_dtype_takes_the_callees() {
    let text = r#"# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def twice(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
        for i in range(T.int64(3)):
            with T.block("twice"):
                vi = T.axis.spatial(T.int64(3), i)
                B[vi] = A[vi] * T.float32(2)

    @R.function
    def main(a: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.twice, (a,), out_sinfo=R.Tensor((3,)))
            gv = R.call_tir(cls.twice, (lv,), out_sinfo=R.Tensor((3,), dtype="float32"))
            R.output(gv)
        return gv
"#;
    let args: Vec<Value> = vec![
        Tensor::from_slice(&[3], &[1.0f32, -2.0, 0.5])
            .unwrap()
            .into(),
    ];
    for fusion in [true, false] {
        for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
            let engine = Engine::new(Config {
                exec_mode,
                fusion,
                ..Config::default()
            })
            .unwrap();
            let out = engine
                .compile_str(text)
                .unwrap_or_else(|e| panic!("fusion {fusion}, {exec_mode:?}: {e}"))
                .run("main", &args)
                .unwrap();
            assert_eq!(
                as_f32(&out),
                [4.0, -8.0, 2.0],
                "fusion {fusion}, {exec_mode:?}"
            );
        }
    }
}

/// A module printed by older TVM with `script(show_meta=True)` carries its constants in a
/// `metadata = tvm.ir.load_json("""…""")` header (TVM's JSON object graph, tensors in
/// base64): they are read from it, in both exec modes; a corrupt tensor is an error naming
/// the entry.
#[test]
fn embedded_metadata_tables_are_read() {
    let header = |int_tensor: &str| {
        format!(
            r#"metadata = tvm.ir.load_json("""{{
  \"root\": 1,
  \"nodes\": [
    {{\"type_key\": \"\"}},
    {{\"type_key\": \"Map\", \"keys\": [\"relax.expr.Constant\"], \"data\": [2]}},
    {{\"type_key\": \"Array\", \"data\": [3, 4]}},
    {{\"type_key\": \"relax.expr.Constant\", \"attrs\": {{\"data\": \"0\", \"span\": \"0\"}}}},
    {{\"type_key\": \"relax.expr.Constant\", \"attrs\": {{\"data\": \"1\", \"span\": \"0\"}}}}
  ],
  \"b64ndarrays\": [
    \"{int_tensor}\",
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAIAAAAAAAAAEAAAAAAAAAAAAAA/AACAvwAAEEAAAIBA\"
  ],
  \"attrs\": {{\"tvm_version\": \"0.17.dev0\"}}
}}""")
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="int32"), R.Tensor((2, 2), dtype="float32")):
        c: R.Tensor((3,), dtype="int32") = metadata["relax.expr.Constant"][0]
        w: R.Tensor((2, 2), dtype="float32") = metadata["relax.expr.Constant"][1]
        y: R.Tensor((2, 2), dtype="float32") = R.add(x, w)
        return (c, y)
"#
        )
    };
    let good =
        header("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAAgAQADAAAAAAAAAAwAAAAAAAAAAQAAAAIAAAADAAAA");
    let x: Value = Tensor::from_slice(&[2, 2], &[1.0f32, 1.0, 1.0, 1.0])
        .unwrap()
        .into();
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = engine(exec_mode);
        let out = engine
            .compile_str(&good)
            .unwrap_or_else(|e| panic!("{exec_mode:?}: {e}"))
            .run("main", std::slice::from_ref(&x))
            .unwrap();
        let Value::Tuple(items) = &out else {
            panic!("{exec_mode:?}: expected a tuple, got {out:?}");
        };
        let c = items[0].as_tensor().unwrap().to_vec::<i32>().unwrap();
        assert_eq!(c, [1, 2, 3], "{exec_mode:?}");
        assert_eq!(as_f32(&items[1]), [1.5, 0.0, 3.25, 5.0], "{exec_mode:?}");
    }
    // The int32 tensor's data size field says 13 bytes instead of 12.
    let bad =
        header("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAAgAQADAAAAAAAAAA0AAAAAAAAAAQAAAAIAAAADAAAA");
    let e = Engine::default().compile_str(&bad).unwrap_err().to_string();
    assert!(
        e.contains("relax.expr.Constant") && e.contains("data size"),
        "{e}"
    );
}

/// A module as TVM prints it after RealizeVDevice: `I.module_global_infos` with virtual
/// devices and tensors annotated with them. It prints back as read, and runs on the host
/// (`R.to_vdevice` moves nothing) with the values of the same module without devices.
#[test]
fn virtual_devices_are_kept_and_run_on_the_host() {
    let src = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_attrs({"attr": 10})
    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cpu"], "kind": "llvm", "tag": ""}, 0, "global"), I.vdevice({"arch": "sm_86", "kind": "cuda"}, 0, "global"), I.vdevice("llvm", 1, "global")]})
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tensor((2, 3), dtype="float32", vdevice="cuda:0"):
        with R.dataflow():
            a: R.Tensor((2, 3), dtype="float32", vdevice="llvm:0") = R.add(x, y)
            b: R.Tensor((2, 3), dtype="float32", vdevice="cuda:0") = R.to_vdevice(a, dst_vdevice="cuda:0")
            c: R.Tensor((2, 3), dtype="float32", vdevice="cuda:0") = R.multiply(b, R.const(2.0, "float32"))
            R.output(c)
        return c
"#;
    let module = Engine::parse(src).expect("parses");
    assert_eq!(module.global_infos.len(), 1);
    assert_eq!(module.global_infos[0].1.len(), 3);
    let printed = relaxjit::relax::script::print_module(&module);
    assert!(
        printed.contains(r#"I.vdevice({"arch": "sm_86", "kind": "cuda"}, 0, "global")"#)
            && printed.contains(r#"I.vdevice({"kind": "llvm"}, 1, "global")"#),
        "{printed}"
    );
    let reparsed = Engine::parse(&printed).expect("the printed module parses");
    assert!(
        relaxjit::relax::structural_equal(&module, &reparsed),
        "{printed}"
    );
    let want = as_f32(
        &Engine::new(Config::default())
            .unwrap()
            .compile_str(ADD_MUL)
            .unwrap()
            .run("main", &inputs())
            .unwrap(),
    );
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = engine(exec_mode);
        let got = engine
            .compile_str(src)
            .unwrap()
            .run("main", &inputs())
            .unwrap();
        assert_eq!(as_f32(&got), want, "{exec_mode:?}");
    }
    // Another kind of global info is an error naming it.
    let other = src.replace(
        "I.vdevice(\"llvm\", 1, \"global\")",
        "I.dummy_global_info()",
    );
    let err = Engine::parse(&other).expect_err("an error").to_string();
    assert!(
        err.contains("unsupported global info `I.dummy_global_info`"),
        "{err}"
    );
}

/// `R.split` in every form TVM's inference accepts: one section (the tensor itself), split
/// indices (sorted, unsorted: an empty piece, past the end), and equal sections of a symbolic
/// extent, checked element by element in both exec modes.
#[test]
fn split_pieces_hold_the_right_elements() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 6), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            a = R.split(x, indices_or_sections=1, axis=1)
            b = R.split(x, indices_or_sections=[2, 5], axis=1)
            c = R.split(x, indices_or_sections=[5, 2, 9], axis=1)
            d = R.split(x, indices_or_sections=2, axis=0)
            R.output(a, b, c, d)
        return (a, b, c, d)
"#;
    let x: Vec<f32> = (0..24).map(|v| v as f32).collect();
    let cols = |lo: usize, hi: usize| -> Vec<f32> {
        (0..4)
            .flat_map(|r| (lo..hi).map(move |c| (r * 6 + c) as f32))
            .collect()
    };
    let want: Vec<Vec<f32>> = vec![
        x.clone(),
        cols(0, 2),
        cols(2, 5),
        cols(5, 6),
        cols(0, 5),
        vec![],
        cols(2, 6),
        vec![],
        x[..12].to_vec(),
        x[12..].to_vec(),
    ];
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = engine(exec_mode);
        let arg = Value::Tensor(Tensor::from_slice(&[4, 6], &x).unwrap());
        let out = engine
            .compile_str(src)
            .unwrap()
            .run("main", &[arg])
            .unwrap();
        let mut got = Vec::new();
        fn flatten(v: &Value, got: &mut Vec<Vec<f32>>) {
            match v.as_tensor() {
                Ok(_) => got.push(as_f32(v)),
                Err(_) => {
                    for f in v.as_tuple().expect("a tuple").fields() {
                        flatten(f, got);
                    }
                }
            }
        }
        flatten(&out, &mut got);
        assert_eq!(got, want, "{exec_mode:?}");
    }
}

/// `R.triu`/`R.tril` with a diagonal offset known only at run time (a symbolic prim value):
/// the offset read from the shape argument, not taken as 0.
#[test]
fn triangles_with_a_symbolic_offset() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 5), dtype="float32"), s: R.Shape(["k"])):
        k = T.int64()
        with R.dataflow():
            a = R.triu(x, R.prim_value(k))
            b = R.tril(x, R.prim_value(k - 3))
            R.output(a, b)
        return (a, b)
"#;
    let x: Vec<f32> = (1..=20).map(|v| v as f32).collect();
    let tri = |keep: &dyn Fn(i64, i64) -> bool| -> Vec<f32> {
        (0..20)
            .map(|i| {
                if keep(i / 5, i % 5) {
                    x[i as usize]
                } else {
                    0.0
                }
            })
            .collect()
    };
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = engine(exec_mode);
        let m = engine.compile_str(src).unwrap();
        for k in [-1i64, 0, 2] {
            let args = [
                Value::Tensor(Tensor::from_slice(&[4, 5], &x).unwrap()),
                Value::shape(vec![k]),
            ];
            let out = m.run("main", &args).unwrap();
            let t = out.as_tuple().unwrap().fields().to_vec();
            assert_eq!(
                as_f32(&t[0]),
                tri(&|r, c| c - r >= k),
                "{exec_mode:?} triu k={k}"
            );
            assert_eq!(
                as_f32(&t[1]),
                tri(&|r, c| c - r <= k - 3),
                "{exec_mode:?} tril k={k}"
            );
        }
    }
}

/// `R.strided_slice` with a negative begin on an axis of symbolic extent counts from its end
/// (it indexed before the start of the buffer).
#[test]
fn strided_slice_counts_a_negative_begin_from_a_symbolic_end() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            a: R.Tensor((2, 3), dtype="float32") = R.strided_slice(x, (0,), (-2,), (100,), (1,), assume_inbound=False)
            b: R.Tensor((n, 3), dtype="float32") = R.strided_slice(x, (0,), (-1,), (-100,), (-1,), assume_inbound=False)
            R.output(a, b)
        return (a, b)
"#;
    let x: Vec<f32> = (0..15).map(|v| v as f32).collect();
    let rows = |rs: &[usize]| -> Vec<f32> {
        rs.iter()
            .flat_map(|&r| (0..3).map(move |c| (r * 3 + c) as f32))
            .collect()
    };
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = engine(exec_mode);
        let arg = Value::Tensor(Tensor::from_slice(&[5, 3], &x).unwrap());
        let out = engine
            .compile_str(src)
            .unwrap()
            .run("main", &[arg])
            .unwrap();
        let t = out.as_tuple().unwrap().fields().to_vec();
        assert_eq!(as_f32(&t[0]), rows(&[3, 4]), "{exec_mode:?}");
        assert_eq!(as_f32(&t[1]), rows(&[4, 3, 2, 1, 0]), "{exec_mode:?}");
    }
}

/// Constants of an embedded metadata table that name the same tensor of `b64ndarrays` share
/// one decoded tensor: a table naming one large tensor many times (a few bytes each) must
/// not cost a copy of it per reference, which a small file could grow past any memory.
#[test]
fn embedded_metadata_tensors_are_decoded_once() {
    // A float32 tensor of shape (2,): 1.5, -2.0 (TVM's Tensor::Save bytes, base64).
    let tensor = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAADAPwAAAMA=";
    let refs = vec!["3"; 1000].join(", ");
    let src = format!(
        r#"metadata = tvm.ir.load_json("""{{
  \"root\": 1,
  \"nodes\": [
    {{\"type_key\": \"\"}},
    {{\"type_key\": \"Map\", \"keys\": [\"relax.expr.Constant\"], \"data\": [2]}},
    {{\"type_key\": \"Array\", \"data\": [{refs}, 4]}},
    {{\"type_key\": \"relax.expr.Constant\", \"attrs\": {{\"data\": \"0\", \"span\": \"0\"}}}},
    {{\"type_key\": \"relax.expr.Constant\", \"attrs\": {{\"data\": \"0\", \"span\": \"0\"}}}}
  ],
  \"b64ndarrays\": [\"{tensor}\"],
  \"attrs\": {{\"tvm_version\": \"0.17.dev0\"}}
}}""")
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        a: R.Tensor((2,), dtype="float32") = metadata["relax.expr.Constant"][0]
        b: R.Tensor((2,), dtype="float32") = metadata["relax.expr.Constant"][1000]
        c: R.Tensor((2,), dtype="float32") = R.add(a, b)
        y: R.Tensor((2,), dtype="float32") = R.add(x, c)
        return y
"#
    );
    let m = Engine::parse(&src).unwrap_or_else(|e| panic!("{e}"));
    let main = m.relax_function("main").expect("main");
    let constants: Vec<Tensor> = main
        .body
        .blocks
        .iter()
        .flat_map(|b| &b.bindings)
        .filter_map(|b| match b {
            relaxjit::relax::ir::Binding::Var { value, .. } => match value.kind() {
                relaxjit::relax::ir::ExprKind::Constant(k) => Some(k.data.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let [a, b] = &constants[..] else {
        panic!("expected two constants, got {}", constants.len());
    };
    assert!(
        a.ptr_eq(b),
        "entries 0 and 1000 name the same tensor but were decoded apart"
    );
    let x: Value = Tensor::from_slice(&[2], &[1.0f32, 1.0]).unwrap().into();
    let out = Engine::default()
        .compile_str(&src)
        .unwrap_or_else(|e| panic!("{e}"))
        .run("main", &[x])
        .unwrap();
    assert_eq!(as_f32(&out), [4.0, -3.0]);
}

/// Pooling and convolution windows that cannot produce an output are compile errors naming
/// the cause: a pool size of zero or less (it ran, giving the pad value or 0/0), and a window
/// larger than the padded data (a tensor of negative shape at run time).
#[test]
fn impossible_windows_are_compile_errors() {
    let cases = [
        (
            "(1, 2, 4, 4)",
            r#"R.nn.max_pool2d(x, pool_size=[0, 0], strides=[1, 1], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")"#,
            "pool_size",
        ),
        (
            "(1, 2, 4, 4)",
            r#"R.nn.avg_pool2d(x, pool_size=[-1, 2], strides=[1, 1], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")"#,
            "pool_size",
        ),
        (
            "(1, 2, 4, 4)",
            r#"R.nn.avg_pool2d(x, pool_size=[9, 9], strides=[1, 1], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NHWC", out_layout="NHWC")"#,
            "window is larger",
        ),
        (
            "(1, 2, 4, 4)",
            r#"R.nn.conv2d(x, R.ones(R.shape([3, 2, 3, 9]), dtype="float32"), strides=[1, 1], padding=[0, 1, 0, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")"#,
            "window is larger",
        ),
        (
            "(1, 2, 4, 4)",
            r#"R.nn.conv2d_transpose(x, R.ones(R.shape([2, 3, 1, 1]), dtype="float32"), strides=[1, 1], padding=[5, 5, 5, 5], output_padding=[0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype="float32")"#,
            "window is larger",
        ),
    ];
    for (shape, expr, want) in cases {
        let src = format!(
            "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor({shape}, dtype=\"float32\")):\n        with R.dataflow():\n            y = {expr}\n            R.output(y)\n        return y\n"
        );
        match Engine::default().compile_str(&src) {
            Err(e) => assert!(e.to_string().contains(want), "{expr}: {e}"),
            Ok(_) => panic!("{expr}: compiled"),
        }
    }
}

/// `R.topk` with `k` larger than its axis is a compile error naming both (the struct info
/// promised `k` elements; the kernel then failed with an output shape mismatch).
#[test]
fn topk_larger_than_its_axis_is_a_compile_error() {
    for (shape, k) in [("(2, 0)", 1), ("(3, 4)", 5)] {
        let src = format!(
            "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor({shape}, dtype=\"float32\")):\n        with R.dataflow():\n            y = R.topk(x, k={k}, axis=-1, ret_type=\"values\", largest=True, dtype=\"int32\")\n            R.output(y)\n        return y\n"
        );
        match Engine::default().compile_str(&src) {
            Err(e) => assert!(
                e.to_string().contains(&format!("k = {k} is larger")),
                "{shape}: {e}"
            ),
            Ok(_) => panic!("topk k={k} of {shape}: compiled"),
        }
    }
}

/// `R.reshape` to a shape with `-1` whose other dimensions do not divide the element count
/// is an error (the `-1` was rounded down and the rest of the data dropped: (2, 3) into
/// (4, -1) gave a (4, 1) tensor); so is a new shape whose element count overflows i64.
#[test]
fn reshape_must_keep_every_element() {
    for (target, want) in [
        ("[4, -1]", "6 is not a multiple of 4"),
        ("[4611686018427387904, -1]", "not a multiple"),
        (
            "[4611686018427387905, 4611686018427387905, 6]",
            "more elements than an i64 counts",
        ),
    ] {
        let src = format!(
            "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2, 3), dtype=\"float32\")):\n        with R.dataflow():\n            y = R.reshape(x, R.shape({target}))\n            R.output(y)\n        return y\n"
        );
        match Engine::default().compile_str(&src) {
            Err(e) => assert!(e.to_string().contains(want), "{target}: {e}"),
            Ok(_) => panic!("reshape to {target}: compiled"),
        }
    }
}

/// `R.reshape` to a shape whose element count equals the input's only at run time (a `-1`
/// or a dimension from another tensor) checks it when called: `(7,)` into `(3, -1)` gave a
/// `(3, 2)` tensor (the 7th element dropped) and `(5,)` into `(m,)` with `m = 7` repeated
/// the first elements (the copy wrapped its index around the input). Equal counts still
/// reshape, in every exec mode, with and without fusion.
#[test]
fn a_symbolic_reshape_checks_its_element_count_at_run_time() {
    let module = |target: &str| {
        format!(
            r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("m",), dtype="float32")):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            z = R.reshape(x, R.shape({target}))
            w = R.add(z, R.const(1.0, "float32"))
            R.output(w)
        return w
"#
        )
    };
    let v = |n: usize| -> Value {
        let data: Vec<f32> = (0..n).map(|i| i as f32).collect();
        Tensor::from_slice(&[n as i64], &data).unwrap().into()
    };
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        for fusion in [true, false] {
            let engine = Engine::new(Config {
                exec_mode,
                fusion,
                ..Config::default()
            })
            .unwrap();
            for (target, n, m, ok) in [
                ("[3, -1]", 7, 0, false),
                ("[3, -1]", 9, 0, true),
                ("[3, -1]", 0, 0, true),
                ("[m]", 5, 7, false),
                ("[m]", 7, 5, false),
                ("[m]", 5, 5, true),
                ("[2, m]", 6, 3, true),
                ("[2, m]", 6, 2, false),
            ] {
                let what = format!("{exec_mode:?} fusion={fusion}: ({n},) into {target}, m = {m}");
                let compiled = engine
                    .compile_str(&module(target))
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                match compiled.run("main", &[v(n), v(m)]) {
                    Ok(out) if ok => {
                        let got = as_f32(&out);
                        let want: Vec<f32> = (0..n).map(|i| i as f32 + 1.0).collect();
                        assert_eq!(got, want, "{what}");
                    }
                    Ok(out) => panic!("{what}: want an error, got {out:?}"),
                    Err(e) if !ok => {
                        let e = e.to_string();
                        assert!(e.contains("the element counts differ"), "{what}: {e}");
                    }
                    Err(e) => panic!("{what}: {e}"),
                }
            }
        }
    }
}

/// `R.split` into a number of sections from the text builds one struct info per section: a
/// huge count is an error, not an allocation that aborts the process, and so is a count
/// larger than a static axis (the last part had a negative extent).
#[test]
fn split_section_counts_are_bounded() {
    for (shape, n, want) in [
        ("(2, 0)", "2147483648", "at most 65536"),
        ("(2, 4)", "9223372036854775807", "at most 65536"),
        ("(2, 4)", "9", "cannot be split into 9 sections"),
    ] {
        let src = format!(
            "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor({shape}, dtype=\"float32\")):\n        with R.dataflow():\n            y = R.split(x, indices_or_sections={n}, axis=1)\n            R.output(y)\n        return y\n"
        );
        match Engine::default().compile_str(&src) {
            Err(e) => assert!(e.to_string().contains(want), "{shape} into {n}: {e}"),
            Ok(_) => panic!("split of {shape} into {n}: compiled"),
        }
    }
}

/// Adaptive pooling to an output size from the text compiles in bounded time: the largest
/// window was measured by a loop over every output position at compile time, so an output
/// size of 2^62 hung the compiler. The output is then too large to allocate, which is a
/// run-time error.
#[test]
fn adaptive_pool_output_size_does_not_hang_the_compiler() {
    let src = "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1, 1, 2, 3), dtype=\"float32\")):\n        with R.dataflow():\n            y = R.nn.adaptive_avg_pool2d(x, output_size=[4611686018427387904, 2], layout=\"NCHW\", out_layout=\"NCHW\")\n            R.output(y)\n        return y\n";
    let compiled = Engine::default()
        .compile_str(src)
        .unwrap_or_else(|e| panic!("{e}"));
    let x: Value = Tensor::from_slice(&[1, 1, 2, 3], &[0.0f32; 6])
        .unwrap()
        .into();
    let e = compiled.run("main", &[x]).unwrap_err().to_string();
    assert!(e.contains("too large"), "{e}");
}

/// Average pooling in ceil mode counting the padding (TVM's topi and PyTorch): a window's
/// divisor counts its elements inside the data and the given padding, not the extra rows
/// that ceil mode adds after them. Checked against that formula evaluated here, on the
/// library kernel and the TIR path, in both exec modes.
#[test]
fn ceil_mode_average_pooling_counts_the_given_padding() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 6, 7), dtype="float32")):
        y = R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], ceil_mode=True, count_include_pad=True)
        return y
"#;
    let (h, w, k, s, p) = (6i64, 7i64, 3i64, 2i64, 1i64);
    let x: Vec<f32> = (0..2 * h * w)
        .map(|v| ((v * 7) % 11) as f32 - 5.0)
        .collect();
    let out = |n: i64| (n + 2 * p - k + s - 1) / s + 1;
    let (oh, ow) = (out(h), out(w));
    assert_eq!((oh, ow), (4, 4));
    let mut want = Vec::new();
    for c in 0..2 {
        for i in 0..oh {
            for j in 0..ow {
                let (r0, c0) = (i * s - p, j * s - p);
                let (r1, c1) = ((r0 + k - 1).min(h + p - 1), (c0 + k - 1).min(w + p - 1));
                let mut sum = 0.0f32;
                for r in r0.max(0)..=r1.min(h - 1) {
                    for q in c0.max(0)..=c1.min(w - 1) {
                        sum += x[((c * h + r) * w + q) as usize];
                    }
                }
                want.push(sum / ((r1 - r0 + 1) * (c1 - c0 + 1)) as f32);
            }
        }
    }
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        for library in [true, false] {
            let engine = Engine::new(Config {
                exec_mode,
                library,
                ..Config::default()
            })
            .unwrap();
            let arg = Value::Tensor(Tensor::from_slice(&[1, 2, h, w], &x).unwrap());
            let got = as_f32(
                &engine
                    .compile_str(src)
                    .unwrap()
                    .run("main", &[arg])
                    .unwrap(),
            );
            assert_eq!(got.len(), want.len());
            for (g, e) in got.iter().zip(&want) {
                assert!(
                    (g - e).abs() <= 1e-5,
                    "{exec_mode:?} library {library}: {got:?} != {want:?}"
                );
            }
        }
    }
}

/// `R.reshape` to a shape computed at run time (`R.tensor_to_shape` of a tensor): the
/// runtime's view of the same data, as TVM lowers it; a shape larger than the data is a
/// run-time error naming both shapes.
#[test]
fn reshape_to_a_shape_known_at_run_time() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((256,), dtype="float32"), c0: R.Tensor((2,), dtype="int64"), c1: R.Tensor((2,), dtype="int64")) -> R.Tensor(dtype="float32", ndim=2):
        with R.dataflow():
            lv0: R.Tensor((2,), dtype="int64") = R.add(c0, c0)
            target_shape: R.Tensor((2,), dtype="int64") = R.multiply(lv0, c1)
            lv2: R.Shape(ndim=2) = R.tensor_to_shape(target_shape)
            gv: R.Tensor(dtype="float32", ndim=2) = R.reshape(data, lv2)
            R.output(gv)
        return gv
"#;
    let data: Vec<f32> = (0..256).map(|v| v as f32).collect();
    let args = |c0: [i64; 2], c1: [i64; 2]| {
        vec![
            Value::Tensor(Tensor::from_slice(&[256], &data).unwrap()),
            Value::Tensor(Tensor::from_slice(&[2], &c0).unwrap()),
            Value::Tensor(Tensor::from_slice(&[2], &c1).unwrap()),
        ]
    };
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = engine(exec_mode);
        let m = engine.compile_str(src).unwrap();
        let out = m.run("main", &args([1, 2], [8, 4])).unwrap();
        assert_eq!(out.as_tensor().unwrap().shape(), &[16, 16], "{exec_mode:?}");
        assert_eq!(as_f32(&out), data, "{exec_mode:?}");
        let e = m
            .run("main", &args([5, 5], [8, 7]))
            .expect_err("a view larger than the data")
            .to_string();
        assert!(
            e.contains("[256]") && e.contains("[80, 70]"),
            "{exec_mode:?}: {e}"
        );
    }
}

/// Elementwise operators with an operand that is a prim value known only at run time (an
/// `R.Prim("float32")` parameter, on either side): the kernel takes it as a scalar
/// parameter, as TVM's `call_te` does.
#[test]
fn binary_operators_take_a_prim_value_operand() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Prim("float32")):
        a = R.subtract(x, y)
        b = R.subtract(y, x)
        c = R.less(x, y)
        d = R.maximum(x, y)
        return (a, b, c, d)
"#;
    let x: Vec<f32> = vec![-2.0, -0.5, 0.0, 0.25, 1.0, 3.5];
    let y = 0.25f32;
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = engine(exec_mode);
        let out = engine
            .compile_str(src)
            .unwrap()
            .run(
                "main",
                &[
                    Value::Tensor(Tensor::from_slice(&[2, 3], &x).unwrap()),
                    Value::Float(f64::from(y)),
                ],
            )
            .unwrap();
        let fields = out.as_tuple().unwrap().fields().to_vec();
        let map = |f: fn(f32, f32) -> f32| -> Vec<f32> { x.iter().map(|&v| f(v, y)).collect() };
        assert_eq!(as_f32(&fields[0]), map(|v, y| v - y), "{exec_mode:?}");
        assert_eq!(as_f32(&fields[1]), map(|v, y| y - v), "{exec_mode:?}");
        let less: Vec<bool> = x.iter().map(|&v| v < y).collect();
        let got = fields[2].as_tensor().unwrap();
        let got: Vec<bool> = (0..6).map(|i| got.get_f64(i).unwrap() != 0.0).collect();
        assert_eq!(got, less, "{exec_mode:?}");
        assert_eq!(as_f32(&fields[3]), map(f32::max), "{exec_mode:?}");
    }
}

/// `R.take` of one index that is a prim value known only at run time: the result drops the
/// axis; "clip" and "wrap" normalize the index as for a tensor of indices, and in "fast"
/// mode an index outside the axis is a run-time error rather than a read of a neighbouring
/// row.
#[test]
fn take_of_a_prim_value_index() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32"), index: R.Prim("int64")):
        a = R.take(x, index, axis=1)
        b = R.take(x, index, axis=2, mode="clip")
        c = R.take(x, index, axis=0, mode="wrap")
        return (a, b, c)
"#;
    let x: Vec<f32> = (0..24).map(|v| v as f32).collect();
    let at = |i: usize, j: usize, k: usize| x[(i * 3 + j) * 4 + k];
    let run = |engine: &Engine, index: i64| {
        engine.compile_str(src).unwrap().run(
            "main",
            &[
                Value::Tensor(Tensor::from_slice(&[2, 3, 4], &x).unwrap()),
                Value::Int(index),
            ],
        )
    };
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = engine(exec_mode);
        let out = run(&engine, 2).unwrap();
        let f = out.as_tuple().unwrap().fields().to_vec();
        let a: Vec<f32> = (0..2)
            .flat_map(|i| (0..4).map(move |k| (i, k)))
            .map(|(i, k)| at(i, 2, k))
            .collect();
        let b: Vec<f32> = (0..2)
            .flat_map(|i| (0..3).map(move |j| (i, j)))
            .map(|(i, j)| at(i, j, 2))
            .collect();
        let c: Vec<f32> = (0..3)
            .flat_map(|j| (0..4).map(move |k| (j, k)))
            .map(|(j, k)| at(0, j, k))
            .collect();
        assert_eq!(as_f32(&f[0]), a, "{exec_mode:?}");
        assert_eq!(as_f32(&f[1]), b, "{exec_mode:?}");
        assert_eq!(as_f32(&f[2]), c, "{exec_mode:?}");
        let e = run(&engine, 3)
            .expect_err("index 3 of an axis of 3")
            .to_string();
        assert!(e.contains("outside axis 1"), "{exec_mode:?}: {e}");
        let e = run(&engine, -1)
            .expect_err("index -1 in fast mode")
            .to_string();
        assert!(e.contains("outside axis 1"), "{exec_mode:?}: {e}");
    }
}

/// The Gradient pass's markers (`R.grad.start_checkpoint`, `end_checkpoint`, `no_grad`) and
/// LiftTransformParams's (`R.builtin.stop_lift_params`), as modules written for those passes
/// hold them, read, print back and run as their argument.
#[test]
fn gradient_markers_run_as_their_argument() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            x_scp: R.Tensor((3,), dtype="float32") = R.grad.start_checkpoint(x)
            lv1: R.Tensor((3,), dtype="float32") = R.multiply(x_scp, x_scp)
            lv1_ecp: R.Tensor((3,), dtype="float32") = R.grad.end_checkpoint(lv1)
            lv2: R.Tensor((3,), dtype="float32") = R.grad.no_grad(lv1_ecp)
            lv3: R.Tensor((3,), dtype="float32") = R.builtin.stop_lift_params(lv2)
            gv: R.Tensor((), dtype="float32") = R.sum(lv3, axis=None, keepdims=False)
            R.output(gv)
        return gv
"#;
    let printed = relaxjit::relax::script::print_module(&Engine::parse(src).unwrap());
    for marker in [
        "R.grad.start_checkpoint(x)",
        "R.grad.end_checkpoint(lv1)",
        "R.grad.no_grad(lv1_ecp)",
        "R.builtin.stop_lift_params(lv2)",
    ] {
        assert!(printed.contains(marker), "{marker} not in\n{printed}");
    }
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = engine(exec_mode);
        let x = Value::Tensor(Tensor::from_slice(&[3], &[1.0f32, -2.0, 3.0]).unwrap());
        let out = engine.compile_str(src).unwrap().run("main", &[x]).unwrap();
        assert_eq!(as_f32(&out), vec![14.0], "{exec_mode:?}");
    }
}

/// `R.print` and `R.assert_op` run, as TVM runs them through its Python package's
/// `relax.run.print` / `relax.run.assert_op`: a true assertion passes, a false one is an
/// `AssertionError` with the format applied to the rendered values (numpy's `str` of a
/// tensor), in both exec modes; TVM's printed forms (`format=R.str(…)`, several format
/// arguments as a list) read and print back.
#[test]
fn print_and_assert_op_run() {
    let src = r#"@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), dtype="float32"), flag: R.Prim("bool")) -> R.Tensor((3,), dtype="float32"):
        y: R.Tensor((3,), dtype="float32") = R.add(x, x)
        R.print(y, R.shape([3]), format=R.str("y = {}, shape {}"))
        R.print(format=R.str("a message"))
        c: R.Tensor((), dtype="bool") = R.const(True, "bool")
        R.assert_op(c, y, format=R.str("never {}"))
        R.assert_op(flag, [y, R.prim_value(3)], format=R.str("flag off: y = {} and {}"))
        R.assert_op(flag)
        return y
"#;
    let printed = relaxjit::relax::script::print_module(&Engine::parse(src).unwrap());
    for text in [
        r#"R.print(y, R.shape([3]), format=R.str("y = {}, shape {}"))"#,
        r#"R.assert_op(flag, [y, 3], format=R.str("flag off: y = {} and {}"))"#,
    ] {
        assert!(printed.contains(text), "{text} not in\n{printed}");
    }
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let compiled = engine(exec_mode).compile_str(src).unwrap();
        let x = || Value::Tensor(Tensor::from_slice(&[3], &[1.0f32, -2.5, 3.0]).unwrap());
        let out = compiled.run("main", &[x(), Value::Bool(true)]).unwrap();
        assert_eq!(as_f32(&out), vec![2.0, -5.0, 6.0], "{exec_mode:?}");
        let err = compiled
            .run("main", &[x(), Value::Bool(false)])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("AssertionError: flag off: y = [ 2. -5.  6.] and 3"),
            "{exec_mode:?}: {err}"
        );
    }
}

/// `R.dynamic_strided_slice` with begin, end and strides given at run time: the result
/// shape is found at run time, and the operator after it (an add) is legalized over the
/// fresh dimensions it is match_cast to, as TVM's legalization does. Expected values are
/// numpy's slicing of the same tensor (negative indices, clamping, negative strides, fewer
/// slice axes than the rank, an empty result), in both exec modes; a zero stride and
/// mismatched lengths are errors.
#[test]
fn dynamic_strided_slice_slices_at_run_time() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="int32"), b: R.Tensor(("k",), dtype="int64"), e: R.Tensor(("k",), dtype="int64"), s: R.Tensor(("k",), dtype="int64")) -> R.Tensor(ndim=3, dtype="int32"):
        with R.dataflow():
            y: R.Tensor(ndim=3, dtype="int32") = R.dynamic_strided_slice(x, b, e, s)
            z: R.Tensor(ndim=3, dtype="int32") = R.add(y, y)
            R.output(z)
        return z
"#;
    type Case = (
        &'static [i64],
        &'static [i64],
        &'static [i64],
        &'static [i64],
        &'static [i32],
    );
    let cases: &[Case] = &[
        (
            &[1, -1, 3],
            &[-3, -4, -5],
            &[-1, -1, -2],
            &[2, 3, 2],
            &[46, 42, 38, 34, 30, 26, 22, 18, 14, 10, 6, 2],
        ),
        (&[0, 1, -10], &[5, 10, 10], &[2, 2, 3], &[1, 1, 2], &[8, 14]),
        (&[1, 2], &[0, 0], &[1, 1], &[0, 0, 4], &[]),
        (
            &[-100, 0, 1],
            &[100, 3, 3],
            &[1, 1, 1],
            &[2, 3, 2],
            &[2, 4, 10, 12, 18, 20, 26, 28, 34, 36, 42, 44],
        ),
    ];
    let data: Vec<i32> = (0..24).collect();
    let x = || Value::Tensor(Tensor::from_slice(&[2, 3, 4], &data).unwrap());
    let v = |d: &[i64]| Value::Tensor(Tensor::from_slice(&[d.len() as i64], d).unwrap());
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let compiled = engine(exec_mode).compile_str(src).unwrap();
        for (b, e, s, shape, want) in cases {
            let out = compiled.run("main", &[x(), v(b), v(e), v(s)]).unwrap();
            let Value::Tensor(t) = out else {
                panic!("not a tensor")
            };
            assert_eq!(t.shape(), *shape, "{exec_mode:?} {b:?} {e:?} {s:?}");
            let got: Vec<i32> = (0..t.numel())
                .map(|i| t.get_i64(i).unwrap() as i32)
                .collect();
            assert_eq!(got, *want, "{exec_mode:?} {b:?} {e:?} {s:?}");
        }
        let err = compiled
            .run("main", &[x(), v(&[0]), v(&[2]), v(&[0])])
            .unwrap_err()
            .to_string();
        assert!(err.contains("the stride of axis 0 is 0"), "{err}");
        let err = compiled
            .run(
                "main",
                &[x(), v(&[0, 0, 0, 0]), v(&[1, 1, 1, 1]), v(&[1, 1, 1, 1])],
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("at most the rank 3"), "{err}");
    }
}

/// A local function that calls itself — the way Relax writes a loop (TVM's LambdaLift tests'
/// `while_loop`) — reads, prints back, and runs in both exec modes: one that captures a
/// variable of the enclosing function (a closure over it) and one that captures nothing (a
/// direct call of the lifted global).
#[test]
fn recursive_local_functions_run() {
    let src = r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), n: R.Tensor((), dtype="int32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((), dtype="int32")):
        @R.function
        def while_loop(i: R.Tensor((), dtype="int32"), s: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
            cond: R.Tensor((), dtype="bool") = R.less(i, n)
            if cond:
                new_i: R.Tensor((), dtype="int32") = R.add(i, R.const(1, "int32"))
                new_s: R.Tensor((2, 3), dtype="float32") = R.add(s, x)
                r: R.Tensor((2, 3), dtype="float32") = while_loop(new_i, new_s)
            else:
                r: R.Tensor((2, 3), dtype="float32") = s
            return r

        @R.function
        def triangle(k: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
            done: R.Tensor((), dtype="bool") = R.less_equal(k, R.const(0, "int32"))
            if done:
                t: R.Tensor((), dtype="int32") = R.const(0, "int32")
            else:
                rest: R.Tensor((), dtype="int32") = triangle(R.subtract(k, R.const(1, "int32")))
                t: R.Tensor((), dtype="int32") = R.add(k, rest)
            return t

        gv: R.Tensor((2, 3), dtype="float32") = while_loop(R.const(0, "int32"), x)
        tv: R.Tensor((), dtype="int32") = triangle(n)
        return (gv, tv)
"#;
    let module = Engine::parse(src).unwrap();
    let printed = relaxjit::relax::script::print_module(&module);
    let reparsed = Engine::parse(&printed).unwrap();
    assert!(
        relaxjit::relax::structural_equal(&module, &reparsed),
        "{printed}"
    );
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let compiled = engine(exec_mode).compile_str(src).unwrap();
        let x =
            Value::Tensor(Tensor::from_slice(&[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap());
        let n = Value::Tensor(Tensor::from_slice(&[], &[4i32]).unwrap());
        let out = compiled.run("main", &[x, n]).unwrap();
        let Value::Tuple(t) = out else {
            panic!("not a tuple")
        };
        // s = x, then x added n = 4 more times.
        assert_eq!(
            as_f32(&t.fields()[0]),
            vec![5.0, 10.0, 15.0, 20.0, 25.0, 30.0],
            "{exec_mode:?}"
        );
        let Value::Tensor(tv) = &t.fields()[1] else {
            panic!("not a tensor")
        };
        assert_eq!(tv.get_i64(0), Some(10), "{exec_mode:?}");
    }
}

/// A module declaring extern functions (`name = R.ExternFunc("symbol")`, as TVM prints a
/// module holding `relax.ExternFunc`s) whose `main` calls one through `cls`.
fn extern_module(symbol: &str) -> String {
    format!(
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    halve = R.ExternFunc("{symbol}", R.Callable((R.Tensor((2, 3), dtype="float32"),), R.Tensor((2, 3), dtype="float32"), True))
    unused = R.ExternFunc("test.extern.never_registered")
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        h: R.Tensor((2, 3), dtype="float32") = cls.halve(x)
        y: R.Tensor((2, 3), dtype="float32") = R.add(h, x)
        return y
"#
    )
}

#[test]
fn extern_functions_call_the_packed_function_of_their_name() {
    vm::Registry::global().register_fn("test.extern.halve", |args| {
        let x = args[0].as_tensor()?.to_vec::<f32>()?;
        let half: Vec<f32> = x.iter().map(|v| v / 2.0).collect();
        Ok(Tensor::from_slice(&[2, 3], &half)?.into())
    });
    let src = extern_module("test.extern.halve");
    let x: Value = Tensor::from_slice(&[2, 3], &[2.0f32, 4.0, 6.0, 8.0, 10.0, 12.0])
        .unwrap()
        .into();
    for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let out = engine(mode)
            .compile_str(&src)
            .unwrap()
            .run("main", std::slice::from_ref(&x))
            .unwrap();
        assert_eq!(as_f32(&out), [3.0, 6.0, 9.0, 12.0, 15.0, 18.0], "{mode:?}");
    }
}

#[test]
fn a_missing_extern_function_is_an_error_naming_it() {
    let src = extern_module("test.extern.missing");
    for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let msg = match engine(mode).compile_str(&src) {
            Err(e) => e.to_string(),
            Ok(m) => m
                .run(
                    "main",
                    &[Tensor::zeros(&[2, 3], vm::DataType::F32).unwrap().into()],
                )
                .expect_err("a call of an unregistered packed function")
                .to_string(),
        };
        assert!(msg.contains("test.extern.missing"), "{mode:?}: {msg}");
    }
}
