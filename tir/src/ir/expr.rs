//! [`PrimExpr`]: TIR's scalar (and short-vector) expressions.
//!
//! Expressions are immutable trees of `Arc`-shared nodes, as in TVM: passes build new trees and
//! share unchanged subtrees, nothing is mutated in place, and cloning is a reference-count bump.
//! Every expression has a [`DataType`] ([`PrimExpr::dtype`]) that follows TVM's typing rules:
//! arithmetic has the type of its (already matched) operands, comparisons and logic are `bool`,
//! loads have the buffer's element type.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::ir::{Buffer, DataType, TypeCode, Var, VarId};

/// Arithmetic binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`: true division for floats, truncating division for integers (`T.Div`).
    Div,
    /// Truncating remainder (`T.truncmod`).
    Mod,
    /// `a // b`: floor division.
    FloorDiv,
    /// `a % b`: floor modulo (result has the sign of `b`).
    FloorMod,
    /// `T.min(a, b)`
    Min,
    /// `T.max(a, b)`
    Max,
}

/// Comparison operators; the result is `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The Python operator.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A TIR expression: a cheap-to-clone handle to an immutable [`ExprKind`] node.
#[derive(Clone)]
pub struct PrimExpr(Arc<ExprKind>);

/// The expression forms.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// An integer (or `bool`) constant of the given type.
    IntImm {
        /// Its type (`int32`, `int64`, `bool`, ...).
        dtype: DataType,
        /// Its value.
        value: i64,
    },
    /// A floating-point constant. The value is kept as the f64 that was written (TVM does the
    /// same); code generation rounds it to `dtype`.
    FloatImm {
        /// Its type.
        dtype: DataType,
        /// Its value.
        value: f64,
    },
    /// A string constant (arguments of `T.call_packed`, assert messages).
    StringImm(String),
    /// A variable reference.
    Var(Var),
    /// `a op b` with operands of the same type.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        a: PrimExpr,
        /// Right operand.
        b: PrimExpr,
    },
    /// `a op b`, of type `bool`.
    Cmp {
        /// The operator.
        op: CmpOp,
        /// Left operand.
        a: PrimExpr,
        /// Right operand.
        b: PrimExpr,
    },
    /// `a and b` on `bool`s.
    And(PrimExpr, PrimExpr),
    /// `a or b` on `bool`s.
    Or(PrimExpr, PrimExpr),
    /// `not a`.
    Not(PrimExpr),
    /// `T.Select(cond, t, f)`: both branches are evaluated.
    Select {
        /// The condition.
        cond: PrimExpr,
        /// Value if true.
        true_value: PrimExpr,
        /// Value if false.
        false_value: PrimExpr,
    },
    /// `T.Cast(dtype, value)`.
    Cast {
        /// The target type.
        dtype: DataType,
        /// The converted value.
        value: PrimExpr,
    },
    /// `buffer[indices]`.
    BufferLoad {
        /// The loaded buffer.
        buffer: Buffer,
        /// One index per dimension.
        indices: Vec<PrimExpr>,
    },
    /// A call of an intrinsic by name (`"exp"`, `"if_then_else"`, `"call_packed"`, ...), written
    /// `T.<op>(args)`.
    Call {
        /// The result type.
        dtype: DataType,
        /// The intrinsic's name, without the `T.` prefix.
        op: String,
        /// The arguments.
        args: Vec<PrimExpr>,
    },
    /// `T.Let(body, where={var: value})`.
    Let {
        /// The bound variable.
        var: Var,
        /// Its value.
        value: PrimExpr,
        /// The expression in which it is bound.
        body: PrimExpr,
    },
    /// `T.Ramp(base, stride, lanes)`: the vector `base + i * stride` for `i` in `0..lanes`.
    Ramp {
        /// First element.
        base: PrimExpr,
        /// Step.
        stride: PrimExpr,
        /// Number of lanes.
        lanes: u16,
    },
    /// `T.Broadcast(value, lanes)`.
    Broadcast {
        /// The scalar.
        value: PrimExpr,
        /// Number of lanes.
        lanes: u16,
    },
}

impl Deref for PrimExpr {
    type Target = ExprKind;

    fn deref(&self) -> &ExprKind {
        &self.0
    }
}

impl fmt::Debug for PrimExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for PrimExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::script::print_prim_expr(self))
    }
}

/// Deep equality by identity, TVM's `ExprDeepEqual`: the same tree of nodes over the same
/// variables (by [`VarId`](crate::VarId)) and the same buffers (by identity); float constants
/// compare by bit pattern. Names never matter: two distinct buffers or variables that share a
/// name hint (legalization names every non-variable argument `rxplaceholder`) are different, so
/// this — never the printed text, which only the printer makes unique — is how passes and code
/// generators decide that two expressions are "the same".
impl PartialEq for PrimExpr {
    fn eq(&self, other: &PrimExpr) -> bool {
        if self.ptr_eq(other) {
            return true;
        }
        use ExprKind as K;
        match (self.kind(), other.kind()) {
            (
                K::IntImm { dtype, value },
                K::IntImm {
                    dtype: d2,
                    value: v2,
                },
            ) => dtype == d2 && value == v2,
            (
                K::FloatImm { dtype, value },
                K::FloatImm {
                    dtype: d2,
                    value: v2,
                },
            ) => dtype == d2 && value.to_bits() == v2.to_bits(),
            (K::StringImm(a), K::StringImm(b)) => a == b,
            (K::Var(a), K::Var(b)) => a == b,
            (
                K::Binary { op, a, b },
                K::Binary {
                    op: o2,
                    a: a2,
                    b: b2,
                },
            ) => op == o2 && a == a2 && b == b2,
            (
                K::Cmp { op, a, b },
                K::Cmp {
                    op: o2,
                    a: a2,
                    b: b2,
                },
            ) => op == o2 && a == a2 && b == b2,
            (K::And(a, b), K::And(a2, b2)) | (K::Or(a, b), K::Or(a2, b2)) => a == a2 && b == b2,
            (K::Not(a), K::Not(b)) => a == b,
            (
                K::Select {
                    cond,
                    true_value,
                    false_value,
                },
                K::Select {
                    cond: c2,
                    true_value: t2,
                    false_value: f2,
                },
            ) => cond == c2 && true_value == t2 && false_value == f2,
            (
                K::Cast { dtype, value },
                K::Cast {
                    dtype: d2,
                    value: v2,
                },
            ) => dtype == d2 && value == v2,
            (
                K::BufferLoad { buffer, indices },
                K::BufferLoad {
                    buffer: b2,
                    indices: i2,
                },
            ) => buffer.same_as(b2) && indices == i2,
            (
                K::Call { dtype, op, args },
                K::Call {
                    dtype: d2,
                    op: o2,
                    args: a2,
                },
            ) => dtype == d2 && op == o2 && args == a2,
            (
                K::Let { var, value, body },
                K::Let {
                    var: v2,
                    value: x2,
                    body: b2,
                },
            ) => var == v2 && value == x2 && body == b2,
            (
                K::Ramp {
                    base,
                    stride,
                    lanes,
                },
                K::Ramp {
                    base: b2,
                    stride: s2,
                    lanes: l2,
                },
            ) => lanes == l2 && base == b2 && stride == s2,
            (
                K::Broadcast { value, lanes },
                K::Broadcast {
                    value: v2,
                    lanes: l2,
                },
            ) => lanes == l2 && value == v2,
            _ => false,
        }
    }
}

impl Eq for PrimExpr {}

/// Consistent with the deep equality: buffers hash by their data variable, which identical
/// buffers share.
impl std::hash::Hash for PrimExpr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        use ExprKind as K;
        std::mem::discriminant(self.kind()).hash(state);
        match self.kind() {
            K::IntImm { dtype, value } => (dtype, value).hash(state),
            K::FloatImm { dtype, value } => (dtype, value.to_bits()).hash(state),
            K::StringImm(s) => s.hash(state),
            K::Var(v) => v.hash(state),
            K::Binary { op, a, b } => (op, a, b).hash(state),
            K::Cmp { op, a, b } => (op, a, b).hash(state),
            K::And(a, b) | K::Or(a, b) => (a, b).hash(state),
            K::Not(a) => a.hash(state),
            K::Select {
                cond,
                true_value,
                false_value,
            } => (cond, true_value, false_value).hash(state),
            K::Cast { dtype, value } => (dtype, value).hash(state),
            K::BufferLoad { buffer, indices } => (buffer.data.id(), indices).hash(state),
            K::Call { dtype, op, args } => (dtype, op, args).hash(state),
            K::Let { var, value, body } => (var, value, body).hash(state),
            K::Ramp {
                base,
                stride,
                lanes,
            } => (base, stride, lanes).hash(state),
            K::Broadcast { value, lanes } => (value, lanes).hash(state),
        }
    }
}

impl From<Var> for PrimExpr {
    fn from(v: Var) -> PrimExpr {
        PrimExpr::new(ExprKind::Var(v))
    }
}

impl From<&Var> for PrimExpr {
    fn from(v: &Var) -> PrimExpr {
        PrimExpr::new(ExprKind::Var(v.clone()))
    }
}

impl PrimExpr {
    /// Wraps a node.
    pub fn new(kind: ExprKind) -> PrimExpr {
        PrimExpr(Arc::new(kind))
    }

    /// The node.
    pub fn kind(&self) -> &ExprKind {
        &self.0
    }

    /// Whether two handles point to the same node.
    pub fn ptr_eq(&self, other: &PrimExpr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// An integer constant.
    pub fn int(dtype: DataType, value: i64) -> PrimExpr {
        PrimExpr::new(ExprKind::IntImm { dtype, value })
    }

    /// An `int32` constant.
    pub fn i32(value: i32) -> PrimExpr {
        PrimExpr::int(DataType::INT32, value as i64)
    }

    /// An `int64` constant.
    pub fn i64(value: i64) -> PrimExpr {
        PrimExpr::int(DataType::INT64, value)
    }

    /// A `bool` constant.
    pub fn bool(value: bool) -> PrimExpr {
        PrimExpr::int(DataType::BOOL, value as i64)
    }

    /// A float constant.
    pub fn float(dtype: DataType, value: f64) -> PrimExpr {
        PrimExpr::new(ExprKind::FloatImm { dtype, value })
    }

    /// The smallest value of `dtype` (TVM's `tir.min_value`): the most negative finite float,
    /// `false`, or the integer type's minimum.
    pub fn min_value(dtype: DataType) -> PrimExpr {
        if dtype.is_float() {
            return PrimExpr::float(dtype, -float_max(dtype));
        }
        if dtype.is_bool() {
            return PrimExpr::int(dtype, 0);
        }
        PrimExpr::int(dtype, crate::arith::scalar::int_type_range(dtype).0)
    }

    /// The largest value of `dtype` (TVM's `tir.max_value`): the largest finite float, `true`,
    /// or the integer type's maximum (`uint64`'s as `i64::MAX`, see
    /// [`crate::arith::scalar::int_type_range`]).
    pub fn max_value(dtype: DataType) -> PrimExpr {
        if dtype.is_float() {
            return PrimExpr::float(dtype, float_max(dtype));
        }
        if dtype.is_bool() {
            return PrimExpr::int(dtype, 1);
        }
        PrimExpr::int(dtype, crate::arith::scalar::int_type_range(dtype).1)
    }

    /// A string constant.
    pub fn string(s: impl Into<String>) -> PrimExpr {
        PrimExpr::new(ExprKind::StringImm(s.into()))
    }

    /// A binary arithmetic node (operands must already have the same type).
    pub fn binary(op: BinaryOp, a: PrimExpr, b: PrimExpr) -> PrimExpr {
        PrimExpr::new(ExprKind::Binary { op, a, b })
    }

    /// A comparison node.
    pub fn cmp(op: CmpOp, a: PrimExpr, b: PrimExpr) -> PrimExpr {
        PrimExpr::new(ExprKind::Cmp { op, a, b })
    }

    /// An intrinsic call.
    pub fn call(dtype: DataType, op: impl Into<String>, args: Vec<PrimExpr>) -> PrimExpr {
        PrimExpr::new(ExprKind::Call {
            dtype,
            op: op.into(),
            args,
        })
    }

    /// A cast (no folding).
    pub fn cast(dtype: DataType, value: PrimExpr) -> PrimExpr {
        PrimExpr::new(ExprKind::Cast { dtype, value })
    }

    /// A buffer load.
    pub fn load(buffer: Buffer, indices: Vec<PrimExpr>) -> PrimExpr {
        PrimExpr::new(ExprKind::BufferLoad { buffer, indices })
    }

    /// The expression's type.
    pub fn dtype(&self) -> DataType {
        match &*self.0 {
            ExprKind::IntImm { dtype, .. }
            | ExprKind::FloatImm { dtype, .. }
            | ExprKind::Cast { dtype, .. }
            | ExprKind::Call { dtype, .. } => *dtype,
            ExprKind::StringImm(_) => DataType::HANDLE,
            ExprKind::Var(v) => v.dtype(),
            ExprKind::Binary { a, .. } => a.dtype(),
            ExprKind::Cmp { a, .. }
            | ExprKind::And(a, _)
            | ExprKind::Or(a, _)
            | ExprKind::Not(a) => DataType::BOOL.with_lanes(a.dtype().lanes),
            ExprKind::Select { true_value, .. } => true_value.dtype(),
            ExprKind::BufferLoad { buffer, indices } => {
                let lanes = indices.last().map(|i| i.dtype().lanes).unwrap_or(1);
                buffer.dtype.with_lanes(buffer.dtype.lanes * lanes)
            }
            ExprKind::Let { body, .. } => body.dtype(),
            ExprKind::Ramp { base, lanes, .. } => base.dtype().with_lanes(*lanes),
            ExprKind::Broadcast { value, lanes } => value.dtype().with_lanes(*lanes),
        }
    }

    /// The value if this is an integer constant.
    pub fn as_int(&self) -> Option<i64> {
        match &*self.0 {
            ExprKind::IntImm { value, .. } => Some(*value),
            _ => None,
        }
    }

    /// The variable if this is a variable reference.
    pub fn as_var(&self) -> Option<&Var> {
        match &*self.0 {
            ExprKind::Var(v) => Some(v),
            _ => None,
        }
    }

    /// An integer or float constant equal to zero.
    pub fn is_zero(&self) -> bool {
        match &*self.0 {
            ExprKind::IntImm { value, .. } => *value == 0,
            ExprKind::FloatImm { value, .. } => *value == 0.0,
            _ => false,
        }
    }

    /// An integer or float constant equal to one (`True` for `bool`).
    pub fn is_one(&self) -> bool {
        match &*self.0 {
            ExprKind::IntImm { value, .. } => *value == 1,
            ExprKind::FloatImm { value, .. } => *value == 1.0,
            _ => false,
        }
    }

    /// The direct sub-expressions, in evaluation order.
    pub fn children(&self) -> Vec<&PrimExpr> {
        match &*self.0 {
            ExprKind::IntImm { .. }
            | ExprKind::FloatImm { .. }
            | ExprKind::StringImm(_)
            | ExprKind::Var(_) => Vec::new(),
            ExprKind::Binary { a, b, .. }
            | ExprKind::Cmp { a, b, .. }
            | ExprKind::And(a, b)
            | ExprKind::Or(a, b) => vec![a, b],
            ExprKind::Not(a) => vec![a],
            ExprKind::Select {
                cond,
                true_value,
                false_value,
            } => vec![cond, true_value, false_value],
            ExprKind::Cast { value, .. } => vec![value],
            ExprKind::BufferLoad { indices, .. } => indices.iter().collect(),
            ExprKind::Call { args, .. } => args.iter().collect(),
            ExprKind::Let { value, body, .. } => vec![value, body],
            ExprKind::Ramp { base, stride, .. } => vec![base, stride],
            ExprKind::Broadcast { value, .. } => vec![value],
        }
    }

    /// Calls `f` on this expression and every sub-expression, parents before children.
    pub fn visit(&self, f: &mut impl FnMut(&PrimExpr)) {
        f(self);
        for c in self.children() {
            c.visit(f);
        }
    }

    /// Whether `pred` holds for some variable referenced in the expression.
    pub fn uses_var(&self, pred: &impl Fn(&Var) -> bool) -> bool {
        let mut found = false;
        self.visit(&mut |e| {
            if let ExprKind::Var(v) = e.kind() {
                found |= pred(v);
            }
        });
        found
    }

    /// Whether the expression loads from the buffer whose data is `data`.
    pub fn loads_buffer(&self, data: VarId) -> bool {
        let mut found = false;
        self.visit(&mut |e| {
            if let ExprKind::BufferLoad { buffer: b, .. } = e.kind() {
                found |= b.data.id() == data;
            }
        });
        found
    }
}

/// The range `[min, min + extent)`.
#[derive(Clone, Debug)]
pub struct Range {
    /// First value.
    pub min: PrimExpr,
    /// Number of values.
    pub extent: PrimExpr,
}

impl Range {
    /// `[min, min + extent)`.
    pub fn new(min: PrimExpr, extent: PrimExpr) -> Range {
        Range { min, extent }
    }

    /// `[0, extent)` with a zero of the extent's type.
    pub fn from_extent(extent: PrimExpr) -> Range {
        let zero = PrimExpr::int(extent.dtype(), 0);
        Range { min: zero, extent }
    }
}

/// The largest finite value of a float type.
fn float_max(dtype: DataType) -> f64 {
    match (dtype.code, dtype.bits) {
        (TypeCode::Float, 16) => 65504.0,
        (TypeCode::Float, 64) => f64::MAX,
        (TypeCode::BFloat, _) => 3.3895313892515355e38,
        _ => f64::from(f32::MAX),
    }
}
