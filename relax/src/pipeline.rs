//! The backend pipeline: from a legalized module (operators already `call_tir` of PrimFuncs) to
//! a `vm::Executable` plus the PrimFuncs left to compile, running the passes of TVM's
//! `default_build_pipeline` after LegalizeOps, in its order, then VMCodeGen; and the front
//! half, [`optimize`]: from the module a user writes to a legalized (and by default fused) one.

use crate::ir::visit::{Visitor, walk_module};
use crate::ir::{Constant, IRModule};
use crate::transform;
use crate::{Error, Result, codegen, well_formed};

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

/// Options of [`optimize`].
#[derive(Clone, Copy, Debug)]
pub struct OptConfig {
    /// Run FuseOps and FuseTIR (on by default here, unlike TVM's CPU default): elementwise
    /// chains and injective epilogues fuse into their producer.
    pub fusion: bool,
    /// Run DispatchLibrary (on by default): float matmuls and conv2ds, with their bias,
    /// residual and activation epilogues, call native library kernels instead of being
    /// legalized to TIR; RaiseCallTIR first turns the `call_tir`s of a module that arrives
    /// legalized back into those operators where their PrimFuncs are exactly TOPI's. Off,
    /// every operator takes the TIR path (the reference).
    pub library: bool,
    /// FoldConstant materialises no constant larger than this many bytes (the call is kept and
    /// runs at run time); [`transform::DEFAULT_MAX_FOLD_BYTES`] by default.
    pub max_fold_bytes: usize,
}

impl Default for OptConfig {
    fn default() -> OptConfig {
        OptConfig {
            fusion: true,
            library: true,
            max_fold_bytes: transform::DEFAULT_MAX_FOLD_BYTES,
        }
    }
}

/// When a pass of [`OPT_PASSES`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    Always,
    /// Only with [`OptConfig::fusion`].
    Fusion,
    /// Only with [`OptConfig::library`].
    Library,
}

impl Gate {
    fn open(self, config: &OptConfig) -> bool {
        match self {
            Gate::Always => true,
            Gate::Fusion => config.fusion,
            Gate::Library => config.library,
        }
    }
}

/// A pass of [`optimize`]: it may read the options (FoldConstant's size limit).
pub type OptPass = fn(&IRModule, &OptConfig) -> Result<IRModule>;

/// The passes [`optimize`] runs, by name, in order, each when its [`Gate`] is open.
pub const OPT_PASSES: &[(&str, OptPass, Gate)] = &[
    ("LambdaLift", |m, _| transform::lambda_lift(m), Gate::Always),
    // Convolutions and pools in other layouts (NHWC, OHWI, HWIO, ...) become the canonical
    // ones between permutations, which FoldConstant applies to constant weights.
    (
        "ConvertLayout",
        |m, _| transform::convert_layout(m),
        Gate::Always,
    ),
    // Before legalization it folds what needs no kernel (reshapes of constants, identity
    // broadcasts), so that the weights of imported models reach DispatchLibrary as constants.
    (
        "FoldConstant",
        |m, c| transform::fold_constant_with_limit(m, c.max_fold_bytes),
        Gate::Always,
    ),
    // An inference batch norm of a convolution with constant weights (imported CNNs) becomes
    // scaled weights and a per-channel bias, which the library conv2d adds in its epilogue.
    // With the library path only: the TIR path (the reference) keeps the batch norm's own
    // arithmetic.
    (
        "FoldBatchnormToConv2D",
        |m, _| transform::fold_batchnorm_to_conv2d(m),
        Gate::Library,
    ),
    // A module that arrives legalized: its matmul and conv2d PrimFuncs become the operators
    // again, for DispatchLibrary to take.
    (
        "RaiseCallTIR",
        |m, _| transform::raise_call_tir(m),
        Gate::Library,
    ),
    (
        "DispatchLibrary",
        |m, _| transform::dispatch_library(m),
        Gate::Library,
    ),
    // With the library path only: the TIR path (the reference) keeps TVM's dropout kernel.
    (
        "ElideDropout",
        |m, _| transform::elide_dropout(m),
        Gate::Library,
    ),
    (
        "LegalizeOps",
        |m, _| crate::legalize::legalize_ops(m),
        Gate::Always,
    ),
    (
        "AnnotateTIROpPattern",
        |m, _| transform::annotate_tir_op_pattern(m),
        Gate::Always,
    ),
    (
        "FoldConstant",
        |m, c| transform::fold_constant_with_limit(m, c.max_fold_bytes),
        Gate::Always,
    ),
    ("FuseOps", |m, _| transform::fuse_ops(m), Gate::Fusion),
    ("FuseTIR", |m, _| transform::fuse_tir(m), Gate::Fusion),
    (
        "DeadCodeElimination",
        |m, _| transform::dead_code_elimination(m),
        Gate::Always,
    ),
    (
        "CanonicalizeBindings",
        |m, _| transform::canonicalize_bindings(m),
        Gate::Always,
    ),
];

/// Runs one pass, naming it in any error. In debug builds the result must also be well formed
/// (`well_formed::check`), so a pass that breaks an IR invariant is caught where it happens
/// rather than as a confusing failure passes later.
pub fn run_pass(
    name: &'static str,
    pass: &dyn Fn(&IRModule) -> Result<IRModule>,
    module: &IRModule,
) -> Result<IRModule> {
    let in_pass = |error: Error| Error::Pass {
        pass: name,
        error: Box::new(error),
    };
    let out = pass(module).map_err(in_pass)?;
    if cfg!(debug_assertions) {
        well_formed::check(&out).map_err(|e| {
            in_pass(Error::Internal(format!(
                "the pass produced a malformed module: {e}"
            )))
        })?;
    }
    Ok(out)
}

/// Fails on a constant read as `metadata["ir.GenericConst"][i]` without the metadata table
/// (a [`Constant::placeholder`](crate::ir::Constant::placeholder)): printing needs no values,
/// compiling does.
fn check_constants_present(module: &IRModule) -> Result<()> {
    struct Placeholders(Option<usize>);
    impl Visitor for Placeholders {
        fn visit_constant(&mut self, c: &Constant) {
            if c.is_placeholder() && self.0.is_none() {
                self.0 = c.metadata_index;
            }
        }
    }
    let mut found = Placeholders(None);
    walk_module(&mut found, module);
    match found.0 {
        None => Ok(()),
        Some(i) => Err(Error::Unsupported(format!(
            "constant `metadata[\"ir.GenericConst\"][{i}]` has no value: the module was read without its metadata table (ReadOptions::metadata)"
        ))),
    }
}

/// The front half of the pipeline (TVM's `LegalizeOps`, `AnnotateTIROpPattern`,
/// `FoldConstant`, `FuseOps`, `FuseTIR` sequence, with LambdaLift first and cleanups last):
/// its result is what [`build`] takes, the analogue of the corpus' `legalized.py`.
pub fn optimize(module: &IRModule, config: &OptConfig) -> Result<IRModule> {
    check_constants_present(module)?;
    let mut m = module.clone();
    for (name, pass, gate) in OPT_PASSES {
        if !gate.open(config) {
            continue;
        }
        m = run_pass(name, &|m| pass(m, config), &m)?;
    }
    Ok(m)
}

/// Runs the passes alone: the module VMCodeGen consumes (TVM's `tvm_lowered.py`).
pub fn lower(module: &IRModule) -> Result<IRModule> {
    let mut m = module.clone();
    for (name, pass) in PASSES {
        m = run_pass(name, pass, &m)?;
    }
    Ok(m)
}

/// Lowers a legalized module and generates its bytecode; returns the executable and the
/// module's PrimFuncs (kernels and shape functions) to compile and link.
pub fn build(module: &IRModule) -> Result<(vm::Executable, IRModule)> {
    let lowered = lower(module)?;
    codegen::codegen(&lowered)
}
