//! The recursive-descent parser from tokens to the [`ast`](crate::syntax::ast) tree.
//!
//! Grammar (a subset of Python 3's): decorated `def` and `class`, `if`/`elif`/`else`, `for`,
//! `while`, `with`, `return`, `assert`, `pass`/`break`/`continue`, assignments (plain, chained,
//! annotated, augmented, tuple targets), expression statements; expressions with Python's
//! precedence from lambdas and conditional expressions down to calls, subscripts and
//! attributes.
//! Nesting deeper than [`MAX_DEPTH`] is an error rather than a stack overflow.

use crate::error::ParseError;
use crate::syntax::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::{Token, TokenKind, tokenize};

/// How deeply expressions and blocks may nest before the parser gives up.
pub const MAX_DEPTH: usize = 100;

type PResult<T> = Result<T, ParseError>;

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Parses a whole file, evaluating constant arithmetic between literals as Python does
/// ([`fold`](crate::syntax::fold)).
pub fn parse_module(src: &str) -> PResult<Module> {
    let tokens = tokenize(src)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        depth: 0,
    };
    let mut body = Vec::new();
    while !p.at_eof() {
        p.statement(&mut body)?;
    }
    let mut m = Module { body };
    crate::syntax::fold::fold_module(&mut m);
    Ok(m)
}

/// Parses a single expression (the whole input must be one expression, optionally followed by
/// a newline). Useful for dialect strings such as `R.Shape(["n * 2"])`.
pub fn parse_expr(src: &str) -> PResult<Expr> {
    let tokens = tokenize(src)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        depth: 0,
    };
    let e = p.test_or_tuple()?;
    p.eat_punct_or_newline();
    if !p.at_eof() {
        return Err(p.error_expected("end of expression"));
    }
    let mut e = e;
    crate::syntax::fold::fold_expr(&mut e);
    Ok(e)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        // The token list always ends with `Eof`, and `bump` never moves past it.
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek_kind(&self) -> &TokenKind {
        &self.peek().kind
    }

    fn peek_nth(&self, n: usize) -> &TokenKind {
        &self.tokens[(self.pos + n).min(self.tokens.len() - 1)].kind
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn prev_span(&self) -> Span {
        if self.pos == 0 {
            self.peek().span
        } else {
            self.tokens[self.pos - 1].span
        }
    }

    fn at_eof(&self) -> bool {
        matches!(self.peek_kind(), TokenKind::Eof)
    }

    fn eat_punct_or_newline(&mut self) {
        while matches!(self.peek_kind(), TokenKind::Newline) {
            self.bump();
        }
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek_kind(), TokenKind::Punct(q) if *q == p)
    }

    fn is_keyword(&self, k: &str) -> bool {
        matches!(self.peek_kind(), TokenKind::Name(n) if n == k)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_keyword(&mut self, k: &str) -> bool {
        if self.is_keyword(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn error_expected(&self, what: &str) -> ParseError {
        let t = self.peek();
        ParseError::new(
            t.span,
            format!("expected {what}, found {}", t.kind.describe()),
        )
    }

    fn expect_punct(&mut self, p: &str) -> PResult<Span> {
        if self.is_punct(p) {
            Ok(self.bump().span)
        } else {
            Err(self.error_expected(&format!("`{p}`")))
        }
    }

    fn expect_keyword(&mut self, k: &str) -> PResult<Span> {
        if self.is_keyword(k) {
            Ok(self.bump().span)
        } else {
            Err(self.error_expected(&format!("`{k}`")))
        }
    }

    fn expect_name(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek_kind() {
            TokenKind::Name(n) if !KEYWORDS.contains(&n.as_str()) => {
                let n = n.clone();
                Ok((n, self.bump().span))
            }
            _ => Err(self.error_expected(what)),
        }
    }

    fn expect_newline(&mut self) -> PResult<()> {
        match self.peek_kind() {
            TokenKind::Newline => {
                self.bump();
                Ok(())
            }
            TokenKind::Eof | TokenKind::Dedent => Ok(()),
            _ => Err(self.error_expected("end of line")),
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::new(self.peek().span, "nesting too deep"));
        }
        Ok(())
    }

    fn check_chain(&self, chain: usize) -> PResult<()> {
        if self.depth + chain > MAX_DEPTH {
            return Err(ParseError::new(
                self.peek().span,
                "expression nested too deeply",
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ----- statements -----

    /// Parses one statement (or one line of `;`-separated simple statements) into `out`.
    fn statement(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        self.enter()?;
        let r = self.statement_inner(out);
        self.leave();
        r
    }

    fn statement_inner(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        let start = self.peek().span;
        if self.is_punct("@") {
            out.push(self.decorated()?);
            return Ok(());
        }
        let stmt = match self.peek_kind().clone() {
            TokenKind::Indent => return Err(ParseError::new(start, "unexpected indent")),
            TokenKind::Name(k) => match k.as_str() {
                "def" => self.function_def(Vec::new(), start)?,
                "class" => self.class_def(Vec::new(), start)?,
                "if" => self.if_stmt()?,
                "for" => self.for_stmt()?,
                "while" => self.while_stmt()?,
                "with" => self.with_stmt()?,
                _ => {
                    out.extend(self.simple_statement_line()?);
                    return Ok(());
                }
            },
            _ => {
                out.extend(self.simple_statement_line()?);
                return Ok(());
            }
        };
        out.push(stmt);
        Ok(())
    }

    fn decorated(&mut self) -> PResult<Stmt> {
        let start = self.peek().span;
        let mut decorators = Vec::new();
        while self.eat_punct("@") {
            decorators.push(self.test()?);
            self.expect_newline()?;
        }
        if self.is_keyword("def") {
            self.function_def(decorators, start)
        } else if self.is_keyword("class") {
            self.class_def(decorators, start)
        } else {
            Err(self.error_expected("`def` or `class` after decorators"))
        }
    }

    fn function_def(&mut self, decorators: Vec<Expr>, start: Span) -> PResult<Stmt> {
        self.expect_keyword("def")?;
        let (name, name_span) = self.expect_name("a function name")?;
        self.expect_punct("(")?;
        let mut params = Vec::new();
        while !self.is_punct(")") {
            let (pname, pspan) = self.expect_name("a parameter name")?;
            let annotation = if self.eat_punct(":") {
                Some(self.test()?)
            } else {
                None
            };
            let default = if self.eat_punct("=") {
                Some(self.test()?)
            } else {
                None
            };
            let span = pspan.to(self.prev_span());
            params.push(Param {
                name: pname,
                annotation,
                default,
                span,
            });
            if !self.eat_punct(",") {
                break;
            }
        }
        self.expect_punct(")")?;
        let returns = if self.eat_punct("->") {
            Some(self.test()?)
        } else {
            None
        };
        self.expect_punct(":")?;
        let body = self.block()?;
        let span = start.to(end_of(&body, self.prev_span()));
        Ok(Stmt {
            kind: StmtKind::FunctionDef(FunctionDef {
                name,
                name_span,
                decorators,
                params,
                returns,
                body,
                span,
            }),
            span,
        })
    }

    fn class_def(&mut self, decorators: Vec<Expr>, start: Span) -> PResult<Stmt> {
        self.expect_keyword("class")?;
        let (name, name_span) = self.expect_name("a class name")?;
        let mut bases = Vec::new();
        if self.eat_punct("(") {
            while !self.is_punct(")") {
                bases.push(self.test()?);
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct(")")?;
        }
        self.expect_punct(":")?;
        let body = self.block()?;
        let span = start.to(end_of(&body, self.prev_span()));
        Ok(Stmt {
            kind: StmtKind::ClassDef(ClassDef {
                name,
                name_span,
                decorators,
                bases,
                body,
                span,
            }),
            span,
        })
    }

    /// The block after a `:`: either simple statements on the same line or an indented suite.
    fn block(&mut self) -> PResult<Vec<Stmt>> {
        if !matches!(self.peek_kind(), TokenKind::Newline) {
            return self.simple_statement_line();
        }
        self.bump();
        if !matches!(self.peek_kind(), TokenKind::Indent) {
            return Err(self.error_expected("an indented block"));
        }
        self.bump();
        let mut body = Vec::new();
        loop {
            match self.peek_kind() {
                TokenKind::Dedent => {
                    self.bump();
                    break;
                }
                TokenKind::Eof => break,
                _ => self.statement(&mut body)?,
            }
        }
        Ok(body)
    }

    fn if_stmt(&mut self) -> PResult<Stmt> {
        // `if` or `elif`
        let start = self.bump().span;
        let test = self.test()?;
        self.expect_punct(":")?;
        let body = self.block()?;
        let orelse = if self.is_keyword("elif") {
            vec![self.if_stmt()?]
        } else if self.eat_keyword("else") {
            self.expect_punct(":")?;
            self.block()?
        } else {
            Vec::new()
        };
        let span = start.to(end_of(&orelse, end_of(&body, self.prev_span())));
        Ok(Stmt {
            kind: StmtKind::If { test, body, orelse },
            span,
        })
    }

    fn for_stmt(&mut self) -> PResult<Stmt> {
        let start = self.expect_keyword("for")?;
        let target = self.target_list()?;
        self.expect_keyword("in")?;
        let iter = self.test_or_tuple()?;
        self.expect_punct(":")?;
        let body = self.block()?;
        let orelse = if self.eat_keyword("else") {
            self.expect_punct(":")?;
            self.block()?
        } else {
            Vec::new()
        };
        let span = start.to(end_of(&orelse, end_of(&body, self.prev_span())));
        Ok(Stmt {
            kind: StmtKind::For {
                target,
                iter,
                body,
                orelse,
            },
            span,
        })
    }

    fn while_stmt(&mut self) -> PResult<Stmt> {
        let start = self.expect_keyword("while")?;
        let test = self.test()?;
        self.expect_punct(":")?;
        let body = self.block()?;
        let orelse = if self.eat_keyword("else") {
            self.expect_punct(":")?;
            self.block()?
        } else {
            Vec::new()
        };
        let span = start.to(end_of(&orelse, end_of(&body, self.prev_span())));
        Ok(Stmt {
            kind: StmtKind::While { test, body, orelse },
            span,
        })
    }

    fn with_stmt(&mut self) -> PResult<Stmt> {
        let start = self.expect_keyword("with")?;
        let mut items = Vec::new();
        loop {
            let context = self.test()?;
            let vars = if self.eat_keyword("as") {
                Some(self.target_list()?)
            } else {
                None
            };
            items.push(WithItem { context, vars });
            if !self.eat_punct(",") {
                break;
            }
        }
        self.expect_punct(":")?;
        let body = self.block()?;
        let span = start.to(end_of(&body, self.prev_span()));
        Ok(Stmt {
            kind: StmtKind::With { items, body },
            span,
        })
    }

    /// `for` / `with ... as` targets: one or more bitwise-or-level expressions separated by commas.
    fn target_list(&mut self) -> PResult<Expr> {
        let first = self.binary(5)?;
        if !self.is_punct(",") {
            return Ok(first);
        }
        let start = first.span;
        let mut elts = vec![first];
        while self.eat_punct(",") {
            if self.is_keyword("in") || self.is_punct(":") {
                break;
            }
            elts.push(self.binary(5)?);
        }
        Ok(Expr {
            kind: ExprKind::Tuple(elts),
            span: start.to(self.prev_span()),
        })
    }

    /// Simple statements separated by `;`, up to the end of the line.
    fn simple_statement_line(&mut self) -> PResult<Vec<Stmt>> {
        let mut out = vec![self.small_statement()?];
        while self.eat_punct(";") {
            if matches!(self.peek_kind(), TokenKind::Newline | TokenKind::Eof) {
                break;
            }
            out.push(self.small_statement()?);
        }
        self.expect_newline()?;
        Ok(out)
    }

    fn small_statement(&mut self) -> PResult<Stmt> {
        let start = self.peek().span;
        let kind = match self.peek_kind().clone() {
            TokenKind::Name(k) if k == "pass" => {
                self.bump();
                StmtKind::Pass
            }
            TokenKind::Name(k) if k == "break" => {
                self.bump();
                StmtKind::Break
            }
            TokenKind::Name(k) if k == "continue" => {
                self.bump();
                StmtKind::Continue
            }
            TokenKind::Name(k) if k == "return" => {
                self.bump();
                if matches!(
                    self.peek_kind(),
                    TokenKind::Newline | TokenKind::Eof | TokenKind::Dedent
                ) || self.is_punct(";")
                {
                    StmtKind::Return(None)
                } else {
                    StmtKind::Return(Some(self.test_or_tuple()?))
                }
            }
            TokenKind::Name(k) if k == "assert" => {
                self.bump();
                let test = self.test()?;
                let msg = if self.eat_punct(",") {
                    Some(self.test()?)
                } else {
                    None
                };
                StmtKind::Assert { test, msg }
            }
            TokenKind::Name(k)
                if KEYWORDS.contains(&k.as_str())
                    && !matches!(k.as_str(), "True" | "False" | "None" | "not" | "lambda") =>
            {
                return Err(ParseError::new(
                    start,
                    format!("expected a statement, found `{k}`"),
                ));
            }
            _ => self.expr_statement()?,
        };
        Ok(Stmt {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    fn expr_statement(&mut self) -> PResult<StmtKind> {
        let first = self.test_or_tuple()?;
        if self.eat_punct(":") {
            let annotation = self.test()?;
            let value = if self.eat_punct("=") {
                Some(self.test_or_tuple()?)
            } else {
                None
            };
            check_target(&first)?;
            return Ok(StmtKind::AnnAssign {
                target: first,
                annotation,
                value,
            });
        }
        let aug = match self.peek_kind() {
            TokenKind::Punct(p) => match *p {
                "+=" => Some(BinOp::Add),
                "-=" => Some(BinOp::Sub),
                "*=" => Some(BinOp::Mul),
                "/=" => Some(BinOp::Div),
                "//=" => Some(BinOp::FloorDiv),
                "%=" => Some(BinOp::Mod),
                "**=" => Some(BinOp::Pow),
                "@=" => Some(BinOp::MatMul),
                "<<=" => Some(BinOp::LShift),
                ">>=" => Some(BinOp::RShift),
                "&=" => Some(BinOp::BitAnd),
                "|=" => Some(BinOp::BitOr),
                "^=" => Some(BinOp::BitXor),
                _ => None,
            },
            _ => None,
        };
        if let Some(op) = aug {
            self.bump();
            check_target(&first)?;
            let value = self.test_or_tuple()?;
            return Ok(StmtKind::AugAssign {
                target: first,
                op,
                value,
            });
        }
        if self.is_punct("=") {
            let mut targets = vec![first];
            let mut value;
            loop {
                self.expect_punct("=")?;
                value = self.test_or_tuple()?;
                if !self.is_punct("=") {
                    break;
                }
                targets.push(value);
            }
            for t in &targets {
                check_target(t)?;
            }
            return Ok(StmtKind::Assign { targets, value });
        }
        Ok(StmtKind::Expr(first))
    }

    // ----- expressions -----

    /// `test (, test)* [,]` — a bare tuple where Python allows one.
    fn test_or_tuple(&mut self) -> PResult<Expr> {
        let first = self.test()?;
        if !self.is_punct(",") {
            return Ok(first);
        }
        let start = first.span;
        let mut elts = vec![first];
        while self.eat_punct(",") {
            if !self.starts_expr() {
                break;
            }
            elts.push(self.test()?);
        }
        Ok(Expr {
            kind: ExprKind::Tuple(elts),
            span: start.to(self.prev_span()),
        })
    }

    fn starts_expr(&self) -> bool {
        match self.peek_kind() {
            TokenKind::Name(n) => {
                !KEYWORDS.contains(&n.as_str())
                    || matches!(n.as_str(), "True" | "False" | "None" | "not" | "lambda")
            }
            TokenKind::Int(_) | TokenKind::Float(_) | TokenKind::Str(_) => true,
            TokenKind::Punct(p) => matches!(*p, "(" | "[" | "{" | "-" | "+" | "~" | "..."),
            _ => false,
        }
    }

    /// A full expression: conditional expression or anything below.
    pub(crate) fn test(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.test_inner();
        self.leave();
        r
    }

    fn test_inner(&mut self) -> PResult<Expr> {
        if self.is_keyword("lambda") {
            return self.lambda();
        }
        let body = self.binary(PREC_OR)?;
        if self.eat_keyword("if") {
            let test = self.binary(PREC_OR)?;
            self.expect_keyword("else")?;
            let orelse = self.test()?;
            let span = body.span.to(orelse.span);
            return Ok(Expr {
                kind: ExprKind::IfExp {
                    test: Box::new(test),
                    body: Box::new(body),
                    orelse: Box::new(orelse),
                },
                span,
            });
        }
        Ok(body)
    }

    /// `lambda p1, p2, ...: body`. TVMScript writes index maps this way
    /// (`T.index_map(lambda i, j: (j, i))`); only plain parameter names are accepted.
    fn lambda(&mut self) -> PResult<Expr> {
        let start = self.expect_keyword("lambda")?;
        let mut params: Vec<(String, Span)> = Vec::new();
        while !self.is_punct(":") {
            if self.is_punct("*") || self.is_punct("**") {
                return Err(ParseError::new(
                    self.peek().span,
                    "`*args` / `**kwargs` lambda parameters are not supported",
                ));
            }
            let (name, span) = self.expect_name("a lambda parameter name")?;
            if self.is_punct("=") {
                return Err(ParseError::new(
                    self.peek().span,
                    format!("lambda parameter `{name}` has a default value: not supported"),
                ));
            }
            if params.iter().any(|(p, _)| *p == name) {
                return Err(ParseError::new(
                    span,
                    format!("duplicate lambda parameter `{name}`"),
                ));
            }
            params.push((name, span));
            if !self.eat_punct(",") {
                break;
            }
        }
        self.expect_punct(":")?;
        let body = self.test()?;
        let span = start.to(body.span);
        Ok(Expr {
            kind: ExprKind::Lambda {
                params,
                body: Box::new(body),
            },
            span,
        })
    }

    /// Operators from `or` down to `**`, by precedence climbing: one stack frame per nesting
    /// level instead of one per precedence level, which keeps deep expressions within the
    /// stack.
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut left = self.prefix(min)?;
        let mut chain = 0;
        while let Some((prec, op)) = self.infix_op().filter(|(p, _)| *p >= min) {
            chain += 1;
            self.check_chain(chain)?;
            left = match op {
                Infix::Bool(op) => {
                    self.bump();
                    let right = self.binary(prec + 1)?;
                    bool_op(op, left, right)
                }
                Infix::Cmp(_) => {
                    let mut comparisons = Vec::new();
                    while let Some((_, Infix::Cmp(op))) = self.infix_op() {
                        self.bump();
                        if matches!(op, CmpOp::IsNot | CmpOp::NotIn) {
                            self.bump();
                        }
                        self.check_chain(chain + comparisons.len())?;
                        comparisons.push((op, self.binary(PREC_CMP + 1)?));
                    }
                    let end = comparisons.last().map(|c| c.1.span).unwrap_or(left.span);
                    let span = left.span.to(end);
                    Expr {
                        kind: ExprKind::Compare {
                            left: Box::new(left),
                            comparisons,
                        },
                        span,
                    }
                }
                Infix::Bin(op) => {
                    self.bump();
                    // `**` is right-associative and takes a unary operand on its right.
                    let right = if op == BinOp::Pow {
                        self.enter()?;
                        let r = self.binary(PREC_UNARY);
                        self.leave();
                        r?
                    } else {
                        self.binary(prec + 1)?
                    };
                    let span = left.span.to(right.span);
                    Expr {
                        kind: ExprKind::BinOp {
                            op,
                            left: Box::new(left),
                            right: Box::new(right),
                        },
                        span,
                    }
                }
            };
        }
        Ok(left)
    }

    /// A prefix operator application (`not x`, `-x`) or a primary expression.
    fn prefix(&mut self, min: u8) -> PResult<Expr> {
        let (op, prec) = match self.peek_kind() {
            TokenKind::Name(n) if n == "not" && min <= PREC_NOT => (UnaryOp::Not, PREC_NOT),
            TokenKind::Punct("-") => (UnaryOp::Neg, PREC_UNARY),
            TokenKind::Punct("+") => (UnaryOp::Pos, PREC_UNARY),
            TokenKind::Punct("~") => (UnaryOp::Invert, PREC_UNARY),
            _ => return self.primary(),
        };
        let start = self.bump().span;
        self.enter()?;
        let operand = self.binary(prec);
        self.leave();
        let operand = operand?;
        let span = start.to(operand.span);
        Ok(Expr {
            kind: ExprKind::UnaryOp {
                op,
                operand: Box::new(operand),
            },
            span,
        })
    }

    /// The infix operator at the cursor and its precedence.
    fn infix_op(&self) -> Option<(u8, Infix)> {
        Some(match self.peek_kind() {
            TokenKind::Name(n) => match n.as_str() {
                "or" => (PREC_OR, Infix::Bool(BoolOp::Or)),
                "and" => (PREC_AND, Infix::Bool(BoolOp::And)),
                "in" => (PREC_CMP, Infix::Cmp(CmpOp::In)),
                "is" if matches!(self.peek_nth(1), TokenKind::Name(m) if m == "not") => {
                    (PREC_CMP, Infix::Cmp(CmpOp::IsNot))
                }
                "is" => (PREC_CMP, Infix::Cmp(CmpOp::Is)),
                "not" if matches!(self.peek_nth(1), TokenKind::Name(m) if m == "in") => {
                    (PREC_CMP, Infix::Cmp(CmpOp::NotIn))
                }
                _ => return None,
            },
            TokenKind::Punct(p) => match *p {
                "==" => (PREC_CMP, Infix::Cmp(CmpOp::Eq)),
                "!=" => (PREC_CMP, Infix::Cmp(CmpOp::NotEq)),
                "<" => (PREC_CMP, Infix::Cmp(CmpOp::Lt)),
                "<=" => (PREC_CMP, Infix::Cmp(CmpOp::LtE)),
                ">" => (PREC_CMP, Infix::Cmp(CmpOp::Gt)),
                ">=" => (PREC_CMP, Infix::Cmp(CmpOp::GtE)),
                "|" => (5, Infix::Bin(BinOp::BitOr)),
                "^" => (6, Infix::Bin(BinOp::BitXor)),
                "&" => (7, Infix::Bin(BinOp::BitAnd)),
                "<<" => (8, Infix::Bin(BinOp::LShift)),
                ">>" => (8, Infix::Bin(BinOp::RShift)),
                "+" => (9, Infix::Bin(BinOp::Add)),
                "-" => (9, Infix::Bin(BinOp::Sub)),
                "*" => (10, Infix::Bin(BinOp::Mul)),
                "/" => (10, Infix::Bin(BinOp::Div)),
                "//" => (10, Infix::Bin(BinOp::FloorDiv)),
                "%" => (10, Infix::Bin(BinOp::Mod)),
                "@" => (10, Infix::Bin(BinOp::MatMul)),
                "**" => (12, Infix::Bin(BinOp::Pow)),
                _ => return None,
            },
            _ => return None,
        })
    }

    fn primary(&mut self) -> PResult<Expr> {
        let mut e = self.atom()?;
        let mut chain = 0;
        loop {
            chain += 1;
            self.check_chain(chain)?;
            if self.eat_punct(".") {
                let (attr, _) = self.expect_name_or_keyword("an attribute name")?;
                let span = e.span.to(self.prev_span());
                e = Expr {
                    kind: ExprKind::Attribute {
                        value: Box::new(e),
                        attr,
                    },
                    span,
                };
            } else if self.is_punct("(") {
                self.bump();
                let (args, keywords) = self.call_args()?;
                let span = e.span.to(self.expect_punct(")")?);
                e = Expr {
                    kind: ExprKind::Call {
                        func: Box::new(e),
                        args,
                        keywords,
                    },
                    span,
                };
            } else if self.is_punct("[") {
                let open = self.bump().span;
                let index = self.subscript_list(open)?;
                let span = e.span.to(self.expect_punct("]")?);
                e = Expr {
                    kind: ExprKind::Subscript {
                        value: Box::new(e),
                        index: Box::new(index),
                    },
                    span,
                };
            } else {
                break;
            }
        }
        Ok(e)
    }

    /// Attribute names may be keywords in some dialects' spellings (never in TVMScript), but a
    /// name is required.
    fn expect_name_or_keyword(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek_kind() {
            TokenKind::Name(n) => {
                let n = n.clone();
                Ok((n, self.bump().span))
            }
            _ => Err(self.error_expected(what)),
        }
    }

    fn call_args(&mut self) -> PResult<(Vec<Expr>, Vec<Keyword>)> {
        let mut args = Vec::new();
        let mut keywords: Vec<Keyword> = Vec::new();
        while !self.is_punct(")") {
            let is_keyword = matches!(self.peek_kind(), TokenKind::Name(n) if !KEYWORDS.contains(&n.as_str()))
                && matches!(self.peek_nth(1), TokenKind::Punct("="));
            if is_keyword {
                let (name, span) = self.expect_name("a keyword")?;
                self.expect_punct("=")?;
                let value = self.test()?;
                if keywords.iter().any(|k| k.name == name) {
                    return Err(ParseError::new(
                        span,
                        format!("keyword argument `{name}` repeated"),
                    ));
                }
                let span = span.to(value.span);
                keywords.push(Keyword { name, value, span });
            } else {
                if self.is_punct("**") {
                    return Err(ParseError::new(
                        self.peek().span,
                        "`**kwargs` arguments are not supported",
                    ));
                }
                let value = if self.is_punct("*") {
                    let star = self.bump().span;
                    let inner = self.test()?;
                    Expr {
                        span: star.to(inner.span),
                        kind: ExprKind::Starred(Box::new(inner)),
                    }
                } else {
                    self.test()?
                };
                if let Some(k) = keywords.first() {
                    return Err(ParseError::new(
                        value.span,
                        format!("positional argument after keyword argument `{}`", k.name),
                    ));
                }
                args.push(value);
            }
            if !self.eat_punct(",") {
                break;
            }
        }
        Ok((args, keywords))
    }

    fn subscript_list(&mut self, open: Span) -> PResult<Expr> {
        let first = self.subscript()?;
        if !self.is_punct(",") {
            return Ok(first);
        }
        let mut elts = vec![first];
        while self.eat_punct(",") {
            if self.is_punct("]") {
                break;
            }
            elts.push(self.subscript()?);
        }
        let start = elts.first().map(|e| e.span).unwrap_or(open);
        Ok(Expr {
            kind: ExprKind::Tuple(elts),
            span: start.to(self.prev_span()),
        })
    }

    fn subscript(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        let lower = if self.is_punct(":") {
            None
        } else {
            let e = self.test()?;
            if !self.is_punct(":") {
                return Ok(e);
            }
            Some(Box::new(e))
        };
        self.expect_punct(":")?;
        let bound = |p: &mut Self| -> PResult<Option<Box<Expr>>> {
            if p.is_punct(":") || p.is_punct(",") || p.is_punct("]") {
                Ok(None)
            } else {
                Ok(Some(Box::new(p.test()?)))
            }
        };
        let upper = bound(self)?;
        let step = if self.eat_punct(":") {
            bound(self)?
        } else {
            None
        };
        Ok(Expr {
            kind: ExprKind::Slice { lower, upper, step },
            span: start.to(self.prev_span()),
        })
    }

    fn atom(&mut self) -> PResult<Expr> {
        let tok = self.peek().clone();
        let span = tok.span;
        let kind = match tok.kind {
            TokenKind::Name(n) => match n.as_str() {
                "True" => ExprKind::Bool(true),
                "False" => ExprKind::Bool(false),
                "None" => ExprKind::None,
                _ if KEYWORDS.contains(&n.as_str()) => {
                    return Err(self.error_expected("an expression"));
                }
                _ => ExprKind::Name(n),
            },
            TokenKind::Int(v) => ExprKind::Int(v),
            TokenKind::Float(v) => ExprKind::Float(v),
            TokenKind::Str(s) => {
                self.bump();
                let mut s = s;
                let mut span = span;
                while let TokenKind::Str(more) = self.peek_kind() {
                    s.push_str(more);
                    span = span.to(self.bump().span);
                }
                return Ok(Expr {
                    kind: ExprKind::Str(s),
                    span,
                });
            }
            TokenKind::Punct("...") => ExprKind::Ellipsis,
            TokenKind::Punct("(") => return self.paren(),
            TokenKind::Punct("[") => {
                self.bump();
                let elts = self.expr_list("]")?;
                let end = self.expect_punct("]")?;
                return Ok(Expr {
                    kind: ExprKind::List(elts),
                    span: span.to(end),
                });
            }
            TokenKind::Punct("{") => return self.brace(),
            _ => return Err(self.error_expected("an expression")),
        };
        self.bump();
        Ok(Expr { kind, span })
    }

    fn expr_list(&mut self, close: &str) -> PResult<Vec<Expr>> {
        let mut elts = Vec::new();
        while !self.is_punct(close) {
            elts.push(self.test()?);
            if !self.eat_punct(",") {
                break;
            }
        }
        Ok(elts)
    }

    fn paren(&mut self) -> PResult<Expr> {
        let open = self.expect_punct("(")?;
        if self.is_punct(")") {
            let end = self.bump().span;
            return Ok(Expr {
                kind: ExprKind::Tuple(Vec::new()),
                span: open.to(end),
            });
        }
        let first = self.test()?;
        if self.is_punct(")") {
            let end = self.bump().span;
            return Ok(Expr {
                kind: first.kind,
                span: open.to(end),
            });
        }
        let mut elts = vec![first];
        while self.eat_punct(",") {
            if self.is_punct(")") {
                break;
            }
            elts.push(self.test()?);
        }
        let end = self.expect_punct(")")?;
        Ok(Expr {
            kind: ExprKind::Tuple(elts),
            span: open.to(end),
        })
    }

    fn brace(&mut self) -> PResult<Expr> {
        let open = self.expect_punct("{")?;
        if self.is_punct("}") {
            let end = self.bump().span;
            return Ok(Expr {
                kind: ExprKind::Dict(Vec::new()),
                span: open.to(end),
            });
        }
        let first = self.test()?;
        if self.eat_punct(":") {
            let value = self.test()?;
            let mut items = vec![(first, value)];
            while self.eat_punct(",") {
                if self.is_punct("}") {
                    break;
                }
                let k = self.test()?;
                self.expect_punct(":")?;
                let v = self.test()?;
                items.push((k, v));
            }
            let end = self.expect_punct("}")?;
            return Ok(Expr {
                kind: ExprKind::Dict(items),
                span: open.to(end),
            });
        }
        let mut elts = vec![first];
        while self.eat_punct(",") {
            if self.is_punct("}") {
                break;
            }
            elts.push(self.test()?);
        }
        let end = self.expect_punct("}")?;
        Ok(Expr {
            kind: ExprKind::Set(elts),
            span: open.to(end),
        })
    }
}

/// The end of a block: its last statement's span, or `fallback` for an empty block.
fn end_of(body: &[Stmt], fallback: Span) -> Span {
    body.last().map(|s| s.span).unwrap_or(fallback)
}

const PREC_OR: u8 = 1;
const PREC_AND: u8 = 2;
const PREC_NOT: u8 = 3;
const PREC_CMP: u8 = 4;
const PREC_UNARY: u8 = 11;

/// An infix operator class.
#[derive(Clone, Copy)]
enum Infix {
    Bool(BoolOp),
    Cmp(CmpOp),
    Bin(BinOp),
}

fn bool_op(op: BoolOp, left: Expr, right: Expr) -> Expr {
    let span = left.span.to(right.span);
    Expr {
        kind: ExprKind::BoolOp {
            op,
            left: Box::new(left),
            right: Box::new(right),
        },
        span,
    }
}

/// Assignment targets must be names, attributes, subscripts, or tuples/lists of those.
fn check_target(e: &Expr) -> PResult<()> {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => Ok(()),
        ExprKind::Tuple(elts) | ExprKind::List(elts) if !elts.is_empty() => {
            elts.iter().try_for_each(check_target)
        }
        _ => Err(ParseError::new(
            e.span,
            format!("cannot assign to {}", e.describe()),
        )),
    }
}
