//! Kernels in our own code memory: structurally identical PrimFuncs compile once per process
//! whatever module they come from, every module still gets all its code in one blob, and a
//! library rebuilt from that blob and the kernels' metadata (as the artifact cache does) runs
//! the same and fails with the same messages.

use relaxjit_jit::kernel::{CompileOptions, KernelLibrary};
use vm::{Tensor, Value};

/// A module with `C = A * k + B` over 64 elements and a second kernel, in `pad` spaces of
/// indentation inside the class (different text, same PrimFuncs).
fn module(name: &str, k: f32, pad: usize) -> String {
    let i = " ".repeat(pad);
    format!(
        r#"@I.ir_module
class Module:
{i}@T.prim_func(s_tir=True)
{i}def {name}(A: T.Buffer((T.int64(64),), "float32"), B: T.Buffer((T.int64(64),), "float32"), C: T.Buffer((T.int64(64),), "float32")):
{i}{i}T.func_attr({{"tirx.noalias": True}})
{i}{i}for i in range(T.int64(64)):
{i}{i}{i}with T.sblock("C"):
{i}{i}{i}{i}vi = T.axis.spatial(T.int64(64), i)
{i}{i}{i}{i}C[vi] = A[vi] * T.float32({k}) + B[vi]
{i}@T.prim_func(s_tir=True)
{i}def {name}_neg(A: T.Buffer((T.int64(64),), "float32"), C: T.Buffer((T.int64(64),), "float32")):
{i}{i}T.func_attr({{"tirx.noalias": True}})
{i}{i}for i in range(T.int64(64)):
{i}{i}{i}with T.sblock("C"):
{i}{i}{i}{i}vi = T.axis.spatial(T.int64(64), i)
{i}{i}{i}{i}C[vi] = T.float32(0) - A[vi]
"#
    )
}

fn funcs(src: &str) -> Vec<tir::PrimFunc> {
    tir::parse_module_prim_funcs(src).unwrap_or_else(|e| panic!("{}", e.render(src)))
}

fn t(v: f32) -> Value {
    Value::Tensor(Tensor::from_slice(&[64], &[v; 64]).unwrap())
}

/// The output of `name` on A = 2, B = 1, and the error of a call with a short A.
fn behaviour(lib: &KernelLibrary, name: &str) -> (Vec<f32>, String) {
    let k = lib.get(name).unwrap();
    let out = t(0.0);
    k.call(&[t(2.0), t(1.0), out.clone()]).unwrap();
    let short = Value::Tensor(Tensor::from_slice(&[63], &[0f32; 63]).unwrap());
    let err = k.call(&[short, t(1.0), t(0.0)]).unwrap_err().to_string();
    (out.as_tensor().unwrap().to_vec().unwrap(), err)
}

#[test]
fn identical_prim_funcs_compile_once_per_process() {
    let options = CompileOptions::default();
    let first = funcs(&module("dedup_axpb", 3.0, 4));
    let same = funcs(&module("dedup_axpb", 3.0, 2));
    let other = funcs(&module("dedup_axpb", 5.0, 4));
    assert!(!KernelLibrary::is_compiled_in_process(&first[0], options));
    let lib = KernelLibrary::compile_with(&first, options).unwrap();
    assert!(KernelLibrary::is_compiled_in_process(&same[0], options));
    assert!(KernelLibrary::is_compiled_in_process(&same[1], options));
    assert!(
        !KernelLibrary::is_compiled_in_process(&other[0], options),
        "another constant is another function"
    );
    assert!(
        !KernelLibrary::is_compiled_in_process(&first[0], CompileOptions::reference()),
        "other options are another compile"
    );
    let again = KernelLibrary::compile_with(&same, options).unwrap();
    assert_eq!(lib.code_blob(), again.code_blob());
    assert_eq!(behaviour(&lib, "dedup_axpb").0, vec![7.0; 64]);
    assert_eq!(
        behaviour(&lib, "dedup_axpb"),
        behaviour(&again, "dedup_axpb")
    );
    let other = KernelLibrary::compile_with(&other, options).unwrap();
    assert_eq!(behaviour(&other, "dedup_axpb").0, vec![11.0; 64]);
}

#[test]
fn a_library_rebuilt_from_its_blob_behaves_the_same() {
    let lib = KernelLibrary::compile(&funcs(&module("rebuilt", 3.0, 4))).unwrap();
    let blob = lib.code_blob();
    assert!(blob.offset_of("rebuilt").is_some() && blob.offset_of("rebuilt_neg").is_some());
    let metas = lib.kernels().iter().map(|k| k.meta().clone()).collect();
    let rebuilt = KernelLibrary::from_code(blob.clone(), metas).unwrap();
    assert_eq!(behaviour(&lib, "rebuilt"), behaviour(&rebuilt, "rebuilt"));
    assert!(
        behaviour(&lib, "rebuilt").1.contains('A'),
        "the error names the argument"
    );
    let mut missing = lib.kernels()[0].meta().clone();
    missing.symbol = "not_in_the_blob".into();
    assert!(KernelLibrary::from_code(blob, vec![missing]).is_err());
}
