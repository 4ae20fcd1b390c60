//! The embedded demo (`relaxjit` with no arguments): a small transformer encoder block written
//! in TVMScript (`demo_transformer.py`, compiled into the binary), compiled by the [`Engine`]
//! and run on generated inputs, timing compilation and calls.
//!
//! The `relaxjit` binary compiles this file as its own module (`#[path]`), beside
//! `values.rs`: it names only the `relaxjit` library and `crate::values`, which both sides have.

use std::time::{Duration, Instant};

use relaxjit::{Engine, Error, Result};
use vm::Value;

use crate::values::random_inputs;

/// The demo module: one encoder block (4-head self-attention over 16 tokens of width 64, a
/// GELU feed-forward layer of width 128, two residual layer norms), as TVM prints it.
pub const DEMO_SOURCE: &str = include_str!("demo_transformer.py");

/// The function the demo calls.
pub const DEMO_FUNCTION: &str = "transformer_block";

/// The seed of the demo's generated inputs.
pub const DEMO_SEED: u64 = 2024;

/// What a demo run measured.
#[derive(Debug)]
pub struct DemoReport {
    /// Parsing the TVMScript text.
    pub parse: Duration,
    /// Legalization, lowering, bytecode and kernel compilation.
    pub compile: Duration,
    /// The first call (allocates the VM's storage pool).
    pub first_call: Duration,
    /// The mean of the following calls.
    pub steady_call: Duration,
    pub calls: usize,
    pub kernels: usize,
    pub instructions: usize,
    pub inputs: Vec<(String, Value)>,
    pub output: Value,
}

/// Compiles and runs the demo; `calls` (at least 1) is how many times it is called.
pub fn run_demo(engine: &Engine, calls: usize) -> Result<DemoReport> {
    let start = Instant::now();
    let module = Engine::parse(DEMO_SOURCE)?;
    let parse = start.elapsed();
    let func = module.relax_function(DEMO_FUNCTION).ok_or_else(|| {
        Error::InvalidArgument(format!("the demo has no function `{DEMO_FUNCTION}`"))
    })?;
    let args = random_inputs(func, DEMO_SEED).map_err(|e| Error::InvalidArgument(e.to_string()))?;
    let names: Vec<String> = func.params.iter().map(|p| p.name().to_string()).collect();

    let start = Instant::now();
    let compiled = engine.compile(&module)?;
    let compile = start.elapsed();

    let vm = compiled.vm()?;
    let start = Instant::now();
    let mut output = compiled.invoke(&vm, DEMO_FUNCTION, &args)?;
    let first_call = start.elapsed();
    let more = calls.max(1) - 1;
    let start = Instant::now();
    for _ in 0..more {
        output = compiled.invoke(&vm, DEMO_FUNCTION, &args)?;
    }
    let steady_call = if more == 0 {
        first_call
    } else {
        start.elapsed() / more as u32
    };
    Ok(DemoReport {
        parse,
        compile,
        first_call,
        steady_call,
        calls: calls.max(1),
        kernels: compiled.kernels().kernels().len(),
        instructions: compiled.executable().instr_offset.len(),
        inputs: names.into_iter().zip(args).collect(),
        output,
    })
}
