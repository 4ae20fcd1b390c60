//! The syntax tree of the Python subset that TVMScript is written in.
//!
//! It mirrors Python's own `ast` module (same node names where they exist) but keeps only what
//! TVMScript uses: no comprehensions, `try`, `import`, or starred expressions, and lambdas only
//! with plain parameter names (`T.index_map(lambda i, j: (j, i))`). Every node
//! carries a [`Span`]. Parentheses leave no trace: `(a)` is the node `a` with the span of the
//! parenthesized text. The tree is plain owned data (`Box`/`Vec`): it is built once by the parser
//! and read once by a dialect reader (`T.` in this crate, `R.` in the relax crate).

use crate::syntax::Span;

/// A whole file: its top-level statements.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// Top-level statements in order.
    pub body: Vec<Stmt>,
}

/// A statement and its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What the statement is.
    pub kind: StmtKind,
    /// From its first token (the first decorator for a decorated definition) to its last.
    pub span: Span,
}

/// The statement forms.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `def name(params) -> returns:` with its decorators.
    FunctionDef(FunctionDef),
    /// `class Name(bases):` with its decorators.
    ClassDef(ClassDef),
    /// `return` or `return value` (a bare tuple `return a, b` is a [`ExprKind::Tuple`]).
    Return(Option<Expr>),
    /// `target = value`. `a, b = v` has a [`ExprKind::Tuple`] target; chained assignment
    /// `a = b = v` gives several targets, left to right.
    Assign {
        /// The assigned targets (usually one).
        targets: Vec<Expr>,
        /// The right-hand side.
        value: Expr,
    },
    /// `target: annotation` or `target: annotation = value`.
    AnnAssign {
        /// The assigned name (or attribute / subscript).
        target: Expr,
        /// The annotation expression.
        annotation: Expr,
        /// The value, if any.
        value: Option<Expr>,
    },
    /// `target op= value`.
    AugAssign {
        /// The updated target.
        target: Expr,
        /// The arithmetic operator (`+=` is [`BinOp::Add`]).
        op: BinOp,
        /// The right-hand side.
        value: Expr,
    },
    /// An expression used as a statement (usually a call).
    Expr(Expr),
    /// `for target in iter:` with an optional `else:`.
    For {
        /// The loop target: a name or a tuple of names.
        target: Expr,
        /// The iterated expression.
        iter: Expr,
        /// The loop body.
        body: Vec<Stmt>,
        /// The `else:` block (empty if absent).
        orelse: Vec<Stmt>,
    },
    /// `while test:` with an optional `else:`.
    While {
        /// The loop condition.
        test: Expr,
        /// The loop body.
        body: Vec<Stmt>,
        /// The `else:` block (empty if absent).
        orelse: Vec<Stmt>,
    },
    /// `if test:` ... `elif` ... `else:`; an `elif` is an `If` alone in `orelse`.
    If {
        /// The condition.
        test: Expr,
        /// The `then` block.
        body: Vec<Stmt>,
        /// The `else` block (empty if absent).
        orelse: Vec<Stmt>,
    },
    /// `with a as x, b:`.
    With {
        /// The context managers.
        items: Vec<WithItem>,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `assert test` or `assert test, msg`.
    Assert {
        /// The asserted condition.
        test: Expr,
        /// The message, if any.
        msg: Option<Expr>,
    },
    /// `pass`.
    Pass,
    /// `break`.
    Break,
    /// `continue`.
    Continue,
}

/// One `context as vars` item of a `with` statement.
#[derive(Clone, Debug, PartialEq)]
pub struct WithItem {
    /// The context expression.
    pub context: Expr,
    /// The `as` target, if any.
    pub vars: Option<Expr>,
}

/// A function definition.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    /// The function name.
    pub name: String,
    /// Position of the name.
    pub name_span: Span,
    /// Decorator expressions (without the `@`), top to bottom.
    pub decorators: Vec<Expr>,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// The `-> returns` annotation, if any.
    pub returns: Option<Expr>,
    /// The body statements.
    pub body: Vec<Stmt>,
    /// The whole definition, decorators included.
    pub span: Span,
}

/// One parameter `name: annotation = default`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Parameter name.
    pub name: String,
    /// Its annotation, if any.
    pub annotation: Option<Expr>,
    /// Its default value, if any.
    pub default: Option<Expr>,
    /// From the name to the end of the default/annotation.
    pub span: Span,
}

/// A class definition.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    /// The class name.
    pub name: String,
    /// Position of the name.
    pub name_span: Span,
    /// Decorator expressions (without the `@`), top to bottom.
    pub decorators: Vec<Expr>,
    /// Base-class expressions.
    pub bases: Vec<Expr>,
    /// The body statements.
    pub body: Vec<Stmt>,
    /// The whole definition, decorators included.
    pub span: Span,
}

/// An expression and its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// Its source range (including enclosing parentheses, if any).
    pub span: Span,
}

/// The expression forms.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An identifier.
    Name(String),
    /// An integer literal (non-negative; `-1` is a [`UnaryOp::Neg`] of `1`).
    Int(i128),
    /// A float literal.
    Float(f64),
    /// A string literal (adjacent literals already joined).
    Str(String),
    /// `True` / `False`.
    Bool(bool),
    /// `None`.
    None,
    /// `...`.
    Ellipsis,
    /// `value.attr`.
    Attribute {
        /// The object.
        value: Box<Expr>,
        /// The attribute name.
        attr: String,
    },
    /// `func(args, name=value)`.
    Call {
        /// The callee.
        func: Box<Expr>,
        /// Positional arguments.
        args: Vec<Expr>,
        /// Keyword arguments in order.
        keywords: Vec<Keyword>,
    },
    /// `value[index]`; `A[i, j]` has a [`ExprKind::Tuple`] index, `A[()]` an empty tuple.
    Subscript {
        /// The subscripted object.
        value: Box<Expr>,
        /// The index expression.
        index: Box<Expr>,
    },
    /// `lower:upper:step` inside a subscript; each part optional.
    Slice {
        /// Lower bound.
        lower: Option<Box<Expr>>,
        /// Upper bound.
        upper: Option<Box<Expr>>,
        /// Step.
        step: Option<Box<Expr>>,
    },
    /// `(a, b)`, `a, b`, `()`.
    Tuple(Vec<Expr>),
    /// `*value`, a positional argument unpacked into several (`T.grid(*A.shape)`).
    Starred(Box<Expr>),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `{k: v, ...}`.
    Dict(Vec<(Expr, Expr)>),
    /// `{a, b}` (non-empty).
    Set(Vec<Expr>),
    /// `-x`, `+x`, `~x`, `not x`.
    UnaryOp {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `a op b` for arithmetic and bitwise operators.
    BinOp {
        /// The operator.
        op: BinOp,
        /// Left operand.
        left: Box<Expr>,
        /// Right operand.
        right: Box<Expr>,
    },
    /// `a and b` / `a or b` (a chain `a and b and c` nests to the left).
    BoolOp {
        /// The operator.
        op: BoolOp,
        /// Left operand.
        left: Box<Expr>,
        /// Right operand.
        right: Box<Expr>,
    },
    /// `a < b`, or a chain `a < b <= c` (`comparisons` has one entry per operator).
    Compare {
        /// The leftmost operand.
        left: Box<Expr>,
        /// The operators with their right operands.
        comparisons: Vec<(CmpOp, Expr)>,
    },
    /// `lambda p1, p2: body` (plain parameter names only: no defaults, `*args`, `**kwargs`).
    Lambda {
        /// The parameter names in order, with their positions.
        params: Vec<(String, Span)>,
        /// The body expression.
        body: Box<Expr>,
    },
    /// `body if test else orelse`.
    IfExp {
        /// The condition.
        test: Box<Expr>,
        /// Value when true.
        body: Box<Expr>,
        /// Value when false.
        orelse: Box<Expr>,
    },
}

/// A keyword argument `name=value` of a call.
#[derive(Clone, Debug, PartialEq)]
pub struct Keyword {
    /// The keyword.
    pub name: String,
    /// The value.
    pub value: Expr,
    /// From the keyword to the end of the value.
    pub span: Span,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Pos,
    /// `~x`
    Invert,
    /// `not x`
    Not,
}

/// Binary arithmetic and bitwise operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `//`
    FloorDiv,
    /// `%`
    Mod,
    /// `**`
    Pow,
    /// `@`
    MatMul,
    /// `<<`
    LShift,
    /// `>>`
    RShift,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
}

impl BinOp {
    /// The operator's source text.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::MatMul => "@",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
        }
    }
}

/// `and` / `or`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `and`
    And,
    /// `or`
    Or,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtE,
    /// `>`
    Gt,
    /// `>=`
    GtE,
    /// `in`
    In,
    /// `not in`
    NotIn,
    /// `is`
    Is,
    /// `is not`
    IsNot,
}

impl CmpOp {
    /// The operator's source text.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
        }
    }
}

impl Expr {
    /// The dotted name of a `Name` / `Attribute` chain (`R.nn.relu` → `"R.nn.relu"`), or `None`
    /// if the expression is anything else.
    pub fn dotted_name(&self) -> Option<String> {
        match &self.kind {
            ExprKind::Name(n) => Some(n.clone()),
            ExprKind::Attribute { value, attr } => {
                let mut base = value.dotted_name()?;
                base.push('.');
                base.push_str(attr);
                Some(base)
            }
            _ => None,
        }
    }

    /// The name if the expression is a plain identifier.
    pub fn as_name(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Name(n) => Some(n),
            _ => None,
        }
    }

    /// The callee's dotted name if this is a call of a dotted name (`T.grid(...)` → `"T.grid"`).
    pub fn call_name(&self) -> Option<String> {
        match &self.kind {
            ExprKind::Call { func, .. } => func.dotted_name(),
            _ => None,
        }
    }

    /// A short description of the expression's form for error messages ("a call", "a name").
    pub fn describe(&self) -> &'static str {
        match &self.kind {
            ExprKind::Name(_) => "a name",
            ExprKind::Int(_) => "an integer",
            ExprKind::Float(_) => "a float",
            ExprKind::Str(_) => "a string",
            ExprKind::Bool(_) => "a boolean",
            ExprKind::None => "`None`",
            ExprKind::Ellipsis => "`...`",
            ExprKind::Attribute { .. } => "an attribute",
            ExprKind::Call { .. } => "a call",
            ExprKind::Subscript { .. } => "a subscript",
            ExprKind::Slice { .. } => "a slice",
            ExprKind::Tuple(_) => "a tuple",
            ExprKind::Starred(_) => "a `*` argument",
            ExprKind::List(_) => "a list",
            ExprKind::Dict(_) => "a dict",
            ExprKind::Set(_) => "a set",
            ExprKind::UnaryOp { .. } => "a unary operation",
            ExprKind::BinOp { .. } => "a binary operation",
            ExprKind::BoolOp { .. } => "a boolean operation",
            ExprKind::Compare { .. } => "a comparison",
            ExprKind::IfExp { .. } => "a conditional expression",
            ExprKind::Lambda { .. } => "a lambda",
        }
    }
}
