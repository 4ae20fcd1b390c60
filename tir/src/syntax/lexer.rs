//! The tokenizer for the Python subset: names, numbers, strings, operators, and the
//! `Newline` / `Indent` / `Dedent` tokens that carry Python's block structure.
//!
//! As in CPython's tokenizer, newlines inside `()`, `[]` and `{}` are ignored, blank and
//! comment-only lines produce no tokens, a backslash at the end of a line joins it with the next,
//! and every change of indentation at the start of a logical line becomes `Indent` or one or more
//! `Dedent`s.

use crate::error::ParseError;
use crate::syntax::Span;

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// An identifier or keyword (`def`, `T`, `and`, `True`, ...). Keywords are told apart by the
    /// parser.
    Name(String),
    /// An integer literal (decimal, `0x`, `0o`, `0b`; `_` separators allowed).
    Int(i128),
    /// A floating-point literal (`1.0`, `1e-05`, `.5`).
    Float(f64),
    /// A string literal, escapes already decoded. Adjacent literals are joined by the parser.
    Str(String),
    /// An operator or delimiter, e.g. `"("`, `"**"`, `"->"`, `"//="`.
    Punct(&'static str),
    /// End of a logical line.
    Newline,
    /// The indentation grew at the start of this line.
    Indent,
    /// The indentation shrank back to an enclosing level.
    Dedent,
    /// End of input.
    Eof,
}

impl TokenKind {
    /// How the token is named in "expected X, found Y" messages.
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Name(n) => format!("`{n}`"),
            TokenKind::Int(v) => format!("integer `{v}`"),
            TokenKind::Float(v) => format!("number `{v}`"),
            TokenKind::Str(_) => "a string".to_string(),
            TokenKind::Punct(p) => format!("`{p}`"),
            TokenKind::Newline => "end of line".to_string(),
            TokenKind::Indent => "an indented block".to_string(),
            TokenKind::Dedent => "the end of the indented block".to_string(),
            TokenKind::Eof => "end of input".to_string(),
        }
    }
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub kind: TokenKind,
    /// Its position. `Dedent` and `Eof` tokens have an empty span at the next token.
    pub span: Span,
}

/// Operators and delimiters, longest first so that the first match is the longest.
const PUNCTS: &[&str] = &[
    "**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "==", "!=", "<=", ">=", "<<", ">>", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":=", "(", ")", "[", "]", "{", "}", ",", ":",
    ".", ";", "@", "=", "+", "-", "*", "/", "%", "<", ">", "&", "|", "^", "~",
];

/// Splits `src` into tokens, ending with `Eof`.
pub fn tokenize(src: &str) -> Result<Vec<Token>, ParseError> {
    Lexer::new(src).run()
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    column: u32,
    tokens: Vec<Token>,
    indents: Vec<u32>,
    depth: Vec<(char, Span)>,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Self {
        Lexer {
            src,
            pos: 0,
            line: 1,
            column: 1,
            tokens: Vec::new(),
            indents: vec![0],
            depth: Vec::new(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.src[self.pos..].chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn here(&self) -> Span {
        Span {
            offset: self.pos,
            end: self.pos,
            line: self.line,
            column: self.column,
        }
    }

    fn span_from(&self, start: Span) -> Span {
        Span {
            end: self.pos,
            ..start
        }
    }

    fn push(&mut self, kind: TokenKind, span: Span) {
        self.tokens.push(Token { kind, span });
    }

    fn run(mut self) -> Result<Vec<Token>, ParseError> {
        let mut at_line_start = true;
        loop {
            if at_line_start && self.depth.is_empty() {
                at_line_start = false;
                if !self.line_start()? {
                    break;
                }
                continue;
            }
            let Some(c) = self.peek() else { break };
            match c {
                ' ' | '\t' | '\x0c' | '\r' => {
                    self.bump();
                }
                '#' => self.skip_comment(),
                '\\' if matches!(self.peek_at(1), Some('\n'))
                    || (self.peek_at(1) == Some('\r') && self.peek_at(2) == Some('\n')) =>
                {
                    self.bump();
                    if self.peek() == Some('\r') {
                        self.bump();
                    }
                    self.bump();
                }
                '\n' => {
                    let start = self.here();
                    self.bump();
                    if self.depth.is_empty() {
                        let needs_newline = !matches!(
                            self.tokens.last().map(|t| &t.kind),
                            None | Some(TokenKind::Newline)
                                | Some(TokenKind::Indent)
                                | Some(TokenKind::Dedent)
                        );
                        if needs_newline {
                            self.push(
                                TokenKind::Newline,
                                Span {
                                    end: start.offset + 1,
                                    ..start
                                },
                            );
                        }
                        at_line_start = true;
                    }
                }
                _ => self.token(c)?,
            }
        }
        if let Some(&(open, span)) = self.depth.last() {
            return Err(ParseError::new(span, format!("`{open}` was never closed")));
        }
        let end = self.here();
        if !matches!(
            self.tokens.last().map(|t| &t.kind),
            None | Some(TokenKind::Newline) | Some(TokenKind::Dedent)
        ) {
            self.push(TokenKind::Newline, end);
        }
        while self.indents.len() > 1 {
            self.indents.pop();
            self.push(TokenKind::Dedent, end);
        }
        self.push(TokenKind::Eof, end);
        Ok(self.tokens)
    }

    /// Handles the indentation of a new line. Returns false at end of input.
    fn line_start(&mut self) -> Result<bool, ParseError> {
        loop {
            let mut width = 0u32;
            while let Some(c) = self.peek() {
                match c {
                    ' ' => width += 1,
                    '\t' => width = (width / 8 + 1) * 8,
                    '\x0c' => width = 0,
                    _ => break,
                }
                self.bump();
            }
            match self.peek() {
                None => return Ok(false),
                Some('#') => {
                    self.skip_comment();
                    self.bump_newline();
                }
                Some('\n') | Some('\r') => self.bump_newline(),
                Some(_) => {
                    let here = self.here();
                    let current = self.indents.last().copied().unwrap_or(0);
                    if width > current {
                        self.indents.push(width);
                        self.push(TokenKind::Indent, here);
                    } else if width < current {
                        while self.indents.last().copied().unwrap_or(0) > width {
                            self.indents.pop();
                            self.push(TokenKind::Dedent, here);
                        }
                        if self.indents.last().copied().unwrap_or(0) != width {
                            return Err(ParseError::new(
                                here,
                                "unindent does not match any outer indentation level",
                            ));
                        }
                    }
                    return Ok(true);
                }
            }
        }
    }

    fn bump_newline(&mut self) {
        if self.peek() == Some('\r') {
            self.bump();
        }
        if self.peek() == Some('\n') {
            self.bump();
        }
    }

    fn skip_comment(&mut self) {
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            self.bump();
        }
    }

    fn token(&mut self, c: char) -> Result<(), ParseError> {
        let start = self.here();
        if c.is_alphabetic() || c == '_' {
            // String prefixes: r"..." / R'...'.
            if (c == 'r' || c == 'R') && matches!(self.peek_at(1), Some('"') | Some('\'')) {
                self.bump();
                return self.string(start, true);
            }
            while let Some(c) = self.peek() {
                if c.is_alphanumeric() || c == '_' {
                    self.bump();
                } else {
                    break;
                }
            }
            let name = self.src[start.offset..self.pos].to_string();
            self.push(TokenKind::Name(name), self.span_from(start));
            return Ok(());
        }
        if c.is_ascii_digit() || (c == '.' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit())) {
            return self.number(start);
        }
        if c == '"' || c == '\'' {
            return self.string(start, false);
        }
        let rest = &self.src[self.pos..];
        let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) else {
            return Err(ParseError::new(
                start,
                format!("unexpected character {c:?}"),
            ));
        };
        for _ in 0..p.len() {
            self.bump();
        }
        let span = self.span_from(start);
        match *p {
            "(" | "[" | "{" => self.depth.push((c, span)),
            ")" | "]" | "}" => {
                let want = match *p {
                    ")" => '(',
                    "]" => '[',
                    _ => '{',
                };
                match self.depth.pop() {
                    Some((open, _)) if open == want => {}
                    Some((open, _)) => {
                        return Err(ParseError::new(
                            span,
                            format!("closing `{p}` does not match opening `{open}`"),
                        ));
                    }
                    None => {
                        return Err(ParseError::new(span, format!("unmatched `{p}`")));
                    }
                }
            }
            _ => {}
        }
        self.push(TokenKind::Punct(p), span);
        Ok(())
    }

    fn number(&mut self, start: Span) -> Result<(), ParseError> {
        let radix = if self.peek() == Some('0') {
            match self.peek_at(1) {
                Some('x') | Some('X') => 16,
                Some('o') | Some('O') => 8,
                Some('b') | Some('B') => 2,
                _ => 10,
            }
        } else {
            10
        };
        if radix != 10 {
            self.bump();
            self.bump();
            let digits_start = self.pos;
            while let Some(c) = self.peek() {
                if c.is_ascii_alphanumeric() || c == '_' {
                    self.bump();
                } else {
                    break;
                }
            }
            let digits: String = self.src[digits_start..self.pos]
                .chars()
                .filter(|&c| c != '_')
                .collect();
            let span = self.span_from(start);
            let value = i128::from_str_radix(&digits, radix)
                .map_err(|_| ParseError::new(span, "invalid integer literal"))?;
            self.push(TokenKind::Int(value), span);
            return Ok(());
        }
        let mut is_float = false;
        let digits = |lx: &mut Self| {
            while let Some(c) = lx.peek() {
                if c.is_ascii_digit() || c == '_' {
                    lx.bump();
                } else {
                    break;
                }
            }
        };
        digits(self);
        if self.peek() == Some('.') {
            is_float = true;
            self.bump();
            digits(self);
        }
        if matches!(self.peek(), Some('e') | Some('E')) {
            let sign = matches!(self.peek_at(1), Some('+') | Some('-'));
            let digit_at = if sign { 2 } else { 1 };
            if self.peek_at(digit_at).is_some_and(|c| c.is_ascii_digit()) {
                is_float = true;
                for _ in 0..digit_at {
                    self.bump();
                }
                digits(self);
            }
        }
        let span = self.span_from(start);
        if self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return Err(ParseError::new(span, "invalid number literal"));
        }
        let text: String = self.src[start.offset..self.pos]
            .chars()
            .filter(|&c| c != '_')
            .collect();
        let kind = if is_float {
            TokenKind::Float(
                text.parse::<f64>()
                    .map_err(|_| ParseError::new(span, "invalid float literal"))?,
            )
        } else {
            TokenKind::Int(
                text.parse::<i128>()
                    .map_err(|_| ParseError::new(span, "integer literal too large"))?,
            )
        };
        self.push(kind, span);
        Ok(())
    }

    fn string(&mut self, start: Span, raw: bool) -> Result<(), ParseError> {
        let Some(quote) = self.bump() else {
            return Err(ParseError::new(start, "expected a string"));
        };
        let triple = self.peek() == Some(quote) && self.peek_at(1) == Some(quote);
        if triple {
            self.bump();
            self.bump();
        }
        let mut value = String::new();
        loop {
            let here = self.here();
            let Some(c) = self.bump() else {
                return Err(ParseError::new(start, "unterminated string literal"));
            };
            if c == quote {
                if !triple {
                    break;
                }
                if self.peek() == Some(quote) && self.peek_at(1) == Some(quote) {
                    self.bump();
                    self.bump();
                    break;
                }
                value.push(c);
                continue;
            }
            if c == '\n' && !triple {
                return Err(ParseError::new(start, "unterminated string literal"));
            }
            if c != '\\' {
                value.push(c);
                continue;
            }
            let Some(e) = self.bump() else {
                return Err(ParseError::new(start, "unterminated string literal"));
            };
            if raw {
                value.push('\\');
                value.push(e);
                continue;
            }
            match e {
                '\n' => {}
                '\\' => value.push('\\'),
                '\'' => value.push('\''),
                '"' => value.push('"'),
                'n' => value.push('\n'),
                't' => value.push('\t'),
                'r' => value.push('\r'),
                '0' => value.push('\0'),
                'a' => value.push('\x07'),
                'b' => value.push('\x08'),
                'f' => value.push('\x0c'),
                'v' => value.push('\x0b'),
                'x' | 'u' | 'U' => {
                    let n = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let mut code = 0u32;
                    for _ in 0..n {
                        let d = self.peek().and_then(|c| c.to_digit(16)).ok_or_else(|| {
                            ParseError::new(here, format!("invalid `\\{e}` escape"))
                        })?;
                        self.bump();
                        code = code * 16 + d;
                    }
                    let ch = char::from_u32(code).ok_or_else(|| {
                        ParseError::new(here, "escape is not a valid Unicode character")
                    })?;
                    value.push(ch);
                }
                other => {
                    value.push('\\');
                    value.push(other);
                }
            }
        }
        self.push(TokenKind::Str(value), self.span_from(start));
        Ok(())
    }
}
