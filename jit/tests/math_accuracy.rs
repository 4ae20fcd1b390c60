//! Accuracy of the emitted math functions against Rust's `std`, in ulps, on a million inputs.
//!
//! For every function and every type (`f32`, `f32x4`, `f64`, `f64x2`) this JIT-compiles
//! `fn(a: *const T, b: *const T, dst: *mut T, n: i64)` mapping the function over `n` scalars
//! (vector types take 4 or 2 lanes per step), once with the host's features and once with
//! [`HostFeatures::BASELINE`] (no FMA, no SSE4.1 rounding), runs it on random bit patterns,
//! uniform values in the function's interesting range, log-uniform magnitudes and special
//! values, and compares with `std` (glibc's `erf`/`erff` for erf). It prints a table of the
//! maximum ulp error and asserts the bounds in [`bound`].
//!
//! Zeros of different sign count as 1 ulp apart; a NaN where `std` has a number (or the
//! reverse) counts as infinitely far.

use cranelift_codegen::Context;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, Type, types};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use relaxjit_jit::isa::{HostFeatures, host_isa};
use relaxjit_jit::math::{FloatClass, MathFn, SIN_COS_MAX_ARG, emit_class, emit_pow, emit_unary};

// SAFETY: these are the C99 functions from the libm that std already links on Linux, with
// their C signatures; they have no preconditions.
unsafe extern "C" {
    safe fn erf(x: f64) -> f64;
    safe fn erff(x: f32) -> f32;
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Unary(MathFn),
    Pow,
    Class(FloatClass),
}

impl Op {
    fn name(self) -> String {
        match self {
            Op::Unary(f) => f.name().to_string(),
            Op::Pow => "pow".into(),
            Op::Class(c) => format!("{c:?}").to_lowercase(),
        }
    }
}

/// Maximum ulp error allowed for `op` on lanes of `f64` (`wide`) or `f32`.
fn bound(op: Op, wide: bool) -> u64 {
    match op {
        Op::Unary(MathFn::Sqrt | MathFn::Abs)
        | Op::Unary(MathFn::Floor | MathFn::Ceil | MathFn::Trunc | MathFn::Nearest)
        | Op::Class(_) => 0,
        Op::Unary(
            MathFn::Exp
            | MathFn::Exp2
            | MathFn::Log
            | MathFn::Log1p
            | MathFn::Rsqrt
            | MathFn::Sin
            | MathFn::Cos,
        ) => 1,
        Op::Unary(MathFn::Expm1 | MathFn::Log2 | MathFn::Log10 | MathFn::Sigmoid) => 2,
        Op::Unary(MathFn::Tanh | MathFn::Erf) => 3,
        Op::Pow => {
            if wide {
                3
            } else {
                1
            }
        }
    }
}

/// The scalar lane types under test.
trait Lane: Copy + Send + Sync + 'static {
    const SCALAR: Type;
    const VECTOR: Type;
    fn from_bits_u64(b: u64) -> Self;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn reference(op: Op, a: Self, b: Self) -> Self;
    fn ulps(a: Self, b: Self) -> u64;
    /// Log-uniform magnitude covering subnormals to huge values.
    fn log_uniform(r: &mut Rng) -> Self;
}

fn sigmoid64(x: f64) -> f64 {
    if x < 0.0 {
        let e = x.exp();
        e / (1.0 + e)
    } else {
        1.0 / (1.0 + (-x).exp())
    }
}

fn class(c: FloatClass, nan: bool, inf: bool) -> bool {
    match c {
        FloatClass::IsNan => nan,
        FloatClass::IsInf => inf,
        FloatClass::IsFinite => !nan && !inf,
    }
}

macro_rules! unary_ref {
    ($f:expr, $a:expr, $ty:ty, $erf:expr, $sigmoid:expr) => {
        match $f {
            MathFn::Exp => $a.exp(),
            MathFn::Exp2 => $a.exp2(),
            MathFn::Expm1 => $a.exp_m1(),
            MathFn::Log => $a.ln(),
            MathFn::Log2 => $a.log2(),
            MathFn::Log10 => $a.log10(),
            MathFn::Log1p => $a.ln_1p(),
            MathFn::Sqrt => $a.sqrt(),
            MathFn::Rsqrt => 1.0 / $a.sqrt(),
            MathFn::Tanh => $a.tanh(),
            MathFn::Sigmoid => $sigmoid($a),
            MathFn::Erf => $erf($a),
            MathFn::Sin => $a.sin(),
            MathFn::Cos => $a.cos(),
            MathFn::Floor => $a.floor(),
            MathFn::Ceil => $a.ceil(),
            MathFn::Trunc => $a.trunc(),
            MathFn::Nearest => $a.round_ties_even(),
            MathFn::Abs => $a.abs(),
        }
    };
}

impl Lane for f32 {
    const SCALAR: Type = types::F32;
    const VECTOR: Type = types::F32X4;
    fn from_bits_u64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn reference(op: Op, a: f32, b: f32) -> f32 {
        match op {
            Op::Unary(f) => unary_ref!(f, a, f32, erff, |x: f32| sigmoid64(x as f64) as f32),
            Op::Pow => a.powf(b),
            Op::Class(c) => class(c, a.is_nan(), a.is_infinite()) as u8 as f32,
        }
    }
    fn ulps(a: f32, b: f32) -> u64 {
        if a.is_nan() || b.is_nan() {
            return if a.is_nan() && b.is_nan() {
                0
            } else {
                u64::MAX
            };
        }
        if a == 0.0 && b == 0.0 {
            return (a.is_sign_negative() != b.is_sign_negative()) as u64;
        }
        let ord = |x: f32| {
            let i = x.to_bits() as i32;
            if i < 0 {
                -((i & 0x7fff_ffff) as i64)
            } else {
                i as i64
            }
        };
        ord(a).abs_diff(ord(b))
    }
    fn log_uniform(r: &mut Rng) -> f32 {
        let e = r.below(277) as i32 - 149;
        let m = 1.0 + r.unit();
        let v = (m * 2f64.powi(e)) as f32;
        if r.next() & 1 == 0 { v } else { -v }
    }
}

impl Lane for f64 {
    const SCALAR: Type = types::F64;
    const VECTOR: Type = types::F64X2;
    fn from_bits_u64(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn reference(op: Op, a: f64, b: f64) -> f64 {
        match op {
            Op::Unary(f) => unary_ref!(f, a, f64, erf, sigmoid64),
            Op::Pow => a.powf(b),
            Op::Class(c) => class(c, a.is_nan(), a.is_infinite()) as u8 as f64,
        }
    }
    fn ulps(a: f64, b: f64) -> u64 {
        if a.is_nan() || b.is_nan() {
            return if a.is_nan() && b.is_nan() {
                0
            } else {
                u64::MAX
            };
        }
        if a == 0.0 && b == 0.0 {
            return (a.is_sign_negative() != b.is_sign_negative()) as u64;
        }
        let ord = |x: f64| {
            let i = x.to_bits() as i64;
            if i < 0 {
                -((i & i64::MAX) as i128)
            } else {
                i as i128
            }
        };
        u64::try_from(ord(a).abs_diff(ord(b))).unwrap_or(u64::MAX)
    }
    fn log_uniform(r: &mut Rng) -> f64 {
        let e = r.below(2098) as i32 - 1074;
        let m = 1.0 + r.unit();
        let v = m * 2f64.powi(e.clamp(-1022, 1023)) * 2f64.powi(e - e.clamp(-1022, 1023));
        if r.next() & 1 == 0 { v } else { -v }
    }
}

/// xorshift64* — deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// Interesting ranges for an operation's argument: (lo, hi) pairs.
fn ranges(op: Op, wide: bool) -> [(f64, f64); 2] {
    let w = |a: f64, b: f64| if wide { b } else { a };
    match op {
        Op::Unary(MathFn::Exp | MathFn::Sigmoid) => {
            [(-w(110.0, 750.0), w(90.0, 712.0)), (-2.0, 2.0)]
        }
        Op::Unary(MathFn::Exp2) => [(-w(155.0, 1080.0), w(130.0, 1030.0)), (-2.0, 2.0)],
        Op::Unary(MathFn::Expm1) => [(-w(30.0, 50.0), w(90.0, 712.0)), (-1.0, 1.0)],
        Op::Unary(MathFn::Log | MathFn::Log2 | MathFn::Log10 | MathFn::Sqrt | MathFn::Rsqrt) => {
            [(0.0, 10.0), (0.5, 2.0)]
        }
        Op::Unary(MathFn::Log1p) => [(-1.0, 10.0), (-1e-3, 1e-3)],
        Op::Unary(MathFn::Tanh) => [(-12.0, 12.0), (-1.0, 1.0)],
        Op::Unary(MathFn::Erf) => [(-7.0, 7.0), (-1.5, 1.5)],
        Op::Unary(MathFn::Sin | MathFn::Cos) => {
            [(-10.0, 10.0), (-SIN_COS_MAX_ARG, SIN_COS_MAX_ARG)]
        }
        Op::Unary(MathFn::Floor | MathFn::Ceil | MathFn::Trunc | MathFn::Nearest) => {
            [(-10.0, 10.0), (-w(2e7, 1e16), w(2e7, 1e16))]
        }
        _ => [(-100.0, 100.0), (-1.0, 1.0)],
    }
}

fn specials<T: Lane>(wide: bool) -> Vec<T> {
    let mut v: Vec<f64> = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        3.0,
        -3.0,
        2.0,
        1e-3,
        -1e-3,
        88.0,
        88.72283,
        89.0,
        -87.33655,
        -103.9,
        -104.0,
        709.78,
        710.0,
        -745.13,
        -746.0,
        127.9,
        128.0,
        -149.5,
        -150.0,
        -1022.5,
        1023.99,
        1024.0,
        -1074.0,
        -1075.0,
        20.0,
        -20.0,
        3.9,
        5.95,
        1.25,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::PI,
        1e5,
    ];
    if wide {
        v.extend([f64::MIN_POSITIVE, 4.9e-324, f64::MAX, -f64::MAX, 2.2e-308]);
    } else {
        v.extend([
            f32::MIN_POSITIVE as f64,
            1.4e-45,
            f32::MAX as f64,
            -(f32::MAX as f64),
            1.1e-38,
        ]);
    }
    v.into_iter().map(T::from_f64).collect()
}

fn inputs<T: Lane>(op: Op, n: usize, seed: u64) -> (Vec<T>, Vec<T>) {
    let wide = T::SCALAR == types::F64;
    let mut r = Rng(seed | 1);
    let sp = specials::<T>(wide);
    let rg = ranges(op, wide);
    let trig = matches!(op, Op::Unary(MathFn::Sin | MathFn::Cos));
    let mut a = Vec::with_capacity(n);
    let mut b = Vec::with_capacity(n);
    if op == Op::Pow {
        for &x in &sp {
            for &y in &sp {
                a.push(x);
                b.push(y);
            }
        }
    } else {
        // sin/cos return NaN beyond SIN_COS_MAX_ARG (checked separately below).
        let keep = |x: &&T| !(trig && x.to_f64().abs() > SIN_COS_MAX_ARG && x.to_f64().is_finite());
        a.extend(sp.iter().filter(keep).copied());
        b.extend(sp.iter().filter(keep).copied());
    }
    while a.len() < n {
        let i = a.len();
        let (x, y) = if op == Op::Pow {
            match i % 5 {
                0 => (T::from_bits_u64(r.next()), T::from_bits_u64(r.next())),
                1 => (
                    T::from_f64(r.uniform(0.0, 4.0)),
                    T::from_f64(r.uniform(-40.0, 40.0)),
                ),
                2 => (
                    T::from_f64(r.uniform(-10.0, 10.0)),
                    T::from_f64(r.below(61) as f64 - 30.0),
                ),
                3 => (
                    T::from_f64(r.uniform(0.99, 1.01)),
                    T::from_f64(r.uniform(-2e4, 2e4)),
                ),
                _ => (T::log_uniform(&mut r), T::from_f64(r.uniform(-3.0, 3.0))),
            }
        } else {
            let x = match i % 4 {
                0 => T::from_bits_u64(r.next()),
                1 => T::from_f64(r.uniform(rg[0].0, rg[0].1)),
                2 => T::from_f64(r.uniform(rg[1].0, rg[1].1)),
                _ => T::log_uniform(&mut r),
            };
            // sin/cos promise accuracy only up to SIN_COS_MAX_ARG.
            let x = if trig && x.to_f64().abs() > SIN_COS_MAX_ARG && x.to_f64().is_finite() {
                T::from_f64(r.uniform(rg[1].0, rg[1].1))
            } else {
                x
            };
            (x, x)
        };
        a.push(x);
        b.push(y);
    }
    a.truncate(n);
    b.truncate(n);
    (a, b)
}

type Kernel = unsafe extern "C" fn(*const u8, *const u8, *mut u8, i64);

/// Compiles the map kernel for `op` on `ty` into `module`.
fn compile(module: &mut JITModule, op: Op, ty: Type, host: &HostFeatures, name: &str) -> Kernel {
    let cfg = module.target_config();
    let ptr = cfg.pointer_type();
    let mut ctx: Context = module.make_context();
    for _ in 0..3 {
        ctx.func.signature.params.push(AbiParam::new(ptr));
    }
    ctx.func.signature.params.push(AbiParam::new(types::I64));
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        let header = b.create_block();
        let body = b.create_block();
        let exit = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.append_block_param(header, types::I64);
        b.switch_to_block(entry);
        let p = b.block_params(entry).to_vec();
        let (pa, pb, pd, n) = (p[0], p[1], p[2], p[3]);
        let zero = b.ins().iconst(types::I64, 0);
        b.ins().jump(header, &[zero.into()]);

        b.switch_to_block(header);
        let i = b.block_params(header)[0];
        let more = b.ins().icmp(IntCC::SignedLessThan, i, n);
        b.ins().brif(more, body, &[], exit, &[]);

        b.switch_to_block(body);
        let shift = if ty.lane_type() == types::F64 { 3 } else { 2 };
        let off = b.ins().ishl_imm_u(i, shift);
        let fl = MemFlagsData::trusted();
        let aa = b.ins().iadd(pa, off);
        let x = b.ins().load(ty, fl, aa, 0);
        let r = match op {
            Op::Unary(f) => emit_unary(&mut b, f, x, ty, host).expect("supported type"),
            Op::Pow => {
                let ab = b.ins().iadd(pb, off);
                let y = b.ins().load(ty, fl, ab, 0);
                emit_pow(&mut b, x, y, ty, host).expect("supported type")
            }
            Op::Class(c) => {
                let m = emit_class(&mut b, c, x, ty, host).expect("supported type");
                let (one, zero) = if ty.lane_type() == types::F64 {
                    (b.ins().f64const(1.0), b.ins().f64const(0.0))
                } else {
                    (b.ins().f32const(1.0), b.ins().f32const(0.0))
                };
                if ty.is_vector() {
                    let one = b.ins().splat(ty, one);
                    let zero = b.ins().splat(ty, zero);
                    let m = b.ins().bitcast(ty, MemFlagsData::new(), m);
                    b.ins().bitselect(m, one, zero)
                } else {
                    b.ins().select(m, one, zero)
                }
            }
        };
        let ad = b.ins().iadd(pd, off);
        b.ins().store(fl, r, ad, 0);
        let step = b.ins().iadd_imm_s(i, ty.lane_count() as i64);
        b.ins().jump(header, &[step.into()]);

        b.switch_to_block(exit);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(cfg);
    }
    let id = module
        .declare_function(name, Linkage::Local, &ctx.func.signature)
        .expect("declare");
    module
        .define_function(id, &mut ctx)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    module.clear_context(&mut ctx);
    module.finalize_definitions().expect("finalize");
    let code = module.get_finalized_function(id);
    // SAFETY: `code` is the finalized entry of the function defined just above, whose
    // signature is (ptr, ptr, ptr, i64) -> () in the default (System V) calling convention,
    // which is `extern "C"` on this host.
    unsafe { std::mem::transmute::<*const u8, Kernel>(code) }
}

struct Row {
    name: String,
    cells: Vec<u64>,
    bounds: Vec<u64>,
}

fn run_type<T: Lane>(
    module: &mut JITModule,
    op: Op,
    n: usize,
    hosts: &[HostFeatures],
) -> Vec<(u64, u64, T, T, T)> {
    let (a, b) = inputs::<T>(
        op,
        n,
        0x9e37_79b9_7f4a_7c15 ^ (op.name().len() as u64 * 7919),
    );
    let want: Vec<T> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| T::reference(op, x, y))
        .collect();
    let mut out = Vec::new();
    for host in hosts {
        for ty in [T::SCALAR, T::VECTOR] {
            let name = format!("{}_{}_{}_{}", op.name(), ty, host.has_fma, host.has_sse41);
            let k = compile(module, op, ty, host, &name);
            let mut got: Vec<T> = vec![T::from_f64(0.0); n];
            // SAFETY: the kernel reads n elements from `a` and `b` and writes n to `got`,
            // all of which hold n values of T; n is a multiple of the lane count.
            unsafe {
                k(
                    a.as_ptr().cast(),
                    b.as_ptr().cast(),
                    got.as_mut_ptr().cast(),
                    n as i64,
                );
            }
            let (mut worst, mut at) = (0u64, 0usize);
            for i in 0..n {
                let d = T::ulps(got[i], want[i]);
                if d > worst {
                    (worst, at) = (d, i);
                }
            }
            out.push((worst, at as u64, a[at], b[at], got[at]));
        }
    }
    out
}

#[test]
fn math_functions_match_std_within_bounds() {
    let n = if cfg!(debug_assertions) {
        100_000
    } else {
        1_000_000
    };
    let isa = host_isa().expect("host isa");
    let native = HostFeatures::of_isa(&*isa);
    let hosts = [native, HostFeatures::BASELINE];
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));

    let mut ops: Vec<Op> = MathFn::ALL.iter().map(|&f| Op::Unary(f)).collect();
    ops.push(Op::Pow);
    ops.extend([FloatClass::IsNan, FloatClass::IsInf, FloatClass::IsFinite].map(Op::Class));

    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for &op in &ops {
        let r32 = run_type::<f32>(&mut module, op, n, &hosts);
        let r64 = run_type::<f64>(&mut module, op, n, &hosts);
        // Column order: per host, f32, f32x4, f64, f64x2.
        let mut cells = Vec::new();
        let mut bounds = Vec::new();
        for h in 0..hosts.len() {
            for (j, (worst, _, x, y, got)) in r32[2 * h..2 * h + 2].iter().enumerate() {
                cells.push(*worst);
                bounds.push(bound(op, false));
                if *worst > bound(op, false) {
                    failures.push(format!(
                        "{} {} host#{h}: {worst} ulp at x={x:e} y={y:e} got {got:e} want {:e}",
                        op.name(),
                        ["f32", "f32x4"][j],
                        f32::reference(op, *x, *y)
                    ));
                }
            }
            for (j, (worst, _, x, y, got)) in r64[2 * h..2 * h + 2].iter().enumerate() {
                cells.push(*worst);
                bounds.push(bound(op, true));
                if *worst > bound(op, true) {
                    failures.push(format!(
                        "{} {} host#{h}: {worst} ulp at x={x:e} y={y:e} got {got:e} want {:e}",
                        op.name(),
                        ["f64", "f64x2"][j],
                        f64::reference(op, *x, *y)
                    ));
                }
            }
        }
        rows.push(Row {
            name: op.name(),
            cells,
            bounds,
        });
    }

    println!("max ulp error over {n} inputs (host = {native:?}; baseline = no FMA, no SSE4.1)");
    println!(
        "{:<9} | {:>5} {:>5} {:>5} {:>5} | {:>5} {:>5} {:>5} {:>5} | bound f32/f64",
        "fn", "f32", "f32x4", "f64", "f64x2", "f32", "f32x4", "f64", "f64x2"
    );
    let fmt = |u: u64| {
        if u == u64::MAX {
            "NaN".to_string()
        } else {
            u.to_string()
        }
    };
    for r in &rows {
        let c: Vec<String> = r.cells.iter().map(|&u| fmt(u)).collect();
        println!(
            "{:<9} | {:>5} {:>5} {:>5} {:>5} | {:>5} {:>5} {:>5} {:>5} | {}/{}",
            r.name, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], r.bounds[0], r.bounds[2]
        );
    }
    assert!(
        failures.is_empty(),
        "ulp bounds exceeded:\n{}",
        failures.join("\n")
    );
}

#[test]
fn sin_cos_are_nan_beyond_the_exact_reduction_range() {
    let isa = host_isa().expect("host isa");
    let host = HostFeatures::of_isa(&*isa);
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let xs = [
        SIN_COS_MAX_ARG * 2.0,
        -1e300,
        f64::MAX,
        SIN_COS_MAX_ARG * 0.999,
        0.0,
        f64::NAN,
    ];
    for f in [MathFn::Sin, MathFn::Cos] {
        let k = compile(&mut module, Op::Unary(f), types::F64, &host, f.name());
        let mut got = [0f64; 6];
        // SAFETY: the kernel reads and writes 6 f64 values, the length of both arrays.
        unsafe {
            k(
                xs.as_ptr().cast(),
                xs.as_ptr().cast(),
                got.as_mut_ptr().cast(),
                6,
            )
        };
        assert!(got[..3].iter().all(|v| v.is_nan()), "{f:?}: {got:?}");
        assert!(got[3..5].iter().all(|v| v.is_finite()), "{f:?}: {got:?}");
        assert!(got[5].is_nan());
    }
}

#[test]
fn unsupported_types_are_errors_not_panics() {
    let mut func = cranelift_codegen::ir::Function::new();
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fctx);
    let blk = b.create_block();
    b.switch_to_block(blk);
    let x = b.ins().iconst(types::I32, 1);
    let r = emit_unary(&mut b, MathFn::Exp, x, types::I32, &HostFeatures::BASELINE);
    assert!(r.is_err());
}
