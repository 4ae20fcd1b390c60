//! A reference interpreter for TIR: slow and obvious, used by tests to cross-check the JIT.
//!
//! It runs [`PrimFunc`]s as the reader produces them, with TVM's semantics:
//!
//! * `T.sblock`s bind their iteration variables from their bindings (each checked against the
//!   variable's domain), run only when their predicate holds, allocate their
//!   `T.sblock_alloc_buffer`s (zero-filled) for the block's duration, and run `T.init()` when
//!   every reduction iteration variable equals its domain minimum (TVM's `LowerInitBlock`; a
//!   block without reduction variables always runs its init);
//! * loops of every kind run serially, in order; a loop whose body is only loops is not
//!   iterated when those are all empty ([`crate::transform::nest_guard`]); a `while` loop
//!   evaluates its condition before every iteration;
//! * buffer accesses use row-major strides (or the buffer's explicit ones) and `elem_offset`,
//!   and every index is checked against its dimension and the flat offset against the memory;
//! * integers wrap in their width; `//` and `%` are floor division and modulo, `T.truncdiv` and
//!   `T.truncmod` truncate; division by zero is an error;
//! * float arithmetic and intrinsics run in the value's precision (`float32` in `f32`,
//!   `float16`/`bfloat16` in `f32` rounded back after every operation, as LLVM's promotion
//!   does); `T.round`/`T.nearbyint` round half to even; `T.erf` is evaluated to double
//!   precision (TVM's LLVM code uses a polynomial approximation accurate to about 1 ulp);
//! * casts follow [`crate::arith::scalar::cast`]: float → integer truncates and **saturates**
//!   (NaN → 0) where LLVM's `fptosi` would be poison;
//! * `T.Select` evaluates both operands (an out-of-bounds load in either is an error);
//!   `T.if_then_else`, `and` and `or` evaluate lazily;
//! * `T.call_packed("tvm.contrib.sort.sort" | "argsort" | "topk" | "argsort_nms",
//!   T.tvm_stack_make_array(..), ..)` run TVM's runtime functions through [`crate::sort`], the
//!   order and output-shape rule the JIT's helper shares (stable; NaN after `+inf`).
//!
//! Every run has a step budget (one step per statement executed and per loop iteration), so a
//! loop of 2^63 iterations (or a `while` whose condition never fails) ends with an
//! [`InterpErrorKind::StepBudget`] error instead of running for centuries; [`run`] uses
//! [`DEFAULT_STEP_BUDGET`], [`run_with_budget`] any other.
//!
//! Arguments ([`InterpArg`]) are bound like TVM's `ArgBinder`: symbolic shape variables are bound
//! from the first dimension that is exactly that variable and checked everywhere else. Every
//! failure is an [`Error::Interp`] naming the function and the buffer, index or argument; no
//! input makes the interpreter panic or touch memory outside the given slices.
//!
//! Not supported (an error says so): vector expressions (`T.Ramp`, `T.Broadcast`, lanes > 1),
//! `T.call_extern` beyond the common libm names, packed functions other than the sort family,
//! and pointer intrinsics (`T.address_of`, `T.tvm_stack_alloca`).

use std::collections::HashMap;

use crate::arith::scalar::{self, Scalar};
use crate::error::{Error, InterpErrorKind, Result};
use crate::ir::{
    Buffer, DataType, ExprKind, IterVarKind, PrimExpr, PrimFunc, Stmt, StmtKind, TypeCode, Var,
    VarId,
};
use crate::sort::{Placement, SortAccess, SortError, SortKey, SortPlan};

/// One argument of [`run`], in parameter order.
#[derive(Debug)]
pub enum InterpArg<'a> {
    /// A tensor: its elements little-endian and row-major in `data`
    /// (`shape.iter().product() * dtype.bytes()` bytes).
    Buffer {
        /// The elements.
        data: &'a mut [u8],
        /// The extent of each dimension.
        shape: Vec<i64>,
        /// The element type.
        dtype: DataType,
    },
    /// An integer (or `bool`) scalar parameter.
    Int(i64),
    /// A float scalar parameter.
    Float(f64),
}

/// The step budget of [`run`]: about a minute of interpretation, far more than any test
/// kernel needs, far less than forever.
pub const DEFAULT_STEP_BUDGET: u64 = 1 << 30;

/// Runs `func` on `args`, writing its output buffers in place, within
/// [`DEFAULT_STEP_BUDGET`] steps.
pub fn run(func: &PrimFunc, args: &mut [InterpArg<'_>]) -> Result<()> {
    run_with_budget(func, args, DEFAULT_STEP_BUDGET)
}

/// Runs `func` on `args` like [`run`], failing with [`InterpErrorKind::StepBudget`] once more
/// than `steps` statements and loop iterations have run.
pub fn run_with_budget(func: &PrimFunc, args: &mut [InterpArg<'_>], steps: u64) -> Result<()> {
    let mut it = Interp {
        func_name: &func.name,
        env: HashMap::new(),
        mem: Vec::new(),
        layouts: HashMap::new(),
        steps_left: steps,
        guards: HashMap::new(),
    };
    it.bind_args(func, args)?;
    it.exec(&func.body)
}

/// Evaluates a scalar expression with the interpreter's semantics, `bindings` giving the values
/// of its free variables. Buffer loads are errors (there is no memory). Used to check that
/// rewrites such as [`crate::arith::Analyzer::simplify`] preserve values.
pub fn eval_expr(e: &PrimExpr, bindings: &[(Var, Scalar)]) -> Result<Scalar> {
    let mut it = Interp {
        func_name: "<expr>",
        env: HashMap::new(),
        mem: Vec::new(),
        layouts: HashMap::new(),
        steps_left: DEFAULT_STEP_BUDGET,
        guards: HashMap::new(),
    };
    for (v, x) in bindings {
        it.env.insert(v.id(), scalar_value(*x));
    }
    match it.eval(e)? {
        Value::Int(i) => Ok(Scalar::Int(i)),
        Value::Float(f) => Ok(Scalar::Float(f)),
        Value::Handle(_) => it.err(format!("`{e}` is a handle")),
    }
}

/// The largest buffer the interpreter allocates, in bytes.
const MAX_ALLOCATION: i128 = 1 << 32;

#[derive(Clone, Debug)]
enum Value {
    Int(i64),
    Float(f64),
    /// Index into the interpreter's memory list.
    Handle(usize),
}

enum Storage<'a> {
    Borrowed(&'a mut [u8]),
    Owned(Vec<u8>),
}

impl Storage<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Storage::Borrowed(b) => b,
            Storage::Owned(v) => v,
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Storage::Borrowed(b) => b,
            Storage::Owned(v) => v,
        }
    }
}

/// A buffer's shape, strides and offset evaluated to numbers.
#[derive(Clone, Debug)]
struct Layout {
    shape: Vec<i64>,
    strides: Vec<i64>,
    offset: i64,
}

/// A tensor described by `T.tvm_stack_make_array`.
struct ArrayView {
    storage: usize,
    shape: Vec<i64>,
    dtype: DataType,
    offset: i64,
}

struct Interp<'f, 'm> {
    func_name: &'f str,
    env: HashMap<VarId, Value>,
    mem: Vec<Storage<'m>>,
    layouts: HashMap<usize, Layout>,
    /// Statements and loop iterations that may still run.
    steps_left: u64,
    /// Each loop's [`crate::transform::nest_guard`], by the loop's address in the function
    /// (which outlives the run): built once, not at every entry into the loop.
    guards: HashMap<*const crate::ir::For, Option<PrimExpr>>,
}

fn compact_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1].saturating_mul(shape[d + 1]);
    }
    strides
}

fn num_elements(shape: &[i64]) -> Option<i128> {
    shape.iter().try_fold(1i128, |acc, d| {
        (*d >= 0).then(|| acc.saturating_mul(i128::from(*d)))
    })
}

impl<'m> Interp<'_, 'm> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T> {
        self.fail(InterpErrorKind::Other, message)
    }

    fn fail<T>(&self, kind: InterpErrorKind, message: impl Into<String>) -> Result<T> {
        Err(Error::Interp {
            func: self.func_name.to_string(),
            kind,
            message: message.into(),
        })
    }

    /// Spends one step of the budget.
    fn step(&mut self) -> Result<()> {
        match self.steps_left.checked_sub(1) {
            Some(left) => {
                self.steps_left = left;
                Ok(())
            }
            None => self.fail(
                InterpErrorKind::StepBudget,
                "the interpreter's step budget is exhausted",
            ),
        }
    }

    // ----- arguments -------------------------------------------------------------------------

    fn bind_args(&mut self, func: &PrimFunc, args: &'m mut [InterpArg<'_>]) -> Result<()> {
        if args.len() != func.params.len() {
            return self.err(format!(
                "expected {} arguments, got {}",
                func.params.len(),
                args.len()
            ));
        }
        let mut buffers: Vec<(Buffer, Vec<i64>)> = Vec::new();
        for (pos, (param, arg)) in func.params.iter().zip(args.iter_mut()).enumerate() {
            let buffer = func.buffer_of(param).cloned();
            let mismatch = |got: &str| {
                let want = if buffer.is_some() {
                    "tensor".to_string()
                } else {
                    param.dtype().to_string()
                };
                format!(
                    "argument {pos} (`{}`): expected a {want}, got {got}",
                    param.name()
                )
            };
            match arg {
                InterpArg::Buffer { data, shape, dtype } => {
                    let what = format!("argument {pos} (`{}`)", param.name());
                    if let Some(b) = &buffer {
                        if *dtype != b.dtype {
                            return self.err(format!(
                                "{what}: buffer `{}` expects dtype {}, got {dtype}",
                                b.name, b.dtype
                            ));
                        }
                        if shape.len() != b.ndim() {
                            return self.err(format!(
                                "{what}: buffer `{}` expects rank {}, got shape {shape:?}",
                                b.name,
                                b.ndim()
                            ));
                        }
                    } else if !param.dtype().is_handle() {
                        return self.err(format!(
                            "{what}: a tensor was passed for the scalar parameter"
                        ));
                    }
                    let want = num_elements(shape)
                        .map(|n| n.saturating_mul(dtype.bytes() as i128))
                        .unwrap_or(-1);
                    if want != data.len() as i128 {
                        return self.err(format!(
                            "{what}: shape {shape:?} of {dtype} needs {want} bytes, got {}",
                            data.len()
                        ));
                    }
                    let idx = self.mem.len();
                    self.mem.push(Storage::Borrowed(data));
                    self.env.insert(param.id(), Value::Handle(idx));
                    if let Some(b) = buffer {
                        self.env.insert(b.data.id(), Value::Handle(idx));
                        buffers.push((b, shape.clone()));
                    }
                }
                InterpArg::Int(v) => {
                    let dt = param.dtype();
                    if buffer.is_some() || !(dt.is_int_or_uint() || dt.is_bool() || dt.is_float()) {
                        return self.err(mismatch("an integer"));
                    }
                    let value = if dt.is_float() {
                        scalar_value(scalar::cast(Scalar::Int(*v), DataType::INT64, dt))
                    } else {
                        Value::Int(scalar::wrap_int(i128::from(*v), dt))
                    };
                    self.env.insert(param.id(), value);
                }
                InterpArg::Float(v) => {
                    let dt = param.dtype();
                    if buffer.is_some() || !dt.is_float() {
                        return self.err(mismatch("a float"));
                    }
                    self.env
                        .insert(param.id(), Value::Float(scalar::round_to_float(*v, dt)));
                }
            }
        }
        // Bind symbolic variables from the dimensions that are exactly a variable, then check
        // every dimension.
        for (b, shape) in &buffers {
            for (dim, actual) in b.shape.iter().zip(shape) {
                if let Some(v) = dim.as_var()
                    && !self.env.contains_key(&v.id())
                {
                    let wrapped = scalar::wrap_int(i128::from(*actual), v.dtype());
                    if wrapped != *actual {
                        return self.err(format!(
                            "buffer `{}`: dimension {actual} does not fit `{}` of type {}",
                            b.name,
                            v.name(),
                            v.dtype()
                        ));
                    }
                    self.env.insert(v.id(), Value::Int(*actual));
                }
            }
            if let Some(v) = b.elem_offset.as_var()
                && !self.env.contains_key(&v.id())
            {
                self.env.insert(v.id(), Value::Int(0));
            }
            let compact = compact_strides(shape);
            for (s, actual) in b.strides.iter().zip(&compact) {
                if let Some(v) = s.as_var()
                    && !self.env.contains_key(&v.id())
                {
                    self.env.insert(v.id(), Value::Int(*actual));
                }
            }
        }
        for (b, shape) in &buffers {
            for (d, (dim, actual)) in b.shape.iter().zip(shape).enumerate() {
                let want = self.eval_int(dim)?;
                if want != *actual {
                    return self.err(format!(
                        "buffer `{}` dimension {d}: expected `{dim}` = {want}, got {actual} \
                         (argument shape {shape:?})",
                        b.name
                    ));
                }
            }
            let compact = compact_strides(shape);
            for (d, (s, actual)) in b.strides.iter().zip(&compact).enumerate() {
                let want = self.eval_int(s)?;
                if want != *actual && shape[d] != 1 {
                    return self.err(format!(
                        "buffer `{}` stride {d}: expected `{s}` = {want}, but the argument is \
                         compact with stride {actual}",
                        b.name
                    ));
                }
            }
            let layout = self.compute_layout(b)?;
            self.layouts.insert(b.identity(), layout);
        }
        Ok(())
    }

    // ----- memory ----------------------------------------------------------------------------

    fn compute_layout(&mut self, b: &Buffer) -> Result<Layout> {
        let mut shape = Vec::with_capacity(b.ndim());
        for d in &b.shape {
            shape.push(self.eval_int(d)?);
        }
        let strides = if b.strides.is_empty() {
            compact_strides(&shape)
        } else {
            let mut s = Vec::with_capacity(b.strides.len());
            for e in &b.strides {
                s.push(self.eval_int(e)?);
            }
            if s.len() != shape.len() {
                return self.err(format!(
                    "buffer `{}` has {} strides for {} dimensions",
                    b.name,
                    s.len(),
                    shape.len()
                ));
            }
            s
        };
        let offset = self.eval_int(&b.elem_offset)?;
        Ok(Layout {
            shape,
            strides,
            offset,
        })
    }

    fn layout(&mut self, b: &Buffer) -> Result<Layout> {
        if let Some(l) = self.layouts.get(&b.identity()) {
            return Ok(l.clone());
        }
        let l = self.compute_layout(b)?;
        self.layouts.insert(b.identity(), l.clone());
        Ok(l)
    }

    fn storage_of(&self, data: &Var, what: &str) -> Result<usize> {
        match self.env.get(&data.id()) {
            Some(Value::Handle(i)) if *i < self.mem.len() => Ok(*i),
            Some(_) => self.err(format!("{what}: `{}` is not a live buffer", data.name())),
            None => self.err(format!(
                "{what}: the memory of `{}` is not allocated here",
                data.name()
            )),
        }
    }

    /// Allocates zeroed memory for `elements` values of `dtype`.
    fn allocate(&mut self, elements: i128, dtype: DataType, what: &str) -> Result<usize> {
        let bytes = elements.saturating_mul(dtype.bytes() as i128);
        if !(0..=MAX_ALLOCATION).contains(&bytes) {
            return self.err(format!(
                "{what}: cannot allocate {elements} elements of {dtype}"
            ));
        }
        let bytes = bytes as usize;
        let mut data = Vec::new();
        if data.try_reserve_exact(bytes).is_err() {
            return self.err(format!(
                "{what}: out of memory allocating {bytes} bytes ({elements} elements of {dtype})"
            ));
        }
        data.resize(bytes, 0u8);
        self.mem.push(Storage::Owned(data));
        Ok(self.mem.len() - 1)
    }

    /// The storage and element index of `buffer[indices]`, checked.
    fn locate(&mut self, buffer: &Buffer, indices: &[PrimExpr]) -> Result<(usize, usize)> {
        if buffer.dtype.lanes != 1 {
            return self.err(format!(
                "buffer `{}`: vector element type {} is not supported",
                buffer.name, buffer.dtype
            ));
        }
        let mut idx = Vec::with_capacity(indices.len());
        for i in indices {
            if i.dtype().lanes != 1 {
                return self.err(format!(
                    "buffer `{}`: vector index `{i}` is not supported",
                    buffer.name
                ));
            }
            idx.push(self.eval_int(i)?);
        }
        let layout = self.layout(buffer)?;
        if idx.len() != layout.shape.len() {
            return self.err(format!(
                "buffer `{}` has {} dimensions, indexed with {idx:?}",
                buffer.name,
                layout.shape.len()
            ));
        }
        let storage = self.storage_of(&buffer.data, &format!("buffer `{}`", buffer.name))?;
        let size = buffer.dtype.bytes() as i128;
        let len = self.mem[storage].bytes().len() as i128;
        let flat = idx
            .iter()
            .zip(&layout.strides)
            .fold(i128::from(layout.offset), |acc, (i, s)| {
                acc + i128::from(*i) * i128::from(*s)
            });
        let in_memory = flat >= 0 && (flat + 1) * size <= len;
        for (d, (i, n)) in idx.iter().zip(&layout.shape).enumerate() {
            if *i < 0 || *i >= *n {
                let kind = if in_memory {
                    InterpErrorKind::DimensionIndex
                } else {
                    InterpErrorKind::OutOfBounds
                };
                return self.fail(
                    kind,
                    format!(
                        "buffer `{}` index {idx:?} out of bounds for shape {:?} (dimension {d})",
                        buffer.name, layout.shape
                    ),
                );
            }
        }
        if !in_memory {
            return self.fail(
                InterpErrorKind::OutOfBounds,
                format!(
                    "buffer `{}` index {idx:?} is element {flat}, outside its memory of {} \
                     elements",
                    buffer.name,
                    len / size.max(1)
                ),
            );
        }
        Ok((storage, flat as usize))
    }

    fn read(&self, storage: usize, elem: usize, dtype: DataType) -> Result<Value> {
        let size = dtype.bytes();
        let bytes = self
            .mem
            .get(storage)
            .and_then(|s| s.bytes().get(elem * size..elem * size + size));
        let Some(b) = bytes else {
            return self.err(format!("read of element {elem} outside memory"));
        };
        let mut raw = [0u8; 8];
        raw[..size.min(8)].copy_from_slice(&b[..size.min(8)]);
        let bits = u64::from_le_bytes(raw);
        Ok(match (dtype.code, dtype.bits) {
            (TypeCode::Float, 64) => Value::Float(f64::from_bits(bits)),
            (TypeCode::Float, 32) => Value::Float(f64::from(f32::from_bits(bits as u32))),
            (TypeCode::Float, 16) => Value::Float(half::f16::from_bits(bits as u16).to_f64()),
            (TypeCode::BFloat, 16) => Value::Float(half::bf16::from_bits(bits as u16).to_f64()),
            (TypeCode::Int | TypeCode::UInt, _) if dtype.is_bool() => {
                Value::Int(i64::from(bits != 0))
            }
            (TypeCode::Int | TypeCode::UInt, _) => {
                Value::Int(scalar::wrap_int(i128::from(bits), dtype))
            }
            _ => return self.err(format!("cannot load values of type {dtype}")),
        })
    }

    fn write(&mut self, storage: usize, elem: usize, dtype: DataType, v: &Value) -> Result<()> {
        let size = dtype.bytes();
        let bits: u64 = match (dtype.code, dtype.bits, v) {
            (TypeCode::Float, 64, Value::Float(f)) => f.to_bits(),
            (TypeCode::Float, 32, Value::Float(f)) => u64::from((*f as f32).to_bits()),
            (TypeCode::Float, 16, Value::Float(f)) => u64::from(half::f16::from_f64(*f).to_bits()),
            (TypeCode::BFloat, 16, Value::Float(f)) => {
                u64::from(half::bf16::from_f64(*f).to_bits())
            }
            (TypeCode::Int | TypeCode::UInt, _, Value::Int(i)) => *i as u64,
            _ => {
                return self.err(format!("cannot store {v:?} as {dtype}"));
            }
        };
        let raw = bits.to_le_bytes();
        let Some(dst) = self
            .mem
            .get_mut(storage)
            .and_then(|s| s.bytes_mut().get_mut(elem * size..elem * size + size))
        else {
            return self.err(format!("write of element {elem} outside memory"));
        };
        let n = size.min(8);
        dst[..n].copy_from_slice(&raw[..n]);
        Ok(())
    }

    // ----- statements ------------------------------------------------------------------------

    fn exec(&mut self, s: &Stmt) -> Result<()> {
        self.step()?;
        match s.kind() {
            StmtKind::For(f) => {
                let min = self.eval_int(&f.min)?;
                let extent = self.eval_int(&f.extent)?;
                let dt = f.loop_var.dtype();
                if extent > 0
                    && let Some(guard) = self
                        .guards
                        .entry(std::ptr::from_ref(f))
                        .or_insert_with(|| crate::transform::nest_guard(f))
                        .clone()
                    && !self.eval_bool(&guard)?
                {
                    return Ok(());
                }
                for k in 0..extent.max(0) {
                    self.step()?;
                    let v = scalar::wrap_int(i128::from(min) + i128::from(k), dt);
                    self.env.insert(f.loop_var.id(), Value::Int(v));
                    self.exec(&f.body)?;
                }
                Ok(())
            }
            StmtKind::SBlockRealize(r) => {
                if !self.eval_bool(&r.predicate)? {
                    return Ok(());
                }
                let block = &r.block;
                if r.iter_values.len() != block.iter_vars.len() {
                    return self.err(format!(
                        "block `{}` has {} iteration variables but {} bindings",
                        block.name,
                        block.iter_vars.len(),
                        r.iter_values.len()
                    ));
                }
                let mut at_reduce_start = true;
                let mut values = Vec::with_capacity(r.iter_values.len());
                for (iv, e) in block.iter_vars.iter().zip(&r.iter_values) {
                    let v = self.eval_int(e)?;
                    let min = self.eval_int(&iv.dom.min)?;
                    let extent = self.eval_int(&iv.dom.extent)?;
                    if i128::from(v) < i128::from(min)
                        || i128::from(v) >= i128::from(min) + i128::from(extent)
                    {
                        return self.err(format!(
                            "block `{}`: iteration variable `{}` = {v} outside its domain \
                             [{min}, {min} + {extent})",
                            block.name,
                            iv.var.name()
                        ));
                    }
                    if iv.kind == IterVarKind::Reduce && v != min {
                        at_reduce_start = false;
                    }
                    values.push(v);
                }
                for (iv, v) in block.iter_vars.iter().zip(values) {
                    self.env.insert(iv.var.id(), Value::Int(v));
                }
                let mark = self.mem.len();
                let result = self.run_block_scope(block, at_reduce_start);
                for b in &block.alloc_buffers {
                    self.env.remove(&b.data.id());
                    self.layouts.remove(&b.identity());
                }
                self.mem.truncate(mark);
                result
            }
            StmtKind::BufferStore {
                buffer,
                value,
                indices,
            } => {
                if value.dtype() != buffer.dtype {
                    return self.err(format!(
                        "store of a {} value into buffer `{}` of {}",
                        value.dtype(),
                        buffer.name,
                        buffer.dtype
                    ));
                }
                let v = self.eval(value)?;
                let (storage, elem) = self.locate(buffer, indices)?;
                self.write(storage, elem, buffer.dtype, &v)
            }
            StmtKind::LetStmt { var, value, body } => {
                let v = self.eval(value)?;
                self.env.insert(var.id(), v);
                self.exec(body)
            }
            StmtKind::IfThenElse {
                cond,
                then_case,
                else_case,
            } => {
                if self.eval_bool(cond)? {
                    self.exec(then_case)
                } else if let Some(e) = else_case {
                    self.exec(e)
                } else {
                    Ok(())
                }
            }
            StmtKind::While { cond, body } => {
                while self.eval_bool(cond)? {
                    self.step()?;
                    self.exec(body)?;
                }
                Ok(())
            }
            StmtKind::Seq(stmts) => {
                for s in stmts {
                    self.exec(s)?;
                }
                Ok(())
            }
            StmtKind::Evaluate(e) => self.eval(e).map(|_| ()),
            StmtKind::Allocate {
                buffer_var,
                dtype,
                extents,
                condition,
                body,
                ..
            } => {
                let _ = self.eval_bool(condition)?;
                let mut n = 1i128;
                for e in extents {
                    let x = self.eval_int(e)?;
                    if x < 0 {
                        return self.err(format!(
                            "allocation `{}` has the negative extent `{e}` = {x}",
                            buffer_var.name()
                        ));
                    }
                    n = n.saturating_mul(i128::from(x));
                }
                let mark = self.mem.len();
                let idx =
                    self.allocate(n, *dtype, &format!("allocation `{}`", buffer_var.name()))?;
                self.env.insert(buffer_var.id(), Value::Handle(idx));
                let result = self.exec(body);
                self.env.remove(&buffer_var.id());
                self.mem.truncate(mark);
                result
            }
            StmtKind::DeclBuffer { buffer, body } => {
                let layout = self.compute_layout(buffer)?;
                self.layouts.insert(buffer.identity(), layout);
                let result = self.exec(body);
                self.layouts.remove(&buffer.identity());
                result
            }
            StmtKind::AssertStmt {
                cond,
                message,
                body,
            } => {
                if !self.eval_bool(cond)? {
                    let text = match message.kind() {
                        ExprKind::StringImm(s) => s.clone(),
                        _ => message.to_string(),
                    };
                    return self.err(format!("assertion `{cond}` failed: {text}"));
                }
                self.exec(body)
            }
            StmtKind::AttrStmt { body, .. } => self.exec(body),
        }
    }

    fn run_block_scope(&mut self, block: &crate::ir::SBlock, run_init: bool) -> Result<()> {
        for b in &block.alloc_buffers {
            let layout = self.compute_layout(b)?;
            let n = num_elements(&layout.shape).unwrap_or(-1);
            if n < 0 {
                return self.err(format!("buffer `{}` has a negative dimension", b.name));
            }
            let span = layout
                .shape
                .iter()
                .zip(&layout.strides)
                .map(|(d, s)| i128::from(d.saturating_sub(1).max(0)) * i128::from(*s))
                .sum::<i128>()
                + i128::from(layout.offset)
                + 1;
            let idx = self.allocate(
                if n == 0 { 0 } else { span.max(n) },
                b.dtype,
                &format!("buffer `{}`", b.name),
            )?;
            self.env.insert(b.data.id(), Value::Handle(idx));
            self.layouts.insert(b.identity(), layout);
        }
        if run_init && let Some(init) = &block.init {
            self.exec(init)?;
        }
        self.exec(&block.body)
    }

    // ----- expressions -----------------------------------------------------------------------

    fn eval_int(&mut self, e: &PrimExpr) -> Result<i64> {
        match self.eval(e)? {
            Value::Int(v) => Ok(v),
            other => self.err(format!("`{e}` should be an integer, got {other:?}")),
        }
    }

    fn eval_bool(&mut self, e: &PrimExpr) -> Result<bool> {
        Ok(self.eval_int(e)? != 0)
    }

    fn eval_float(&mut self, e: &PrimExpr) -> Result<f64> {
        match self.eval(e)? {
            Value::Float(v) => Ok(v),
            Value::Int(v) => Ok(v as f64),
            other => self.err(format!("`{e}` should be a number, got {other:?}")),
        }
    }

    fn eval(&mut self, e: &PrimExpr) -> Result<Value> {
        let dt = e.dtype();
        if dt.lanes != 1 {
            return self.err(format!("vector expression `{e}` is not supported"));
        }
        match e.kind() {
            ExprKind::IntImm { value, dtype } => {
                Ok(Value::Int(scalar::wrap_int(i128::from(*value), *dtype)))
            }
            ExprKind::FloatImm { value, dtype } => {
                Ok(Value::Float(scalar::round_to_float(*value, *dtype)))
            }
            ExprKind::StringImm(s) => self.err(format!("the string {s:?} is not a value")),
            ExprKind::Var(v) => match self.env.get(&v.id()) {
                Some(x) => Ok(x.clone()),
                None => self.err(format!("variable `{}` is not bound", v.name())),
            },
            ExprKind::Binary { op, a, b } => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                match (x, y) {
                    (Value::Float(x), Value::Float(y)) if dt.is_float() => {
                        Ok(Value::Float(scalar::float_binary(*op, x, y, dt)))
                    }
                    (Value::Int(x), Value::Int(y)) if !dt.is_float() => {
                        match scalar::int_binary(*op, x, y, dt) {
                            Some(v) => Ok(Value::Int(v)),
                            None => self.fail(
                                InterpErrorKind::DivisionByZero,
                                format!("division by zero in `{e}`"),
                            ),
                        }
                    }
                    (x, y) => self.err(format!("cannot evaluate `{e}` on {x:?} and {y:?}")),
                }
            }
            ExprKind::Cmp { op, a, b } => {
                let odt = a.dtype();
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                let r = match (x, y) {
                    (Value::Float(x), Value::Float(y)) => scalar::float_cmp(*op, x, y),
                    (Value::Int(x), Value::Int(y)) => scalar::int_cmp(*op, x, y, odt),
                    (Value::Handle(x), Value::Handle(y)) => {
                        scalar::int_cmp(*op, x as i64, y as i64, DataType::INT64)
                    }
                    (x, y) => return self.err(format!("cannot compare {x:?} and {y:?} in `{e}`")),
                };
                Ok(Value::Int(i64::from(r)))
            }
            ExprKind::And(a, b) => {
                let r = self.eval_bool(a)? && self.eval_bool(b)?;
                Ok(Value::Int(i64::from(r)))
            }
            ExprKind::Or(a, b) => {
                let r = self.eval_bool(a)? || self.eval_bool(b)?;
                Ok(Value::Int(i64::from(r)))
            }
            ExprKind::Not(a) => Ok(Value::Int(i64::from(!self.eval_bool(a)?))),
            ExprKind::Select {
                cond,
                true_value,
                false_value,
            } => {
                let c = self.eval_bool(cond)?;
                let t = self.eval(true_value)?;
                let f = self.eval(false_value)?;
                Ok(if c { t } else { f })
            }
            ExprKind::Cast { dtype, value } => {
                let from = value.dtype();
                let s = match self.eval(value)? {
                    Value::Int(i) => Scalar::Int(i),
                    Value::Float(f) => Scalar::Float(f),
                    other => return self.err(format!("cannot cast {other:?} in `{e}`")),
                };
                Ok(scalar_value(scalar::cast(s, from, *dtype)))
            }
            ExprKind::BufferLoad { buffer, indices } => {
                let (storage, elem) = self.locate(buffer, indices)?;
                self.read(storage, elem, buffer.dtype)
            }
            ExprKind::Call { dtype, op, args } => self.call(e, *dtype, op, args),
            ExprKind::Let { var, value, body } => {
                let v = self.eval(value)?;
                self.env.insert(var.id(), v);
                self.eval(body)
            }
            ExprKind::Ramp { .. } | ExprKind::Broadcast { .. } => {
                self.err(format!("vector expression `{e}` is not supported"))
            }
        }
    }

    fn call(&mut self, e: &PrimExpr, dt: DataType, op: &str, args: &[PrimExpr]) -> Result<Value> {
        let arity = |n: usize| -> Result<()> {
            if args.len() == n {
                Ok(())
            } else {
                Err(Error::Interp {
                    func: self.func_name.to_string(),
                    kind: InterpErrorKind::Other,
                    message: format!("`T.{op}` takes {n} arguments, got {}", args.len()),
                })
            }
        };
        match op {
            "if_then_else" => {
                arity(3)?;
                if self.eval_bool(&args[0])? {
                    self.eval(&args[1])
                } else {
                    self.eval(&args[2])
                }
            }
            "likely" | "unlikely" => {
                arity(1)?;
                self.eval(&args[0])
            }
            "isnan" | "isinf" | "isfinite" => {
                arity(1)?;
                let r = match self.eval(&args[0])? {
                    Value::Float(x) => match op {
                        "isnan" => x.is_nan(),
                        "isinf" => x.is_infinite(),
                        _ => x.is_finite(),
                    },
                    _ => op == "isfinite",
                };
                Ok(Value::Int(i64::from(r)))
            }
            "abs" if !dt.is_float() => {
                arity(1)?;
                let x = self.eval_int(&args[0])?;
                Ok(Value::Int(scalar::wrap_int(i128::from(x).abs(), dt)))
            }
            "bitwise_and" | "bitwise_or" | "bitwise_xor" | "shift_left" | "shift_right" => {
                arity(2)?;
                let x = self.eval_int(&args[0])?;
                let y = self.eval_int(&args[1])?;
                let r: i128 = match op {
                    "bitwise_and" => i128::from(x & y),
                    "bitwise_or" => i128::from(x | y),
                    "bitwise_xor" => i128::from(x ^ y),
                    _ => {
                        if y < 0 || y >= i64::from(dt.bits) {
                            return self.err(format!("shift by {y} in `{e}` is out of range"));
                        }
                        if op == "shift_left" {
                            i128::from(x) << y
                        } else if dt.is_uint() {
                            i128::from((x as u64) >> y)
                        } else {
                            i128::from(x >> y)
                        }
                    }
                };
                Ok(Value::Int(scalar::wrap_int(r, dt)))
            }
            "bitwise_not" => {
                arity(1)?;
                let x = self.eval_int(&args[0])?;
                Ok(Value::Int(scalar::wrap_int(i128::from(!x), dt)))
            }
            // An assumption is not evaluated (lowering removes it, as TVM's `RemoveAssume`).
            "assume" => Ok(Value::Int(1)),
            "call_packed" | "call_cpacked" => self.call_packed(e, args),
            "call_extern" | "call_pure_extern" => {
                let name = match args.first().map(|a| a.kind()) {
                    Some(ExprKind::StringImm(s)) => s.clone(),
                    _ => {
                        return self
                            .err(format!("`{e}`: the extern function name must be a string"));
                    }
                };
                let base = if dt == DataType::FLOAT32 {
                    name.strip_suffix('f').unwrap_or(&name).to_string()
                } else {
                    name.clone()
                };
                self.math(e, dt, &base, &args[1..])
            }
            _ => self.math(e, dt, op, args),
        }
    }

    fn math(&mut self, e: &PrimExpr, dt: DataType, op: &str, args: &[PrimExpr]) -> Result<Value> {
        // An integer is its own floor, ceiling, truncation and rounding (TVM's builders
        // return the argument itself).
        if let ("floor" | "ceil" | "trunc" | "round" | "nearbyint" | "rint", [x]) = (op, args)
            && (dt.is_int() || dt.is_uint())
        {
            return self.eval(x);
        }
        if !dt.is_float() {
            return self.err(format!("unsupported intrinsic `{e}`"));
        }
        let mut xs = Vec::with_capacity(args.len());
        for a in args {
            xs.push(scalar::round_to_float(self.eval_float(a)?, dt));
        }
        let r = match (op, xs.as_slice()) {
            (_, [x]) => {
                let x = *x;
                let u = |f32op: fn(f32) -> f32, f64op: fn(f64) -> f64| {
                    Some(scalar::float_unary(dt, x, f32op, f64op))
                };
                match op {
                    "exp" => u(f32::exp, f64::exp),
                    "exp2" => u(f32::exp2, f64::exp2),
                    "exp10" => u(|v| 10f32.powf(v), |v| 10f64.powf(v)),
                    "expm1" => u(f32::exp_m1, f64::exp_m1),
                    "log" => u(f32::ln, f64::ln),
                    "log2" => u(f32::log2, f64::log2),
                    "log10" => u(f32::log10, f64::log10),
                    "log1p" => u(f32::ln_1p, f64::ln_1p),
                    "sqrt" => u(f32::sqrt, f64::sqrt),
                    "rsqrt" => u(|v| 1.0 / v.sqrt(), |v| 1.0 / v.sqrt()),
                    "tanh" => u(f32::tanh, f64::tanh),
                    "sigmoid" => u(|v| 1.0 / (1.0 + (-v).exp()), |v| 1.0 / (1.0 + (-v).exp())),
                    "erf" => u(|v| scalar::erf(f64::from(v)) as f32, scalar::erf),
                    "sin" => u(f32::sin, f64::sin),
                    "cos" => u(f32::cos, f64::cos),
                    "tan" => u(f32::tan, f64::tan),
                    "sinh" => u(f32::sinh, f64::sinh),
                    "cosh" => u(f32::cosh, f64::cosh),
                    "asin" => u(f32::asin, f64::asin),
                    "acos" => u(f32::acos, f64::acos),
                    "atan" => u(f32::atan, f64::atan),
                    "asinh" => u(f32::asinh, f64::asinh),
                    "acosh" => u(f32::acosh, f64::acosh),
                    "atanh" => u(f32::atanh, f64::atanh),
                    "fabs" | "abs" => u(f32::abs, f64::abs),
                    "floor" => u(f32::floor, f64::floor),
                    "ceil" => u(f32::ceil, f64::ceil),
                    "trunc" => u(f32::trunc, f64::trunc),
                    "round" | "nearbyint" | "rint" => u(f32::round_ties_even, f64::round_ties_even),
                    _ => None,
                }
            }
            (_, [x, y]) => {
                let (x, y) = (*x, *y);
                let b = |f32op: fn(f32, f32) -> f32, f64op: fn(f64, f64) -> f64| {
                    Some(scalar::float_binary_fn(dt, x, y, f32op, f64op))
                };
                match op {
                    "pow" | "powf" => b(f32::powf, f64::powf),
                    "atan2" => b(f32::atan2, f64::atan2),
                    "fmod" => b(|a, c| a % c, |a, c| a % c),
                    "hypot" => b(f32::hypot, f64::hypot),
                    "copysign" => b(f32::copysign, f64::copysign),
                    "ldexp" => b(|a, c| a * c.exp2(), |a, c| a * c.exp2()),
                    _ => None,
                }
            }
            _ => None,
        };
        match r {
            Some(v) => Ok(Value::Float(v)),
            None => self.err(format!("unsupported intrinsic `{e}`")),
        }
    }

    // ----- packed functions ------------------------------------------------------------------

    fn call_packed(&mut self, e: &PrimExpr, args: &[PrimExpr]) -> Result<Value> {
        let name = match args.first().map(|a| a.kind()) {
            Some(ExprKind::StringImm(s)) => s.clone(),
            _ => return self.err(format!("`{e}`: the packed function name must be a string")),
        };
        let rest = &args[1..];
        match name.as_str() {
            "tvm.contrib.sort.sort" | "tvm.contrib.sort.argsort" => {
                let [input, output, axis, ascend] = rest else {
                    return self.err(format!("`{name}` takes 4 arguments, got {}", rest.len()));
                };
                let input = self.array(input)?;
                let output = self.array(output)?;
                let axis = self.eval_int(axis)?;
                let ascend = self.eval_bool(ascend)?;
                let (values, indices) = if name.ends_with(".sort") {
                    (Some(&output), None)
                } else {
                    (None, Some(&output))
                };
                self.sort_along(&name, &input, values, indices, axis, ascend, None)
            }
            "tvm.contrib.sort.argsort_nms" => {
                let [input, counts, output, axis, ascend] = rest else {
                    return self.err(format!("`{name}` takes 5 arguments, got {}", rest.len()));
                };
                let input = self.array(input)?;
                let counts = self.array(counts)?;
                let output = self.array(output)?;
                let axis = self.eval_int(axis)?;
                let ascend = self.eval_bool(ascend)?;
                self.sort_counted(&name, &input, &counts, &output, axis, ascend)
            }
            "tvm.contrib.sort.topk" => {
                if rest.len() < 6 {
                    return self.err(format!(
                        "`{name}` takes 6 or 7 arguments, got {}",
                        rest.len()
                    ));
                }
                let tail = &rest[rest.len() - 4..];
                let ret_type = match tail[2].kind() {
                    ExprKind::StringImm(s) => s.clone(),
                    _ => return self.err(format!("`{name}`: ret_type must be a string")),
                };
                let k = self.eval_int(&tail[0])?;
                let axis = self.eval_int(&tail[1])?;
                let ascend = self.eval_bool(&tail[3])?;
                let input = self.array(&rest[0])?;
                let (values, indices) = match (ret_type.as_str(), rest.len()) {
                    ("both", 7) => (Some(self.array(&rest[1])?), Some(self.array(&rest[2])?)),
                    ("values", 6) => (Some(self.array(&rest[1])?), None),
                    ("indices", 6) => (None, Some(self.array(&rest[1])?)),
                    _ => {
                        return self.err(format!(
                            "`{name}`: ret_type {ret_type:?} with {} arguments",
                            rest.len()
                        ));
                    }
                };
                self.sort_along(
                    &name,
                    &input,
                    values.as_ref(),
                    indices.as_ref(),
                    axis,
                    ascend,
                    Some(k),
                )
            }
            _ => self.err(format!("packed function `{name}` is not supported")),
        }
    }

    /// Decodes `T.tvm_stack_make_array(data, shape, strides, ndim, dtype_witness, elem_offset)`.
    fn array(&mut self, e: &PrimExpr) -> Result<ArrayView> {
        let ExprKind::Call { op, args, .. } = e.kind() else {
            return self.err(format!("expected `T.tvm_stack_make_array(...)`, got `{e}`"));
        };
        let [data, shape, strides, ndim, witness, offset] = args.as_slice() else {
            return self.err(format!(
                "`{e}`: expected `T.tvm_stack_make_array` with 6 arguments"
            ));
        };
        if op != "tvm_stack_make_array" {
            return self.err(format!("expected `T.tvm_stack_make_array(...)`, got `{e}`"));
        }
        let storage = match self.eval(data)? {
            Value::Handle(i) if i < self.mem.len() => i,
            other => return self.err(format!("`{data}` is not a buffer ({other:?})")),
        };
        let ExprKind::Call {
            op: shape_op,
            args: dims,
            ..
        } = shape.kind()
        else {
            return self.err(format!(
                "expected `T.tvm_stack_make_shape(...)`, got `{shape}`"
            ));
        };
        if shape_op != "tvm_stack_make_shape" {
            return self.err(format!(
                "expected `T.tvm_stack_make_shape(...)`, got `{shape}`"
            ));
        }
        let mut dims_v = Vec::with_capacity(dims.len());
        for d in dims {
            let v = self.eval_int(d)?;
            if v < 0 {
                return self.err(format!("negative dimension in `{shape}`"));
            }
            dims_v.push(v);
        }
        if !strides.is_zero() {
            return self.err(format!("`{e}`: explicit strides are not supported"));
        }
        if self.eval_int(ndim)? != dims_v.len() as i64 {
            return self.err(format!("`{e}`: ndim does not match the shape"));
        }
        let dtype = witness.dtype();
        let offset = self.eval_int(offset)?;
        let n = num_elements(&dims_v).unwrap_or(0);
        let len = self.mem[storage].bytes().len() as i128;
        if offset < 0 || (i128::from(offset) + n) * dtype.bytes() as i128 > len {
            return self.err(format!(
                "`{e}`: {n} elements of {dtype} at offset {offset} exceed the buffer's {len} bytes"
            ));
        }
        Ok(ArrayView {
            storage,
            shape: dims_v,
            dtype,
            offset,
        })
    }

    /// TVM's `sort_impl`/`topk` through the shared [`crate::sort`]: checks the outputs against
    /// the plan, then writes the first `k` (all for sort and argsort) of each slice's order.
    #[allow(clippy::too_many_arguments)]
    fn sort_along(
        &mut self,
        name: &str,
        input: &ArrayView,
        values: Option<&ArrayView>,
        indices: Option<&ArrayView>,
        axis: i64,
        ascend: bool,
        top_k: Option<i64>,
    ) -> Result<Value> {
        let checked = || -> std::result::Result<SortPlan, SortError> {
            let plan = SortPlan::new(&input.shape, axis, top_k)?;
            if let Some(v) = values {
                plan.check_output("values output", &v.shape)?;
                SortPlan::check_values_dtype(&v.dtype.to_string(), &input.dtype.to_string())?;
            }
            if let Some(ix) = indices {
                plan.check_output("indices output", &ix.shape)?;
            }
            Ok(plan)
        };
        let plan = match checked() {
            Ok(p) => p,
            Err(e) => return self.err(format!("`{name}`: {e}")),
        };
        let mut access = InterpSort {
            it: self,
            name,
            input,
            values,
            indices,
        };
        plan.run(ascend, &mut access)?;
        Ok(Value::Int(0))
    }

    /// TVM's `argsort_nms`: the indices that sort, in each slice along `axis`, its first
    /// `counts[slice]` elements (the rest in place), through [`SortPlan::run_counted`].
    fn sort_counted(
        &mut self,
        name: &str,
        input: &ArrayView,
        counts: &ArrayView,
        indices: &ArrayView,
        axis: i64,
        ascend: bool,
    ) -> Result<Value> {
        let plan = SortPlan::new(&input.shape, axis, None).and_then(|plan| {
            plan.check_output("indices output", &indices.shape)
                .map(|()| plan)
        });
        let plan = match plan {
            Ok(p) => p,
            Err(e) => return self.err(format!("`{name}`: {e}")),
        };
        let is_int = counts.dtype.is_int_or_uint() && !counts.dtype.is_bool();
        if let Err(e) = plan.check_counts(&counts.shape, is_int, &counts.dtype.to_string()) {
            return self.err(format!("`{name}`: {e}"));
        }
        let mut per_slice = Vec::with_capacity(plan.slices());
        for s in 0..plan.slices() {
            match self.read(counts.storage, view_elem(counts, s), counts.dtype)? {
                Value::Int(c) => per_slice.push(c),
                other => return self.err(format!("`{name}`: count {other:?} is not an integer")),
            }
        }
        let mut access = InterpSort {
            it: self,
            name,
            input,
            values: None,
            indices: Some(indices),
        };
        plan.run_counted(ascend, &mut access, |s| Ok(per_slice[s]))?;
        Ok(Value::Int(0))
    }
}

/// The interpreter's memory as [`SortPlan::run`] reads and writes it.
struct InterpSort<'a, 'f, 'm> {
    it: &'a mut Interp<'f, 'm>,
    name: &'a str,
    input: &'a ArrayView,
    values: Option<&'a ArrayView>,
    indices: Option<&'a ArrayView>,
}

/// Element `elem` of `view`'s storage, counting from its offset.
fn view_elem(view: &ArrayView, elem: usize) -> usize {
    (view.offset as usize).saturating_add(elem)
}

impl SortAccess for InterpSort<'_, '_, '_> {
    type Error = Error;

    fn key(&mut self, elem: usize) -> Result<SortKey> {
        let dtype = self.input.dtype;
        Ok(
            match self
                .it
                .read(self.input.storage, view_elem(self.input, elem), dtype)?
            {
                Value::Float(f) => SortKey::Float(f),
                Value::Int(i) if dtype.is_uint() && !dtype.is_bool() => {
                    let bits = u32::from(dtype.bits);
                    SortKey::UInt(if bits >= 64 {
                        i as u64
                    } else {
                        i as u64 & ((1u64 << bits) - 1)
                    })
                }
                Value::Int(i) => SortKey::Int(i),
                Value::Handle(_) => {
                    return self.it.err(format!("`{}`: input of handles", self.name));
                }
            },
        )
    }

    fn place(&mut self, p: Placement) -> Result<()> {
        if let Some(v) = self.values {
            let x = self.it.read(
                self.input.storage,
                view_elem(self.input, p.src),
                self.input.dtype,
            )?;
            self.it.write(v.storage, view_elem(v, p.dst), v.dtype, &x)?;
        }
        if let Some(ix) = self.indices {
            let out = scalar_value(scalar::cast(
                Scalar::Int(p.index),
                DataType::INT64,
                ix.dtype,
            ));
            self.it
                .write(ix.storage, view_elem(ix, p.dst), ix.dtype, &out)?;
        }
        Ok(())
    }

    fn fail(&self, e: SortError) -> Error {
        Error::Interp {
            func: self.it.func_name.to_string(),
            message: format!("`{}`: {e}", self.name),
            kind: InterpErrorKind::Other,
        }
    }
}

fn scalar_value(s: Scalar) -> Value {
    match s {
        Scalar::Int(i) => Value::Int(i),
        Scalar::Float(f) => Value::Float(f),
    }
}
