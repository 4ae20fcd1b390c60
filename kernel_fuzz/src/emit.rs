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
//!
//! Every kernel also gets `kernel_opaque_indices.py`: that kernel (with the casts spelled out)
//! with each buffer index wrapped in an identity TVM's iterator maps do not see through
//! ([`opaque_indices`]). TVM's FlattenBuffer simplifies an index through an iterator map
//! (`IterMapSimplify`), which rewrites `(3 - i) % 7` to `i % -7 * -1`, dropping the constant.
//! And `kernel_opaque_floats.py`: that one with every operand of float arithmetic hidden from
//! TVM's constant folder ([`opaque_float_operands`]), which folds `0 * x` and `0 / x` to 0.
//! And `kernel_opaque_casts.py`: that one with every narrowing integer cast hidden from TVM's
//! bound analysis ([`opaque_narrowing_casts`]), which takes `T.Cast("int8", i)` of a
//! non-negative `i` as non-negative although the cast wraps, and so lowers a floor modulo of
//! it to a truncating one (kernel seed 2469).
//! All of them are written with each allocation in a block of its own
//! ([`allocations_in_own_blocks`]), the form TVM 0.27 reads.

use std::path::{Path, PathBuf};

use tir::transform::mutator::{Mutator, walk_expr, walk_stmt};
use tir::{
    Buffer, CmpOp, DataType, ExprKind, For, ForKind, PrimExpr, PrimFunc, Stmt, StmtKind, Var,
};

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
    let func = allocations_in_own_blocks(&case.func);
    std::fs::write(folder.join("kernel.py"), tir::print_prim_func(&func)).map_err(io)?;
    let spelled_out = saturating_casts(&func);
    if let Some(f) = &spelled_out {
        std::fs::write(folder.join("kernel_saturating.py"), tir::print_prim_func(f)).map_err(io)?;
    }
    let opaque = opaque_indices(spelled_out.as_ref().unwrap_or(&func));
    std::fs::write(
        folder.join("kernel_opaque_indices.py"),
        tir::print_prim_func(&opaque),
    )
    .map_err(io)?;
    let floats = opaque_float_operands(&opaque);
    std::fs::write(
        folder.join("kernel_opaque_floats.py"),
        tir::print_prim_func(&floats),
    )
    .map_err(io)?;
    std::fs::write(
        folder.join("kernel_opaque_casts.py"),
        tir::print_prim_func(&opaque_narrowing_casts(&floats)),
    )
    .map_err(io)?;
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

/// `func` with every allocation (`Allocate` around the `DeclBuffer` of its memory, TVM's
/// `AllocBuffer`) alone in the branch of an `if True:`: the last statement of its block, it
/// prints in TVM 0.27's flat form (`w0 = T.alloc_local(...)`, its memory living to the end of
/// the block); followed by other statements it would print as `with T.decl_buffer(...) as w0:`,
/// which TVM 0.27 does not read ("Invalid context expression in the with-statement"; the
/// generator's `while` counters, kernel seeds 2605, 2608, ...). The same computation.
pub fn allocations_in_own_blocks(func: &PrimFunc) -> PrimFunc {
    PrimFunc {
        body: AllocationsInOwnBlocks.stmt(&func.body),
        ..func.clone()
    }
}

struct AllocationsInOwnBlocks;

impl Mutator for AllocationsInOwnBlocks {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let out = walk_stmt(self, s);
        if !matches!(out.kind(), StmtKind::Allocate { .. }) {
            return out;
        }
        Stmt::new(StmtKind::IfThenElse {
            cond: PrimExpr::bool(true),
            then_case: out,
            else_case: None,
        })
    }
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

/// `func` with every buffer index that is not a variable or a constant written
/// `T.bitwise_or(index, 0)`: the same value, but an operation TVM's iterator maps do not
/// model, so that its FlattenBuffer leaves the index as it is.
pub fn opaque_indices(func: &PrimFunc) -> PrimFunc {
    PrimFunc {
        body: OpaqueIndices.stmt(&func.body),
        ..func.clone()
    }
}

struct OpaqueIndices;

impl Mutator for OpaqueIndices {
    fn access(&mut self, buffer: &Buffer, indices: Vec<PrimExpr>) -> (Buffer, Vec<PrimExpr>) {
        let indices = indices
            .into_iter()
            .map(|index| match index.kind() {
                ExprKind::Var(_) | ExprKind::IntImm { .. } => index,
                _ => {
                    let dt = index.dtype();
                    PrimExpr::call(dt, "bitwise_or", vec![index, PrimExpr::int(dt, 0)])
                }
            })
            .collect();
        (buffer.clone(), indices)
    }
}

/// `func` with every operand of a float arithmetic operation bound to a variable `v` right
/// before the statement that computes it (`v: T.let[...] = operand`) and used as
/// `T.copysign(v, v)`: the same value, NaN and signed zeros included, but one TVM's constant
/// folder does not see, so that it cannot fold `0 * x` or `0 / x` to 0 (wrong for a NaN,
/// infinite or zero `x`), nor `T.max` of a NaN constant with `std::max` (the reverse of its
/// generated code). Evaluating an operand before its statement changes nothing: the
/// generator's expressions have no effects and evaluate both arms of a `T.Select`.
pub fn opaque_float_operands(func: &PrimFunc) -> PrimFunc {
    let mut m = OpaqueFloatOperands {
        vars: 0,
        pending: Vec::new(),
    };
    PrimFunc {
        body: m.stmt(&func.body),
        ..func.clone()
    }
}

struct OpaqueFloatOperands {
    /// Variables made so far (for their names).
    vars: usize,
    /// The bindings of the statement being rewritten, in evaluation order.
    pending: Vec<(Var, PrimExpr)>,
}

impl Mutator for OpaqueFloatOperands {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        // Child statements bind their own operands: only the expressions of `s` itself (a
        // store's value and indices, a condition, loop bounds) bind here.
        if let StmtKind::While { cond, body } = s.kind() {
            // The condition is evaluated before every iteration and may read what the body
            // stores: operands bound before the loop would be evaluated once. It stays as it is.
            return Stmt::new(StmtKind::While {
                cond: cond.clone(),
                body: self.stmt(body),
            });
        }
        let outer = std::mem::take(&mut self.pending);
        let mut out = walk_stmt(self, s);
        // TVM's vectorizer loses let-bound variables in the body ("variables (f8,) are used,
        // but are not passed in as API arguments"); the generator's vectorized loops have
        // independent iterations, so the serial loop computes the same.
        if let StmtKind::For(f) = out.kind()
            && f.kind == ForKind::Vectorized
        {
            out = Stmt::new(StmtKind::For(For {
                kind: ForKind::Serial,
                ..f.clone()
            }));
        }
        let bindings = std::mem::replace(&mut self.pending, outer);
        if bindings.is_empty() {
            return out;
        }
        for (var, value) in bindings.into_iter().rev() {
            out = Stmt::new(StmtKind::LetStmt {
                var,
                value,
                body: out,
            });
        }
        // Alone in the branch of an `if True:`, the bindings are the last statements of their
        // block and print in TVM 0.27's flat form (`v: T.let[...] = ...`); followed by other
        // statements they would print as `with T.LetStmt(...)`, which TVM 0.27 does not read.
        Stmt::new(StmtKind::IfThenElse {
            cond: PrimExpr::bool(true),
            then_case: out,
            else_case: None,
        })
    }

    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        let e = walk_expr(self, e);
        match e.kind() {
            ExprKind::Binary { op, a, b } if e.dtype().is_float() && !e.dtype().is_vector() => {
                let mut opaque = |x: &PrimExpr| {
                    let var = Var::new(format!("f{}", self.vars), x.dtype());
                    self.vars += 1;
                    self.pending.push((var.clone(), x.clone()));
                    let v = PrimExpr::from(var);
                    // TVM's LLVM backend has no `copysign` for float16: through float32,
                    // which holds every float16 exactly.
                    if x.dtype().bits == 16 {
                        let w = PrimExpr::cast(DataType::FLOAT32, v);
                        let c = PrimExpr::call(DataType::FLOAT32, "copysign", vec![w.clone(), w]);
                        return PrimExpr::cast(x.dtype(), c);
                    }
                    PrimExpr::call(x.dtype(), "copysign", vec![v.clone(), v])
                };
                let (a, b) = (opaque(a), opaque(b));
                PrimExpr::binary(*op, a, b)
            }
            _ => e,
        }
    }
}

/// `func` with every integer → integer cast that can wrap (to fewer bits, or to as many of the
/// other signedness) written `T.bitwise_or(cast, 0)`: the same value, but one whose bounds
/// TVM's analyzer does not derive from the cast's operand. It takes a narrowing cast of a
/// non-negative value as non-negative, although the cast wraps (`T.Cast("int8", i)` for `i`
/// in 128..255 is negative), and lowers a floor modulo of it to a truncating one.
pub fn opaque_narrowing_casts(func: &PrimFunc) -> PrimFunc {
    PrimFunc {
        body: OpaqueNarrowingCasts.stmt(&func.body),
        ..func.clone()
    }
}

struct OpaqueNarrowingCasts;

impl Mutator for OpaqueNarrowingCasts {
    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        let e = walk_expr(self, e);
        if let ExprKind::Cast { dtype, value } = e.kind() {
            let from = value.dtype();
            let wraps = dtype.bits < from.bits
                || (dtype.bits == from.bits && dtype.is_int() != from.is_int());
            if dtype.is_int_or_uint() && from.is_int_or_uint() && !dtype.is_vector() && wraps {
                return PrimExpr::call(
                    *dtype,
                    "bitwise_or",
                    vec![e.clone(), PrimExpr::int(*dtype, 0)],
                );
            }
        }
        e
    }
}
