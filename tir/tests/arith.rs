//! Data-driven tests of `tir::arith`: one table row per query, read as TVMScript expression text
//! over a fixed set of variables, with the ranges each row binds.
//!
//! Variables: `i`, `j`, `k`, `n`, `m` are `int32`; `p`, `q`, `r` are `int64`; `x`, `y` are
//! `float32`. A row's `bind` is `var:min:extent` items separated by spaces, each an expression.

use std::collections::HashMap;

use relaxjit_tir as tir;
use tir::arith::Analyzer;
use tir::script::{ExprScope, prim_expr_from_ast};
use tir::{DataType, PrimExpr, Range, Var};

struct Env {
    scope: ExprScope,
}

impl Env {
    fn new() -> Env {
        let mut vars = HashMap::new();
        for (n, t) in [
            ("i", DataType::INT32),
            ("j", DataType::INT32),
            ("k", DataType::INT32),
            ("n", DataType::INT32),
            ("m", DataType::INT32),
            ("p", DataType::INT64),
            ("q", DataType::INT64),
            ("r", DataType::INT64),
            ("x", DataType::FLOAT32),
            ("y", DataType::FLOAT32),
        ] {
            vars.insert(n.to_string(), Var::new(n, t));
        }
        Env {
            scope: ExprScope { vars },
        }
    }

    fn expr(&self, text: &str) -> Result<PrimExpr, String> {
        let ast = tir::syntax::parse_expr(text).map_err(|e| format!("{text}: {e}"))?;
        prim_expr_from_ast(&ast, &self.scope).map_err(|e| format!("{text}: {e}"))
    }

    fn analyzer(&self, bind: &str) -> Result<Analyzer, String> {
        let mut an = Analyzer::new();
        for item in bind.split_whitespace() {
            let parts: Vec<&str> = item.split(':').collect();
            let [v, min, ext] = parts.as_slice() else {
                return Err(format!("bad binding {item}"));
            };
            let var = self
                .scope
                .vars
                .get(*v)
                .ok_or(format!("no var {v}"))?
                .clone();
            an.bind(&var, Range::new(self.expr(min)?, self.expr(ext)?));
        }
        Ok(an)
    }
}

/// `(bind, input, expected simplified text)`.
const SIMPLIFY: &[(&str, &str, &str)] = &[
    // Bounds near the top of int64 must not be computed in wrapped arithmetic (this once folded
    // to False), and a symbolic range cancels against its bound.
    (
        "q:T.int64(0):T.int64(9223372036854775807) p:T.int64(0):q r:T.int64(0):T.int64(4)",
        "p * T.int64(4) + r < q * T.int64(4)",
        "T.bool(True)",
    ),
    // Constant folding with TVM's integer semantics.
    ("", "3 + 4 * 5", "23"),
    ("", "7 // 2", "3"),
    ("", "-7 // 2", "-4"),
    ("", "-7 % 2", "1"),
    ("", "7 % -2", "-1"),
    ("", "T.truncdiv(-7, 2)", "-3"),
    ("", "T.truncmod(-7, 2)", "-1"),
    ("", "T.min(3, 9) + T.max(3, 9)", "12"),
    // The node constructor: `2147483647 + 1` is Python arithmetic (an int64 literal).
    ("", "T.Add(2147483647, 1)", "-2147483648"),
    (
        "",
        "T.int64(9223372036854775807) + T.int64(1)",
        "T.int64(-9223372036854775808)",
    ),
    ("", "T.uint8(250) + T.uint8(10)", "T.uint8(4)"),
    ("", "3 < 4", "T.bool(True)"),
    ("", "T.int64(5) >= T.int64(6)", "T.bool(False)"),
    ("", "T.Select(1 < 2, i, j)", "i"),
    ("", "T.Select(2 < 1, i, j)", "j"),
    ("", "T.if_then_else(T.bool(False), i, j)", "j"),
    ("", "T.Cast(\"int8\", 300)", "T.int8(44)"),
    ("", "T.Cast(\"int32\", T.float32(-2.75))", "-2"),
    ("", "T.Cast(\"float32\", 3)", "T.float32(3.0)"),
    ("", "T.Cast(\"int32\", i)", "i"),
    ("", "T.float32(1.5) + T.float32(2.25)", "T.float32(3.75)"),
    (
        "",
        "T.float32(0.1) + T.float32(0.2)",
        "T.float32(0.30000001192092896)",
    ),
    ("", "T.float32(7.0) // T.float32(2.0)", "T.float32(3.0)"),
    ("", "T.float32(1.0) < T.float32(2.0)", "T.bool(True)"),
    ("", "i // 0", "i // 0"),
    ("", "not (1 < 2)", "T.bool(False)"),
    ("", "1 < 2 and i < j", "i < j"),
    ("", "2 < 1 or i < j", "i < j"),
    ("", "2 < 1 and i < j", "T.bool(False)"),
    // Canonical linear forms.
    ("", "n * 4", "n * 4"),
    ("", "4 * n", "n * 4"),
    ("", "i * 4 + j - j", "i * 4"),
    ("", "(i * 4 + j) - j", "i * 4"),
    ("", "i + i + i", "i * 3"),
    ("", "(i + 1) * 2 - 2", "i * 2"),
    ("", "i - i", "0"),
    ("", "j + i * 4 - 3 + 3", "j + i * 4"),
    ("", "0 - i", "i * -1"),
    ("", "5 - i", "5 - i"),
    ("", "i * j - j * i", "0"),
    ("", "(i + j) * (i - j)", "i * i - j * j"),
    ("", "p * T.int64(2) + p", "p * T.int64(3)"),
    ("", "(i + 1) * 0", "0"),
    ("", "i * 1 + 0", "i"),
    // Division and modulo by constants.
    ("j:0:4", "(i * 8 + j) // 4", "i * 2"),
    ("j:0:4", "(i * 4 + j) % 4", "j"),
    ("j:0:4", "(i * 4 + j) // 4", "i"),
    ("j:0:4", "(i * 4 + j + 4) // 4", "i + 1"),
    ("j:0:4", "(i * 4 + j + 5) % 4", "(j + 1) % 4"),
    ("", "(i * 4 + j) // 4", "i + j // 4"),
    ("", "(i * 4 + j) % 4", "j % 4"),
    ("", "(i * 6) // 3", "i * 2"),
    ("", "(i * 6) % 3", "0"),
    ("", "i // 1", "i"),
    ("", "i % 1", "0"),
    ("j:0:4", "j // 4", "0"),
    ("j:0:4", "j % 4", "j"),
    ("j:0:4", "j % 8", "j"),
    ("", "i // 2 // 3", "i // 6"),
    ("", "i % 8 % 4", "i % 4"),
    ("i:0:16", "T.truncdiv(i * 4 + 3, 4)", "i"),
    ("i:0:16", "T.truncmod(i * 4 + 3, 4)", "3"),
    ("", "T.truncdiv(i * 4 + 3, 4)", "T.Div(i * 4 + 3, 4)"),
    ("i:0:8 j:0:8", "(i * 8 + j) // 64", "0"),
    // Bounds decide comparisons, min/max and selects.
    ("i:0:n", "i < n", "T.bool(True)"),
    ("i:0:n", "i >= n", "T.bool(False)"),
    ("i:0:n", "i + 1 <= n", "T.bool(True)"),
    ("i:0:n", "i < n - 1", "i < n - 1"),
    ("i:0:8", "i < 8", "T.bool(True)"),
    ("i:0:8", "i < 7", "i < 7"),
    ("i:0:8", "T.min(i, 8)", "i"),
    ("i:0:8", "T.max(i, 8)", "8"),
    ("i:0:8", "T.max(i, 0)", "i"),
    ("i:0:8", "T.Select(i < 8, i, 0)", "i"),
    ("i:3:1", "i * 2 + j", "j + 6"),
    ("i:0:8 j:0:4", "T.min(i * 4 + j, 31)", "i * 4 + j"),
    ("", "T.max(i, i)", "i"),
    ("", "T.min(i + 1, i)", "i"),
    // The difference `i - INT_MIN` leaves the type: no decision from its wrapped value
    // (kernel_fuzz seeds 17935 and 30864 stored at INT_MIN's index).
    ("i:0:2", "T.max(i, -2147483648)", "T.max(i, -2147483648)"),
    (
        "",
        "T.max(p, T.int64(-9223372036854775808))",
        "T.max(p, T.int64(-9223372036854775808))",
    ),
    (
        "",
        "T.min(p, T.int64(-9223372036854775808))",
        "T.min(p, T.int64(-9223372036854775808))",
    ),
    (
        "i:0:2",
        "T.max(0, T.max(i, -2147483648))",
        "T.max(i, -2147483648)",
    ),
    // Floats fold only constants.
    // The node constructor: the `+` operator folds `x + 0.0` on reading, as TVM's does.
    ("", "T.Add(x, T.float32(0.0))", "T.Add(x, T.float32(0.0))"),
    ("", "x * y", "x * y"),
];

#[test]
fn simplify_table() {
    let env = Env::new();
    let mut failures = Vec::new();
    for (bind, input, expected) in SIMPLIFY {
        let got = env.analyzer(bind).and_then(|an| {
            let e = env.expr(input)?;
            Ok(an.simplify(&e).to_string())
        });
        match got {
            Ok(g) if g == *expected => {}
            Ok(g) => failures.push(format!("[{bind}] {input}\n   want {expected}\n    got {g}")),
            Err(e) => failures.push(format!("[{bind}] {input}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `(bind, expression, min, max)`.
const BOUNDS: &[(&str, &str, i64, i64)] = &[
    ("", "3", 3, 3),
    ("", "i", i32::MIN as i64, i32::MAX as i64),
    ("", "p", i64::MIN, i64::MAX),
    ("i:0:8", "i", 0, 7),
    ("i:0:8 j:0:4", "i * 4 + j", 0, 31),
    ("i:0:8 j:0:4", "i * 4 - j", -3, 28),
    ("i:0:8 j:0:4", "(i * 4 + j) - j", 0, 28),
    ("i:0:8", "i // 3", 0, 2),
    ("", "i % 5", 0, 4),
    ("i:0:3", "i % 5", 0, 2),
    ("i:-4:8", "i // 2", -2, 1),
    ("i:0:8", "T.min(i, 5)", 0, 5),
    ("i:0:8", "T.max(i, 5)", 5, 7),
    ("i:0:8", "T.Select(j < 0, i, 20)", 0, 20),
    ("i:0:8", "T.Cast(\"int64\", i)", 0, 7),
    ("", "T.Cast(\"int8\", i)", -128, 127),
    ("i:0:n", "i - n", -(i32::MAX as i64), -1),
    ("", "i < j", 0, 1),
    // No overflow is assumed: the sum is at least 3.
    ("", "T.uint8(3) + T.Cast(\"uint8\", i)", 3, 255),
];

#[test]
fn const_int_bound_table() {
    let env = Env::new();
    let mut failures = Vec::new();
    for (bind, input, lo, hi) in BOUNDS {
        let got = env
            .analyzer(bind)
            .and_then(|an| Ok(an.const_int_bound(&env.expr(input)?)));
        match got {
            Ok(b) if b == (*lo, *hi) => {}
            Ok(b) => failures.push(format!("[{bind}] {input}: want ({lo}, {hi}), got {b:?}")),
            Err(e) => failures.push(format!("[{bind}] {input}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `(bind, condition, provable)`.
const PROVE: &[(&str, &str, bool)] = &[
    (
        "q:T.int64(0):T.int64(9223372036854775807) p:T.int64(0):q",
        "p < q",
        true,
    ),
    (
        "q:T.int64(0):T.int64(9223372036854775807) p:T.int64(0):T.int64(2)",
        "p < q * T.int64(4)",
        false,
    ),
    ("i:0:n", "i < n", true),
    ("i:0:n", "0 <= i", true),
    ("i:0:n", "i <= n", true),
    ("i:0:n", "i < n - 1", false),
    ("i:0:n j:0:4", "i * 4 + j < n * 4", true),
    ("i:0:8 j:0:4", "i * 4 + j < 32", true),
    ("i:0:8 j:0:4", "i * 4 + j < 31", false),
    ("", "i < n", false),
    ("", "i == i", true),
    ("", "i * 2 == i + i", true),
    ("j:0:4", "(i * 4 + j) % 4 == j", true),
    ("i:0:8", "i < 8 and i >= 0", true),
    ("", "x < y", false),
];

#[test]
fn can_prove_table() {
    let env = Env::new();
    let mut failures = Vec::new();
    for (bind, input, want) in PROVE {
        let got = env
            .analyzer(bind)
            .and_then(|an| Ok(an.can_prove(&env.expr(input)?)));
        match got {
            Ok(b) if b == *want => {}
            Ok(b) => failures.push(format!("[{bind}] {input}: want {want}, got {b}")),
            Err(e) => failures.push(format!("[{bind}] {input}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn prove_equal_pairs() {
    let env = Env::new();
    let rows: &[(&str, &str, &str, bool)] = &[
        ("", "n * 4", "4 * n", true),
        ("", "(i * 4 + j) - j", "i * 4", true),
        ("j:0:4", "(i * 8 + j) // 4", "i * 2", true),
        ("", "i + 1", "i", false),
        ("", "x", "x", true),
        ("", "x", "y", false),
        ("", "p", "T.Cast(\"int64\", i)", false),
    ];
    for (bind, a, b, want) in rows {
        let an = env.analyzer(bind).unwrap_or_default();
        let (Ok(ea), Ok(eb)) = (env.expr(a), env.expr(b)) else {
            panic!("cannot parse {a} / {b}");
        };
        assert_eq!(an.prove_equal(&ea, &eb), *want, "[{bind}] {a} == {b}");
    }
}

/// `Analyzer::non_decreasing` in the indices `i` and `j`, the other variables bound by the
/// row: its rules, and the signs it takes from the bounds (a factor or divisor that could be
/// negative or zero is not enough).
#[test]
fn non_decreasing_table() {
    let env = Env::new();
    let rows: &[(&str, &str, bool)] = &[
        ("", "i", true),
        ("", "7", true),
        ("n:0:100", "i * 4 + j", true),
        ("n:0:100", "i * n + j", true),
        ("n:1:100", "i // n + j // 16", true),
        ("n:0:100", "i // n", false),
        ("", "i * n", false),
        ("n:0:100", "i - n", true),
        ("", "i - j", false),
        ("", "i * -2", false),
        ("", "i // -3", false),
        ("", "T.max(i, j) + T.min(i, 3)", true),
        ("", "i % 4", false),
        ("n:0:100", "n % 4", true),
        ("n:0:100 m:0:100", "(i + n) * (m + 1)", true),
    ];
    let (i, j) = (env.scope.vars["i"].clone(), env.scope.vars["j"].clone());
    for (bind, text, want) in rows {
        let an = env.analyzer(bind).unwrap_or_else(|e| panic!("{e}"));
        let e = env.expr(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            an.non_decreasing(&e, &[i.clone(), j.clone()]),
            *want,
            "[{bind}] {text}"
        );
    }
}

/// A deterministic pseudo-random generator (64-bit LCG), so that failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn range(&mut self, lo: i64, hi_exclusive: i64) -> i64 {
        lo + self.below((hi_exclusive - lo) as u64) as i64
    }
}

fn random_expr(rng: &mut Lcg, vars: &[Var], depth: u32) -> PrimExpr {
    use tir::{BinaryOp as B, CmpOp, ExprKind};
    if depth == 0 || rng.below(4) == 0 {
        return if rng.below(2) == 0 {
            PrimExpr::from(&vars[rng.below(vars.len() as u64) as usize])
        } else {
            PrimExpr::i32(rng.range(-9, 10) as i32)
        };
    }
    let a = random_expr(rng, vars, depth - 1);
    let b = random_expr(rng, vars, depth - 1);
    let ops = [
        B::Add,
        B::Sub,
        B::Mul,
        B::FloorDiv,
        B::FloorMod,
        B::Div,
        B::Mod,
        B::Min,
        B::Max,
    ];
    match rng.below(12) {
        k @ 0..=8 => {
            // Divide by small constants most of the time, as index arithmetic does.
            let op = ops[k as usize];
            let b =
                if matches!(op, B::FloorDiv | B::FloorMod | B::Div | B::Mod) && rng.below(4) != 0 {
                    PrimExpr::i32(rng.range(1, 9) as i32)
                } else {
                    b
                };
            PrimExpr::binary(op, a, b)
        }
        9 | 10 => {
            let cmp = [
                CmpOp::Lt,
                CmpOp::Le,
                CmpOp::Eq,
                CmpOp::Ne,
                CmpOp::Gt,
                CmpOp::Ge,
            ][rng.below(6) as usize];
            let c = PrimExpr::cmp(cmp, a.clone(), b.clone());
            PrimExpr::new(ExprKind::Select {
                cond: c,
                true_value: a,
                false_value: b,
            })
        }
        _ => PrimExpr::binary(B::Add, PrimExpr::binary(B::Mul, a, PrimExpr::i32(4)), b),
    }
}

/// The simplifier preserves values: random integer expressions over bound variables evaluate
/// (with the reference interpreter's semantics) to the same value before and after
/// simplification, for random points of the bound ranges.
#[test]
fn simplify_preserves_values() {
    use tir::arith::scalar::Scalar;
    let vars: Vec<Var> = ["i", "j", "n"]
        .iter()
        .map(|n| Var::new(*n, DataType::INT32))
        .collect();
    let ranges = [(0i64, 8i64), (0, 4), (1, 20)];
    let mut an = Analyzer::new();
    for (v, (lo, hi)) in vars.iter().zip(ranges) {
        an.bind(
            v,
            Range::new(PrimExpr::i32(lo as i32), PrimExpr::i32((hi - lo) as i32)),
        );
    }
    let mut rng = Lcg(0x5eed);
    let mut checked = 0;
    let mut failures = Vec::new();
    for _ in 0..3000 {
        let e = random_expr(&mut rng, &vars, 4);
        let s = an.simplify(&e);
        for _ in 0..8 {
            let point: Vec<(Var, Scalar)> = vars
                .iter()
                .zip(ranges)
                .map(|(v, (lo, hi))| (v.clone(), Scalar::Int(rng.range(lo, hi))))
                .collect();
            let Ok(want) = tir::interp::eval_expr(&e, &point) else {
                continue;
            };
            checked += 1;
            let got = tir::interp::eval_expr(&s, &point);
            if got.as_ref().ok() != Some(&want) && failures.len() < 10 {
                let at: Vec<String> = point.iter().map(|(v, x)| format!("{v}={x:?}")).collect();
                failures.push(format!(
                    "{e}\n  simplified to {s}\n  at {}: {want:?} became {got:?}",
                    at.join(", ")
                ));
            }
        }
    }
    assert!(checked > 10_000, "only {checked} evaluations");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A reshape's index arithmetic composed with the flattening of the shape it indexes cancels
/// out: for loop variables with extents `e1, e2, e3`, flat `x = (i·e2 + j)·e3 + k`, and any
/// target shape that regroups those extents (each split into two factors or not, neighbours
/// merged at random), `Σ_t (x % (d_t·s_t) // s_t)·s_t` simplifies to `x`'s linear form with
/// no division left, and evaluates to the same values everywhere.
#[test]
fn reshape_index_arithmetic_cancels() {
    use tir::BinaryOp as B;
    use tir::arith::scalar::Scalar;
    let mut rng = Lcg(0xfeed);
    let vars: Vec<Var> = ["i", "j", "k"]
        .iter()
        .map(|n| Var::new(*n, DataType::INT64))
        .collect();
    let c = |v: i64| PrimExpr::i64(v);
    let b = |op: B, x: PrimExpr, y: PrimExpr| PrimExpr::binary(op, x, y);
    for _ in 0..300 {
        let extents: Vec<i64> = (0..3)
            .map(|_| [1, 2, 3, 4, 6, 8, 12][rng.below(7) as usize])
            .collect();
        let mut an = Analyzer::new();
        for (v, e) in vars.iter().zip(&extents) {
            an.bind(v, Range::from_extent(c(*e)));
        }
        // Factors: each extent split in two (when it has a divisor) or kept.
        let mut factors = Vec::new();
        for &e in &extents {
            let divisors: Vec<i64> = (2..e).filter(|d| e % d == 0).collect();
            if !divisors.is_empty() && rng.below(2) == 0 {
                let d = divisors[rng.below(divisors.len() as u64) as usize];
                factors.extend([d, e / d]);
            } else {
                factors.push(e);
            }
        }
        let mut dims: Vec<i64> = Vec::new();
        for f in factors {
            match dims.last_mut() {
                Some(last) if rng.below(2) == 0 => *last *= f,
                _ => dims.push(f),
            }
        }
        let x = b(
            B::Add,
            b(
                B::Mul,
                b(
                    B::Add,
                    b(B::Mul, PrimExpr::from(&vars[0]), c(extents[1])),
                    PrimExpr::from(&vars[1]),
                ),
                c(extents[2]),
            ),
            PrimExpr::from(&vars[2]),
        );
        let mut flat = c(0);
        let mut stride: i64 = dims.iter().product();
        for &d in &dims {
            stride /= d;
            let idx = b(
                B::FloorDiv,
                b(B::FloorMod, x.clone(), c(d * stride)),
                c(stride),
            );
            flat = b(B::Add, flat, b(B::Mul, an.simplify(&idx), c(stride)));
        }
        let s = an.simplify(&flat);
        let text = s.to_string();
        assert!(
            !text.contains("//") && !text.contains('%'),
            "extents {extents:?}, dims {dims:?}: {flat}\n  simplified to {text}"
        );
        for _ in 0..6 {
            let point: Vec<(Var, Scalar)> = vars
                .iter()
                .zip(&extents)
                .map(|(v, e)| (v.clone(), Scalar::Int(rng.range(0, *e))))
                .collect();
            assert_eq!(
                tir::interp::eval_expr(&s, &point).ok(),
                tir::interp::eval_expr(&flat, &point).ok(),
                "extents {extents:?}, dims {dims:?}: {text}"
            );
        }
    }
}
