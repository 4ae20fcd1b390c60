//! The differential check: a [`Case`] run by the reference interpreter (`tir::interp`) and by
//! the JIT under several compile settings must agree — every buffer bit-for-bit the same (NaN
//! matching any NaN), or both failing with the same class of error.
//!
//! What counts as agreement, precisely:
//! * both succeed and every argument buffer holds the same elements afterwards;
//! * both fail with an out-of-bounds access, or both with an integer division by zero (what
//!   the buffers hold after a failure is not compared: a kernel may check bounds before it
//!   runs a loop that the interpreter runs until it fails);
//! * both fail, with different errors, in a program that has faults of both kinds: a kernel
//!   may evaluate a store's index before its value, or check a loop-invariant division
//!   before the loop, so which fault it meets first is not fixed (TVM's own order is
//!   undefined: neither fault is checked there). Counted apart, as `"different-faults"`;
//!
//! and what is not a verdict but a skip ([`Skip`]):
//! * the interpreter ran out of its step budget;
//! * the interpreter stopped at an index outside its dimension whose element is inside the
//!   buffer (`A[0, 5]` of a `(4, 4)` buffer) and the kernel ran on: the kernel checks the
//!   flat offset, which keeps memory safe, and TVM checks nothing;
//! * the JIT reports a construct it does not support (`jit::Error::Unsupported`).
//!
//! Everything else is a [`Mismatch`]. Crashes and hangs of the kernel cannot be caught in
//! process; `cargo xtask fuzz` runs cases in a child process to catch them.

use jit::kernel::{CompileOptions, KernelLibrary};
use tir::interp::InterpArg;
use tir::{DataType, InterpErrorKind};
use vm::{Tensor, Value};

use crate::inputs;
use crate::program::Case;
use crate::rng::Rng;

/// The interpreter's step budget per case: far more than any ordinary generated program needs
/// (a nest runs at most a few thousand iterations).
pub const STEP_BUDGET: u64 = 2_000_000;

/// The compile settings every case is run with. FMA contraction is off because it changes the
/// last bit of results; everything else is exact.
pub const CONFIGS: [(&str, CompileOptions); 2] = [
    (
        "optimized",
        CompileOptions {
            vectorize: true,
            parallel: true,
            loop_transforms: true,
            contract_fma: false,
        },
    ),
    (
        "reference",
        CompileOptions {
            vectorize: false,
            parallel: false,
            loop_transforms: false,
            contract_fma: false,
        },
    ),
];

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ending {
    /// It finished.
    Ok,
    /// An access outside its buffer.
    OutOfBounds,
    /// An integer division or modulo by zero.
    DivisionByZero,
    /// (Interpreter only) an index outside its dimension, inside the buffer's memory.
    DimensionIndex,
    /// Any other failure, with its message.
    Other(String),
    /// (Agreement only) both failed, with different faults.
    DifferentFaults,
}

impl Ending {
    /// A short stable name, for counting and for comparing failures while shrinking.
    pub fn class(&self) -> &'static str {
        match self {
            Ending::Ok => "ok",
            Ending::OutOfBounds => "out-of-bounds",
            Ending::DivisionByZero => "division-by-zero",
            Ending::DimensionIndex => "dimension-index",
            Ending::Other(_) => "other-error",
            Ending::DifferentFaults => "different-faults",
        }
    }
}

/// Why a case was not compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Skip {
    /// The interpreter's step budget ran out.
    StepBudget,
    /// The interpreter stopped at a dimension index that the kernel's flat check accepts.
    DimensionIndex,
    /// The JIT does not support a construct of the program.
    Unsupported,
}

/// A disagreement between the interpreter and the JIT, or between two JIT settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// A stable summary of the kind of disagreement (`"interp ok, optimized out-of-bounds"`),
    /// the same for the shrunk program as for the original.
    pub class: String,
    /// What differs, in full.
    pub detail: String,
}

/// The result of checking one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Both ran and agree; the common ending.
    Agree(Ending),
    /// Not compared.
    Skipped(Skip),
    /// They disagree.
    Mismatch(Mismatch),
}

/// The input bytes of every argument of `case`.
pub fn input_data(case: &Case) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(case.input_seed);
    case.func
        .buffer_map
        .iter()
        .zip(&case.shapes)
        .map(|((_, b), shape)| {
            let n: i64 = shape.iter().product();
            inputs::fill(b.dtype, n.max(0) as usize, &mut rng)
        })
        .collect()
}

/// Runs the interpreter on copies of `inputs`; returns how it ended and the buffers after.
pub fn run_interp(case: &Case, inputs: &[Vec<u8>]) -> (Ending, Vec<Vec<u8>>) {
    let mut data: Vec<Vec<u8>> = inputs.to_vec();
    let ending = {
        let mut args: Vec<InterpArg> = data
            .iter_mut()
            .zip(&case.shapes)
            .zip(&case.func.buffer_map)
            .map(|((d, shape), (_, b))| InterpArg::Buffer {
                data: d,
                shape: shape.clone(),
                dtype: b.dtype,
            })
            .collect();
        match tir::interp::run_with_budget(&case.func, &mut args, STEP_BUDGET) {
            Ok(()) => Ending::Ok,
            Err(tir::Error::Interp { kind, message, .. }) => match kind {
                InterpErrorKind::OutOfBounds => Ending::OutOfBounds,
                InterpErrorKind::DimensionIndex => Ending::DimensionIndex,
                InterpErrorKind::DivisionByZero => Ending::DivisionByZero,
                InterpErrorKind::StepBudget => Ending::Other("step budget".into()),
                InterpErrorKind::Other => Ending::Other(message),
            },
            Err(e) => Ending::Other(e.to_string()),
        }
    };
    (ending, data)
}

fn vm_dtype(dt: DataType) -> vm::DataType {
    dt.to_string()
        .parse()
        .unwrap_or_else(|_| panic!("the VM has no dtype {dt}"))
}

/// Compiles `case` with `options` and runs it on copies of `inputs`. `Err` is a compile error.
pub fn run_jit(
    case: &Case,
    options: CompileOptions,
    inputs: &[Vec<u8>],
) -> Result<(Ending, Vec<Vec<u8>>), jit::Error> {
    let lib = KernelLibrary::compile_with(std::slice::from_ref(&case.func), options)?;
    let kernel = &lib.kernels()[0];
    let args: Vec<Value> = inputs
        .iter()
        .zip(&case.shapes)
        .zip(&case.func.buffer_map)
        .map(|((d, shape), (_, b))| {
            let t = Tensor::from_bytes(shape, vm_dtype(b.dtype), d)
                .unwrap_or_else(|e| panic!("tensor of shape {shape:?}: {e}"));
            Value::Tensor(t)
        })
        .collect();
    let ending = match kernel.call(&args) {
        Ok(()) => Ending::Ok,
        Err(e) if e.kind() == vm::ErrorKind::Index => Ending::OutOfBounds,
        Err(e) if e.message().contains("division by zero") => Ending::DivisionByZero,
        Err(e) => Ending::Other(e.to_string()),
    };
    let out = args
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => t.to_bytes(),
            _ => Vec::new(),
        })
        .collect();
    Ok((ending, out))
}

/// The first element where two runs' buffers differ, described.
fn first_difference(case: &Case, a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<String> {
    for (((x, y), (_, buffer)), shape) in
        a.iter().zip(b).zip(&case.func.buffer_map).zip(&case.shapes)
    {
        let size = buffer.dtype.bytes();
        for (i, (ex, ey)) in x.chunks(size).zip(y.chunks(size)).enumerate() {
            let bits = |c: &[u8]| {
                let mut raw = [0u8; 8];
                raw[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(raw)
            };
            let (bx, by) = (bits(ex), bits(ey));
            if !inputs::same_element(bx, by, buffer.dtype) {
                return Some(format!(
                    "buffer `{}` {shape:?} element {i}: {} vs {}",
                    buffer.name,
                    show(bx, buffer.dtype),
                    show(by, buffer.dtype)
                ));
            }
        }
    }
    None
}

/// An element's value for a report.
pub fn show(bits: u64, dt: DataType) -> String {
    match (dt.code, dt.bits) {
        (tir::TypeCode::Float, 64) => format!("{:?}", f64::from_bits(bits)),
        (tir::TypeCode::Float, 32) => format!("{:?} ({bits:#x})", f32::from_bits(bits as u32)),
        (tir::TypeCode::Float, 16) => {
            format!("{:?} ({bits:#x})", half::f16::from_bits(bits as u16))
        }
        (tir::TypeCode::Int, b) if b < 64 => {
            format!("{}", ((bits << (64 - b)) as i64) >> (64 - b))
        }
        (tir::TypeCode::Int, _) => format!("{}", bits as i64),
        _ => format!("{bits}"),
    }
}

/// Whether `e` is a fault of the program (rather than a failure of the machinery).
fn fault(e: &Ending) -> bool {
    matches!(
        e,
        Ending::OutOfBounds | Ending::DivisionByZero | Ending::DimensionIndex
    )
}

/// Checks `case` with every setting of [`CONFIGS`].
pub fn check(case: &Case) -> Verdict {
    let inputs = input_data(case);
    let (interp, interp_out) = run_interp(case, &inputs);
    if interp == Ending::Other("step budget".into()) {
        return Verdict::Skipped(Skip::StepBudget);
    }
    // A long loop ends at its moving index's fault. When that fault is a dimension index, the
    // kernel's flat check may accept it, and the loop's other index may keep every later flat
    // offset inside the buffer too: the kernel would then run all 2^62 iterations.
    if interp == Ending::DimensionIndex && crate::shrink::has_long_loop(&case.func.body) {
        return Verdict::Skipped(Skip::DimensionIndex);
    }
    let mut skip = None;
    let mut ending = interp.clone();
    for (name, options) in CONFIGS {
        let (jit, jit_out) = match run_jit(case, options, &inputs) {
            Ok(r) => r,
            Err(jit::Error::Unsupported(_)) => return Verdict::Skipped(Skip::Unsupported),
            Err(e) => {
                return Verdict::Mismatch(Mismatch {
                    class: format!("{name} does not compile"),
                    detail: e.to_string(),
                });
            }
        };
        // After an index outside its dimension the kernel runs on (it checks the flat
        // offset), to the end or to a later fault.
        if interp == Ending::DimensionIndex && jit != Ending::OutOfBounds {
            skip = Some(Skip::DimensionIndex);
            continue;
        }
        let same = match (&interp, &jit) {
            (Ending::Other(_), Ending::Other(_))
            | (Ending::DimensionIndex, Ending::OutOfBounds) => true,
            (a, b) if fault(a) && fault(b) && a != b => {
                ending = Ending::DifferentFaults;
                true
            }
            (a, b) => a == b,
        };
        if !same {
            return Verdict::Mismatch(Mismatch {
                class: format!("interp {}, {name} {}", interp.class(), jit.class()),
                detail: format!("interpreter: {interp:?}\n{name}: {jit:?}"),
            });
        }
        if interp == Ending::Ok
            && let Some(d) = first_difference(case, &interp_out, &jit_out)
        {
            return Verdict::Mismatch(Mismatch {
                class: format!("{name} computes other values"),
                detail: format!("interpreter vs {name}: {d}"),
            });
        }
    }
    match skip {
        Some(s) => Verdict::Skipped(s),
        None => Verdict::Agree(ending),
    }
}
