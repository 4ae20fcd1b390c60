//! Polynomial coefficients for the kernels in [`super`], highest degree first (Horner order).
//!
//! Each array is a near-minimax fit made by interpolating at Chebyshev nodes in 60-digit
//! arithmetic (mpmath), then rounding to `f64`; the `f32` kernels round them once more when
//! they are emitted. The comment above each array gives the reduced interval, the variable,
//! and the worst weighted error of the fit itself (before evaluation rounding).

// Fitted values that happen to be close to named constants (2/sqrt(pi) is erf'(0)) are still
// fitted values, and printing them with 17 digits keeps them bit-exact.
#![allow(clippy::approx_constant, clippy::excessive_precision)]

// `expm1(r) = r + r^2 * P(r)`, `|r| <= 1.01 * ln2/2`, weight = relative error of expm1.
pub(super) const EXPM1_F32: [f64; 6] = [
    0.0001989198131397769,
    0.0013934541928270264,
    0.008333310024225292,
    0.04166645680967788,
    0.16666666682534356,
    0.5000000014286223,
];

pub(super) const EXPM1_F64: [f64; 12] = [
    1.6087177234380782e-10,
    2.0918961837795778e-09,
    2.5052069594795685e-08,
    2.755726102934377e-07,
    2.7557319248633827e-06,
    2.4801587338565345e-05,
    0.00019841269841262761,
    0.0013888888888878269,
    0.008333333333333333,
    0.04166666666666668,
    0.16666666666666666,
    0.5,
];

// `log((1+s)/(1-s)) = 2s + s*z*P(z)`, `z = s^2 <= 0.0300`, weight = relative error of the log
// (f32: 2^-28.3, f64: 2^-60.6, the f64 floor being the rounding of 2/3).
pub(super) const LOG_F32: [f64; 3] = [0.29600691070010027, 0.39988319003769424, 0.6666668617852816];
pub(super) const LOG_F64: [f64; 8] = [
    0.131148348695975,
    0.13266048812203002,
    0.15386342449645143,
    0.18181793732111753,
    0.22222222409750114,
    0.2857142857072325,
    0.40000000000001007,
    0.6666666666666666,
];

// `sin(x) = x + x^3 * P(x^2)`, `|x| <= 1.01 * pi/4`, relative (f64 only: f32 lanes are widened).
pub(super) const SIN_F64: [f64; 6] = [
    1.59153232122714e-10,
    -2.5051092507061385e-08,
    2.755731591191116e-06,
    -0.00019841269836387345,
    0.0083333333333307,
    -0.16666666666666666,
];

// `cos(x) = 1 - x^2/2 + x^4 * P(x^2)`, `|x| <= 1.01 * pi/4`, relative (f64 only: f32 lanes are widened).
pub(super) const COS_F64: [f64; 6] = [
    -1.1380876948169717e-11,
    2.087612165887116e-09,
    -2.755731715246704e-07,
    2.4801587298533456e-05,
    -0.0013888888888887241,
    0.041666666666666664,
];

// `erf(x) = x * P(x^2)` for `|x| <= 1.25`, relative (f32: 2^-29.9, f64: 2^-55.4).
pub(super) const ERF_A_F32: [f64; 8] = [
    -7.616689263883488e-06,
    0.00010418097656600243,
    -0.0008344853610921509,
    0.00520958965824029,
    -0.026860568279096275,
    0.1128368362516748,
    -0.37612630916223405,
    1.1283791661217897,
];
pub(super) const ERF_A_F64: [f64; 14] = [
    -3.275693198242207e-12,
    7.950926967407615e-11,
    -1.1894502173635332e-09,
    1.473560215188159e-08,
    -1.635683699479465e-07,
    1.6461312961700254e-06,
    -1.4925599893253706e-05,
    0.00012055330760279799,
    -0.0008548326956926665,
    0.005223977624149488,
    -0.02686617064498058,
    0.11283791670954209,
    -0.3761263890318373,
    1.1283791670955126,
];

// `erfc(x) = exp(-x^2) * P(1/x - centre)` for `x >= 1.25`, weight = error in erf.
// f32: 1/x in [0.25, 0.8] (2^-29.4); f64: B1 1/x in [0.4, 0.8] (2^-57.0), B2 1/x in [1/6, 0.4] (2^-65.9).
// ERF_B_F32: centre 0.52500000000000002
// ERF_B1_F64: centre 0.60000000000000003
// ERF_B2_F64: centre 0.28333333333333334
pub(super) const ERF_B_F32: [f64; 8] = [
    -0.008604112583682717,
    0.05484364384081386,
    -0.07875652396056199,
    0.054493630523049,
    0.028786540303221062,
    -0.18358926111083984,
    0.41795615674295006,
    0.26595975883688344,
];
pub(super) const ERF_B1_F64: [f64; 16] = [
    -0.041532782428695375,
    0.023748462461476803,
    0.005532692593875816,
    -0.024103234858836343,
    0.03448802315334822,
    -0.034419996478279445,
    0.02245938747742245,
    -0.0006280398171428539,
    -0.025685320928748076,
    0.04777557335176352,
    -0.05386796453275619,
    0.02962776191117956,
    0.04112863766245727,
    -0.17558234852464752,
    0.39098400703187464,
    0.2962874773692113,
];
pub(super) const ERF_B2_F64: [f64; 16] = [
    7.701047832622808,
    -5.294678059667079,
    1.163568284038329,
    0.9808177152320755,
    -1.2931921044547854,
    0.6974612295339935,
    -0.020452184231736364,
    -0.3243583166398245,
    0.3046040253646463,
    -0.08909314967094983,
    -0.12186467573293516,
    0.19408811223579073,
    -0.0857553699163374,
    -0.1713061466884101,
    0.5070310199784948,
    0.1540874111691922,
];

/// Centre of the `ERF_B_F32` variable `1/x - centre`.
pub(super) const ERF_B_F32_CENTRE: f64 = 0.525;
/// Centre of the `ERF_B1_F64` variable.
pub(super) const ERF_B1_F64_CENTRE: f64 = 0.6;
/// Centre of the `ERF_B2_F64` variable.
pub(super) const ERF_B2_F64_CENTRE: f64 = 0.28333333333333334;

/// `ln 2` split so that `k * LN2_HI` is exact for `|k| < 2^21` (f64) / `2^8` (f32).
pub(super) const LN2_HI_F64: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
pub(super) const LN2_LO_F64: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
pub(super) const LN2_HI_F32: f64 = f64::from_bits(0x3fe6_2e40_0000_0000);
pub(super) const LN2_LO_F32: f64 = f64::from_bits(0x3eb7_f7d1_cf79_abca);
/// `log10(2)` split so that `k * LOG10_2_HI` is exact for `|k| < 2^21`.
pub(super) const LOG10_2_HI: f64 = f64::from_bits(0x3fd3_4413_5080_0000);
pub(super) const LOG10_2_LO: f64 = f64::from_bits(0x3ddf_79fe_f311_f12b);
/// `pi/2` as three 33-bit pieces plus tails: `k * PIO2_n` is exact for `|k| < 2^20`.
pub(super) const PIO2_1: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
pub(super) const PIO2_2: f64 = f64::from_bits(0x3dd0_b461_1a60_0000);
pub(super) const PIO2_2T: f64 = f64::from_bits(0x3ba3_198a_2e03_7073);
pub(super) const PIO2_3: f64 = f64::from_bits(0x3ba3_198a_2e00_0000);
pub(super) const PIO2_3T: f64 = f64::from_bits(0x397b_839a_2520_49c1);
/// `2/3 - LOG_F64[last]`: the rounding error of the leading log coefficient.
pub(super) const LOG_F64_C0_LO: f64 = 3.700743415417188e-17;
