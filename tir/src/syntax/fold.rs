//! Python's own evaluation of constant arithmetic, done on the syntax tree.
//!
//! TVMScript is Python: before TVM's parser sees an argument such as
//! `relative_byte_offset=32 * 64 * 4`, `R.const(15.0 / 14.0, "float32")` or `A[2 * 3]`, Python
//! has already computed it, so the dialect readers see `8192`, `1.0714285714285714` and `6`.
//! [`fold_module`] rewrites every arithmetic operation between number literals into the literal
//! Python computes, with Python's semantics (arbitrary-size integers, `/` always giving a float,
//! `//` and `%` rounding toward negative infinity, `**` giving a float for a negative exponent).
//! An operation is left as it is when Python would raise (division by zero), when the integer
//! result does not fit in 128 bits, or when a float result is not finite; the reader then reports
//! it as before. Operands that are not literals (names, calls such as `T.int64(2)`) are left to
//! the dialect, whose operators fold constants in their own way (TVM's `TryConstFold`).
//!
//! Literals stay in the tree's canonical form: a negative result is a [`UnaryOp::Neg`] of a
//! non-negative literal, as the parser writes `-1`.

use crate::syntax::ast::*;

/// A number as Python computes with it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    fn as_f64(self) -> f64 {
        match self {
            Num::Int(v) => v as f64,
            Num::Float(v) => v,
        }
    }
}

/// The number a literal (or a negated literal) denotes.
fn number(e: &Expr) -> Option<Num> {
    match &e.kind {
        ExprKind::Int(v) => Some(Num::Int(*v)),
        ExprKind::Float(v) => Some(Num::Float(*v)),
        ExprKind::UnaryOp {
            op: UnaryOp::Neg,
            operand,
        } => match number(operand)? {
            Num::Int(v) => v.checked_neg().map(Num::Int),
            Num::Float(v) => Some(Num::Float(-v)),
        },
        _ => None,
    }
}

fn floor_div(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

fn floor_mod(a: i128, b: i128) -> Option<i128> {
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

/// `a op b` as Python computes it, or `None` where Python would raise or the result is not
/// representable here.
fn eval(op: BinOp, a: Num, b: Num) -> Option<Num> {
    use Num::{Float, Int};
    let r = match (a, b) {
        (Int(x), Int(y)) => match op {
            BinOp::Add => Int(x.checked_add(y)?),
            BinOp::Sub => Int(x.checked_sub(y)?),
            BinOp::Mul => Int(x.checked_mul(y)?),
            BinOp::Div => {
                if y == 0 {
                    return None;
                }
                Float(x as f64 / y as f64)
            }
            BinOp::FloorDiv => Int(floor_div(x, y)?),
            BinOp::Mod => Int(floor_mod(x, y)?),
            BinOp::Pow if y >= 0 => Int(x.checked_pow(u32::try_from(y).ok()?)?),
            BinOp::Pow => {
                if x == 0 {
                    return None;
                }
                Float((x as f64).powf(y as f64))
            }
            BinOp::LShift if (0..127).contains(&y) => Int(x.checked_mul(1i128 << y)?),
            BinOp::LShift => return None,
            BinOp::RShift => Int(x >> u32::try_from(y).ok()?.min(127)),
            BinOp::BitAnd => Int(x & y),
            BinOp::BitOr => Int(x | y),
            BinOp::BitXor => Int(x ^ y),
            BinOp::MatMul => return None,
        },
        _ => {
            let (x, y) = (a.as_f64(), b.as_f64());
            match op {
                BinOp::Add => Float(x + y),
                BinOp::Sub => Float(x - y),
                BinOp::Mul => Float(x * y),
                BinOp::Div if y != 0.0 => Float(x / y),
                BinOp::FloorDiv if y != 0.0 => Float(py_float_mod_div(x, y).1),
                BinOp::Mod if y != 0.0 => Float(py_float_mod_div(x, y).0),
                BinOp::Pow if !(x == 0.0 && y < 0.0 || x < 0.0 && y.fract() != 0.0) => {
                    Float(x.powf(y))
                }
                _ => return None,
            }
        }
    };
    match r {
        Float(v) if !v.is_finite() => None,
        _ => Some(r),
    }
}

/// Python's float `(x % y, x // y)` (CPython's `float_divmod`): the remainder has the sign of
/// `y`.
fn py_float_mod_div(x: f64, y: f64) -> (f64, f64) {
    let mut m = x % y;
    let mut div = (x - m) / y;
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m += y;
            div -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(y);
    }
    let floordiv = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 { f + 1.0 } else { f }
    } else {
        0.0f64.copysign(x / y)
    };
    (m, floordiv)
}

/// The canonical literal for `n` at `span`.
fn literal(n: Num, span: crate::syntax::Span) -> Expr {
    let (kind, negative) = match n {
        Num::Int(v) if v < 0 => (ExprKind::Int(v.checked_neg().unwrap_or(v)), true),
        Num::Int(v) => (ExprKind::Int(v), false),
        Num::Float(v) if v.is_sign_negative() => (ExprKind::Float(-v), true),
        Num::Float(v) => (ExprKind::Float(v), false),
    };
    let lit = Expr { kind, span };
    if negative {
        Expr {
            kind: ExprKind::UnaryOp {
                op: UnaryOp::Neg,
                operand: Box::new(lit),
            },
            span,
        }
    } else {
        lit
    }
}

/// Evaluates constant arithmetic in `e` and everything below it.
pub fn fold_expr(e: &mut Expr) {
    match &mut e.kind {
        ExprKind::Name(_)
        | ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::None
        | ExprKind::Ellipsis => {}
        ExprKind::Attribute { value, .. } => fold_expr(value),
        ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            fold_expr(func);
            args.iter_mut().for_each(fold_expr);
            keywords.iter_mut().for_each(|k| fold_expr(&mut k.value));
        }
        ExprKind::Subscript { value, index } => {
            fold_expr(value);
            fold_expr(index);
        }
        ExprKind::Slice { lower, upper, step } => {
            for p in [lower, upper, step].into_iter().flatten() {
                fold_expr(p);
            }
        }
        ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::Set(items) => {
            items.iter_mut().for_each(fold_expr)
        }
        ExprKind::Starred(v) => fold_expr(v),
        ExprKind::Dict(items) => {
            for (k, v) in items {
                fold_expr(k);
                fold_expr(v);
            }
        }
        ExprKind::UnaryOp { op, operand } => {
            fold_expr(operand);
            // `~5` and `+5`; `-5` is already canonical, and `-(2 * 3)` folds to `-6` below.
            let folded = match (op, number(operand)) {
                (UnaryOp::Invert, Some(Num::Int(v))) => Some(Num::Int(!v)),
                (UnaryOp::Pos, Some(n)) => Some(n),
                (UnaryOp::Neg, Some(n))
                    if !matches!(operand.kind, ExprKind::Int(_) | ExprKind::Float(_)) =>
                {
                    match n {
                        Num::Int(v) => v.checked_neg().map(Num::Int),
                        Num::Float(v) => Some(Num::Float(-v)),
                    }
                }
                _ => None,
            };
            if let Some(n) = folded {
                *e = literal(n, e.span);
            }
        }
        ExprKind::BinOp { op, left, right } => {
            fold_expr(left);
            fold_expr(right);
            if let (Some(a), Some(b)) = (number(left), number(right))
                && let Some(n) = eval(*op, a, b)
            {
                *e = literal(n, e.span);
            }
        }
        ExprKind::BoolOp { left, right, .. } => {
            fold_expr(left);
            fold_expr(right);
        }
        ExprKind::Compare { left, comparisons } => {
            fold_expr(left);
            comparisons.iter_mut().for_each(|(_, c)| fold_expr(c));
        }
        ExprKind::Lambda { body, .. } => fold_expr(body),
        ExprKind::IfExp { test, body, orelse } => {
            fold_expr(test);
            fold_expr(body);
            fold_expr(orelse);
        }
    }
}

fn fold_stmts(stmts: &mut [Stmt]) {
    stmts.iter_mut().for_each(fold_stmt);
}

fn fold_stmt(s: &mut Stmt) {
    match &mut s.kind {
        StmtKind::FunctionDef(f) => {
            f.decorators.iter_mut().for_each(fold_expr);
            for p in &mut f.params {
                p.annotation.iter_mut().for_each(fold_expr);
                p.default.iter_mut().for_each(fold_expr);
            }
            f.returns.iter_mut().for_each(fold_expr);
            fold_stmts(&mut f.body);
        }
        StmtKind::ClassDef(c) => {
            c.decorators.iter_mut().for_each(fold_expr);
            c.bases.iter_mut().for_each(fold_expr);
            fold_stmts(&mut c.body);
        }
        StmtKind::Return(v) => v.iter_mut().for_each(fold_expr),
        StmtKind::Assign { targets, value } => {
            targets.iter_mut().for_each(fold_expr);
            fold_expr(value);
        }
        StmtKind::AnnAssign {
            target,
            annotation,
            value,
        } => {
            fold_expr(target);
            fold_expr(annotation);
            value.iter_mut().for_each(fold_expr);
        }
        StmtKind::AugAssign { target, value, .. } => {
            fold_expr(target);
            fold_expr(value);
        }
        StmtKind::Expr(e) => fold_expr(e),
        StmtKind::For {
            target,
            iter,
            body,
            orelse,
        } => {
            fold_expr(target);
            fold_expr(iter);
            fold_stmts(body);
            fold_stmts(orelse);
        }
        StmtKind::While { test, body, orelse } | StmtKind::If { test, body, orelse } => {
            fold_expr(test);
            fold_stmts(body);
            fold_stmts(orelse);
        }
        StmtKind::With { items, body } => {
            for i in items {
                fold_expr(&mut i.context);
                i.vars.iter_mut().for_each(fold_expr);
            }
            fold_stmts(body);
        }
        StmtKind::Assert { test, msg } => {
            fold_expr(test);
            msg.iter_mut().for_each(fold_expr);
        }
        StmtKind::Pass | StmtKind::Break | StmtKind::Continue => {}
    }
}

/// Evaluates constant arithmetic everywhere in `m` (see the module documentation).
pub fn fold_module(m: &mut Module) {
    fold_stmts(&mut m.body);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_expr;

    /// `parse_expr` folds.
    fn folded(src: &str) -> Expr {
        parse_expr(src).expect("parses")
    }

    fn same(a: &str, b: &str) {
        let (x, y) = (folded(a), parse_expr(b).expect("parses"));
        assert_eq!(
            format!("{:?}", strip(&x)),
            format!("{:?}", strip(&y)),
            "{a} should fold to {b}"
        );
    }

    /// The tree without spans, for comparison.
    fn strip(e: &Expr) -> String {
        let s = format!("{e:?}");
        let mut out = String::new();
        let mut rest = s.as_str();
        while let Some(i) = rest.find("span: Span {") {
            out.push_str(&rest[..i]);
            let tail = &rest[i..];
            let close = tail.find('}').expect("closing brace");
            rest = &tail[close + 1..];
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn python_arithmetic() {
        same("32 * 64 * 4", "8192");
        same("15.0 / 14.0", &format!("{:?}", 15.0f64 / 14.0));
        same("7 / 2", "3.5");
        same("-7 // 2", "-4");
        same("-7 % 3", "2");
        same("7 % -3", "-2");
        same("-7.5 % 2", "0.5");
        same("-7.5 // 2", "-4.0");
        same("2 ** 10", "1024");
        same("2 ** -1", "0.5");
        same("-2 ** 2", "-4");
        same("(-2) ** 2", "4");
        same("1 << 40", "1099511627776");
        same("-(2 * 3)", "-6");
        same("~5", "-6");
        same("2 * 0.5", "1.0");
        same("0.0 * -1", "-0.0");
        same("f(1 + 1, k=[2 * 2])", "f(2, k=[4])");
        same("n * 2 * 3", "n * 2 * 3");
        same("2 * 3 * n", "6 * n");
    }

    #[test]
    fn python_errors_are_left_alone() {
        for src in [
            "1 / 0",
            "1 // 0",
            "1 % 0",
            "0 ** -1",
            "2 ** 200",
            "1e308 * 10.0",
            "1 << 200",
        ] {
            assert!(
                matches!(folded(src).kind, ExprKind::BinOp { .. }),
                "{src} must stay an operation"
            );
        }
    }
}
