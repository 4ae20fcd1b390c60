//! The backend pipeline: from a legalized module (operators already `call_tir` of PrimFuncs) to
//! a `vm::Executable` plus the PrimFuncs left to compile, running the passes of TVM's
//! `default_build_pipeline` after LegalizeOps, in its order, then VMCodeGen.

use crate::ir::IRModule;
use crate::transform;
use crate::{Result, codegen};

/// A module → module pass.
pub type Pass = fn(&IRModule) -> Result<IRModule>;

/// The passes [`build`] runs, by name, in order.
pub const PASSES: &[(&str, Pass)] = &[
    ("LambdaLift", transform::lambda_lift),
    ("DeadCodeElimination", transform::dead_code_elimination),
    (
        "RewriteDataflowReshape",
        transform::rewrite_dataflow_reshape,
    ),
    ("ToNonDataflow", transform::to_non_dataflow),
    ("RemovePurityChecking", transform::remove_purity_checking),
    ("CallTIRRewrite", transform::call_tir_rewrite),
    ("StaticPlanBlockMemory", transform::static_plan_block_memory),
    ("LowerAllocTensor", transform::lower_alloc_tensor),
    ("KillAfterLastUse", transform::kill_after_last_use),
    ("LowerRuntimeBuiltin", transform::lower_runtime_builtin),
    ("ComputePrimValue", transform::compute_prim_value),
    ("VMShapeLower", transform::vm_shape_lower),
    ("AttachGlobalSymbol", transform::attach_global_symbol),
];

/// Runs the passes alone: the module VMCodeGen consumes (TVM's `tvm_lowered.py`).
pub fn lower(module: &IRModule) -> Result<IRModule> {
    let mut m = module.clone();
    for (_, pass) in PASSES {
        m = pass(&m)?;
    }
    Ok(m)
}

/// Lowers a legalized module and generates its bytecode; returns the executable and the
/// module's PrimFuncs (kernels and shape functions) to compile and link.
pub fn build(module: &IRModule) -> Result<(vm::Executable, IRModule)> {
    let lowered = lower(module)?;
    codegen::codegen(&lowered)
}
