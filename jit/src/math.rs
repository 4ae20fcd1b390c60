//! Math functions emitted as straight-line Cranelift IR, for scalar and 128-bit vector floats.
//!
//! Every function here appends instructions to the current block of a [`FunctionBuilder`] and
//! returns the result `Value`; none emits a call, a branch or a memory access, so the same code
//! serves `f32`, `f64`, `f32x4` and `f64x2` and a vectorized kernel stays vectorized. Special
//! values (NaN, ±inf, ±0, subnormals, overflow and underflow) are handled by lane-wise selects,
//! and the results follow Rust's `std` functions: see the accuracy table in
//! `tests/math_accuracy.rs`, which compares every function against `std` on a million inputs.
//!
//! Lowerings that depend on the host ([`HostFeatures`]):
//! - `fma` is used only when `has_fma`; otherwise a separate multiply and add (Cranelift would
//!   turn an `fma` into a libcall).
//! - `floor`/`ceil`/`trunc`/`nearest` are single instructions only when `has_sse41`; otherwise
//!   an exact add-and-subtract-2^52 sequence (Cranelift would emit per-lane libcalls).
//! - Nothing else needs an optional feature; integer work stays within SSE2 (`iadd`, shifts by
//!   immediates, bitwise ops), and float-to-integer conversions are avoided altogether by the
//!   "add 1.5 * 2^mantissa_bits" trick.
//!
//! Algorithms: classic argument reduction plus near-minimax polynomials (coefficients in
//! [`coeffs`]). `pow`, `sin` and `cos` for `f32` are computed in `f64` (an `f32x4` is split into
//! two `f64x2` halves), which keeps them within an ulp without double-word arithmetic; `pow` for
//! `f64` carries `log(x)` as a double-word value so that large exponents stay accurate.
//! `sin`/`cos` reduce by `pi/2` with a 3-part Cody–Waite split, exact for `|x| < 2^19 * pi/2`
//! (about 8.2e5); beyond [`SIN_COS_MAX_ARG`] they return NaN.

mod coeffs;

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{
    ConstantData, Endianness, InstBuilder, MemFlagsData, Type, Value, types,
};
use cranelift_frontend::FunctionBuilder;

use crate::error::{Error, Result};
use crate::isa::HostFeatures;
use coeffs::*;

/// The unary functions [`emit_unary`] knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// `e^x`.
    Exp,
    /// `2^x`.
    Exp2,
    /// `e^x - 1`, accurate near zero.
    Expm1,
    /// Natural logarithm.
    Log,
    /// Base-2 logarithm.
    Log2,
    /// Base-10 logarithm.
    Log10,
    /// `ln(1 + x)`, accurate near zero.
    Log1p,
    /// Square root (one instruction, correctly rounded).
    Sqrt,
    /// `1 / sqrt(x)` (two correctly rounded operations, not the 12-bit `rsqrtps` estimate).
    Rsqrt,
    /// Hyperbolic tangent.
    Tanh,
    /// Logistic function `1 / (1 + e^-x)`.
    Sigmoid,
    /// Error function.
    Erf,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Round toward -inf.
    Floor,
    /// Round toward +inf.
    Ceil,
    /// Round toward zero.
    Trunc,
    /// Round to nearest, ties to even (Rust's `round_ties_even`).
    Nearest,
    /// Absolute value.
    Abs,
}

impl MathFn {
    /// Every function, in a stable order.
    pub const ALL: [MathFn; 19] = [
        MathFn::Exp,
        MathFn::Exp2,
        MathFn::Expm1,
        MathFn::Log,
        MathFn::Log2,
        MathFn::Log10,
        MathFn::Log1p,
        MathFn::Sqrt,
        MathFn::Rsqrt,
        MathFn::Tanh,
        MathFn::Sigmoid,
        MathFn::Erf,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Trunc,
        MathFn::Nearest,
        MathFn::Abs,
    ];

    /// The lower-case name TVM's TIR uses for the intrinsic (`tir.exp` → `"exp"`).
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Exp => "exp",
            MathFn::Exp2 => "exp2",
            MathFn::Expm1 => "expm1",
            MathFn::Log => "log",
            MathFn::Log2 => "log2",
            MathFn::Log10 => "log10",
            MathFn::Log1p => "log1p",
            MathFn::Sqrt => "sqrt",
            MathFn::Rsqrt => "rsqrt",
            MathFn::Tanh => "tanh",
            MathFn::Sigmoid => "sigmoid",
            MathFn::Erf => "erf",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Trunc => "trunc",
            MathFn::Nearest => "nearest",
            MathFn::Abs => "fabs",
        }
    }
}

/// Floating-point classification predicates for [`emit_class`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatClass {
    /// The value is a NaN.
    IsNan,
    /// The value is +inf or -inf.
    IsInf,
    /// The value is neither infinite nor NaN.
    IsFinite,
}

/// Largest `|x|` for which `sin`/`cos` reduce their argument exactly (`2^19 * pi/2`).
///
/// Beyond it the reduction `x - k*pi/2` would lose bits, so `sin`/`cos` return NaN there rather
/// than a wrong number (std reduces exactly with Payne–Hanek; a per-lane cold path doing the
/// same is future work). Machine-learning kernels (RoPE, positional encodings) stay far below.
pub const SIN_COS_MAX_ARG: f64 = 823_549.6;

/// Emits `f(x)` for `x` of type `ty` (`f32`, `f64`, `f32x4` or `f64x2`).
///
/// Returns [`Error::Unsupported`] for any other type.
pub fn emit_unary(
    b: &mut FunctionBuilder<'_>,
    f: MathFn,
    x: Value,
    ty: Type,
    host: &HostFeatures,
) -> Result<Value> {
    let mut e = Em::new(b, ty, host)?;
    Ok(match f {
        MathFn::Exp => e.exp(x),
        MathFn::Exp2 => e.exp2(x),
        MathFn::Expm1 => e.expm1(x),
        MathFn::Log => e.log_family(x, LogKind::Ln),
        MathFn::Log2 => e.log_family(x, LogKind::Log2),
        MathFn::Log10 => e.log_family(x, LogKind::Log10),
        MathFn::Log1p => e.log1p(x),
        MathFn::Sqrt => e.b.ins().sqrt(x),
        MathFn::Rsqrt => {
            let s = e.b.ins().sqrt(x);
            let one = e.fc(1.0);
            e.b.ins().fdiv(one, s)
        }
        MathFn::Tanh => e.tanh(x),
        MathFn::Sigmoid => e.sigmoid(x),
        MathFn::Erf => e.erf(x),
        MathFn::Sin => e.in_f64(x, |e, x| e.sin_cos(x, false))?,
        MathFn::Cos => e.in_f64(x, |e, x| e.sin_cos(x, true))?,
        MathFn::Floor => e.round(x, Rounding::Floor),
        MathFn::Ceil => e.round(x, Rounding::Ceil),
        MathFn::Trunc => e.round(x, Rounding::Trunc),
        MathFn::Nearest => e.round(x, Rounding::Nearest),
        MathFn::Abs => e.b.ins().fabs(x),
    })
}

/// Emits `x^y` with the special cases of Rust's `powf` (C99 `pow`): `x^±0 = 1` and `1^y = 1`
/// even for NaN, `(-1)^±inf = 1`, a negative finite base with a non-integer exponent is NaN, odd
/// integer exponents keep the sign of the base (including `-0` and `-inf`).
pub fn emit_pow(
    b: &mut FunctionBuilder<'_>,
    x: Value,
    y: Value,
    ty: Type,
    host: &HostFeatures,
) -> Result<Value> {
    let mut e = Em::new(b, ty, host)?;
    if e.is64() {
        Ok(e.pow(x, y))
    } else {
        e.in_f64_2(x, y, |e, x, y| e.pow(x, y))
    }
}

/// Emits a classification mask: for scalars an `i8` that is 0 or 1 (like `fcmp`), for vectors
/// an integer vector of the same lane width whose lanes are all-ones or zero.
pub fn emit_class(
    b: &mut FunctionBuilder<'_>,
    c: FloatClass,
    x: Value,
    ty: Type,
    host: &HostFeatures,
) -> Result<Value> {
    let mut e = Em::new(b, ty, host)?;
    let inf = e.fc(f64::INFINITY);
    Ok(match c {
        FloatClass::IsNan => e.b.ins().fcmp(FloatCC::Unordered, x, x),
        FloatClass::IsInf => {
            let a = e.b.ins().fabs(x);
            e.b.ins().fcmp(FloatCC::Equal, a, inf)
        }
        FloatClass::IsFinite => {
            let a = e.b.ins().fabs(x);
            e.b.ins().fcmp(FloatCC::LessThan, a, inf)
        }
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LogKind {
    Ln,
    Log2,
    Log10,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rounding {
    Floor,
    Ceil,
    Trunc,
    Nearest,
}

/// An emitter for one float type: constants are splatted, comparisons yield masks that
/// [`Em::sel`] understands, and multiply-adds use `fma` only when the host has it.
struct Em<'a, 'f> {
    b: &'a mut FunctionBuilder<'f>,
    ty: Type,
    host: HostFeatures,
}

impl<'a, 'f> Em<'a, 'f> {
    fn new(b: &'a mut FunctionBuilder<'f>, ty: Type, host: &HostFeatures) -> Result<Self> {
        match ty {
            types::F32 | types::F64 | types::F32X4 | types::F64X2 => Ok(Em { b, ty, host: *host }),
            _ => Err(Error::Unsupported(format!("math functions on {ty}"))),
        }
    }

    fn with_ty(&mut self, ty: Type) -> Em<'_, 'f> {
        Em {
            b: self.b,
            ty,
            host: self.host,
        }
    }

    fn is64(&self) -> bool {
        self.ty.lane_type() == types::F64
    }

    /// Number of explicit mantissa bits.
    fn mant(&self) -> i64 {
        if self.is64() { 52 } else { 23 }
    }

    fn ity(&self) -> Type {
        let lane = if self.is64() { types::I64 } else { types::I32 };
        lane.by(self.ty.lane_count()).unwrap_or(lane)
    }

    fn flags(&self) -> MemFlagsData {
        MemFlagsData::new().with_endianness(Endianness::Little)
    }

    // ---- constants and bit casts ----

    fn fc(&mut self, v: f64) -> Value {
        let s = if self.is64() {
            self.b.ins().f64const(v)
        } else {
            self.b.ins().f32const(v as f32)
        };
        if self.ty.is_vector() {
            self.b.ins().splat(self.ty, s)
        } else {
            s
        }
    }

    fn ic(&mut self, v: i64) -> Value {
        let lane = self.ity().lane_type();
        let s = self.b.ins().iconst(lane, v);
        let ity = self.ity();
        if self.ty.is_vector() {
            self.b.ins().splat(ity, s)
        } else {
            s
        }
    }

    fn bits_of(&mut self, x: Value) -> Value {
        let (ity, fl) = (self.ity(), self.flags());
        self.b.ins().bitcast(ity, fl, x)
    }

    fn float_of(&mut self, i: Value) -> Value {
        let (ty, fl) = (self.ty, self.flags());
        self.b.ins().bitcast(ty, fl, i)
    }

    // ---- arithmetic ----

    fn add(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fadd(a, b)
    }
    fn sub(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fsub(a, b)
    }
    fn mul(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fmul(a, b)
    }
    fn div(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fdiv(a, b)
    }
    fn abs(&mut self, a: Value) -> Value {
        self.b.ins().fabs(a)
    }

    /// `a * b + c`, fused when the host can.
    fn mla(&mut self, a: Value, b: Value, c: Value) -> Value {
        if self.host.has_fma {
            self.b.ins().fma(a, b, c)
        } else {
            let p = self.mul(a, b);
            self.add(p, c)
        }
    }

    /// Horner evaluation of `coeffs` (highest degree first) at `x`.
    fn poly(&mut self, x: Value, coeffs: &[f64]) -> Value {
        let mut acc = self.fc(coeffs[0]);
        for &c in &coeffs[1..] {
            let c = self.fc(c);
            acc = self.mla(acc, x, c);
        }
        acc
    }

    /// Horner evaluation choosing, per lane, `a` where `m` is set and `b` elsewhere.
    fn poly_sel(&mut self, x: Value, m: Value, a: &[f64], b: &[f64]) -> Value {
        let (ca, cb) = (self.fc(a[0]), self.fc(b[0]));
        let mut acc = self.sel(m, ca, cb);
        for (&ca, &cb) in a[1..].iter().zip(&b[1..]) {
            let (ca, cb) = (self.fc(ca), self.fc(cb));
            let c = self.sel(m, ca, cb);
            acc = self.mla(acc, x, c);
        }
        acc
    }

    // ---- masks ----

    fn cmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        self.b.ins().fcmp(cc, a, b)
    }

    fn cmpc(&mut self, cc: FloatCC, a: Value, c: f64) -> Value {
        let c = self.fc(c);
        self.cmp(cc, a, c)
    }

    /// Lane-wise `m ? a : b`, where `m` comes from [`Em::cmp`] (or `band`/`bor` of such masks).
    fn sel(&mut self, m: Value, a: Value, b: Value) -> Value {
        if self.ty.is_vector() {
            let vt = self.b.func.dfg.value_type(a);
            let m = if self.b.func.dfg.value_type(m) == vt {
                m
            } else {
                let fl = self.flags();
                self.b.ins().bitcast(vt, fl, m)
            };
            self.b.ins().bitselect(m, a, b)
        } else {
            self.b.ins().select(m, a, b)
        }
    }

    fn mand(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().band(a, b)
    }
    fn mor(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().bor(a, b)
    }
    fn mnot(&mut self, a: Value) -> Value {
        if self.ty.is_vector() {
            self.b.ins().bnot(a)
        } else {
            self.b.ins().bxor_imm_u(a, 1)
        }
    }

    /// `c` where `x` is above `hi`, `lo` where below, `x` otherwise (NaN stays NaN).
    fn clamp(&mut self, x: Value, lo: f64, hi: f64) -> Value {
        let m = self.cmpc(FloatCC::GreaterThan, x, hi);
        let h = self.fc(hi);
        let x = self.sel(m, h, x);
        let m = self.cmpc(FloatCC::LessThan, x, lo);
        let l = self.fc(lo);
        self.sel(m, l, x)
    }

    /// `|mag|` with the sign bit of `sign`.
    fn copysign(&mut self, mag: Value, sign: Value) -> Value {
        let a = self.abs(mag);
        let neg0 = self.fc(-0.0);
        let s = self.b.ins().band(sign, neg0);
        self.b.ins().bor(a, s)
    }

    // ---- integer-valued floats without conversions ----

    /// `1.5 * 2^mant`: adding it to `|v| < 2^(mant-1)` rounds `v` to an integer (ties to even)
    /// and leaves that integer in the low mantissa bits.
    fn shifter(&self) -> f64 {
        if self.is64() {
            6755399441055744.0
        } else {
            12582912.0
        }
    }

    /// Rounds `v` (`|v| < 2^(mant-1)`) to the nearest integer; returns it and the bits of
    /// `v + shifter`, whose low bits hold the integer in two's complement.
    fn round_int(&mut self, v: Value) -> (Value, Value) {
        let s = self.fc(self.shifter());
        let t = self.add(v, s);
        let bits = self.bits_of(t);
        (self.sub(t, s), bits)
    }

    /// `2^n` for an integer-valued `n` within the normal exponent range.
    fn pow2i(&mut self, n: Value) -> Value {
        let (_, bits) = self.round_int(n);
        let m = self.mant();
        let sh = self.b.ins().ishl_imm_u(bits, m);
        let bias = if self.is64() {
            1023i64 << 52
        } else {
            127i64 << 23
        };
        let bias = self.ic(bias);
        let r = self.b.ins().iadd(sh, bias);
        self.float_of(r)
    }

    /// Splits an integer-valued `n` into two halves whose powers of two are both normal, so
    /// that `p * 2^n1 * 2^n2` overflows and underflows (to subnormals) with one rounding.
    fn split_scale(&mut self, n: Value) -> (Value, Value) {
        let h = self.fc(0.5);
        let half = self.mul(n, h);
        let (n1, _) = self.round_int(half);
        let n2 = self.sub(n, n1);
        (self.pow2i(n1), self.pow2i(n2))
    }

    // ---- exponentials ----

    fn exp_bounds(&self) -> (f64, f64) {
        if self.is64() {
            (-746.0, 710.0)
        } else {
            (-104.0, 89.0)
        }
    }

    fn ln2_split(&self) -> (f64, f64) {
        if self.is64() {
            (LN2_HI_F64, LN2_LO_F64)
        } else {
            (LN2_HI_F32, LN2_LO_F32)
        }
    }

    /// Cody–Waite reduction `x = n*ln2 + r`, `|r| <= ln2/2`, for a clamped `x`.
    fn exp_reduce(&mut self, x: Value) -> (Value, Value) {
        let l2e = self.fc(std::f64::consts::LOG2_E);
        let t = self.mul(x, l2e);
        let (n, _) = self.round_int(t);
        let (hi, lo) = self.ln2_split();
        let nn = self.b.ins().fneg(n);
        let hi = self.fc(hi);
        let r = self.mla(nn, hi, x);
        let lo = self.fc(lo);
        let r = self.mla(nn, lo, r);
        (n, r)
    }

    /// `expm1(r)` for `|r| <= ln2/2`.
    fn expm1_poly(&mut self, r: Value) -> Value {
        let c: &[f64] = if self.is64() { &EXPM1_F64 } else { &EXPM1_F32 };
        let p = self.poly(r, c);
        let r2 = self.mul(r, r);
        self.mla(r2, p, r)
    }

    /// `e^(x + xlo)` where `xlo` is a tiny correction (the low word of a double-word input).
    fn exp_with_lo(&mut self, x: Value, xlo: Option<Value>) -> Value {
        let (lo, hi) = self.exp_bounds();
        let xc = self.clamp(x, lo, hi);
        let (n, r) = self.exp_reduce(xc);
        let r = match xlo {
            Some(xlo) => {
                // The correction only matters when `x` was not clamped.
                let same = self.cmp(FloatCC::Equal, xc, x);
                let z = self.fc(0.0);
                let xlo = self.sel(same, xlo, z);
                self.add(r, xlo)
            }
            None => r,
        };
        let q = self.expm1_poly(r);
        let one = self.fc(1.0);
        let p = self.add(one, q);
        let (s1, s2) = self.split_scale(n);
        let p = self.mul(p, s1);
        self.mul(p, s2)
    }

    fn exp(&mut self, x: Value) -> Value {
        self.exp_with_lo(x, None)
    }

    fn exp2(&mut self, x: Value) -> Value {
        let (lo, hi) = if self.is64() {
            (-1076.0, 1025.0)
        } else {
            (-151.0, 129.0)
        };
        let xc = self.clamp(x, lo, hi);
        let (n, _) = self.round_int(xc);
        let t = self.sub(xc, n);
        let ln2 = self.fc(std::f64::consts::LN_2);
        let r = self.mul(t, ln2);
        let r = if self.host.has_fma {
            // Recover the rounding error of `t * ln2` so that r is good to ~2^-70.
            let nr = self.b.ins().fneg(r);
            let err = self.b.ins().fma(t, ln2, nr);
            self.add(r, err)
        } else {
            r
        };
        let q = self.expm1_poly(r);
        let one = self.fc(1.0);
        let p = self.add(one, q);
        let (s1, s2) = self.split_scale(n);
        let p = self.mul(p, s1);
        self.mul(p, s2)
    }

    /// `expm1(x)` without the `-0` fix-up, for `x` already known to be in range.
    fn expm1_core(&mut self, x: Value) -> Value {
        let (_, hi) = self.exp_bounds();
        let lo = if self.is64() { -40.0 } else { -25.0 };
        let xc = self.clamp(x, lo, hi);
        let (n, r) = self.exp_reduce(xc);
        let q = self.expm1_poly(r);
        // (1 + q) * 2^n - 1 == (q*s1 + (s1 - 1/s2)) * s2 with s1*s2 = 2^n; exact when n == 0.
        let h = self.fc(0.5);
        let half = self.mul(n, h);
        let (n1, _) = self.round_int(half);
        let n2 = self.sub(n, n1);
        let s1 = self.pow2i(n1);
        let s2 = self.pow2i(n2);
        let nn2 = self.b.ins().fneg(n2);
        let inv_s2 = self.pow2i(nn2);
        let d = self.sub(s1, inv_s2);
        let t = self.mla(q, s1, d);
        self.mul(t, s2)
    }

    fn expm1(&mut self, x: Value) -> Value {
        let r = self.expm1_core(x);
        let z = self.cmpc(FloatCC::Equal, x, 0.0);
        self.sel(z, x, r)
    }

    fn tanh(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let a = self.clamp(a, 0.0, 20.0);
        let a2 = self.add(a, a);
        let t = self.expm1_core(a2);
        let two = self.fc(2.0);
        let d = self.add(t, two);
        let r = self.div(t, d);
        self.copysign(r, x)
    }

    fn sigmoid(&mut self, x: Value) -> Value {
        // e = exp(-|x|) <= 1 never overflows; for x < 0, sigmoid = e / (1 + e) keeps the
        // subnormal tail that 1 / (1 + exp(-x)) would flush to zero.
        let a = self.abs(x);
        let na = self.b.ins().fneg(a);
        let e = self.exp(na);
        let neg = self.cmpc(FloatCC::LessThan, x, 0.0);
        let one = self.fc(1.0);
        let num = self.sel(neg, e, one);
        let den = self.add(one, e);
        self.div(num, den)
    }

    // ---- logarithms ----

    /// Decomposes a positive finite `x` as `2^k * (1 + f)`, `1 + f` in `[sqrt(1/2), sqrt(2))`,
    /// and returns `(k, f, s, hfsq, R)` with `s = f / (2 + f)`, `hfsq = f^2/2` and
    /// `log(1 + f) = f - (hfsq - s*(hfsq + R))`.
    fn log_core(&mut self, x: Value) -> (Value, Value, Value, Value, Value) {
        let (min_norm, boost, boost_exp) = if self.is64() {
            (f64::MIN_POSITIVE, 18014398509481984.0, 54.0)
        } else {
            (f32::MIN_POSITIVE as f64, 33554432.0, 25.0)
        };
        let sub = self.cmpc(FloatCC::LessThan, x, min_norm);
        let boost = self.fc(boost);
        let xb = self.mul(x, boost);
        let xs = self.sel(sub, xb, x);
        let (be, z) = (self.fc(-boost_exp), self.fc(0.0));
        let kadj = self.sel(sub, be, z);

        let (one_bits, sqrth_bits, mant_mask, bias) = if self.is64() {
            (
                0x3ff0_0000_0000_0000i64,
                0x3fe6_a09e_667f_3bcdi64,
                (1i64 << 52) - 1,
                1023.0,
            )
        } else {
            (0x3f80_0000, 0x3f35_04f3, (1 << 23) - 1, 127.0)
        };
        let ix = self.bits_of(xs);
        let off = self.ic(one_bits - sqrth_bits);
        let ix = self.b.ins().iadd(ix, off);
        let m = self.mant();
        let e = self.b.ins().ushr_imm_u(ix, m);
        // k = e - bias as a float, via the shifter's bit pattern.
        let sbits = self.ic(self.shifter_bits());
        let kb = self.b.ins().iadd(e, sbits);
        let kf = self.float_of(kb);
        let kofs = self.fc(self.shifter() + bias);
        let k = self.sub(kf, kofs);
        let k = self.add(k, kadj);
        let mm = self.ic(mant_mask);
        let mb = self.b.ins().band(ix, mm);
        let sq = self.ic(sqrth_bits);
        let mb = self.b.ins().iadd(mb, sq);
        let mf = self.float_of(mb);
        let one = self.fc(1.0);
        let f = self.sub(mf, one);
        let two = self.fc(2.0);
        let den = self.add(two, f);
        let s = self.div(f, den);
        let z = self.mul(s, s);
        let c: &[f64] = if self.is64() { &LOG_F64 } else { &LOG_F32 };
        let p = self.poly(z, c);
        let rr = self.mul(z, p);
        let h = self.fc(0.5);
        let hf = self.mul(h, f);
        let hfsq = self.mul(hf, f);
        (k, f, s, hfsq, rr)
    }

    fn shifter_bits(&self) -> i64 {
        if self.is64() {
            0x4338_0000_0000_0000
        } else {
            0x4b40_0000
        }
    }

    /// `log(x)` specials: NaN below zero (and for NaN), -inf at ±0, +inf at +inf.
    fn log_specials(&mut self, x: Value, r: Value) -> Value {
        let inf = self.fc(f64::INFINITY);
        let is_inf = self.cmp(FloatCC::Equal, x, inf);
        let r = self.sel(is_inf, inf, r);
        let ninf = self.fc(f64::NEG_INFINITY);
        let is0 = self.cmpc(FloatCC::Equal, x, 0.0);
        let r = self.sel(is0, ninf, r);
        let ok = self.cmpc(FloatCC::GreaterThanOrEqual, x, 0.0);
        let nan = self.fc(f64::NAN);
        self.sel(ok, r, nan)
    }

    fn log_family(&mut self, x: Value, kind: LogKind) -> Value {
        let (k, f, s, hfsq, rr) = self.log_core(x);
        let r = self.log_from_parts(k, f, s, hfsq, rr, None, kind);
        self.log_specials(x, r)
    }

    #[allow(clippy::too_many_arguments)]
    fn log_from_parts(
        &mut self,
        k: Value,
        f: Value,
        s: Value,
        hfsq: Value,
        rr: Value,
        corr: Option<Value>,
        kind: LogKind,
    ) -> Value {
        let t = self.add(hfsq, rr);
        match kind {
            LogKind::Ln => {
                // k*ln2_hi - ((hfsq - (s*(hfsq+R) + (k*ln2_lo + corr))) - f)
                let (hi, lo) = self.ln2_split();
                let lo = self.fc(lo);
                let klo = self.mul(k, lo);
                let klo = match corr {
                    Some(c) => self.add(klo, c),
                    None => klo,
                };
                let st = self.mla(s, t, klo);
                let a = self.sub(hfsq, st);
                let a = self.sub(a, f);
                let hi = self.fc(hi);
                let khi = self.mul(k, hi);
                self.sub(khi, a)
            }
            LogKind::Log2 | LogKind::Log10 => {
                // lm = log(1+f) = hi + lo with hi = f - hfsq exact to a rounding.
                let hi = self.sub(f, hfsq);
                let d = self.sub(f, hi);
                let d = self.sub(d, hfsq);
                let lo = self.mla(s, t, d);
                if kind == LogKind::Log2 {
                    let inv = self.fc(std::f64::consts::LOG2_E);
                    let lm = self.add(hi, lo);
                    let y = self.mul(lm, inv);
                    let err = if self.host.has_fma {
                        // Rounding error of lm * (1/ln2) and of hi + lo.
                        let ny = self.b.ins().fneg(y);
                        let e1 = self.b.ins().fma(lm, inv, ny);
                        let lme = self.sub(hi, lm);
                        let lme = self.add(lme, lo);
                        self.mla(lme, inv, e1)
                    } else {
                        self.fc(0.0)
                    };
                    let yk = self.add(k, y);
                    // (k - yk) + y is the rounding error of k + y (|k| >= |y| or k == 0).
                    let c = self.sub(k, yk);
                    let c = self.add(c, y);
                    let c = self.add(c, err);
                    self.add(yk, c)
                } else {
                    let inv = self.fc(std::f64::consts::LOG10_E);
                    let lm = self.add(hi, lo);
                    let y = self.mul(lm, inv);
                    let (h2, l2) = (self.fc(LOG10_2_HI), self.fc(LOG10_2_LO));
                    let kl = self.mla(k, l2, y);
                    let kh = self.mul(k, h2);
                    self.add(kh, kl)
                }
            }
        }
    }

    fn log1p(&mut self, x: Value) -> Value {
        let one = self.fc(1.0);
        let u = self.add(one, x);
        // log(1+x) = log(u) + (1+x-u)/u to first order; 1+x-u is exact as x - (u-1).
        let um1 = self.sub(u, one);
        let c = self.sub(x, um1);
        let c = self.div(c, u);
        let (k, f, s, hfsq, rr) = self.log_core(u);
        let r = self.log_from_parts(k, f, s, hfsq, rr, Some(c), LogKind::Ln);
        let r = self.log_specials(u, r);
        // log1p(±0) = ±0, and the correction is NaN at u = 0 or inf.
        let z = self.cmpc(FloatCC::Equal, x, 0.0);
        let r = self.sel(z, x, r);
        let inf = self.fc(f64::INFINITY);
        let is_inf = self.cmp(FloatCC::Equal, x, inf);
        let r = self.sel(is_inf, inf, r);
        let ninf = self.fc(f64::NEG_INFINITY);
        let m1 = self.cmpc(FloatCC::Equal, x, -1.0);
        self.sel(m1, ninf, r)
    }

    // ---- erf ----

    fn erf(&mut self, x: Value) -> Value {
        let a = self.abs(x);
        let z = self.mul(a, a);
        let small = self.cmpc(FloatCC::LessThan, a, 1.25);
        let ca: &[f64] = if self.is64() { &ERF_A_F64 } else { &ERF_A_F32 };
        let pa = self.poly(z, ca);
        let ra = self.mul(a, pa);

        let top = if self.is64() { 6.0 } else { 4.0 };
        let ac = self.clamp(a, 1.25, top);
        let one = self.fc(1.0);
        let t = self.div(one, ac);
        let g = if self.is64() {
            let near = self.cmpc(FloatCC::GreaterThan, t, 0.4);
            let (c1, c2) = (self.fc(ERF_B1_F64_CENTRE), self.fc(ERF_B2_F64_CENTRE));
            let c = self.sel(near, c1, c2);
            let u = self.sub(t, c);
            self.poly_sel(u, near, &ERF_B1_F64, &ERF_B2_F64)
        } else {
            let c = self.fc(ERF_B_F32_CENTRE);
            let u = self.sub(t, c);
            self.poly(u, &ERF_B_F32)
        };
        let zc = self.mul(ac, ac);
        let nz = self.b.ins().fneg(zc);
        let e = self.exp(nz);
        let eg = self.mul(e, g);
        let rb = self.sub(one, eg);
        let r = self.sel(small, ra, rb);
        self.copysign(r, x)
    }

    // ---- rounding ----

    fn round(&mut self, x: Value, mode: Rounding) -> Value {
        if self.host.has_sse41 {
            let ins = self.b.ins();
            return match mode {
                Rounding::Floor => ins.floor(x),
                Rounding::Ceil => ins.ceil(x),
                Rounding::Trunc => ins.trunc(x),
                Rounding::Nearest => ins.nearest(x),
            };
        }
        // |x| >= 2^mant is already integral (and covers inf); NaN fails the compare too.
        let big = (1u64 << self.mant()) as f64;
        let a = self.abs(x);
        let small = self.cmpc(FloatCC::LessThan, a, big);
        let bc = self.fc(big);
        let t = self.add(a, bc);
        let ra = self.sub(t, bc);
        let one = self.fc(1.0);
        let r = match mode {
            Rounding::Nearest => ra,
            Rounding::Trunc => {
                let up = self.cmp(FloatCC::GreaterThan, ra, a);
                let d = self.sub(ra, one);
                self.sel(up, d, ra)
            }
            Rounding::Floor | Rounding::Ceil => {
                // Work on |x|: floor(x) for x < 0 is -ceil(|x|), and vice versa.
                let neg = self.cmpc(FloatCC::LessThan, x, 0.0);
                let (pos_up, neg_up) = if mode == Rounding::Floor {
                    (false, true)
                } else {
                    (true, false)
                };
                let down = self.cmp(FloatCC::GreaterThan, ra, a);
                let rd = self.sub(ra, one);
                let fl = self.sel(down, rd, ra);
                let up = self.cmp(FloatCC::LessThan, ra, a);
                let ru = self.add(ra, one);
                let ce = self.sel(up, ru, ra);
                let (p, n) = (if pos_up { ce } else { fl }, if neg_up { ce } else { fl });
                self.sel(neg, n, p)
            }
        };
        let r = self.copysign(r, x);
        self.sel(small, r, x)
    }

    // ---- f32 via f64 ----

    /// Runs `f` on `x` widened to `f64` (`f64` and `f64x2` run as they are).
    fn in_f64(&mut self, x: Value, f: impl Fn(&mut Em<'_, 'f>, Value) -> Value) -> Result<Value> {
        match self.ty {
            types::F64 | types::F64X2 => Ok(f(self, x)),
            types::F32 => {
                let w = self.b.ins().fpromote(types::F64, x);
                let r = f(&mut self.with_ty(types::F64), w);
                Ok(self.b.ins().fdemote(types::F32, r))
            }
            _ => {
                let (lo, hi) = self.split_f32x4(x);
                let rl = f(&mut self.with_ty(types::F64X2), lo);
                let rh = f(&mut self.with_ty(types::F64X2), hi);
                Ok(self.join_f64x2(rl, rh))
            }
        }
    }

    fn in_f64_2(
        &mut self,
        x: Value,
        y: Value,
        f: impl Fn(&mut Em<'_, 'f>, Value, Value) -> Value,
    ) -> Result<Value> {
        match self.ty {
            types::F64 | types::F64X2 => Ok(f(self, x, y)),
            types::F32 => {
                let wx = self.b.ins().fpromote(types::F64, x);
                let wy = self.b.ins().fpromote(types::F64, y);
                let r = f(&mut self.with_ty(types::F64), wx, wy);
                Ok(self.b.ins().fdemote(types::F32, r))
            }
            _ => {
                let (xl, xh) = self.split_f32x4(x);
                let (yl, yh) = self.split_f32x4(y);
                let rl = f(&mut self.with_ty(types::F64X2), xl, yl);
                let rh = f(&mut self.with_ty(types::F64X2), xh, yh);
                Ok(self.join_f64x2(rl, rh))
            }
        }
    }

    fn byte_shuffle(&mut self, a: Value, b: Value, mask: [u8; 16]) -> Value {
        let fl = self.flags();
        let ta = self.b.func.dfg.value_type(a);
        let ia = self.b.ins().bitcast(types::I8X16, fl, a);
        let ib = self.b.ins().bitcast(types::I8X16, fl, b);
        let imm = self
            .b
            .func
            .dfg
            .immediates
            .push(ConstantData::from(mask.to_vec()));
        let r = self.b.ins().shuffle(ia, ib, imm);
        self.b.ins().bitcast(ta, fl, r)
    }

    fn split_f32x4(&mut self, x: Value) -> (Value, Value) {
        let lo = self.b.ins().fvpromote_low(x);
        let swapped =
            self.byte_shuffle(x, x, [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7]);
        let hi = self.b.ins().fvpromote_low(swapped);
        (lo, hi)
    }

    fn join_f64x2(&mut self, lo: Value, hi: Value) -> Value {
        let l = self.b.ins().fvdemote(lo);
        let h = self.b.ins().fvdemote(hi);
        self.byte_shuffle(
            l,
            h,
            [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23],
        )
    }

    // ---- sin / cos (f64 lanes) ----

    fn sin_cos(&mut self, x: Value, cos: bool) -> Value {
        debug_assert!(self.is64());
        let inv = self.fc(std::f64::consts::FRAC_2_PI);
        let t = self.mul(x, inv);
        // Clamp so the shifter stays exact; beyond SIN_COS_MAX_ARG accuracy is not promised.
        let t = self.clamp(t, -1.0e15, 1.0e15);
        let (k, kbits) = self.round_int(t);
        let nk = self.b.ins().fneg(k);
        let p1 = self.fc(PIO2_1);
        let r = self.mla(nk, p1, x);
        // Two more Cody–Waite steps with tails, as fdlibm's __rem_pio2 medium path.
        let (r, _) = self.cw_step(r, nk, PIO2_2, PIO2_2T);
        let (r, w) = self.cw_step(r, nk, PIO2_3, PIO2_3T);
        let y0 = self.sub(r, w);
        let d = self.sub(r, y0);
        let y1 = self.sub(d, w);

        let s = self.sin_kernel(y0, y1);
        let c = self.cos_kernel(y0, y1);
        let q = if cos {
            let one = self.ic(1);
            self.b.ins().iadd(kbits, one)
        } else {
            kbits
        };
        // Odd quadrants swap sin and cos; quadrants 2 and 3 negate.
        let one = self.ic(1);
        let odd = self.b.ins().band(q, one);
        let sb = self.ic(self.shifter_bits());
        let ob = self.b.ins().bor(odd, sb);
        let of = self.float_of(ob);
        let sh = self.fc(self.shifter() + 1.0);
        let swap = self.cmp(FloatCC::Equal, of, sh);
        let v = self.sel(swap, c, s);
        let two = self.ic(2);
        let neg = self.b.ins().band(q, two);
        let neg = self.b.ins().ishl_imm_u(neg, 62);
        let vb = self.bits_of(v);
        let vb = self.b.ins().bxor(vb, neg);
        let v = self.float_of(vb);
        let ax = self.abs(x);
        let in_range = self.cmpc(FloatCC::LessThanOrEqual, ax, SIN_COS_MAX_ARG);
        let nan = self.fc(f64::NAN);
        let v = self.sel(in_range, v, nan);
        if cos {
            v
        } else {
            // sin(±0) = ±0, which the polynomial would turn into +0.
            let z = self.cmpc(FloatCC::Equal, x, 0.0);
            self.sel(z, x, v)
        }
    }

    /// One Cody–Waite step: subtracts `k * p` (exact) from `r`, returns the new `r` and the
    /// part `w` of `k * (p + pt)` it could not subtract exactly.
    fn cw_step(&mut self, r: Value, nk: Value, p: f64, pt: f64) -> (Value, Value) {
        let p = self.fc(p);
        let w = self.mul(nk, p); // -k*p, exact
        let t = r;
        let r = self.add(t, w);
        let pt = self.fc(pt);
        let ktail = self.mul(nk, pt);
        // w' = k*pt - ((t - r) - k*p)
        let d = self.sub(t, r);
        let d = self.add(d, w);
        let w = self.add(ktail, d);
        (r, self.b.ins().fneg(w))
    }

    fn sin_kernel(&mut self, x: Value, y: Value) -> Value {
        let c: &[f64] = &SIN_F64;
        let z = self.mul(x, x);
        let v = self.mul(z, x);
        let rr = self.poly(z, &c[..c.len() - 1]);
        let s1 = self.fc(c[c.len() - 1]);
        // x - ((z*(y/2 - v*r) - y) - v*S1)
        let h = self.fc(0.5);
        let hy = self.mul(h, y);
        let vr = self.mul(v, rr);
        let a = self.sub(hy, vr);
        let a = self.mul(z, a);
        let a = self.sub(a, y);
        let vs = self.mul(v, s1);
        let a = self.sub(a, vs);
        self.sub(x, a)
    }

    fn cos_kernel(&mut self, x: Value, y: Value) -> Value {
        let c: &[f64] = &COS_F64;
        let z = self.mul(x, x);
        let p = self.poly(z, c);
        let zz = self.mul(z, z);
        let r = self.mul(zz, p);
        let h = self.fc(0.5);
        let hz = self.mul(h, z);
        let one = self.fc(1.0);
        let w = self.sub(one, hz);
        // w + (((1 - w) - hz) + (r - x*y))
        let a = self.sub(one, w);
        let a = self.sub(a, hz);
        let xy = self.mul(x, y);
        let b = self.sub(r, xy);
        let a = self.add(a, b);
        self.add(w, a)
    }

    // ---- pow ----

    /// Exact product `a * b = p + e`.
    fn two_prod(&mut self, a: Value, b: Value) -> (Value, Value) {
        let p = self.mul(a, b);
        if self.host.has_fma {
            let np = self.b.ins().fneg(p);
            let e = self.b.ins().fma(a, b, np);
            return (p, e);
        }
        // Dekker's product with Veltkamp splitting; inputs are bounded by the callers.
        let (ah, al) = self.split(a);
        let (bh, bl) = self.split(b);
        let t = self.mul(ah, bh);
        let e = self.sub(t, p);
        let t = self.mul(ah, bl);
        let e = self.add(e, t);
        let t = self.mul(al, bh);
        let e = self.add(e, t);
        let t = self.mul(al, bl);
        (p, self.add(e, t))
    }

    fn split(&mut self, a: Value) -> (Value, Value) {
        let c = self.fc(134217729.0); // 2^27 + 1
        let t = self.mul(a, c);
        let d = self.sub(t, a);
        let hi = self.sub(t, d);
        (hi, self.sub(a, hi))
    }

    /// `log(x)` for `x >= 0` as a double-word `hi + lo` (about 2^-63 relative), with
    /// `hi = log(x)` for 0, inf and NaN.
    fn log_dd(&mut self, x: Value) -> (Value, Value) {
        let (k, f, s, _hfsq, rr) = self.log_core(x);
        // s = f / (2 + f) to double word: den = 2 + f exactly as dh + dl.
        let two = self.fc(2.0);
        let dh = self.add(two, f);
        let dl = self.sub(two, dh);
        let dl = self.add(dl, f);
        let (p, pe) = self.two_prod(s, dh);
        let e = self.sub(f, p);
        let e = self.sub(e, pe);
        let sdl = self.mul(s, dl);
        let e = self.sub(e, sdl);
        let sl = self.div(e, dh);
        // log = k*ln2_hi + 2s + (k*ln2_lo + 2 sl + s*R)
        let (lh, ll) = (self.fc(LN2_HI_F64), self.fc(LN2_LO_F64));
        let a = self.mul(k, lh);
        let b2 = self.add(s, s);
        let (h, l1) = self.two_sum(a, b2);
        let t = self.mul(k, ll);
        let sl2 = self.add(sl, sl);
        let t = self.add(t, sl2);
        let t = self.mla(s, rr, t);
        // The leading coefficient 2/3 is not a double; add back what its rounding lost.
        let z = self.mul(s, s);
        let sz = self.mul(s, z);
        let c0lo = self.fc(LOG_F64_C0_LO);
        let t = self.mla(sz, c0lo, t);
        let l = self.add(l1, t);
        let hh = self.add(h, l);
        let d = self.sub(hh, h);
        let ll = self.sub(l, d);
        let hh = self.log_specials(x, hh);
        (hh, ll)
    }

    fn two_sum(&mut self, a: Value, b: Value) -> (Value, Value) {
        let s = self.add(a, b);
        let bb = self.sub(s, a);
        let ab = self.sub(s, bb);
        let db = self.sub(b, bb);
        let da = self.sub(a, ab);
        (s, self.add(da, db))
    }

    fn pow(&mut self, x: Value, y: Value) -> Value {
        debug_assert!(self.is64());
        let ax = self.abs(x);
        let (h, l) = self.log_dd(ax);
        let p = self.mul(y, h);
        let pe = if self.host.has_fma {
            let np = self.b.ins().fneg(p);
            self.b.ins().fma(y, h, np)
        } else {
            // Dekker's split needs |y*h| well inside the range; beyond 2^900 the result
            // is 0 or inf anyway.
            let m = self.cmpc(FloatCC::LessThan, p, 1.0e300);
            let m2 = self.cmpc(FloatCC::GreaterThan, p, -1.0e300);
            let m = self.mand(m, m2);
            let ay = self.abs(y);
            let small_y = self.cmpc(FloatCC::LessThan, ay, 1.0e290);
            let m = self.mand(m, small_y);
            let (_, e) = self.two_prod(y, h);
            let z = self.fc(0.0);
            self.sel(m, e, z)
        };
        let yl = self.mul(y, l);
        let plo = self.add(pe, yl);
        // Keep the correction only where it is finite (h or y infinite make it NaN).
        let fin = self.cmpc(FloatCC::LessThan, p, 1.0e300);
        let fin2 = self.cmpc(FloatCC::GreaterThan, p, -1.0e300);
        let fin = self.mand(fin, fin2);
        let z = self.fc(0.0);
        let plo = self.sel(fin, plo, z);
        let r = self.exp_with_lo(p, Some(plo));

        // Parity of y: integer if trunc(y) == y (true for ±inf), odd if y/2 is not.
        let ty = self.round(y, Rounding::Trunc);
        let yint = self.cmp(FloatCC::Equal, ty, y);
        let h5 = self.fc(0.5);
        let yh = self.mul(y, h5);
        let tyh = self.round(yh, Rounding::Trunc);
        let yeven = self.cmp(FloatCC::Equal, tyh, yh);
        let neven = self.mnot(yeven);
        let yodd = self.mand(yint, neven);
        let neg0 = self.fc(-0.0);
        let xs = self.b.ins().band(x, neg0);
        let rs = self.b.ins().bor(r, xs);
        let r = self.sel(yodd, rs, r);
        // Negative finite base with a non-integer exponent.
        let xneg = self.cmpc(FloatCC::LessThan, x, 0.0);
        let xfin = self.cmpc(FloatCC::GreaterThan, x, f64::NEG_INFINITY);
        let nint = self.mnot(yint);
        let bad = self.mand(xneg, xfin);
        let bad = self.mand(bad, nint);
        let nan = self.fc(f64::NAN);
        let r = self.sel(bad, nan, r);
        // x^0 = 1, 1^y = 1, (-1)^±inf = 1.
        let y0 = self.cmpc(FloatCC::Equal, y, 0.0);
        let x1 = self.cmpc(FloatCC::Equal, x, 1.0);
        let xm1 = self.cmpc(FloatCC::Equal, x, -1.0);
        let ay = self.abs(y);
        let yinf = self.cmpc(FloatCC::Equal, ay, f64::INFINITY);
        let m1inf = self.mand(xm1, yinf);
        let one_case = self.mor(y0, x1);
        let one_case = self.mor(one_case, m1inf);
        let one = self.fc(1.0);
        self.sel(one_case, one, r)
    }
}
