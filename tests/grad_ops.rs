//! The backward operators of `R.grad.*` (`nll_loss_backward`, `max_pool2d_backward`,
//! `avg_pool2d_backward`, `take_backward`): the cases of `grad_ops/` (conformance corpus
//! format; expected values from the numpy reference of `grad_ops/generate.py`) print back as
//! TVM prints them and run in both exec modes, compiled giving bit for bit what bytecode
//! gives; programs the operators cannot take fail to compile with an error naming the problem.

use std::path::Path;

use relaxjit::{Config, Engine, ExecMode};
use support::bytecode_mode::{Input, run_corpus_both};

fn cases_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grad_ops")
}

fn engine(exec_mode: ExecMode) -> Engine {
    Engine::new(Config {
        exec_mode,
        ..Config::default()
    })
    .expect("an engine")
}

#[test]
fn cases_match_the_numpy_reference_in_both_modes() {
    let report = run_corpus_both(
        &engine(ExecMode::Bytecode),
        &engine(ExecMode::Compiled),
        &cases_dir(),
        Input::Module,
    )
    .expect("the cases load");
    println!("{report}");
    assert!(report.report.passed >= 26, "cases missing: {report}");
    assert!(
        report.report.failures.is_empty(),
        "{:?}",
        report.report.failures
    );
}

/// Each `module.py` is written as TVM prints the module: parsing and printing gives it back.
#[test]
fn modules_print_as_tvm_prints_them() {
    let mut n = 0;
    for entry in std::fs::read_dir(cases_dir()).expect("the cases folder") {
        let path = entry.expect("an entry").path().join("module.py");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let module = Engine::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let printed = relax::script::print_module(&module);
        assert_eq!(printed, text, "{}", path.display());
        n += 1;
    }
    assert!(n >= 26, "only {n} modules");
}

/// What TVM stores when the attributes are left out or given in a short form: the defaults
/// of TVM's Python functions, `out_layout` from `layout`, padding as given, and the empty
/// `mode` of `take_backward`'s attributes.
#[test]
fn defaults_print_as_tvm_stores_them() {
    let cases = [
        (
            "R.grad.nll_loss_backward(g, p, t)",
            "R.grad.nll_loss_backward(g, p, t, reduction=\"mean\", ignore_index=-100)",
        ),
        (
            "R.grad.max_pool2d_backward(g, x, pool_size=[2, 2], padding=[1, 1])",
            "R.grad.max_pool2d_backward(g, x, pool_size=[2, 2], strides=[1, 1], dilation=[1, 1], \
             padding=[1, 1], ceil_mode=False, count_include_pad=False, layout=\"NCHW\", \
             out_layout=\"NCHW\")",
        ),
        (
            "R.grad.avg_pool2d_backward(g, x, [2, 2], layout=\"NHWC\")",
            "R.grad.avg_pool2d_backward(g, x, pool_size=[2, 2], strides=[1, 1], dilation=[1, 1], \
             padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout=\"NHWC\", \
             out_layout=\"NHWC\")",
        ),
        (
            "R.grad.take_backward(g, x, t, axis=1)",
            "R.grad.take_backward(g, x, t, axis=1, mode=\"\")",
        ),
        (
            "R.grad.take_backward(g, x, t)",
            "R.grad.take_backward(g, x, t, axis=None, mode=\"\")",
        ),
    ];
    for (call, want) in cases {
        let src = format!(
            "@I.ir_module\nclass Module:\n    @R.function\n    def main(g: R.Tensor((2, 3), \
             dtype=\"float32\"), p: R.Tensor((2, 4, 3), dtype=\"float32\"), t: R.Tensor((2, 3), \
             dtype=\"int64\"), x: R.Tensor((1, 1, 4, 4), dtype=\"float32\")):\n        gv = \
             {call}\n        return gv\n"
        );
        let module = Engine::parse(&src).unwrap_or_else(|e| panic!("{call}: {e}"));
        let printed = relax::script::print_module(&module);
        assert!(printed.contains(want), "{call} printed as\n{printed}");
    }
}

/// A module `gv = CALL` over parameters `PARAMS` (`name: R.Tensor(...)`, ...), the result
/// annotated as `OUT`.
fn module(params: &str, call: &str, out: &str) -> String {
    format!(
        "@I.ir_module\nclass Module:\n    @R.function\n    def main({params}) -> {out}:\n        \
         gv: {out} = {call}\n        return gv\n"
    )
}

/// Programs that the operators cannot take: each fails to compile, with a message naming the
/// problem; never a panic.
#[test]
fn bad_input_is_a_clear_error() {
    let f = |s: &str| format!("R.Tensor({s}, dtype=\"float32\")");
    let i = |s: &str| format!("R.Tensor({s}, dtype=\"int64\")");
    let pool = "pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0]";
    let cases: Vec<(String, &str)> = vec![
        (
            module(
                &format!(
                    "g: {}, x: {}, t: R.Tensor((2,), dtype=\"float32\")",
                    f("(3, 2)"),
                    f("(3, 4)")
                ),
                "R.grad.take_backward(g, x, t, axis=1)",
                &f("(3, 4)"),
            ),
            "`indices` must be an integer tensor, got dtype float32",
        ),
        (
            module(
                &format!("g: {}, x: {}, t: {}", f("(3, 3)"), f("(3, 4)"), i("(2,)")),
                "R.grad.take_backward(g, x, t, axis=1)",
                &f("(3, 4)"),
            ),
            "`output_grad` has shape (3, 3), expected (3, 2)",
        ),
        (
            module(
                &format!("g: {}, x: {}, t: {}", f("(3, 2)"), f("(3, 4)"), i("(2,)")),
                "R.grad.take_backward(g, x, t, axis=2)",
                &f("(3, 4)"),
            ),
            "`axis` 2 is outside the 2 dimensions of `x`",
        ),
        (
            module(
                &format!("g: {}, x: {}, t: {}", f("(3, 2)"), f("(3, 4)"), i("(2,)")),
                "R.grad.take_backward(g, x, t, axis=1, mode=\"clip\")",
                &f("(3, 4)"),
            ),
            "mode \"clip\"",
        ),
        (
            module(
                &format!(
                    "g: R.Tensor((3, 2), dtype=\"float64\"), x: {}, t: {}",
                    f("(3, 4)"),
                    i("(2,)")
                ),
                "R.grad.take_backward(g, x, t, axis=1)",
                &f("(3, 4)"),
            ),
            "`output_grad` has dtype float64, expected float32",
        ),
        (
            module(
                &format!("g: {}, x: {}", f("(1, 1, 2, 2)"), f("(1, 1, 4, 4)")),
                "R.grad.max_pool2d_backward(g, x, pool_size=[2, 2], strides=[2, 2], dilation=[2, 2], padding=[0, 0, 0, 0])",
                &f("(1, 1, 4, 4)"),
            ),
            "dilation [2, 2]: TVM's pool_grad supports only [1, 1]",
        ),
        (
            module(
                &format!("g: {}, x: {}", f("(1, 1, 2, 2)"), f("(1, 1, 4, 4)")),
                "R.grad.max_pool2d_backward(g, x, [2, 2], [2, 2], [0, 0, 0, 0], [1, 1])",
                &f("(1, 1, 4, 4)"),
            ),
            "pass them by keyword",
        ),
        (
            module(
                &format!("g: {}, x: {}", f("(1, 1, 3, 2)"), f("(1, 1, 4, 4)")),
                &format!("R.grad.avg_pool2d_backward(g, x, {pool})"),
                &f("(1, 1, 4, 4)"),
            ),
            "`output_grad` has shape (1, 1, 3, 2), expected (1, 1, 2, 2)",
        ),
        (
            module(
                &format!("g: {}, x: {}", f("(1, 1, 2, 2)"), f("(1, 1, 4, 4)")),
                "R.grad.avg_pool2d_backward(g, x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1])",
                &f("(1, 1, 4, 4)"),
            ),
            "`padding` must have 4 values (top, left, bottom, right), got [1, 1]",
        ),
        (
            module(
                &format!("g: {}, x: {}", i("(1, 1, 2, 2)"), i("(1, 1, 4, 4)")),
                &format!("R.grad.max_pool2d_backward(g, x, {pool})"),
                &i("(1, 1, 4, 4)"),
            ),
            "`data` must be a float tensor, got dtype int64",
        ),
        (
            module(
                &format!("g: {}, x: {}", f("(1, 2, 2)"), f("(1, 4, 4)")),
                &format!("R.grad.max_pool2d_backward(g, x, {pool})"),
                &f("(1, 4, 4)"),
            ),
            "`data` has rank 3, but layout \"NCHW\" has 4 dimensions",
        ),
        (
            module(
                &format!("g: {}, x: {}", f("(1, 1, 2, 2, 4)"), f("(1, 1, 4, 4, 4)")),
                &format!("R.grad.max_pool2d_backward(g, x, {pool}, layout=\"NCHW4h\")"),
                &f("(1, 1, 4, 4, 4)"),
            ),
            "layout \"NCHW4h\"",
        ),
        (
            module(
                &format!("g: {}, x: {}", f("(1, 1, 1, 1)"), f("(1, 1, 2, 2)")),
                "R.grad.max_pool2d_backward(g, x, pool_size=[3, 3])",
                &f("(1, 1, 2, 2)"),
            ),
            "the pool [3, 3] is larger than the padded data",
        ),
        (
            module(
                &format!("g: {}, p: {}, t: {}", f("()"), f("(2, 4)"), f("(2,)")),
                "R.grad.nll_loss_backward(g, p, t)",
                &f("(2, 4)"),
            ),
            "`targets` must be an integer tensor, got dtype float32",
        ),
        (
            module(
                &format!(
                    "g: {}, p: {}, t: {}, w: {}",
                    f("()"),
                    f("(2, 4)"),
                    i("(2,)"),
                    f("(3,)")
                ),
                "R.grad.nll_loss_backward(g, p, t, w)",
                &f("(2, 4)"),
            ),
            "`weights` has shape (3,), expected (4,) (one per class)",
        ),
        (
            module(
                &format!("g: {}, p: {}, t: {}", f("()"), f("(2, 4)"), i("(2,)")),
                "R.grad.nll_loss_backward(g, p, t, reduction=\"avg\")",
                &f("(2, 4)"),
            ),
            "`reduction` must be \"none\", \"sum\" or \"mean\", got \"avg\"",
        ),
        (
            module(
                &format!("g: {}, p: {}, t: {}", f("()"), f("(2, 4, 3)"), i("(2,)")),
                "R.grad.nll_loss_backward(g, p, t)",
                &f("(2, 4, 3)"),
            ),
            "`targets` has shape (2,), expected (2, 3)",
        ),
        (
            module(
                &format!("g: {}, p: {}, t: {}", f("()"), f("(2, 4)"), i("(2,)")),
                "R.grad.nll_loss_backward(g, p, t, reduction=\"none\")",
                &f("(2, 4)"),
            ),
            "`output_grad` has shape (), expected (2,)",
        ),
        (
            module(
                &format!("g: {}, p: {}, t: {}", f("(3,)"), f("(2, 4)"), i("(2,)")),
                "R.grad.nll_loss_backward(g, p, t, reduction=\"sum\")",
                &f("(2, 4)"),
            ),
            "`output_grad` of shape (3,) does not broadcast to the targets' shape (2,)",
        ),
    ];
    for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let engine = engine(mode);
        for (src, want) in &cases {
            match engine.compile_str(src) {
                Ok(_) => panic!("{mode:?}: compiled:\n{src}"),
                Err(e) => {
                    let msg = e.to_string();
                    assert!(
                        msg.contains(want),
                        "{mode:?}: `{msg}` lacks `{want}`:\n{src}"
                    );
                }
            }
        }
    }
}

/// Symbolic dimensions outside the pooled ones, and an index tensor of unknown length: the
/// kernels take them, and check `output_grad`'s run-time shape.
#[test]
fn symbolic_shapes_are_checked_when_the_kernel_runs() {
    use relaxjit::{Tensor, Value};
    let src = "@I.ir_module\nclass Module:\n    @R.function\n    def main(g: R.Tensor((\"n\", \"m\"), \
               dtype=\"float32\"), x: R.Tensor((\"n\", 3), dtype=\"float32\"), t: \
               R.Tensor((\"k\",), dtype=\"int64\")) -> R.Tensor((\"n\", 3), dtype=\"float32\"):\n        \
               n = T.int64()\n        gv: R.Tensor((n, 3), dtype=\"float32\") = \
               R.grad.take_backward(g, x, t, axis=1)\n        return gv\n";
    for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let m = engine(mode).compile_str(src).expect("compiles");
        let g = Tensor::from_slice(&[2, 3], &[1.0f32, 2.0, 4.0, 8.0, 16.0, 32.0]).unwrap();
        let x = Tensor::from_slice(&[2, 3], &[0.0f32; 6]).unwrap();
        let t = Tensor::from_slice(&[3], &[2i64, 0, 2]).unwrap();
        let y = m
            .run(
                "main",
                &[Value::Tensor(g), Value::Tensor(x.clone()), Value::Tensor(t)],
            )
            .expect("runs");
        let Value::Tensor(y) = y else {
            panic!("not a tensor")
        };
        assert_eq!(y.to_vec::<f32>().unwrap(), [2.0, 0.0, 5.0, 16.0, 0.0, 40.0]);
        // output_grad (2, 2) for 3 indices.
        let g = Tensor::from_slice(&[2, 2], &[1.0f32; 4]).unwrap();
        let t = Tensor::from_slice(&[3], &[2i64, 0, 2]).unwrap();
        let e = m
            .run(
                "main",
                &[Value::Tensor(g), Value::Tensor(x), Value::Tensor(t)],
            )
            .expect_err("a mismatched output_grad");
        let msg = e.to_string();
        println!("{mode:?}: {msg}");
        assert!(msg.contains("take_backward"), "{mode:?}: {msg}");
    }
}

/// An index outside the axis (or the flat size) is an error of the kernel naming the bounds
/// it broke, where TVM's kernel writes outside the result; likewise a target outside the
/// classes of `nll_loss_backward`.
#[test]
fn indices_outside_the_tensor_are_run_time_errors() {
    use relaxjit::{Tensor, Value};
    let take = |axis: &str, x: &[i64], ind: &[i64], g: &[i64]| {
        let ty = |s: &[i64], dt: &str| {
            let d: Vec<String> = s.iter().map(i64::to_string).collect();
            let comma = if s.len() == 1 { "," } else { "" };
            format!("R.Tensor(({}{comma}), dtype=\"{dt}\")", d.join(", "))
        };
        let src = module(
            &format!(
                "g: {}, x: {}, t: {}",
                ty(g, "float32"),
                ty(x, "float32"),
                ty(ind, "int64")
            ),
            &format!("R.grad.take_backward(g, x, t, axis={axis})"),
            &ty(x, "float32"),
        );
        (src, x.to_vec(), ind.to_vec(), g.to_vec())
    };
    let cases = [
        (take("1", &[2, 3], &[2], &[2, 2]), vec![0i64, 3]),
        (take("1", &[2, 3], &[2], &[2, 2]), vec![-1, 0]),
        (take("None", &[2, 3], &[2], &[2]), vec![6, 0]),
        (take("None", &[2, 3], &[2], &[2]), vec![0, -1]),
    ];
    for mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        for ((src, x, ind, g), index) in &cases {
            let m = engine(mode).compile_str(src).expect("compiles");
            let zeros = |s: &[i64]| {
                let n = s.iter().product::<i64>() as usize;
                Value::Tensor(Tensor::from_slice(s, &vec![1.0f32; n]).unwrap())
            };
            let t = Value::Tensor(Tensor::from_slice(ind, index).unwrap());
            let e = m
                .run("main", &[zeros(g), zeros(x), t])
                .expect_err("an index outside x");
            let msg = e.to_string();
            assert!(msg.contains("out of bounds"), "{mode:?} {index:?}: {msg}");
        }
        let src = module(
            "g: R.Tensor((), dtype=\"float32\"), p: R.Tensor((2, 3), dtype=\"float32\"), t: R.Tensor((2,), dtype=\"int64\")",
            "R.grad.nll_loss_backward(g, p, t, reduction=\"sum\", ignore_index=-1)",
            "R.Tensor((2, 3), dtype=\"float32\")",
        );
        let m = engine(mode).compile_str(&src).expect("compiles");
        let g = Value::Tensor(Tensor::from_slice(&[], &[1.0f32]).unwrap());
        let p = Value::Tensor(Tensor::from_slice(&[2, 3], &[0.0f32; 6]).unwrap());
        let t = Value::Tensor(Tensor::from_slice(&[2], &[1i64, 3]).unwrap());
        let e = m
            .run("main", &[g, p, t])
            .expect_err("a target outside the classes");
        let msg = e.to_string();
        assert!(msg.contains("out of bounds"), "{mode:?}: {msg}");
    }
}
