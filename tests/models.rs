//! The benchmark models of `models/` (SqueezeNet 1.0 and ResNet-50, TVM's imports of the ONNX
//! light-zoo files, weights as metadata constants): each compiles with the default `Engine`
//! and reproduces onnxruntime's output for its case's input, within the case's tolerances.

use std::path::{Path, PathBuf};

use relaxjit::Engine;
use support::bytecode_mode::{Input, run_case};
use support::case::Case;

fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models")
}

fn check(name: &str) {
    let case = Case::load(&models_dir().join(name)).expect("the model's case loads");
    let outcome = run_case(&Engine::default(), &case, Input::Module);
    if let Err(e) = outcome.result {
        panic!("{name}: {e}");
    }
}

#[test]
fn squeezenet_matches_onnxruntime() {
    check("squeezenet");
}

#[test]
fn resnet50_matches_onnxruntime() {
    check("resnet50");
}
