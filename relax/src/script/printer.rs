//! The whole-module TVMScript printer, following TVM 0.27's `mod.script()` layout.
//!
//! Conventions reproduced from TVM: the import header lists only what the text uses; symbolic
//! variables that appear in a Relax signature or free in a PrimFunc are declared once at module
//! level as `n = TypeVar("n")` (sorted), the others at the top of the function body as
//! `n = T.int64()`; PrimFuncs come first, then extern declarations (`f = R.ExternFunc("f")`),
//! then Relax functions, each group alphabetical with `main` last; `cls = Module` opens every body that refers to module functions; bindings are
//! annotated except `call_tir`/`call_dps_packed` bindings whose output is what the call
//! declares, and void bindings print as bare expression statements; tuple binding values print
//! without parentheses; non-scalar constants print as `metadata["ir.GenericConst"][i]` and the
//! file then ends with TVM's "Metadata omitted" comment.
//!
//! Only normalized IR prints as valid TVMScript: an `if` or a function literal must be the whole
//! value of a binding (which is what the reader and the normalizer produce).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

use tir::{BinaryOp, DataType, PrimExpr};

use crate::ir::*;
use crate::op::ParamKind;
use crate::script::builtins;
use crate::structural_eq::struct_info_identical;

const METADATA_COMMENT: &str =
    "# Metadata omitted. Use show_meta=True in script() method to show it.";

/// Prints a module as TVMScript (TVM 0.27's layout), ending with a newline.
pub fn print_module(m: &IRModule) -> String {
    print_module_with_metadata(m).0
}

/// Prints a module and returns the tensor table its `metadata["ir.GenericConst"][i]`
/// references index (pass it back as `ReadOptions::metadata` to read the text). Constants that
/// came from a table keep their index; others are numbered after them. Table entries that no
/// constant uses are empty `float32` tensors.
pub fn print_module_with_metadata(m: &IRModule) -> (String, Vec<vm::Tensor>) {
    let mut meta = Metadata::default();
    for f in m.functions.values() {
        if let BaseFunc::Relax(f) = f {
            walk_function(f, &mut |e| {
                if let ExprKind::Constant(c) = e.kind()
                    && let Some(i) = c.metadata_index
                {
                    meta.next = meta.next.max(i + 1);
                }
            });
        }
    }

    let mut type_vars: BTreeSet<String> = BTreeSet::new();
    let mut uses_t = false;
    let mut sections = Vec::new();
    for (_, f) in m.prim_funcs() {
        uses_t = true;
        for v in f.free_vars() {
            type_vars.insert(v.name().to_string());
        }
        sections.push(indent_block(&tir::print_prim_func(f), 1));
    }
    let defs = sections.len();
    // Extern declarations print as assignments between the PrimFuncs and the Relax functions.
    let mut externs = 0;
    for (name, f) in &m.functions {
        if let BaseFunc::Extern(e) = f {
            let mut p = FnPrinter::new(&mut meta);
            p.indent = 1;
            p.at_module_level = true;
            let decl = p.extern_func(e);
            p.line(&format!("{name} = {decl}"));
            uses_t |= p.uses_t;
            sections.push(p.out);
            externs += 1;
        }
    }
    let mut relax: Vec<(&String, &Function)> = m.relax_functions().collect();
    relax.sort_by_key(|(name, _)| (name.as_str() == "main", name.as_str()));
    let any_relax = !relax.is_empty() || externs > 0;
    for (_, f) in relax {
        let mut p = FnPrinter::new(&mut meta);
        p.indent = 1;
        p.function(f, false);
        uses_t |= p.uses_t;
        type_vars.extend(p.signature_syms.iter().cloned());
        sections.push(p.out);
    }
    // A blank line follows every function definition that is not the last item, none an
    // assignment.
    let is_def = |i: usize| i < defs || i >= defs + externs;

    let mut out = String::new();
    if !type_vars.is_empty() {
        out.push_str("# from typing import TypeVar\n");
    }
    out.push_str("# from tvm.script import ir as I\n");
    if uses_t {
        out.push_str("# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n");
    }
    if any_relax {
        out.push_str("# from tvm.script import relax as R\n");
    }
    out.push('\n');
    for n in &type_vars {
        let _ = writeln!(out, "{n} = TypeVar({})", quote(n));
    }
    out.push_str("@I.ir_module\nclass Module:\n");
    if !m.attrs.is_empty() {
        let _ = writeln!(out, "    I.module_attrs({})", attr_dict(&m.attrs));
    }
    if !m.global_infos.is_empty() {
        let lists: Vec<String> = m
            .global_infos
            .iter()
            .map(|(name, devices)| {
                let items: Vec<String> = devices
                    .iter()
                    .map(|d| {
                        format!(
                            "I.vdevice({}, {}, {})",
                            attr_dict(&d.target),
                            d.vdevice_id,
                            quote(&d.memory_scope)
                        )
                    })
                    .collect();
                format!("{}: [{}]", quote(name), items.join(", "))
            })
            .collect();
        let _ = writeln!(out, "    I.module_global_infos({{{}}})", lists.join(", "));
    }
    if (!m.attrs.is_empty() || !m.global_infos.is_empty()) && !sections.is_empty() {
        out.push('\n');
    }
    if sections.is_empty() && m.attrs.is_empty() && m.global_infos.is_empty() {
        out.push_str("    pass\n");
    }
    for (i, s) in sections.iter().enumerate() {
        if i > 0 && is_def(i - 1) {
            out.push('\n');
        }
        out.push_str(s);
    }
    if meta.used {
        out.push('\n');
        out.push_str(METADATA_COMMENT);
        out.push('\n');
    }
    (out, meta.table())
}

/// Prints a module that holds one function (read from a file holding one `@R.function` or
/// `@T.prim_func` and no module class) as that function alone, as TVM prints a function's
/// `script()`; `None` if the module holds anything else. A private Relax function has no
/// global symbol, and TVM prints it under the name `main`.
pub fn print_standalone_function(m: &IRModule) -> Option<String> {
    if m.functions.len() != 1 || !m.attrs.is_empty() || !m.global_infos.is_empty() {
        return None;
    }
    let f = m.functions.values().next()?;
    let mut out = String::new();
    match f {
        BaseFunc::Tir(f) => {
            out.push_str(
                "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n\n",
            );
            out.push_str(&tir::print_prim_func(f));
            if !out.ends_with('\n') {
                out.push('\n');
            }
        }
        BaseFunc::Relax(f) => {
            let mut meta = Metadata::default();
            let mut p = FnPrinter::new(&mut meta);
            let mut f = f.clone();
            if f.private {
                f.name = "main".to_string();
            }
            p.function(&f, false);
            if !p.signature_syms.is_empty() {
                out.push_str("# from typing import TypeVar\n");
            }
            if p.uses_t {
                out.push_str(
                    "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n",
                );
            }
            out.push_str("# from tvm.script import relax as R\n\n");
            for n in &p.signature_syms {
                let _ = writeln!(out, "{n} = TypeVar({})", quote(n));
            }
            out.push_str(&p.out);
            if meta.used {
                out.push('\n');
                out.push_str(METADATA_COMMENT);
                out.push('\n');
            }
        }
        // Only a module class declares one.
        BaseFunc::Extern(_) => return None,
    }
    Some(out)
}

/// `text` with every non-empty line indented by `level` steps of four spaces, ending with a
/// newline.
fn indent_block(text: &str, level: usize) -> String {
    let pad = "    ".repeat(level);
    let mut out = String::new();
    for line in text.lines() {
        if !line.is_empty() {
            out.push_str(&pad);
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The metadata table being built.
#[derive(Default)]
struct Metadata {
    /// Constants with their index.
    entries: Vec<(usize, vm::Tensor)>,
    /// The next free index for constants that have none.
    next: usize,
    used: bool,
}

impl Metadata {
    fn index(&mut self, c: &Constant) -> usize {
        self.used = true;
        if let Some(i) = c.metadata_index {
            if !self.entries.iter().any(|(j, _)| *j == i) {
                self.entries.push((i, c.data.clone()));
            }
            return i;
        }
        if let Some((i, _)) = self.entries.iter().find(|(_, t)| t.ptr_eq(&c.data)) {
            return *i;
        }
        let i = self.next;
        self.next += 1;
        self.entries.push((i, c.data.clone()));
        i
    }

    fn table(&self) -> Vec<vm::Tensor> {
        let len = self.entries.iter().map(|(i, _)| i + 1).max().unwrap_or(0);
        let empty = vm::Tensor::zeros(&[0], vm::DataType::F32).ok();
        let mut out: Vec<Option<vm::Tensor>> = vec![None; len];
        for (i, t) in &self.entries {
            out[*i] = Some(t.clone());
        }
        out.into_iter()
            .filter_map(|t| t.or_else(|| empty.clone()))
            .collect()
    }
}

/// Calls `f` on every expression of a function, inner functions included.
pub(crate) fn walk_function(f: &Function, cb: &mut dyn FnMut(&Expr)) {
    walk_seq(&f.body, cb);
}

fn walk_seq(s: &SeqExpr, cb: &mut dyn FnMut(&Expr)) {
    for b in &s.blocks {
        for binding in &b.bindings {
            walk_expr(binding.value(), cb);
        }
    }
    walk_expr(&s.body, cb);
}

fn walk_expr(e: &Expr, cb: &mut dyn FnMut(&Expr)) {
    cb(e);
    match e.kind() {
        ExprKind::Tuple(items) => items.iter().for_each(|i| walk_expr(i, cb)),
        ExprKind::TupleGetItem(t, _) => walk_expr(t, cb),
        ExprKind::Call(c) => {
            if let Callee::Expr(f) = &c.callee {
                walk_expr(f, cb);
            }
            c.args.iter().for_each(|a| walk_expr(a, cb));
        }
        ExprKind::If(i) => {
            walk_expr(&i.cond, cb);
            walk_seq(&i.then_branch, cb);
            walk_seq(&i.else_branch, cb);
        }
        ExprKind::Seq(s) => walk_seq(s, cb),
        ExprKind::Function(f) => walk_function(f, cb),
        _ => {}
    }
}

/// Symbolic variables of a struct info, in order of appearance.
fn si_syms(s: &StructInfo, out: &mut Vec<tir::Var>) {
    match s {
        StructInfo::Tensor { shape: Some(d), .. }
        | StructInfo::Shape {
            values: Some(d), ..
        } => d.iter().for_each(|e| prim_syms(e, out)),
        StructInfo::Prim { value: Some(v), .. } => prim_syms(v, out),
        StructInfo::Tuple(items) => items.iter().for_each(|i| si_syms(i, out)),
        StructInfo::Func { params, ret, .. } => {
            params.iter().flatten().for_each(|p| si_syms(p, out));
            si_syms(ret, out);
        }
        _ => {}
    }
}

fn prim_syms(e: &PrimExpr, out: &mut Vec<tir::Var>) {
    e.visit(&mut |x| {
        if let Some(v) = x.as_var()
            && !out.contains(v)
        {
            out.push(v.clone());
        }
    });
}

/// Symbolic variables used in a function body (struct infos of bindings, shape and prim
/// values), in order of appearance.
fn body_syms(f: &Function, out: &mut Vec<tir::Var>) {
    fn seq(s: &SeqExpr, out: &mut Vec<tir::Var>) {
        for b in &s.blocks {
            for binding in &b.bindings {
                if let Binding::MatchCast { struct_info, .. } = binding {
                    si_syms(struct_info, out);
                }
                si_syms(binding.var().struct_info(), out);
                expr(binding.value(), out);
            }
        }
        expr(&s.body, out);
    }
    fn expr(e: &Expr, out: &mut Vec<tir::Var>) {
        match e.kind() {
            ExprKind::ShapeExpr(d) => d.iter().for_each(|x| prim_syms(x, out)),
            ExprKind::PrimValue(p) => prim_syms(p, out),
            ExprKind::Tuple(items) => items.iter().for_each(|i| expr(i, out)),
            ExprKind::TupleGetItem(t, _) => expr(t, out),
            ExprKind::Call(c) => {
                if let Callee::Expr(f) = &c.callee {
                    expr(f, out);
                }
                c.args.iter().for_each(|a| expr(a, out));
                c.ty_args.iter().for_each(|t| si_syms(t, out));
                for (_, v) in c.attrs.iter() {
                    attr(v, out);
                }
            }
            ExprKind::If(i) => {
                expr(&i.cond, out);
                seq(&i.then_branch, out);
                seq(&i.else_branch, out);
            }
            ExprKind::Seq(s) => seq(s, out),
            ExprKind::Function(f) => {
                f.params.iter().for_each(|p| si_syms(p.struct_info(), out));
                si_syms(&f.ret_struct_info, out);
                seq(&f.body, out);
            }
            _ => {}
        }
    }
    fn attr(v: &AttrValue, out: &mut Vec<tir::Var>) {
        match v {
            AttrValue::Expr(e) | AttrValue::PrimValue(e) => prim_syms(e, out),
            AttrValue::IndexMap(m) => {
                let mut used = Vec::new();
                m.results.iter().for_each(|r| prim_syms(r, &mut used));
                for v in used {
                    if !m.params.contains(&v) && !out.contains(&v) {
                        out.push(v);
                    }
                }
            }
            AttrValue::List(items) => items.iter().for_each(|i| attr(i, out)),
            AttrValue::Map(items) => items.iter().for_each(|(_, i)| attr(i, out)),
            _ => {}
        }
    }
    seq(&f.body, out);
}

/// A Python string literal in double quotes.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A float as Python prints it with 17 significant digits (`%.17g`), integral values as `1.0`,
/// non-finite ones as `float("inf")`.
pub(crate) fn fmt_float(v: f64) -> String {
    if v.is_nan() {
        return "float(\"nan\")".into();
    }
    if v.is_infinite() {
        return if v > 0.0 {
            "float(\"inf\")".into()
        } else {
            "float(\"-inf\")".into()
        };
    }
    let sci = format!("{v:.16e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let s = if !(-4..17).contains(&exp) {
        let m = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (16 - exp).max(0) as usize;
        trim_zeros(&format!("{v:.decimals$}")).to_string()
    };
    if s.contains(['.', 'e', 'n']) {
        s
    } else {
        format!("{s}.0")
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

fn attr_dict(attrs: &Attrs) -> String {
    let items: Vec<String> = attrs
        .iter()
        .map(|(k, v)| format!("{}: {}", quote(k), attr_value(v, &HashMap::new())))
        .collect();
    format!("{{{}}}", items.join(", "))
}

fn attr_value(v: &AttrValue, names: &HashMap<tir::VarId, String>) -> String {
    match v {
        AttrValue::None => "None".into(),
        AttrValue::Bool(b) => py_bool(*b).into(),
        AttrValue::Int(i) => i.to_string(),
        AttrValue::Float(f) => fmt_float(*f),
        AttrValue::Str(s) => quote(s),
        AttrValue::DType(d) => quote(&d.to_string()),
        AttrValue::Expr(e) => prim_to_string(e, names),
        AttrValue::List(items) => {
            let items: Vec<String> = items.iter().map(|i| attr_value(i, names)).collect();
            format!("[{}]", items.join(", "))
        }
        AttrValue::Map(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|(k, v)| format!("{}: {}", quote(k), attr_value(v, names)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        AttrValue::PrimValue(e) => format!("R.prim_value({})", prim_to_string(e, names)),
        AttrValue::IndexMap(m) => {
            let params: Vec<String> = m.params.iter().map(|p| p.name().to_string()).collect();
            index_map_text(&params, &m.results, names)
        }
    }
}

/// An index map as TVMScript, its parameters by their own names (for error messages).
pub(crate) fn index_map_to_string(m: &IndexMap) -> String {
    attr_value(&AttrValue::IndexMap(m.clone()), &HashMap::new())
}

/// A TIR expression as the Relax dialect prints it, variables by their own names (for error
/// messages).
pub(crate) fn prim_text(e: &PrimExpr) -> String {
    prim_to_string(e, &HashMap::new())
}

/// `T.index_map(lambda a, b: (b, a))` with the parameters printed as `params` (`names` must
/// map them).
fn index_map_text(
    params: &[String],
    results: &[PrimExpr],
    names: &HashMap<tir::VarId, String>,
) -> String {
    let results: Vec<String> = results.iter().map(|r| prim_to_string(r, names)).collect();
    let body = if results.len() == 1 {
        format!("({},)", results[0])
    } else {
        format!("({})", results.join(", "))
    };
    if params.is_empty() {
        format!("T.index_map(lambda: {body})")
    } else {
        format!("T.index_map(lambda {}: {body})", params.join(", "))
    }
}

fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// Prints a TIR expression in Relax context: `int64` literals bare, variables by their printed
/// names.
fn prim_to_string(e: &PrimExpr, names: &HashMap<tir::VarId, String>) -> String {
    prim_prec(e, names).0
}

fn prim_prec(e: &PrimExpr, names: &HashMap<tir::VarId, String>) -> (String, u8) {
    use tir::ExprKind as P;
    const ADD: u8 = 1;
    const MUL: u8 = 2;
    const ATOM: u8 = 3;
    let bin = |a: &PrimExpr, op: &str, b: &PrimExpr, prec: u8| {
        let (sa, pa) = prim_prec(a, names);
        let (sb, pb) = prim_prec(b, names);
        let sa = if pa < prec { format!("({sa})") } else { sa };
        let sb = if pb <= prec { format!("({sb})") } else { sb };
        (format!("{sa} {op} {sb}"), prec)
    };
    let call = |f: &str, args: &[&PrimExpr]| {
        let args: Vec<String> = args.iter().map(|a| prim_prec(a, names).0).collect();
        (format!("{f}({})", args.join(", ")), ATOM)
    };
    match e.kind() {
        P::IntImm { dtype, value } if *dtype == DataType::INT64 => (value.to_string(), ATOM),
        P::IntImm { dtype, value } if dtype.is_bool() => {
            (format!("T.bool({})", py_bool(*value != 0)), ATOM)
        }
        P::IntImm { dtype, value } => (format!("T.{dtype}({value})"), ATOM),
        P::Var(v) => (
            names
                .get(&v.id())
                .cloned()
                .unwrap_or_else(|| v.name().to_string()),
            ATOM,
        ),
        // An operation the reader would fold prints with the node constructor (`T.Mul(2, 2)`),
        // as TVM's printer writes it.
        P::Binary { op, a, b } if tir::script::would_fold(*op, a, b) => {
            call(tir::script::node_constructor(*op), &[a, b])
        }
        P::Binary { op, a, b } => match op {
            BinaryOp::Add => bin(a, "+", b, ADD),
            BinaryOp::Sub => bin(a, "-", b, ADD),
            BinaryOp::Mul => bin(a, "*", b, MUL),
            BinaryOp::FloorDiv => bin(a, "//", b, MUL),
            BinaryOp::FloorMod => bin(a, "%", b, MUL),
            BinaryOp::Div if a.dtype().is_float() => bin(a, "/", b, MUL),
            BinaryOp::Div => call("T.Div", &[a, b]),
            BinaryOp::Mod => call("T.truncmod", &[a, b]),
            BinaryOp::Min => call("T.min", &[a, b]),
            BinaryOp::Max => call("T.max", &[a, b]),
        },
        // Everything else reads the same in both dialects; the TIR printer parenthesizes it.
        _ => {
            let s = tir::script::print_prim_expr(e);
            if s.contains(' ') && !s.ends_with(')') {
                (format!("({s})"), ATOM)
            } else {
                (s, ATOM)
            }
        }
    }
}

/// Prints one Relax function (and the inner functions it defines).
struct FnPrinter<'m> {
    meta: &'m mut Metadata,
    out: String,
    indent: usize,
    names: HashMap<VarId, String>,
    sym_names: HashMap<tir::VarId, String>,
    taken: HashSet<String>,
    /// Names defined in each open scope, freed when it closes.
    scopes: Vec<Vec<String>>,
    /// Relax variables referenced anywhere in the function.
    referenced: HashSet<VarId>,
    /// Printed names of the symbolic variables of the signature (declared as `TypeVar`s).
    signature_syms: Vec<String>,
    /// Whether the signature (parameters and return) is being printed: TVM writes dimensions
    /// that are expressions of symbolic variables as strings there (`R.Shape(["n * 2"])`),
    /// and as expressions in the body.
    in_signature: bool,
    /// Whether a module-level value (an extern function's type) is being printed: outside
    /// a function TVM writes `int64` dimensions as `T.int64(2)`.
    at_module_level: bool,
    uses_t: bool,
}

impl<'m> FnPrinter<'m> {
    fn new(meta: &'m mut Metadata) -> Self {
        FnPrinter {
            meta,
            out: String::new(),
            indent: 0,
            names: HashMap::new(),
            sym_names: HashMap::new(),
            taken: HashSet::new(),
            scopes: vec![Vec::new()],
            referenced: HashSet::new(),
            signature_syms: Vec::new(),
            in_signature: false,
            at_module_level: false,
            uses_t: false,
        }
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn fresh_name(&mut self, hint: &str) -> String {
        let base = if hint.is_empty() { "v" } else { hint };
        let mut name = base.to_string();
        let mut k = 1;
        while self.taken.contains(&name) || name == "cls" || name == "R" || name == "T" {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.taken.insert(name.clone());
        if let Some(s) = self.scopes.last_mut() {
            s.push(name.clone());
        }
        name
    }

    fn define(&mut self, v: &Var) -> String {
        let name = self.fresh_name(v.name());
        self.names.insert(v.id(), name.clone());
        name
    }

    fn define_sym(&mut self, v: &tir::Var) -> String {
        if let Some(n) = self.sym_names.get(&v.id()) {
            return n.clone();
        }
        let name = self.fresh_name(v.name());
        self.sym_names.insert(v.id(), name.clone());
        name
    }

    fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    fn pop_scope(&mut self) {
        if let Some(names) = self.scopes.pop() {
            for n in names {
                self.taken.remove(&n);
            }
        }
    }

    fn var(&self, v: &Var) -> String {
        self.names
            .get(&v.id())
            .cloned()
            .unwrap_or_else(|| v.name().to_string())
    }

    fn function(&mut self, f: &Function, inner: bool) {
        if !inner {
            walk_function(f, &mut |e| {
                if let ExprKind::Var(v) = e.kind() {
                    self.referenced.insert(v.id());
                }
            });
            let mut sig = Vec::new();
            for p in &f.params {
                si_syms(p.struct_info(), &mut sig);
            }
            si_syms(&f.ret_struct_info, &mut sig);
            for v in &sig {
                let n = self.define_sym(v);
                self.signature_syms.push(n);
            }
        }
        self.push_scope();
        let mut params = Vec::new();
        self.in_signature = true;
        for p in &f.params {
            let name = self.define(p);
            let si = self.si(p.struct_info());
            params.push(format!("{name}: {si}"));
        }
        let ret = self.si(&f.ret_struct_info);
        self.in_signature = false;
        let mut flags = Vec::new();
        if !f.is_pure {
            flags.push("pure=False");
        }
        if f.private {
            flags.push("private=True");
        }
        if flags.is_empty() {
            self.line("@R.function");
        } else {
            self.line(&format!("@R.function({})", flags.join(", ")));
        }
        self.line(&format!("def {}({}) -> {ret}:", f.name, params.join(", ")));
        self.indent += 1;
        if !f.attrs.is_empty() {
            // TVM prints the attribute map with its keys sorted.
            let mut sorted = f.attrs.clone();
            sorted.0.sort_by(|a, b| a.0.cmp(&b.0));
            let attrs = self.attr_dict(&sorted);
            self.line(&format!("R.func_attr({attrs})"));
        }
        if !inner {
            let mut syms = Vec::new();
            body_syms(f, &mut syms);
            for v in syms {
                if !self.sym_names.contains_key(&v.id()) {
                    let n = self.define_sym(&v);
                    self.uses_t = true;
                    self.line(&format!("{n} = T.{}()", v.dtype()));
                }
            }
            let mut uses_globals = false;
            walk_function(f, &mut |e| match e.kind() {
                ExprKind::GlobalVar(_) => uses_globals = true,
                ExprKind::Call(c) if matches!(c.callee, Callee::Global(_)) => uses_globals = true,
                _ => {}
            });
            if uses_globals {
                self.line("cls = Module");
            }
        }
        self.seq_bindings(&f.body);
        let body = self.expr(&f.body.body);
        self.line(&format!("return {body}"));
        self.indent -= 1;
        self.pop_scope();
    }

    fn seq_bindings(&mut self, s: &SeqExpr) {
        for block in &s.blocks {
            if block.dataflow {
                self.line("with R.dataflow():");
                self.indent += 1;
                let mut outputs = Vec::new();
                for b in &block.bindings {
                    self.binding(b);
                    if !b.var().is_dataflow() {
                        outputs.push(self.var(b.var()));
                    }
                }
                self.line(&format!("R.output({})", outputs.join(", ")));
                self.indent -= 1;
            } else {
                for b in &block.bindings {
                    self.binding(b);
                }
            }
        }
    }

    fn binding(&mut self, b: &Binding) {
        match b {
            Binding::MatchCast {
                var,
                value,
                struct_info,
            } => {
                let v = self.expr(value);
                let st = self.si(struct_info);
                let ann = self.si(var.struct_info());
                let name = self.define(var);
                self.line(&format!("{name}: {ann} = R.match_cast({v}, {st})"));
            }
            Binding::Var { var, value } => match value.kind() {
                ExprKind::Function(f) => {
                    let name = self.define(var);
                    let mut f = (**f).clone();
                    f.name = name;
                    self.line("# from tvm.script import relax as R");
                    self.line("");
                    self.function(&f, true);
                    self.out.push('\n');
                }
                ExprKind::If(i) => {
                    let cond = self.expr(&i.cond);
                    let ann = self.si(var.struct_info());
                    let name = self.define(var);
                    self.line(&format!("if {cond}:"));
                    self.branch(&i.then_branch, &name, &ann);
                    self.line("else:");
                    self.branch(&i.else_branch, &name, &ann);
                }
                _ => {
                    let rhs = self.binding_value(value);
                    if var.struct_info().is_void() && !self.referenced.contains(&var.id()) {
                        self.line(&rhs);
                        return;
                    }
                    let hide = value.as_call().is_some_and(|c| {
                        matches!(c.op(), Some("relax.call_tir" | "relax.call_dps_packed"))
                            && c.ty_args.len() == 1
                            && struct_info_identical(&c.ty_args[0], var.struct_info())
                    });
                    let name = self.define(var);
                    if hide {
                        self.line(&format!("{name} = {rhs}"));
                    } else {
                        let ann = self.si(var.struct_info());
                        self.line(&format!("{name}: {ann} = {rhs}"));
                    }
                }
            },
        }
    }

    /// The right-hand side of a binding: a tuple of several fields without parentheses.
    fn binding_value(&mut self, value: &Expr) -> String {
        match value.kind() {
            ExprKind::Tuple(items) if items.len() > 1 => {
                let items: Vec<String> = items.iter().map(|i| self.expr(i)).collect();
                items.join(", ")
            }
            _ => self.expr(value),
        }
    }

    fn branch(&mut self, s: &SeqExpr, name: &str, ann: &str) {
        self.indent += 1;
        self.push_scope();
        self.seq_bindings(s);
        let body = self.binding_value(&s.body);
        self.line(&format!("{name}: {ann} = {body}"));
        self.pop_scope();
        self.indent -= 1;
    }

    // ----- struct info -----

    fn dim(&mut self, d: &PrimExpr) -> String {
        match d.kind() {
            tir::ExprKind::IntImm { dtype, value } if *dtype == DataType::INT64 => {
                if self.at_module_level {
                    self.uses_t = true;
                    format!("T.int64({value})")
                } else {
                    value.to_string()
                }
            }
            tir::ExprKind::Var(_) => self.prim(d),
            _ if self.in_signature && d.uses_var(&|_| true) => quote(&self.prim(d)),
            _ => self.prim(d),
        }
    }

    fn si(&mut self, s: &StructInfo) -> String {
        match s {
            StructInfo::Any => "R.Any".into(),
            StructInfo::Prim { dtype, value: None } => {
                self.uses_t = true;
                format!("T.{dtype}")
            }
            StructInfo::Prim {
                dtype,
                value: Some(v),
            } => {
                let v = self.prim(v);
                if v.contains("T.") {
                    format!("R.Prim(value={v})")
                } else {
                    format!("R.Prim({}, value={v})", quote(&dtype.to_string()))
                }
            }
            StructInfo::Shape {
                values: Some(v), ..
            } => {
                let dims: Vec<String> = v.iter().map(|d| self.dim(d)).collect();
                format!("R.Shape([{}])", dims.join(", "))
            }
            StructInfo::Shape { values: None, ndim } if *ndim >= 0 => {
                format!("R.Shape(ndim={ndim})")
            }
            StructInfo::Shape { .. } => "R.Shape".into(),
            StructInfo::Tensor {
                shape,
                dtype,
                ndim,
                vdevice,
            } => {
                let mut parts = Vec::new();
                if let Some(shape) = shape {
                    let dims: Vec<String> = shape.iter().map(|d| self.dim(d)).collect();
                    parts.push(if dims.len() == 1 {
                        format!("({},)", dims[0])
                    } else {
                        format!("({})", dims.join(", "))
                    });
                }
                if let Some(d) = dtype {
                    parts.push(format!("dtype={}", quote(&d.to_string())));
                }
                if shape.is_none() && *ndim >= 0 {
                    parts.push(format!("ndim={ndim}"));
                }
                if let Some(v) = vdevice {
                    parts.push(format!("vdevice={}", quote(v)));
                }
                if parts.is_empty() {
                    "R.Tensor".into()
                } else {
                    format!("R.Tensor({})", parts.join(", "))
                }
            }
            StructInfo::Tuple(items) if items.is_empty() => "R.Tuple".into(),
            StructInfo::Tuple(items) => {
                let items: Vec<String> = items.iter().map(|i| self.si(i)).collect();
                format!("R.Tuple({})", items.join(", "))
            }
            // TVM's layout: the purity positionally after the parameters and result, or for
            // an opaque function only what differs from `R.Callable`'s default (any result,
            // impure).
            StructInfo::Func { params, ret, pure } => match params {
                Some(p) => {
                    let p: Vec<String> = p.iter().map(|i| self.si(i)).collect();
                    let params = if p.len() == 1 {
                        format!("({},)", p[0])
                    } else {
                        format!("({})", p.join(", "))
                    };
                    let ret = self.si(ret);
                    let pure = if *pure { "True" } else { "False" };
                    format!("R.Callable({params}, {ret}, {pure})")
                }
                None => {
                    let mut parts = Vec::new();
                    if !matches!(**ret, StructInfo::Any) {
                        parts.push(format!("ret={}", self.si(ret)));
                    }
                    if *pure {
                        parts.push("purity=True".into());
                    }
                    if parts.is_empty() {
                        "R.Callable".into()
                    } else {
                        format!("R.Callable({})", parts.join(", "))
                    }
                }
            },
        }
    }

    /// `R.ExternFunc("symbol")`, with its type unless it is the default one.
    fn extern_func(&mut self, e: &ExternFunc) -> String {
        if struct_info_identical(&e.struct_info, &ExternFunc::default_struct_info()) {
            format!("R.ExternFunc({})", quote(&e.global_symbol))
        } else {
            let si = self.si(&e.struct_info);
            format!("R.ExternFunc({}, {si})", quote(&e.global_symbol))
        }
    }

    fn ty_args(&mut self, tys: &[StructInfo]) -> String {
        let items: Vec<String> = tys.iter().map(|t| self.si(t)).collect();
        if items.len() == 1 {
            format!("({},)", items[0])
        } else {
            format!("({})", items.join(", "))
        }
    }

    // ----- expressions -----

    fn prim(&mut self, e: &PrimExpr) -> String {
        let s = prim_to_string(e, &self.sym_names);
        if s.contains("T.") {
            self.uses_t = true;
        }
        s
    }

    fn attr_dict(&mut self, attrs: &Attrs) -> String {
        let items: Vec<String> = attrs
            .iter()
            .map(|(k, v)| format!("{}: {}", quote(k), self.attr(v)))
            .collect();
        format!("{{{}}}", items.join(", "))
    }

    fn attr(&mut self, v: &AttrValue) -> String {
        if let AttrValue::IndexMap(m) = v {
            return self.index_map(m);
        }
        let s = attr_value(v, &self.sym_names);
        if matches!(v, AttrValue::Expr(_) | AttrValue::PrimValue(_)) && s.contains("T.") {
            self.uses_t = true;
        }
        s
    }

    /// An index map, its parameters named in a scope of their own (TVM's printer takes fresh
    /// names from the function's: `lambda a_1, b_1: ...` where `a` and `b` are symbolic
    /// variables of the function).
    fn index_map(&mut self, m: &IndexMap) -> String {
        self.uses_t = true;
        self.push_scope();
        let mut saved = Vec::new();
        let mut params = Vec::new();
        for p in &m.params {
            let name = self.fresh_name(p.name());
            saved.push((p.id(), self.sym_names.insert(p.id(), name.clone())));
            params.push(name);
        }
        let text = index_map_text(&params, &m.results, &self.sym_names);
        for (id, old) in saved.into_iter().rev() {
            match old {
                Some(n) => self.sym_names.insert(id, n),
                None => self.sym_names.remove(&id),
            };
        }
        self.pop_scope();
        text
    }

    fn exprs(&mut self, es: &[Expr]) -> Vec<String> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn tuple_text(&mut self, e: &Expr) -> String {
        match e.kind() {
            ExprKind::Tuple(items) => {
                let items = self.exprs(items);
                if items.len() == 1 {
                    format!("({},)", items[0])
                } else {
                    format!("({})", items.join(", "))
                }
            }
            _ => self.expr(e),
        }
    }

    fn expr(&mut self, e: &Expr) -> String {
        match e.kind() {
            ExprKind::Var(v) => self.var(v),
            ExprKind::Constant(c) => self.constant(c),
            ExprKind::ShapeExpr(d) => {
                let dims: Vec<String> = d.iter().map(|x| self.prim(x)).collect();
                format!("R.shape([{}])", dims.join(", "))
            }
            ExprKind::PrimValue(p) => self.prim(p),
            ExprKind::StringImm(s) => format!("R.str({})", quote(s)),
            ExprKind::DataTypeImm(d) => format!("R.dtype({})", quote(&d.to_string())),
            // TVM prints the empty tuple (void) as `R.tuple()`.
            ExprKind::Tuple(items) if items.is_empty() => "R.tuple()".to_string(),
            ExprKind::Tuple(_) => self.tuple_text(e),
            ExprKind::TupleGetItem(t, i) => {
                let base = self.expr(t);
                format!("{base}[{i}]")
            }
            ExprKind::Call(c) => self.call(c),
            ExprKind::GlobalVar(g) => format!("cls.{g}"),
            ExprKind::ExternFunc(f) => self.extern_func(f),
            // Not printable in expression position; the reader rejects the placeholder.
            ExprKind::If(_) => "R.unnormalized_if()".into(),
            ExprKind::Seq(_) => "R.unnormalized_seq()".into(),
            ExprKind::Function(_) => "R.unnormalized_function()".into(),
        }
    }

    fn constant(&mut self, c: &Constant) -> String {
        let t = &c.data;
        if t.ndim() == 0 {
            let dtype = t.dtype();
            let value = if dtype.is_bool() {
                py_bool(t.get_i64(0).unwrap_or(0) != 0).to_string()
            } else if dtype.is_float() || dtype.is_bfloat() {
                fmt_float(t.get_f64(0).unwrap_or(f64::NAN))
            } else {
                t.get_i64(0).unwrap_or(0).to_string()
            };
            return format!("R.const({value}, {})", quote(&dtype.to_string()));
        }
        let i = self.meta.index(c);
        format!("metadata[\"ir.GenericConst\"][{i}]")
    }

    fn name_of_extern(&mut self, e: Option<&Expr>) -> String {
        match e.map(|e| e.kind()) {
            Some(ExprKind::ExternFunc(f)) => quote(&f.global_symbol),
            Some(_) => self.expr(e.unwrap_or(&Expr::tuple(Vec::new()))),
            None => quote(""),
        }
    }

    fn call(&mut self, c: &Call) -> String {
        let mut args: Vec<String> = Vec::new();
        let mut kwargs: Vec<String> = Vec::new();
        let head: String = match &c.callee {
            Callee::Global(g) => {
                args = self.exprs(&c.args);
                format!("cls.{g}")
            }
            Callee::Expr(f) => {
                args = self.exprs(&c.args);
                match f.kind() {
                    ExprKind::Var(_) | ExprKind::GlobalVar(_) | ExprKind::ExternFunc(_) => {
                        self.expr(f)
                    }
                    _ => format!("({})", self.expr(f)),
                }
            }
            Callee::Extern(name) => {
                args.push(quote(name));
                args.extend(self.exprs(&c.args));
                if !c.ty_args.is_empty() {
                    let t = self.ty_args(&c.ty_args);
                    kwargs.push(format!("ty_args={t}"));
                }
                return format!(
                    "R.call_packed({})",
                    args.into_iter()
                        .chain(kwargs)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            Callee::Op(name) => return self.op_call(name, c),
        };
        if !c.ty_args.is_empty() {
            let t = self.ty_args(&c.ty_args);
            kwargs.push(format!("ty_args={t}"));
        }
        args.extend(kwargs);
        format!("{head}({})", args.join(", "))
    }

    fn op_call(&mut self, name: &str, c: &Call) -> String {
        let mut args: Vec<String> = Vec::new();
        let mut kwargs: Vec<String> = Vec::new();
        let mut ty_done = false;
        let head = match name {
            "relax.call_tir" | "relax.call_tir_inplace" | "relax.call_dps_packed" => {
                let head = match name {
                    "relax.call_tir" => "R.call_tir",
                    "relax.call_tir_inplace" => "R.call_tir_inplace",
                    _ => "R.call_dps_packed",
                };
                if name == "relax.call_dps_packed" {
                    let f = self.name_of_extern(c.args.first());
                    args.push(f);
                } else if let Some(f) = c.args.first() {
                    args.push(self.expr(f));
                }
                if let Some(t) = c.args.get(1) {
                    args.push(self.tuple_text(t));
                }
                if let Some(out) = c.ty_args.first() {
                    let out = match out {
                        StructInfo::Tuple(items) => {
                            let items: Vec<String> = items.iter().map(|i| self.si(i)).collect();
                            format!("[{}]", items.join(", "))
                        }
                        _ => self.si(out),
                    };
                    kwargs.push(format!("out_ty={out}"));
                }
                ty_done = true;
                if let Some(idx) = c.attrs.get("inplace_indices") {
                    let v = self.attr(idx);
                    kwargs.push(format!("inplace_indices={v}"));
                }
                if let Some(tv) = c.args.get(2) {
                    let v = self.expr(tv);
                    kwargs.push(format!("tir_vars={v}"));
                }
                for extra in c.args.iter().skip(3) {
                    args.push(self.expr(extra));
                }
                head.to_string()
            }
            "relax.call_pure_packed" => {
                args.push(self.name_of_extern(c.args.first()));
                args.extend(self.exprs(c.args.get(1..).unwrap_or(&[])));
                "R.call_pure_packed".into()
            }
            "relax.call_builtin_with_ctx" => {
                args.push(self.name_of_extern(c.args.first()));
                for a in c.args.iter().skip(1) {
                    args.push(self.tuple_text(a));
                }
                "R.call_builtin_with_ctx".into()
            }
            "relax.make_closure" | "relax.invoke_closure" | "relax.invoke_pure_closure" => {
                if let Some(f) = c.args.first() {
                    args.push(self.expr(f));
                }
                for a in c.args.iter().skip(1) {
                    args.push(self.tuple_text(a));
                }
                format!("R.{}", name.trim_start_matches("relax."))
            }
            _ => {
                let def = builtins::lookup(name);
                let head = match def {
                    Some(d) => d.script_name.to_string(),
                    None => format!("R.{}", name.strip_prefix("relax.").unwrap_or(name)),
                };
                let mut next_arg = 0;
                let mut printed_attrs: Vec<&str> = Vec::new();
                for p in def.map(|d| d.params).unwrap_or(&[]) {
                    if p.kind == ParamKind::Expr {
                        if let Some(a) = c.args.get(next_arg) {
                            args.push(self.expr(a));
                            next_arg += 1;
                        }
                    } else if p.kind == ParamKind::VariadicExpr {
                        let rest = c.args.get(next_arg..).unwrap_or(&[]);
                        if name == "relax.assert_op" && rest.len() > 1 {
                            // TVM's Python `assert_op` takes several format arguments
                            // as one list.
                            args.push(format!("[{}]", self.exprs(rest).join(", ")));
                            next_arg = c.args.len();
                        }
                        while let Some(a) = c.args.get(next_arg) {
                            args.push(self.expr(a));
                            next_arg += 1;
                        }
                    } else if p.kind == ParamKind::Attr {
                        if let Some(v) = c.attrs.get(p.name) {
                            let v = match v {
                                // TVM keeps these formats as Relax string arguments.
                                AttrValue::Str(s)
                                    if p.name == "format"
                                        && matches!(name, "relax.print" | "relax.assert_op") =>
                                {
                                    format!("R.str({})", quote(s))
                                }
                                _ => self.attr(v),
                            };
                            kwargs.push(format!("{}={v}", p.name));
                            printed_attrs.push(p.name);
                        }
                    } else if !ty_done && !c.ty_args.is_empty() {
                        // A struct-info parameter (`ty_args=`): printed by its own keyword.
                        let t = self.ty_args(&c.ty_args);
                        kwargs.push(format!("{}={t}", p.name));
                        ty_done = true;
                    }
                }
                for a in c.args.iter().skip(next_arg) {
                    args.push(self.expr(a));
                }
                for (k, v) in c.attrs.iter() {
                    if !printed_attrs.contains(&k.as_str()) {
                        let v = self.attr(v);
                        kwargs.push(format!("{k}={v}"));
                    }
                }
                head
            }
        };
        if !ty_done && !c.ty_args.is_empty() {
            let t = self.ty_args(&c.ty_args);
            kwargs.push(format!("ty_args={t}"));
        }
        args.extend(kwargs);
        format!("{head}({})", args.join(", "))
    }
}
