//! The `tvm-bytecode` conformance mode: TVM's own bytecode (`tvm_exec.bin`) linked with our
//! kernels, compiled from TVM's lowered module (`tvm_lowered.py`), must compute what TVM
//! computed for every call of a case.
//!
//! This exercises the VM and the kernel JIT without our Relax compiler: the bytecode, its
//! constants and its memory planning are TVM's; every tensor operation runs in a kernel
//! compiled here from the PrimFunc TVM would have compiled.

use std::path::Path;
use std::sync::Arc;

use jit::kernel::KernelLibrary;
use vm::{Executable, Library, VirtualMachine};

use crate::case::{Case, Report, check_calls, load_corpus};

/// Compiles the kernels of a case's `tvm_lowered.py` into a VM library.
pub fn compile_case_kernels(case: &Case) -> Result<Library, String> {
    let path = case.file("tvm_lowered.py");
    let src = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let funcs = tir::parse_module_prim_funcs(&src)
        .map_err(|e| format!("tvm_lowered.py: {}", e.render(&src)))?;
    let kernels = KernelLibrary::compile(&funcs).map_err(|e| format!("compiling kernels: {e}"))?;
    let mut lib = Library::new();
    kernels.add_to(&mut lib);
    Ok(lib)
}

/// Whether the case has the files this mode needs.
pub fn has_tvm_bytecode(case: &Case) -> bool {
    case.file("tvm_exec.bin").is_file() && case.file("tvm_lowered.py").is_file()
}

/// Runs one case: every call in order on one VM, each compared with its expectation.
pub fn run_tvm_bytecode(case: &Case) -> Result<(), String> {
    let exec = Executable::load_from_file(case.file("tvm_exec.bin"))
        .map_err(|e| format!("loading tvm_exec.bin: {e}"))?;
    let lib = compile_case_kernels(case)?;
    let vm =
        VirtualMachine::with_library(Arc::new(exec), &lib).map_err(|e| format!("linking: {e}"))?;
    check_calls(case, |call| vm.invoke(&call.function, &call.inputs))
}

/// Runs every case of the corpus in `dir` that has TVM bytecode; cases without it are
/// skipped (they are listed in the corpus's README as TVM limitations).
pub fn run_corpus(dir: &Path) -> Result<Report, String> {
    let cases = load_corpus(dir).map_err(|e| e.to_string())?;
    let mut report = Report::default();
    for case in cases.iter().filter(|c| has_tvm_bytecode(c)) {
        report.record(&case.name, run_tvm_bytecode(case));
    }
    Ok(report)
}
