//! Data-driven tests of the sound bounds analysis (`tir::arith::int_bound`,
//! `exact_int_bound`, `Polynomial`): one table row per query, read as TVMScript expression text,
//! plus a property test that every run-time value (the reference interpreter's) lies inside the
//! bound, for random expressions that wrap.
//!
//! Variables: `i`, `j`, `n` are `int32`; `p`, `q` are `int64`; `b` is `int8`; `x` is `float32`.
//! A row's `bind` is `var:min:max` items (inclusive, decimal) separated by spaces.

use std::collections::HashSet;

use relaxjit_tir as tir;
use tir::arith::{Polynomial, VarRanges, exact_int_bound, int_bound};
use tir::script::{ExprScope, prim_expr_from_ast};
use tir::{DataType, PrimExpr, Var};

struct Env {
    scope: ExprScope,
}

impl Env {
    fn new() -> Env {
        let vars = [
            ("i", DataType::INT32),
            ("j", DataType::INT32),
            ("n", DataType::INT32),
            ("p", DataType::INT64),
            ("q", DataType::INT64),
            ("b", DataType::INT8),
            ("x", DataType::FLOAT32),
        ]
        .into_iter()
        .map(|(n, t)| (n.to_string(), Var::new(n, t)))
        .collect();
        Env {
            scope: ExprScope { vars },
        }
    }

    fn var(&self, name: &str) -> Result<&Var, String> {
        self.scope.vars.get(name).ok_or(format!("no var {name}"))
    }

    fn expr(&self, text: &str) -> Result<PrimExpr, String> {
        let ast = tir::syntax::parse_expr(text).map_err(|e| format!("{text}: {e}"))?;
        prim_expr_from_ast(&ast, &self.scope).map_err(|e| format!("{text}: {e}"))
    }

    fn ranges(&self, bind: &str) -> Result<VarRanges, String> {
        let mut out = VarRanges::new();
        for item in bind.split_whitespace() {
            let parts: Vec<&str> = item.split(':').collect();
            let [v, lo, hi] = parts.as_slice() else {
                return Err(format!("bad binding {item}"));
            };
            let num = |s: &str| s.parse::<i64>().map_err(|e| format!("{item}: {e}"));
            out.insert(self.var(v)?.id(), (num(lo)?, num(hi)?));
        }
        Ok(out)
    }
}

const I32_MIN: i64 = i32::MIN as i64;
const I32_MAX: i64 = i32::MAX as i64;
const MAX: i64 = i64::MAX;
const MIN: i64 = i64::MIN;

/// `(bind, expression, int_bound, exact_int_bound)`.
type Row = (
    &'static str,
    &'static str,
    Option<(i64, i64)>,
    Option<(i64, i64)>,
);

const BOUNDS: &[Row] = &[
    // Plain interval arithmetic.
    ("i:0:3", "i * 4 + 3", Some((3, 15)), Some((3, 15))),
    ("i:0:3 j:0:3", "i * 4 - j", Some((-3, 12)), Some((-3, 12))),
    ("i:-2:3", "i * i", Some((-6, 9)), Some((-6, 9))),
    ("", "i", Some((I32_MIN, I32_MAX)), Some((I32_MIN, I32_MAX))),
    (
        "i:5:2",
        "i",
        Some((I32_MIN, I32_MAX)),
        Some((I32_MIN, I32_MAX)),
    ),
    // int32 wraps: the index is -8..7 in int32, not 0..12.
    ("i:0:3", "i * 1073741825 // 268435456", Some((-8, 7)), None),
    ("i:0:3", "i * 1073741825", Some((I32_MIN, I32_MAX)), None),
    (
        "i:0:1",
        "i * 1073741825",
        Some((0, 1073741825)),
        Some((0, 1073741825)),
    ),
    (
        "i:0:3",
        "i * 1073741825 // 268435456 % 16",
        Some((0, 15)),
        None,
    ),
    (
        "i:2147483647:2147483647",
        "i + 1",
        Some((I32_MIN, I32_MAX)),
        None,
    ),
    (
        "i:-2147483648:-2147483648",
        "0 - i",
        Some((I32_MIN, I32_MAX)),
        None,
    ),
    ("b:0:100", "b + b", Some((-128, 127)), None),
    ("b:0:63", "b + b", Some((0, 126)), Some((0, 126))),
    // int64 near overflow.
    (
        "p:0:4611686018427387903",
        "p * T.int64(2)",
        Some((0, MAX - 1)),
        Some((0, MAX - 1)),
    ),
    (
        "p:0:4611686018427387904",
        "p * T.int64(2)",
        Some((MIN, MAX)),
        None,
    ),
    (
        "p:0:9223372036854775807",
        "p + T.int64(1)",
        Some((MIN, MAX)),
        None,
    ),
    (
        "p:0:9223372036854775807",
        "p - T.int64(1)",
        Some((-1, MAX - 1)),
        Some((-1, MAX - 1)),
    ),
    (
        "p:0:9223372036854775807 q:0:9223372036854775807",
        "p * q",
        Some((MIN, MAX)),
        None,
    ),
    (
        "p:0:9223372036854775807",
        "p // T.int64(4) * T.int64(4) + T.int64(3)",
        Some((3, MAX)),
        Some((3, MAX)),
    ),
    ("", "p", Some((MIN, MAX)), Some((MIN, MAX))),
    ("", "p * T.int64(0)", Some((0, 0)), Some((0, 0))),
    // Symbolic extents up to 2^63 - 1: the last row of (2^62) x 4 does not fit.
    (
        "p:0:4611686018427387903 q:0:3",
        "p * T.int64(4) + q",
        Some((MIN, MAX)),
        None,
    ),
    (
        "p:0:2305843009213693951 q:0:3",
        "p * T.int64(4) + q",
        Some((0, MAX)),
        Some((0, MAX)),
    ),
    // Casts: widening keeps the bound, narrowing keeps it only if every value fits.
    (
        "i:0:3",
        "T.Cast(\"int64\", i * 1073741825)",
        Some((I32_MIN, I32_MAX)),
        None,
    ),
    (
        "i:0:3",
        "T.Cast(\"int64\", i) * T.int64(1073741825)",
        Some((0, 3221225475)),
        Some((0, 3221225475)),
    ),
    ("p:0:3", "T.Cast(\"int32\", p)", Some((0, 3)), Some((0, 3))),
    (
        "p:0:4294967296",
        "T.Cast(\"int32\", p)",
        Some((I32_MIN, I32_MAX)),
        None,
    ),
    (
        "p:4294967296:4294967299",
        "T.Cast(\"int32\", p)",
        Some((I32_MIN, I32_MAX)),
        None,
    ),
    ("i:-1:3", "T.Cast(\"uint8\", i)", Some((0, 255)), None),
    ("i:0:3", "T.Cast(\"uint8\", i)", Some((0, 3)), Some((0, 3))),
    (
        "",
        "T.Cast(\"int32\", x)",
        Some((I32_MIN, I32_MAX)),
        Some((I32_MIN, I32_MAX)),
    ),
    ("", "T.Cast(\"uint64\", p)", None, None),
    ("i:0:3", "T.Cast(\"bool\", i)", Some((0, 1)), Some((0, 1))),
    // floordiv / floormod / truncdiv by negative and by zero.
    ("i:-7:7", "i // 2", Some((-4, 3)), Some((-4, 3))),
    ("i:-7:7", "i // -2", Some((-4, 3)), Some((-4, 3))),
    ("i:-7:7", "i % 4", Some((0, 3)), Some((0, 3))),
    ("i:-7:7", "i % -4", Some((-3, 0)), Some((-3, 0))),
    ("i:1:2", "i % 4", Some((1, 2)), Some((1, 2))),
    ("i:-7:7", "T.truncdiv(i, 2)", Some((-3, 3)), Some((-3, 3))),
    ("i:-7:7", "T.truncmod(i, 4)", Some((-3, 3)), Some((-3, 3))),
    ("i:-7:7 j:-2:2", "i // j", Some((-7, 7)), Some((-7, 7))),
    ("i:-7:7 j:0:0", "i // j", Some((0, 0)), Some((0, 0))),
    ("i:0:7 j:0:3", "i % j", Some((0, 2)), Some((0, 2))),
    (
        "i:-2147483648:-2147483648 j:-1:-1",
        "i // j",
        Some((I32_MIN, I32_MAX)),
        None,
    ),
    (
        "i:-2147483648:0",
        "T.truncdiv(i, -1)",
        Some((I32_MIN, I32_MAX)),
        None,
    ),
    // min / max / select: the union of what each side can be.
    ("i:0:3 j:5:9", "T.min(i, j)", Some((0, 3)), Some((0, 3))),
    (
        "i:0:3 j:5:9",
        "T.max(i, j - 10)",
        Some((0, 3)),
        Some((0, 3)),
    ),
    (
        "i:0:3 j:5:9",
        "T.Select(i < 2, i, j)",
        Some((0, 9)),
        Some((0, 9)),
    ),
    (
        "i:0:3",
        "T.if_then_else(i < 2, i, 1073741825 * i)",
        Some((I32_MIN, I32_MAX)),
        None,
    ),
];

#[test]
fn int_bound_table() {
    let env = Env::new();
    let mut failures = Vec::new();
    for (bind, input, lax, exact) in BOUNDS {
        let got = env.ranges(bind).and_then(|r| {
            let e = env.expr(input)?;
            Ok((int_bound(&e, &r), exact_int_bound(&e, &r)))
        });
        match got {
            Ok(g) if g == (*lax, *exact) => {}
            Ok(g) => failures.push(format!(
                "[{bind}] {input}: want {:?}, got {g:?}",
                (lax, exact)
            )),
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

/// `(expression, polynomial is non-negative over {n, q}; None: not a polynomial)`.
const POLYNOMIALS: &[(&str, Option<bool>)] = &[
    ("p * q + q", Some(false)),
    ("q * T.int64(4) + T.int64(3)", Some(true)),
    ("(q + T.int64(1)) * (q + T.int64(1)) - q * q", Some(true)),
    ("q * T.int64(4) - q * T.int64(5)", Some(false)),
    ("T.Cast(\"int64\", n) * q", Some(true)),
    // A widening cast of anything but a leaf could hide an int32 wrap.
    ("T.Cast(\"int64\", n * 2) * q", None),
    ("q // T.int64(2)", None),
    // Coefficients that overflow are not proofs.
    ("q * T.int64(4611686018427387904) * T.int64(2)", None),
    (
        "(q + T.int64(4611686018427387904)) * T.int64(2) - q * T.int64(2)",
        None,
    ),
];

#[test]
fn polynomial_table() {
    let env = Env::new();
    let nonneg: HashSet<_> = ["n", "q"]
        .iter()
        .map(|v| env.var(v).unwrap().id())
        .collect();
    for (input, want) in POLYNOMIALS {
        let e = env.expr(input).unwrap();
        let got = Polynomial::of(&e).map(|p| p.is_nonneg_over(&|v| nonneg.contains(&v)));
        assert_eq!(got, *want, "{input}");
    }
    // Exact algebra: (q + 1)^2 - q^2 - 2q is the constant 1.
    let e = env
        .expr("(q + T.int64(1)) * (q + T.int64(1)) - q * q - q * T.int64(2)")
        .unwrap();
    assert_eq!(Polynomial::of(&e).and_then(|p| p.as_const()), Some(1));
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[(self.next() % v.len() as u64) as usize]
    }
}

/// Constants that make int32 arithmetic wrap, and small ones.
const CONSTS: &[i64] = &[
    -3,
    -1,
    0,
    1,
    2,
    4,
    7,
    16,
    268435456,
    1073741825,
    2147483647,
    -2147483648,
];

fn random_expr(rng: &mut Lcg, vars: &[Var], depth: u32) -> PrimExpr {
    use tir::BinaryOp as B;
    if depth == 0 || rng.next().is_multiple_of(4) {
        return if rng.next().is_multiple_of(2) {
            PrimExpr::from(&vars[(rng.next() % vars.len() as u64) as usize])
        } else {
            PrimExpr::i32(rng.pick(CONSTS) as i32)
        };
    }
    let a = random_expr(rng, vars, depth - 1);
    let b = random_expr(rng, vars, depth - 1);
    match rng.next() % 12 {
        10 => PrimExpr::cast(
            DataType::INT32,
            PrimExpr::binary(
                B::Mul,
                PrimExpr::cast(DataType::INT64, a),
                PrimExpr::cast(DataType::INT64, b),
            ),
        ),
        11 => PrimExpr::cast(DataType::INT8, a),
        k => {
            let ops = [
                B::Add,
                B::Sub,
                B::Mul,
                B::Mul,
                B::FloorDiv,
                B::FloorMod,
                B::Div,
                B::Mod,
                B::Min,
                B::Max,
            ];
            PrimExpr::binary(ops[k as usize], a, b)
        }
    }
}

/// Every value the interpreter computes (wrapping like generated code) lies inside
/// `int_bound`; where `exact_int_bound` answers, the value is the same as the expression's
/// value over ℤ, which is checked by evaluating it once more in `int64` where it cannot wrap.
#[test]
fn bounds_contain_every_wrapped_value() {
    use tir::arith::scalar::Scalar;
    let vars: Vec<Var> = ["i", "j"]
        .iter()
        .map(|n| Var::new(*n, DataType::INT32))
        .collect();
    let ranges_of = [(0i64, 3i64), (-5, 1073741825)];
    let ranges: VarRanges = vars
        .iter()
        .zip(ranges_of)
        .map(|(v, r)| (v.id(), r))
        .collect();
    let mut rng = Lcg(0xb0b);
    let (mut checked, mut exact) = (0, 0);
    let mut failures = Vec::new();
    for _ in 0..4000 {
        let e = random_expr(&mut rng, &vars, 4);
        let (lax, ex) = (int_bound(&e, &ranges), exact_int_bound(&e, &ranges));
        let Some((lo, hi)) = lax else {
            failures.push(format!("{e}: no bound for an int32 expression"));
            continue;
        };
        if let Some(x) = ex
            && (x.0 < lo || x.1 > hi)
        {
            failures.push(format!("{e}: exact bound {x:?} outside {:?}", (lo, hi)));
        }
        for _ in 0..8 {
            let point: Vec<(Var, Scalar)> = vars
                .iter()
                .zip(ranges_of)
                .map(|(v, (a, b))| {
                    let pick = [a, b, a + (rng.next() as i64 % (b - a + 1))];
                    (v.clone(), Scalar::Int(rng.pick(&pick)))
                })
                .collect();
            let Ok(Scalar::Int(v)) = tir::interp::eval_expr(&e, &point) else {
                continue;
            };
            checked += 1;
            if v < lo || v > hi {
                failures.push(format!("{e} at {point:?} = {v}, outside [{lo}, {hi}]"));
            }
            if let Some((xl, xh)) = ex {
                exact += 1;
                if v < xl || v > xh {
                    failures.push(format!(
                        "{e} at {point:?} = {v}, outside exact [{xl}, {xh}]"
                    ));
                }
            }
        }
        if failures.len() > 10 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        checked > 10000 && exact > 1000,
        "{checked} points, {exact} exact"
    );
}
