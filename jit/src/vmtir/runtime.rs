//! What compiled Relax functions call at run time: the per-call context ([`CallCtx`]) and the
//! table of `extern "C"` helpers ([`VmtirRuntime`]) that do the work involving `vm::Value`s.
//!
//! Generated code knows no Rust layout except [`CallCtx::kernels`], [`CallCtx::words`],
//! [`CallCtx::instrumented`] and [`CallCtx::in_place_blocked`] (offsets `CTX_*`), the table's
//! function pointers (offsets `RT_*`), and the layouts `vm` describes for reading a register
//! holding a tensor in place (`vm::value::layout`, `vm::tensor::layout`); everything else it
//! passes through untouched. Every helper
//! returns a status: [`STATUS_OK`], [`STATUS_ERROR`] (an error is in the context) or
//! [`STATUS_PANIC`] (a callee panicked; the payload is in the context and the caller of the
//! native function resumes unwinding), so no panic crosses the native frames.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::AtomicBool;

use vm::bytecode::{Arg, ArgKind, BEGIN_SPECIAL_REG};
use vm::{DataType, Error, InlineBuiltin, Spare, Value, VmRef};

use crate::kernel::Kernel;
use crate::kernel::abi::{KernelArg, KernelError, KernelFn};
use crate::kernel::runtime::RuntimeTable;

/// The helper (or native function) finished.
pub const STATUS_OK: i32 = 0;
/// It failed; [`CallCtx::error`] holds the error.
pub const STATUS_ERROR: i32 = 1;
/// A callee panicked; [`CallCtx::panic`] holds the payload.
pub const STATUS_PANIC: i32 = 2;
/// `kernel_args` only: an instrument is installed, so the helper performed the Call as the
/// interpreter does instead of preparing a direct kernel call.
pub const STATUS_DONE: i32 = 3;

/// The state of one invocation of a compiled function. Generated code reads the fields before
/// `kernel_info`.
#[repr(C)]
pub struct CallCtx<'a> {
    /// Native entries of the kernels this function calls directly, by slot.
    pub kernels: *const KernelFn,
    /// The module's argument-word pool: each Call's words, at offsets fixed at compile time.
    pub words: *const i64,
    /// The VM's instrument flag (`VmRef::instrument_flag`): generated code calls a kernel
    /// directly only while it reads false.
    pub instrumented: *const AtomicBool,
    /// What generated code reads before performing a `null_value` and an `alloc_tensor` Call
    /// in place, which it does only while it reads false: the instrument flag when every
    /// function-table entry named as one of these builtins is the registered builtin in this
    /// VM's function pool, else [`IN_PLACE_NEVER`] (a replacement is called instead). One flag
    /// for both conditions, so that the check costs one load.
    pub in_place_blocked: *const AtomicBool,
    pub kernel_info: &'a [Kernel],
    pub vm: &'a VmRef,
    /// The register file's length (generated code only passes the pointer along).
    pub regs_len: usize,
    /// Argument buffer of generic calls, reused across the invocation.
    pub call_args: Vec<Value>,
    /// The tensor handle kept between a kill and the next allocation; cleared before every
    /// other Call, as the interpreter does (see `vm::Spare`).
    pub spare: Spare,
    pub error: Option<Error>,
    pub panic: Option<Box<dyn Any + Send>>,
}

/// Byte offset of [`CallCtx::kernels`].
pub const CTX_KERNELS_OFFSET: i32 = 0;
/// Byte offset of [`CallCtx::words`].
pub const CTX_WORDS_OFFSET: i32 = 8;
/// Byte offset of [`CallCtx::instrumented`].
pub const CTX_INSTRUMENTED_OFFSET: i32 = 16;
/// Byte offset of [`CallCtx::in_place_blocked`].
pub const CTX_IN_PLACE_BLOCKED_OFFSET: i32 = 24;

/// [`CallCtx::in_place_blocked`] of a VM whose builtins are replaced: always set.
pub static IN_PLACE_NEVER: AtomicBool = AtomicBool::new(true);

/// `call(ctx, regs, func_idx, dst, args, nargs) -> status`: one Call instruction, generically.
pub type CallFn = unsafe extern "C" fn(*mut CallCtx, *mut Value, i64, i64, *const i64, i64) -> i32;
/// `cond(ctx, regs, reg) -> 0 | 1 | -1`: an If's condition; −1 is an error (status in the ctx).
pub type CondFn = unsafe extern "C" fn(*mut CallCtx, *mut Value, i64) -> i64;
/// `ret(ctx, regs, reg, slot) -> status`: moves the result into register `slot`.
pub type RetFn = unsafe extern "C" fn(*mut CallCtx, *mut Value, i64, i64) -> i32;
/// `kernel_args(ctx, regs, args, nargs, out, err, slot) -> status`: a direct kernel call's
/// arguments in the kernel ABI.
pub type KernelArgsFn = unsafe extern "C" fn(
    *mut CallCtx,
    *mut Value,
    *const i64,
    i64,
    *mut KernelArg,
    *mut KernelError,
    i64,
) -> i32;
/// `builtin(ctx, regs, record, len) -> status`: the Calls of a record of inline builtins
/// (`func_idx, dst, nargs, args…, npre, pre…` each, `pre` being the arguments decoded at
/// compile time, see `vm::inline::predecode_alloc_tensor`, or empty), each performed as the interpreter performs it: inline
/// when the callee is the registered builtin, its arguments have the usual kinds and no
/// instrument is installed, otherwise as a packed call (which gives the builtin's own answer,
/// error included, or a replacement's).
pub type BuiltinFn = unsafe extern "C" fn(*mut CallCtx, *mut Value, *const i64, i64) -> i32;
/// `kill_alloc(ctx, regs, record, len) -> status`: a `null_value` Call followed by an
/// `alloc_tensor` Call with arguments decoded at compile time, fused when the killed register
/// holds the only handle to a tensor (`vm::inline::kill_and_alloc_tensor`). The record is
/// `f_null, kill, f_alloc, dst, storage, offset, dtype, ndim, dims…` and then the two Calls'
/// record for the `builtin` helper, which performs them whenever the fused path does not apply.
pub type KillAllocFn = BuiltinFn;

/// Whether a Call of packed function `name` with `nargs` arguments is one the `builtin` helper
/// may perform inline (it checks at run time that the callee is the registered builtin).
pub fn is_inline_builtin(name: &str, nargs: usize) -> bool {
    InlineBuiltin::from_name(name).is_some_and(|b| b.takes(nargs))
}

/// `kernel_fail(ctx, slot, status, err) -> STATUS_ERROR`: the error a failed kernel reports.
pub type KernelFailFn = unsafe extern "C" fn(*mut CallCtx, i64, i32, *mut KernelError) -> i32;

/// The helpers, handed to every compiled function as its third argument.
#[repr(C)]
pub struct VmtirRuntime {
    pub call: CallFn,
    pub cond: CondFn,
    pub ret: RetFn,
    pub kernel_args: KernelArgsFn,
    pub kernel_fail: KernelFailFn,
    pub builtin: BuiltinFn,
    /// The kernels' own runtime table, passed to every direct kernel call.
    pub kernel_rt: *const RuntimeTable,
    pub kill_alloc: KillAllocFn,
    /// Where generated code reads a register's payload when the register does not hold the
    /// kind it needs (see [`DECOY_PAYLOAD`]).
    pub decoy: *const DecoyPayload,
}

/// A tensor object that is never anyone's: all zeros, so its reference count (0) is never
/// the 1 of a unique reference and its rank (0) and storage (none) match nothing.
static DECOY_OBJECT: [u64; 16] = [0; 16];

/// The payload of a register that holds no tensor object, as generated code sees it: the
/// address of [`DECOY_OBJECT`]. Generated code checks every condition of a fast path before
/// one branch; a register of another kind has its address replaced by this one's (a
/// `select` on the kind byte), so no register's payload is read unless its kind matched, and
/// the reads that follow land in the decoy, whose fields fail the conditions.
pub struct DecoyPayload(
    /// Read by generated code only.
    #[allow(dead_code)]
    *const u64,
);

// SAFETY: the pointer is to an immutable static; nothing is written through it.
unsafe impl Sync for DecoyPayload {}

pub static DECOY_PAYLOAD: DecoyPayload = DecoyPayload(DECOY_OBJECT.as_ptr());

// SAFETY: the table holds function pointers and a pointer to the immutable, 'static kernel
// runtime table; sharing it between threads shares nothing mutable.
unsafe impl Sync for VmtirRuntime {}
// SAFETY: as above.
unsafe impl Send for VmtirRuntime {}

pub const RT_CALL: i32 = 0;
pub const RT_COND: i32 = 8;
pub const RT_RET: i32 = 16;
pub const RT_KERNEL_ARGS: i32 = 24;
pub const RT_KERNEL_FAIL: i32 = 32;
pub const RT_BUILTIN: i32 = 40;
pub const RT_KERNEL_RT: i32 = 48;
pub const RT_KILL_ALLOC: i32 = 56;
pub const RT_DECOY: i32 = 64;

impl VmtirRuntime {
    /// The process-wide table.
    pub fn get() -> &'static VmtirRuntime {
        static TABLE: std::sync::OnceLock<VmtirRuntime> = std::sync::OnceLock::new();
        TABLE.get_or_init(|| VmtirRuntime {
            call,
            cond,
            ret,
            kernel_args,
            kernel_fail,
            builtin,
            kernel_rt: RuntimeTable::get(),
            kill_alloc,
            decoy: &DECOY_PAYLOAD,
        })
    }
}

/// Runs `f`, turning an error or a panic into a status recorded in `ctx`.
fn guarded(ctx: &mut CallCtx, f: impl FnOnce(&mut CallCtx) -> vm::Result<()>) -> i32 {
    match catch_unwind(AssertUnwindSafe(|| f(ctx))) {
        Ok(Ok(())) => STATUS_OK,
        Ok(Err(e)) => {
            ctx.error = Some(e);
            STATUS_ERROR
        }
        Err(payload) => {
            ctx.panic = Some(payload);
            STATUS_PANIC
        }
    }
}

/// Runs a helper's body so that no panic unwinds into generated code: a panic is kept in the
/// context (as [`guarded`] does) and reported as `STATUS_PANIC`.
fn no_unwind(ctx: *mut CallCtx, f: impl FnOnce() -> i32) -> i32 {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        // SAFETY: `ctx` is the live context; the body's borrows of it ended with the unwind.
        unsafe { (*ctx).panic = Some(payload) };
        STATUS_PANIC
    })
}

/// # Safety
/// `ctx` is the live context of the running invocation and `regs` its register file of
/// `ctx.regs_len` values; `args` points at `nargs` argument words.
unsafe extern "C" fn call(
    ctx: *mut CallCtx,
    regs: *mut Value,
    func_idx: i64,
    dst: i64,
    args: *const i64,
    nargs: i64,
) -> i32 {
    // SAFETY: the caller's contract; the context and the register file are distinct objects,
    // and generated code holds no other reference to either while the helper runs.
    let (ctx, regs, args) = unsafe {
        (
            &mut *ctx,
            std::slice::from_raw_parts_mut(regs, (*ctx).regs_len),
            std::slice::from_raw_parts(args, nargs as usize),
        )
    };
    guarded(ctx, |ctx| {
        ctx.spare.clear();
        let mut call_args = std::mem::take(&mut ctx.call_args);
        let r = ctx
            .vm
            .call_instruction(func_idx as usize, dst, args, regs, &mut call_args);
        ctx.call_args = call_args;
        r
    })
}

/// # Safety
/// As for [`call`].
unsafe extern "C" fn cond(ctx: *mut CallCtx, regs: *mut Value, reg: i64) -> i64 {
    // SAFETY: the caller's contract.
    let (ctx, regs) = unsafe { (&mut *ctx, std::slice::from_raw_parts(regs, (*ctx).regs_len)) };
    let mut taken = 0;
    let status = guarded(ctx, |ctx| {
        let c = ctx.vm.register_value(regs, reg);
        let c = c.as_int().map_err(|_| {
            Error::type_error(format!(
                "If condition must be an int or bool, but got {}",
                c.type_name()
            ))
        })?;
        taken = (c != 0) as i64;
        Ok(())
    });
    if status == STATUS_OK {
        taken
    } else {
        -(status as i64)
    }
}

/// # Safety
/// As for [`call`]; `slot` is below `ctx.regs_len`.
unsafe extern "C" fn ret(ctx: *mut CallCtx, regs: *mut Value, reg: i64, slot: i64) -> i32 {
    // SAFETY: the caller's contract.
    let (ctx, regs) = unsafe {
        (
            &mut *ctx,
            std::slice::from_raw_parts_mut(regs, (*ctx).regs_len),
        )
    };
    guarded(ctx, |ctx| {
        // Nothing reads the register file after Ret, so the result is moved, not cloned.
        let v = if reg < BEGIN_SPECIAL_REG {
            std::mem::take(&mut regs[reg as usize])
        } else {
            ctx.vm.register_value(regs, reg)
        };
        regs[slot as usize] = v;
        Ok(())
    })
}

/// # Safety
/// As for [`call`]; `record` points at the Call's record (`func_idx, dst, nargs, args…`) of
/// `nargs` arguments, `out` has room for `nargs` arguments, `err` points at a `KernelError`, and
/// `slot` indexes `ctx.kernel_info`.
unsafe extern "C" fn kernel_args(
    ctx: *mut CallCtx,
    regs: *mut Value,
    record: *const i64,
    nargs: i64,
    out: *mut KernelArg,
    err: *mut KernelError,
    slot: i64,
) -> i32 {
    // A panic below (a packed call, a kernel's argument check) is kept in the context.
    no_unwind(ctx, || {
        // SAFETY: the caller's contract.
        let (ctx, regs, record, out) = unsafe {
            (
                &mut *ctx,
                std::slice::from_raw_parts_mut(regs, (*ctx).regs_len),
                std::slice::from_raw_parts(record, 3 + nargs as usize),
                std::slice::from_raw_parts_mut(out, nargs as usize),
            )
        };
        let args = &record[3..];
        ctx.spare.clear();
        if ctx.vm.is_instrumented() {
            let status = guarded(ctx, |ctx| {
                let mut call_args = std::mem::take(&mut ctx.call_args);
                let r = ctx.vm.call_instruction(
                    record[0] as usize,
                    record[1],
                    args,
                    regs,
                    &mut call_args,
                );
                ctx.call_args = call_args;
                r
            });
            return if status == STATUS_OK {
                STATUS_DONE
            } else {
                status
            };
        }
        // SAFETY: the caller's contract; a fresh report, so that the message of a failure reads
        // only what the kernel wrote.
        unsafe { err.write(KernelError::default()) };
        // The usual case first, without error plumbing: tensors in registers and immediates.
        let simple = args.iter().zip(out.iter_mut()).all(|(&w, o)| {
            let a = Arg(w);
            match a.kind() {
                Some(ArgKind::Register) => match regs.get(a.value() as usize) {
                    Some(Value::Tensor(t)) => {
                        *o = crate::kernel::tensor_arg(t);
                        true
                    }
                    _ => false,
                },
                Some(ArgKind::Immediate) => {
                    *o = KernelArg::int(a.value());
                    true
                }
                _ => false,
            }
        });
        if simple {
            return STATUS_OK;
        }
        guarded(ctx, |ctx| {
            let kernel = &ctx.kernel_info[slot as usize];
            for (i, (&w, o)) in args.iter().zip(out.iter_mut()).enumerate() {
                let a = Arg(w);
                let v = a.value();
                *o = match a.kind() {
                    Some(ArgKind::Register) if v < BEGIN_SPECIAL_REG => {
                        kernel.arg_of(i, &regs[v as usize])?
                    }
                    Some(ArgKind::Immediate) => KernelArg::int(v),
                    Some(ArgKind::ConstIdx) => {
                        let c = ctx.vm.constant(v as usize).ok_or_else(|| {
                            Error::internal(format!("constant c[{v}] is out of range"))
                        })?;
                        kernel.arg_of(i, c)?
                    }
                    // `%vm`, `%void` and functions are not kernel arguments; the kernel's own
                    // message says so.
                    Some(ArgKind::Register) | Some(ArgKind::FuncIdx) | None => {
                        let value = match a.kind() {
                            Some(ArgKind::FuncIdx) => ctx.vm.func_pool(v as usize).cloned(),
                            _ => Some(ctx.vm.register_value(regs, v)),
                        };
                        kernel.arg_of(i, &value.unwrap_or_default())?
                    }
                };
            }
            Ok(())
        })
    })
}

/// # Safety
/// As for [`call`], with `record` pointing at `len` words: Calls of instructions of a validated
/// executable, `func_idx, dst, nargs, args…` each.
unsafe extern "C" fn builtin(
    ctx: *mut CallCtx,
    regs: *mut Value,
    record: *const i64,
    len: i64,
) -> i32 {
    // SAFETY: the caller's contract.
    let (ctx, regs, mut record) = unsafe {
        (
            &mut *ctx,
            std::slice::from_raw_parts_mut(regs, (*ctx).regs_len),
            std::slice::from_raw_parts(record, len as usize),
        )
    };
    guarded(ctx, |ctx| {
        while let [func_idx, dst, nargs, rest @ ..] = record {
            // A negative count is a huge `usize`, out of range like any other bad count.
            let Some(args) = rest.get(..*nargs as usize) else {
                break;
            };
            let Some((npre, rest)) = rest[args.len()..].split_first() else {
                break;
            };
            let Some(pre) = rest.get(..*npre as usize) else {
                break;
            };
            record = &rest[pre.len()..];
            builtin_call(ctx, regs, *func_idx, *dst, args, pre)?;
        }
        // A handle kept by the run's last kill is released now: generated code calls kernels
        // directly, without a helper that would clear it first.
        ctx.spare.clear();
        if record.is_empty() {
            Ok(())
        } else {
            Err(vm::Error::internal("a malformed builtin record"))
        }
    })
}

/// # Safety
/// As for [`builtin`], with `record` holding a `kill_alloc` record (see [`KillAllocFn`]) of
/// `len` words.
unsafe extern "C" fn kill_alloc(
    ctx: *mut CallCtx,
    regs: *mut Value,
    record: *const i64,
    len: i64,
) -> i32 {
    // SAFETY: the caller's contract, passed on.
    no_unwind(ctx, || unsafe { kill_alloc_body(ctx, regs, record, len) })
}

/// [`kill_alloc`] without its unwind guard.
///
/// # Safety
/// As for [`kill_alloc`].
#[inline]
unsafe fn kill_alloc_body(
    ctx: *mut CallCtx,
    regs: *mut Value,
    record: *const i64,
    len: i64,
) -> i32 {
    // SAFETY: the caller's contract; these borrows end before `builtin` is called.
    let (c, all_regs, words) = unsafe {
        (
            &*ctx,
            std::slice::from_raw_parts_mut(regs, (*ctx).regs_len),
            std::slice::from_raw_parts(record, len as usize),
        )
    };
    let [
        f_null,
        kill,
        f_alloc,
        dst,
        storage,
        offset,
        dtype,
        ndim,
        rest @ ..,
    ] = words
    else {
        return malformed(ctx);
    };
    let Some(shape) = rest.get(..*ndim as usize) else {
        return malformed(ctx);
    };
    let vm = c.vm;
    if !vm.is_instrumented()
        && vm.inline_builtin(*f_null as usize) == Some(InlineBuiltin::NullValue)
        && vm.inline_builtin(*f_alloc as usize) == Some(InlineBuiltin::AllocTensor)
        && let (Ok(kill), Ok(dst), Ok(storage), Ok(offset)) = (
            usize::try_from(*kill),
            usize::try_from(*dst),
            usize::try_from(*storage),
            usize::try_from(*offset),
        )
        && vm::inline::kill_and_alloc_tensor(
            all_regs,
            kill,
            dst,
            storage,
            offset,
            shape,
            DataType::from_packed(*dtype as u32),
        )
    {
        return STATUS_OK;
    }
    let calls = &rest[shape.len()..];
    // SAFETY: the caller's contract: `calls` is the two Calls' `builtin` record.
    unsafe { builtin(ctx, regs, calls.as_ptr(), calls.len() as i64) }
}

/// Records an error for a record that does not have the shape the translator writes.
#[cold]
fn malformed(ctx: *mut CallCtx) -> i32 {
    // SAFETY: `ctx` is the live context, not otherwise borrowed here.
    unsafe { (*ctx).error = Some(Error::internal("a malformed kill_alloc record")) };
    STATUS_ERROR
}

/// One Call of a builtin record, inline when the interpreter would perform it inline.
#[inline]
fn builtin_call(
    ctx: &mut CallCtx,
    regs: &mut [Value],
    f: i64,
    dst: i64,
    args: &[i64],
    pre: &[i64],
) -> vm::Result<()> {
    let vm = ctx.vm;
    if dst < BEGIN_SPECIAL_REG && (dst as usize) < regs.len() && !vm.is_instrumented() {
        match vm.inline_builtin(f as usize) {
            Some(InlineBuiltin::NullValue) if args.is_empty() => {
                ctx.spare.kill(&mut regs[dst as usize]);
                return Ok(());
            }
            Some(InlineBuiltin::AllocTensor) => {
                let a = if pre.is_empty() {
                    vm.alloc_tensor_args(args, regs)
                } else {
                    vm::inline::predecoded_alloc_tensor_args(pre, regs)
                };
                if let Some(a) = a {
                    let t = ctx.spare.alloc_tensor(&a)?;
                    regs[dst as usize] = Value::Tensor(t);
                    return Ok(());
                }
            }
            Some(InlineBuiltin::AllocStorage) => {
                if let Some(a) = vm.alloc_storage_args(args, regs) {
                    ctx.spare.clear();
                    let s = a.alloc(vm)?;
                    regs[dst as usize] = Value::Storage(s);
                    return Ok(());
                }
            }
            _ => {}
        }
    }
    ctx.spare.clear();
    let mut call_args = std::mem::take(&mut ctx.call_args);
    let r = vm.call_instruction(f as usize, dst, args, regs, &mut call_args);
    ctx.call_args = call_args;
    r
}

/// # Safety
/// `ctx` is the live context, `slot` indexes `ctx.kernel_info`, `err` is what the kernel filled.
unsafe extern "C" fn kernel_fail(
    ctx: *mut CallCtx,
    slot: i64,
    status: i32,
    err: *mut KernelError,
) -> i32 {
    // SAFETY: the caller's contract.
    let (ctx, err) = unsafe { (&mut *ctx, &mut *err) };
    guarded(ctx, |ctx| {
        Err(ctx.kernel_info[slot as usize].failure(status, err))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    /// Generated code reads these fields at fixed offsets.
    #[test]
    fn offsets_match_the_rust_layout() {
        assert_eq!(offset_of!(CallCtx, kernels), CTX_KERNELS_OFFSET as usize);
        assert_eq!(offset_of!(CallCtx, words), CTX_WORDS_OFFSET as usize);
        assert_eq!(
            offset_of!(CallCtx, instrumented),
            CTX_INSTRUMENTED_OFFSET as usize
        );
        assert_eq!(
            offset_of!(CallCtx, in_place_blocked),
            CTX_IN_PLACE_BLOCKED_OFFSET as usize
        );
        assert_eq!(offset_of!(VmtirRuntime, kill_alloc), RT_KILL_ALLOC as usize);
        assert_eq!(offset_of!(VmtirRuntime, decoy), RT_DECOY as usize);
        // The decoy object covers every field generated code reads.
        assert!(size_of_val(&DECOY_OBJECT) >= vm::tensor::layout::STORAGE as usize + 8);
        assert_eq!(offset_of!(VmtirRuntime, call), RT_CALL as usize);
        assert_eq!(offset_of!(VmtirRuntime, cond), RT_COND as usize);
        assert_eq!(offset_of!(VmtirRuntime, ret), RT_RET as usize);
        assert_eq!(
            offset_of!(VmtirRuntime, kernel_args),
            RT_KERNEL_ARGS as usize
        );
        assert_eq!(
            offset_of!(VmtirRuntime, kernel_fail),
            RT_KERNEL_FAIL as usize
        );
        assert_eq!(offset_of!(VmtirRuntime, builtin), RT_BUILTIN as usize);
        assert_eq!(offset_of!(VmtirRuntime, kernel_rt), RT_KERNEL_RT as usize);
    }
}
