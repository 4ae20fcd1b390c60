//! The benchmark models of `models/` (SqueezeNet 1.0 and ResNet-50, TVM's imports of the ONNX
//! light-zoo files, weights as metadata constants): each compiles with the default `Engine`
//! and reproduces onnxruntime's output for its case's input, within the case's tolerances;
//! SqueezeNet in compiled exec mode too (ResNet-50's compile is the slow part of this test, so
//! it runs once); in steady state, calls of either take no new storage from the system.

use std::path::{Path, PathBuf};

use relaxjit::{Config, Engine, ExecMode};
use support::bytecode_mode::{Input, run_case};
use support::case::Case;

fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models")
}

fn check(name: &str, exec_mode: ExecMode) {
    let case = Case::load(&models_dir().join(name)).expect("the model's case loads");
    let engine = Engine::new(Config {
        exec_mode,
        ..Config::default()
    })
    .expect("a valid configuration");
    let outcome = run_case(&engine, &case, Input::Module);
    if let Err(e) = outcome.result {
        panic!("{name} ({exec_mode:?}): {e}");
    }
}

#[test]
fn squeezenet_matches_onnxruntime() {
    check("squeezenet", ExecMode::Bytecode);
}

#[test]
fn squeezenet_compiled_matches_onnxruntime() {
    check("squeezenet", ExecMode::Compiled);
}

#[test]
fn resnet50_matches_onnxruntime() {
    check("resnet50", ExecMode::Bytecode);
}

/// In steady state a model's call takes no new storage from the system for its
/// intermediates: every storage the first call allocated goes back to the VM's pool and is
/// reused by the next calls, in both exec modes.
fn check_steady_state_storage(name: &str) {
    let case = Case::load(&models_dir().join(name)).expect("the model's case loads");
    let src = std::fs::read_to_string(case.file("module.py")).expect("module.py reads");
    let metadata = case.metadata.get("module.py").cloned().unwrap_or_default();
    let call = &case.calls[0];
    for exec_mode in [ExecMode::Bytecode, ExecMode::Compiled] {
        let compiled = Engine::new(Config {
            exec_mode,
            ..Config::default()
        })
        .expect("a valid configuration")
        .compile_str_with_metadata(&src, metadata.clone())
        .expect("the model compiles");
        let vm = compiled.vm().expect("the module links");
        let (allocator, _) = vm.core().host_allocator();
        drop(compiled.invoke(&vm, &call.function, &call.inputs).unwrap());
        let warm = allocator.system_allocations();
        assert!(
            warm > 0,
            "{name} ({exec_mode:?}): the first call allocates its storage"
        );
        for n in 2..5 {
            drop(compiled.invoke(&vm, &call.function, &call.inputs).unwrap());
            assert_eq!(
                allocator.system_allocations(),
                warm,
                "{name} ({exec_mode:?}): call {n} took new storage from the system"
            );
        }
    }
}

#[test]
fn squeezenet_steady_state_calls_take_no_new_storage() {
    check_steady_state_storage("squeezenet");
}

#[test]
fn resnet50_steady_state_calls_take_no_new_storage() {
    check_steady_state_storage("resnet50");
}
