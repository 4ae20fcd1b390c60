//! The benchmark models of `models/` (SqueezeNet 1.0 and ResNet-50, TVM's imports of the ONNX
//! light-zoo files, weights as metadata constants): each compiles with the default `Engine`
//! and reproduces onnxruntime's output for its case's input, within the case's tolerances;
//! SqueezeNet in compiled exec mode too (ResNet-50's compile is the slow part of this test, so
//! it runs once).

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
