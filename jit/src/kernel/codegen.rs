//! TIR → Cranelift IR for one lowered PrimFunc ([`tir::transform::LoweredFunc`]).
//!
//! The generated function has the kernel ABI ([`crate::kernel::abi`]). Its shape:
//!
//! 1. **Prologue.** Arity; then per parameter its kind, rank and dtype, its data pointer and its
//!    symbolic dimensions ([`DimRule::Bind`]); then every other dimension and stride is compared
//!    with its expected value ([`DimRule::Check`]). Any mismatch stores the numbers into `*err`
//!    and leaves through the exit block before the body reads memory.
//! 2. **Body.** Loops become counted loops on Cranelift variables; loads and stores address
//!    `data + index * size` of a flat buffer. An index that neither the bounds analysis
//!    ([`tir::arith::int_bound`]) nor the symbolic prover (`symbolic`, for loops over shape
//!    variables) can place inside `[0, extent)` is compared with the extent first
//!    (`ERR_BOUNDS`). A reduction whose accumulator is one element keeps it in a register
//!    across its loop ([`Translator::promotion_plan`]). Integer division guards against zero divisors (`ERR_DIV_ZERO`) and
//!    never traps on `MIN / -1`. Float-to-int conversions saturate, so no input traps.
//! 3. **Exit block.** Frees heap allocations that are still live and returns the status.
//!
//! Semantics follow TVM's LLVM backend where they are observable: `min`/`max` are
//! `select(a < b, a, b)` / `select(a > b, a, b)` (NaN-asymmetric), float `!=` is *ordered*
//! (NaN != x is false), casts to bool compare with zero (ordered for floats), `if_then_else`
//! evaluates only the chosen branch, `Select` evaluates both. `float16`/`bfloat16` values live
//! in `f32` registers and are rounded to their type after every operation, which is what LLVM's
//! promotion of half arithmetic does.
//!
//! Calls out of the code (math functions without an inline lowering, half conversions,
//! allocation, the sort helpers) load a function pointer from the runtime table argument and
//! call it indirectly; the code has no relocations to outside symbols.

use std::collections::{HashMap, HashSet};

use crate::code::CodeBuilder;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind,
    Type, Value, types,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, Variable};
use tir::transform::{DimRule, LoweredFunc, ParamKind, has_load};
use tir::{BinaryOp, CmpOp, DataType, ExprKind, PrimExpr, Stmt, StmtKind, TypeCode, Var, VarId};

use crate::error::{Error, Result};
use crate::isa::HostFeatures;
use crate::kernel::abi::*;
use crate::kernel::meta::{DimMeta, KernelMeta, ParamMeta, TensorMeta, expected_packed_dtype};
use crate::kernel::runtime::{BinaryFn, RuntimeTable, SortOp, UnaryFn, offsets};
use crate::math::{self, FloatClass, MathFn};

/// Total bytes of constant-size allocations placed on the stack; larger ones go to the heap.
/// Kept at one page: Cranelift emits no stack probes here, so a frame must not skip the guard.
const STACK_BUDGET: i64 = 4096;

fn unsupported<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::Unsupported(msg.into()))
}

/// The Cranelift type holding a TIR scalar of type `dt`.
pub(crate) fn cl_type(dt: DataType) -> Result<Type> {
    if dt.lanes != 1 {
        return unsupported(format!("vector type {dt} in scalar code"));
    }
    if dt.is_bool() {
        return Ok(types::I8);
    }
    Ok(match (dt.code, dt.bits) {
        (TypeCode::Int | TypeCode::UInt, 8) => types::I8,
        (TypeCode::Int | TypeCode::UInt, 16) => types::I16,
        (TypeCode::Int | TypeCode::UInt, 32) => types::I32,
        (TypeCode::Int | TypeCode::UInt, 64) => types::I64,
        (TypeCode::Float, 16) | (TypeCode::Float, 32) | (TypeCode::BFloat, 16) => types::F32,
        (TypeCode::Float, 64) => types::F64,
        (TypeCode::Handle, 64) => types::I64,
        _ => return unsupported(format!("data type {dt}")),
    })
}

/// Whether evaluating `e` can end the kernel with an error: a load (its bounds check), an
/// integer division or remainder (a zero divisor), or a call (`truncmod`, a helper). `and` and
/// `or` evaluate such a right operand only when the left one does not decide, as TIR's
/// semantics (and the reference interpreter) have it.
fn may_fail(e: &PrimExpr) -> bool {
    let mut found = false;
    e.visit(&mut |x| {
        found |= match x.kind() {
            ExprKind::BufferLoad { .. } | ExprKind::Call { .. } => true,
            ExprKind::Binary { op, a, .. } => {
                !a.dtype().is_float()
                    && matches!(
                        op,
                        BinaryOp::Div | BinaryOp::Mod | BinaryOp::FloorDiv | BinaryOp::FloorMod
                    )
            }
            _ => false,
        }
    });
    found
}

/// Bytes one element of `dt` occupies in memory (bool: one byte).
fn mem_bytes(dt: DataType) -> i64 {
    if dt.is_bool() {
        1
    } else {
        (dt.bits as i64 + 7) / 8
    }
}

/// The inline (branch-free, vectorizable) lowering of a TIR math intrinsic, if there is one.
fn inline_math(op: &str) -> Option<MathFn> {
    Some(match op {
        "exp" => MathFn::Exp,
        "exp2" => MathFn::Exp2,
        "expm1" => MathFn::Expm1,
        "log" => MathFn::Log,
        "log2" => MathFn::Log2,
        "log10" => MathFn::Log10,
        "log1p" => MathFn::Log1p,
        "sqrt" => MathFn::Sqrt,
        "rsqrt" => MathFn::Rsqrt,
        "tanh" => MathFn::Tanh,
        "sigmoid" => MathFn::Sigmoid,
        "erf" => MathFn::Erf,
        "sin" => MathFn::Sin,
        "cos" => MathFn::Cos,
        "floor" => MathFn::Floor,
        "ceil" => MathFn::Ceil,
        "trunc" => MathFn::Trunc,
        // TVM lowers `round` to `llvm.nearbyint`: ties to even, like `nearbyint` and `rint`.
        "round" | "nearbyint" | "rint" => MathFn::Nearest,
        "fabs" | "abs" => MathFn::Abs,
        _ => return None,
    })
}

/// `(x, y, z)` if `a op b` is `x * y + z` (or `z + x * y`) on `float32`/`float64` scalars: the
/// candidates for contraction into one fused multiply-add. TVM's LLVM backend builds its
/// target machine with `AllowFPOpFusion = Fast`, so LLVM contracts exactly these on hosts with
/// FMA (while it never reassociates: `UnsafeFPMath` is off); doing the same keeps our results
/// closest to TVM's, one rounding instead of two.
pub(crate) fn mul_add_operands<'e>(
    op: BinaryOp,
    a: &'e PrimExpr,
    b: &'e PrimExpr,
) -> Option<(&'e PrimExpr, &'e PrimExpr, &'e PrimExpr)> {
    let dt = a.dtype();
    if op != BinaryOp::Add || dt.code != TypeCode::Float || !matches!(dt.bits, 32 | 64) {
        return None;
    }
    let mul = |e: &'e PrimExpr| match e.kind() {
        ExprKind::Binary {
            op: BinaryOp::Mul,
            a,
            b,
        } if a.dtype() == dt && b.dtype() == dt => Some((a, b)),
        _ => None,
    };
    if let Some((x, y)) = mul(a) {
        return Some((x, y, b));
    }
    mul(b).map(|(x, y)| (x, y, a))
}

/// An expression as it reads in a message: constants without their `T.int64(…)` wrapper.
fn short(e: &PrimExpr) -> String {
    match e.as_int() {
        Some(v) => v.to_string(),
        None => e.to_string(),
    }
}

fn is_half(dt: DataType) -> bool {
    (dt.code == TypeCode::Float && dt.bits == 16) || dt.code == TypeCode::BFloat
}

/// A reduction accumulator kept in a register ([`Translator::promotion_plan`]).
struct Accumulator<'s> {
    buffer: &'s tir::Buffer,
    /// The index loads are matched by (deep equality: same variables, not same names).
    index: &'s PrimExpr,
}

/// Translates one function. `b` is a fresh builder on a function whose signature is the
/// kernel ABI.
pub(crate) struct Translator<'a, 'b> {
    pub(crate) b: &'a mut FunctionBuilder<'b>,
    call_conv: CallConv,
    host: HostFeatures,
    vars: HashMap<VarId, Variable>,
    /// Known inclusive ranges of integer variables (loop variables with constant bounds).
    ranges: tir::arith::VarRanges,
    /// Element counts of buffers by data variable (for `tvm_stack_make_array` checks).
    extents: HashMap<VarId, (PrimExpr, DataType)>,
    rt: Value,
    err: Value,
    exit: Block,
    /// Heap allocations: (pointer variable, byte-count variable); null when not live.
    heap: Vec<(Variable, Variable)>,
    /// Index into `heap` of each heap-allocated buffer, by data variable.
    heap_index: HashMap<VarId, usize>,
    stack_used: i64,
    sigs: HashMap<(Vec<Type>, Vec<Type>), cranelift_codegen::ir::SigRef>,
    /// Distinct buffer parameters do not overlap (`tirx.noalias`): loops may be vectorized.
    no_alias: bool,
    /// Whether to try vector code at all.
    vectorize: bool,
    /// Whether reduction accumulators may live in registers ([`Translator::promotion_plan`]).
    promote: bool,
    /// Whether `a * b + c` on floats may become one fused multiply-add ([`mul_add_operands`]).
    contract: bool,
    /// Accumulators held in registers: (buffer data variable, index, variable).
    promoted: Vec<(VarId, PrimExpr, Variable)>,
    /// `int64` dimensions bound from argument shapes: never negative ([`symbolic`]).
    shape_vars: HashSet<VarId>,
    /// The enclosing loops, outermost first.
    loops: Vec<symbolic::LoopRange>,
    /// Uniform operands of the current vector loop, splatted in its preheader (keyed by deep
    /// equality, never by text: distinct buffers may share a name).
    hoisted: HashMap<PrimExpr, Value>,
    /// The module, to declare outlined parallel loop bodies in; `None` keeps loops serial.
    module: Option<&'a mut CodeBuilder>,
    /// Loops outlined so far.
    outlines: Vec<Outline>,
    /// Loop nesting depth at the current statement.
    depth: usize,
    pub(crate) meta: KernelMeta,
}

mod parallel;
mod simd;
mod symbolic;

pub(crate) use parallel::{Outline, outline_signature};

/// How to translate.
pub(crate) struct Options<'a> {
    /// The calling convention of the kernel and of runtime-table functions.
    pub call_conv: CallConv,
    /// What the ISA lowers natively.
    pub host: HostFeatures,
    /// Try vector code.
    pub vectorize: bool,
    /// Keep reduction accumulators in registers across their loop.
    pub promote: bool,
    /// Contract float `a * b + c` into `fma` where the host has it.
    pub contract: bool,
    /// Where to declare outlined parallel loops (`None`: everything serial).
    pub module: Option<&'a mut CodeBuilder>,
}

fn flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

impl<'a, 'b> Translator<'a, 'b> {
    /// Emits the whole kernel into `b` and finalizes it.
    fn new(
        b: &'a mut FunctionBuilder<'b>,
        opts: Options<'a>,
        no_alias: bool,
        meta: KernelMeta,
        params: &[Value],
    ) -> Translator<'a, 'b> {
        let exit = b.create_block();
        b.append_block_param(exit, types::I32);
        Translator {
            b,
            call_conv: opts.call_conv,
            host: opts.host,
            vars: HashMap::new(),
            ranges: HashMap::new(),
            extents: HashMap::new(),
            rt: params[params.len() - 2],
            err: params[params.len() - 1],
            exit,
            heap: Vec::new(),
            heap_index: HashMap::new(),
            stack_used: 0,
            sigs: HashMap::new(),
            no_alias,
            vectorize: opts.vectorize,
            promote: opts.promote,
            contract: opts.contract && opts.host.has_fma,
            promoted: Vec::new(),
            shape_vars: HashSet::new(),
            loops: Vec::new(),
            hoisted: HashMap::new(),
            module: opts.module,
            outlines: Vec::new(),
            depth: 0,
            meta,
        }
    }

    /// Emits the whole kernel into `b` (not finalized). Returns its metadata and the loops it
    /// outlined for parallel execution, which the caller compiles with
    /// [`Translator::translate_outline`].
    pub(crate) fn translate(
        b: &'a mut FunctionBuilder<'b>,
        func: &LoweredFunc,
        opts: Options<'a>,
    ) -> Result<(KernelMeta, Vec<Outline>)> {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let meta = KernelMeta {
            name: func.name.clone(),
            symbol: func.symbol.clone(),
            ..KernelMeta::default()
        };
        let mut t = Translator::new(b, opts, func.no_alias, meta, &params);
        t.prologue(func, params[0], params[1])?;
        t.stmt(&func.body)?;
        t.finish()?;
        Ok((t.meta, t.outlines))
    }

    /// Jumps to the exit block with success, frees live heap buffers there and returns.
    fn finish(&mut self) -> Result<()> {
        let ok = self.b.ins().iconst(types::I32, STATUS_OK as i64);
        self.b.ins().jump(self.exit, &[BlockArg::Value(ok)]);
        self.b.switch_to_block(self.exit);
        let status = self.b.block_params(self.exit)[0];
        for (ptr, bytes) in self.heap.clone() {
            let (p, n) = (self.b.use_var(ptr), self.b.use_var(bytes));
            self.call_rt(offsets::FREE, &[types::I64, types::I64], &[], &[p, n]);
        }
        self.b.ins().return_(&[status]);
        self.b.seal_all_blocks();
        Ok(())
    }

    // ---- helpers -------------------------------------------------------------------------

    fn iconst(&mut self, ty: Type, v: i64) -> Value {
        self.b.ins().iconst(ty, v)
    }

    /// Stores the failure into `*err` and jumps to the exit block. Leaves the builder in a
    /// fresh unreachable block so that callers may keep emitting.
    fn fail(&mut self, code: i32, arg: i64, dim: i64, expected: Value, actual: Value) {
        let err = self.err;
        let k = self.iconst(types::I32, code as i64);
        let a = self.iconst(types::I32, arg);
        let d = self.iconst(types::I32, dim);
        self.b.ins().store(flags(), k, err, ERR_KIND_OFFSET);
        self.b.ins().store(flags(), a, err, ERR_ARG_OFFSET);
        self.b.ins().store(flags(), d, err, ERR_DIM_OFFSET);
        let ex = self.widen_i64(expected);
        let ac = self.widen_i64(actual);
        self.b.ins().store(flags(), ex, err, ERR_EXPECTED_OFFSET);
        self.b.ins().store(flags(), ac, err, ERR_ACTUAL_OFFSET);
        self.b.ins().jump(self.exit, &[BlockArg::Value(k)]);
    }

    fn widen_i64(&mut self, v: Value) -> Value {
        let ty = self.b.func.dfg.value_type(v);
        if ty == types::I64 {
            v
        } else if ty.is_int() && ty.bits() < 64 {
            self.b.ins().sextend(types::I64, v)
        } else {
            v
        }
    }

    /// Continues only if `ok` (an integer, nonzero = true); otherwise runs `on_fail` in a cold
    /// block (which must end by jumping away, as [`Self::fail`] does).
    /// Zeroes `bytes` (a multiple of 8) at `p`: a stack buffer starts zeroed, as the
    /// interpreter's allocations and the heap path's (`calloc`) do, so that a program reading
    /// scratch it never wrote gets zeros in every mode, never earlier contents of the stack.
    fn zero_words(&mut self, p: Value, bytes: i64) {
        let zero = self.iconst(types::I64, 0);
        if bytes <= 128 {
            for at in (0..bytes).step_by(8) {
                self.b.ins().store(flags(), zero, p, at as i32);
            }
            return;
        }
        let end = self.b.ins().iadd_imm_s(p, bytes);
        let body = self.b.create_block();
        let at = self.b.append_block_param(body, types::I64);
        let done = self.b.create_block();
        self.b.ins().jump(body, &[p.into()]);
        self.b.switch_to_block(body);
        self.b.ins().store(flags(), zero, at, 0);
        let next = self.b.ins().iadd_imm_s(at, 8);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, next, end);
        self.b.ins().brif(more, body, &[next.into()], done, &[]);
        self.b.switch_to_block(done);
    }

    fn guard(&mut self, ok: Value, on_fail: impl FnOnce(&mut Self)) {
        let bad = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(bad);
        self.b.ins().brif(ok, cont, &[], bad, &[]);
        self.b.switch_to_block(bad);
        on_fail(self);
        self.b.switch_to_block(cont);
    }

    /// Calls the runtime-table entry at `offset` with the given signature.
    fn call_rt(
        &mut self,
        offset: i32,
        params: &[Type],
        rets: &[Type],
        args: &[Value],
    ) -> Vec<Value> {
        let key = (params.to_vec(), rets.to_vec());
        let sig = match self.sigs.get(&key) {
            Some(s) => *s,
            None => {
                let mut s = Signature::new(self.call_conv);
                s.params.extend(params.iter().map(|t| AbiParam::new(*t)));
                s.returns.extend(rets.iter().map(|t| AbiParam::new(*t)));
                let r = self.b.import_signature(s);
                self.sigs.insert(key, r);
                r
            }
        };
        let f = self.b.ins().load(
            types::I64,
            MemFlagsData::trusted().with_readonly(),
            self.rt,
            offset,
        );
        let call = self.b.ins().call_indirect(sig, f, args);
        self.b.inst_results(call).to_vec()
    }

    fn var_of(&mut self, v: &Var) -> Result<Variable> {
        if let Some(x) = self.vars.get(&v.id()) {
            return Ok(*x);
        }
        unsupported(format!("variable `{}` is not bound", v.name()))
    }

    fn define(&mut self, v: &Var, value: Value) -> Result<()> {
        let ty = cl_type(v.dtype())?;
        let var = match self.vars.get(&v.id()) {
            Some(x) => *x,
            None => {
                let x = self.b.declare_var(ty);
                self.vars.insert(v.id(), x);
                x
            }
        };
        self.b.def_var(var, value);
        Ok(())
    }

    // ---- prologue ------------------------------------------------------------------------

    fn prologue(&mut self, func: &LoweredFunc, args: Value, nargs: Value) -> Result<()> {
        let n = func.params.len() as i64;
        let ok = self.b.ins().icmp_imm_s(IntCC::Equal, nargs, n);
        self.guard(ok, |t| {
            let e = t.iconst(types::I64, n);
            t.fail(ERR_ARITY, 0, 0, e, nargs);
        });
        // Where each symbolic variable was bound, for messages.
        let mut origin: HashMap<VarId, (String, usize, usize)> = HashMap::new();
        let mut shapes: Vec<Option<Value>> = Vec::new();
        for (i, p) in func.params.iter().enumerate() {
            let base = self.b.ins().iadd_imm_s(args, i as i64 * ARG_SIZE);
            let kind = self
                .b
                .ins()
                .load(types::I32, flags(), base, ARG_KIND_OFFSET);
            match &p.kind {
                ParamKind::Scalar(v) => {
                    let dt = v.dtype();
                    self.meta.params.push(ParamMeta {
                        name: p.name.clone(),
                        tensor: None,
                        scalar: Some(dt),
                    });
                    let raw = self
                        .b
                        .ins()
                        .load(types::I64, flags(), base, ARG_SCALAR_OFFSET);
                    let value = if dt.is_float() {
                        // Ints are accepted for float parameters, as TVM converts them.
                        let is_float =
                            self.b
                                .ins()
                                .icmp_imm_s(IntCC::Equal, kind, ARG_FLOAT as i64);
                        let is_int = self.b.ins().icmp_imm_s(IntCC::Equal, kind, ARG_INT as i64);
                        let ok = self.b.ins().bor(is_float, is_int);
                        self.guard(ok, |t| {
                            let e = t.iconst(types::I64, ARG_FLOAT as i64);
                            t.fail(ERR_KIND, i as i64, 0, e, kind);
                        });
                        let as_f = self.b.ins().bitcast(types::F64, MemFlagsData::new(), raw);
                        let from_i = self.b.ins().fcvt_from_sint(types::F64, raw);
                        let f = self.b.ins().select(is_float, as_f, from_i);
                        let ty = cl_type(dt)?;
                        let f = if ty == types::F32 {
                            self.b.ins().fdemote(types::F32, f)
                        } else {
                            f
                        };
                        self.round_half(f, dt)
                    } else {
                        let ok = self.b.ins().icmp_imm_s(IntCC::Equal, kind, ARG_INT as i64);
                        self.guard(ok, |t| {
                            let e = t.iconst(types::I64, ARG_INT as i64);
                            t.fail(ERR_KIND, i as i64, 0, e, kind);
                        });
                        let ty = cl_type(dt)?;
                        if dt.is_bool() {
                            self.b.ins().icmp_imm_s(IntCC::NotEqual, raw, 0)
                        } else if ty.bits() < 64 {
                            self.b.ins().ireduce(ty, raw)
                        } else {
                            raw
                        }
                    };
                    self.define(v, value)?;
                    shapes.push(None);
                }
                ParamKind::Buffer(bp) => {
                    let ok = self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::Equal, kind, ARG_TENSOR as i64);
                    self.guard(ok, |t| {
                        let e = t.iconst(types::I64, ARG_TENSOR as i64);
                        t.fail(ERR_KIND, i as i64, 0, e, kind);
                    });
                    let rank = bp.dims.len() as i64;
                    let ndim = self
                        .b
                        .ins()
                        .load(types::I32, flags(), base, ARG_NDIM_OFFSET);
                    let ok = self.b.ins().icmp_imm_s(IntCC::Equal, ndim, rank);
                    self.guard(ok, |t| {
                        let e = t.iconst(types::I64, rank);
                        t.fail(ERR_RANK, i as i64, 0, e, ndim);
                    });
                    let want = expected_packed_dtype(bp.dtype) as i64;
                    let dtype = self
                        .b
                        .ins()
                        .load(types::I32, flags(), base, ARG_DTYPE_OFFSET);
                    let ok = self.b.ins().icmp_imm_s(IntCC::Equal, dtype, want);
                    self.guard(ok, |t| {
                        let e = t.iconst(types::I64, want);
                        let a = t.b.ins().uextend(types::I64, dtype);
                        t.fail(ERR_DTYPE, i as i64, 0, e, a);
                    });
                    let data = self
                        .b
                        .ins()
                        .load(types::I64, flags(), base, ARG_DATA_OFFSET);
                    self.define(&bp.data, data)?;
                    self.extents
                        .insert(bp.data.id(), (bp.flat.shape[0].clone(), bp.dtype));
                    let shape = self
                        .b
                        .ins()
                        .load(types::I64, flags(), base, ARG_SHAPE_OFFSET);
                    let mut dims = Vec::new();
                    for (d, r) in bp.dims.iter().enumerate() {
                        dims.push(match r {
                            DimRule::Bind(v) => {
                                origin.insert(v.id(), (v.name().to_string(), i, d));
                                let x = self.b.ins().load(types::I64, flags(), shape, d as i32 * 8);
                                let x = self.int_to(x, v.dtype())?;
                                self.define(v, x)?;
                                if v.dtype() == DataType::INT64 {
                                    self.shape_vars.insert(v.id());
                                }
                                DimMeta::Bind(v.name().to_string())
                            }
                            DimRule::Check(e) => DimMeta::Check {
                                expr: short(e),
                                origin: None,
                            },
                        });
                    }
                    for r in &bp.strides {
                        if let DimRule::Bind(v) = r {
                            origin.insert(v.id(), (v.name().to_string(), i, 0));
                        }
                    }
                    self.meta.params.push(ParamMeta {
                        name: p.name.clone(),
                        tensor: Some(TensorMeta {
                            dtype: bp.dtype,
                            shape: bp.shape.iter().map(short).collect(),
                            dims,
                        }),
                        scalar: None,
                    });
                    shapes.push(Some(shape));
                }
            }
        }
        // Strides bind after all dimensions (they are computed from them).
        for (i, p) in func.params.iter().enumerate() {
            let (ParamKind::Buffer(bp), Some(shape)) = (&p.kind, shapes[i]) else {
                continue;
            };
            if bp.strides.is_empty() {
                continue;
            }
            let rank = bp.dims.len();
            let mut compact = vec![self.iconst(types::I64, 1); rank];
            for d in (0..rank.saturating_sub(1)).rev() {
                let n = self
                    .b
                    .ins()
                    .load(types::I64, flags(), shape, (d as i32 + 1) * 8);
                compact[d] = self.b.ins().imul(compact[d + 1], n);
            }
            for (d, r) in bp.strides.iter().enumerate() {
                match r {
                    DimRule::Bind(v) => {
                        let x = self.int_to(compact[d], v.dtype())?;
                        self.define(v, x)?;
                    }
                    DimRule::Check(e) => {
                        let want = self.expr(e)?;
                        let want = self.int_to_i64(want, e.dtype());
                        let ok = self.b.ins().icmp(IntCC::Equal, want, compact[d]);
                        let actual = compact[d];
                        self.guard(ok, |t| t.fail(ERR_STRIDE, i as i64, d as i64, want, actual));
                    }
                }
            }
        }
        for (i, p) in func.params.iter().enumerate() {
            let (ParamKind::Buffer(bp), Some(shape)) = (&p.kind, shapes[i]) else {
                continue;
            };
            for (d, r) in bp.dims.iter().enumerate() {
                let DimRule::Check(e) = r else { continue };
                if let Some(v) = e.as_var()
                    && let Some(o) = origin.get(&v.id())
                    && let Some(TensorMeta { dims, .. }) = self.meta.params[i].tensor.as_mut()
                {
                    dims[d] = DimMeta::Check {
                        expr: short(e),
                        origin: Some(o.clone()),
                    };
                }
                let want = self.expr(e)?;
                let want = self.int_to_i64(want, e.dtype());
                let actual = self.b.ins().load(types::I64, flags(), shape, d as i32 * 8);
                let ok = self.b.ins().icmp(IntCC::Equal, want, actual);
                self.guard(ok, |t| t.fail(ERR_DIM, i as i64, d as i64, want, actual));
            }
        }
        self.prepare_heap(&func.body)?;
        Ok(())
    }

    /// An `i64` converted to the integer type `dt`.
    fn int_to(&mut self, x: Value, dt: DataType) -> Result<Value> {
        let ty = cl_type(dt)?;
        if !ty.is_int() {
            return unsupported(format!("symbolic variable of type {dt}"));
        }
        Ok(if ty.bits() < 64 {
            self.b.ins().ireduce(ty, x)
        } else {
            x
        })
    }

    /// An integer value of TIR type `dt` widened to `i64`.
    fn int_to_i64(&mut self, x: Value, dt: DataType) -> Value {
        let ty = self.b.func.dfg.value_type(x);
        if ty == types::I64 {
            x
        } else if dt.is_int() {
            self.b.ins().sextend(types::I64, x)
        } else {
            self.b.ins().uextend(types::I64, x)
        }
    }

    /// Creates, in the entry path, the variables of every heap allocation (null, 0) so that
    /// the exit block can free whatever is live on any path.
    fn prepare_heap(&mut self, body: &Stmt) -> Result<()> {
        let mut heap_sites = Vec::new();
        let mut stack = 0i64;
        body.visit(&mut |s| {
            if let StmtKind::Allocate {
                buffer_var,
                dtype,
                extents,
                ..
            } = s.kind()
            {
                let n = extents.first().and_then(|e| e.as_int());
                let bytes = n.and_then(|n| n.checked_mul(mem_bytes(*dtype)));
                match bytes {
                    Some(b) if b >= 0 && stack + (b + 63) / 64 * 64 <= STACK_BUDGET => {
                        stack += (b + 63) / 64 * 64;
                    }
                    _ => heap_sites.push(buffer_var.clone()),
                }
            }
        });
        for v in heap_sites {
            let ptr = self.b.declare_var(types::I64);
            let bytes = self.b.declare_var(types::I64);
            let zero = self.iconst(types::I64, 0);
            self.b.def_var(ptr, zero);
            self.b.def_var(bytes, zero);
            self.heap_index.insert(v.id(), self.heap.len());
            self.heap.push((ptr, bytes));
        }
        Ok(())
    }
}

// ---- statements ----------------------------------------------------------------------------

impl Translator<'_, '_> {
    pub(crate) fn stmt(&mut self, s: &Stmt) -> Result<()> {
        match s.kind() {
            StmtKind::For(f) => {
                if self.depth == 0
                    && let Some(plan) = self.parallel_plan(f)
                {
                    return self.parallel_loop(f, plan);
                }
                self.depth += 1;
                let r = self.for_loop(f);
                self.depth -= 1;
                r
            }
            StmtKind::SBlockRealize(r) => {
                unsupported(format!("block `{}` survived lowering", r.block.name))
            }
            StmtKind::BufferStore {
                buffer,
                value,
                indices,
            } => {
                let v = self.expr(value)?;
                let addr = self.address(buffer, indices)?;
                self.store_elem(buffer.dtype, v, addr)
            }
            StmtKind::LetStmt { var, value, body } => {
                let v = self.expr(value)?;
                self.define(var, v)?;
                self.stmt(body)
            }
            StmtKind::IfThenElse {
                cond,
                then_case,
                else_case,
            } => {
                let c = self.expr(cond)?;
                let then_b = self.b.create_block();
                let merge = self.b.create_block();
                let else_b = if else_case.is_some() {
                    self.b.create_block()
                } else {
                    merge
                };
                self.b.ins().brif(c, then_b, &[], else_b, &[]);
                self.b.switch_to_block(then_b);
                self.stmt(then_case)?;
                self.b.ins().jump(merge, &[]);
                if let Some(e) = else_case {
                    self.b.switch_to_block(else_b);
                    self.stmt(e)?;
                    self.b.ins().jump(merge, &[]);
                }
                self.b.switch_to_block(merge);
                Ok(())
            }
            StmtKind::While { cond, body } => {
                // The condition is evaluated again in the header on every iteration; the body
                // adds no variable range, so its loads and stores keep their bounds checks
                // unless their indices are proven from the loops around the `while`.
                let header = self.b.create_block();
                let body_b = self.b.create_block();
                let exit = self.b.create_block();
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(header);
                let c = self.expr(cond)?;
                self.b.ins().brif(c, body_b, &[], exit, &[]);
                self.b.switch_to_block(body_b);
                self.depth += 1;
                let r = self.stmt(body);
                self.depth -= 1;
                r?;
                self.b.ins().jump(header, &[]);
                self.b.switch_to_block(exit);
                Ok(())
            }
            StmtKind::Seq(v) => v.iter().try_for_each(|s| self.stmt(s)),
            StmtKind::Evaluate(e) => match e.kind() {
                ExprKind::Call { op, args, .. } if op == "call_packed" => self.call_packed(args),
                ExprKind::IntImm { .. } => Ok(()),
                _ => self.expr(e).map(|_| ()),
            },
            StmtKind::Allocate {
                buffer_var,
                dtype,
                extents,
                body,
                ..
            } => self.allocate(buffer_var, *dtype, extents, body),
            StmtKind::DeclBuffer { buffer, body } => {
                if let Some(n) = buffer.shape.first() {
                    self.extents
                        .insert(buffer.data.id(), (n.clone(), buffer.dtype));
                }
                self.stmt(body)
            }
            StmtKind::AssertStmt {
                cond,
                message,
                body,
            } => {
                let site = self.meta.asserts.len() as i64;
                self.meta.asserts.push(match message.kind() {
                    ExprKind::StringImm(m) => m.clone(),
                    _ => message.to_string(),
                });
                let c = self.expr(cond)?;
                self.guard(c, |t| {
                    let z = t.iconst(types::I64, 0);
                    t.fail(ERR_ASSERT, site, 0, z, z);
                });
                self.stmt(body)
            }
            StmtKind::AttrStmt { body, .. } => self.stmt(body),
        }
    }

    fn for_loop(&mut self, f: &tir::For) -> Result<()> {
        let min = self.expr(&f.min)?;
        let ext = self.expr(&f.extent)?;
        let ty = cl_type(f.loop_var.dtype())?;
        let (min, ext) = (self.coerce_int(min, ty), self.coerce_int(ext, ty));
        if let Some(lanes) = self.vector_plan(f) {
            return self.vector_loop(f, lanes, min, ext);
        }
        if let Some(accs) = self.promotion_plan(f) {
            return self.promoted_loop(f, min, ext, accs);
        }
        let end = self.b.ins().iadd(min, ext);
        self.define(&f.loop_var, min)?;
        self.serial_loop(f, end)
    }

    /// A reduction loop whose accumulators can live in registers: the body is a sequence of
    /// stores `B_s[idx_s] = value_s` where each `idx_s` is free of loads and of the loop
    /// variable, the accumulators are provably distinct elements (same buffer: indices differ
    /// by a nonzero constant), every load of a stored buffer is exactly one of the
    /// accumulators, and no index depends on memory. With distinct buffers disjoint
    /// (`tirx.noalias`; allocations never alias anything), nothing else in the loop touches
    /// the accumulators, so loading them once before the loop, updating registers in statement
    /// order and storing them once after gives the same memory and the same float operations in
    /// the same order. Only types whose register form is their memory form (no half floats, no
    /// bools).
    fn promotion_plan<'s>(&self, f: &'s tir::For) -> Option<Vec<Accumulator<'s>>> {
        if !self.promote || !self.no_alias {
            return None;
        }
        let body: Vec<&Stmt> = match f.body.kind() {
            StmtKind::Seq(v) => v.iter().collect(),
            _ => vec![&f.body],
        };
        let lv = &f.loop_var;
        let mut accs: Vec<Accumulator<'s>> = Vec::new();
        for s in body {
            let StmtKind::BufferStore {
                buffer, indices, ..
            } = s.kind()
            else {
                return None;
            };
            let [index] = indices.as_slice() else {
                return None;
            };
            let dt = buffer.dtype;
            if dt.lanes != 1 || dt.is_bool() || is_half(dt) || !matches!(dt.bits, 32 | 64) {
                return None;
            }
            if has_load(index) || index.uses_var(&|x| x == lv) {
                return None;
            }
            for a in &accs {
                if a.buffer.data.id() != buffer.data.id() || a.index == index {
                    continue;
                }
                let d = tir::arith::simplify(&PrimExpr::binary(
                    BinaryOp::Sub,
                    a.index.clone(),
                    index.clone(),
                ));
                if d.as_int().is_none_or(|c| c == 0) {
                    return None;
                }
            }
            if !accs
                .iter()
                .any(|a| a.buffer.data.id() == buffer.data.id() && a.index == index)
            {
                accs.push(Accumulator { buffer, index });
            }
        }
        // Loads of stored buffers must be accumulator reads.
        let mut ok = true;
        f.body.visit(&mut |s| {
            for e in s.exprs() {
                e.visit(&mut |x| {
                    if let ExprKind::BufferLoad { buffer, indices } = x.kind() {
                        ok &= indices.iter().all(|i| !has_load(i));
                        let id = buffer.data.id();
                        if accs.iter().any(|a| a.buffer.data.id() == id) {
                            ok &= indices.len() == 1
                                && accs
                                    .iter()
                                    .any(|a| a.buffer.data.id() == id && *a.index == indices[0]);
                        }
                    }
                });
            }
        });
        (ok && !accs.is_empty()).then_some(accs)
    }

    /// Emits a loop accepted by [`Self::promotion_plan`]: if it runs at all, each accumulator
    /// is loaded (bounds-checked) once, updated in a register and stored once.
    fn promoted_loop(
        &mut self,
        f: &tir::For,
        min: Value,
        ext: Value,
        accs: Vec<Accumulator<'_>>,
    ) -> Result<()> {
        let runs = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, ext, 0);
        let pre = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(runs, pre, &[], done, &[]);
        self.b.switch_to_block(pre);
        let mut regs = Vec::new();
        for a in &accs {
            let addr = self.address(a.buffer, std::slice::from_ref(a.index))?;
            let init = self.load_elem(a.buffer.dtype, addr)?;
            let var = self.b.declare_var(cl_type(a.buffer.dtype)?);
            self.b.def_var(var, init);
            regs.push((addr, var));
        }
        let depth = self.promoted.len();
        for (a, (_, var)) in accs.iter().zip(&regs) {
            self.promoted
                .push((a.buffer.data.id(), a.index.clone(), *var));
        }
        let end = self.b.ins().iadd(min, ext);
        self.define(&f.loop_var, min)?;
        // The stores in statement order: (accumulator, value).
        let order: Vec<(usize, &PrimExpr)> = match f.body.kind() {
            StmtKind::Seq(v) => v.iter().collect(),
            _ => vec![&f.body],
        }
        .into_iter()
        .filter_map(|s| match s.kind() {
            StmtKind::BufferStore {
                buffer,
                value,
                indices,
            } => accs
                .iter()
                .position(|a| {
                    a.buffer.data.id() == buffer.data.id()
                        && indices.first().is_some_and(|i| i == a.index)
                })
                .map(|k| (k, value)),
            _ => None,
        })
        .collect();
        let r = self.counted_loop(f, end, |t| {
            for (k, value) in &order {
                let v = t.expr(value)?;
                t.b.def_var(regs[*k].1, v);
            }
            Ok(())
        });
        self.promoted.truncate(depth);
        r?;
        self.meta.promoted_loops += 1;
        for (a, (addr, var)) in accs.iter().zip(&regs) {
            let v = self.b.use_var(*var);
            self.store_elem(a.buffer.dtype, v, *addr)?;
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Ok(())
    }

    /// The counted loop from the loop variable's current value to `end`.
    fn serial_loop(&mut self, f: &tir::For, end: Value) -> Result<()> {
        self.counted_loop(f, end, |t| t.stmt(&f.body))
    }

    /// A counted loop from the loop variable's current value to `end` with the given body.
    fn counted_loop(
        &mut self,
        f: &tir::For,
        end: Value,
        body_fn: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<()> {
        let var = self.var_of(&f.loop_var)?;
        let header = self.b.create_block();
        let body = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        let i = self.b.use_var(var);
        let c = self.b.ins().icmp(IntCC::SignedLessThan, i, end);
        self.b.ins().brif(c, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        let id = f.loop_var.id();
        let prev = self.ranges.remove(&id);
        if let Some(r) = tir::arith::loop_var_range(f) {
            self.ranges.insert(id, r);
        }
        self.loops.push(symbolic::LoopRange {
            var: f.loop_var.clone(),
            min: f.min.clone(),
            extent: f.extent.clone(),
        });
        let r = body_fn(self);
        self.loops.pop();
        r?;
        self.ranges.remove(&id);
        if let Some(p) = prev {
            self.ranges.insert(id, p);
        }
        let i = self.b.use_var(var);
        let next = self.b.ins().iadd_imm_s(i, 1);
        self.b.def_var(var, next);
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// An integer value converted to the integer type `ty` (sign-extending).
    fn coerce_int(&mut self, v: Value, ty: Type) -> Value {
        let vt = self.b.func.dfg.value_type(v);
        if vt == ty || !vt.is_int() || !ty.is_int() {
            v
        } else if vt.bits() < ty.bits() {
            self.b.ins().sextend(ty, v)
        } else {
            self.b.ins().ireduce(ty, v)
        }
    }

    fn allocate(
        &mut self,
        var: &Var,
        dtype: DataType,
        extents: &[PrimExpr],
        body: &Stmt,
    ) -> Result<()> {
        let Some(n) = extents.first() else {
            return unsupported("allocation without an extent");
        };
        let size = mem_bytes(dtype);
        // A `T.tvm_stack_make_array` of the allocation is checked against its elements.
        self.extents.insert(var.id(), (n.clone(), dtype));
        match self.heap_index.get(&var.id()).copied() {
            None => {
                let bytes = n.as_int().unwrap_or(0) * size;
                // Whole words, so that the slot can be zeroed by 8-byte stores.
                let slot_bytes = (bytes.max(1) + 7) / 8 * 8;
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    slot_bytes as u32,
                    6,
                ));
                self.stack_used += bytes;
                let p = self.b.ins().stack_addr(types::I64, slot, 0);
                self.zero_words(p, slot_bytes);
                self.define(var, p)?;
                self.stmt(body)
            }
            Some(h) => {
                let site = self.meta.allocs.len() as i64;
                self.meta.allocs.push(var.name().to_string());
                let count = self.expr(n)?;
                let count = self.int_to_i64(count, n.dtype());
                // Overflow of count * size is caught by the helper rejecting negative sizes
                // only if it wraps negative; check explicitly instead.
                let limit = i64::MAX / size;
                let fits = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, count, limit);
                self.guard(fits, |t| t.fail(ERR_ALLOC, site, 0, count, count));
                let bytes = self.b.ins().imul_imm_s(count, size);
                let p = self.call_rt(offsets::ALLOC, &[types::I64], &[types::I64], &[bytes])[0];
                let ok = self.b.ins().icmp_imm_s(IntCC::NotEqual, p, 0);
                self.guard(ok, |t| t.fail(ERR_ALLOC, site, 0, bytes, bytes));
                let (pv, bv) = self.heap[h];
                self.b.def_var(pv, p);
                self.b.def_var(bv, bytes);
                self.define(var, p)?;
                self.stmt(body)?;
                let (p, bytes) = (self.b.use_var(pv), self.b.use_var(bv));
                self.call_rt(offsets::FREE, &[types::I64, types::I64], &[], &[p, bytes]);
                let zero = self.iconst(types::I64, 0);
                self.b.def_var(pv, zero);
                self.b.def_var(bv, zero);
                Ok(())
            }
        }
    }

    /// `T.call_packed(name, args...)` of a sort-family helper: the arguments become
    /// [`KernelArg`]s on the stack.
    fn call_packed(&mut self, args: &[PrimExpr]) -> Result<()> {
        let name = match args.first().map(|a| a.kind()) {
            Some(ExprKind::StringImm(s)) => s.clone(),
            _ => return unsupported("call_packed without a function name"),
        };
        let Some(op) = SortOp::from_name(&name) else {
            return unsupported(format!("call_packed of `{name}`"));
        };
        let rest = &args[1..];
        let n = rest.len() as i64;
        let max_dims: i64 = rest
            .iter()
            .map(|a| match a.kind() {
                ExprKind::Call { op, args, .. } if op == "tvm_stack_make_array" => {
                    match args.get(1).map(|s| s.kind()) {
                        Some(ExprKind::Call { args: dims, .. }) => dims.len() as i64,
                        _ => 0,
                    }
                }
                _ => 0,
            })
            .sum();
        let bytes = n * ARG_SIZE + max_dims * 8;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            bytes.max(8) as u32,
            4,
        ));
        let base = self.b.ins().stack_addr(types::I64, slot, 0);
        let mut shape_off = n * ARG_SIZE;
        for (i, a) in rest.iter().enumerate() {
            let at = (i as i64 * ARG_SIZE) as i32;
            let zero = self.iconst(types::I64, 0);
            self.b
                .ins()
                .store(flags(), zero, base, at + ARG_SCALAR_OFFSET);
            self.b
                .ins()
                .store(flags(), zero, base, at + ARG_DATA_OFFSET);
            self.b
                .ins()
                .store(flags(), zero, base, at + ARG_SHAPE_OFFSET);
            let (kind, dtype, scalar) = match a.kind() {
                ExprKind::Call { op, args, .. } if op == "tvm_stack_make_array" => {
                    self.make_array(args, base, at, &mut shape_off)?;
                    continue;
                }
                ExprKind::IntImm { value, .. } => (ARG_INT, pack_dtype(0, 64, 1), *value),
                ExprKind::StringImm(s) => {
                    let code = match s.as_str() {
                        "both" => 0,
                        "values" => 1,
                        "indices" => 2,
                        _ => return unsupported(format!("string argument {s:?} of `{name}`")),
                    };
                    (ARG_INT, pack_dtype(0, 64, 1), code)
                }
                _ if a.dtype().is_int_or_uint() || a.dtype().is_bool() => {
                    let v = self.expr(a)?;
                    let v = self.int_to_i64(v, a.dtype());
                    self.b.ins().store(flags(), v, base, at + ARG_SCALAR_OFFSET);
                    (ARG_INT, pack_dtype(0, 64, 1), 0)
                }
                _ => return unsupported(format!("argument {a} of `{name}`")),
            };
            let s = self.iconst(types::I64, scalar);
            if scalar != 0 {
                self.b.ins().store(flags(), s, base, at + ARG_SCALAR_OFFSET);
            }
            let k = self.iconst(types::I32, kind as i64);
            self.b.ins().store(flags(), k, base, at + ARG_KIND_OFFSET);
            let d = self.iconst(types::I32, dtype as i64);
            self.b.ins().store(flags(), d, base, at + ARG_DTYPE_OFFSET);
            let z = self.iconst(types::I32, 0);
            self.b.ins().store(flags(), z, base, at + ARG_NDIM_OFFSET);
        }
        let op = self.iconst(types::I64, op as i64);
        let nargs = self.iconst(types::I64, n);
        let err = self.err;
        let status = self.call_rt(
            offsets::SORT,
            &[types::I64, types::I64, types::I64, types::I64],
            &[types::I32],
            &[op, base, nargs, err],
        )[0];
        let ok = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, status, STATUS_OK as i64);
        let cont = self.b.create_block();
        let bad = self.b.create_block();
        self.b.set_cold_block(bad);
        self.b.ins().brif(ok, cont, &[], bad, &[]);
        self.b.switch_to_block(bad);
        self.b.ins().jump(self.exit, &[BlockArg::Value(status)]);
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// Fills the [`KernelArg`] at `base + at` from `tvm_stack_make_array(data, shape, strides,
    /// ndim, dtype, elem_offset)`, checking that the described array lies within the buffer.
    fn make_array(
        &mut self,
        args: &[PrimExpr],
        base: Value,
        at: i32,
        shape_off: &mut i64,
    ) -> Result<()> {
        let [data, shape, strides, _ndim, proto, offset] = args else {
            return unsupported("tvm_stack_make_array needs 6 arguments");
        };
        let Some(data_var) = data.as_var() else {
            return unsupported("tvm_stack_make_array of a computed pointer");
        };
        if !strides.is_zero() || offset.as_int() != Some(0) {
            return unsupported("tvm_stack_make_array with strides or an element offset");
        }
        let dims = match shape.kind() {
            ExprKind::Call { op, args, .. } if op == "tvm_stack_make_shape" => args.clone(),
            _ => return unsupported("tvm_stack_make_array without tvm_stack_make_shape"),
        };
        let Some((extent, elem)) = self.extents.get(&data_var.id()).cloned() else {
            return unsupported(format!("`{}` is not a buffer", data_var.name()));
        };
        // The helper reads and writes elements of the described dtype: a wider one than the
        // buffer's would reach past its end even with the element count checked. A narrower one
        // stays inside the buffer, so it is allowed (the helper then fills only part of each
        // element: a description that differs from the buffer is the lowering's bug, not unsafe).
        if mem_bytes(proto.dtype()) > mem_bytes(elem) {
            return unsupported(format!(
                "tvm_stack_make_array of `{}` ({elem}) described as {}",
                data_var.name(),
                proto.dtype()
            ));
        }
        let site = self.meta.sites.len() as i64;
        self.meta
            .sites
            .push(data_var.name().trim_end_matches("_data").to_string());
        let shape_at = *shape_off as i32;
        let mut numel = self.iconst(types::I64, 1);
        // Set when the product of the dimensions leaves u64: a wrapped count proves nothing.
        let mut overflow = self.iconst(types::I8, 0);
        for (d, e) in dims.iter().enumerate() {
            let v = self.expr(e)?;
            let v = self.int_to_i64(v, e.dtype());
            self.b
                .ins()
                .store(flags(), v, base, shape_at + d as i32 * 8);
            let hi = self.b.ins().umulhi(numel, v);
            let wrapped = self.b.ins().icmp_imm_s(IntCC::NotEqual, hi, 0);
            overflow = self.b.ins().bor(overflow, wrapped);
            numel = self.b.ins().imul(numel, v);
        }
        *shape_off += dims.len() as i64 * 8;
        let ext = self.expr(&extent)?;
        let ext = self.int_to_i64(ext, extent.dtype());
        let ok = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, numel, ext);
        let fits = self.b.ins().icmp_imm_s(IntCC::Equal, overflow, 0);
        let ok = self.b.ins().band(ok, fits);
        self.guard(ok, |t| t.fail(ERR_BOUNDS, site, 0, ext, numel));
        let dv = self.var_of(data_var)?;
        let p = self.b.use_var(dv);
        self.b.ins().store(flags(), p, base, at + ARG_DATA_OFFSET);
        let sp = self.b.ins().iadd_imm_s(base, shape_at as i64);
        self.b.ins().store(flags(), sp, base, at + ARG_SHAPE_OFFSET);
        let nd = self.iconst(types::I32, dims.len() as i64);
        self.b.ins().store(flags(), nd, base, at + ARG_NDIM_OFFSET);
        let k = self.iconst(types::I32, ARG_TENSOR as i64);
        self.b.ins().store(flags(), k, base, at + ARG_KIND_OFFSET);
        let dt = self.iconst(types::I32, expected_packed_dtype(proto.dtype()) as i64);
        self.b.ins().store(flags(), dt, base, at + ARG_DTYPE_OFFSET);
        Ok(())
    }
}

// ---- memory ----------------------------------------------------------------------------------

impl Translator<'_, '_> {
    /// The address of `buffer[indices]` (one flat index), bounds-checked unless provably in
    /// bounds.
    fn address(&mut self, buffer: &tir::Buffer, indices: &[PrimExpr]) -> Result<Value> {
        let [index] = indices else {
            return unsupported(format!(
                "access of `{}` with {} indices after flattening",
                buffer.name,
                indices.len()
            ));
        };
        let Some(extent) = buffer.shape.first() else {
            return unsupported(format!("buffer `{}` without an extent", buffer.name));
        };
        let proven = self.proven_in_bounds(index, extent);
        let idx = if proven {
            let idx = self.expr(index)?;
            self.int_to_i64(idx, index.dtype())
        } else {
            let (idx, overflow) = self.index_with_overflow(index)?;
            let idx = self.int_to_i64(idx, index.dtype());
            let site = self.meta.sites.len() as i64;
            self.meta.sites.push(buffer.name.clone());
            let ext = self.expr(extent)?;
            let ext = self.int_to_i64(ext, extent.dtype());
            let mut ok = self.b.ins().icmp(IntCC::UnsignedLessThan, idx, ext);
            if let Some(overflow) = overflow {
                let fits = self.b.ins().icmp_imm_s(IntCC::Equal, overflow, 0);
                ok = self.b.ins().band(ok, fits);
            }
            self.guard(ok, |t| t.fail(ERR_BOUNDS, site, 0, ext, idx));
            idx
        };
        let dv = self.var_of(&buffer.data)?;
        let ptr = self.b.use_var(dv);
        let off = self.b.ins().imul_imm_s(idx, mem_bytes(buffer.dtype));
        Ok(self.b.ins().iadd(ptr, off))
    }

    fn load_elem(&mut self, dt: DataType, addr: Value) -> Result<Value> {
        Ok(if dt.is_bool() {
            let x = self.b.ins().load(types::I8, flags(), addr, 0);
            self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0)
        } else if dt.code == TypeCode::Float && dt.bits == 16 {
            let bits = self.b.ins().uload16(types::I32, flags(), addr, 0);
            self.call_rt(offsets::F16_TO_F32, &[types::I32], &[types::F32], &[bits])[0]
        } else if dt.code == TypeCode::BFloat {
            let bits = self.b.ins().uload16(types::I32, flags(), addr, 0);
            let bits = self.b.ins().ishl_imm_s(bits, 16);
            self.b.ins().bitcast(types::F32, MemFlagsData::new(), bits)
        } else {
            let ty = cl_type(dt)?;
            self.b.ins().load(ty, flags(), addr, 0)
        })
    }

    fn store_elem(&mut self, dt: DataType, v: Value, addr: Value) -> Result<()> {
        if dt.code == TypeCode::Float && dt.bits == 16 {
            let bits = self.call_rt(offsets::F32_TO_F16, &[types::F32], &[types::I32], &[v])[0];
            self.b.ins().istore16(flags(), bits, addr, 0);
        } else if dt.code == TypeCode::BFloat {
            let bits = self.call_rt(offsets::F32_TO_BF16, &[types::F32], &[types::I32], &[v])[0];
            self.b.ins().istore16(flags(), bits, addr, 0);
        } else {
            self.b.ins().store(flags(), v, addr, 0);
        }
        Ok(())
    }

    /// Rounds an `f32` register holding a `float16`/`bfloat16` value to that type.
    fn round_half(&mut self, v: Value, dt: DataType) -> Value {
        if dt.code == TypeCode::Float && dt.bits == 16 {
            let bits = self.call_rt(offsets::F32_TO_F16, &[types::F32], &[types::I32], &[v])[0];
            self.call_rt(offsets::F16_TO_F32, &[types::I32], &[types::F32], &[bits])[0]
        } else if dt.code == TypeCode::BFloat {
            let bits = self.call_rt(offsets::F32_TO_BF16, &[types::F32], &[types::I32], &[v])[0];
            let bits = self.b.ins().ishl_imm_s(bits, 16);
            self.b.ins().bitcast(types::F32, MemFlagsData::new(), bits)
        } else {
            v
        }
    }

    /// An unproven flat index, with a flag (`i8`, nonzero = set) raised when the `int64`
    /// additions and multiplications at its top wrap. Flattening turns `A[i, j]` into
    /// `i * n + j`; a wrapped sum can land back inside the buffer (`A[2^63 - 1, 4]` of a (7, 4)
    /// buffer is flat index 0), where the interpreter, which checks each dimension, reports out
    /// of bounds. Narrower indices wrap as TVM's LLVM code does (the interpreter agrees), and
    /// operands below any other operation are plain values.
    ///
    /// A flattened gather's dimension check (`T.Let` of the gathered index around a `T.Select`
    /// of the flat index, `tir::transform::Flatten`) is looked through: the flag is that of
    /// the chosen arm, so `A[-2^63, A[0, 0]]` of an (n, 2) `A` (flat `-2^63 * 2 + i`, which
    /// wraps to `i`) is out of bounds as it is for the interpreter. The evaluation order is
    /// `expr`'s.
    fn index_with_overflow(&mut self, e: &PrimExpr) -> Result<(Value, Option<Value>)> {
        let dt = e.dtype();
        match e.kind() {
            ExprKind::Let { var, value, body } => {
                let v = self.expr(value)?;
                self.define(var, v)?;
                return self.index_with_overflow(body);
            }
            ExprKind::Select {
                cond,
                true_value,
                false_value,
            } if dt.lanes == 1 => {
                let c = self.expr(cond)?;
                let (t, ft) = self.index_with_overflow(true_value)?;
                let (f, ff) = self.index_with_overflow(false_value)?;
                let v = self.b.ins().select(c, t, f);
                let flag = match (ft, ff) {
                    (None, None) => None,
                    (ft, ff) => {
                        let ft = ft.unwrap_or_else(|| self.iconst(types::I8, 0));
                        let ff = ff.unwrap_or_else(|| self.iconst(types::I8, 0));
                        Some(self.b.ins().select(c, ft, ff))
                    }
                };
                return Ok((v, flag));
            }
            _ => {}
        }
        let ExprKind::Binary { op, a, b } = e.kind() else {
            return Ok((self.expr(e)?, None));
        };
        let wraps_checked = dt.is_int()
            && dt.bits == 64
            && dt.lanes == 1
            && matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul);
        if !wraps_checked {
            return Ok((self.expr(e)?, None));
        }
        let (x, fx) = self.index_with_overflow(a)?;
        let (y, fy) = self.index_with_overflow(b)?;
        let x = self.int_to_i64(x, a.dtype());
        let y = self.int_to_i64(y, b.dtype());
        let (r, f) = match op {
            BinaryOp::Add => self.b.ins().sadd_overflow(x, y),
            BinaryOp::Sub => self.b.ins().ssub_overflow(x, y),
            _ => self.b.ins().smul_overflow(x, y),
        };
        let flag = [fx, fy]
            .into_iter()
            .flatten()
            .fold(f, |acc, g| self.b.ins().bor(acc, g));
        Ok((r, Some(flag)))
    }

    /// Whether `0 <= index < extent` in every iteration of the enclosing loops: from constant
    /// bounds ([`tir::arith::int_bound`], which models wrap-around in the index's type), else
    /// symbolically ([`symbolic::in_bounds`]).
    pub(crate) fn proven_in_bounds(&self, index: &PrimExpr, extent: &PrimExpr) -> bool {
        if let Some(n) = extent.as_int()
            && tir::arith::proves_in_range(index, &self.ranges, 0, n)
        {
            return true;
        }
        symbolic::in_bounds(index, extent, &self.loops, &self.shape_vars)
    }
}

// ---- expressions -----------------------------------------------------------------------------

impl Translator<'_, '_> {
    pub(crate) fn expr(&mut self, e: &PrimExpr) -> Result<Value> {
        match e.kind() {
            ExprKind::IntImm { dtype, value } => {
                let ty = cl_type(*dtype)?;
                let v = if dtype.is_bool() {
                    (*value != 0) as i64
                } else if ty.bits() < 64 {
                    *value & ((1i64 << ty.bits()) - 1)
                } else {
                    *value
                };
                Ok(self.iconst(ty, v))
            }
            ExprKind::FloatImm { dtype, value } => {
                if !matches!(dtype.code, TypeCode::Float | TypeCode::BFloat) {
                    return unsupported(format!(
                        "float constant {value} of the non-float type {dtype}"
                    ));
                }
                let ty = cl_type(*dtype)?;
                Ok(if ty == types::F64 {
                    self.b.ins().f64const(*value)
                } else if dtype.code == TypeCode::Float && dtype.bits == 16 {
                    self.b.ins().f32const(half::f16::from_f64(*value).to_f32())
                } else if dtype.code == TypeCode::BFloat {
                    self.b.ins().f32const(half::bf16::from_f64(*value).to_f32())
                } else {
                    self.b.ins().f32const(*value as f32)
                })
            }
            ExprKind::StringImm(s) => unsupported(format!("string {s:?} used as a value")),
            ExprKind::Var(v) => {
                let var = self.var_of(v)?;
                Ok(self.b.use_var(var))
            }
            ExprKind::Binary { op, a, b } => self.binary(*op, a, b),
            ExprKind::Cmp { op, a, b } => {
                let dt = a.dtype();
                let (x, y) = (self.expr(a)?, self.expr(b)?);
                let y = self.match_type(x, y);
                Ok(emit_compare(self.b, *op, dt.is_float(), dt.is_int(), x, y))
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                let is_and = matches!(e.kind(), ExprKind::And(..));
                if may_fail(b) {
                    // `i > 0 and A[i - 1] > x`: the load must not run (and be bounds-checked)
                    // when the left side decides; nor a division by a zero the left side
                    // excludes (`d != 0 and n % d == 0`).
                    let x = self.expr(a)?;
                    let rhs = self.b.create_block();
                    let merge = self.b.create_block();
                    let out = self.b.append_block_param(merge, types::I8);
                    let (t, f) = if is_and { (rhs, merge) } else { (merge, rhs) };
                    let (ta, fa) = if is_and {
                        (vec![], vec![BlockArg::Value(x)])
                    } else {
                        (vec![BlockArg::Value(x)], vec![])
                    };
                    self.b.ins().brif(x, t, &ta, f, &fa);
                    self.b.switch_to_block(rhs);
                    let y = self.expr(b)?;
                    self.b.ins().jump(merge, &[BlockArg::Value(y)]);
                    self.b.switch_to_block(merge);
                    return Ok(out);
                }
                let (x, y) = (self.expr(a)?, self.expr(b)?);
                Ok(if is_and {
                    self.b.ins().band(x, y)
                } else {
                    self.b.ins().bor(x, y)
                })
            }
            ExprKind::Not(a) => {
                let x = self.expr(a)?;
                Ok(self.b.ins().icmp_imm_s(IntCC::Equal, x, 0))
            }
            ExprKind::Select {
                cond,
                true_value,
                false_value,
            } => {
                let c = self.expr(cond)?;
                let t = self.expr(true_value)?;
                let f = self.expr(false_value)?;
                Ok(self.b.ins().select(c, t, f))
            }
            ExprKind::Cast { dtype, value } => {
                let v = self.expr(value)?;
                self.cast(v, value.dtype(), *dtype)
            }
            ExprKind::BufferLoad { buffer, indices } => {
                if !self.promoted.is_empty()
                    && let [index] = indices.as_slice()
                {
                    let id = buffer.data.id();
                    if let Some((_, _, acc)) = self
                        .promoted
                        .iter()
                        .find(|(b, k, _)| *b == id && k == index)
                    {
                        let acc = *acc;
                        return Ok(self.b.use_var(acc));
                    }
                }
                let addr = self.address(buffer, indices)?;
                self.load_elem(buffer.dtype, addr)
            }
            ExprKind::Call { dtype, op, args } => self.call(*dtype, op, args),
            ExprKind::Let { var, value, body } => {
                let v = self.expr(value)?;
                self.define(var, v)?;
                self.expr(body)
            }
            ExprKind::Ramp { .. } | ExprKind::Broadcast { .. } => {
                unsupported(format!("vector expression {e} in scalar code"))
            }
        }
    }

    /// Integer operands of different widths (hand-written TIR mixes `int32` and `int64`):
    /// `y` converted to the type of `x`.
    fn match_type(&mut self, x: Value, y: Value) -> Value {
        let (tx, ty) = (self.b.func.dfg.value_type(x), self.b.func.dfg.value_type(y));
        if tx == ty || !tx.is_int() || !ty.is_int() {
            return y;
        }
        self.coerce_int(y, tx)
    }

    fn binary(&mut self, op: BinaryOp, a: &PrimExpr, b: &PrimExpr) -> Result<Value> {
        let dt = a.dtype();
        if self.contract
            && let Some((x, y, z)) = mul_add_operands(op, a, b)
        {
            let (x, y, z) = (self.expr(x)?, self.expr(y)?, self.expr(z)?);
            return Ok(self.b.ins().fma(x, y, z));
        }
        let x = self.expr(a)?;
        let y = self.expr(b)?;
        let y = self.match_type(x, y);
        if dt.is_float() {
            let r = match op {
                BinaryOp::Add => self.b.ins().fadd(x, y),
                BinaryOp::Sub => self.b.ins().fsub(x, y),
                BinaryOp::Mul => self.b.ins().fmul(x, y),
                BinaryOp::Div => self.b.ins().fdiv(x, y),
                BinaryOp::Mod => self.binary_math(BinaryFn::Fmod, dt, x, y),
                BinaryOp::FloorDiv => {
                    let q = self.b.ins().fdiv(x, y);
                    self.round(q, dt, UnaryFn::Floor)
                }
                BinaryOp::FloorMod => {
                    let q = self.b.ins().fdiv(x, y);
                    let f = self.round(q, dt, UnaryFn::Floor);
                    let m = self.b.ins().fmul(f, y);
                    self.b.ins().fsub(x, m)
                }
                BinaryOp::Min => {
                    let c = self.b.ins().fcmp(FloatCC::LessThan, x, y);
                    self.b.ins().select(c, x, y)
                }
                BinaryOp::Max => {
                    let c = self.b.ins().fcmp(FloatCC::GreaterThan, x, y);
                    self.b.ins().select(c, x, y)
                }
            };
            return Ok(self.round_half(r, dt));
        }
        let signed = dt.is_int();
        Ok(match op {
            BinaryOp::Add => self.b.ins().iadd(x, y),
            BinaryOp::Sub => self.b.ins().isub(x, y),
            BinaryOp::Mul => self.b.ins().imul(x, y),
            BinaryOp::Min if signed => self.b.ins().smin(x, y),
            BinaryOp::Max if signed => self.b.ins().smax(x, y),
            BinaryOp::Min => self.b.ins().umin(x, y),
            BinaryOp::Max => self.b.ins().umax(x, y),
            BinaryOp::Div | BinaryOp::Mod | BinaryOp::FloorDiv | BinaryOp::FloorMod => {
                self.int_div(op, x, y, b.as_int(), signed)
            }
        })
    }

    /// Integer division and remainder (truncating or flooring) that never traps.
    fn int_div(&mut self, op: BinaryOp, x: Value, y: Value, c: Option<i64>, signed: bool) -> Value {
        let ty = self.b.func.dfg.value_type(x);
        let floor = matches!(op, BinaryOp::FloorDiv | BinaryOp::FloorMod);
        let want_div = matches!(op, BinaryOp::Div | BinaryOp::FloorDiv);
        if !signed {
            let y = match c {
                Some(c) if c != 0 => y,
                _ => {
                    let ok = self.b.ins().icmp_imm_s(IntCC::NotEqual, y, 0);
                    self.guard(ok, |t| {
                        let z = t.iconst(types::I64, 0);
                        t.fail(ERR_DIV_ZERO, 0, 0, z, z);
                    });
                    y
                }
            };
            return if want_div {
                self.b.ins().udiv(x, y)
            } else {
                self.b.ins().urem(x, y)
            };
        }
        // Flooring by a positive power of two: an arithmetic shift or a mask.
        if floor
            && let Some(c) = c
            && c > 0
            && (c as u64).is_power_of_two()
        {
            let k = c.trailing_zeros() as i64;
            return if want_div {
                self.b.ins().sshr_imm_s(x, k)
            } else {
                self.b.ins().band_imm_s(x, c - 1)
            };
        }
        let (q, r) = match c {
            Some(c) if c != 0 && c != -1 => {
                let q = self.b.ins().sdiv(x, y);
                let m = self.b.ins().imul(q, y);
                (q, self.b.ins().isub(x, m))
            }
            _ => {
                let ok = self.b.ins().icmp_imm_s(IntCC::NotEqual, y, 0);
                self.guard(ok, |t| {
                    let z = t.iconst(types::I64, 0);
                    t.fail(ERR_DIV_ZERO, 0, 0, z, z);
                });
                // `MIN / -1` traps on x86; x / -1 is -x (wrapping) and the remainder 0.
                let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                let one = self.iconst(ty, 1);
                let safe = self.b.ins().select(minus_one, one, y);
                let q = self.b.ins().sdiv(x, safe);
                let neg = self.b.ins().ineg(x);
                let q = self.b.ins().select(minus_one, neg, q);
                let m = self.b.ins().imul(q, y);
                (q, self.b.ins().isub(x, m))
            }
        };
        if !floor {
            return if want_div { q } else { r };
        }
        // Adjust when the remainder is nonzero and its sign differs from the divisor's.
        let rx = self.b.ins().bxor(r, y);
        let signs_differ = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, rx, 0);
        let nonzero = self.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
        let adjust = self.b.ins().band(signs_differ, nonzero);
        if want_div {
            let q1 = self.b.ins().iadd_imm_s(q, -1);
            self.b.ins().select(adjust, q1, q)
        } else {
            let r1 = self.b.ins().iadd(r, y);
            self.b.ins().select(adjust, r1, r)
        }
    }

    fn cast(&mut self, v: Value, from: DataType, to: DataType) -> Result<Value> {
        if from == to {
            return Ok(v);
        }
        let tt = cl_type(to)?;
        let ft = self.b.func.dfg.value_type(v);
        if to.is_bool() {
            return Ok(if ft.is_float() {
                let z = if ft == types::F64 {
                    self.b.ins().f64const(0.0)
                } else {
                    self.b.ins().f32const(0.0)
                };
                self.b.ins().fcmp(FloatCC::OrderedNotEqual, v, z)
            } else {
                self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0)
            });
        }
        let from_signed = from.is_int();
        if ft.is_int() && tt.is_int() {
            return Ok(if ft.bits() < tt.bits() {
                if from_signed {
                    self.b.ins().sextend(tt, v)
                } else {
                    self.b.ins().uextend(tt, v)
                }
            } else if ft.bits() > tt.bits() {
                self.b.ins().ireduce(tt, v)
            } else {
                v
            });
        }
        if ft.is_int() && tt.is_float() {
            let v = if ft.bits() < 32 {
                if from_signed {
                    self.b.ins().sextend(types::I32, v)
                } else {
                    self.b.ins().uextend(types::I32, v)
                }
            } else {
                v
            };
            let f = if from_signed {
                self.b.ins().fcvt_from_sint(tt, v)
            } else {
                self.b.ins().fcvt_from_uint(tt, v)
            };
            return Ok(self.round_half(f, to));
        }
        if ft.is_float() && tt.is_int() {
            let wide = if tt.bits() < 32 { types::I32 } else { tt };
            let i = if to.is_int() {
                self.b.ins().fcvt_to_sint_sat(wide, v)
            } else {
                self.b.ins().fcvt_to_uint_sat(wide, v)
            };
            if wide == tt {
                return Ok(i);
            }
            // Saturate to the narrow type too (as the reference interpreter does), instead of
            // keeping the low bits of the int32 result.
            let (lo, hi) = if to.is_int() {
                (-(1i64 << (to.bits - 1)), (1i64 << (to.bits - 1)) - 1)
            } else {
                (0, (1i64 << to.bits) - 1)
            };
            let hi = self.b.ins().iconst(wide, hi);
            let i = if to.is_int() {
                let lo = self.b.ins().iconst(wide, lo);
                let i = self.b.ins().smin(i, hi);
                self.b.ins().smax(i, lo)
            } else {
                self.b.ins().umin(i, hi)
            };
            return Ok(self.b.ins().ireduce(tt, i));
        }
        if ft.is_float() && tt.is_float() {
            let f = if ft == types::F32 && tt == types::F64 {
                self.b.ins().fpromote(types::F64, v)
            } else if ft == types::F64 && tt == types::F32 {
                self.b.ins().fdemote(types::F32, v)
            } else {
                v
            };
            return Ok(if is_half(to) {
                self.round_half(f, to)
            } else {
                f
            });
        }
        unsupported(format!("cast from {from} to {to}"))
    }

    fn call(&mut self, dtype: DataType, op: &str, args: &[PrimExpr]) -> Result<Value> {
        let arg = |i: usize| {
            args.get(i)
                .ok_or_else(|| Error::Unsupported(format!("`T.{op}` needs {} arguments", i + 1)))
        };
        match op {
            "if_then_else" => return self.if_then_else(dtype, arg(0)?, arg(1)?, arg(2)?),
            "likely" => return self.expr(arg(0)?),
            "call_packed" => return unsupported("call_packed used as a value"),
            _ => {}
        }
        let a0 = arg(0)?;
        let dt = a0.dtype();
        let x = self.expr(a0)?;
        if !dt.is_float() {
            return match op {
                "abs" => {
                    let n = self.b.ins().ineg(x);
                    let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
                    Ok(if dt.is_int() {
                        self.b.ins().select(neg, n, x)
                    } else {
                        x
                    })
                }
                "bitwise_not" => Ok(self.b.ins().bnot(x)),
                "bitwise_and" | "bitwise_or" | "bitwise_xor" | "shift_left" | "shift_right" => {
                    let y = self.expr(arg(1)?)?;
                    let y = self.match_type(x, y);
                    Ok(match op {
                        "bitwise_and" => self.b.ins().band(x, y),
                        "bitwise_or" => self.b.ins().bor(x, y),
                        "bitwise_xor" => self.b.ins().bxor(x, y),
                        "shift_left" => self.b.ins().ishl(x, y),
                        _ if dt.is_int() => self.b.ins().sshr(x, y),
                        _ => self.b.ins().ushr(x, y),
                    })
                }
                "isnan" | "isinf" => Ok(self.iconst(types::I8, 0)),
                "isfinite" => Ok(self.iconst(types::I8, 1)),
                // An integer is its own floor, ceiling, truncation and rounding: TVM's
                // builders (`tvm::floor` and friends) return the argument itself, so that
                // `R.ceil` of an integer tensor is a copy.
                "floor" | "ceil" | "trunc" | "round" | "nearbyint" | "rint" => Ok(x),
                _ => unsupported(format!("`T.{op}` on {dt}")),
            };
        }
        let ty = self.b.func.dfg.value_type(x);
        let r = match op {
            "isnan" | "isinf" | "isfinite" => {
                let c = match op {
                    "isnan" => FloatClass::IsNan,
                    "isinf" => FloatClass::IsInf,
                    _ => FloatClass::IsFinite,
                };
                return math::emit_class(self.b, c, x, ty, &self.host);
            }
            "copysign" => {
                let y = self.expr(arg(1)?)?;
                self.b.ins().fcopysign(x, y)
            }
            "pow" => {
                let y = self.expr(arg(1)?)?;
                math::emit_pow(self.b, x, y, ty, &self.host)?
            }
            "fmod" | "atan2" | "hypot" => {
                let y = self.expr(arg(1)?)?;
                let f = match op {
                    "fmod" => BinaryFn::Fmod,
                    "atan2" => BinaryFn::Atan2,
                    _ => BinaryFn::Hypot,
                };
                self.binary_math(f, dt, x, y)
            }
            _ => match inline_math(op) {
                Some(f) => math::emit_unary(self.b, f, x, ty, &self.host)?,
                None => match UnaryFn::from_tir(op) {
                    Some(f) => self.unary_math(f, dt, x),
                    None => return unsupported(format!("intrinsic `T.{op}`")),
                },
            },
        };
        Ok(self.round_half(r, dtype))
    }

    fn unary_math(&mut self, f: UnaryFn, dt: DataType, x: Value) -> Value {
        let is64 = cl_type(dt).ok() == Some(types::F64);
        let ty = if is64 { types::F64 } else { types::F32 };
        self.call_rt(RuntimeTable::offset_of_unary(f, is64), &[ty], &[ty], &[x])[0]
    }

    fn binary_math(&mut self, f: BinaryFn, dt: DataType, x: Value, y: Value) -> Value {
        let is64 = cl_type(dt).ok() == Some(types::F64);
        let ty = if is64 { types::F64 } else { types::F32 };
        self.call_rt(
            RuntimeTable::offset_of_binary(f, is64),
            &[ty, ty],
            &[ty],
            &[x, y],
        )[0]
    }

    /// floor/ceil/trunc/nearest: one instruction with SSE4.1, else an exact inline sequence
    /// (see `crate::math`), falling back to the table only for types math does not handle.
    fn round(&mut self, x: Value, dt: DataType, f: UnaryFn) -> Value {
        let m = match f {
            UnaryFn::Floor => MathFn::Floor,
            UnaryFn::Ceil => MathFn::Ceil,
            UnaryFn::Trunc => MathFn::Trunc,
            _ => MathFn::Nearest,
        };
        let ty = self.b.func.dfg.value_type(x);
        match math::emit_unary(self.b, m, x, ty, &self.host) {
            Ok(v) => v,
            Err(_) => self.unary_math(f, dt, x),
        }
    }

    fn if_then_else(
        &mut self,
        dtype: DataType,
        c: &PrimExpr,
        t: &PrimExpr,
        f: &PrimExpr,
    ) -> Result<Value> {
        let ty = cl_type(dtype)?;
        let cond = self.expr(c)?;
        let then_b = self.b.create_block();
        let else_b = self.b.create_block();
        let merge = self.b.create_block();
        let out = self.b.append_block_param(merge, ty);
        self.b.ins().brif(cond, then_b, &[], else_b, &[]);
        self.b.switch_to_block(then_b);
        let tv = self.expr(t)?;
        self.b.ins().jump(merge, &[BlockArg::Value(tv)]);
        self.b.switch_to_block(else_b);
        let fv = self.expr(f)?;
        self.b.ins().jump(merge, &[BlockArg::Value(fv)]);
        self.b.switch_to_block(merge);
        Ok(out)
    }
}

/// `x op y` on scalars or vectors of one type, as TVM's LLVM backend compares: float
/// comparisons are ordered (false when either side is NaN, `!=` included); integers compare
/// signed or unsigned by their type.
pub(crate) fn emit_compare(
    b: &mut FunctionBuilder,
    op: CmpOp,
    float: bool,
    signed: bool,
    x: Value,
    y: Value,
) -> Value {
    if float {
        let cc = match op {
            CmpOp::Eq => FloatCC::Equal,
            CmpOp::Ne => FloatCC::OrderedNotEqual,
            CmpOp::Lt => FloatCC::LessThan,
            CmpOp::Le => FloatCC::LessThanOrEqual,
            CmpOp::Gt => FloatCC::GreaterThan,
            CmpOp::Ge => FloatCC::GreaterThanOrEqual,
        };
        b.ins().fcmp(cc, x, y)
    } else {
        let cc = match (op, signed) {
            (CmpOp::Eq, _) => IntCC::Equal,
            (CmpOp::Ne, _) => IntCC::NotEqual,
            (CmpOp::Lt, true) => IntCC::SignedLessThan,
            (CmpOp::Le, true) => IntCC::SignedLessThanOrEqual,
            (CmpOp::Gt, true) => IntCC::SignedGreaterThan,
            (CmpOp::Ge, true) => IntCC::SignedGreaterThanOrEqual,
            (CmpOp::Lt, false) => IntCC::UnsignedLessThan,
            (CmpOp::Le, false) => IntCC::UnsignedLessThanOrEqual,
            (CmpOp::Gt, false) => IntCC::UnsignedGreaterThan,
            (CmpOp::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
        };
        b.ins().icmp(cc, x, y)
    }
}
