//! The compile budget (`jit::code::MAX_CLIF_INSTRUCTIONS`): a function with more Cranelift
//! instructions than the budget is refused before Cranelift starts on it — a kernel with an
//! error naming the kernel, its size and the budget; a Relax function in compiled exec mode
//! stays bytecode (listed in `CompiledModule::fallbacks` with the same reason) and runs as the
//! interpreter runs it — and the budget stays at least 20 times above the largest function of
//! the benchmark models and of the conformance corpus.

use std::path::Path;
use std::sync::Arc;

use relaxjit::jit::code::MAX_CLIF_INSTRUCTIONS;
use relaxjit::jit::kernel::{CompileOptions, KernelLibrary};
use relaxjit::jit::{self, vmtir};
use relaxjit::vm::{Library, VirtualMachine};
use relaxjit::{Config, Engine, ExecMode, Tensor, Value, relax, tir, vm};
use support::case::{Case, default_corpus_dir, load_corpus};

/// The largest function of one kind: its size in Cranelift instructions and where it is.
#[derive(Debug, Default)]
struct Largest {
    instructions: usize,
    function: String,
}

impl Largest {
    fn see(&mut self, instructions: usize, function: impl FnOnce() -> String) {
        if instructions > self.instructions {
            *self = Largest {
                instructions,
                function: function(),
            };
        }
    }
}

/// The lowered module's bytecode and its kernels, compiled by `engine`'s pipeline.
fn lower(
    engine: &Engine,
    module: &relax::IRModule,
) -> (vm::Executable, Vec<tir::PrimFunc>, KernelLibrary) {
    let lowered = engine.lower(module).expect("the module lowers");
    let (exec, prim_funcs) = relax::codegen::codegen(&lowered).expect("VMCodeGen");
    let funcs: Vec<tir::PrimFunc> = prim_funcs.prim_funcs().map(|(_, f)| f.clone()).collect();
    let kernels = KernelLibrary::compile(&funcs).expect("the kernels compile");
    (exec, funcs, kernels)
}

/// Measures every kernel and every compiled Relax function of `module` (`what` names it).
fn measure(what: &str, module: &relax::IRModule, kernels: &mut Largest, functions: &mut Largest) {
    let (exec, funcs, library) = lower(&Engine::default(), module);
    for f in &funcs {
        let n = jit::kernel::clif_instructions(f, CompileOptions::default())
            .expect("the kernel translates");
        kernels.see(n, || format!("{what}: kernel `{}`", f.name));
    }
    for (name, n) in vmtir::clif_instructions(&exec, &library).expect("the executable validates") {
        functions.see(n, || format!("{what}: `__vmtir__{name}`"));
    }
}

fn parse_case(case: &Case, file: &str) -> relax::IRModule {
    let src = std::fs::read_to_string(case.file(file)).expect("the case's module reads");
    let metadata = case.metadata.get(file).cloned().unwrap_or_default();
    Engine::parse_with_metadata(&src, metadata).expect("the case's module parses")
}

/// The budget is generous: at least 20 times the largest kernel and the largest compiled
/// Relax function of the benchmark models (SqueezeNet, ResNet-50) and of every conformance
/// case, so that no real model comes near it.
#[test]
fn the_budget_is_twenty_times_the_largest_real_function() {
    let mut kernels = Largest::default();
    let mut functions = Largest::default();
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models");
    for name in ["squeezenet", "resnet50"] {
        let case = Case::load(&models.join(name)).expect("the model's case loads");
        measure(
            name,
            &parse_case(&case, "module.py"),
            &mut kernels,
            &mut functions,
        );
    }
    for case in load_corpus(&default_corpus_dir()).expect("the corpus loads") {
        if !case.pre_passes.is_empty() {
            continue;
        }
        for file in ["module.py", "legalized.py"] {
            if case.file(file).is_file() {
                measure(
                    &format!("{}/{file}", case.name),
                    &parse_case(&case, file),
                    &mut kernels,
                    &mut functions,
                );
            }
        }
    }
    for (kind, largest) in [
        ("kernel", &kernels),
        ("compiled Relax function", &functions),
    ] {
        eprintln!(
            "largest {kind}: {} ({} Cranelift instructions)",
            largest.function, largest.instructions
        );
        assert!(
            largest.instructions > 0 && largest.instructions * 20 <= MAX_CLIF_INSTRUCTIONS,
            "the largest {kind}, {}, has {} instructions: the budget of {MAX_CLIF_INSTRUCTIONS} is not 20 times that",
            largest.function,
            largest.instructions
        );
    }
}

const ADD_KERNEL: &str = r#"
@T.prim_func
def add4(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32"), c: T.Buffer((4,), "float32")):
    T.func_attr({"global_symbol": "add4", "tir.noalias": True})
    for i in range(4):
        c[i] = a[i] + b[i]
"#;

/// A kernel over the budget is an error naming it, its size and the budget, before Cranelift
/// compiles it; under the budget the same kernel compiles.
#[test]
fn a_kernel_over_the_budget_is_an_error_naming_it() {
    let funcs = tir::parse_module_prim_funcs(ADD_KERNEL).unwrap();
    let size = jit::kernel::clif_instructions(&funcs[0], CompileOptions::default()).unwrap();
    let options = CompileOptions {
        // Not a function this process compiled before (which would be reused as it is).
        contract_fma: false,
        ..CompileOptions::default()
    };
    let budget = 10;
    match KernelLibrary::compile_within(&funcs, options, budget) {
        Err(jit::Error::TooLarge {
            function,
            instructions,
            limit,
        }) => {
            assert_eq!(function, "add4");
            assert!(instructions > budget, "{instructions}");
            assert_eq!(limit, budget);
            let message = jit::Error::TooLarge {
                function,
                instructions,
                limit,
            }
            .to_string();
            assert!(
                message.contains("`add4`")
                    && message.contains(&format!("{instructions} Cranelift instructions"))
                    && message.contains("compile budget of 10"),
                "{message}"
            );
        }
        other => panic!("expected TooLarge, got {:?}", other.map(|_| ())),
    }
    KernelLibrary::compile_within(&funcs, options, size).expect("within the budget it compiles");
}

/// `main` adds `x` to itself `n` times (one kernel call per binding, with fusion off); `small`
/// once.
fn chain_module(n: usize) -> String {
    let mut s = String::from(
        "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    @R.function\n    def small(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n        y = R.add(x, x)\n        return y\n\n    @R.function\n    def main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n        y0 = R.add(x, x)\n",
    );
    for i in 1..n {
        s += &format!("        y{i} = R.add(y{}, x)\n", i - 1);
    }
    s += &format!("        return y{}\n", n - 1);
    s
}

fn unfused(exec_mode: ExecMode) -> Engine {
    Engine::new(Config {
        exec_mode,
        fusion: false,
        ..Config::default()
    })
    .unwrap()
}

fn x4() -> Vec<Value> {
    vec![
        Tensor::from_slice(&[4], &[1.0f32, 2.0, 3.0, 4.0])
            .unwrap()
            .into(),
    ]
}

/// In compiled exec mode a Relax function over the budget stays bytecode, its fallback reason
/// naming its size and the budget; the functions under it are compiled, and both run as the
/// interpreter runs them.
#[test]
fn a_relax_function_over_the_budget_stays_bytecode() {
    let module = Engine::parse(&chain_module(40)).unwrap();
    let (exec, _, kernels) = lower(&unfused(ExecMode::Bytecode), &module);
    let sizes = vmtir::clif_instructions(&exec, &kernels).unwrap();
    let size = |f: &str| sizes.iter().find(|(n, _)| n == f).unwrap().1;
    let (small, main) = (size("small"), size("main"));
    assert!(main > small, "{sizes:?}");
    let compiled = vmtir::compile_within(&exec, &kernels, small).unwrap();
    assert_eq!(compiled.compiled().collect::<Vec<_>>(), ["small"]);
    assert_eq!(compiled.fallbacks.len(), 1, "{:?}", compiled.fallbacks);
    let fallback = &compiled.fallbacks[0];
    assert_eq!(fallback.function, "main");
    assert!(
        fallback.reason.contains("`__vmtir__main`")
            && fallback
                .reason
                .contains(&format!("{main} Cranelift instructions"))
            && fallback
                .reason
                .contains(&format!("compile budget of {small}")),
        "{}",
        fallback.reason
    );
    let run = |exec: vm::Executable, with_compiled: bool, f: &str| {
        let mut lib = Library::new();
        kernels.add_for(&mut lib, &exec);
        if with_compiled {
            compiled.add_to(&mut lib);
        }
        let vm = VirtualMachine::with_library(Arc::new(exec), &lib).unwrap();
        vm.invoke(f, &x4())
            .unwrap()
            .as_tensor()
            .unwrap()
            .to_vec::<f32>()
            .unwrap()
    };
    for f in ["main", "small"] {
        let want = run(exec.clone(), false, f);
        assert_eq!(run((*compiled.executable).clone(), true, f), want, "{f}");
    }
    assert_eq!(run(exec.clone(), false, "main"), [41.0, 82.0, 123.0, 164.0]);
}

/// Through the engine, at the default budget: a Relax function too large for it compiles in
/// compiled exec mode as bytecode instead of holding the compile, and runs.
#[test]
fn the_engine_leaves_a_relax_function_over_the_default_budget_to_bytecode() {
    let n = 20_000;
    let compiled = unfused(ExecMode::Compiled)
        .compile_str(&chain_module(n))
        .unwrap();
    let fallbacks = compiled.fallbacks();
    assert_eq!(fallbacks.len(), 1, "{fallbacks:?}");
    assert_eq!(fallbacks[0].function, "main");
    assert!(
        fallbacks[0]
            .reason
            .contains(&format!("compile budget of {MAX_CLIF_INSTRUCTIONS}")),
        "{}",
        fallbacks[0].reason
    );
    let out = compiled.run("main", &x4()).unwrap();
    let want: Vec<f32> = [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .map(|x| x * (n + 1) as f32)
        .collect();
    assert_eq!(out.as_tensor().unwrap().to_vec::<f32>().unwrap(), want);
}
