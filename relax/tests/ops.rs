//! Data-driven struct-info inference tests: each line of `tests/ops/cases.txt` is an operator
//! call with its arguments' struct info and attributes, and the expected struct info or error.
//!
//! ```text
//! R.add (n, 1) float32 ; (1, 4) float32 => (n, 4) float32
//! R.sum (2, 3, 4) float32 | axis=[1] keepdims=False => (2, 4) float32
//! R.matmul (2, 3) float32 ; shape(2, 3) => error: argument 1 (x2) must be a tensor
//! ```
//!
//! Struct info notation: `(d, ...) dtype` a tensor (`?` for an unknown dtype), `tensor
//! ndim=k dtype` a tensor of unknown shape, `shape(d, ...)` / `shape ndim=k`, `prim dtype` or
//! `prim dtype=value`, `tuple(a, b)`, `any`. Dimensions are integers, names (symbolic `int64`
//! variables shared by the whole line) and `+ - * //` of those, left to right.

use std::collections::HashMap;

use relaxjit_relax::normalize::Normalizer;
use relaxjit_relax::op;
use relaxjit_relax::struct_info_ops::{describe, struct_info_provably_equal};
use relaxjit_relax::{AttrValue, Attrs, Callee, Expr, StructInfo, Var};
use tir::{BinaryOp, DataType, PrimExpr};

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Int(i64),
    Float(f64),
    Str(String),
    Punct(String),
}

fn lex(s: &str) -> Vec<Tok> {
    let cs: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' || c == '?' {
            let st = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_' || cs[i] == '?') {
                i += 1;
            }
            out.push(Tok::Ident(cs[st..i].iter().collect()));
        } else if c.is_ascii_digit()
            || (c == '-'
                && i + 1 < cs.len()
                && cs[i + 1].is_ascii_digit()
                && prev_allows_sign(&out))
        {
            let st = i;
            i += 1;
            while i < cs.len() && (cs[i].is_ascii_digit() || cs[i] == '.' || cs[i] == 'e') {
                i += 1;
            }
            let t: String = cs[st..i].iter().collect();
            out.push(match t.parse::<i64>() {
                Ok(v) => Tok::Int(v),
                Err(_) => Tok::Float(t.parse().expect("number")),
            });
        } else if c == '"' {
            let st = i + 1;
            i += 1;
            while i < cs.len() && cs[i] != '"' {
                i += 1;
            }
            out.push(Tok::Str(cs[st..i].iter().collect()));
            i += 1;
        } else if c == '/' && i + 1 < cs.len() && cs[i + 1] == '/' {
            out.push(Tok::Punct("//".into()));
            i += 2;
        } else {
            out.push(Tok::Punct(c.to_string()));
            i += 1;
        }
    }
    out
}

fn prev_allows_sign(out: &[Tok]) -> bool {
    match out.last() {
        Some(Tok::Int(_)) | Some(Tok::Float(_)) | Some(Tok::Ident(_)) => false,
        Some(Tok::Punct(p)) => p != ")",
        _ => true,
    }
}

struct P<'a> {
    toks: Vec<Tok>,
    pos: usize,
    syms: &'a mut HashMap<String, tir::Var>,
}

impl P<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn next(&mut self) -> Tok {
        let t = self.toks.get(self.pos).cloned().expect("unexpected end");
        self.pos += 1;
        t
    }
    fn punct(&mut self, p: &str) {
        match self.next() {
            Tok::Punct(q) if q == p => {}
            t => panic!("expected `{p}`, got {t:?}"),
        }
    }
    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if q == p)
    }
    fn dtype(&mut self) -> Option<DataType> {
        match self.next() {
            Tok::Ident(s) if s == "?" => None,
            Tok::Ident(s) => Some(DataType::parse(&s).expect("dtype")),
            t => panic!("expected a dtype, got {t:?}"),
        }
    }
    fn atom(&mut self) -> PrimExpr {
        match self.next() {
            Tok::Int(v) => PrimExpr::i64(v),
            Tok::Float(v) => PrimExpr::float(DataType::FLOAT32, v),
            Tok::Ident(s) => {
                let v = self
                    .syms
                    .entry(s.clone())
                    .or_insert_with(|| tir::Var::new(s, DataType::INT64));
                PrimExpr::from(v.clone())
            }
            t => panic!("expected a dimension, got {t:?}"),
        }
    }
    fn dim(&mut self) -> PrimExpr {
        let mut e = self.atom();
        loop {
            let op = match self.peek() {
                Some(Tok::Punct(p)) if p == "+" => BinaryOp::Add,
                Some(Tok::Punct(p)) if p == "-" => BinaryOp::Sub,
                Some(Tok::Punct(p)) if p == "*" => BinaryOp::Mul,
                Some(Tok::Punct(p)) if p == "//" => BinaryOp::FloorDiv,
                _ => return e,
            };
            self.pos += 1;
            let r = self.atom();
            e = PrimExpr::binary(op, e, r);
        }
    }
    fn dims(&mut self) -> Vec<PrimExpr> {
        self.punct("(");
        let mut out = Vec::new();
        while !self.is_punct(")") {
            out.push(self.dim());
            if self.is_punct(",") {
                self.pos += 1;
            }
        }
        self.punct(")");
        out
    }
    fn ndim(&mut self) -> i64 {
        match self.next() {
            Tok::Ident(s) if s == "ndim" => {}
            t => panic!("expected ndim=, got {t:?}"),
        }
        self.punct("=");
        match self.next() {
            Tok::Int(v) => v,
            t => panic!("expected an int, got {t:?}"),
        }
    }
    fn si(&mut self) -> StructInfo {
        if self.is_punct("(") {
            let dims = self.dims();
            let dtype = self.dtype();
            let ndim = dims.len() as i64;
            return StructInfo::Tensor {
                shape: Some(dims),
                dtype,
                ndim,
                vdevice: None,
            };
        }
        match self.next() {
            Tok::Ident(k) if k == "tensor" => {
                let ndim = self.ndim();
                StructInfo::tensor_ndim(ndim, self.dtype())
            }
            Tok::Ident(k) if k == "shape" => {
                if self.is_punct("(") {
                    StructInfo::shape(self.dims())
                } else {
                    StructInfo::Shape {
                        values: None,
                        ndim: self.ndim(),
                    }
                }
            }
            Tok::Ident(k) if k == "prim" => {
                let dtype = self.dtype().expect("prim dtype");
                let value = if self.is_punct("=") {
                    self.pos += 1;
                    let v = self.dim();
                    Some(match v.as_int() {
                        Some(i) if dtype != DataType::INT64 => {
                            if dtype.is_float() {
                                PrimExpr::float(dtype, i as f64)
                            } else {
                                PrimExpr::int(dtype, i)
                            }
                        }
                        _ => match v.kind() {
                            tir::ExprKind::FloatImm { value, .. } => PrimExpr::float(dtype, *value),
                            _ => v,
                        },
                    })
                } else {
                    None
                };
                StructInfo::Prim { dtype, value }
            }
            Tok::Ident(k) if k == "tuple" => {
                self.punct("(");
                let mut out = Vec::new();
                while !self.is_punct(")") {
                    out.push(self.si());
                    if self.is_punct(",") {
                        self.pos += 1;
                    }
                }
                self.punct(")");
                StructInfo::Tuple(out)
            }
            Tok::Ident(k) if k == "any" => StructInfo::Any,
            t => panic!("expected a struct info, got {t:?}"),
        }
    }
    fn attr_value(&mut self) -> AttrValue {
        match self.next() {
            Tok::Int(v) => AttrValue::Int(v),
            Tok::Float(v) => AttrValue::Float(v),
            Tok::Str(s) => AttrValue::Str(s),
            Tok::Ident(s) if s == "True" => AttrValue::Bool(true),
            Tok::Ident(s) if s == "False" => AttrValue::Bool(false),
            Tok::Ident(s) if s == "None" => AttrValue::None,
            Tok::Punct(p) if p == "[" => {
                let mut items = Vec::new();
                while !self.is_punct("]") {
                    items.push(self.attr_value());
                    if self.is_punct(",") {
                        self.pos += 1;
                    }
                }
                self.punct("]");
                AttrValue::List(items)
            }
            t => panic!("expected an attribute value, got {t:?}"),
        }
    }
    fn attrs(&mut self) -> Attrs {
        let mut a = Attrs::new();
        while let Some(Tok::Ident(k)) = self.peek().cloned() {
            self.pos += 1;
            self.punct("=");
            let v = self.attr_value();
            a.set(&k, v);
            if self.is_punct(",") {
                self.pos += 1;
            }
        }
        a
    }
}

fn parse_si(s: &str, syms: &mut HashMap<String, tir::Var>) -> StructInfo {
    let mut p = P {
        toks: lex(s),
        pos: 0,
        syms,
    };
    let si = p.si();
    assert!(p.peek().is_none(), "trailing tokens in `{s}`");
    si
}

/// Runs one case line; returns the actual outcome rendered like an expectation.
fn run(line: &str) -> (String, Result<(), String>) {
    let (lhs, expected) = line.split_once("=>").expect("`=>` in case");
    let expected = expected.trim();
    let (call_part, attrs_part) = match lhs.split_once(" | ") {
        Some((c, a)) => (c, Some(a)),
        None => (lhs, None),
    };
    let call_part = call_part.trim();
    let (name, args_text) = call_part.split_once(' ').unwrap_or((call_part, ""));
    let def = op::lookup_script(name).unwrap_or_else(|| panic!("unknown op {name}"));
    let mut syms = HashMap::new();
    let args: Vec<Expr> = args_text
        .split(" ; ")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .enumerate()
        .map(|(i, s)| Var::new(format!("a{i}"), parse_si(s, &mut syms)).into())
        .collect();
    let mut attrs = match attrs_part {
        Some(a) => {
            let mut p = P {
                toks: lex(a),
                pos: 0,
                syms: &mut syms,
            };
            p.attrs()
        }
        None => Attrs::new(),
    };
    let mut args = args;
    op::canonicalize(def, &mut args, &mut attrs).expect("canonicalize");
    let call = Expr::call(Callee::Op(def.name.into()), args, attrs, Vec::new());
    let got = Normalizer::empty().infer(&call);
    let rendered = match &got {
        Ok(si) => describe(si),
        Err(e) => format!("error: {e}"),
    };
    let verdict = if let Some(msg) = expected.strip_prefix("error:") {
        match &got {
            Err(e) if e.to_string().contains(msg.trim()) => Ok(()),
            Err(e) => Err(format!(
                "expected error containing `{}`, got `{e}`",
                msg.trim()
            )),
            Ok(si) => Err(format!("expected an error, got {}", describe(si))),
        }
    } else {
        let want = parse_si(expected, &mut syms);
        match &got {
            Ok(si) if struct_info_provably_equal(si, &want) => Ok(()),
            Ok(si) => Err(format!(
                "expected {}, got {}",
                describe(&want),
                describe(si)
            )),
            Err(e) => Err(format!("expected {}, got error `{e}`", describe(&want))),
        }
    };
    (rendered, verdict)
}

#[test]
fn op_struct_info_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ops/cases.txt");
    let text = std::fs::read_to_string(path).expect("cases.txt");
    let mut failures = Vec::new();
    let mut count = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        count += 1;
        let (got, verdict) = run(line);
        if let Err(msg) = verdict {
            failures.push(format!(
                "line {}: {line}\n    {msg}\n    (got: {got})",
                i + 1
            ));
        }
    }
    assert!(count > 100, "only {count} cases");
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_op_has_a_case() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ops/cases.txt");
    let text = std::fs::read_to_string(path).expect("cases.txt");
    let covered: std::collections::HashSet<&str> = text
        .lines()
        .filter(|l| l.starts_with("R."))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let missing: Vec<&str> = op::all()
        .iter()
        .map(|d| d.script_name)
        .filter(|n| !covered.contains(n))
        .collect();
    assert!(missing.is_empty(), "operators without a case: {missing:?}");
}

#[test]
fn malformed_calls_give_errors_not_panics() {
    // Every operator with every small combination of odd arguments: never a panic.
    let odd = [
        StructInfo::Any,
        StructInfo::void(),
        StructInfo::shape(vec![PrimExpr::i64(2)]),
        StructInfo::prim(DataType::INT64),
        StructInfo::tensor_ndim(-1, None),
        StructInfo::tensor(vec![], DataType::BOOL),
        StructInfo::tensor(vec![PrimExpr::i64(0), PrimExpr::i64(3)], DataType::INT32),
        StructInfo::Tuple(vec![StructInfo::tensor_ndim(2, Some(DataType::FLOAT32))]),
    ];
    let weird_attrs = [
        Attrs::new(),
        Attrs::new()
            .with("axis", AttrValue::Int(99))
            .with("axes", AttrValue::List(vec![AttrValue::Int(-7)]))
            .with("k", AttrValue::Int(-3))
            .with("dtype", AttrValue::Str("bogus".into()))
            .with("indices_or_sections", AttrValue::Int(0))
            .with("pad_width", AttrValue::List(vec![]))
            .with("pool_size", AttrValue::Str("x".into())),
    ];
    for def in op::all() {
        for n in 0..=3 {
            for a in &odd {
                for attrs in &weird_attrs {
                    let args: Vec<Expr> = (0..n)
                        .map(|i| Var::new(format!("a{i}"), a.clone()).into())
                        .collect();
                    let call = Expr::call(
                        Callee::Op(def.name.into()),
                        args,
                        attrs.clone(),
                        vec![a.clone()],
                    );
                    let _ = Normalizer::empty().infer(&call);
                }
            }
        }
    }
}
