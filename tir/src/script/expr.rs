//! The `T.` dialect reader's expression layer: literals, operators with TVM's type matching,
//! buffer loads, and the `T.` intrinsics (`T.Cast`, `T.Select`, `T.max`, `T.exp`,
//! `T.call_packed`, ...).
//!
//! Typing follows TVM's `BinaryOpMatchTypes`: a plain integer literal is `int32` (`int64` if it
//! does not fit) and a plain float literal `float32`; when operand types differ, an integer
//! operand is converted to the float type, and the narrower of two integers (or floats) to the
//! wider, whichever side is a constant (at equal width, signed converts to unsigned). Converting
//! a constant folds into a constant of the new type (`v + 1` with `int64` `v` reads as
//! `v + T.int64(1)`), anything else becomes a `Cast` (`i + 4294967296` with `int32` `i` reads as
//! `T.Cast("int64", i) + T.int64(4294967296)`).

use crate::error::ParseError;
use crate::ir::*;
use crate::script::reader::{Binding, PResult, Reader};
use crate::syntax::Span;
use crate::syntax::ast::{self, ExprKind as A};

fn err<T>(span: Span, msg: impl Into<String>) -> PResult<T> {
    Err(ParseError::new(span, msg))
}

/// `value` converted to `dtype`: constants fold, other expressions get a `Cast` (none if the
/// type already matches).
pub(crate) fn fold_cast_imm(dtype: DataType, value: PrimExpr) -> PrimExpr {
    if value.dtype() == dtype {
        return value;
    }
    match value.kind() {
        ExprKind::IntImm { value: v, .. } if dtype.is_int_or_uint() || dtype.is_bool() => {
            PrimExpr::int(
                dtype,
                if dtype.is_bool() {
                    (*v != 0) as i64
                } else {
                    *v
                },
            )
        }
        ExprKind::IntImm { value: v, .. } if dtype.is_float() => PrimExpr::float(dtype, *v as f64),
        ExprKind::FloatImm { value: v, .. } if dtype.is_float() => PrimExpr::float(dtype, *v),
        _ => value,
    }
}

fn cast_to(dtype: DataType, value: PrimExpr) -> PrimExpr {
    let v = fold_cast_imm(dtype, value);
    if v.dtype() == dtype {
        v
    } else {
        PrimExpr::cast(dtype, v)
    }
}

/// Makes two operands the same type (TVM's `BinaryOpMatchTypes`).
pub(crate) fn match_types(a: PrimExpr, b: PrimExpr) -> (PrimExpr, PrimExpr) {
    let (ta, tb) = (a.dtype(), b.dtype());
    if ta == tb {
        return (a, b);
    }
    if !ta.is_float() && tb.is_float() {
        return (cast_to(tb, a), b);
    }
    if ta.is_float() && !tb.is_float() {
        return (a, cast_to(ta, b));
    }
    if ta.is_float() && tb.is_float() {
        return if ta.bits < tb.bits {
            (cast_to(tb, a), b)
        } else {
            (a, cast_to(ta, b))
        };
    }
    // Integers widen to the wider type, constants included: `i + 4294967296` with `int32` `i`
    // is `int64` (`T.Cast("int64", i) + T.int64(4294967296)`), never a truncated literal. At
    // equal width a signed operand converts to the unsigned type.
    if ta.bits < tb.bits || (ta.bits == tb.bits && ta.is_int() && tb.is_uint()) {
        (cast_to(tb, a), b)
    } else {
        (a, cast_to(ta, b))
    }
}

/// `a op b` for operands of one type, folded as TVM's operator functions fold it
/// (`arith::TryConstFold`, applied by `tvm::add`, `tvm::max`, ... and so by the Python operators
/// and `T.max`-style functions of TVMScript): two integer constants fold (wrapping in the type's
/// width), two `float32` or `float64` constants fold in the type's precision (`float16` does
/// not), and the identities `x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x`, `x / 1`, `x // 1` give
/// `x`, `x * 0` and `0 * x` give the zero, `0 / x`, `0 // x`, `0 % x` give the zero and
/// `x % 1` gives zero. A division by a zero constant is left as it is. The node constructors
/// `T.Add`, `T.Mul`, ... do not fold.
pub(crate) fn fold_binary(op: BinaryOp, a: PrimExpr, b: PrimExpr) -> PrimExpr {
    fold_binary_opt(op, &a, &b).unwrap_or_else(|| PrimExpr::binary(op, a, b))
}

/// The node constructor TVMScript writes for `op` where the operator form would fold
/// (`T.Add(1, 2)`): TIR's printer and Relax's printer of prim expressions use it.
pub fn node_constructor(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "T.Add",
        BinaryOp::Sub => "T.Sub",
        BinaryOp::Mul => "T.Mul",
        BinaryOp::Div => "T.Div",
        BinaryOp::Mod => "T.truncmod",
        BinaryOp::FloorDiv => "T.FloorDiv",
        BinaryOp::FloorMod => "T.FloorMod",
        BinaryOp::Min => "T.min",
        BinaryOp::Max => "T.max",
    }
}

/// Whether the reader's operator for `op` would fold `a op b` (see [`fold_binary`]): the printer
/// writes such an operation with the node constructor.
pub fn would_fold(op: BinaryOp, a: &PrimExpr, b: &PrimExpr) -> bool {
    fold_binary_opt(op, a, b).is_some()
}

fn fold_binary_opt(op: BinaryOp, a: &PrimExpr, b: &PrimExpr) -> Option<PrimExpr> {
    let dtype = a.dtype();
    if dtype.lanes != 1 || b.dtype() != dtype {
        return None;
    }
    let (ia, ib) = (a.as_int(), b.as_int());
    let float = |e: &PrimExpr| match e.kind() {
        ExprKind::FloatImm { value, .. } => Some(*value),
        _ => None,
    };
    let (fa, fb) = (float(a), float(b));
    let zero = || {
        if dtype.is_float() {
            PrimExpr::float(dtype, 0.0)
        } else {
            PrimExpr::int(dtype, 0)
        }
    };
    if let (Some(x), Some(y)) = (ia, ib) {
        return crate::arith::scalar::int_binary(op, x, y, dtype).map(|v| PrimExpr::int(dtype, v));
    }
    if let (Some(x), Some(y)) = (fa, fb)
        && dtype.code == TypeCode::Float
        && (dtype.bits == 32 || dtype.bits == 64)
    {
        let div_by_zero = matches!(op, BinaryOp::Div | BinaryOp::FloorDiv) && y == 0.0;
        let folds = matches!(
            op,
            BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::FloorDiv
                | BinaryOp::Min
                | BinaryOp::Max
        );
        if folds && !div_by_zero {
            let v = match op {
                BinaryOp::FloorDiv => {
                    crate::arith::scalar::float_binary(BinaryOp::Div, x, y, dtype).floor()
                }
                _ => crate::arith::scalar::float_binary(op, x, y, dtype),
            };
            return Some(PrimExpr::float(dtype, v));
        }
    }
    let is = |i: Option<i64>, f: Option<f64>, v: i64| i == Some(v) || f == Some(v as f64);
    let (a0, a1) = (is(ia, fa, 0), is(ia, fa, 1));
    let (b0, b1) = (is(ib, fb, 0), is(ib, fb, 1));
    match op {
        BinaryOp::Add if a0 => Some(b.clone()),
        BinaryOp::Add | BinaryOp::Sub if b0 => Some(a.clone()),
        BinaryOp::Mul if a1 => Some(b.clone()),
        BinaryOp::Mul if a0 => Some(a.clone()),
        BinaryOp::Mul if b1 => Some(a.clone()),
        BinaryOp::Mul if b0 => Some(b.clone()),
        BinaryOp::Div | BinaryOp::FloorDiv if a0 && !b0 => Some(a.clone()),
        BinaryOp::Div | BinaryOp::FloorDiv if b1 => Some(a.clone()),
        BinaryOp::Mod | BinaryOp::FloorMod if dtype.is_int_or_uint() && a0 && !b0 => {
            Some(a.clone())
        }
        BinaryOp::Mod | BinaryOp::FloorMod if dtype.is_int_or_uint() && b1 => Some(zero()),
        _ => None,
    }
}

/// `a op b` for operands of one type, folded when both are constants as TVM's operator
/// functions fold comparisons (`<`, `<=`, `>`, `>=`; Python's `==` and `!=` make the node
/// without folding).
pub(crate) fn fold_cmp(op: CmpOp, a: PrimExpr, b: PrimExpr) -> PrimExpr {
    let dtype = a.dtype();
    if dtype.lanes == 1 && b.dtype() == dtype && !matches!(op, CmpOp::Eq | CmpOp::Ne) {
        match (a.kind(), b.kind()) {
            (ExprKind::IntImm { value: x, .. }, ExprKind::IntImm { value: y, .. }) => {
                return PrimExpr::bool(crate::arith::scalar::int_cmp(op, *x, *y, dtype));
            }
            (ExprKind::FloatImm { value: x, .. }, ExprKind::FloatImm { value: y, .. }) => {
                return PrimExpr::bool(crate::arith::scalar::float_cmp(op, *x, *y));
            }
            _ => {}
        }
    }
    PrimExpr::cmp(op, a, b)
}

/// Whether two expressions are the same tree with the same variables (no renaming).
pub(crate) fn expr_same(a: &PrimExpr, b: &PrimExpr) -> bool {
    if a.ptr_eq(b) {
        return true;
    }
    match (a.kind(), b.kind()) {
        (ExprKind::IntImm { dtype: x, value: p }, ExprKind::IntImm { dtype: y, value: q }) => {
            x == y && p == q
        }
        (ExprKind::FloatImm { dtype: x, value: p }, ExprKind::FloatImm { dtype: y, value: q }) => {
            x == y && p.to_bits() == q.to_bits()
        }
        (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
        (ExprKind::Binary { op: o1, .. }, ExprKind::Binary { op: o2, .. }) if o1 != o2 => false,
        (ExprKind::Cmp { op: o1, .. }, ExprKind::Cmp { op: o2, .. }) if o1 != o2 => false,
        (ExprKind::Cast { dtype: x, .. }, ExprKind::Cast { dtype: y, .. }) if x != y => false,
        (ExprKind::Call { op: x, .. }, ExprKind::Call { op: y, .. }) if x != y => false,
        (ExprKind::BufferLoad { buffer: x, .. }, ExprKind::BufferLoad { buffer: y, .. })
            if !x.same_as(y) =>
        {
            false
        }
        (ExprKind::StringImm(x), ExprKind::StringImm(y)) => x == y,
        _ => {
            std::mem::discriminant(a.kind()) == std::mem::discriminant(b.kind()) && {
                let (ca, cb) = (a.children(), b.children());
                ca.len() == cb.len() && ca.iter().zip(&cb).all(|(x, y)| expr_same(x, y))
            }
        }
    }
}

/// The extent of `[lo, hi)`, simplified for the forms the printer produces (`hi` constant,
/// `lo` zero, or `hi == lo + e`), so that printing `min:min + extent` reads back as `extent`.
pub(crate) fn extent_between(lo: &PrimExpr, hi: &PrimExpr) -> PrimExpr {
    if lo.is_zero() {
        return hi.clone();
    }
    if let (Some(a), Some(b)) = (lo.as_int(), hi.as_int()) {
        return PrimExpr::int(hi.dtype(), b.wrapping_sub(a));
    }
    if let ExprKind::Binary {
        op: BinaryOp::Add,
        a,
        b,
    } = hi.kind()
        && expr_same(a, lo)
    {
        return b.clone();
    }
    PrimExpr::binary(BinaryOp::Sub, hi.clone(), lo.clone())
}

/// Intrinsics of one floating-point argument whose result has the argument's type.
const UNARY_MATH: &[&str] = &[
    "exp",
    "exp2",
    "exp10",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "rsqrt",
    "tanh",
    "sigmoid",
    "erf",
    "sin",
    "cos",
    "tan",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "fabs",
    "floor",
    "ceil",
    "round",
    "nearbyint",
    "trunc",
    "abs",
    "expm1",
];

/// Intrinsics of two arguments of one type.
const BINARY_MATH: &[&str] = &[
    "pow",
    "atan2",
    "fmod",
    "hypot",
    "copysign",
    "nextafter",
    "ldexp",
];

/// Intrinsics returning `bool`.
const PREDICATES: &[&str] = &["isnan", "isinf", "isfinite"];

/// Intrinsics returning a `handle`.
const HANDLE_CALLS: &[&str] = &[
    "tvm_stack_make_array",
    "tvm_stack_make_shape",
    "tvm_stack_alloca",
    "address_of",
];

/// Operator intrinsics printed as Python operators.
pub(crate) const BITWISE: &[(&str, &str)] = &[
    ("bitwise_and", "&"),
    ("bitwise_or", "|"),
    ("bitwise_xor", "^"),
    ("shift_left", "<<"),
    ("shift_right", ">>"),
];

impl Reader<'_> {
    /// Converts an expression.
    pub(crate) fn expr(&mut self, e: &ast::Expr) -> PResult<PrimExpr> {
        match &e.kind {
            A::Int(v) => int_literal(*v, e.span),
            A::Float(v) => Ok(PrimExpr::float(DataType::FLOAT32, *v)),
            A::Bool(b) => Ok(PrimExpr::bool(*b)),
            A::Str(s) => Ok(PrimExpr::string(s.clone())),
            A::Name(n) => match self.lookup(n) {
                Some(Binding::Var(v)) => Ok(PrimExpr::from(v)),
                Some(Binding::Buffer(b)) if Self::is_scalar_buffer(&b) => {
                    Ok(PrimExpr::load(b, vec![PrimExpr::int(DataType::INT32, 0)]))
                }
                Some(Binding::Buffer(_)) => err(
                    e.span,
                    format!("buffer `{n}` used as a value; index it (`{n}[i]`) or use `{n}.data`"),
                ),
                Some(Binding::Vars(_)) => err(
                    e.span,
                    format!(
                        "`{n}` is the list of a `T.grid`'s loop variables; bind them with `T.axis.remap(kinds, {n})`"
                    ),
                ),
                None => err(e.span, format!("undefined name `{n}`")),
            },
            A::Attribute { value, attr } => {
                if let Some(n) = value.as_name()
                    && let Some(Binding::Buffer(b)) = self.lookup(n)
                {
                    return match attr.as_str() {
                        "data" => Ok(PrimExpr::from(b.data.clone())),
                        "elem_offset" => Ok(b.elem_offset.clone()),
                        _ => err(e.span, format!("unsupported buffer attribute `.{attr}`")),
                    };
                }
                err(
                    e.span,
                    format!(
                        "unsupported expression `{}`",
                        e.dotted_name().unwrap_or_else(|| "attribute".into())
                    ),
                )
            }
            A::Subscript { value, index } => {
                let buffer = self.lookup_buffer(value)?;
                let indices = self.indices(index)?;
                if indices.len() != buffer.ndim() {
                    return err(
                        index.span,
                        format!(
                            "buffer `{}` has {} dimensions, {} indices given",
                            buffer.name,
                            buffer.ndim(),
                            indices.len()
                        ),
                    );
                }
                Ok(PrimExpr::load(buffer, indices))
            }
            A::UnaryOp { op, operand } => match op {
                ast::UnaryOp::Neg => {
                    if let A::Int(v) = &operand.kind {
                        return int_literal(-*v, e.span);
                    }
                    let x = self.expr(operand)?;
                    Ok(match x.kind() {
                        ExprKind::FloatImm { dtype, value } => PrimExpr::float(*dtype, -*value),
                        ExprKind::IntImm { dtype, value } if !dtype.is_bool() => {
                            PrimExpr::int(*dtype, value.wrapping_neg())
                        }
                        _ => {
                            let zero = fold_cast_imm(x.dtype(), PrimExpr::i32(0));
                            PrimExpr::binary(BinaryOp::Sub, zero, x)
                        }
                    })
                }
                ast::UnaryOp::Pos => self.expr(operand),
                ast::UnaryOp::Not => {
                    let x = self.expr(operand)?;
                    Ok(PrimExpr::new(ExprKind::Not(x)))
                }
                ast::UnaryOp::Invert => {
                    let x = self.expr(operand)?;
                    Ok(PrimExpr::call(x.dtype(), "bitwise_not", vec![x]))
                }
            },
            A::BinOp { op, left, right } => {
                let a = self.expr(left)?;
                let b = self.expr(right)?;
                self.binop(*op, a, b, e.span)
            }
            A::BoolOp { op, left, right } => {
                let a = self.expr(left)?;
                let b = self.expr(right)?;
                Ok(PrimExpr::new(match op {
                    ast::BoolOp::And => ExprKind::And(a, b),
                    ast::BoolOp::Or => ExprKind::Or(a, b),
                }))
            }
            A::Compare { left, comparisons } => {
                let mut lhs = self.expr(left)?;
                let mut result: Option<PrimExpr> = None;
                for (op, rhs_e) in comparisons {
                    let op = match op {
                        ast::CmpOp::Eq => CmpOp::Eq,
                        ast::CmpOp::NotEq => CmpOp::Ne,
                        ast::CmpOp::Lt => CmpOp::Lt,
                        ast::CmpOp::LtE => CmpOp::Le,
                        ast::CmpOp::Gt => CmpOp::Gt,
                        ast::CmpOp::GtE => CmpOp::Ge,
                        other => {
                            return err(
                                e.span,
                                format!("`{}` is not supported in TIR", other.symbol()),
                            );
                        }
                    };
                    let rhs = self.expr(rhs_e)?;
                    let (a, b) = match_types(lhs, rhs.clone());
                    let c = fold_cmp(op, a, b);
                    result = Some(match result {
                        None => c,
                        Some(prev) => PrimExpr::new(ExprKind::And(prev, c)),
                    });
                    lhs = rhs;
                }
                result.ok_or_else(|| ParseError::new(e.span, "empty comparison"))
            }
            A::Call {
                func,
                args,
                keywords,
            } => self.call(e, func, args, keywords),
            A::IfExp { .. } => err(
                e.span,
                "conditional expressions are not supported; use `T.Select` or `T.if_then_else`",
            ),
            A::Tuple(_) | A::List(_) | A::Dict(_) | A::Set(_) => {
                err(e.span, format!("{} is not a TIR expression", e.describe()))
            }
            A::Starred(_) => err(
                e.span,
                "a `*` argument is read only as the extents of `T.grid(*buffer.shape)`",
            ),
            A::None | A::Ellipsis | A::Slice { .. } => {
                err(e.span, format!("{} is not a TIR expression", e.describe()))
            }
            A::Lambda { .. } => err(
                e.span,
                "a lambda is not a TIR expression (lambdas are read only as the index map of \
                 `T.index_map`)",
            ),
        }
    }

    pub(crate) fn binop(
        &mut self,
        op: ast::BinOp,
        a: PrimExpr,
        b: PrimExpr,
        span: Span,
    ) -> PResult<PrimExpr> {
        for x in [&a, &b] {
            if x.dtype().is_handle() {
                return err(span, "arithmetic on handles or strings is not supported");
            }
        }
        let (a, b) = match_types(a, b);
        let bin = |op| Ok(fold_binary(op, a.clone(), b.clone()));
        match op {
            ast::BinOp::Add => bin(BinaryOp::Add),
            ast::BinOp::Sub => bin(BinaryOp::Sub),
            ast::BinOp::Mul => bin(BinaryOp::Mul),
            ast::BinOp::Div => bin(BinaryOp::Div),
            ast::BinOp::FloorDiv => bin(BinaryOp::FloorDiv),
            ast::BinOp::Mod => bin(BinaryOp::FloorMod),
            ast::BinOp::Pow => Ok(PrimExpr::call(a.dtype(), "pow", vec![a.clone(), b.clone()])),
            ast::BinOp::BitAnd
            | ast::BinOp::BitOr
            | ast::BinOp::BitXor
            | ast::BinOp::LShift
            | ast::BinOp::RShift => {
                let sym = op.symbol();
                let name = BITWISE
                    .iter()
                    .find(|(_, s)| *s == sym)
                    .map(|(n, _)| *n)
                    .unwrap_or("bitwise_and");
                if !a.dtype().is_int_or_uint() && !a.dtype().is_bool() {
                    return err(span, format!("`{sym}` needs integer operands"));
                }
                Ok(PrimExpr::call(a.dtype(), name, vec![a.clone(), b.clone()]))
            }
            ast::BinOp::MatMul => err(span, "`@` is not supported in TIR"),
        }
    }

    fn args_exact(
        &mut self,
        e: &ast::Expr,
        name: &str,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
        n: usize,
    ) -> PResult<Vec<PrimExpr>> {
        for k in keywords {
            // `T.exp(x, dtype="float32")`: TVM's script wrappers of the TIR operators
            // (`_op_wrapper` in its TIR IR builder) drop a `dtype` keyword; it is read (it
            // must be a data type) and has no effect, as there.
            let lowercase = name
                .strip_prefix("T.")
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_lowercase()));
            if k.name == "dtype" && lowercase {
                self.dtype_annotation(&k.value)?;
                continue;
            }
            return err(
                k.span,
                format!("unexpected keyword argument `{}` of `{name}`", k.name),
            );
        }
        if args.len() != n {
            return err(
                e.span,
                format!("`{name}` takes {n} argument(s), {} given", args.len()),
            );
        }
        args.iter().map(|a| self.expr(a)).collect()
    }

    fn call(
        &mut self,
        e: &ast::Expr,
        func: &ast::Expr,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
    ) -> PResult<PrimExpr> {
        let Some(full) = func.dotted_name() else {
            return err(func.span, "unsupported call");
        };
        let Some(name) = full.strip_prefix("T.") else {
            return err(func.span, format!("unsupported function `{full}` in TIR"));
        };
        // `T.float32(1.0)`, `T.int64(3)`, `T.bool(True)`, `T.float32("inf")`.
        if let Some(dtype) = DataType::parse(name) {
            return self.typed_literal(e, &full, dtype, args, keywords);
        }
        match name {
            "Cast" | "cast" => {
                let a = self.bind_args(e, &["dtype", "value"])?;
                let (d, v) = match (a[0], a[1]) {
                    (Some(d), Some(v)) if name == "Cast" => (d, v),
                    (Some(v), Some(d)) => (d, v),
                    _ => return err(e.span, "expected `T.Cast(dtype, value)`"),
                };
                let dtype = self.dtype_annotation(d)?;
                let v = self.expr(v)?;
                Ok(PrimExpr::cast(dtype, v))
            }
            "Select" | "if_then_else" => {
                let x = self.args_exact(e, &full, args, keywords, 3)?;
                let mut it = x.into_iter();
                let (Some(c), Some(t), Some(f)) = (it.next(), it.next(), it.next()) else {
                    return err(e.span, "expected three arguments");
                };
                let (t, f) = match_types(t, f);
                if name == "Select" {
                    Ok(PrimExpr::new(ExprKind::Select {
                        cond: c,
                        true_value: t,
                        false_value: f,
                    }))
                } else {
                    Ok(PrimExpr::call(t.dtype(), "if_then_else", vec![c, t, f]))
                }
            }
            "max" | "min" | "floordiv" | "floormod" | "truncdiv" | "truncmod" | "Div" | "Mod"
            | "FloorDiv" | "FloorMod" | "Max" | "Min" | "Add" | "Sub" | "Mul" => {
                let x = self.args_exact(e, &full, args, keywords, 2)?;
                let mut it = x.into_iter();
                let (Some(a), Some(b)) = (it.next(), it.next()) else {
                    return err(e.span, "expected two arguments");
                };
                let (a, b) = match_types(a, b);
                let op = match name {
                    "max" | "Max" => BinaryOp::Max,
                    "min" | "Min" => BinaryOp::Min,
                    "floordiv" | "FloorDiv" => BinaryOp::FloorDiv,
                    "floormod" | "FloorMod" => BinaryOp::FloorMod,
                    "truncdiv" | "Div" => BinaryOp::Div,
                    "Add" => BinaryOp::Add,
                    "Sub" => BinaryOp::Sub,
                    "Mul" => BinaryOp::Mul,
                    _ => BinaryOp::Mod,
                };
                // The functions fold (`tvm::max`); the node constructors do not (`T.Max`).
                if name.starts_with(|c: char| c.is_ascii_lowercase()) {
                    Ok(fold_binary(op, a, b))
                } else {
                    Ok(PrimExpr::binary(op, a, b))
                }
            }
            // The comparison node constructors, which do not fold (`T.LT(1, 2)`).
            "EQ" | "NE" | "LT" | "LE" | "GT" | "GE" => {
                let x = self.args_exact(e, &full, args, keywords, 2)?;
                let mut it = x.into_iter();
                let (Some(a), Some(b)) = (it.next(), it.next()) else {
                    return err(e.span, "expected two arguments");
                };
                let (a, b) = match_types(a, b);
                let op = match name {
                    "EQ" => CmpOp::Eq,
                    "NE" => CmpOp::Ne,
                    "LT" => CmpOp::Lt,
                    "LE" => CmpOp::Le,
                    "GT" => CmpOp::Gt,
                    _ => CmpOp::Ge,
                };
                Ok(PrimExpr::cmp(op, a, b))
            }
            // `T.assume(cond)`: a fact for analyses (TVM's `tir.assume`, a `bool` call); lowering
            // removes it.
            "assume" => {
                let x = self.args_exact(e, &full, args, keywords, 1)?;
                Ok(PrimExpr::call(DataType::BOOL, "assume", x))
            }
            "Let" => self.let_expr(e),
            // `T.min_value("float32")`: the type's smallest (largest) value as a literal.
            "min_value" | "max_value" => {
                let a = self.bind_args(e, &["dtype"])?;
                let Some(d) = a[0] else {
                    return err(e.span, format!("`{full}` takes a data type"));
                };
                let dtype = self.dtype_annotation(d)?;
                if dtype.is_handle() || dtype.lanes != 1 {
                    return err(
                        d.span,
                        format!("`{full}` of {dtype}: expected a scalar number type"),
                    );
                }
                Ok(if name == "min_value" {
                    PrimExpr::min_value(dtype)
                } else {
                    PrimExpr::max_value(dtype)
                })
            }
            "Ramp" => {
                let a = self.bind_args(e, &["base", "stride", "lanes"])?;
                let (Some(b), Some(s), Some(l)) = (a[0], a[1], a[2]) else {
                    return err(e.span, "expected `T.Ramp(base, stride, lanes)`");
                };
                let (base, stride) = match_types(self.expr(b)?, self.expr(s)?);
                let lanes = self.lanes(l)?;
                Ok(PrimExpr::new(ExprKind::Ramp {
                    base,
                    stride,
                    lanes,
                }))
            }
            "Broadcast" => {
                let a = self.bind_args(e, &["value", "lanes"])?;
                let (Some(v), Some(l)) = (a[0], a[1]) else {
                    return err(e.span, "expected `T.Broadcast(value, lanes)`");
                };
                let value = self.expr(v)?;
                let lanes = self.lanes(l)?;
                Ok(PrimExpr::new(ExprKind::Broadcast { value, lanes }))
            }
            "call_packed" | "call_cpacked" => {
                if let Some(k) = keywords.first() {
                    return err(k.span, format!("`{full}` takes no keyword arguments"));
                }
                let Some(first) = args.first() else {
                    return err(e.span, format!("`{full}` needs the function name"));
                };
                if !matches!(first.kind, A::Str(_)) {
                    return err(first.span, "the packed function name must be a string");
                }
                let x = args
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<PResult<Vec<_>>>()?;
                Ok(PrimExpr::call(DataType::INT32, name, x))
            }
            "call_extern" | "call_pure_extern" | "call_llvm_intrin" | "call_llvm_pure_intrin" => {
                if let Some(k) = keywords.first() {
                    return err(k.span, format!("`{full}` takes no keyword arguments"));
                }
                let Some(first) = args.first() else {
                    return err(e.span, format!("`{full}` needs the result type"));
                };
                let dtype = self.dtype_annotation(first)?;
                let x = args[1..]
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<PResult<Vec<_>>>()?;
                Ok(PrimExpr::call(dtype, name, x))
            }
            _ if HANDLE_CALLS.contains(&name) => {
                if let Some(k) = keywords.first() {
                    return err(k.span, format!("`{full}` takes no keyword arguments"));
                }
                let x = args
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<PResult<Vec<_>>>()?;
                Ok(PrimExpr::call(DataType::HANDLE, name, x))
            }
            _ if UNARY_MATH.contains(&name) => {
                let x = self.args_exact(e, &full, args, keywords, 1)?;
                let t = x[0].dtype();
                Ok(PrimExpr::call(t, name, x))
            }
            _ if PREDICATES.contains(&name) => {
                let x = self.args_exact(e, &full, args, keywords, 1)?;
                let t = DataType::BOOL.with_lanes(x[0].dtype().lanes);
                Ok(PrimExpr::call(t, name, x))
            }
            _ if BINARY_MATH.contains(&name) => {
                let x = self.args_exact(e, &full, args, keywords, 2)?;
                let mut it = x.into_iter();
                let (Some(a), Some(b)) = (it.next(), it.next()) else {
                    return err(e.span, "expected two arguments");
                };
                let (a, b) = match_types(a, b);
                Ok(PrimExpr::call(a.dtype(), name, vec![a, b]))
            }
            _ if BITWISE.iter().any(|(n, _)| *n == name) || name == "bitwise_not" => {
                let n = if name == "bitwise_not" { 1 } else { 2 };
                let x = self.args_exact(e, &full, args, keywords, n)?;
                let x = if n == 2 {
                    let mut it = x.into_iter();
                    let (Some(a), Some(b)) = (it.next(), it.next()) else {
                        return err(e.span, "expected two arguments");
                    };
                    let (a, b) = match_types(a, b);
                    vec![a, b]
                } else {
                    x
                };
                Ok(PrimExpr::call(x[0].dtype(), name, x))
            }
            _ => err(func.span, format!("unsupported TIR intrinsic `{full}`")),
        }
    }

    fn lanes(&mut self, l: &ast::Expr) -> PResult<u16> {
        let v = self.expr(l)?;
        v.as_int()
            .and_then(|x| u16::try_from(x).ok())
            .filter(|x| *x > 0)
            .ok_or_else(|| ParseError::new(l.span, "lanes must be a positive integer constant"))
    }

    /// `T.Let(body, where={x: value})`.
    fn let_expr(&mut self, e: &ast::Expr) -> PResult<PrimExpr> {
        let a = self.bind_args(e, &["body", "where"])?;
        let (Some(body_e), Some(where_e)) = (a[0], a[1]) else {
            return err(e.span, "expected `T.Let(body, where={var: value})`");
        };
        let A::Dict(items) = &where_e.kind else {
            return err(where_e.span, "expected `where={var: value}`");
        };
        let [(k, v)] = items.as_slice() else {
            return err(where_e.span, "`T.Let` binds exactly one variable");
        };
        let Some(name) = k.as_name() else {
            return err(k.span, "expected a variable name");
        };
        let value = self.expr(v)?;
        let var = Var::new(name, value.dtype());
        self.push_scope();
        self.bind_var(name, var.clone());
        let body = self.expr(body_e);
        self.pop_scope();
        Ok(PrimExpr::new(ExprKind::Let {
            var,
            value,
            body: body?,
        }))
    }

    fn typed_literal(
        &mut self,
        e: &ast::Expr,
        full: &str,
        dtype: DataType,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
    ) -> PResult<PrimExpr> {
        if let Some(k) = keywords.first() {
            return err(
                k.span,
                format!("unexpected keyword argument `{}` of `{full}`", k.name),
            );
        }
        let [arg] = args else {
            return err(e.span, format!("`{full}` takes one value"));
        };
        // Literal forms, with an optional leading minus.
        let (neg, lit) = match &arg.kind {
            A::UnaryOp {
                op: ast::UnaryOp::Neg,
                operand,
            } => (true, operand.as_ref()),
            _ => (false, arg),
        };
        let sign = if neg { -1.0 } else { 1.0 };
        match &lit.kind {
            A::Int(v) if dtype.is_float() => {
                return Ok(PrimExpr::float(dtype, sign * (*v as f64)));
            }
            A::Int(v) => {
                let v = if neg { -*v } else { *v };
                if dtype.is_bool() {
                    return Ok(PrimExpr::bool(v != 0));
                }
                let fits = match (dtype.code, dtype.bits) {
                    (TypeCode::UInt, 64) => (0..=u64::MAX as i128).contains(&v),
                    (TypeCode::UInt, b) => (0..(1i128 << b)).contains(&v),
                    (_, b) => {
                        let half = 1i128 << (b.clamp(1, 64) - 1);
                        (-half..half).contains(&v)
                    }
                };
                if !fits {
                    return err(arg.span, format!("{v} does not fit in {dtype}"));
                }
                return Ok(PrimExpr::int(dtype, v as i64));
            }
            A::Float(v) if dtype.is_float() => return Ok(PrimExpr::float(dtype, sign * *v)),
            A::Bool(b) if dtype.is_bool() && !neg => return Ok(PrimExpr::bool(*b)),
            A::Bool(b) if dtype.is_int_or_uint() && !neg => {
                return Ok(PrimExpr::int(dtype, *b as i64));
            }
            A::Str(s) if dtype.is_float() => {
                let v = match s.as_str() {
                    "inf" | "+inf" | "infinity" => f64::INFINITY,
                    "-inf" | "-infinity" => f64::NEG_INFINITY,
                    "nan" | "+nan" => f64::NAN,
                    "-nan" => -f64::NAN,
                    _ => {
                        return err(arg.span, format!("invalid float literal {s:?}"));
                    }
                };
                return Ok(PrimExpr::float(dtype, sign * v));
            }
            _ => {}
        }
        if dtype.is_handle() {
            return err(arg.span, format!("`{full}` cannot convert a value"));
        }
        // Any other expression: a conversion.
        let v = self.expr(arg)?;
        Ok(cast_to(dtype, v))
    }
}

fn int_literal(v: i128, span: Span) -> PResult<PrimExpr> {
    if let Ok(x) = i32::try_from(v) {
        Ok(PrimExpr::i32(x))
    } else if let Ok(x) = i64::try_from(v) {
        Ok(PrimExpr::i64(x))
    } else {
        err(span, format!("integer literal {v} does not fit in int64"))
    }
}
