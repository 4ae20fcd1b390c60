//! The TVMScript printer for TIR, following TVM 0.27's output byte for byte where it can.
//!
//! Conventions reproduced from TVM's printer: nested serial loops from zero print as one
//! `T.grid`; block iteration variables bound directly to enclosing loop variables over the
//! loop's range print as `T.axis.remap`; an implicit root block prints as the comment
//! `# with T.sblock("root"):` followed by its allocations; names are made unique among the
//! names live at the definition point by appending `_1`, `_2`, ...; floats print with 17
//! significant digits (integral values as `1.0`, non-finite ones as `"inf"`); operators get
//! parentheses by Python precedence (right operands also on equal precedence).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use crate::ir::*;
use crate::script::expr::{BITWISE, expr_same};

/// Prints a function as TVMScript, starting at column 0 (`@T.prim_func...`, `def ...`), without
/// a trailing newline. Free variables are printed by name (a module printer declares them with
/// `TypeVar`).
pub fn print_prim_func(f: &PrimFunc) -> String {
    let mut p = Printer::default();
    p.func(f);
    while p.out.ends_with('\n') {
        p.out.pop();
    }
    p.out
}

/// Prints an expression alone (variables by their names).
pub fn print_prim_expr(e: &PrimExpr) -> String {
    let mut p = Printer::default();
    p.expr(e).0
}

/// Prints functions as a complete TVMScript module (`@I.ir_module class Module:`) with the
/// comment header and `TypeVar` declarations TVM would print, ending with a newline.
pub fn print_module_prim_funcs(funcs: &[PrimFunc]) -> String {
    let mut type_vars: Vec<String> = Vec::new();
    for f in funcs {
        for v in f.free_vars() {
            if !type_vars.iter().any(|n| n == v.name()) {
                type_vars.push(v.name().to_string());
            }
        }
    }
    type_vars.sort();
    let mut out = String::new();
    if !type_vars.is_empty() {
        out.push_str("# from typing import TypeVar\n");
    }
    out.push_str("# from tvm.script import ir as I\n# from tvm.script import tirx as T\n\n");
    for n in &type_vars {
        let _ = writeln!(out, "{n} = TypeVar(\"{n}\")");
    }
    out.push_str("@I.ir_module\nclass Module:\n");
    for (i, f) in funcs.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        for line in print_prim_func(f).lines() {
            if line.is_empty() {
                out.push('\n');
            } else {
                let _ = writeln!(out, "    {line}");
            }
        }
    }
    out
}

/// Python operator precedence, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Or,
    And,
    Not,
    Cmp,
    BitOr,
    BitXor,
    BitAnd,
    Shift,
    Add,
    Mul,
    Unary,
    Atom,
}

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
    /// Printed name of each defined variable.
    names: HashMap<VarId, String>,
    /// Printed name of each defined buffer (by identity).
    buffer_names: HashMap<usize, String>,
    /// Buffer name for each buffer data pointer in scope (`A.data`).
    data_vars: HashMap<VarId, String>,
    /// Names defined in each open scope.
    scopes: Vec<Vec<String>>,
    live: HashSet<String>,
    /// Enclosing loops: (var, min, extent).
    loops: Vec<(Var, PrimExpr, PrimExpr)>,
    /// Keeps printed buffers alive so identities stay unique.
    keep: Vec<Buffer>,
}

fn fmt_float(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() {
            "\"-nan\"".into()
        } else {
            "\"nan\"".into()
        };
    }
    if v.is_infinite() {
        return if v > 0.0 {
            "\"inf\"".into()
        } else {
            "\"-inf\"".into()
        };
    }
    if v.round() == v {
        return format!("{v:.1}");
    }
    // C's `%.17g`.
    let sci = format!("{v:.16e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..17).contains(&exp) {
        let m = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (16 - exp).max(0) as usize;
        trim_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
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
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Printer {
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    fn pop_scope(&mut self) {
        if let Some(names) = self.scopes.pop() {
            for n in names {
                self.live.remove(&n);
            }
        }
    }

    fn unique_name(&mut self, hint: &str) -> String {
        let mut base: String = hint
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if base.is_empty() {
            base = "v".into();
        }
        let mut name = base.clone();
        let mut i = 1;
        while self.live.contains(&name) {
            name = format!("{base}_{i}");
            i += 1;
        }
        self.live.insert(name.clone());
        if let Some(s) = self.scopes.last_mut() {
            s.push(name.clone());
        }
        name
    }

    fn define_var(&mut self, v: &Var) -> String {
        let n = self.unique_name(v.name());
        self.names.insert(v.id(), n.clone());
        n
    }

    fn define_buffer(&mut self, b: &Buffer) -> String {
        let n = self.unique_name(&b.name);
        self.buffer_names.insert(b.identity(), n.clone());
        self.data_vars.insert(b.data.id(), n.clone());
        self.keep.push(b.clone());
        n
    }

    fn buffer_name(&self, b: &Buffer) -> String {
        self.buffer_names
            .get(&b.identity())
            .cloned()
            .unwrap_or_else(|| b.name.clone())
    }

    // ----- functions -----

    fn func(&mut self, f: &PrimFunc) {
        self.push_scope();
        for v in f.free_vars() {
            self.define_var(&v);
        }
        let deco = match (f.private, f.s_tir) {
            (false, false) => "@T.prim_func".to_string(),
            (true, false) => "@T.prim_func(private=True)".to_string(),
            (false, true) => "@T.prim_func(s_tir=True)".to_string(),
            (true, true) => "@T.prim_func(private=True, s_tir=True)".to_string(),
        };
        self.line(&deco);
        let mut params = Vec::new();
        for p in &f.params {
            match f.buffer_of(p) {
                Some(b) => {
                    let name = self.define_buffer(b);
                    let decl = self.buffer_decl("T.Buffer", b, true, false);
                    params.push(format!("{name}: {decl}"));
                }
                None => {
                    let name = self.define_var(p);
                    params.push(format!("{name}: T.{}", p.dtype()));
                }
            }
        }
        self.line(&format!("def {}({}):", f.name, params.join(", ")));
        self.indent += 1;
        let body_start = self.out.len();
        if !f.attrs.is_empty() {
            let d = self.attrs(&f.attrs);
            self.line(&format!("T.func_attr({d})"));
        }
        match implicit_root(&f.body) {
            Some(root) => {
                self.line("# with T.sblock(\"root\"):");
                for b in &root.alloc_buffers {
                    self.alloc_buffer(b);
                }
                self.stmt(&root.body);
            }
            None => self.stmt(&f.body),
        }
        if self.out.len() == body_start {
            self.line("T.evaluate(0)");
        }
        self.indent -= 1;
        self.pop_scope();
    }

    /// `T.Buffer((shape), "dtype", kw=...)`; `always_dtype` prints `"float32"` too.
    fn buffer_decl(&mut self, method: &str, b: &Buffer, always_dtype: bool, data: bool) -> String {
        let mut args = vec![self.shape_tuple(&b.shape)];
        if always_dtype || b.dtype != DataType::FLOAT32 {
            args.push(quote(&b.dtype.to_string()));
        }
        if data {
            let d = self.expr(&PrimExpr::from(b.data.clone())).0;
            args.push(format!("data={d}"));
        }
        if !b.strides.is_empty() {
            let s = self.shape_tuple(&b.strides);
            args.push(format!("strides={s}"));
        }
        if !b.elem_offset.is_zero() {
            let e = self.expr(&b.elem_offset).0;
            args.push(format!("elem_offset={e}"));
        }
        if b.scope != "global" {
            args.push(format!("scope={}", quote(&b.scope)));
        }
        if b.data_alignment != DEFAULT_ALIGNMENT {
            args.push(format!("align={}", b.data_alignment));
        }
        if b.offset_factor != 1 {
            args.push(format!("offset_factor={}", b.offset_factor));
        }
        format!("{method}({})", args.join(", "))
    }

    fn shape_tuple(&mut self, dims: &[PrimExpr]) -> String {
        let parts: Vec<String> = dims.iter().map(|d| self.expr(d).0).collect();
        match parts.len() {
            1 => format!("({},)", parts[0]),
            _ => format!("({})", parts.join(", ")),
        }
    }

    fn alloc_buffer(&mut self, b: &Buffer) {
        let decl = self.buffer_decl("T.sblock_alloc_buffer", b, false, false);
        let name = self.define_buffer(b);
        self.line(&format!("{name} = {decl}"));
    }

    fn attrs(&mut self, attrs: &Attrs) -> String {
        let parts: Vec<String> = attrs
            .iter()
            .map(|(k, v)| format!("{}: {}", quote(k), self.attr_value(v)))
            .collect();
        format!("{{{}}}", parts.join(", "))
    }

    fn attr_value(&mut self, v: &AttrValue) -> String {
        match v {
            AttrValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            AttrValue::Int(i) => i.to_string(),
            AttrValue::Float(f) => {
                let s = fmt_float(*f);
                if s.starts_with('"') {
                    format!("float({s})")
                } else {
                    s
                }
            }
            AttrValue::Str(s) => quote(s),
            AttrValue::Expr(e) => self.expr(e).0,
            AttrValue::List(xs) => {
                let parts: Vec<String> = xs.iter().map(|x| self.attr_value(x)).collect();
                format!("[{}]", parts.join(", "))
            }
            AttrValue::Map(m) => self.attrs(m),
            AttrValue::Buffer(b) => self.buffer_name(b),
        }
    }

    // ----- statements -----

    fn body(&mut self, s: &Stmt) {
        self.indent += 1;
        let start = self.out.len();
        self.stmt(s);
        if self.out.len() == start {
            self.line("T.evaluate(0)");
        }
        self.indent -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        self.stmt_in(s, true);
    }

    /// A statement that binds something for `body`. When it is the last statement of its
    /// sequence it prints flat (`x: T.let[...] = v` and the body below it, TVM's concise form);
    /// otherwise the body would swallow the following statements on re-parsing, so it prints as
    /// a `with` block.
    fn scoped(&mut self, flat: String, with: String, body: &Stmt, last: bool) {
        if last {
            self.line(&flat);
            self.stmt_in(body, true);
        } else {
            self.line(&format!("{with}:"));
            self.body(body);
        }
    }

    fn stmt_in(&mut self, s: &Stmt, last: bool) {
        match s.kind() {
            StmtKind::Seq(xs) => {
                for (i, x) in xs.iter().enumerate() {
                    self.stmt_in(x, last && i + 1 == xs.len());
                }
            }
            StmtKind::For(f) => self.for_loop(f),
            StmtKind::SBlockRealize(r) => self.block(r),
            StmtKind::BufferStore {
                buffer,
                value,
                indices,
            } => {
                let target = self.buffer_access(buffer, indices);
                let v = self.expr(value).0;
                self.line(&format!("{target} = {v}"));
            }
            // TVM's `Bind` is flat: the variable is visible to the rest of the enclosing body.
            // A let followed by more statements prints the same way (TVMScript has no block
            // form for it); the name stays defined after `body`, so that nothing printed after
            // it reuses the name, and the statements after `body` do not use the variable.
            StmtKind::LetStmt { var, value, body } => {
                let v = self.expr(value).0;
                let name = self.define_var(var);
                self.line(&format!("{name}: T.let[T.{}] = {v}", var.dtype()));
                self.stmt_in(body, last);
            }
            StmtKind::IfThenElse {
                cond,
                then_case,
                else_case,
            } => {
                let c = self.expr(cond).0;
                self.line(&format!("if {c}:"));
                self.push_scope();
                self.body(then_case);
                self.pop_scope();
                if let Some(e) = else_case {
                    self.line("else:");
                    self.push_scope();
                    self.body(e);
                    self.pop_scope();
                }
            }
            StmtKind::While { cond, body } => {
                let c = self.expr(cond).0;
                self.line(&format!("while {c}:"));
                self.push_scope();
                self.body(body);
                self.pop_scope();
            }
            StmtKind::Evaluate(e) => {
                let v = self.expr(e).0;
                if matches!(e.kind(), ExprKind::Call { .. }) {
                    self.line(&v);
                } else {
                    self.line(&format!("T.evaluate({v})"));
                }
            }
            StmtKind::Allocate {
                buffer_var,
                dtype,
                extents,
                scope,
                condition,
                body,
            } => {
                if !last {
                    self.push_scope();
                }
                self.allocate(buffer_var, *dtype, extents, scope, condition, body, last);
                if !last {
                    self.pop_scope();
                }
            }
            StmtKind::DeclBuffer { buffer, body } => {
                let decl = self.buffer_decl("T.decl_buffer", buffer, true, true);
                if !last {
                    self.push_scope();
                }
                let name = self.define_buffer(buffer);
                self.scoped(
                    format!("{name} = {decl}"),
                    format!("with {decl} as {name}"),
                    body,
                    last,
                );
                if !last {
                    self.pop_scope();
                }
            }
            StmtKind::AssertStmt {
                cond,
                message,
                body,
            } => {
                let c = self.expr(cond).0;
                let m = self.expr(message).0;
                self.scoped(
                    format!("assert {c}, {m}"),
                    format!("with T.Assert({c}, {m})"),
                    body,
                    last,
                );
            }
            StmtKind::AttrStmt {
                node,
                key,
                value,
                body,
            } => {
                let v = self.expr(value).0;
                let call = match node {
                    None => format!("T.attr({{{}: {v}}})", quote(key)),
                    Some(n) => {
                        let n = self.expr(n).0;
                        format!("T.attr({n}, {}, {v})", quote(key))
                    }
                };
                self.scoped(call.clone(), format!("with {call}"), body, last);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn allocate(
        &mut self,
        buffer_var: &Var,
        dtype: DataType,
        extents: &[PrimExpr],
        scope: &str,
        condition: &PrimExpr,
        body: &Stmt,
        last: bool,
    ) {
        // `Allocate` directly around the `DeclBuffer` of the same memory is TVM's `AllocBuffer`
        // (`T.alloc_buffer`, `T.alloc_local`, `T.alloc_shared`), whose memory lives to the end
        // of the enclosing body; where a statement follows that body it prints as the
        // `with T.decl_buffer(...)` block.
        if let StmtKind::DeclBuffer {
            buffer,
            body: inner,
        } = body.kind()
        {
            let matches = buffer.data == *buffer_var
                && buffer.dtype == dtype
                && buffer.scope == scope
                && condition.is_one()
                && buffer.shape.len() == extents.len()
                && buffer
                    .shape
                    .iter()
                    .zip(extents)
                    .all(|(a, b)| expr_same(a, b));
            if matches && buffer.is_local_scalar() {
                self.local_scalar(buffer, inner);
                return;
            }
            if matches {
                let with = self.buffer_decl("T.decl_buffer", buffer, true, false);
                let flat = match scope {
                    "local" | "shared" => {
                        // The method names the scope.
                        let unscoped = Buffer::new(BufferNode {
                            scope: "global".to_string(),
                            ..(**buffer).clone()
                        });
                        self.buffer_decl(&format!("T.alloc_{scope}"), &unscoped, false, false)
                    }
                    _ => self.buffer_decl("T.alloc_buffer", buffer, false, false),
                };
                let name = self.define_buffer(buffer);
                self.scoped(
                    format!("{name} = {flat}"),
                    format!("with {with} as {name}"),
                    inner,
                    last,
                );
                return;
            }
        }
        let ext: Vec<String> = extents.iter().map(|e| self.expr(e).0).collect();
        let mut args = vec![
            format!("[{}]", ext.join(", ")),
            quote(&dtype.to_string()),
            quote(scope),
        ];
        if !condition.is_one() {
            args.push(self.expr(condition).0);
        }
        let name = self.define_var(buffer_var);
        let call = format!("T.allocate({})", args.join(", "));
        self.scoped(
            format!("{name} = {call}"),
            format!("with {call} as {name}"),
            body,
            last,
        );
    }

    /// A local scalar as TVM prints it: `x: T.float32`, fused with a first store that does not
    /// read it into `x: T.float32 = v`. Like TVM's flat `AllocBuffer` it prints without a
    /// block of its own: statements after `body` stay readable in the same scope, where the
    /// name stays defined (so that nothing after it reuses the name).
    fn local_scalar(&mut self, buffer: &Buffer, body: &Stmt) {
        let (first, rest): (&Stmt, &[Stmt]) = match body.kind() {
            StmtKind::Seq(xs) if !xs.is_empty() => (&xs[0], &xs[1..]),
            _ => (body, &[]),
        };
        let init = match first.kind() {
            StmtKind::BufferStore {
                buffer: b,
                value,
                indices,
            } if b.same_as(buffer)
                && matches!(indices.as_slice(), [i] if i.is_zero())
                && !value.loads_buffer(buffer.data.id()) =>
            {
                Some(value)
            }
            _ => None,
        };
        let name = self.define_buffer(buffer);
        let ann = format!("{name}: T.{}", buffer.dtype);
        match init {
            Some(v) => {
                let v = self.expr(v).0;
                self.line(&format!("{ann} = {v}"));
                for (i, x) in rest.iter().enumerate() {
                    self.stmt_in(x, i + 1 == rest.len());
                }
            }
            None => {
                self.line(&ann);
                self.stmt_in(body, true);
            }
        }
    }

    fn for_loop(&mut self, f: &For) {
        // Perfectly nested serial loops from zero whose extents do not use the outer loop
        // variables print as one `T.grid`.
        let mut grid: Vec<&For> = Vec::new();
        let mut cur = Some(f);
        while let Some(l) = cur {
            let ok = l.kind == ForKind::Serial
                && l.min.is_zero()
                && l.annotations.is_empty()
                && l.thread_binding.is_none()
                && !l
                    .extent
                    .uses_var(&|v: &Var| grid.iter().any(|g| g.loop_var == *v));
            if !ok {
                break;
            }
            grid.push(l);
            cur = match l.body.kind() {
                StmtKind::For(inner) => Some(inner),
                _ => None,
            };
        }
        self.push_scope();
        if grid.len() > 1 {
            let extents: Vec<String> = grid.iter().map(|l| self.expr(&l.extent).0).collect();
            let names: Vec<String> = grid.iter().map(|l| self.define_var(&l.loop_var)).collect();
            self.line(&format!(
                "for {} in T.grid({}):",
                names.join(", "),
                extents.join(", ")
            ));
            for l in &grid {
                self.loops
                    .push((l.loop_var.clone(), l.min.clone(), l.extent.clone()));
            }
            let body = grid.last().map(|l| l.body.clone());
            if let Some(b) = body {
                self.body(&b);
            }
            for _ in &grid {
                self.loops.pop();
            }
        } else {
            let prefix = match f.kind {
                ForKind::Serial if f.annotations.is_empty() => "range",
                ForKind::Serial => "T.serial",
                ForKind::Parallel => "T.parallel",
                ForKind::Vectorized => "T.vectorized",
                ForKind::Unrolled => "T.unroll",
                ForKind::ThreadBinding => "T.thread_binding",
            };
            let mut args = Vec::new();
            if f.min.is_zero() {
                args.push(self.expr(&f.extent).0);
            } else {
                args.push(self.expr(&f.min).0);
                let end = add_folded(&f.min, &f.extent);
                args.push(self.expr(&end).0);
            }
            if let Some(t) = &f.thread_binding {
                args.push(format!("thread={}", quote(t)));
            }
            if !f.annotations.is_empty() {
                let a = self.attrs(&f.annotations);
                args.push(format!("annotations={a}"));
            }
            let name = self.define_var(&f.loop_var);
            self.line(&format!("for {name} in {prefix}({}):", args.join(", ")));
            self.loops
                .push((f.loop_var.clone(), f.min.clone(), f.extent.clone()));
            self.body(&f.body);
            self.loops.pop();
        }
        self.pop_scope();
    }

    fn block(&mut self, r: &SBlockRealize) {
        let b = &r.block;
        self.line(&format!("with T.sblock({}):", quote(&b.name)));
        self.indent += 1;
        self.push_scope();
        // Iteration variables: runs of remappable ones print as one `T.axis.remap`.
        let mut pending: Vec<usize> = Vec::new();
        for i in 0..b.iter_vars.len() {
            if self.remappable(r, i) {
                pending.push(i);
            } else {
                self.flush_remap(r, &mut pending);
                self.single_iter_var(r, i);
            }
        }
        self.flush_remap(r, &mut pending);
        if !r.predicate.is_one() {
            let p = self.expr(&r.predicate).0;
            self.line(&format!("T.where({p})"));
        }
        let reads = self.regions(&b.reads);
        self.line(&format!("T.reads({reads})"));
        let writes = self.regions(&b.writes);
        self.line(&format!("T.writes({writes})"));
        if !b.annotations.is_empty() {
            let a = self.attrs(&b.annotations);
            self.line(&format!("T.sblock_attr({a})"));
        }
        for buf in &b.alloc_buffers {
            self.alloc_buffer(buf);
        }
        if let Some(init) = &b.init {
            self.line("with T.init():");
            self.push_scope();
            self.body(init);
            self.pop_scope();
        }
        let start = self.out.len();
        self.stmt(&b.body);
        let _ = start;
        self.pop_scope();
        self.indent -= 1;
    }

    fn remappable(&self, r: &SBlockRealize, i: usize) -> bool {
        let iv = &r.block.iter_vars[i];
        if !matches!(iv.kind, IterVarKind::Spatial | IterVarKind::Reduce) {
            return false;
        }
        let Some(v) = r.iter_values.get(i).and_then(|e| e.as_var()) else {
            return false;
        };
        self.loops.iter().any(|(lv, min, ext)| {
            lv == v && expr_same(min, &iv.dom.min) && expr_same(ext, &iv.dom.extent)
        })
    }

    fn flush_remap(&mut self, r: &SBlockRealize, pending: &mut Vec<usize>) {
        match pending.len() {
            0 => {}
            1 => self.single_iter_var(r, pending[0]),
            _ => {
                let kinds: String = pending
                    .iter()
                    .map(|&i| match r.block.iter_vars[i].kind {
                        IterVarKind::Reduce => 'R',
                        _ => 'S',
                    })
                    .collect();
                let values: Vec<String> = pending
                    .iter()
                    .map(|&i| self.expr(&r.iter_values[i]).0)
                    .collect();
                let names: Vec<String> = pending
                    .iter()
                    .map(|&i| self.define_var(&r.block.iter_vars[i].var))
                    .collect();
                self.line(&format!(
                    "{} = T.axis.remap({}, [{}])",
                    names.join(", "),
                    quote(&kinds),
                    values.join(", ")
                ));
            }
        }
        pending.clear();
    }

    fn single_iter_var(&mut self, r: &SBlockRealize, i: usize) {
        let iv = &r.block.iter_vars[i];
        let kind = match iv.kind {
            IterVarKind::Spatial => "spatial",
            IterVarKind::Reduce => "reduce",
            IterVarKind::Scan => "scan",
            IterVarKind::Opaque => "opaque",
        };
        let dom = if iv.dom.min.is_zero() {
            self.expr(&iv.dom.extent).0
        } else {
            let lo = self.expr(&iv.dom.min).0;
            let hi = self.expr(&add_folded(&iv.dom.min, &iv.dom.extent)).0;
            format!("({lo}, {hi})")
        };
        let value = r
            .iter_values
            .get(i)
            .map(|v| self.expr(v).0)
            .unwrap_or_default();
        let name = self.define_var(&iv.var);
        self.line(&format!("{name} = T.axis.{kind}({dom}, {value})"));
    }

    fn regions(&mut self, regions: &[BufferRegion]) -> String {
        let parts: Vec<String> = regions
            .iter()
            .map(|br| {
                let name = self.buffer_name(&br.buffer);
                if br.region.is_empty() {
                    return format!("{name}[()]");
                }
                let dims: Vec<String> = br
                    .region
                    .iter()
                    .map(|rg| {
                        if rg.extent.is_one() {
                            self.expr(&rg.min).0
                        } else {
                            let lo = self.expr(&rg.min).0;
                            let hi = self.expr(&add_folded(&rg.min, &rg.extent)).0;
                            format!("{lo}:{hi}")
                        }
                    })
                    .collect();
                format!("{name}[{}]", dims.join(", "))
            })
            .collect();
        parts.join(", ")
    }

    fn buffer_access(&mut self, b: &Buffer, indices: &[PrimExpr]) -> String {
        let name = self.buffer_name(b);
        if b.is_local_scalar() && matches!(indices, [i] if i.is_zero()) {
            return name;
        }
        if indices.is_empty() {
            return format!("{name}[()]");
        }
        let idx: Vec<String> = indices.iter().map(|i| self.expr(i).0).collect();
        format!("{name}[{}]", idx.join(", "))
    }

    // ----- expressions -----

    fn var_name(&self, v: &Var) -> String {
        if let Some(n) = self.names.get(&v.id()) {
            return n.clone();
        }
        if let Some(b) = self.data_vars.get(&v.id()) {
            return format!("{b}.data");
        }
        v.name().to_string()
    }

    fn child(&mut self, e: &PrimExpr, parent: Prec, right: bool) -> String {
        let (s, p) = self.expr(e);
        let paren = p < parent || (right && p == parent) || (parent == Prec::Cmp && p == Prec::Cmp);
        if paren { format!("({s})") } else { s }
    }

    fn binop(&mut self, a: &PrimExpr, op: &str, b: &PrimExpr, prec: Prec) -> (String, Prec) {
        let l = self.child(a, prec, false);
        let r = self.child(b, prec, true);
        (format!("{l} {op} {r}"), prec)
    }

    fn call(&mut self, name: &str, args: &[&PrimExpr]) -> (String, Prec) {
        let parts: Vec<String> = args.iter().map(|a| self.expr(a).0).collect();
        (format!("{name}({})", parts.join(", ")), Prec::Atom)
    }

    fn expr(&mut self, e: &PrimExpr) -> (String, Prec) {
        match e.kind() {
            ExprKind::IntImm { dtype, value } => {
                let s = if *dtype == DataType::INT32 {
                    value.to_string()
                } else if dtype.is_bool() {
                    format!("T.bool({})", if *value != 0 { "True" } else { "False" })
                } else {
                    format!("T.{dtype}({value})")
                };
                (s, Prec::Atom)
            }
            ExprKind::FloatImm { dtype, value } => {
                (format!("T.{dtype}({})", fmt_float(*value)), Prec::Atom)
            }
            ExprKind::StringImm(s) => (quote(s), Prec::Atom),
            ExprKind::Var(v) => (self.var_name(v), Prec::Atom),
            // An operation the reader's operator would fold (`1 + 2`, `x * 1`) prints with the
            // node constructor (`T.Add(1, 2)`), as TVM's printer does, so that it reads back as
            // the same node.
            ExprKind::Binary { op, a, b } if crate::script::expr::would_fold(*op, a, b) => {
                self.call(crate::script::expr::node_constructor(*op), &[a, b])
            }
            ExprKind::Binary { op, a, b } => match op {
                BinaryOp::Add => self.binop(a, "+", b, Prec::Add),
                BinaryOp::Sub => self.binop(a, "-", b, Prec::Add),
                BinaryOp::Mul => self.binop(a, "*", b, Prec::Mul),
                BinaryOp::Div if a.dtype().is_float() => self.binop(a, "/", b, Prec::Mul),
                BinaryOp::Div => self.call("T.Div", &[a, b]),
                BinaryOp::Mod => self.call("T.truncmod", &[a, b]),
                BinaryOp::FloorDiv => self.binop(a, "//", b, Prec::Mul),
                BinaryOp::FloorMod => self.binop(a, "%", b, Prec::Mul),
                BinaryOp::Min => self.call("T.min", &[a, b]),
                BinaryOp::Max => self.call("T.max", &[a, b]),
            },
            // A comparison of two constants prints with the node constructor (`T.LT(1, 2)`).
            ExprKind::Cmp { op, a, b }
                if matches!(
                    (a.kind(), b.kind()),
                    (ExprKind::IntImm { .. }, ExprKind::IntImm { .. })
                        | (ExprKind::FloatImm { .. }, ExprKind::FloatImm { .. })
                ) =>
            {
                self.call(&format!("T.{}", cmp_node_name(*op)), &[a, b])
            }
            ExprKind::Cmp { op, a, b } => self.binop(a, op.symbol(), b, Prec::Cmp),
            ExprKind::And(a, b) => self.binop(a, "and", b, Prec::And),
            ExprKind::Or(a, b) => self.binop(a, "or", b, Prec::Or),
            ExprKind::Not(a) => {
                let s = self.child(a, Prec::Not, false);
                (format!("not {s}"), Prec::Not)
            }
            ExprKind::Select {
                cond,
                true_value,
                false_value,
            } => self.call("T.Select", &[cond, true_value, false_value]),
            ExprKind::Cast { dtype, value } => {
                let v = self.expr(value).0;
                (
                    format!("T.Cast({}, {v})", quote(&dtype.to_string())),
                    Prec::Atom,
                )
            }
            ExprKind::BufferLoad { buffer, indices } => {
                (self.buffer_access(buffer, indices), Prec::Atom)
            }
            ExprKind::Call { dtype, op, args } => {
                if let Some((_, sym)) = BITWISE.iter().find(|(n, _)| n == op)
                    && let [a, b] = args.as_slice()
                {
                    let prec = match *sym {
                        "&" => Prec::BitAnd,
                        "|" => Prec::BitOr,
                        "^" => Prec::BitXor,
                        _ => Prec::Shift,
                    };
                    return self.binop(a, sym, b, prec);
                }
                if op == "bitwise_not"
                    && let [a] = args.as_slice()
                {
                    let s = self.child(a, Prec::Unary, false);
                    return (format!("~{s}"), Prec::Unary);
                }
                if matches!(
                    op.as_str(),
                    "call_extern"
                        | "call_pure_extern"
                        | "call_llvm_intrin"
                        | "call_llvm_pure_intrin"
                ) {
                    let mut parts = vec![quote(&dtype.to_string())];
                    parts.extend(args.iter().map(|a| self.expr(a).0));
                    return (format!("T.{op}({})", parts.join(", ")), Prec::Atom);
                }
                let refs: Vec<&PrimExpr> = args.iter().collect();
                self.call(&format!("T.{op}"), &refs)
            }
            ExprKind::Let { var, value, body } => {
                let v = self.expr(value).0;
                self.push_scope();
                let name = self.define_var(var);
                let b = self.expr(body).0;
                self.pop_scope();
                (format!("T.Let({b}, where={{{name}: {v}}})"), Prec::Atom)
            }
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => {
                let b = self.expr(base).0;
                let s = self.expr(stride).0;
                (format!("T.Ramp({b}, {s}, {lanes})"), Prec::Atom)
            }
            ExprKind::Broadcast { value, lanes } => {
                let v = self.expr(value).0;
                (format!("T.Broadcast({v}, {lanes})"), Prec::Atom)
            }
        }
    }
}

/// `min + extent`, folded when both are constants or when `extent` is `x - min`.
fn add_folded(min: &PrimExpr, extent: &PrimExpr) -> PrimExpr {
    if let (Some(a), Some(b)) = (min.as_int(), extent.as_int()) {
        return PrimExpr::int(extent.dtype(), a.wrapping_add(b));
    }
    if let ExprKind::Binary {
        op: BinaryOp::Sub,
        a,
        b,
    } = extent.kind()
        && expr_same(b, min)
    {
        return a.clone();
    }
    PrimExpr::binary(BinaryOp::Add, min.clone(), extent.clone())
}

/// The root block of a body, if it is implicit: TVM prints it as a comment plus its
/// allocations instead of a `with T.sblock("root"):`.
fn implicit_root(body: &Stmt) -> Option<&SBlock> {
    let StmtKind::SBlockRealize(r) = body.kind() else {
        return None;
    };
    if !r.iter_values.is_empty() || !r.predicate.is_one() {
        return None;
    }
    let b = &r.block;
    if !b.annotations.is_empty() || !b.reads.is_empty() || !b.writes.is_empty() || b.init.is_some()
    {
        return None;
    }
    let inner = match b.body.kind() {
        StmtKind::SBlockRealize(x) => Some(x),
        _ => None,
    };
    let mut contains_block = false;
    b.body
        .visit(&mut |s| contains_block |= matches!(s.kind(), StmtKind::SBlockRealize(_)));
    let implicit = !b.alloc_buffers.is_empty()
        || inner.is_some_and(|x| !x.block.iter_vars.is_empty())
        || (inner.is_none() && contains_block);
    implicit.then_some(b)
}

/// The TIR node name of a comparison (`T.LT`).
pub fn cmp_node_name(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "EQ",
        CmpOp::Ne => "NE",
        CmpOp::Lt => "LT",
        CmpOp::Le => "LE",
        CmpOp::Gt => "GT",
        CmpOp::Ge => "GE",
    }
}

#[cfg(test)]
mod tests {
    use super::fmt_float;

    #[test]
    fn floats_print_like_tvm() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.5, "0.5"),
            (1e-05, "1.0000000000000001e-05"),
            (0.1, "0.10000000000000001"),
            (std::f64::consts::FRAC_1_SQRT_2, "0.70710678118654757"),
            (
                -3.4028234663852886e38,
                "-340282346638528859811704183484516925440.0",
            ),
            (0.044715, "0.044714999999999998"),
            (f64::INFINITY, "\"inf\""),
        ];
        for (v, want) in cases {
            assert_eq!(fmt_float(v), want, "{v}");
        }
    }
}
