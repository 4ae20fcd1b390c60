//! The runtime table: every function generated kernel code may call, handed to the kernel as a
//! pointer at call time so that the machine code holds no absolute addresses.
//!
//! Generated code loads a function pointer from a fixed offset of [`RuntimeTable`] and calls it
//! indirectly. The table is `#[repr(C)]`; offsets are computed from the Rust layout
//! ([`RuntimeTable::offset_of_unary`] and friends), so the code generator and the table cannot
//! disagree. [`RuntimeTable::get`] is the process-wide instance.
//!
//! Helpers that can fail (allocation, the sort family) report through the kernel's
//! [`KernelError`] and, for messages that do not fit its numbers, a thread-local string taken by
//! [`take_helper_message`].

use std::alloc::Layout;
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
}

impl SortOp {
    const ALL: [SortOp; 3] = [SortOp::Sort, SortOp::Argsort, SortOp::Topk];

    /// The packed function name of the helper.
    pub fn name(self) -> &'static str {
        match self {
            SortOp::Sort => "tvm.contrib.sort.sort",
            SortOp::Argsort => "tvm.contrib.sort.argsort",
            SortOp::Topk => "tvm.contrib.sort.topk",
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

const ALIGN: usize = 64;

fn layout(bytes: i64) -> Option<Layout> {
    let n = usize::try_from(bytes).ok()?.max(1);
    Layout::from_size_align(n.checked_next_multiple_of(ALIGN)?, ALIGN).ok()
}

extern "C" fn rt_alloc(bytes: i64) -> *mut u8 {
    match layout(bytes) {
        // SAFETY: the layout has a non-zero size.
        Some(l) => unsafe { std::alloc::alloc_zeroed(l) },
        None => std::ptr::null_mut(),
    }
}

/// # Safety
/// `ptr` is null or was returned by `rt_alloc(bytes)` with the same `bytes` and not freed.
unsafe extern "C" fn rt_free(ptr: *mut u8, bytes: i64) {
    if ptr.is_null() {
        return;
    }
    if let Some(l) = layout(bytes) {
        // SAFETY: by the contract, ptr came from alloc_zeroed with exactly this layout.
        unsafe { std::alloc::dealloc(ptr, l) }
    }
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

/// Iterations per task of a parallel loop: a few tasks per thread, for load balance.
fn chunk(begin: i64, end: i64) -> i64 {
    let n = end - begin;
    let tasks = (rayon::current_num_threads() as i64 * 4).max(1);
    (n + tasks - 1) / tasks
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
    use rayon::prelude::*;
    use std::sync::Mutex;
    if end <= begin {
        return STATUS_OK;
    }
    let step = chunk(begin, end).max(1);
    let n_chunks = (end - begin + step - 1) / step;
    let failure: Mutex<Option<(KernelError, Option<String>)>> = Mutex::new(None);
    // Raw pointers are not Send; carry them as integers into the worker closures.
    let (ctx_addr, rt_addr) = (ctx as usize, rt as usize);
    (0..n_chunks).into_par_iter().for_each(|c| {
        let lo = begin + c * step;
        let hi = (lo + step).min(end);
        let mut e = KernelError::default();
        // SAFETY: the caller guarantees `body` may run on disjoint sub-ranges concurrently;
        // `e` is a local the body may write.
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
            let msg = take_helper_message();
            let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
            if f.is_none() {
                *f = Some((e, msg));
            }
        }
    });
    match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        None => STATUS_OK,
        Some((e, msg)) => {
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
    let n = usize::try_from(nargs).unwrap_or(0);
    // SAFETY: by the contract, args points at nargs KernelArgs.
    let args = unsafe { std::slice::from_raw_parts(args, n) };
    // SAFETY: forwarded contract: the tensors of args are valid.
    match unsafe { sort::run(op, args) } {
        Ok(()) => STATUS_OK,
        Err(msg) => {
            set_helper_message(msg);
            // SAFETY: the caller guarantees err is valid for writes.
            unsafe {
                *err = KernelError {
                    kind: ERR_HELPER,
                    ..KernelError::default()
                }
            };
            ERR_HELPER
        }
    }
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
        let p = rt_alloc(100);
        assert!(!p.is_null() && (p as usize).is_multiple_of(64));
        // SAFETY: p came from rt_alloc(100).
        unsafe { rt_free(p, 100) };
    }
}
