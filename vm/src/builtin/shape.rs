//! Symbolic-shape machinery: the shape heap (an `int64[K]` tensor holding the values of shape
//! variables), `match_shape` / `match_prim_value` to check and bind them, and `make_shape` /
//! `make_prim_value` to build values from them (TVM's `builtin.h` codes).

use super::{Args, with_ctx};
use crate::allocator::alloc_storage;
use crate::tensor::Tensor;
use crate::{DataType, Error, Result, Value};

/// What `match_shape` / `match_prim_value` do with one dimension (TVM's `MatchShapeCode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchShapeCode {
    /// `input[i] == r[i]`.
    AssertEqualToImm = 0,
    /// `heap[r[i]] = input[i]`.
    StoreToHeap = 1,
    /// Nothing.
    NoOp = 2,
    /// `input[i] == heap[r[i]]`.
    AssertEqualToLoad = 3,
}

impl MatchShapeCode {
    pub fn from_i64(v: i64) -> Option<MatchShapeCode> {
        Some(match v {
            0 => MatchShapeCode::AssertEqualToImm,
            1 => MatchShapeCode::StoreToHeap,
            2 => MatchShapeCode::NoOp,
            3 => MatchShapeCode::AssertEqualToLoad,
            _ => return None,
        })
    }
}

/// Where `make_shape` / `make_prim_value` take one value from (TVM's `MakeShapeCode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MakeShapeCode {
    /// `r[i]` is the value.
    UseImm = 0,
    /// The value is `heap[r[i]]`.
    LoadShape = 1,
}

impl MakeShapeCode {
    pub fn from_i64(v: i64) -> Option<MakeShapeCode> {
        Some(match v {
            0 => MakeShapeCode::UseImm,
            1 => MakeShapeCode::LoadShape,
            _ => return None,
        })
    }
}

/// The shape heap argument: None, or a 1-D `int64` tensor. TVM leaves a missing heap as a null
/// pointer and trusts codegen never to touch it; here touching it is an error.
struct Heap<'a> {
    builtin: &'static str,
    tensor: Option<&'a Tensor>,
}

impl<'a> Heap<'a> {
    fn from_arg(args: &Args<'a>, i: usize) -> Result<Heap<'a>> {
        let builtin = args.name;
        let tensor = match args.get(i) {
            Value::Null => None,
            Value::Tensor(t) => {
                if t.dtype() != DataType::I64 || t.ndim() != 1 || t.dtype().lanes != 1 {
                    return Err(Error::value_error(format!(
                        "{builtin}: the shape heap (argument #{i}) must be a 1-D int64 tensor, but got shape {:?} and dtype {}",
                        t.shape(),
                        t.dtype()
                    )));
                }
                Some(t)
            }
            other => {
                return Err(Error::type_error(format!(
                    "{builtin}: the shape heap (argument #{i}) must be a Tensor or None, but got {}",
                    other.type_name()
                )));
            }
        };
        Ok(Heap { builtin, tensor })
    }

    /// The heap and a checked slot index.
    fn slot(&self, reg: i64) -> Result<(&'a Tensor, usize)> {
        let t = self.tensor.ok_or_else(|| {
            Error::runtime(format!(
                "{}: slot {reg} of the shape heap is used, but the heap argument is None",
                self.builtin
            ))
        })?;
        match usize::try_from(reg).ok().filter(|&r| r < t.numel()) {
            Some(r) => Ok((t, r)),
            None => Err(Error::index(format!(
                "{}: shape heap slot {reg} is out of range for a heap of {} slots",
                self.builtin,
                t.numel()
            ))),
        }
    }

    fn load(&self, reg: i64) -> Result<i64> {
        let (t, r) = self.slot(reg)?;
        Ok(t.get_i64(r).expect("slot is in range of an int64 tensor"))
    }

    fn store(&self, reg: i64, value: i64) -> Result<()> {
        let (t, r) = self.slot(reg)?;
        // The heap is made by `alloc_shape_heap` for one VM frame and handed only to this
        // frame's shape builtins; like every destination-passing packed function, a caller
        // outside the VM must not share it with another thread during the call.
        // SAFETY: `t` is an int64 tensor (checked in from_arg) and r < numel (checked in slot),
        // so element r lies inside the storage, and any i64 is a valid element; unaligned as a
        // view's offset need not be a multiple of 8. No concurrent access: the VM runs one
        // instruction at a time on the frame owning the heap (above).
        unsafe { (t.as_mut_ptr().add(r * 8) as *mut i64).write_unaligned(value) };
        Ok(())
    }
}

/// `alloc_shape_heap(ctx, size) -> Tensor`: an `int64[size]` tensor on the host device, from the
/// host allocator.
pub(super) fn alloc_shape_heap(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.alloc_shape_heap", args);
    a.expect_len(2, 2, "(ctx, size: int)")?;
    let vm = a.vm(0)?;
    let size = a.usize(1, "size")?;
    let (allocator, device) = vm.host_allocator();
    let nbytes = size.checked_mul(8).ok_or_else(|| {
        Error::value_error(format!(
            "vm.builtin.alloc_shape_heap: size {size} is too large"
        ))
    })?;
    let storage = alloc_storage(allocator, nbytes, device)?;
    Ok(Value::Tensor(storage.alloc_tensor(
        0,
        &[size as i64],
        DataType::I64,
    )?))
}

/// Checks one value against `(code, reg)`, storing it in the heap for `StoreToHeap`. `what`
/// names it in messages (`shape[1]`, `PrimExpr`).
fn match_one(
    builtin: &'static str,
    heap: &Heap<'_>,
    value: i64,
    code: i64,
    reg: i64,
    err_ctx: &str,
    // Formatted only into an error: this runs on every call of a function with shape checks.
    what: std::fmt::Arguments<'_>,
) -> Result<()> {
    match MatchShapeCode::from_i64(code) {
        Some(MatchShapeCode::AssertEqualToImm) => {
            if value != reg {
                return Err(Error::runtime(with_ctx(
                    err_ctx,
                    format!(
                        "match_cast error, {what} mismatch to specified constant: expected {reg}, but got {value}."
                    ),
                )));
            }
        }
        Some(MatchShapeCode::StoreToHeap) => heap.store(reg, value)?,
        Some(MatchShapeCode::NoOp) => {}
        Some(MatchShapeCode::AssertEqualToLoad) => {
            let expected = heap.load(reg)?;
            if value != expected {
                return Err(Error::runtime(with_ctx(
                    err_ctx,
                    format!(
                        "match_cast error, {what} mismatch to a previous populated value: expected {expected}, but got {value}."
                    ),
                )));
            }
        }
        None => {
            return Err(Error::internal(format!(
                "{builtin}: Unknown match shape code: {code}"
            )));
        }
    }
    Ok(())
}

/// `match_shape(input, heap, n, c0, r0, …, c{n-1}, r{n-1}, err_ctx)`: checks that the Tensor's
/// or Shape's dimensions satisfy the codes, binding shape variables into the heap.
pub(super) fn match_shape(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.match_shape", args);
    a.expect_len(
        4,
        usize::MAX,
        "(input: Tensor | Shape, heap, n: int, (code: int, reg: int)*n, err_ctx: str)",
    )?;
    let dims: &[i64] = match a.get(0) {
        Value::Tensor(t) => t.shape(),
        Value::Shape(s) => s.dims(),
        other => {
            return Err(Error::type_error(format!(
                "vm.builtin.match_shape expects a Tensor or Shape as argument #0 (input), but got {}",
                other.type_name()
            )));
        }
    };
    let heap = Heap::from_arg(&a, 1)?;
    let n = a.usize(2, "size")?;
    let ctx_pos = n.checked_mul(2).and_then(|x| x.checked_add(3));
    if ctx_pos.and_then(|p| p.checked_add(1)) != Some(a.len()) {
        return Err(Error::type_error(format!(
            "vm.builtin.match_shape: size {n} needs {} arguments (input, heap, size, {n} code/value pairs, err_ctx), but got {}",
            n.saturating_mul(2).saturating_add(4),
            a.len()
        )));
    }
    let err_ctx = a.opt_str(3 + 2 * n, "err_ctx")?;
    if dims.len() != n {
        return Err(Error::runtime(with_ctx(
            err_ctx,
            format!(
                "match_cast shape size mismatch: expected {n} dimensions, but got {} (shape {dims:?}).",
                dims.len()
            ),
        )));
    }
    for (i, &dim) in dims.iter().enumerate() {
        let code = a.int(3 + 2 * i, "code")?;
        let reg = a.int(4 + 2 * i, "value")?;
        match_one(
            a.name,
            &heap,
            dim,
            code,
            reg,
            err_ctx,
            format_args!("shape[{i}]"),
        )?;
    }
    Ok(Value::Null)
}

/// `match_prim_value(value: int, heap, code: int, reg: int[, err_ctx])`: `match_shape` for one
/// scalar.
pub(super) fn match_prim_value(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.match_prim_value", args);
    a.expect_len(
        4,
        5,
        "(input_value: int, heap, code: int, reg: int, err_ctx: Optional<str>)",
    )?;
    let value = a.int(0, "input_value")?;
    let heap = Heap::from_arg(&a, 1)?;
    let code = a.int(2, "code")?;
    let reg = a.int(3, "reg")?;
    let err_ctx = a.opt_str(4, "err_ctx")?;
    match_one(
        a.name,
        &heap,
        value,
        code,
        reg,
        err_ctx,
        format_args!("PrimExpr"),
    )?;
    Ok(Value::Null)
}

fn make_one(heap: &Heap<'_>, code: i64, reg: i64) -> Result<i64> {
    match MakeShapeCode::from_i64(code) {
        Some(MakeShapeCode::UseImm) => Ok(reg),
        Some(MakeShapeCode::LoadShape) => heap.load(reg),
        None => Err(Error::internal(format!(
            "{}: Invalid shape code: {code}",
            heap.builtin
        ))),
    }
}

/// `make_shape(heap, n, c0, r0, …) -> Shape`: each dimension an immediate or a heap load.
pub(super) fn make_shape(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.make_shape", args);
    a.expect_len(2, usize::MAX, "(heap, n: int, (code: int, reg: int)*n)")?;
    let heap = Heap::from_arg(&a, 0)?;
    let n = a.usize(1, "size")?;
    if n.checked_mul(2).and_then(|x| x.checked_add(2)) != Some(a.len()) {
        return Err(Error::type_error(format!(
            "vm.builtin.make_shape: size {n} needs {} arguments (heap, size, {n} code/value pairs), but got {}",
            n.saturating_mul(2).saturating_add(2),
            a.len()
        )));
    }
    let dims = (0..n)
        .map(|i| make_one(&heap, a.int(2 + 2 * i, "code")?, a.int(3 + 2 * i, "value")?))
        .collect::<Result<Vec<i64>>>()?;
    Ok(Value::shape(dims))
}

/// `make_prim_value(heap, code: int, reg: int) -> int`.
pub(super) fn make_prim_value(args: &[Value]) -> Result<Value> {
    let a = Args::new("vm.builtin.make_prim_value", args);
    a.expect_len(3, 3, "(heap, shape_code: int, reg: int)")?;
    let heap = Heap::from_arg(&a, 0)?;
    let code = a.int(1, "shape_code")?;
    let reg = a.int(2, "reg")?;
    Ok(Value::Int(make_one(&heap, code, reg)?))
}
