//! The `R.` / `I.` dialect reader: a parsed `@I.ir_module` class to an [`IRModule`].
//!
//! Scoping follows TVM's parser: each global Relax function has its own symbolic variables
//! (module-level `n = TypeVar("n")` names, in-body `n = T.int64()` declarations and names first
//! met in string dimensions `"n * 2"`), shared by inner functions; Relax variables are lexically
//! scoped (an `if` branch and a dataflow block open a scope; `R.output` re-exports dataflow
//! variables as ordinary ones). Errors carry the position of the offending syntax.

use std::collections::{BTreeSet, HashMap, HashSet};

use tir::ParseError;
use tir::syntax::Span;
use tir::syntax::ast::{self, ExprKind as A, StmtKind as S};
use tir::{DataType, PrimExpr};

use crate::ir::*;
use crate::normalize::{Normalizer, is_leaf_or_tuple, normalize_operand, normalize_operands};
use crate::op::{OpParam, ParamKind};
use crate::script::ReadOptions;
use crate::script::builtins;
use crate::script::builtins::OpView;
use crate::struct_info_ops::{is_base_of, substitute_struct_info, visit_symbolic_vars};
use crate::{Error, Result};

type PResult<T> = std::result::Result<T, ParseError>;

fn err<T>(span: Span, msg: impl Into<String>) -> PResult<T> {
    Err(ParseError::new(span, msg))
}

/// Parses a TVMScript module without a metadata table.
pub fn parse_module(src: &str) -> Result<IRModule> {
    parse_module_with(src, &ReadOptions::default())
}

/// Parses a TVMScript module; `options.metadata` resolves `metadata["ir.GenericConst"][i]`.
pub fn parse_module_with(src: &str, options: &ReadOptions) -> Result<IRModule> {
    read(src, options).map_err(|e| Error::Parse(e.render(src)))
}

/// The modules a TVMScript file may import: TVM's own, numpy (for `R.const` arrays) and what
/// TVM's printer itself names (`typing.TypeVar`, `__future__`).
const KNOWN_IMPORTS: [&str; 4] = ["tvm", "numpy", "typing", "__future__"];

/// `src` with its top-level `import` / `from ... import` lines blanked (line numbers kept),
/// so that a file a TVM user runs as Python reads as TVMScript. Imports of other modules are
/// an error naming the line: nothing from them can be used in TVMScript.
fn blank_imports(src: &str) -> PResult<std::borrow::Cow<'_, str>> {
    let is_import = |l: &str| l.starts_with("import ") || l.starts_with("from ");
    if !src.lines().any(is_import) {
        return Ok(std::borrow::Cow::Borrowed(src));
    }
    let mut out = String::with_capacity(src.len());
    let mut open_parens = false;
    let mut offset = 0;
    for (i, line) in src.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let text = line.trim_end_matches(['\n', '\r']);
        let ending = &line[text.len()..];
        if open_parens {
            open_parens = !text.contains(')');
            out.push_str(ending);
            continue;
        }
        if !is_import(text) {
            out.push_str(line);
            continue;
        }
        let module = text
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .split(['.', ','])
            .next()
            .unwrap_or_default();
        if !KNOWN_IMPORTS.contains(&module) {
            return err(
                Span {
                    offset: start,
                    end: start + text.len(),
                    line: u32::try_from(i + 1).unwrap_or(u32::MAX),
                    column: 1,
                },
                format!(
                    "`{}`: a TVMScript file may import only tvm, numpy and typing",
                    text.trim()
                ),
            );
        }
        open_parens = text.contains('(') && !text.contains(')');
        out.push_str(ending);
    }
    Ok(std::borrow::Cow::Owned(out))
}

/// Whether `src` holds one function (`@R.function` or `@T.prim_func`) and no module class: TVM
/// prints such a function alone ([`print_standalone_function`](crate::script::print_standalone_function)).
pub fn is_standalone_function(src: &str) -> bool {
    let Ok(src) = blank_imports(src) else {
        return false;
    };
    let Ok(module) = tir::syntax::parse_module(&src) else {
        return false;
    };
    let mut functions = 0;
    for stmt in &module.body {
        match &stmt.kind {
            S::FunctionDef(_) => functions += 1,
            S::ClassDef(_) => return false,
            _ => {}
        }
    }
    functions == 1
}

fn read(src: &str, options: &ReadOptions) -> PResult<IRModule> {
    let src = blank_imports(src)?;
    let module = tir::syntax::parse_module(&src)?;
    let tir_ctx = tir::ModuleContext::from_module(&module);
    let mut members: Option<(&[ast::Stmt], String)> = None;
    let mut loose = Vec::new();
    let mut embedded = HashMap::new();
    for stmt in &module.body {
        match &stmt.kind {
            S::Assign { value, .. } if value.call_name().as_deref() == Some("TypeVar") => {}
            S::Assign { targets, value }
                if value.call_name().as_deref() == Some("tvm.ir.load_json")
                    && matches!(&targets[..], [t] if t.as_name() == Some("metadata")) =>
            {
                embedded = embedded_metadata(value)?;
            }
            S::ClassDef(c) => {
                module_decorator(stmt, c)?;
                if members.is_some() {
                    return err(c.name_span, "a file holds one `@I.ir_module` class");
                }
                members = Some((&c.body, c.name.clone()));
            }
            S::FunctionDef(_) => loose.push(stmt.clone()),
            S::Pass => {}
            _ => {
                return err(
                    stmt.span,
                    "a TVMScript file holds imports, `TypeVar` declarations and one `@I.ir_module` class; this top-level Python statement is not TVMScript",
                );
            }
        }
    }
    let (body, class_name) = match members {
        Some((body, name)) => {
            if !loose.is_empty() {
                return err(
                    loose[0].span,
                    "functions must be members of the module class",
                );
            }
            (body.to_vec(), name)
        }
        None if !loose.is_empty() => (loose, "Module".to_string()),
        None => {
            return err(
                Span {
                    line: 1,
                    column: 1,
                    ..Span::default()
                },
                "expected an `@I.ir_module` class",
            );
        }
    };
    let type_vars = tir_ctx.type_vars.clone();
    let mut m = ModuleReader {
        options,
        embedded,
        tir_ctx,
        class_name,
        type_vars,
        globals: HashSet::new(),
        normalizer: Normalizer::empty(),
    };
    m.module(&body)
}

/// Operator parameters (script name, parameter) that take a shape, where TVM's Python
/// wrapper of the operator turns a tuple or list into `ShapeExpr` (`relax/op/create.py`,
/// `manipulate.py`, `image.py`, `builtin.py`).
const SHAPE_PARAMS: [(&str, &str); 8] = [
    ("R.reshape", "shape"),
    ("R.broadcast_to", "shape"),
    ("R.collapse_sum_to", "shape"),
    ("R.full", "shape"),
    ("R.ones", "shape"),
    ("R.zeros", "shape"),
    ("R.image.resize2d", "size"),
    ("R.builtin.alloc_tensor", "shape"),
];

/// The spellings of TVM's module decorator: `I.ir_module` as TVM prints it, and
/// `tvm.script.ir_module` as its tests and older tutorials write it.
const MODULE_DECORATORS: [&str; 3] = ["I.ir_module", "tvm.script.ir_module", "ir_module"];

/// Checks a module class's decorator: `@I.ir_module`, or called with TVM's keyword arguments
/// `check_well_formed` and `s_tir` (`tvm.script.parser.ir.entry.ir_module`). Both choose only
/// which well-formedness check TVM's parser runs after parsing; the pipeline here verifies
/// what it compiles either way, so they are read (as booleans) and have no other effect.
fn module_decorator(stmt: &ast::Stmt, class: &ast::ClassDef) -> PResult<()> {
    let is_module =
        |name: Option<String>| name.is_some_and(|n| MODULE_DECORATORS.contains(&n.as_str()));
    let [decorator] = &class.decorators[..] else {
        return err(
            stmt.span,
            "expected one decorator, `@I.ir_module`, before the module class",
        );
    };
    if is_module(decorator.dotted_name()) {
        return Ok(());
    }
    let Some((func, args, keywords)) = call_parts(decorator) else {
        return err(stmt.span, "expected `@I.ir_module` before the module class");
    };
    if !is_module(Some(func)) {
        return err(stmt.span, "expected `@I.ir_module` before the module class");
    }
    if let Some(a) = args.first() {
        return err(a.span, "`I.ir_module` takes keyword arguments only");
    }
    for k in keywords {
        if !matches!(k.name.as_str(), "check_well_formed" | "s_tir") {
            return err(
                k.span,
                format!(
                    "unexpected keyword argument `{}` of `I.ir_module` (expected `check_well_formed` or `s_tir`)",
                    k.name
                ),
            );
        }
        if !matches!(k.value.kind, A::Bool(_)) {
            return err(k.value.span, "expected `True` or `False`");
        }
    }
    Ok(())
}

/// The tensor tables of `metadata = tvm.ir.load_json("""…""")`: TVM's JSON object graph
/// (`nodes`, `root`, `b64ndarrays`) whose root is a map from a type key to an array of
/// constants, each naming its tensor by index into `b64ndarrays` (base64 of TVM's
/// `Tensor::Save` bytes). Only constants are read; anything else in the table is an error.
fn embedded_metadata(call: &ast::Expr) -> PResult<HashMap<String, Vec<vm::Tensor>>> {
    let bad = |what: String| -> PResult<HashMap<String, Vec<vm::Tensor>>> {
        err(
            call.span,
            format!("metadata = tvm.ir.load_json(...): {what}"),
        )
    };
    let Some((_, [arg], [])) = call_parts(call) else {
        return bad("expected one string".into());
    };
    let A::Str(text) = &arg.kind else {
        return bad("expected one string".into());
    };
    let json: serde_json::Value = match serde_json::from_str(text) {
        Ok(j) => j,
        Err(e) => return bad(format!("not JSON: {e}")),
    };
    let nodes = json.get("nodes").and_then(|n| n.as_array());
    let arrays = json.get("b64ndarrays").and_then(|n| n.as_array());
    let root = json.get("root").and_then(|r| r.as_u64());
    let (Some(nodes), Some(root)) = (nodes, root) else {
        return bad("no `nodes` and `root`".into());
    };
    let node = |i: u64| nodes.get(usize::try_from(i).ok()?);
    let indices = |n: &serde_json::Value| -> Option<Vec<u64>> {
        n.get("data")?
            .as_array()?
            .iter()
            .map(|d| d.as_u64())
            .collect()
    };
    let Some(map) = node(root) else {
        return bad(format!("root {root} is not a node"));
    };
    let keys: Vec<&str> = match map.get("keys").and_then(|k| k.as_array()) {
        Some(k) => k.iter().filter_map(|k| k.as_str()).collect(),
        None => return bad("the root is not a map with `keys`".into()),
    };
    let Some(values) = indices(map) else {
        return bad("the root map has no `data`".into());
    };
    if keys.len() != values.len() {
        return bad("the root map's keys and values differ in number".into());
    }
    // Each tensor of `b64ndarrays` is decoded once, however many constants name it: the
    // constants share it, so that a table naming one large tensor many times costs its
    // references, not a copy each.
    let mut decoded: HashMap<usize, vm::Tensor> = HashMap::new();
    let mut tables = HashMap::new();
    for (key, &array) in keys.iter().zip(&values) {
        let Some(items) = node(array).and_then(indices) else {
            return bad(format!("`{key}` is not an array"));
        };
        let mut table = Vec::with_capacity(items.len());
        for (i, &item) in items.iter().enumerate() {
            let Some(n) = node(item) else {
                return bad(format!("`{key}`[{i}] is not a node"));
            };
            if n.get("type_key").and_then(|t| t.as_str()) != Some("relax.expr.Constant") {
                return bad(format!(
                    "`{key}`[{i}] is a {}, not a constant",
                    n.get("type_key")
                        .and_then(|t| t.as_str())
                        .unwrap_or("node without type")
                ));
            }
            let index = n
                .get("attrs")
                .and_then(|a| a.get("data"))
                .and_then(|d| d.as_str())
                .and_then(|d| d.parse::<usize>().ok());
            let data = index
                .and_then(|d| arrays?.get(d))
                .and_then(|b| b.as_str())
                .zip(index);
            let Some((data, index)) = data else {
                return bad(format!("`{key}`[{i}] names no tensor of `b64ndarrays`"));
            };
            if let Some(t) = decoded.get(&index) {
                table.push(t.clone());
                continue;
            }
            let Some(bytes) = base64_decode(data) else {
                return bad(format!("`{key}`[{i}]: the tensor is not base64"));
            };
            match vm::Tensor::load_tvm_bytes(&bytes) {
                Ok(t) => {
                    decoded.insert(index, t.clone());
                    table.push(t);
                }
                Err(e) => return bad(format!("`{key}`[{i}]: {e}")),
            }
        }
        tables.insert(key.to_string(), table);
    }
    Ok(tables)
}

/// Standard base64 (RFC 4648, with `=` padding; whitespace ignored), `None` if malformed.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(4) {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(digits.len() / 4 * 3);
    let quads = digits.len() / 4;
    for (q, quad) in digits.chunks_exact(4).enumerate() {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && q + 1 != quads) {
            return None;
        }
        let mut n = 0u32;
        for &c in &quad[..4 - pad] {
            n = n << 6 | value(c)?;
        }
        n <<= 6 * pad as u32;
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    Some(out)
}

struct ModuleReader<'a> {
    options: &'a ReadOptions,
    /// The tables of a `metadata = tvm.ir.load_json("""…""")` header (older TVM's
    /// `script(show_meta=True)`), by key (`"relax.expr.Constant"`).
    embedded: HashMap<String, Vec<vm::Tensor>>,
    tir_ctx: tir::ModuleContext,
    class_name: String,
    type_vars: BTreeSet<String>,
    globals: HashSet<String>,
    /// Infers unannotated bindings, knowing every global's signature.
    normalizer: Normalizer,
}

fn relax_decorator(def: &ast::FunctionDef) -> Option<&ast::Expr> {
    def.decorators.iter().find(|d| {
        d.dotted_name().as_deref() == Some("R.function")
            || d.call_name().as_deref() == Some("R.function")
    })
}

impl ModuleReader<'_> {
    fn module(&mut self, body: &[ast::Stmt]) -> PResult<IRModule> {
        let mut module = IRModule::new();
        // Every global is known before any body is read: functions refer to each other as
        // `cls.f` in any order.
        for stmt in body {
            let (name, span) = match &stmt.kind {
                S::FunctionDef(def) => (&def.name, def.name_span),
                _ => match extern_decl(stmt) {
                    Some((target, _)) => (target, stmt.span),
                    None => continue,
                },
            };
            if self.globals.contains(name) {
                return err(span, format!("function `{name}` defined twice"));
            }
            self.globals.insert(name.clone());
        }
        // Extern declarations first: their types are what calls of them return.
        for stmt in body {
            if let Some((name, value)) = extern_decl(stmt) {
                let e = FnReader::new(self).extern_decl(value)?;
                self.normalizer.declare(name.clone(), e.struct_info.clone());
                module.add(name.clone(), BaseFunc::Extern(e));
            }
        }
        for stmt in body {
            if let S::FunctionDef(def) = &stmt.kind {
                let si = if tir::script::is_prim_func(def) {
                    StructInfo::Func {
                        params: None,
                        ret: Box::new(StructInfo::void()),
                        pure: false,
                    }
                } else {
                    // A signature that does not read is reported when the function is read.
                    let pure = relax_decorator(def)
                        .and_then(|d| call_parts(d))
                        .and_then(|(_, _, kws)| kws.iter().find(|k| k.name == "pure"))
                        .is_none_or(|k| !matches!(k.value.kind, A::Bool(false)));
                    match FnReader::new(self).signature(def) {
                        Ok((params, ret)) => StructInfo::Func {
                            params: Some(params.iter().map(|p| p.struct_info().clone()).collect()),
                            ret: Box::new(ret),
                            pure,
                        },
                        Err(_) => StructInfo::Any,
                    }
                };
                self.normalizer.declare(def.name.clone(), si);
            }
        }
        for stmt in body {
            match &stmt.kind {
                S::FunctionDef(def) if tir::script::is_prim_func(def) => {
                    let f = tir::prim_func_from_ast(def, &self.tir_ctx)?;
                    module.add(def.name.clone(), BaseFunc::Tir(f));
                }
                S::FunctionDef(def) if relax_decorator(def).is_some() => {
                    let f = FnReader::new(self).function(def)?;
                    // Callers read later see the inferred return struct info, as with TVM's
                    // parser, which reads functions in order.
                    self.normalizer.declare(def.name.clone(), f.struct_info());
                    module.add(def.name.clone(), BaseFunc::Relax(f));
                }
                S::FunctionDef(def) => {
                    return err(
                        def.name_span,
                        format!(
                            "function `{}` needs a `@R.function` or `@T.prim_func` decorator",
                            def.name
                        ),
                    );
                }
                S::Expr(e) if e.call_name().as_deref() == Some("I.module_attrs") => {
                    let dict = one_dict_arg(e, "I.module_attrs")?;
                    module.attrs = FnReader::new(self).attr_dict(dict)?;
                }
                S::Expr(e) if e.call_name().as_deref() == Some("I.module_global_infos") => {
                    let dict = one_dict_arg(e, "I.module_global_infos")?;
                    module.global_infos = FnReader::new(self).global_infos(dict)?;
                }
                // A docstring (any string statement: Python evaluates and drops it).
                S::Expr(ast::Expr {
                    kind: A::Str(_), ..
                }) => {}
                S::Pass => {}
                _ if extern_decl(stmt).is_some() => {}
                _ => {
                    return err(
                        stmt.span,
                        "expected a function definition, `name = R.ExternFunc(\"symbol\")`, \
                         `I.module_attrs({...})` or `I.module_global_infos({...})` in the module",
                    );
                }
            }
        }
        Ok(module)
    }
}

/// Where a binding is being made.
#[derive(Clone, Copy, PartialEq)]
enum BlockKind {
    Plain,
    Dataflow,
}

/// Bindings being collected for a [`SeqExpr`].
#[derive(Default)]
struct Body {
    blocks: Vec<BindingBlock>,
    current: Vec<Binding>,
}

impl Body {
    fn push(&mut self, b: Binding) {
        self.current.push(b);
    }
    fn flush(&mut self) {
        if !self.current.is_empty() {
            self.blocks.push(BindingBlock {
                bindings: std::mem::take(&mut self.current),
                dataflow: false,
            });
        }
    }
    fn finish(mut self, body: Expr) -> SeqExpr {
        self.flush();
        SeqExpr {
            blocks: self.blocks,
            body,
        }
    }
}

/// Reads one global Relax function (and the inner functions it defines).
struct FnReader<'m, 'a> {
    m: &'m ModuleReader<'a>,
    scopes: Vec<HashMap<String, Var>>,
    /// Symbolic variables of this function, by name.
    sym: HashMap<String, tir::Var>,
    /// Names standing for the module class (`cls = Module`).
    cls: HashSet<String>,
    /// Names of the outputs of the dataflow block being read.
    outputs: HashSet<String>,
    /// The name supplies of the functions being read, innermost last. TVM's parser gives
    /// every function (inner ones too) its own, and every binding it emits takes a name from
    /// it (`lv`, `lv1`, ... in dataflow blocks, `gv`, `gv1`, ... elsewhere), also those the
    /// user names afterwards: normalized text then names its new bindings as TVM does.
    supply: Vec<HashMap<&'static str, usize>>,
}

/// `name = R.ExternFunc(...)` in the module class: the declared name and the call.
fn extern_decl(stmt: &ast::Stmt) -> Option<(&String, &ast::Expr)> {
    let S::Assign { targets, value } = &stmt.kind else {
        return None;
    };
    let [target] = targets.as_slice() else {
        return None;
    };
    let A::Name(name) = &target.kind else {
        return None;
    };
    (value.call_name().as_deref() == Some("R.ExternFunc")).then_some((name, value))
}

/// The one argument of a module-level call `name({...})` (`I.module_attrs`).
fn one_dict_arg<'e>(e: &'e ast::Expr, name: &str) -> PResult<&'e ast::Expr> {
    let ast::ExprKind::Call { args, .. } = &e.kind else {
        return err(e.span, format!("expected `{name}({{...}})`"));
    };
    let [dict] = args.as_slice() else {
        return err(e.span, format!("`{name}` takes one dict"));
    };
    Ok(dict)
}

/// The name of a call (`R.add`) and its parts, if `e` is a call of a dotted name.
fn call_parts(e: &ast::Expr) -> Option<(String, &[ast::Expr], &[ast::Keyword])> {
    match &e.kind {
        A::Call {
            func,
            args,
            keywords,
        } => Some((func.dotted_name()?, args, keywords)),
        _ => None,
    }
}

fn names_in(e: &ast::Expr, out: &mut Vec<(String, Span)>) {
    match &e.kind {
        A::Name(n) => out.push((n.clone(), e.span)),
        A::Attribute { .. } => {}
        A::Call { args, keywords, .. } => {
            for a in args {
                names_in(a, out);
            }
            for k in keywords {
                names_in(&k.value, out);
            }
        }
        A::UnaryOp { operand, .. } => names_in(operand, out),
        A::BinOp { left, right, .. } | A::BoolOp { left, right, .. } => {
            names_in(left, out);
            names_in(right, out);
        }
        A::Compare { left, comparisons } => {
            names_in(left, out);
            for (_, c) in comparisons {
                names_in(c, out);
            }
        }
        A::Tuple(items) | A::List(items) | A::Set(items) => {
            for i in items {
                names_in(i, out);
            }
        }
        A::IfExp { test, body, orelse } => {
            names_in(test, out);
            names_in(body, out);
            names_in(orelse, out);
        }
        _ => {}
    }
}

/// Rewrites `int32` literals to `int64` in an expression made only of literals (`2 * 3` in a
/// shape): Relax shapes and prim values default to `int64`.
fn widen_literals(e: PrimExpr) -> PrimExpr {
    use tir::ExprKind as P;
    match e.kind() {
        P::IntImm { dtype, value } if *dtype == DataType::INT32 => PrimExpr::i64(*value),
        P::Binary { op, a, b } => {
            PrimExpr::binary(*op, widen_literals(a.clone()), widen_literals(b.clone()))
        }
        _ => e,
    }
}

/// The codes of the VM's `vm.builtin.match_shape` and `vm.builtin.make_shape`, as TVM's tests
/// spell them (`MS.STORE_TO_HEAP` with `MS = MatchShapeCode`, from
/// `tvm.relax.testing.runtime_builtin`): Python `IntEnum`s, so plain integers to TVMScript.
const SHAPE_CODES: &[(&str, &str, i128)] = &[
    ("MS", "ASSERT_EQUAL_TO_IMM", 0),
    ("MS", "STORE_TO_HEAP", 1),
    ("MS", "NO_OP", 2),
    ("MS", "ASSERT_EQUAL_TO_LOAD", 3),
    ("MK", "USE_IMM", 0),
    ("MK", "LOAD_SHAPE", 1),
];

fn shape_code(e: &ast::Expr) -> Option<i128> {
    let A::Attribute { value, attr } = &e.kind else {
        return None;
    };
    let class = match value.as_name()? {
        "MS" | "MatchShapeCode" => "MS",
        "MK" | "MakeShapeCode" => "MK",
        _ => return None,
    };
    SHAPE_CODES
        .iter()
        .find(|(c, n, _)| *c == class && n == attr)
        .map(|&(_, _, v)| v)
}

fn int_of(e: &ast::Expr) -> Option<i128> {
    match &e.kind {
        A::Int(v) => Some(*v),
        A::Attribute { .. } => shape_code(e),
        A::UnaryOp {
            op: ast::UnaryOp::Neg,
            operand,
        } => int_of(operand).map(|v| -v),
        A::UnaryOp {
            op: ast::UnaryOp::Pos,
            operand,
        } => int_of(operand),
        _ => None,
    }
}

fn float_of(e: &ast::Expr) -> Option<f64> {
    match &e.kind {
        A::Float(v) => Some(*v),
        A::UnaryOp {
            op: ast::UnaryOp::Neg,
            operand,
        } => float_of(operand).map(|v| -v),
        A::UnaryOp {
            op: ast::UnaryOp::Pos,
            operand,
        } => float_of(operand),
        // `float("inf")`, as the printer writes non-finite constants.
        A::Call { func, args, .. } if func.as_name() == Some("float") => match args.as_slice() {
            [
                ast::Expr {
                    kind: A::Str(s), ..
                },
            ] => s.trim().parse::<f64>().ok(),
            _ => None,
        },
        _ => None,
    }
}

fn to_i64(v: i128, span: Span) -> PResult<i64> {
    i64::try_from(v).or_else(|_| err(span, "integer does not fit in 64 bits"))
}

fn parse_dtype(s: &str, span: Span) -> PResult<DataType> {
    DataType::parse(s).map_or_else(|| err(span, format!("unknown data type {s:?}")), Ok)
}

fn string_arg(e: &ast::Expr, what: &str) -> PResult<String> {
    match &e.kind {
        A::Str(s) => Ok(s.clone()),
        _ => err(
            e.span,
            format!("expected a string ({what}), found {}", e.describe()),
        ),
    }
}

/// Keywords TVM renamed in its StructInfo/Type unification (2026), with their old names, which
/// most hand-written TVMScript still uses: either is accepted (both at once is an error, the
/// unused one reported as unexpected).
const KEYWORD_ALIASES: &[(&str, &str)] = &[("out_ty", "out_sinfo"), ("ty_args", "sinfo_args")];

/// The keyword argument `key` among `keywords`, under its name or its old one
/// ([`KEYWORD_ALIASES`]).
fn find_keyword(keywords: &[ast::Keyword], key: &str) -> Option<usize> {
    let named = |name: &str| keywords.iter().position(|k| k.name == name);
    let alias = KEYWORD_ALIASES
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|&(_, old)| named(old));
    named(key).or(alias)
}

/// Positional-or-keyword arguments of a fixed-shape call form.
struct Args<'e> {
    name: String,
    span: Span,
    args: &'e [ast::Expr],
    keywords: &'e [ast::Keyword],
    used: Vec<bool>,
}

impl<'e> Args<'e> {
    fn new(
        name: &str,
        span: Span,
        args: &'e [ast::Expr],
        keywords: &'e [ast::Keyword],
    ) -> Args<'e> {
        Args {
            name: name.to_string(),
            span,
            args,
            keywords,
            used: vec![false; keywords.len()],
        }
    }
    /// Argument `pos` (positional index) or keyword `key`.
    fn get(&mut self, pos: usize, key: &str) -> PResult<Option<&'e ast::Expr>> {
        let kw = find_keyword(self.keywords, key);
        if let Some(i) = kw {
            self.used[i] = true;
        }
        match (self.args.get(pos), kw) {
            (Some(_), Some(i)) => err(
                self.keywords[i].span,
                format!("`{}` got argument `{key}` twice", self.name),
            ),
            (Some(a), None) => Ok(Some(a)),
            (None, Some(i)) => Ok(Some(&self.keywords[i].value)),
            (None, None) => Ok(None),
        }
    }
    fn require(&mut self, pos: usize, key: &str) -> PResult<&'e ast::Expr> {
        match self.get(pos, key)? {
            Some(a) => Ok(a),
            None => err(
                self.span,
                format!("`{}` is missing argument `{key}`", self.name),
            ),
        }
    }
    /// Fails on unused keywords and on more than `max_positional` positional arguments.
    fn finish(&self, max_positional: usize) -> PResult<()> {
        if let Some(extra) = self.args.get(max_positional) {
            return err(
                extra.span,
                format!(
                    "`{}` takes at most {max_positional} positional argument(s)",
                    self.name
                ),
            );
        }
        for (k, used) in self.keywords.iter().zip(&self.used) {
            if !used {
                return err(
                    k.span,
                    format!(
                        "unexpected keyword argument `{}` of `{}`",
                        k.name, self.name
                    ),
                );
            }
        }
        Ok(())
    }
}

impl<'m, 'a> FnReader<'m, 'a> {
    fn new(m: &'m ModuleReader<'a>) -> Self {
        FnReader {
            m,
            scopes: vec![HashMap::new()],
            sym: HashMap::new(),
            cls: HashSet::new(),
            outputs: HashSet::new(),
            supply: vec![HashMap::new()],
        }
    }

    // ----- names -----

    fn lookup_var(&self, name: &str) -> Option<&Var> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn bind(&mut self, var: &Var) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(var.name().to_string(), var.clone());
        }
    }

    /// The symbolic variable `name`: already seen in this function, or a module `TypeVar`.
    fn lookup_sym(&mut self, name: &str) -> Option<tir::Var> {
        if let Some(v) = self.sym.get(name) {
            return Some(v.clone());
        }
        if self.m.type_vars.contains(name) {
            let v = tir::Var::new(name, DataType::INT64);
            self.sym.insert(name.to_string(), v.clone());
            return Some(v);
        }
        None
    }

    fn is_cls(&self, name: &str) -> bool {
        self.cls.contains(name) || name == self.m.class_name
    }

    /// `cls.f` → `f`, checked against the module's functions.
    fn global_ref(&self, e: &ast::Expr) -> PResult<Option<String>> {
        if let A::Attribute { value, attr } = &e.kind
            && let Some(base) = value.as_name()
            && self.is_cls(base)
            && self.lookup_var(base).is_none()
        {
            if !self.m.globals.contains(attr) {
                return err(e.span, format!("the module has no function `{attr}`"));
            }
            return Ok(Some(attr.clone()));
        }
        Ok(None)
    }

    // ----- prim expressions -----

    /// A TIR expression over this function's symbolic variables. `define` makes unknown names
    /// new `int64` variables (string dimensions do that in TVM).
    fn prim(&mut self, e: &ast::Expr, define: bool) -> PResult<PrimExpr> {
        if let Some(v) = int_of(e) {
            return Ok(PrimExpr::i64(to_i64(v, e.span)?));
        }
        let mut names = Vec::new();
        names_in(e, &mut names);
        for (n, span) in names {
            if n == "T" || self.lookup_sym(&n).is_some() {
                continue;
            }
            if define {
                self.sym
                    .insert(n.clone(), tir::Var::new(n.as_str(), DataType::INT64));
            } else if self.lookup_var(&n).is_some() {
                return err(
                    span,
                    format!("`{n}` is a Relax variable, not a symbolic (TIR) variable"),
                );
            } else {
                return err(span, format!("undefined symbolic variable `{n}`"));
            }
        }
        let scope = tir::script::ExprScope {
            vars: self.sym.clone(),
        };
        let p = tir::script::prim_expr_from_ast(e, &scope)?;
        Ok(if p.dtype() == DataType::INT32 {
            widen_literals(p)
        } else {
            p
        })
    }

    /// One dimension of a shape: an int, a symbolic expression, or a string holding one.
    fn dim(&mut self, e: &ast::Expr) -> PResult<PrimExpr> {
        if let A::Str(s) = &e.kind {
            let parsed = tir::syntax::parse_expr(s).map_err(|inner| {
                ParseError::new(e.span, format!("in dimension {s:?}: {}", inner.message))
            })?;
            return self.prim(&parsed, true).map_err(|inner| {
                ParseError::new(e.span, format!("in dimension {s:?}: {}", inner.message))
            });
        }
        self.prim(e, false)
    }

    fn dims(&mut self, e: &ast::Expr) -> PResult<Vec<PrimExpr>> {
        match &e.kind {
            A::Tuple(items) | A::List(items) => items.iter().map(|d| self.dim(d)).collect(),
            _ => err(
                e.span,
                format!("expected a list of dimensions, found {}", e.describe()),
            ),
        }
    }

    // ----- struct info -----

    fn struct_info(&mut self, e: &ast::Expr) -> PResult<StructInfo> {
        // `x.ty` (TVM 0.27's name of an expression's struct info; `x.struct_info` before it):
        // the struct info of variable `x`, as in `out_ty=x.ty`.
        if let A::Attribute { value, attr } = &e.kind
            && (attr == "ty" || attr == "struct_info")
            && let Some(v) = value.as_name().and_then(|n| self.lookup_var(n))
        {
            return Ok(v.struct_info().clone());
        }
        if let Some(name) = e.dotted_name() {
            return match name.as_str() {
                "R.Any" | "R.Object" => Ok(StructInfo::Any),
                "R.Tensor" => Ok(StructInfo::tensor_ndim(-1, None)),
                "R.Shape" => Ok(StructInfo::Shape {
                    values: None,
                    ndim: -1,
                }),
                "R.Tuple" => Ok(StructInfo::Tuple(Vec::new())),
                "R.Callable" => Ok(StructInfo::Func {
                    params: None,
                    ret: Box::new(StructInfo::Any),
                    pure: true,
                }),
                _ => match name.strip_prefix("T.") {
                    Some(dt) => Ok(StructInfo::prim(parse_dtype(dt, e.span)?)),
                    None => err(
                        e.span,
                        format!(
                            "expected a struct info annotation (`R.Tensor`, `R.Tuple`, `R.Shape`, `R.Any`, `T.int64`, ...), found `{name}`"
                        ),
                    ),
                },
            };
        }
        let Some((name, args, keywords)) = call_parts(e) else {
            return err(
                e.span,
                format!(
                    "expected a struct info annotation such as `R.Tensor(...)`, found {}",
                    e.describe()
                ),
            );
        };
        let mut a = Args::new(&name, e.span, args, keywords);
        match name.as_str() {
            "R.Tensor" => {
                let first = a.get(0, "shape")?;
                let dtype_arg = a.get(1, "dtype")?;
                // `R.Tensor("float32", ndim=4)`: a string in the shape's place, with no dtype
                // given, is the dtype (TVM's `R.Tensor` reads it so).
                let (first, dtype_arg) = match (first, dtype_arg) {
                    (
                        Some(
                            d @ ast::Expr {
                                kind: A::Str(_), ..
                            },
                        ),
                        None,
                    ) => (None, Some(d)),
                    other => other,
                };
                let shape = match first {
                    None => None,
                    Some(ast::Expr { kind: A::None, .. }) => None,
                    Some(s) => Some(self.dims(s)?),
                };
                let dtype = match dtype_arg {
                    None => None,
                    Some(ast::Expr { kind: A::None, .. }) => None,
                    Some(d) => {
                        let s = string_arg(d, "a data type")?;
                        if s.is_empty() || s == "void" {
                            None
                        } else {
                            Some(parse_dtype(&s, d.span)?)
                        }
                    }
                };
                let vdevice = match a.get(2, "vdevice")? {
                    None => None,
                    Some(v) => Some(string_arg(v, "a virtual device")?),
                };
                let ndim_arg = match a.get(3, "ndim")? {
                    None => None,
                    Some(n) => match int_of(n) {
                        Some(v) if v >= -1 && v <= i64::MAX as i128 => Some(v as i64),
                        _ => return err(n.span, "expected `ndim` to be an integer >= -1"),
                    },
                };
                a.finish(4)?;
                let ndim = match (&shape, ndim_arg) {
                    (Some(s), Some(n)) if n != s.len() as i64 => {
                        return err(e.span, "`ndim` does not match the length of the shape");
                    }
                    (Some(s), _) => s.len() as i64,
                    (None, n) => n.unwrap_or(-1),
                };
                Ok(StructInfo::Tensor {
                    shape,
                    dtype,
                    ndim,
                    vdevice,
                })
            }
            "R.Shape" => {
                let values = match a.get(0, "values")? {
                    None => None,
                    Some(ast::Expr { kind: A::None, .. }) => None,
                    Some(v) => Some(self.dims(v)?),
                };
                let ndim_arg = match a.get(1, "ndim")? {
                    None => None,
                    Some(n) => match int_of(n) {
                        Some(v) if v >= -1 && v <= i64::MAX as i128 => Some(v as i64),
                        _ => return err(n.span, "expected `ndim` to be an integer >= -1"),
                    },
                };
                a.finish(2)?;
                let ndim = match (&values, ndim_arg) {
                    (Some(v), Some(n)) if n != v.len() as i64 => {
                        return err(e.span, "`ndim` does not match the number of values");
                    }
                    (Some(v), _) => v.len() as i64,
                    (None, n) => n.unwrap_or(-1),
                };
                Ok(StructInfo::Shape { values, ndim })
            }
            "R.Tuple" => {
                a.finish(usize::MAX)?;
                let items: &[ast::Expr] = match args {
                    [
                        ast::Expr {
                            kind: A::List(items),
                            ..
                        },
                    ] => items,
                    _ => args,
                };
                Ok(StructInfo::Tuple(
                    items
                        .iter()
                        .map(|i| self.struct_info(i))
                        .collect::<PResult<_>>()?,
                ))
            }
            "R.Prim" => {
                let dtype = match a.get(0, "dtype")? {
                    Some(d) => Some(parse_dtype(&string_arg(d, "a data type")?, d.span)?),
                    None => None,
                };
                let value = match a.get(1, "value")? {
                    Some(v) => Some(self.prim(v, false)?),
                    None => None,
                };
                a.finish(2)?;
                match (dtype, value) {
                    (Some(dtype), value) => Ok(StructInfo::Prim { dtype, value }),
                    (None, Some(v)) => Ok(StructInfo::Prim {
                        dtype: v.dtype(),
                        value: Some(v),
                    }),
                    (None, None) => err(e.span, "`R.Prim` needs a dtype or a value"),
                }
            }
            "R.Object" | "R.Any" => {
                a.finish(0)?;
                Ok(StructInfo::Any)
            }
            "R.Callable" => {
                let params = match a.get(0, "params")? {
                    None => None,
                    Some(ast::Expr { kind: A::None, .. }) => None,
                    Some(p) => match &p.kind {
                        A::Tuple(items) | A::List(items) => Some(
                            items
                                .iter()
                                .map(|i| self.struct_info(i))
                                .collect::<PResult<Vec<_>>>()?,
                        ),
                        _ => return err(p.span, "expected a tuple of parameter struct infos"),
                    },
                };
                let ret = match a.get(1, "ret")? {
                    Some(r) => self.struct_info(r)?,
                    None => StructInfo::Any,
                };
                // TVM's default: pure with parameters, impure when opaque.
                let pure = match a.get(2, "purity")? {
                    None => params.is_some(),
                    Some(ast::Expr {
                        kind: A::Bool(b), ..
                    }) => *b,
                    Some(p) => return err(p.span, "expected `True` or `False`"),
                };
                // TVM 0.27 keeps a `derive_func` only on an opaque callable, where any name
                // selects the one it implements (`R.memory.view`'s inference), and never
                // prints it; it takes the place of `ret`.
                if let Some(d) = a.get(3, "derive_func")? {
                    string_arg(d, "`derive_func` (the name of a struct info derivation)")?;
                    if params.is_none()
                        && let Some(r) = a.get(1, "ret")?
                    {
                        return err(
                            r.span,
                            "an opaque `R.Callable` takes `ret` or `derive_func`, not both",
                        );
                    }
                }
                a.finish(4)?;
                Ok(StructInfo::Func {
                    params,
                    ret: Box::new(ret),
                    pure,
                })
            }
            _ => err(
                e.span,
                format!(
                    "unknown struct info `{name}`; expected `R.Tensor`, `R.Tuple`, `R.Shape`, `R.Prim`, `R.Callable` or `R.Any`"
                ),
            ),
        }
    }

    /// `out_ty=R.Tensor(...)` or `out_ty=[R.Tensor(...), ...]` (a tuple of outputs).
    fn out_struct_info(&mut self, e: &ast::Expr) -> PResult<StructInfo> {
        match &e.kind {
            A::List(items) => Ok(StructInfo::Tuple(
                items
                    .iter()
                    .map(|i| self.struct_info(i))
                    .collect::<PResult<_>>()?,
            )),
            _ => self.struct_info(e),
        }
    }

    /// `ty_args=(A, B)` / `ty_args=[A]` / `ty_args=A`.
    fn ty_args(&mut self, e: &ast::Expr) -> PResult<Vec<StructInfo>> {
        match &e.kind {
            A::Tuple(items) | A::List(items) => items.iter().map(|i| self.struct_info(i)).collect(),
            _ => Ok(vec![self.struct_info(e)?]),
        }
    }

    // ----- attributes -----

    fn attr_value(&mut self, e: &ast::Expr, key: &str) -> PResult<AttrValue> {
        if let Some(v) = int_of(e) {
            return Ok(AttrValue::Int(to_i64(v, e.span)?));
        }
        if let Some(v) = float_of(e) {
            return Ok(AttrValue::Float(v));
        }
        match &e.kind {
            A::None => Ok(AttrValue::None),
            A::Bool(b) => Ok(AttrValue::Bool(*b)),
            A::Str(s) => {
                if key.ends_with("dtype")
                    && let Some(d) = DataType::parse(s)
                {
                    return Ok(AttrValue::DType(d));
                }
                Ok(AttrValue::Str(s.clone()))
            }
            A::List(items) | A::Tuple(items) => Ok(AttrValue::List(
                items
                    .iter()
                    .map(|i| self.attr_value(i, key))
                    .collect::<PResult<_>>()?,
            )),
            A::Dict(_) => Ok(AttrValue::Map(self.attr_dict(e)?.0)),
            // `R.print(format=R.str("…"))`: a string attribute written as a Relax string.
            A::Call { .. } if e.call_name().as_deref() == Some("R.str") => {
                let Some((_, [arg], [])) = call_parts(e) else {
                    return err(e.span, "`R.str` takes one string");
                };
                Ok(AttrValue::Str(string_arg(arg, "a string")?))
            }
            A::Call { .. } if e.call_name().as_deref() == Some("R.dtype") => {
                let Some((_, [arg], _)) = call_parts(e) else {
                    return err(e.span, "`R.dtype` takes one string");
                };
                let s = string_arg(arg, "a data type")?;
                Ok(AttrValue::DType(parse_dtype(&s, arg.span)?))
            }
            A::Call { .. } if e.call_name().as_deref() == Some("T.index_map") => self.index_map(e),
            // `pad_value=R.prim_value(T.float32(2))`: a Relax prim value held by an attribute.
            A::Call { .. } if e.call_name().as_deref() == Some("R.prim_value") => {
                let Some((_, [arg], [])) = call_parts(e) else {
                    return err(e.span, "`R.prim_value` takes one value");
                };
                // An explicitly typed literal keeps its type (`self.prim` widens `int32`).
                let typed = arg.call_name().is_some_and(|n| n.starts_with("T."))
                    && matches!(call_parts(arg), Some((_, [lit], [])) if int_of(lit).is_some() || float_of(lit).is_some());
                let v = if typed {
                    let scope = tir::script::ExprScope {
                        vars: HashMap::new(),
                    };
                    tir::script::prim_expr_from_ast(arg, &scope)?
                } else {
                    self.prim(arg, false)?
                };
                Ok(AttrValue::PrimValue(v))
            }
            // `index_map=lambda i: (i // 4, i % 4)`: TVM's `R.layout_transform` makes an index
            // map of a callable (`IndexMap.from_func`).
            A::Lambda { .. } if key == "index_map" => self.index_map_of(e, &[]),
            A::Lambda { .. } => err(
                e.span,
                "a lambda is read only as the argument of `T.index_map` \
                 (`T.index_map(lambda i, j: (j, i))`)",
            ),
            _ => Ok(AttrValue::Expr(self.prim(e, false)?)),
        }
    }

    /// `T.index_map(lambda p1, p2, ...: (r1, r2, ...))`: the parameters are new `int64`
    /// variables visible in the results only; the results may also use the function's symbolic
    /// variables. A body that is not a tuple is a map with one result.
    fn index_map(&mut self, e: &ast::Expr) -> PResult<AttrValue> {
        let Some((_, args, keywords)) = call_parts(e) else {
            return err(e.span, "expected a call of `T.index_map`");
        };
        let [lambda] = args else {
            return err(
                e.span,
                format!(
                    "`T.index_map` takes one lambda (`T.index_map(lambda i, j: (j, i))`), got {} \
                     positional arguments",
                    args.len()
                ),
            );
        };
        self.index_map_of(lambda, keywords)
    }

    /// The index map of `lambda`, with `T.index_map`'s `keywords`.
    fn index_map_of(
        &mut self,
        lambda: &ast::Expr,
        keywords: &[ast::Keyword],
    ) -> PResult<AttrValue> {
        for k in keywords {
            if k.name != "index_dtype" {
                return err(
                    k.span,
                    format!("unexpected keyword argument `{}` of `T.index_map`", k.name),
                );
            }
            // An `int32` map (TVM's ConvertLayout writes them) is read over `int64` indices:
            // the same map for every index an `int32` map can address, and the index type of
            // every other map here.
            let s = string_arg(&k.value, "a data type")?;
            let dtype = parse_dtype(&s, k.value.span)?;
            if dtype != DataType::INT64 && dtype != DataType::INT32 {
                return err(
                    k.value.span,
                    format!(
                        "`T.index_map`: index_dtype {s:?} is not an index type (\"int32\" or \"int64\")"
                    ),
                );
            }
        }
        let A::Lambda { params, body } = &lambda.kind else {
            return err(
                lambda.span,
                format!("`T.index_map` takes a lambda, found {}", lambda.describe()),
            );
        };
        let vars: Vec<tir::Var> = params
            .iter()
            .map(|(n, _)| tir::Var::new(n.as_str(), DataType::INT64))
            .collect();
        let saved: Vec<(String, Option<tir::Var>)> = params
            .iter()
            .zip(&vars)
            .map(|((n, _), v)| (n.clone(), self.sym.insert(n.clone(), v.clone())))
            .collect();
        let items: Vec<&ast::Expr> = match &body.kind {
            A::Tuple(items) => items.iter().collect(),
            _ => vec![body.as_ref()],
        };
        let results: PResult<Vec<PrimExpr>> = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let r = self.prim(item, false)?;
                if r.dtype() != DataType::INT64 {
                    return err(
                        item.span,
                        format!(
                            "result {i} of the index map is of type {}, not an int64 index",
                            r.dtype()
                        ),
                    );
                }
                Ok(r)
            })
            .collect();
        for (name, old) in saved.into_iter().rev() {
            match old {
                Some(v) => self.sym.insert(name, v),
                None => self.sym.remove(&name),
            };
        }
        Ok(AttrValue::IndexMap(IndexMap {
            params: vars,
            results: results?,
        }))
    }

    /// `{"vdevice": [I.vdevice(target, vdevice_id, memory_scope), …]}`.
    fn global_infos(&mut self, e: &ast::Expr) -> PResult<Vec<(String, Vec<VDevice>)>> {
        let A::Dict(items) = &e.kind else {
            return err(e.span, format!("expected a dict, found {}", e.describe()));
        };
        let mut out = Vec::new();
        for (k, v) in items {
            let key = string_arg(k, "a global info name")?;
            let A::List(infos) = &v.kind else {
                return err(v.span, format!("expected a list, found {}", v.describe()));
            };
            let mut devices = Vec::new();
            for info in infos {
                let Some((name, args, keywords)) = call_parts(info) else {
                    return err(
                        info.span,
                        format!("expected `I.vdevice(...)`, found {}", info.describe()),
                    );
                };
                if name != "I.vdevice" {
                    return err(
                        info.span,
                        format!("unsupported global info `{name}` (only `I.vdevice`)"),
                    );
                }
                let mut a = Args::new(&name, info.span, args, keywords);
                let target = match a.get(0, "target")? {
                    None => Attrs::new(),
                    Some(
                        t @ ast::Expr {
                            kind: A::Dict(_), ..
                        },
                    ) => self.attr_dict(t)?,
                    Some(t) => {
                        let mut d = Attrs::new();
                        d.set("kind", AttrValue::Str(string_arg(t, "a target")?));
                        d
                    }
                };
                let vdevice_id = match a.get(1, "vdevice_id")? {
                    None => 0,
                    Some(n) => match int_of(n) {
                        Some(v) => to_i64(v, n.span)?,
                        None => return err(n.span, "expected `vdevice_id` to be an integer"),
                    },
                };
                let memory_scope = match a.get(2, "memory_scope")? {
                    None => "global".to_string(),
                    Some(s) => string_arg(s, "a memory scope")?,
                };
                a.finish(3)?;
                devices.push(VDevice {
                    target,
                    vdevice_id,
                    memory_scope,
                });
            }
            out.push((key, devices));
        }
        Ok(out)
    }

    fn attr_dict(&mut self, e: &ast::Expr) -> PResult<Attrs> {
        let A::Dict(items) = &e.kind else {
            return err(e.span, format!("expected a dict, found {}", e.describe()));
        };
        let mut attrs = Attrs::new();
        for (k, v) in items {
            let key = string_arg(k, "an attribute name")?;
            let value = self.attr_value(v, &key)?;
            attrs.set(&key, value);
        }
        Ok(attrs)
    }

    // ----- expressions -----

    fn expr(&mut self, e: &ast::Expr) -> PResult<Expr> {
        if let Some(v) = int_of(e) {
            return Ok(Expr::prim(PrimExpr::i64(to_i64(v, e.span)?)));
        }
        match &e.kind {
            A::Name(n) => {
                if let Some(v) = self.lookup_var(n) {
                    return Ok(Expr::var(v));
                }
                if let Some(v) = self.lookup_sym(n) {
                    return Ok(Expr::prim(PrimExpr::from(v)));
                }
                err(e.span, format!("undefined variable `{n}`"))
            }
            A::Attribute { .. } => {
                if let Some(g) = self.global_ref(e)? {
                    return Ok(Expr::new(ExprKind::GlobalVar(g)));
                }
                err(
                    e.span,
                    format!(
                        "expected a Relax value, found `{}`",
                        e.dotted_name().unwrap_or_else(|| "attribute".into())
                    ),
                )
            }
            A::Float(v) => Ok(Expr::prim(PrimExpr::float(DataType::FLOAT64, *v))),
            A::Bool(b) => Ok(Expr::prim(PrimExpr::bool(*b))),
            A::Str(s) => Ok(Expr::new(ExprKind::StringImm(s.clone()))),
            A::Tuple(items) | A::List(items) => Ok(Expr::tuple(
                items.iter().map(|i| self.expr(i)).collect::<PResult<_>>()?,
            )),
            A::Subscript { value, index } => {
                if let A::Subscript {
                    value: table,
                    index: key,
                } = &value.kind
                    && table.as_name() == Some("metadata")
                    && self.lookup_var("metadata").is_none()
                {
                    return self.metadata_constant(key, index, e.span);
                }
                if value.as_name() == Some("metadata") && self.lookup_var("metadata").is_none() {
                    return err(e.span, "expected `metadata[\"ir.GenericConst\"][index]`");
                }
                let base = self.expr(value)?;
                match int_of(index) {
                    Some(i) if i >= 0 && i <= u32::MAX as i128 => {
                        Ok(Expr::new(ExprKind::TupleGetItem(base, i as usize)))
                    }
                    _ => err(
                        index.span,
                        "expected a non-negative integer literal as tuple index",
                    ),
                }
            }
            A::Call { .. } => self.call(e),
            A::UnaryOp { .. } | A::BinOp { .. } | A::Compare { .. } if self.is_relax_value(e) => {
                self.relax_operator(e)
            }
            A::UnaryOp { .. } | A::BinOp { .. } | A::BoolOp { .. } | A::Compare { .. } => {
                Ok(Expr::prim(self.prim(e, false)?))
            }
            _ => err(
                e.span,
                format!("expected a Relax expression, found {}", e.describe()),
            ),
        }
    }

    /// Whether `e` evaluates to a Relax value (a variable, a call of an operator or function,
    /// a tuple item, or Python operators over those), as opposed to TIR arithmetic over the
    /// function's symbolic variables (`n + 1`, a prim value).
    fn is_relax_value(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            // A name that is also a symbolic variable (`n: T.int64` beside `R.Tensor(("n",))`)
            // is the symbolic variable in arithmetic, as in TVM.
            A::Name(n) => {
                self.lookup_var(n).is_some()
                    && !self.sym.contains_key(n.as_str())
                    && !self.m.type_vars.contains(n.as_str())
            }
            A::Call { func, .. } => match func.dotted_name() {
                Some(n) => {
                    !n.starts_with("T.")
                        && n != "float"
                        && (n.starts_with("R.") || n.contains('.') || self.lookup_var(&n).is_some())
                }
                None => true,
            },
            A::Subscript { .. } => true,
            A::BinOp { left, right, .. } => self.is_relax_value(left) || self.is_relax_value(right),
            A::UnaryOp { operand, .. } => self.is_relax_value(operand),
            A::Compare { left, comparisons } => {
                self.is_relax_value(left) || comparisons.iter().any(|(_, c)| self.is_relax_value(c))
            }
            _ => false,
        }
    }

    /// Python's operators on Relax values, as TVM's `relax.Expr` overloads them
    /// (`relax/expr.py`, `ExprWithOp`): `a + b` is `R.add(a, b)`, and likewise `-`
    /// (`R.subtract`), `*`, `/`, `//`, `%`, `**`, unary `-` (`R.negative`) and the ordering
    /// comparisons (`R.less`, ...). As there, both operands must be Relax values: a Python
    /// number is an error asking for `R.const`, and `==`, `!=` (object identity in Python) and
    /// the bitwise operators have no Relax meaning.
    fn relax_operator(&mut self, e: &ast::Expr) -> PResult<Expr> {
        let (op, operands): (&str, Vec<&ast::Expr>) = match &e.kind {
            A::BinOp { op, left, right } => {
                let name = match op {
                    ast::BinOp::Add => "add",
                    ast::BinOp::Sub => "subtract",
                    ast::BinOp::Mul => "multiply",
                    ast::BinOp::Div => "divide",
                    ast::BinOp::FloorDiv => "floor_divide",
                    ast::BinOp::Mod => "mod",
                    ast::BinOp::Pow => "power",
                    ast::BinOp::MatMul => {
                        return err(
                            e.span,
                            "`@` is not a Relax operator: write `R.matmul(a, b)`",
                        );
                    }
                    _ => {
                        return err(
                            e.span,
                            "bitwise operators are not Relax operators: write `R.bitwise_and(a, b)`, `R.left_shift(a, b)`, ...",
                        );
                    }
                };
                (name, vec![&**left, &**right])
            }
            A::UnaryOp {
                op: ast::UnaryOp::Neg,
                operand,
            } => ("negative", vec![&**operand]),
            A::UnaryOp { .. } => {
                return err(
                    e.span,
                    "only unary `-` applies to a Relax value (`R.negative`); write `R.logical_not(x)` or `R.bitwise_not(x)`",
                );
            }
            A::Compare { left, comparisons } => {
                let [(cmp, right)] = &comparisons[..] else {
                    return err(
                        e.span,
                        "a chained comparison of Relax values: compare two values at a time",
                    );
                };
                let name = match cmp {
                    ast::CmpOp::Lt => "less",
                    ast::CmpOp::LtE => "less_equal",
                    ast::CmpOp::Gt => "greater",
                    ast::CmpOp::GtE => "greater_equal",
                    ast::CmpOp::Eq => {
                        return err(
                            e.span,
                            "`==` of Relax values is Python's identity test in TVM, not an operator: write `R.equal(a, b)`",
                        );
                    }
                    ast::CmpOp::NotEq => {
                        return err(
                            e.span,
                            "`!=` of Relax values is Python's identity test in TVM, not an operator: write `R.not_equal(a, b)`",
                        );
                    }
                    _ => return err(e.span, "this comparison has no Relax operator"),
                };
                (name, vec![&**left, right])
            }
            _ => return err(e.span, "expected an operator expression"),
        };
        for o in &operands {
            if !self.is_relax_value(o) {
                return err(
                    o.span,
                    format!(
                        "the operands of a Relax operator (`R.{op}`) must be Relax values: write {} as `R.const(...)` or `R.prim_value(...)`",
                        o.describe()
                    ),
                );
            }
        }
        let args: Vec<ast::Expr> = operands.into_iter().cloned().collect();
        self.r_call(&format!("R.{op}"), e, &args, &[])
    }

    fn metadata_constant(
        &mut self,
        key: &ast::Expr,
        index: &ast::Expr,
        span: Span,
    ) -> PResult<Expr> {
        let table = match &key.kind {
            A::Str(s) if self.m.embedded.contains_key(s) => &self.m.embedded[s],
            A::Str(s) if s == "ir.GenericConst" => &self.m.options.metadata,
            _ => {
                return err(
                    key.span,
                    "expected `\"ir.GenericConst\"` (or a key of the file's `metadata = \
                     tvm.ir.load_json(...)` table): only tensor constants are read from metadata",
                );
            }
        };
        let Some(i) = int_of(index).filter(|i| *i >= 0) else {
            return err(index.span, "expected a non-negative integer metadata index");
        };
        if table.is_empty() {
            // Reading (and printing) needs no values: the constant stays a reference, with
            // the struct info of the binding that names it (see `make_binding`).
            let c = Constant::placeholder(i as usize, StructInfo::tensor_ndim(-1, None))
                .map_err(|e| ParseError::new(span, format!("metadata constant: {e}")))?;
            return Ok(Expr::new(ExprKind::Constant(c)));
        }
        let Some(t) = usize::try_from(i).ok().and_then(|i| table.get(i)) else {
            return err(
                index.span,
                format!(
                    "metadata index {i} is out of range: the table has {} constants",
                    table.len()
                ),
            );
        };
        let c = constant_of(t.clone(), Some(i as usize), span)?;
        Ok(Expr::new(ExprKind::Constant(c)))
    }

    fn call(&mut self, e: &ast::Expr) -> PResult<Expr> {
        let A::Call {
            func,
            args,
            keywords,
        } = &e.kind
        else {
            return err(e.span, "expected a call");
        };
        if let Some(g) = self.global_ref(func)? {
            let mut a = Args::new(&format!("cls.{g}"), e.span, &[], keywords);
            let ty_args = match a.get(usize::MAX, "ty_args")? {
                Some(t) => self.ty_args(t)?,
                None => Vec::new(),
            };
            a.finish(0)?;
            let args = args.iter().map(|x| self.expr(x)).collect::<PResult<_>>()?;
            return Ok(Expr::call(Callee::Global(g), args, Attrs::new(), ty_args));
        }
        // `x.astype("float16")`: TVM's `relax.Expr.astype` method is `R.astype`.
        if let A::Attribute { value, attr } = &func.kind
            && attr == "astype"
            && self.is_relax_value(value)
        {
            let mut operands = vec![(**value).clone()];
            operands.extend(args.iter().cloned());
            return self.r_call("R.astype", e, &operands, keywords);
        }
        let name = func.dotted_name();
        if let Some(name) = &name {
            if name.starts_with("R.") {
                return self.r_call(name, e, args, keywords);
            }
            // `relax.op.add(...)`, `relax.op.nn.relu(...)`: the Python API's spelling of the
            // operators that TVMScript calls `R.add`, `R.nn.relu` (the same functions).
            if let Some(op) = name
                .strip_prefix("relax.op.")
                .or_else(|| name.strip_prefix("tvm.relax.op."))
            {
                return self.r_call(&format!("R.{op}"), e, args, keywords);
            }
            if name.starts_with("T.") {
                return Ok(Expr::prim(self.prim(e, false)?));
            }
        }
        let callee = match func.as_name() {
            Some(n) => match self.lookup_var(n) {
                Some(v) => Expr::var(v),
                None => return err(func.span, format!("undefined function `{n}`")),
            },
            None if name.is_some() => {
                return err(
                    func.span,
                    format!("unknown function `{}`", name.unwrap_or_default()),
                );
            }
            None => self.expr(func)?,
        };
        let mut a = Args::new("call", e.span, &[], keywords);
        let ty_args = match a.get(usize::MAX, "ty_args")? {
            Some(t) => self.ty_args(t)?,
            None => Vec::new(),
        };
        a.finish(0)?;
        let args = args.iter().map(|x| self.expr(x)).collect::<PResult<_>>()?;
        Ok(Expr::call(
            Callee::Expr(callee),
            args,
            Attrs::new(),
            ty_args,
        ))
    }

    /// `(a, b)` as the argument tuple of `call_tir` and friends; a single non-tuple value is
    /// wrapped.
    fn arg_tuple(&mut self, e: &ast::Expr) -> PResult<Expr> {
        match &e.kind {
            A::Tuple(_) | A::List(_) => self.expr(e),
            _ => {
                let v = self.expr(e)?;
                Ok(if matches!(v.kind(), ExprKind::Tuple(_)) {
                    v
                } else {
                    Expr::tuple(vec![v])
                })
            }
        }
    }

    /// The callee of `R.call_tir`: `cls.f` (or a name bound to a global).
    fn tir_callee(&mut self, e: &ast::Expr) -> PResult<Expr> {
        let v = self.expr(e)?;
        match v.kind() {
            ExprKind::GlobalVar(_) | ExprKind::ExternFunc(_) => Ok(v),
            _ => err(e.span, "expected a module function `cls.f`"),
        }
    }

    fn r_call(
        &mut self,
        name: &str,
        e: &ast::Expr,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
    ) -> PResult<Expr> {
        let span = e.span;
        let mut a = Args::new(name, span, args, keywords);
        let op = |n: &str| Callee::Op(n.to_string());
        match name {
            "R.call_tir" | "R.call_tir_inplace" => {
                let inplace = name == "R.call_tir_inplace";
                let callee = self.tir_callee(a.require(0, "gvar")?)?;
                let tuple = self.arg_tuple(a.require(1, "args")?)?;
                let mut attrs = Attrs::new();
                let mut pos = 2;
                if inplace {
                    let idx = a.require(2, "inplace_indices")?;
                    let v = self.attr_value(idx, "inplace_indices")?;
                    let v = match v {
                        AttrValue::Int(i) => AttrValue::List(vec![AttrValue::Int(i)]),
                        AttrValue::List(items) if items.iter().all(|i| i.as_int().is_some()) => {
                            AttrValue::List(items)
                        }
                        _ => return err(idx.span, "expected a list of integer indices"),
                    };
                    attrs.set("inplace_indices", v);
                    pos = 3;
                }
                let out = a.require(pos, "out_ty")?;
                let out = self.out_struct_info(out)?;
                let mut call_args = vec![callee, tuple];
                if let Some(tv) = a.get(pos + 1, "tir_vars")?
                    && !matches!(tv.kind, A::None)
                {
                    let v = self.expr(tv)?;
                    let v = match v.kind() {
                        ExprKind::Tuple(items) => {
                            let mut dims = Vec::new();
                            for i in items {
                                match i.kind() {
                                    ExprKind::PrimValue(p) => dims.push(p.clone()),
                                    _ => return err(tv.span, "expected symbolic values"),
                                }
                            }
                            Expr::shape(dims)
                        }
                        ExprKind::ShapeExpr(_) | ExprKind::Var(_) => v,
                        _ => return err(tv.span, "expected `R.shape([...])`"),
                    };
                    call_args.push(v);
                }
                a.finish(pos + 2)?;
                let opname = if inplace {
                    "relax.call_tir_inplace"
                } else {
                    "relax.call_tir"
                };
                Ok(Expr::call(op(opname), call_args, attrs, vec![out]))
            }
            "R.call_dps_packed" => {
                let f = self.extern_func(a.require(0, "func")?)?;
                let tuple = self.arg_tuple(a.require(1, "args")?)?;
                let out = a.require(2, "out_ty")?;
                let out = self.out_struct_info(out)?;
                a.finish(3)?;
                Ok(Expr::call(
                    op("relax.call_dps_packed"),
                    vec![f, tuple],
                    Attrs::new(),
                    vec![out],
                ))
            }
            "R.call_packed" | "R.call_pure_packed" => {
                let Some((first, rest)) = args.split_first() else {
                    return err(span, format!("`{name}` needs the packed function's name"));
                };
                let fname = string_arg(first, "the packed function's name")?;
                let ty_args = match a.get(usize::MAX, "ty_args")? {
                    Some(t) => self.ty_args(t)?,
                    None => Vec::new(),
                };
                a.finish(usize::MAX)?;
                let mut call_args = Vec::new();
                for x in rest {
                    call_args.push(self.expr(x)?);
                }
                if name == "R.call_packed" {
                    Ok(Expr::call(
                        Callee::Extern(fname),
                        call_args,
                        Attrs::new(),
                        ty_args,
                    ))
                } else {
                    call_args.insert(0, Expr::extern_func(fname));
                    Ok(Expr::call(
                        op("relax.call_pure_packed"),
                        call_args,
                        Attrs::new(),
                        ty_args,
                    ))
                }
            }
            "R.call_builtin_with_ctx" => {
                let f = self.extern_func(a.require(0, "func")?)?;
                let tuple = self.arg_tuple(a.require(1, "args")?)?;
                let ty_args = match a.get(2, "ty_args")? {
                    Some(t) => self.ty_args(t)?,
                    None => Vec::new(),
                };
                a.finish(3)?;
                Ok(Expr::call(
                    op("relax.call_builtin_with_ctx"),
                    vec![f, tuple],
                    Attrs::new(),
                    ty_args,
                ))
            }
            "R.make_closure" => {
                let f = self.expr(a.require(0, "func")?)?;
                let tuple = self.arg_tuple(a.require(1, "args")?)?;
                a.finish(2)?;
                Ok(Expr::call(
                    op("relax.make_closure"),
                    vec![f, tuple],
                    Attrs::new(),
                    Vec::new(),
                ))
            }
            "R.invoke_closure" | "R.invoke_pure_closure" => {
                let f = self.expr(a.require(0, "closure")?)?;
                let tuple = self.arg_tuple(a.require(1, "args")?)?;
                let ty_args = match a.get(2, "ty_args")? {
                    Some(t) => self.ty_args(t)?,
                    None => Vec::new(),
                };
                a.finish(3)?;
                let opname = if name == "R.invoke_closure" {
                    "relax.invoke_closure"
                } else {
                    "relax.invoke_pure_closure"
                };
                Ok(Expr::call(
                    op(opname),
                    vec![f, tuple],
                    Attrs::new(),
                    ty_args,
                ))
            }
            "R.match_cast" => err(
                span,
                "`R.match_cast` may only be the whole value of a binding (`y: ST = R.match_cast(x, ST)`)",
            ),
            "R.const" => {
                let value = a.require(0, "value")?;
                let dtype = match a.get(1, "dtype")? {
                    Some(d) if !matches!(d.kind, A::None) => {
                        Some(parse_dtype(&string_arg(d, "a data type")?, d.span)?)
                    }
                    _ => None,
                };
                a.finish(2)?;
                let c = const_literal(value, dtype)?;
                Ok(Expr::new(ExprKind::Constant(c)))
            }
            "R.prim_value" => {
                let v = a.require(0, "value")?;
                a.finish(1)?;
                Ok(Expr::prim(self.prim(v, false)?))
            }
            "R.str" => {
                let v = a.require(0, "value")?;
                a.finish(1)?;
                Ok(Expr::new(ExprKind::StringImm(string_arg(v, "the string")?)))
            }
            "R.dtype" => {
                let v = a.require(0, "value")?;
                a.finish(1)?;
                let s = string_arg(v, "a data type")?;
                Ok(Expr::new(ExprKind::DataTypeImm(parse_dtype(&s, v.span)?)))
            }
            "R.shape" => {
                let v = a.require(0, "value")?;
                a.finish(1)?;
                Ok(Expr::shape(self.dims(v)?))
            }
            "R.ExternFunc" => Ok(Expr::new(ExprKind::ExternFunc(self.extern_decl(e)?))),
            "R.tuple" => {
                a.finish(usize::MAX)?;
                Ok(Expr::tuple(
                    args.iter().map(|x| self.expr(x)).collect::<PResult<_>>()?,
                ))
            }
            _ => match builtins::lookup_script(name) {
                Some(def) => self.op_call(def, name, e, args, keywords),
                None => err(span, format!("unknown operator `{name}`")),
            },
        }
    }

    /// `R.ExternFunc("symbol"[, R.Callable(...)])`, at module level or as a value in a body.
    fn extern_decl(&mut self, e: &ast::Expr) -> PResult<ExternFunc> {
        let Some((name, args, keywords)) = call_parts(e) else {
            return err(e.span, "expected `R.ExternFunc(\"symbol\")`");
        };
        let mut a = Args::new(&name, e.span, args, keywords);
        let symbol = a.require(0, "global_symbol")?;
        let ty = a.get(1, "ty")?;
        a.finish(2)?;
        let global_symbol = string_arg(symbol, "the packed function's name")?;
        let struct_info = match ty {
            None => ExternFunc::default_struct_info(),
            Some(t) => match self.struct_info(t)? {
                si @ StructInfo::Func { .. } => si,
                _ => return err(t.span, "an extern function's type must be an `R.Callable`"),
            },
        };
        Ok(ExternFunc {
            global_symbol,
            struct_info,
        })
    }

    /// `"name"` or `R.ExternFunc("name")` as the callee of a packed call.
    fn extern_func(&mut self, e: &ast::Expr) -> PResult<Expr> {
        if let A::Str(s) = &e.kind {
            return Ok(Expr::extern_func(s.clone()));
        }
        let v = self.expr(e)?;
        match v.kind() {
            ExprKind::ExternFunc(_) | ExprKind::GlobalVar(_) => Ok(v),
            _ => err(e.span, "expected the packed function's name as a string"),
        }
    }

    /// An argument for expression parameter `p` of operator `op`: strings are data types for
    /// `dtype` parameters (`R.memory.alloc_storage(..., dtype="float32")`), and a tuple or
    /// list given for a shape parameter is a shape (`R.reshape(x, (2, 3))`), as TVM's Python
    /// wrappers of these operators make `ShapeExpr(shape)` of it. `R.image.resize2d`'s `size`
    /// may be one dimension, or a list of one, for a square.
    fn expr_param(&mut self, op: &str, p: &OpParam, e: &ast::Expr) -> PResult<Expr> {
        if let A::Str(s) = &e.kind
            && p.name.ends_with("dtype")
        {
            return Ok(Expr::new(ExprKind::DataTypeImm(parse_dtype(s, e.span)?)));
        }
        if SHAPE_PARAMS.contains(&(op, p.name)) {
            if let A::Tuple(items) | A::List(items) = &e.kind {
                let mut dims = items
                    .iter()
                    .map(|d| self.dim(d))
                    .collect::<PResult<Vec<_>>>()?;
                if op == "R.image.resize2d" && dims.len() == 1 {
                    dims.push(dims[0].clone());
                }
                return Ok(Expr::shape(dims));
            }
            if op == "R.image.resize2d"
                && matches!(e.kind, A::Int(_) | A::Name(_) | A::BinOp { .. })
                && !self.is_relax_value(e)
            {
                let d = self.dim(e)?;
                return Ok(Expr::shape(vec![d.clone(), d]));
            }
        }
        self.expr(e)
    }

    fn op_call(
        &mut self,
        def: OpView,
        name: &str,
        e: &ast::Expr,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
    ) -> PResult<Expr> {
        let mut call_args = Vec::new();
        let mut attrs = Attrs::new();
        let mut used = vec![false; keywords.len()];
        let mut pos = 0;
        let mut ty_args = Vec::new();
        // Expression parameters left out with no default, not yet written: a later expression
        // argument keeps its position by a void `R.tuple()` in each, as TVM's Python wrappers
        // write it (`R.memory.view(x, dtype="uint32")` is `view(x, R.tuple(), dtype,
        // R.tuple())`). Operators whose constructor canonicalizes their arguments (`R.eye`,
        // `R.arange`) take the shorter list as it is.
        let keeps_positions = def.def.is_some_and(|d| d.canonicalize.is_none());
        let mut omitted = 0;
        for p in def.params {
            if p.kind == ParamKind::VariadicExpr {
                while let Some(a) = args.get(pos) {
                    match &a.kind {
                        // TVM's `R.assert_op(cond, [a, b], format=…)` takes its format
                        // arguments as a Python list (a tuple is one argument).
                        A::List(items) if name == "R.assert_op" => {
                            for item in items {
                                call_args.push(self.expr(item)?);
                            }
                        }
                        _ => call_args.push(self.expr(a)?),
                    }
                    pos += 1;
                }
                continue;
            }
            let is_attr = p.kind == ParamKind::Attr;
            let is_expr = p.kind == ParamKind::Expr;
            let kw = find_keyword(keywords, p.name);
            if let Some(i) = kw {
                used[i] = true;
            }
            // Struct-info parameters (`out_ty=`, `ty_args=`) are given by keyword only.
            let positional = if is_attr || is_expr {
                args.get(pos)
            } else {
                None
            };
            let given = match (positional, kw) {
                (Some(_), Some(i)) => {
                    return err(
                        keywords[i].span,
                        format!("`{name}` got argument `{}` twice", p.name),
                    );
                }
                (Some(a), None) => {
                    pos += 1;
                    Some(a)
                }
                (None, Some(i)) => Some(&keywords[i].value),
                (None, None) => None,
            };
            match given {
                Some(v) if is_attr => {
                    let v = self.attr_value(v, p.name)?;
                    attrs.set(p.name, v);
                }
                Some(v) if is_expr => {
                    if keeps_positions {
                        call_args.extend((0..omitted).map(|_| Expr::tuple(Vec::new())));
                        omitted = 0;
                    }
                    call_args.push(self.expr_param(name, p, v)?)
                }
                Some(v) => ty_args = self.ty_args(v)?,
                None => match p.default {
                    Some(d) if is_attr => attrs.set(p.name, d()),
                    Some(d) if is_expr => match default_expr(d()) {
                        Some(v) => {
                            if keeps_positions {
                                call_args.extend((0..omitted).map(|_| Expr::tuple(Vec::new())));
                                omitted = 0;
                            }
                            call_args.push(v);
                        }
                        None => omitted += 1,
                    },
                    Some(_) => {}
                    None => {
                        return err(e.span, format!("`{name}` is missing argument `{}`", p.name));
                    }
                },
            }
        }
        if let Some(extra) = args.get(pos) {
            return err(
                extra.span,
                format!("`{name}` takes at most {pos} positional argument(s)"),
            );
        }
        for (k, u) in keywords.iter().zip(&used) {
            if *u {
                continue;
            }
            if k.name == "ty_args" || k.name == "sinfo_args" {
                ty_args = self.ty_args(&k.value)?;
                continue;
            }
            return err(
                k.span,
                format!("unexpected keyword argument `{}` of `{name}`", k.name),
            );
        }
        if let Some(d) = def.def {
            // TVM's constructors store some attributes in a canonical form (an `int` axis as a
            // list, full padding); the registry knows which.
            crate::op::canonicalize(d, &mut call_args, &mut attrs)
                .map_err(|x| ParseError::new(e.span, format!("`{name}`: {x}")))?;
        }
        Ok(Expr::call(
            Callee::Op(def.name.to_string()),
            call_args,
            attrs,
            ty_args,
        ))
    }

    // ----- functions and bodies -----

    /// Parameters and return struct info of a definition.
    fn signature(&mut self, def: &ast::FunctionDef) -> PResult<(Vec<Var>, StructInfo)> {
        let mut params = Vec::new();
        for p in &def.params {
            let Some(ann) = &p.annotation else {
                return err(
                    p.span,
                    format!("parameter `{}` needs a struct info annotation", p.name),
                );
            };
            if let Some(d) = &p.default {
                return err(d.span, "Relax parameters cannot have default values");
            }
            let si = self.struct_info(ann)?;
            params.push(Var::new(p.name.as_str(), si));
        }
        let ret = match &def.returns {
            Some(r) => self.struct_info(r)?,
            None => StructInfo::Any,
        };
        Ok((params, ret))
    }

    /// `private` and `pure` of a definition's `@R.function(...)` decorator.
    fn decorator_flags(def: &ast::FunctionDef) -> PResult<(bool, bool)> {
        let Some(dec) = relax_decorator(def) else {
            return err(def.span, "expected `@R.function`");
        };
        let mut private = false;
        let mut is_pure = true;
        if let Some((_, dargs, dkws)) = call_parts(dec) {
            if let Some(a) = dargs.first() {
                return err(a.span, "`R.function` takes keyword arguments only");
            }
            for k in dkws {
                let A::Bool(b) = k.value.kind else {
                    return err(k.value.span, "expected `True` or `False`");
                };
                match k.name.as_str() {
                    "private" => private = b,
                    "pure" => is_pure = b,
                    // TVM's parser option: which well-formedness check runs after parsing; the
                    // pipeline here verifies what it compiles either way.
                    "check_well_formed" => {}
                    _ => {
                        return err(
                            k.span,
                            format!("unexpected keyword argument `{}` of `R.function`", k.name),
                        );
                    }
                }
            }
        }
        Ok((private, is_pure))
    }

    fn function(&mut self, def: &ast::FunctionDef) -> PResult<Function> {
        let (private, is_pure) = Self::decorator_flags(def)?;
        self.scopes.push(HashMap::new());
        self.supply.push(HashMap::new());
        let r = self.function_inner(def, private, is_pure);
        self.supply.pop();
        self.scopes.pop();
        r
    }

    fn function_inner(
        &mut self,
        def: &ast::FunctionDef,
        private: bool,
        is_pure: bool,
    ) -> PResult<Function> {
        let (params, declared_ret) = self.signature(def)?;
        for p in &params {
            self.bind(p);
        }
        let mut attrs = Attrs::new();
        let mut body = Body::default();
        let mut ret = None;
        for (i, stmt) in def.body.iter().enumerate() {
            // The function's docstring.
            if i == 0
                && def.body.len() > 1
                && matches!(
                    &stmt.kind,
                    S::Expr(ast::Expr {
                        kind: A::Str(_),
                        ..
                    })
                )
            {
                continue;
            }
            if let S::Expr(e) = &stmt.kind
                && e.call_name().as_deref() == Some("R.func_attr")
            {
                let Some((_, [dict], [])) = call_parts(e) else {
                    return err(e.span, "`R.func_attr` takes one dict");
                };
                for (k, v) in self.attr_dict(dict)?.0 {
                    attrs.set(&k, v);
                }
                // A map to TVM, which prints its keys sorted.
                attrs.0.sort_by(|a, b| a.0.cmp(&b.0));
                continue;
            }
            if let S::Return(value) = &stmt.kind {
                if i + 1 != def.body.len() {
                    return err(def.body[i + 1].span, "statement after `return`");
                }
                let Some(value) = value else {
                    return err(stmt.span, "a Relax function must return a value");
                };
                let v = self.expr(value)?;
                let v = self.normalize(&v, BlockKind::Plain, &mut body, value.span)?;
                ret = Some(if is_leaf_or_tuple(&v) {
                    v
                } else {
                    self.emit(v, BlockKind::Plain, &mut body, value.span)?
                });
                continue;
            }
            self.stmt(stmt, &mut body, BlockKind::Plain)?;
        }
        let Some(ret) = ret else {
            return err(
                def.name_span,
                format!("function `{}` has no `return`", def.name),
            );
        };
        // TVM's `Function` constructor: the body's struct info is the return struct info when
        // none is declared, and also when the declared one is a base of it (a declared
        // `R.Tensor(ndim=4)` over a body of `R.Tensor((2, 4, 26, 26))` is the latter).
        let inferred = self.infer(&ret, def.name_span)?;
        // (TVM 0.27's `R.Prim` carries no value, so a declared `T.int64` stays as written.)
        let use_body = match &def.returns {
            Some(_) => {
                !matches!(declared_ret, StructInfo::Prim { .. })
                    && is_base_of(&declared_ret, &inferred)
            }
            None => true,
        };
        let ret_struct_info = if !use_body {
            declared_ret
        } else if self.supply.len() > 2 {
            // An inner function may refer to every variable of the enclosing one.
            inferred
        } else {
            // Symbolic variables that the parameters do not define (bound in the body by
            // `R.match_cast`) are out of scope for callers: TVM erases them.
            let mut defined = HashSet::new();
            for p in &params {
                visit_symbolic_vars(p.struct_info(), &mut |v| {
                    defined.insert(v.id());
                });
            }
            substitute_struct_info(&inferred, &HashMap::new(), &|v| defined.contains(&v.id()))
        };
        Ok(Function {
            name: def.name.clone(),
            params,
            body: body.finish(ret),
            ret_struct_info,
            is_pure,
            private,
            attrs,
        })
    }

    fn new_var(&self, name: &str, si: StructInfo, kind: BlockKind) -> Var {
        if kind == BlockKind::Dataflow && !self.outputs.contains(name) {
            Var::dataflow(name, si)
        } else {
            Var::new(name, si)
        }
    }

    fn stmt(&mut self, stmt: &ast::Stmt, body: &mut Body, kind: BlockKind) -> PResult<()> {
        match &stmt.kind {
            S::Expr(e) => {
                match e.call_name().as_deref() {
                    Some("R.func_attr") => {
                        return err(
                            e.span,
                            "`R.func_attr` belongs at the top of a function body",
                        );
                    }
                    Some("R.output") => {
                        return err(
                            e.span,
                            "`R.output` must be the last statement of a `with R.dataflow():` block",
                        );
                    }
                    _ => {}
                }
                let value = self.expr(e)?;
                let value = self.normalize(&value, kind, body, e.span)?;
                let si = self.infer(&value, e.span)?;
                self.fresh_name(kind);
                let var = self.new_var("_", si, kind);
                body.push(Binding::Var { var, value });
                Ok(())
            }
            S::Assign { targets, value } => {
                let [target] = targets.as_slice() else {
                    return err(stmt.span, "chained assignment is not supported");
                };
                // `n, m = T.int64(), T.int64()`: symbolic variables declared side by side.
                if let (A::Tuple(names), A::Tuple(values)) = (&target.kind, &value.kind)
                    && names.len() == values.len()
                {
                    for (t, v) in names.iter().zip(values) {
                        let declared = t.as_name().is_some_and(|n| self.declare_sym(n, v));
                        if !declared {
                            return err(
                                t.span,
                                "a tuple assignment may only declare symbolic variables \
                                 (`n, m = T.int64(), T.int64()`); bind values one per line",
                            );
                        }
                    }
                    return Ok(());
                }
                let Some(name) = target.as_name() else {
                    return err(
                        target.span,
                        "expected a variable name (tuple unpacking is not supported; use `t[i]`)",
                    );
                };
                if value.as_name() == Some(self.m.class_name.as_str())
                    && self.lookup_var(&self.m.class_name).is_none()
                {
                    self.cls.insert(name.to_string());
                    return Ok(());
                }
                if self.declare_sym(name, value) {
                    return Ok(());
                }
                self.binding(name, None, value, body, kind)
            }
            S::AnnAssign {
                target,
                annotation,
                value,
            } => {
                let Some(name) = target.as_name() else {
                    return err(target.span, "expected a variable name");
                };
                let Some(value) = value else {
                    return err(stmt.span, "a binding needs a value (`x: ST = value`)");
                };
                self.binding(name, Some(annotation), value, body, kind)
            }
            S::With { items, body: inner } => {
                let [item] = items.as_slice() else {
                    return err(stmt.span, "expected `with R.dataflow():`");
                };
                if item.context.call_name().as_deref() != Some("R.dataflow") || item.vars.is_some()
                {
                    return err(item.context.span, "expected `with R.dataflow():`");
                }
                if kind == BlockKind::Dataflow {
                    return err(stmt.span, "dataflow blocks do not nest");
                }
                self.dataflow(inner, body)
            }
            S::If {
                test,
                body: then,
                orelse,
            } => {
                if kind == BlockKind::Dataflow {
                    return err(stmt.span, "`if` is not allowed inside a dataflow block");
                }
                self.if_binding(stmt.span, test, then, orelse, body)
            }
            S::FunctionDef(def) => {
                if relax_decorator(def).is_none() {
                    return err(def.name_span, "an inner function needs `@R.function`");
                }
                // A function with a declared return may call itself (a loop, as Relax writes
                // one): its name is bound while its body is read, to a variable of the
                // declared signature, which then binds it if the body used it.
                let recursive = match def.returns {
                    Some(_) => {
                        self.scopes.push(HashMap::new());
                        self.supply.push(HashMap::new());
                        let signature = self.signature(def);
                        self.supply.pop();
                        self.scopes.pop();
                        let (params, ret) = signature?;
                        let (_, pure) = Self::decorator_flags(def)?;
                        let si = StructInfo::Func {
                            params: Some(params.iter().map(|p| p.struct_info().clone()).collect()),
                            ret: Box::new(ret),
                            pure,
                        };
                        let own = self.new_var(&def.name, si, kind);
                        self.bind(&own);
                        Some(own)
                    }
                    None => None,
                };
                let f = self.function(def)?;
                self.fresh_name(kind);
                let var = match recursive {
                    Some(own) if uses_var(&f, &own) => own,
                    _ => self.new_var(&def.name, f.struct_info(), kind),
                };
                self.bind(&var);
                body.push(Binding::Var {
                    var,
                    value: Expr::new(ExprKind::Function(Box::new(f))),
                });
                Ok(())
            }
            S::Pass => Ok(()),
            S::Return(_) => err(
                stmt.span,
                "`return` is only allowed at the end of a function",
            ),
            _ => err(stmt.span, "unsupported statement in a Relax function"),
        }
    }

    fn binding(
        &mut self,
        name: &str,
        annotation: Option<&ast::Expr>,
        value: &ast::Expr,
        body: &mut Body,
        kind: BlockKind,
    ) -> PResult<()> {
        let binding = self.make_binding(name, annotation, value, body, kind)?;
        self.bind(binding.var());
        body.push(binding);
        Ok(())
    }

    fn make_binding(
        &mut self,
        name: &str,
        annotation: Option<&ast::Expr>,
        value: &ast::Expr,
        body: &mut Body,
        kind: BlockKind,
    ) -> PResult<Binding> {
        if let Some((callee, args, keywords)) = call_parts(value)
            && callee == "R.match_cast"
        {
            let mut a = Args::new("R.match_cast", value.span, args, keywords);
            let v = a.require(0, "value")?;
            let st = a.require(1, "struct_info")?;
            a.finish(2)?;
            let v = self.expr(v)?;
            let v = self.normalize(&v, kind, body, value.span)?;
            self.fresh_name(kind);
            let si = self.struct_info(st)?;
            let var_si = match annotation {
                Some(ann) => self.struct_info(ann)?,
                None => si.clone(),
            };
            let var = self.new_var(name, var_si, kind);
            return Ok(Binding::MatchCast {
                var,
                value: v,
                struct_info: si,
            });
        }
        let v = self.expr(value)?;
        let v = self.normalize(&v, kind, body, value.span)?;
        self.fresh_name(kind);
        let si = match annotation {
            Some(ann) => {
                let si = self.struct_info(ann)?;
                self.check_annotation(&si, &v, ann.span)?;
                si
            }
            None => self.infer(&v, value.span)?,
        };
        // A metadata reference read without the table takes its binding's annotation.
        let v = match v.kind() {
            ExprKind::Constant(c) if c.is_placeholder() && annotation.is_some() => {
                Expr::new(ExprKind::Constant(Constant {
                    struct_info: si.clone(),
                    ..c.clone()
                }))
            }
            _ => v,
        };
        Ok(Binding::Var {
            var: self.new_var(name, si, kind),
            value: v,
        })
    }

    fn dataflow(&mut self, stmts: &[ast::Stmt], body: &mut Body) -> PResult<()> {
        let mut outputs = Vec::new();
        let mut inner = stmts;
        if let Some(last) = stmts.last()
            && let S::Expr(e) = &last.kind
            && e.call_name().as_deref() == Some("R.output")
        {
            let Some((_, args, kws)) = call_parts(e) else {
                return err(e.span, "expected `R.output(...)`");
            };
            if let Some(k) = kws.first() {
                return err(k.span, "`R.output` takes variable names");
            }
            for a in args {
                let Some(n) = a.as_name() else {
                    return err(a.span, "`R.output` takes variable names");
                };
                outputs.push((n.to_string(), a.span));
            }
            inner = &stmts[..stmts.len() - 1];
        }
        body.flush();
        let saved = std::mem::replace(
            &mut self.outputs,
            outputs.iter().map(|(n, _)| n.clone()).collect(),
        );
        self.scopes.push(HashMap::new());
        let mut block = Body::default();
        let mut r = Ok(());
        for s in inner {
            r = self.stmt(s, &mut block, BlockKind::Dataflow);
            if r.is_err() {
                break;
            }
        }
        let scope = self.scopes.pop().unwrap_or_default();
        self.outputs = saved;
        r?;
        for (n, span) in &outputs {
            match scope.get(n) {
                Some(v) => {
                    let v = v.clone();
                    self.bind(&v);
                }
                None => {
                    return err(
                        *span,
                        format!("`{n}` is not defined in this dataflow block"),
                    );
                }
            }
        }
        body.blocks.push(BindingBlock {
            bindings: block.current,
            dataflow: true,
        });
        Ok(())
    }

    fn if_binding(
        &mut self,
        span: Span,
        test: &ast::Expr,
        then: &[ast::Stmt],
        orelse: &[ast::Stmt],
        body: &mut Body,
    ) -> PResult<()> {
        let cond = self.expr(test)?;
        let cond = normalize_operand(&cond, &mut |x| {
            self.emit(x, BlockKind::Plain, body, test.span)
        })?;
        if orelse.is_empty() {
            return err(span, "a Relax `if` needs an `else` branch");
        }
        let (then_seq, name, then_si) = self.branch(then, "_then", span)?;
        let (else_seq, else_name, else_si) = self.branch(orelse, "_else", span)?;
        if name != else_name {
            let at = orelse.last().map(|s| s.span).unwrap_or(span);
            return err(
                at,
                format!(
                    "both branches must end by assigning the same variable (`{name}` and `{else_name}`)"
                ),
            );
        }
        let si = match (then_si, else_si) {
            (Some(si), _) | (None, Some(si)) => si,
            (None, None) => self.infer(&then_seq.body, span)?,
        };
        self.fresh_name(BlockKind::Plain);
        let var = Var::new(name.as_str(), si);
        self.bind(&var);
        body.push(Binding::Var {
            var,
            value: Expr::new(ExprKind::If(If {
                cond,
                then_branch: then_seq,
                else_branch: else_seq,
            })),
        });
        Ok(())
    }

    /// One branch of an `if`: its bindings, the name its last statement assigns, and that
    /// statement's annotation.
    fn branch(
        &mut self,
        stmts: &[ast::Stmt],
        postfix: &str,
        span: Span,
    ) -> PResult<(SeqExpr, String, Option<StructInfo>)> {
        let Some((last, init)) = stmts.split_last() else {
            return err(span, "empty branch");
        };
        self.scopes.push(HashMap::new());
        let r = self.branch_inner(last, init, postfix);
        self.scopes.pop();
        r
    }

    fn branch_inner(
        &mut self,
        last: &ast::Stmt,
        init: &[ast::Stmt],
        postfix: &str,
    ) -> PResult<(SeqExpr, String, Option<StructInfo>)> {
        let mut body = Body::default();
        for s in init {
            self.stmt(s, &mut body, BlockKind::Plain)?;
        }
        let (target, annotation, value) = match &last.kind {
            S::Assign { targets, value } if targets.len() == 1 => (&targets[0], None, value),
            S::AnnAssign {
                target,
                annotation,
                value: Some(value),
            } => (target, Some(annotation), value),
            _ => {
                return err(
                    last.span,
                    "the last statement of an `if` branch must assign the `if`'s result (`r: ST = value`)",
                );
            }
        };
        let Some(name) = target.as_name() else {
            return err(target.span, "expected a variable name");
        };
        let si = match annotation {
            Some(a) => Some(self.struct_info(a)?),
            None => None,
        };
        let v = self.expr(value)?;
        let v = self.normalize(&v, BlockKind::Plain, &mut body, value.span)?;
        self.fresh_name(BlockKind::Plain);
        let result = if is_leaf_or_tuple(&v) {
            v
        } else {
            let vsi = match &si {
                Some(s) => s.clone(),
                None => self.infer(&v, value.span)?,
            };
            let var = Var::new(format!("{name}{postfix}"), vsi);
            body.push(Binding::Var {
                var: var.clone(),
                value: v,
            });
            Expr::var(&var)
        };
        Ok((body.finish(result), name.to_string(), si))
    }

    // ----- normalization -----

    /// The next name of the current function's name supply for a binding in a `kind` block.
    fn fresh_name(&mut self, kind: BlockKind) -> String {
        let hint = match kind {
            BlockKind::Dataflow => "lv",
            BlockKind::Plain => "gv",
        };
        let Some(supply) = self.supply.last_mut() else {
            return hint.to_string();
        };
        match supply.get_mut(hint) {
            None => {
                supply.insert(hint, 0);
                hint.to_string()
            }
            Some(n) => {
                *n += 1;
                format!("{hint}{n}")
            }
        }
    }

    /// Binds `value` (whose operands are normalized) to a fresh variable of the name supply,
    /// with inferred struct info; a dataflow variable inside a dataflow block.
    fn emit(&mut self, value: Expr, kind: BlockKind, body: &mut Body, span: Span) -> PResult<Expr> {
        let si = self.infer(&value, span)?;
        let name = self.fresh_name(kind);
        let var = match kind {
            BlockKind::Dataflow => Var::dataflow(name, si),
            BlockKind::Plain => Var::new(name, si),
        };
        body.push(Binding::Var {
            var: var.clone(),
            value,
        });
        Ok(Expr::var(&var))
    }

    /// `value` with its operands in A-normal form, the bindings this needs added to `body`.
    fn normalize(
        &mut self,
        value: &Expr,
        kind: BlockKind,
        body: &mut Body,
        span: Span,
    ) -> PResult<Expr> {
        normalize_operands(value, &mut |x| self.emit(x, kind, body, span))
    }

    /// `name = T.int64()` (any dtype): declares the symbolic variable `name`, and says so. A
    /// name already used in the signature names the same variable (TVM's printer repeats
    /// module-level names this way).
    fn declare_sym(&mut self, name: &str, value: &ast::Expr) -> bool {
        let Some((callee, [], [])) = call_parts(value) else {
            return false;
        };
        let Some(dtype) = callee.strip_prefix("T.").and_then(DataType::parse) else {
            return false;
        };
        match self.lookup_sym(name) {
            Some(v) if v.dtype() == dtype => {}
            _ => {
                self.sym
                    .insert(name.to_string(), tir::Var::new(name, dtype));
            }
        }
        true
    }

    /// An annotated binding's value is inferred too, as TVM's parser normalizes it: a value
    /// that does not type (`R.add` of a float32 and an int16 tensor) is an error although its
    /// binding names a struct info, and so is an annotation whose static type the value's
    /// contradicts ([`crate::struct_info_ops::static_types_conflict`]). Values the normalizer
    /// cannot infer for other reasons keep their annotation.
    fn check_annotation(&self, annotation: &StructInfo, v: &Expr, span: Span) -> PResult<()> {
        match self.m.normalizer.infer(v) {
            Ok(inferred) => {
                if crate::struct_info_ops::static_types_conflict(annotation, &inferred) {
                    return Err(ParseError::new(
                        span,
                        format!(
                            "the annotation {} contradicts the value's struct info {}",
                            crate::struct_info_ops::describe(annotation),
                            crate::struct_info_ops::describe(&inferred)
                        ),
                    ));
                }
                Ok(())
            }
            Err(crate::Error::TypeInference(x)) => Err(ParseError::new(
                span,
                format!("cannot infer the struct info: {x}"),
            )),
            Err(_) => Ok(()),
        }
    }

    // ----- struct info of unannotated bindings -----

    /// The struct info of a value bound without annotation, as the normalizer infers it.
    fn infer(&self, e: &Expr, span: Span) -> PResult<StructInfo> {
        self.m
            .normalizer
            .infer(e)
            .map_err(|x| ParseError::new(span, format!("cannot infer the struct info: {x}")))
    }
}

// ----- constants -----

/// A Relax constant for a VM tensor, with its struct info.
pub(crate) fn constant_of(
    data: vm::Tensor,
    metadata_index: Option<usize>,
    span: Span,
) -> PResult<Constant> {
    let dtype_name = data.dtype().to_string();
    let Some(dtype) = DataType::parse(&dtype_name) else {
        return err(
            span,
            format!("constant of unsupported data type {dtype_name}"),
        );
    };
    let shape = data.shape().iter().map(|&d| PrimExpr::i64(d)).collect();
    Ok(Constant {
        data,
        struct_info: StructInfo::tensor(shape, dtype),
        metadata_index,
    })
}

#[derive(Clone, Copy)]
enum Lit {
    Int(i128),
    Float(f64),
    Bool(bool),
}

/// A literal array: its shape, its elements in row-major order, and (for numpy values) its
/// data type.
type LiteralArray = (Vec<i64>, Vec<Lit>, DataType);

/// The most elements a constant written in the source may have: a bigger one belongs in a
/// parameter or the metadata section, and this keeps `np.zeros((1 << 40,))` from aborting.
const MAX_LITERAL_ELEMENTS: i64 = 1 << 24;

/// The shape and elements of a scalar or a nested list / tuple of numbers.
fn collect_literal(
    e: &ast::Expr,
    depth: usize,
    shape: &mut Vec<i64>,
    out: &mut Vec<Lit>,
) -> PResult<()> {
    if let A::List(items) | A::Tuple(items) = &e.kind {
        if depth > 32 {
            return err(e.span, "constant nested too deeply");
        }
        if shape.len() == depth {
            shape.push(items.len() as i64);
        } else if shape.get(depth) != Some(&(items.len() as i64)) {
            return err(e.span, "ragged constant: rows of different lengths");
        }
        for i in items {
            collect_literal(i, depth + 1, shape, out)?;
        }
        return Ok(());
    }
    if depth != shape.len() {
        return err(e.span, "ragged constant: rows of different depths");
    }
    out.push(number_literal(e)?);
    Ok(())
}

fn number_literal(e: &ast::Expr) -> PResult<Lit> {
    Ok(if let Some(v) = int_of(e) {
        Lit::Int(v)
    } else if let Some(v) = float_of(e) {
        Lit::Float(v)
    } else if let A::Bool(b) = e.kind {
        Lit::Bool(b)
    } else {
        return err(e.span, format!("expected a number, found {}", e.describe()));
    })
}

/// A numpy data type argument: `"float32"`, `np.float32`, or Python's `float` / `int` / `bool`
/// (numpy's `float64` / `int64` / `bool`).
fn numpy_dtype(e: &ast::Expr) -> PResult<DataType> {
    if let A::Str(s) = &e.kind {
        return parse_dtype(s, e.span);
    }
    match e.dotted_name().as_deref() {
        Some("float") => Ok(DataType::FLOAT64),
        Some("int") => Ok(DataType::INT64),
        Some("bool") => Ok(DataType::BOOL),
        Some(n) => match n.strip_prefix("np.").or_else(|| n.strip_prefix("numpy.")) {
            Some("bool_") => Ok(DataType::BOOL),
            Some(t) => parse_dtype(t, e.span),
            None => err(e.span, format!("expected a numpy data type, found `{n}`")),
        },
        None => err(
            e.span,
            format!("expected a numpy data type, found {}", e.describe()),
        ),
    }
}

/// The value of a numpy call, with numpy's data type: `np.array(x, dtype)` / `np.asarray` of a
/// nested list, `np.zeros` / `np.ones(shape, dtype)`, `np.full(shape, fill, dtype)`, and scalar
/// constructors such as `np.float32(x)`. `None` when `e` is not a call of numpy.
fn numpy_literal(e: &ast::Expr) -> PResult<Option<LiteralArray>> {
    let A::Call {
        func,
        args,
        keywords,
    } = &e.kind
    else {
        return Ok(None);
    };
    let Some(name) = func.dotted_name() else {
        return Ok(None);
    };
    let Some(f) = name
        .strip_prefix("np.")
        .or_else(|| name.strip_prefix("numpy."))
    else {
        return Ok(None);
    };
    let arg = |i: usize, key: &str| {
        args.get(i)
            .or_else(|| keywords.iter().find(|k| k.name == key).map(|k| &k.value))
    };
    let allowed: &[&str] = match f {
        "array" | "asarray" => &["dtype"],
        "zeros" | "ones" => &["shape", "dtype"],
        "full" => &["shape", "fill_value", "dtype"],
        "eye" => &["N", "M", "k", "dtype"],
        _ => &[],
    };
    if let Some(k) = keywords
        .iter()
        .find(|k| !allowed.contains(&k.name.as_str()))
    {
        return err(k.span, format!("`{name}` with `{}=` is not read", k.name));
    }
    let positional = match f {
        "array" | "asarray" | "zeros" | "ones" => 2,
        "full" => 3,
        "eye" => 4,
        _ => 1,
    };
    if args.len() > positional {
        return err(
            e.span,
            format!("`{name}` takes at most {positional} arguments here"),
        );
    }
    let dtype_at = |i: usize| arg(i, "dtype").map(numpy_dtype).transpose();
    let filled = |shape_arg: Option<&ast::Expr>, fill: Lit| -> PResult<(Vec<i64>, Vec<Lit>)> {
        let Some(shape_arg) = shape_arg else {
            return err(e.span, format!("`{name}` needs a shape"));
        };
        let dims: Vec<&ast::Expr> = match &shape_arg.kind {
            A::List(items) | A::Tuple(items) => items.iter().collect(),
            _ => vec![shape_arg],
        };
        let mut shape = Vec::new();
        let mut numel: i64 = 1;
        for d in dims {
            let n = int_of(d)
                .and_then(|v| i64::try_from(v).ok())
                .filter(|&v| v >= 0);
            let Some(n) = n else {
                return err(d.span, "expected a non-negative integer dimension");
            };
            numel = numel.saturating_mul(n);
            shape.push(n);
        }
        if numel > MAX_LITERAL_ELEMENTS {
            return err(
                shape_arg.span,
                format!(
                    "a constant of {numel} elements is too large to write in the source (at most {MAX_LITERAL_ELEMENTS})"
                ),
            );
        }
        Ok((shape, vec![fill; numel as usize]))
    };
    let natural = |lits: &[Lit]| {
        if lits.iter().any(|l| matches!(l, Lit::Float(_))) || lits.is_empty() {
            DataType::FLOAT64
        } else if lits.iter().all(|l| matches!(l, Lit::Bool(_))) {
            DataType::BOOL
        } else {
            DataType::INT64
        }
    };
    Ok(Some(match f {
        "array" | "asarray" => {
            let Some(v) = arg(0, "object") else {
                return err(e.span, format!("`{name}` needs a value"));
            };
            let mut shape = Vec::new();
            let mut lits = Vec::new();
            collect_literal(v, 0, &mut shape, &mut lits)?;
            let dtype = dtype_at(1)?.unwrap_or_else(|| natural(&lits));
            (shape, lits, dtype)
        }
        "zeros" | "ones" => {
            let (shape, lits) = filled(arg(0, "shape"), Lit::Int(i128::from(f == "ones")))?;
            (shape, lits, dtype_at(1)?.unwrap_or(DataType::FLOAT64))
        }
        // `np.eye(N, M=None, k=0, dtype=float)`: ones on the k-th diagonal of an N × M matrix.
        "eye" => {
            let count = |key: &str, i: usize, default: Option<i64>| -> PResult<i64> {
                match arg(i, key) {
                    None | Some(ast::Expr { kind: A::None, .. }) => {
                        default.map_or_else(|| err(e.span, format!("`{name}` needs `{key}`")), Ok)
                    }
                    Some(v) => int_of(v)
                        .and_then(|v| i64::try_from(v).ok())
                        .ok_or_else(|| {
                            ParseError::new(v.span, format!("`{key}` must be an integer"))
                        }),
                }
            };
            let n = count("N", 0, None)?;
            let m = count("M", 1, Some(n))?;
            let k = count("k", 2, Some(0))?;
            if n < 0 || m < 0 {
                return err(e.span, format!("`{name}`: negative dimensions {n} × {m}"));
            }
            if n.saturating_mul(m) > MAX_LITERAL_ELEMENTS {
                return err(
                    e.span,
                    format!(
                        "a constant of {n} × {m} elements is too large to write in the source (at most {MAX_LITERAL_ELEMENTS})"
                    ),
                );
            }
            let lits = (0..n)
                .flat_map(|i| (0..m).map(move |j| Lit::Int(i128::from(j - i == k))))
                .collect();
            (vec![n, m], lits, dtype_at(3)?.unwrap_or(DataType::FLOAT64))
        }
        "full" => {
            let Some(fill) = arg(1, "fill_value") else {
                return err(e.span, format!("`{name}` needs a fill value"));
            };
            let fill = number_literal(fill)?;
            let (shape, lits) = filled(arg(0, "shape"), fill)?;
            let dtype = dtype_at(2)?.unwrap_or_else(|| natural(&[fill]));
            (shape, lits, dtype)
        }
        _ => {
            let dtype = numpy_dtype(func).map_err(|_| {
                ParseError::new(
                    e.span,
                    format!("`{name}` is not read in `R.const` (numpy: array, asarray, zeros, ones, full, eye and scalar types)"),
                )
            })?;
            let [v] = args.as_slice() else {
                return err(e.span, format!("`{name}` takes one value"));
            };
            (Vec::new(), vec![number_literal(v)?], dtype)
        }
    }))
}

/// A scalar, nested-list or numpy literal for `R.const(value, dtype)`.
fn const_literal(value: &ast::Expr, dtype: Option<DataType>) -> PResult<Constant> {
    let (shape, lits, array_dtype) = match numpy_literal(value)? {
        Some((shape, lits, dt)) => (shape, lits, Some(dt)),
        None => {
            let mut shape = Vec::new();
            let mut lits = Vec::new();
            collect_literal(value, 0, &mut shape, &mut lits)?;
            (shape, lits, None)
        }
    };
    if shape
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul(d))
        .is_none_or(|n| n > MAX_LITERAL_ELEMENTS)
    {
        return err(value.span, "constant too large to write in the source");
    }
    let dtype = match (dtype, array_dtype) {
        (Some(d), _) => d,
        // TVM's `relax.const` narrows numpy's 64-bit defaults when no dtype is given.
        (None, Some(DataType::INT64)) => DataType::INT32,
        (None, Some(DataType::FLOAT64)) => DataType::FLOAT32,
        (None, Some(d)) => d,
        (None, None) => match lits.first() {
            Some(Lit::Float(_)) => DataType::FLOAT32,
            Some(Lit::Bool(_)) => DataType::BOOL,
            _ => DataType::INT32,
        },
    };
    let vdt: vm::DataType = match dtype.to_string().parse() {
        Ok(d) => d,
        Err(_) => {
            return err(
                value.span,
                format!("constants of type {dtype} are not supported"),
            );
        }
    };
    let mut bytes = Vec::with_capacity(lits.len() * dtype.bytes().max(1));
    for l in lits {
        let (f, i) = match l {
            Lit::Int(v) => (v as f64, v),
            Lit::Float(v) => (v, v as i128),
            Lit::Bool(b) => (b as i64 as f64, b as i128),
        };
        match (dtype.code, dtype.bits) {
            _ if dtype.is_bool() => bytes.push((i != 0) as u8),
            (tir::TypeCode::Float, 64) => bytes.extend(f.to_le_bytes()),
            (tir::TypeCode::Float, 32) => bytes.extend((f as f32).to_le_bytes()),
            (tir::TypeCode::Float, 16) => bytes.extend(half::f16::from_f64(f).to_le_bytes()),
            (tir::TypeCode::BFloat, 16) => bytes.extend(half::bf16::from_f64(f).to_le_bytes()),
            (tir::TypeCode::Int | tir::TypeCode::UInt, 8) => bytes.push(i as u8),
            (tir::TypeCode::Int | tir::TypeCode::UInt, 16) => {
                bytes.extend((i as u16).to_le_bytes())
            }
            (tir::TypeCode::Int | tir::TypeCode::UInt, 32) => {
                bytes.extend((i as u32).to_le_bytes())
            }
            (tir::TypeCode::Int | tir::TypeCode::UInt, 64) => {
                bytes.extend((i as u64).to_le_bytes())
            }
            _ => {
                return err(
                    value.span,
                    format!("constants of type {dtype} are not supported"),
                );
            }
        }
    }
    let data = vm::Tensor::from_bytes(&shape, vdt, &bytes)
        .map_err(|e| ParseError::new(value.span, format!("bad constant: {e}")))?;
    constant_of(data, None, value.span)
}

/// The expression for an omitted expression parameter's default.
fn default_expr(v: AttrValue) -> Option<Expr> {
    Some(match v {
        AttrValue::None => return None,
        AttrValue::Bool(b) => Expr::prim(PrimExpr::bool(b)),
        AttrValue::Int(i) => Expr::prim(PrimExpr::i64(i)),
        AttrValue::Float(f) => Expr::prim(PrimExpr::float(DataType::FLOAT64, f)),
        AttrValue::Str(s) => Expr::new(ExprKind::StringImm(s)),
        AttrValue::DType(d) => Expr::new(ExprKind::DataTypeImm(d)),
        AttrValue::Expr(p) => Expr::prim(p),
        AttrValue::List(items) => Expr::tuple(items.into_iter().filter_map(default_expr).collect()),
        AttrValue::PrimValue(p) => Expr::prim(p),
        AttrValue::Map(_) | AttrValue::IndexMap(_) => return None,
    })
}

/// Whether `f` reads `var` (a call of it included).
fn uses_var(f: &Function, var: &Var) -> bool {
    struct Uses<'a> {
        var: &'a Var,
        found: bool,
    }
    impl crate::ir::visit::Visitor for Uses<'_> {
        fn visit_var_use(&mut self, v: &Var) {
            self.found |= v == self.var;
        }
    }
    let mut u = Uses { var, found: false };
    crate::ir::visit::Visitor::visit_function(&mut u, f);
    u.found
}
