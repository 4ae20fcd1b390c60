//! The runtime table: every function generated kernel code may call, handed to the kernel as a
//! pointer at call time so that the machine code holds no absolute addresses.
//!
//! Generated code loads a function pointer from a fixed offset of [`RuntimeTable`] and calls it
//! indirectly. The table is `#[repr(C)]`; offsets are computed from the Rust layout
//! ([`RuntimeTable::offset_of_unary`] and friends), so the code generator and the table cannot
//! disagree. [`RuntimeTable::get`] is the process-wide instance.
//!
//! Helpers that can fail (allocation, parallel-for, the sort family) report through the kernel's
//! [`KernelError`] and, for messages that do not fit its numbers, a thread-local string taken by
//! [`take_helper_message`]. No panic unwinds out of a helper (that would abort the process): the
//! fallible ones catch it and report `ERR_HELPER` (or a failed allocation), and the math helpers
//! cannot panic at all.

use std::cell::RefCell;
use std::mem::offset_of;
use std::sync::OnceLock;

use crate::kernel::abi::{ERR_HELPER, KernelArg, KernelError, STATUS_OK};
use crate::kernel::sort;

/// Scalar math functions called through the table (those without an inline lowering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(usize)]
pub enum UnaryFn {
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Tanh,
    Erf,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    /// Round half away from zero (C `round`, TVM's `round`).
    Round,
    /// Round toward -inf (the fallback when the ISA has no rounding instruction).
    Floor,
    /// Round toward +inf.
    Ceil,
    /// Round toward zero.
    Trunc,
    /// Round half to even (TVM's `nearbyint`).
    Nearest,
}

/// Number of [`UnaryFn`]s.
pub const N_UNARY: usize = UnaryFn::Nearest as usize + 1;

impl UnaryFn {
    /// The function TVM's intrinsic `name` (`T.exp` → `"exp"`) maps to.
    pub fn from_tir(name: &str) -> Option<UnaryFn> {
        Some(match name {
            "exp" => UnaryFn::Exp,
            "exp2" => UnaryFn::Exp2,
            "expm1" => UnaryFn::Expm1,
            "log" => UnaryFn::Log,
            "log2" => UnaryFn::Log2,
            "log10" => UnaryFn::Log10,
            "log1p" => UnaryFn::Log1p,
            "tanh" => UnaryFn::Tanh,
            "erf" => UnaryFn::Erf,
            "sin" => UnaryFn::Sin,
            "cos" => UnaryFn::Cos,
            "tan" => UnaryFn::Tan,
            "asin" => UnaryFn::Asin,
            "acos" => UnaryFn::Acos,
            "atan" => UnaryFn::Atan,
            "sinh" => UnaryFn::Sinh,
            "cosh" => UnaryFn::Cosh,
            "asinh" => UnaryFn::Asinh,
            "acosh" => UnaryFn::Acosh,
            "atanh" => UnaryFn::Atanh,
            "round" => UnaryFn::Round,
            _ => return None,
        })
    }
}

/// Two-argument math functions called through the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(usize)]
pub enum BinaryFn {
    Pow,
    /// C `fmod` (TVM's `truncmod` of floats).
    Fmod,
    Atan2,
    Hypot,
}

/// Number of [`BinaryFn`]s.
pub const N_BINARY: usize = BinaryFn::Hypot as usize + 1;

/// The sort-family helpers reachable through `T.call_packed("tvm.contrib.sort.*", …)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i64)]
pub enum SortOp {
    /// `tvm.contrib.sort.sort(input, output, axis, is_ascend)`.
    Sort = 0,
    /// `tvm.contrib.sort.argsort(input, output, axis, is_ascend)`.
    Argsort = 1,
    /// `tvm.contrib.sort.topk(input, out..., k, axis, ret_type, is_ascend)`; `ret_type` is
    /// passed as 0 (`"both"`), 1 (`"values"`) or 2 (`"indices"`).
    Topk = 2,
    /// `tvm.contrib.sort.argsort_nms(input, counts, output, axis, is_ascend)`: argsort of
    /// each slice's first `counts[slice]` elements, the rest in place.
    ArgsortNms = 3,
}

impl SortOp {
    const ALL: [SortOp; 4] = [
        SortOp::Sort,
        SortOp::Argsort,
        SortOp::Topk,
        SortOp::ArgsortNms,
    ];

    /// The packed function name of the helper.
    pub fn name(self) -> &'static str {
        match self {
            SortOp::Sort => "tvm.contrib.sort.sort",
            SortOp::Argsort => "tvm.contrib.sort.argsort",
            SortOp::Topk => "tvm.contrib.sort.topk",
            SortOp::ArgsortNms => "tvm.contrib.sort.argsort_nms",
        }
    }

    /// The helper for a packed function name.
    pub fn from_name(name: &str) -> Option<SortOp> {
        SortOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The helper whose discriminant generated code passes as `op`.
    pub(crate) fn from_code(op: i64) -> Option<SortOp> {
        SortOp::ALL.into_iter().find(|&o| o as i64 == op)
    }
}

/// The body of a parallel loop: runs iterations `[begin, end)` with the captured values at
/// `ctx`; returns a status like a kernel.
pub type ParallelBody = unsafe extern "C" fn(
    ctx: *const u8,
    begin: i64,
    end: i64,
    rt: *const RuntimeTable,
    err: *mut KernelError,
) -> i32;

/// The functions generated code calls. See the module doc.
#[repr(C)]
pub struct RuntimeTable {
    /// `f32` versions of [`UnaryFn`], by discriminant.
    pub unary_f32: [extern "C" fn(f32) -> f32; N_UNARY],
    /// `f64` versions of [`UnaryFn`].
    pub unary_f64: [extern "C" fn(f64) -> f64; N_UNARY],
    /// `f32` versions of [`BinaryFn`].
    pub binary_f32: [extern "C" fn(f32, f32) -> f32; N_BINARY],
    /// `f64` versions of [`BinaryFn`].
    pub binary_f64: [extern "C" fn(f64, f64) -> f64; N_BINARY],
    /// `float16` bits (low 16 bits of the argument) to `f32`.
    pub f16_to_f32: extern "C" fn(i32) -> f32,
    /// `f32` to `float16` bits (round to nearest even), in the low 16 bits.
    pub f32_to_f16: extern "C" fn(f32) -> i32,
    /// `f32` to `bfloat16` bits (round to nearest even), in the low 16 bits.
    pub f32_to_bf16: extern "C" fn(f32) -> i32,
    /// Allocates `bytes` zeroed bytes aligned to 64; null if `bytes` is negative, too large or
    /// memory is exhausted.
    pub alloc: extern "C" fn(bytes: i64) -> *mut u8,
    /// Frees what `alloc` returned for the same `bytes`; null is ignored.
    pub free: unsafe extern "C" fn(ptr: *mut u8, bytes: i64),
    /// Runs `body` over `[begin, end)` split into chunks on rayon's pool; returns the status of
    /// a failing chunk (copying its error into `err`) or `STATUS_OK`.
    pub parallel_for: unsafe extern "C" fn(
        body: ParallelBody,
        ctx: *const u8,
        begin: i64,
        end: i64,
        rt: *const RuntimeTable,
        err: *mut KernelError,
    ) -> i32,
    /// A sort-family helper ([`SortOp`]) over `nargs` arguments.
    pub sort: unsafe extern "C" fn(
        op: i64,
        args: *const KernelArg,
        nargs: i64,
        err: *mut KernelError,
    ) -> i32,
}

impl RuntimeTable {
    /// The process-wide table.
    pub fn get() -> &'static RuntimeTable {
        static TABLE: OnceLock<RuntimeTable> = OnceLock::new();
        TABLE.get_or_init(RuntimeTable::new)
    }

    fn new() -> RuntimeTable {
        RuntimeTable {
            unary_f32: unary_f32_table(),
            unary_f64: unary_f64_table(),
            binary_f32: [pow_f32, fmod_f32, atan2_f32, hypot_f32],
            binary_f64: [pow_f64, fmod_f64, atan2_f64, hypot_f64],
            f16_to_f32,
            f32_to_f16,
            f32_to_bf16,
            alloc: rt_alloc,
            free: rt_free,
            parallel_for: rt_parallel_for,
            sort: rt_sort,
        }
    }

    /// Byte offset of the `f32` (or `f64` if `f64`) version of `f`.
    pub fn offset_of_unary(f: UnaryFn, f64: bool) -> i32 {
        let base = if f64 {
            offset_of!(RuntimeTable, unary_f64)
        } else {
            offset_of!(RuntimeTable, unary_f32)
        };
        (base + f as usize * size_of::<usize>()) as i32
    }

    /// Byte offset of the `f32` (or `f64`) version of `f`.
    pub fn offset_of_binary(f: BinaryFn, f64: bool) -> i32 {
        let base = if f64 {
            offset_of!(RuntimeTable, binary_f64)
        } else {
            offset_of!(RuntimeTable, binary_f32)
        };
        (base + f as usize * size_of::<usize>()) as i32
    }
}

/// Byte offsets of the table's single-function fields, for the code generator.
pub mod offsets {
    use super::RuntimeTable;
    use std::mem::offset_of;

    /// [`RuntimeTable::f16_to_f32`].
    pub const F16_TO_F32: i32 = offset_of!(RuntimeTable, f16_to_f32) as i32;
    /// [`RuntimeTable::f32_to_f16`].
    pub const F32_TO_F16: i32 = offset_of!(RuntimeTable, f32_to_f16) as i32;
    /// [`RuntimeTable::f32_to_bf16`].
    pub const F32_TO_BF16: i32 = offset_of!(RuntimeTable, f32_to_bf16) as i32;
    /// [`RuntimeTable::alloc`].
    pub const ALLOC: i32 = offset_of!(RuntimeTable, alloc) as i32;
    /// [`RuntimeTable::free`].
    pub const FREE: i32 = offset_of!(RuntimeTable, free) as i32;
    /// [`RuntimeTable::parallel_for`].
    pub const PARALLEL_FOR: i32 = offset_of!(RuntimeTable, parallel_for) as i32;
    /// [`RuntimeTable::sort`].
    pub const SORT: i32 = offset_of!(RuntimeTable, sort) as i32;
}

// The C library's error function: what TVM's LLVM backend calls for `T.erf`. Rust's `std` has
// no stable `erf`.
unsafe extern "C" {
    safe fn erff(x: f32) -> f32;
    safe fn erf(x: f64) -> f64;
}

// The math and conversion helpers return plain values, so they have no status to report a
// panic with; instead none of them can panic: each is a call of a `std` float method (`f32::exp`
// and friends lower to LLVM intrinsics or libm, which return NaN/inf for bad input instead of
// panicking), of the C library's `erf`/`erff`, an infallible float operator (`%`), or an
// infallible `half` conversion. There is no indexing, allocation or integer arithmetic in them.
macro_rules! unary_table {
    ($t:ty; $($name:ident => $f:expr),* $(,)?) => {{
        $(extern "C" fn $name(x: $t) -> $t { ($f)(x) })*
        [$($name as extern "C" fn($t) -> $t),*]
    }};
}

// Entries in `UnaryFn` order.
fn unary_f32_table() -> [extern "C" fn(f32) -> f32; N_UNARY] {
    unary_table!(f32;
        exp => f32::exp, exp2 => f32::exp2, expm1 => f32::exp_m1, log => f32::ln,
        log2 => f32::log2, log10 => f32::log10, log1p => f32::ln_1p, tanh => f32::tanh,
        erf_ => erff, sin => f32::sin, cos => f32::cos, tan => f32::tan, asin => f32::asin,
        acos => f32::acos, atan => f32::atan, sinh => f32::sinh, cosh => f32::cosh,
        asinh => f32::asinh, acosh => f32::acosh, atanh => f32::atanh, round => f32::round,
        floor => f32::floor, ceil => f32::ceil, trunc => f32::trunc,
        nearest => f32::round_ties_even,
    )
}

fn unary_f64_table() -> [extern "C" fn(f64) -> f64; N_UNARY] {
    unary_table!(f64;
        exp => f64::exp, exp2 => f64::exp2, expm1 => f64::exp_m1, log => f64::ln,
        log2 => f64::log2, log10 => f64::log10, log1p => f64::ln_1p, tanh => f64::tanh,
        erf_ => erf, sin => f64::sin, cos => f64::cos, tan => f64::tan, asin => f64::asin,
        acos => f64::acos, atan => f64::atan, sinh => f64::sinh, cosh => f64::cosh,
        asinh => f64::asinh, acosh => f64::acosh, atanh => f64::atanh, round => f64::round,
        floor => f64::floor, ceil => f64::ceil, trunc => f64::trunc,
        nearest => f64::round_ties_even,
    )
}

extern "C" fn pow_f32(x: f32, y: f32) -> f32 {
    x.powf(y)
}
extern "C" fn fmod_f32(x: f32, y: f32) -> f32 {
    x % y
}
extern "C" fn atan2_f32(x: f32, y: f32) -> f32 {
    x.atan2(y)
}
extern "C" fn hypot_f32(x: f32, y: f32) -> f32 {
    x.hypot(y)
}
extern "C" fn pow_f64(x: f64, y: f64) -> f64 {
    x.powf(y)
}
extern "C" fn fmod_f64(x: f64, y: f64) -> f64 {
    x % y
}
extern "C" fn atan2_f64(x: f64, y: f64) -> f64 {
    x.atan2(y)
}
extern "C" fn hypot_f64(x: f64, y: f64) -> f64 {
    x.hypot(y)
}

extern "C" fn f16_to_f32(bits: i32) -> f32 {
    half::f16::from_bits(bits as u16).to_f32()
}
extern "C" fn f32_to_f16(x: f32) -> i32 {
    half::f16::from_f32(x).to_bits() as i32
}
extern "C" fn f32_to_bf16(x: f32) -> i32 {
    half::bf16::from_f32(x).to_bits() as i32
}

/// A kernel's heap buffer: zeroed, 64-byte aligned ([`vm::tensor::alloc_zeroed_aligned`]),
/// or null for a negative or impossible size or when memory runs out.
extern "C" fn rt_alloc(bytes: i64) -> *mut u8 {
    // Nothing below is expected to panic (the layout is checked arithmetic and the allocator
    // reports exhaustion as null), but no unwinding may leave an `extern "C"` function: a
    // panic becomes a failed allocation, which generated code reports as `ERR_ALLOC`.
    std::panic::catch_unwind(|| match usize::try_from(bytes) {
        Ok(n) => vm::tensor::alloc_zeroed_aligned(n),
        Err(_) => std::ptr::null_mut(),
    })
    .unwrap_or(std::ptr::null_mut())
}

/// # Safety
/// `ptr` is null or was returned by `rt_alloc(bytes)` with the same `bytes` and not freed.
unsafe extern "C" fn rt_free(ptr: *mut u8, bytes: i64) {
    if ptr.is_null() {
        return;
    }
    // As in `rt_alloc`: a panic must not unwind out; at worst the block leaks.
    let _ = std::panic::catch_unwind(|| {
        if let Ok(n) = usize::try_from(bytes) {
            // SAFETY: by the contract, ptr came from rt_alloc(bytes), that is from
            // alloc_zeroed_aligned(n), and is freed only here.
            unsafe { vm::tensor::free_aligned(ptr, n) }
        }
    });
}

thread_local! {
    static HELPER_MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records the message of a failing helper for the caller on this thread.
pub(crate) fn set_helper_message(msg: String) {
    HELPER_MESSAGE.with(|m| *m.borrow_mut() = Some(msg));
}

/// Takes the message a helper left on this thread (after a kernel returned `ERR_HELPER`).
pub fn take_helper_message() -> Option<String> {
    HELPER_MESSAGE.with(|m| m.borrow_mut().take())
}

/// Reports a helper failure: `msg` for [`take_helper_message`], `ERR_HELPER` in `*err`.
///
/// # Safety
/// `err` must be valid for writes.
unsafe fn helper_failed(err: *mut KernelError, msg: String) -> i32 {
    set_helper_message(msg);
    // SAFETY: by the contract, err is valid for writes.
    unsafe {
        *err = KernelError {
            kind: ERR_HELPER,
            ..KernelError::default()
        }
    };
    ERR_HELPER
}

/// The message a panic carried (`panic!` with a literal or a formatted string), for an error
/// that reports it.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Runs the body of the `extern "C"` helper `helper`, turning a panic into `ERR_HELPER` with a
/// message: unwinding out of an `extern "C"` function aborts the process.
///
/// The closure is asserted unwind-safe: after a panic nothing it touched is used again except
/// the output tensors, which a failed kernel leaves partially written in any case.
///
/// # Safety
/// `err` must be valid for writes.
unsafe fn helper_boundary(helper: &str, err: *mut KernelError, body: impl FnOnce() -> i32) -> i32 {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(status) => status,
        Err(payload) => {
            let what = panic_message(payload.as_ref());
            // SAFETY: forwarded contract.
            unsafe { helper_failed(err, format!("runtime helper `{helper}` failed: {what}")) }
        }
    }
}

/// The most tasks one parallel loop is split into, whatever the thread count.
const MAX_TASKS: u64 = 1024;

/// How a parallel loop `[begin, end)` is split: `count` chunks of `step` iterations (the last
/// may be shorter). All arithmetic is exact for any `begin < end`, including extents up to
/// `2^64 - 1` (`i64::MIN..i64::MAX`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Chunks {
    begin: i64,
    /// `end - begin`, which does not fit `i64` in general.
    len: u64,
    step: u64,
    count: u64,
}

impl Chunks {
    /// A few tasks per thread, for load balance, at most [`MAX_TASKS`]; `None` if the range is
    /// empty (`end <= begin`).
    fn new(begin: i64, end: i64, threads: usize) -> Option<Chunks> {
        if end <= begin {
            return None;
        }
        // Exact: 0 < end - begin < 2^64, and the wrapping difference is that value mod 2^64.
        let len = end.wrapping_sub(begin) as u64;
        let tasks = (threads as u64)
            .saturating_mul(4)
            .clamp(1, MAX_TASKS)
            .min(len);
        let step = len.div_ceil(tasks);
        Some(Chunks {
            begin,
            len,
            step,
            count: len.div_ceil(step),
        })
    }

    /// The iterations `[lo, hi)` of chunk `c < count`.
    fn range(&self, c: u64) -> (i64, i64) {
        // c < count = ceil(len / step), so off = c * step < len: no overflow, and begin + off
        // and begin + off + size lie in [begin, end], so the wrapping additions are exact.
        let off = c * self.step;
        let size = self.step.min(self.len - off);
        let lo = self.begin.wrapping_add(off as i64);
        (lo, lo.wrapping_add(size as i64))
    }
}

/// # Safety
/// `body` must be safe to call concurrently on disjoint sub-ranges of `[begin, end)` with `ctx`
/// and `rt`, and `err` must be valid for writes.
unsafe extern "C" fn rt_parallel_for(
    body: ParallelBody,
    ctx: *const u8,
    begin: i64,
    end: i64,
    rt: *const RuntimeTable,
    err: *mut KernelError,
) -> i32 {
    let run = || {
        // SAFETY: forwarded contract.
        unsafe { parallel_for(body, ctx, begin, end, rt, err) }
    };
    // SAFETY: by the contract, err is valid for writes.
    unsafe { helper_boundary("parallel_for", err, run) }
}

/// Runs the chunks of `[begin, end)` on the pool ([`crate::pool::for_each`]). A failing chunk
/// stops every chunk after it from starting, and the failure reported is that of the lowest
/// failing chunk, which, since every chunk below it ran to completion, is the failure a serial
/// run would report.
///
/// # Safety
/// As [`rt_parallel_for`].
unsafe fn parallel_for(
    body: ParallelBody,
    ctx: *const u8,
    begin: i64,
    end: i64,
    rt: *const RuntimeTable,
    err: *mut KernelError,
) -> i32 {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU64, Ordering};
    let Some(chunks) = Chunks::new(begin, end, crate::pool::threads()) else {
        return STATUS_OK;
    };
    let first_failed = AtomicU64::new(u64::MAX);
    let failure: Mutex<Option<(u64, KernelError, Option<String>)>> = Mutex::new(None);
    // Raw pointers are not Send; carry them as integers into the worker closures.
    let (ctx_addr, rt_addr) = (ctx as usize, rt as usize);
    crate::pool::for_each(chunks.count as usize, |c| {
        let c = c as u64;
        if c > first_failed.load(Ordering::Relaxed) {
            return;
        }
        let (lo, hi) = chunks.range(c);
        let mut e = KernelError::default();
        // SAFETY: the caller guarantees `body` may run on disjoint sub-ranges concurrently;
        // chunks are disjoint sub-ranges of [begin, end); `e` is a local the body may write.
        let status = unsafe {
            body(
                ctx_addr as *const u8,
                lo,
                hi,
                rt_addr as *const RuntimeTable,
                &mut e,
            )
        };
        if status != STATUS_OK {
            e.kind = status;
            let msg = take_helper_message();
            first_failed.fetch_min(c, Ordering::Relaxed);
            let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
            if f.as_ref().is_none_or(|(first, ..)| c < *first) {
                *f = Some((c, e, msg));
            }
        }
    });
    match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        None => STATUS_OK,
        Some((_, e, msg)) => {
            if let Some(m) = msg {
                set_helper_message(m);
            }
            // SAFETY: the caller guarantees err is valid for writes.
            unsafe { *err = e };
            e.kind
        }
    }
}

/// # Safety
/// `args` must point at `nargs` valid [`KernelArg`]s whose tensors are valid for their shapes
/// and dtypes, and `err` must be valid for writes.
unsafe extern "C" fn rt_sort(
    op: i64,
    args: *const KernelArg,
    nargs: i64,
    err: *mut KernelError,
) -> i32 {
    let run = || {
        let n = usize::try_from(nargs).unwrap_or(0);
        let args = if n == 0 || args.is_null() {
            &[][..]
        } else {
            // SAFETY: by the contract, args points at nargs KernelArgs.
            unsafe { std::slice::from_raw_parts(args, n) }
        };
        // SAFETY: forwarded contract: the tensors of args are valid.
        match unsafe { sort::run(op, args) } {
            Ok(()) => STATUS_OK,
            // SAFETY: forwarded contract.
            Err(msg) => unsafe { helper_failed(err, msg) },
        }
    };
    // SAFETY: by the contract, err is valid for writes.
    unsafe { helper_boundary("sort", err, run) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_in_enum_order() {
        let t = RuntimeTable::get();
        assert_eq!((t.unary_f32[UnaryFn::Exp as usize])(1.0), 1f32.exp());
        assert_eq!((t.unary_f32[UnaryFn::Erf as usize])(0.0), 0.0);
        assert_eq!((t.unary_f32[UnaryFn::Round as usize])(2.5), 3.0);
        assert_eq!((t.unary_f64[UnaryFn::Atanh as usize])(0.5), 0.5f64.atanh());
        assert_eq!((t.unary_f64[UnaryFn::Log1p as usize])(1.0), 2f64.ln());
        assert_eq!((t.unary_f32[UnaryFn::Nearest as usize])(2.5), 2.0);
        assert_eq!((t.unary_f64[UnaryFn::Floor as usize])(-2.5), -3.0);
        assert_eq!((t.binary_f32[BinaryFn::Pow as usize])(2.0, 3.0), 8.0);
        assert_eq!((t.binary_f64[BinaryFn::Fmod as usize])(-7.0, 3.0), -1.0);
        assert_eq!((t.binary_f64[BinaryFn::Hypot as usize])(3.0, 4.0), 5.0);
    }

    #[test]
    fn alloc_rejects_bad_sizes() {
        assert!(rt_alloc(-1).is_null());
        assert!(rt_alloc(i64::MAX).is_null());
        for bytes in [0, 1, 100, 4096, 1 << 20] {
            let p = rt_alloc(bytes);
            assert!(!p.is_null() && (p as usize).is_multiple_of(64));
            // SAFETY: the buffer has max(bytes, 1) bytes, none written since rt_alloc.
            let zeroed = unsafe { std::slice::from_raw_parts(p, bytes.max(1) as usize) };
            assert!(zeroed.iter().all(|&b| b == 0));
            // SAFETY: p came from rt_alloc(bytes).
            unsafe { rt_free(p, bytes) };
        }
    }

    #[test]
    fn chunks_cover_any_range_exactly_with_a_bounded_task_count() {
        let cases = [
            (0, 16),
            (0, 3),
            (-5, 1000),
            (0, i64::MAX),
            (i64::MIN, i64::MAX),
            (i64::MIN, i64::MIN + 1),
            (i64::MAX - 1, i64::MAX),
            (i64::MIN, 0),
            (9223372036854775800 - 7, 9223372036854775800),
        ];
        for (begin, end) in cases {
            for threads in [1, 2, 7, 1 << 20] {
                let c = Chunks::new(begin, end, threads).unwrap();
                assert!(
                    c.count >= 1 && c.count <= MAX_TASKS,
                    "{begin}..{end}: {c:?}"
                );
                let mut next = begin;
                for i in 0..c.count {
                    let (lo, hi) = c.range(i);
                    assert_eq!(lo, next, "{begin}..{end} chunk {i}");
                    assert!(hi > lo, "{begin}..{end} chunk {i} is empty");
                    next = hi;
                }
                assert_eq!(next, end, "{begin}..{end}");
            }
        }
        for (begin, end) in [(0, 0), (5, 4), (i64::MAX, i64::MIN), (0, -1)] {
            assert_eq!(Chunks::new(begin, end, 4), None);
        }
    }

    /// A parallel body over a 4-element buffer: fails like an out-of-bounds access at the first
    /// iteration outside `0..4`, counting its calls in the `AtomicU64` at `ctx`.
    unsafe extern "C" fn body_of_four(
        ctx: *const u8,
        begin: i64,
        end: i64,
        _rt: *const RuntimeTable,
        err: *mut KernelError,
    ) -> i32 {
        // SAFETY: the tests pass a pointer to a live AtomicU64 as ctx.
        let calls = unsafe { &*(ctx as *const std::sync::atomic::AtomicU64) };
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        for i in begin..end {
            if !(0..4).contains(&i) {
                // SAFETY: rt_parallel_for passes a local error to write.
                unsafe {
                    *err = KernelError {
                        kind: crate::kernel::abi::ERR_BOUNDS,
                        expected: 4,
                        actual: i,
                        ..KernelError::default()
                    }
                };
                return crate::kernel::abi::ERR_BOUNDS;
            }
        }
        STATUS_OK
    }

    fn run_four(begin: i64, end: i64) -> (i32, KernelError, u64) {
        let calls = std::sync::atomic::AtomicU64::new(0);
        let mut e = KernelError::default();
        // SAFETY: body_of_four only reads its range and the counter at ctx, which outlives the
        // call; e is a local.
        let status = unsafe {
            (RuntimeTable::get().parallel_for)(
                body_of_four,
                &calls as *const _ as *const u8,
                begin,
                end,
                RuntimeTable::get(),
                &mut e,
            )
        };
        (status, e, calls.into_inner())
    }

    #[test]
    fn parallel_for_reports_the_first_failing_iteration_of_huge_extents() {
        use crate::kernel::abi::ERR_BOUNDS;
        for end in [9223372036854775800, i64::MAX] {
            let (status, e, calls) = run_four(0, end);
            assert_eq!(
                (status, e.kind, e.actual),
                (ERR_BOUNDS, ERR_BOUNDS, 4),
                "0..{end}"
            );
            assert!(calls <= MAX_TASKS, "0..{end}: {calls} body calls");
        }
        let (status, e, _) = run_four(i64::MIN, i64::MAX);
        assert_eq!((status, e.actual), (ERR_BOUNDS, i64::MIN));
        let (status, e, _) = run_four(i64::MAX - 1, i64::MAX);
        assert_eq!((status, e.actual), (ERR_BOUNDS, i64::MAX - 1));
        assert_eq!(run_four(0, 4).0, STATUS_OK);
        for (begin, end) in [(0, 0), (4, 0), (i64::MAX, i64::MIN)] {
            assert_eq!(run_four(begin, end), (STATUS_OK, KernelError::default(), 0));
        }
    }

    #[test]
    fn parallel_for_hands_out_no_chunk_after_a_failure() {
        // On one thread rayon runs the chunks in order, so the first chunk's failure must stop
        // every later chunk from starting.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let (status, e, calls) = pool.install(|| run_four(0, i64::MAX));
        assert_eq!(
            (status, e.actual, calls),
            (crate::kernel::abi::ERR_BOUNDS, 4, 1)
        );
    }

    #[test]
    fn a_panic_inside_a_helper_becomes_an_error() {
        let mut e = KernelError::default();
        let v: Vec<i64> = Vec::new();
        // SAFETY: e is a local.
        let status = unsafe {
            helper_boundary("sort", &mut e, || {
                // An out-of-bounds slice index: a panic with a formatted (String) payload.
                v[3] as i32
            })
        };
        assert_eq!((status, e.kind), (ERR_HELPER, ERR_HELPER));
        let msg = take_helper_message().unwrap();
        assert!(
            msg.contains("runtime helper `sort` failed") && msg.contains("index out of bounds"),
            "{msg}"
        );
        // SAFETY: e is a local.
        let status =
            unsafe { helper_boundary("parallel_for", &mut e, || std::panic::panic_any(7u8)) };
        assert_eq!(status, ERR_HELPER);
        assert!(take_helper_message().unwrap().contains("without a message"));
    }

    #[test]
    fn the_sort_helper_rejects_bad_arguments_with_a_message() {
        let mut data = [1.0f32, f32::NAN, -1.0];
        let mut out = [0i32; 3];
        let (s3, s4) = ([3i64], [4i64]);
        let f32t = crate::kernel::abi::pack_dtype(2, 32, 1);
        let i32t = crate::kernel::abi::pack_dtype(0, 32, 1);
        let call = |args: &[KernelArg]| {
            let mut e = KernelError::default();
            // SAFETY: every tensor argument points at a live array of its shape and dtype.
            let status = unsafe {
                (RuntimeTable::get().sort)(
                    SortOp::Argsort as i64,
                    args.as_ptr(),
                    args.len() as i64,
                    &mut e,
                )
            };
            (status, take_helper_message())
        };
        let input = KernelArg::tensor(data.as_mut_ptr().cast(), &s3, f32t);
        let ok = [
            input,
            KernelArg::tensor(out.as_mut_ptr().cast(), &s3, i32t),
            KernelArg::int(0),
            KernelArg::int(1),
        ];
        assert_eq!(call(&ok), (STATUS_OK, None));
        assert_eq!(out, [2, 0, 1]);
        let short = [
            input,
            KernelArg::tensor(out.as_mut_ptr().cast(), &s4, i32t),
            KernelArg::int(0),
            KernelArg::int(1),
        ];
        let (status, msg) = call(&short);
        assert_eq!(status, ERR_HELPER);
        assert!(
            msg.unwrap()
                .contains("indices output has shape [4], expected [3]")
        );
        let (status, msg) = call(&ok[..2]);
        assert_eq!(status, ERR_HELPER);
        assert!(msg.unwrap().contains("expected 4 arguments"));
    }
}
