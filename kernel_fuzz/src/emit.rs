//! A case as files for checking the JIT against another compiler (Apache TVM, through
//! `program_fuzz/scripts/tvm_diff.py --kernels`): `kernel.py` (the PrimFunc in TVMScript),
//! `args.txt` (one line per argument: dtype and shape; then `sym NAME DTYPE` per symbolic
//! dimension, which the printed signature uses undeclared) and, per
//! argument, `in_I.bin` (the input bytes) and `out_I.bin` (the bytes after the JIT's run).
//! Only cases the reference interpreter runs to the end are written: a kernel that reads out
//! of bounds or divides by zero has no defined result to compare.
//!
//! A kernel with a float → integer cast also gets `kernel_saturating.py`, the same kernel with
//! each such cast spelled out as relaxjit defines it ([`saturating_casts`]): TVM lowers the
//! cast to LLVM's `fptosi`/`fptoui`, whose result is poison for NaN and for values outside the
//! target type, so a kernel that differs only there agrees once the casts are spelled out.

use std::path::{Path, PathBuf};

use tir::transform::mutator::{Mutator, walk_expr};
use tir::{CmpOp, DataType, ExprKind, PrimExpr, PrimFunc};

use crate::diff::{CONFIGS, Ending, input_data, run_interp, run_jit};
use crate::program::Case;

/// The folder name of `seed`'s case.
pub fn folder_name(seed: u64) -> String {
    format!("kernel_{seed:06}")
}

/// Writes `case` (of `seed`) under `dir` if the interpreter and the JIT both run it to the
/// end; returns the folder, or `None` for a case left out.
pub fn write_case(case: &Case, seed: u64, dir: &Path) -> Result<Option<PathBuf>, String> {
    let inputs = input_data(case);
    if run_interp(case, &inputs).0 != Ending::Ok {
        return Ok(None);
    }
    let Ok((Ending::Ok, outputs)) = run_jit(case, CONFIGS[0].1, &inputs) else {
        return Ok(None);
    };
    let folder = dir.join(folder_name(seed));
    let io = |e: std::io::Error| format!("{}: {e}", folder.display());
    std::fs::create_dir_all(&folder).map_err(io)?;
    std::fs::write(folder.join("kernel.py"), tir::print_prim_func(&case.func)).map_err(io)?;
    if let Some(spelled_out) = saturating_casts(&case.func) {
        std::fs::write(
            folder.join("kernel_saturating.py"),
            tir::print_prim_func(&spelled_out),
        )
        .map_err(io)?;
    }
    let mut args = String::new();
    for (i, (((_, b), shape), (input, output))) in case
        .func
        .buffer_map
        .iter()
        .zip(&case.shapes)
        .zip(inputs.iter().zip(&outputs))
        .enumerate()
    {
        let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
        args += &format!("{} {}\n", b.dtype, dims.join(","));
        std::fs::write(folder.join(format!("in_{i}.bin")), input).map_err(io)?;
        std::fs::write(folder.join(format!("out_{i}.bin")), output).map_err(io)?;
    }
    let mut syms: Vec<(String, String)> = Vec::new();
    for (_, b) in &case.func.buffer_map {
        for v in b.shape.iter().filter_map(|d| d.as_var()) {
            let entry = (v.name().to_string(), v.dtype().to_string());
            if !syms.contains(&entry) {
                syms.push(entry);
            }
        }
    }
    for (name, dtype) in syms {
        args += &format!("sym {name} {dtype}\n");
    }
    std::fs::write(folder.join("args.txt"), args).map_err(io)?;
    Ok(Some(folder))
}

/// `func` with every scalar float → integer `T.Cast` replaced by an expression that computes
/// what the cast means in relaxjit (`tir::arith::scalar::cast`: truncation toward zero,
/// saturating at the target type's limits, NaN → 0) and casts only values in the target's
/// range; `None` if `func` has no such cast.
///
/// For `x` of a float type cast to an integer type of `b` bits, with the bounds compared in
/// `float64` (exact for every float type and both bounds):
///
/// ```text
/// in_range = lo - 1 < x && x < hi + 1          (lo, hi: the target's limits)
/// Select(in_range, Cast(x if in_range else 0),
///        Select(x > 0, hi, Select(x < 0, lo, 0)))
/// ```
///
/// A NaN fails every comparison and becomes 0. Casts to `uint64` are left alone: its maximum
/// has no `i64` constant to print (and the generator makes no `uint64` values).
pub fn saturating_casts(func: &PrimFunc) -> Option<PrimFunc> {
    let mut casts = SaturatingCasts { rewritten: 0 };
    let body = casts.stmt(&func.body);
    if casts.rewritten == 0 {
        return None;
    }
    Some(PrimFunc {
        body,
        ..func.clone()
    })
}

struct SaturatingCasts {
    rewritten: usize,
}

impl Mutator for SaturatingCasts {
    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        let e = walk_expr(self, e);
        match e.kind() {
            ExprKind::Cast { dtype, value } if spelled_out(value.dtype(), *dtype) => {
                self.rewritten += 1;
                saturating_cast(*dtype, value)
            }
            _ => e,
        }
    }
}

/// Whether a scalar cast from `from` to `to` is one [`saturating_casts`] spells out.
fn spelled_out(from: DataType, to: DataType) -> bool {
    let scalar = !from.is_vector() && !to.is_vector();
    // A cast to `bool` is `x != 0`, defined for every float.
    let integer = to.is_int_or_uint() && !to.is_bool();
    let uint64 = to.is_uint() && to.bits == 64;
    scalar && from.is_float() && integer && !uint64
}

fn saturating_cast(to: DataType, x: &PrimExpr) -> PrimExpr {
    let from = x.dtype();
    let (lo, hi) = tir::arith::scalar::int_type_range(to);
    let wide = if from == DataType::FLOAT64 {
        x.clone()
    } else {
        PrimExpr::cast(DataType::FLOAT64, x.clone())
    };
    let f64c = |v: f64| PrimExpr::float(DataType::FLOAT64, v);
    let in_range = PrimExpr::new(ExprKind::And(
        PrimExpr::cmp(CmpOp::Lt, f64c(lo as f64 - 1.0), wide.clone()),
        PrimExpr::cmp(CmpOp::Lt, wide.clone(), f64c(hi as f64 + 1.0)),
    ));
    let select = |cond: PrimExpr, t: PrimExpr, f: PrimExpr| {
        PrimExpr::new(ExprKind::Select {
            cond,
            true_value: t,
            false_value: f,
        })
    };
    let safe = select(in_range.clone(), x.clone(), PrimExpr::float(from, 0.0));
    let outside = select(
        PrimExpr::cmp(CmpOp::Gt, wide.clone(), f64c(0.0)),
        PrimExpr::max_value(to),
        select(
            PrimExpr::cmp(CmpOp::Lt, wide, f64c(0.0)),
            PrimExpr::min_value(to),
            PrimExpr::int(to, 0),
        ),
    );
    select(in_range, PrimExpr::cast(to, safe), outside)
}
