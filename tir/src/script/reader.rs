//! The `T.` dialect reader's statement and function layer: `@T.prim_func` definitions, buffer
//! parameters, loops, blocks, stores and bindings, converted from the syntax tree to TIR.
//!
//! Statements that bind a name for the rest of their block (`x: T.let[T.int32] = e`,
//! `T.attr({...})`, `X = T.decl_buffer(...)`, `X = T.alloc_buffer(...)` and its `T.alloc_local`
//! / `T.alloc_shared` forms, `assert c, "m"`) take the following statements as their body, as
//! TVM's "concise scoping" does. Declarations inside a block (`T.reads`, `T.writes`,
//! `T.sblock_attr`, `T.axis.*`, `T.sblock_alloc_buffer`, `with T.init():`) fill in the
//! enclosing block instead of producing statements.

use std::collections::HashMap;

use crate::error::ParseError;
use crate::ir::*;
use crate::script::ModuleContext;
use crate::syntax::Span;
use crate::syntax::ast::{self, ExprKind as A, StmtKind as AS};

pub(crate) type PResult<T> = Result<T, ParseError>;

/// Whether a definition is decorated with `@T.prim_func` (bare or called).
pub fn is_prim_func(def: &ast::FunctionDef) -> bool {
    def.decorators.iter().any(|d| {
        d.dotted_name().as_deref() == Some("T.prim_func")
            || d.call_name().as_deref() == Some("T.prim_func")
    })
}

/// Converts one `@T.prim_func` definition into a [`PrimFunc`]. `ctx` supplies the module-level
/// `TypeVar` names.
pub fn prim_func_from_ast(def: &ast::FunctionDef, ctx: &ModuleContext) -> PResult<PrimFunc> {
    let mut r = Reader::new(ctx);
    r.function(def)
}

#[derive(Clone)]
pub(crate) enum Binding {
    Var(Var),
    Buffer(Buffer),
    /// The loop variables of `for iters in T.grid(...)`, read by `T.axis.remap(kinds, iters)`.
    Vars(Vec<Var>),
}

#[derive(Default)]
struct BlockFrame {
    iter_vars: Vec<IterVar>,
    iter_values: Vec<PrimExpr>,
    reads: Option<Vec<BufferRegion>>,
    writes: Option<Vec<BufferRegion>>,
    annotations: Option<Attrs>,
    alloc_buffers: Vec<Buffer>,
    init: Option<Stmt>,
    predicate: Option<PrimExpr>,
}

/// A statement in the making: either finished, or waiting for the rest of its block as body.
enum Item {
    Stmt(Stmt),
    Nothing,
    Scoped(Box<dyn FnOnce(Stmt) -> Stmt>),
}

pub(crate) struct Reader<'a> {
    ctx: &'a ModuleContext,
    scopes: Vec<HashMap<String, Binding>>,
    type_vars: HashMap<String, Var>,
    loops: Vec<(Var, Range)>,
    blocks: Vec<BlockFrame>,
    root_allocs: Vec<Buffer>,
    func_attrs: Option<Attrs>,
    params: Vec<Var>,
    buffer_map: Vec<(Var, Buffer)>,
    /// Depth of nested bodies (0 = function body).
    nesting: usize,
}

fn err<T>(span: Span, msg: impl Into<String>) -> PResult<T> {
    Err(ParseError::new(span, msg))
}

impl<'a> Reader<'a> {
    pub(crate) fn new(ctx: &'a ModuleContext) -> Self {
        Reader {
            ctx,
            scopes: vec![HashMap::new()],
            type_vars: HashMap::new(),
            loops: Vec::new(),
            blocks: Vec::new(),
            root_allocs: Vec::new(),
            func_attrs: None,
            params: Vec::new(),
            buffer_map: Vec::new(),
            nesting: 0,
        }
    }

    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub(crate) fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    pub(crate) fn bind_var(&mut self, name: &str, v: Var) {
        self.bind(name, Binding::Var(v));
    }

    fn bind(&mut self, name: &str, b: Binding) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), b);
        }
    }

    pub(crate) fn lookup(&mut self, name: &str) -> Option<Binding> {
        for s in self.scopes.iter().rev() {
            if let Some(b) = s.get(name) {
                return Some(b.clone());
            }
        }
        if let Some(v) = self.type_vars.get(name) {
            return Some(Binding::Var(v.clone()));
        }
        if self.ctx.type_vars.contains(name) {
            let v = Var::new(name, DataType::INT64);
            self.type_vars.insert(name.to_string(), v.clone());
            return Some(Binding::Var(v));
        }
        None
    }

    pub(crate) fn lookup_buffer(&mut self, e: &ast::Expr) -> PResult<Buffer> {
        let Some(name) = e.as_name() else {
            return err(e.span, format!("expected a buffer, found {}", e.describe()));
        };
        match self.lookup(name) {
            Some(Binding::Buffer(b)) => Ok(b),
            Some(Binding::Var(_) | Binding::Vars(_)) => {
                err(e.span, format!("`{name}` is a variable, not a buffer"))
            }
            None => err(e.span, format!("undefined buffer `{name}`")),
        }
    }

    // ----- functions -----

    fn function(&mut self, def: &ast::FunctionDef) -> PResult<PrimFunc> {
        let (private, s_tir) = self.decorator(def)?;
        // `-> None` (TVM's tests write it on kernels that write their outputs) says what a
        // prim_func without `T.ret` returns anyway; a value-returning prim_func is not read.
        if let Some(ret) = &def.returns
            && !matches!(ret.kind, A::None)
        {
            return err(
                ret.span,
                "prim_funcs with a return type (`-> ...`) other than `-> None` are not supported",
            );
        }
        for p in &def.params {
            if let Some(d) = &p.default {
                return err(
                    d.span,
                    "default values of prim_func parameters are not supported",
                );
            }
            let Some(ann) = &p.annotation else {
                return err(
                    p.span,
                    format!("parameter `{}` needs a type annotation", p.name),
                );
            };
            if ann.call_name().as_deref() == Some("T.Buffer") {
                let buffer = self.buffer_decl(&p.name, ann, "global", 0)?;
                let handle = Var::new(p.name.clone(), DataType::HANDLE);
                self.params.push(handle.clone());
                self.buffer_map.push((handle, buffer.clone()));
                self.bind(&p.name, Binding::Buffer(buffer));
            } else {
                let dtype = self.dtype_annotation(ann)?;
                let v = Var::new(p.name.clone(), dtype);
                self.params.push(v.clone());
                self.bind(&p.name, Binding::Var(v));
            }
        }
        // The function's docstring is no statement.
        let body_stmts = match &def.body[..] {
            [
                ast::Stmt {
                    kind:
                        AS::Expr(ast::Expr {
                            kind: A::Str(_), ..
                        }),
                    ..
                },
                rest @ ..,
            ] if !rest.is_empty() => rest,
            all => all,
        };
        let stmts = self.seq(body_stmts)?;
        let mut body = Stmt::seq(stmts);
        let mut contains_block = false;
        body.visit(&mut |s| contains_block |= matches!(s.kind(), StmtKind::SBlockRealize(_)));
        let has_root = self.root_allocs.is_empty()
            && matches!(body.kind(), StmtKind::SBlockRealize(r) if r.block.iter_vars.is_empty());
        if (contains_block || !self.root_allocs.is_empty()) && !has_root {
            body = Stmt::new(StmtKind::SBlockRealize(SBlockRealize {
                iter_values: Vec::new(),
                predicate: PrimExpr::bool(true),
                block: SBlock {
                    name: "root".to_string(),
                    iter_vars: Vec::new(),
                    reads: Vec::new(),
                    writes: Vec::new(),
                    init: None,
                    alloc_buffers: std::mem::take(&mut self.root_allocs),
                    annotations: Attrs::new(),
                    body,
                },
            }));
        }
        Ok(PrimFunc {
            name: def.name.clone(),
            params: std::mem::take(&mut self.params),
            buffer_map: std::mem::take(&mut self.buffer_map),
            body,
            attrs: self.func_attrs.take().unwrap_or_default(),
            private,
            s_tir,
        })
    }

    fn decorator(&mut self, def: &ast::FunctionDef) -> PResult<(bool, bool)> {
        let mut private = false;
        let mut s_tir = false;
        for d in &def.decorators {
            match &d.kind {
                A::Call {
                    func,
                    args,
                    keywords,
                } if func.dotted_name().as_deref() == Some("T.prim_func") => {
                    if let Some(a) = args.first() {
                        return err(a.span, "`T.prim_func` takes only keyword arguments");
                    }
                    for k in keywords {
                        let value = match &k.value.kind {
                            A::Bool(b) => *b,
                            _ => return err(k.value.span, "expected `True` or `False`"),
                        };
                        match k.name.as_str() {
                            "private" => private = value,
                            "s_tir" => s_tir = value,
                            "check_well_formed" => {}
                            other => {
                                return err(
                                    k.span,
                                    format!("unknown `T.prim_func` argument `{other}`"),
                                );
                            }
                        }
                    }
                }
                _ if d.dotted_name().as_deref() == Some("T.prim_func") => {}
                _ => return err(d.span, "unsupported decorator on a prim_func"),
            }
        }
        Ok((private, s_tir))
    }

    /// A dtype written as an annotation or argument: `T.int32`, `T.float32`, `"float32"`,
    /// `T.handle`, `T.bool`.
    pub(crate) fn dtype_annotation(&mut self, e: &ast::Expr) -> PResult<DataType> {
        match &e.kind {
            A::Str(s) => DataType::parse(s)
                .ok_or_else(|| ParseError::new(e.span, format!("unknown data type {s:?}"))),
            A::None => Ok(DataType::VOID),
            _ => {
                let name = e.dotted_name();
                if let Some(t) = name.as_deref().and_then(|n| n.strip_prefix("T."))
                    && let Some(d) = DataType::parse(t)
                {
                    return Ok(d);
                }
                err(
                    e.span,
                    "expected a data type such as `T.int32` or \"float32\"",
                )
            }
        }
    }

    fn dtype_string(&mut self, e: &ast::Expr) -> PResult<DataType> {
        self.dtype_annotation(e)
    }

    // ----- buffers -----

    /// Binds the arguments of `call` to parameter names (positional first, then keywords) and
    /// rejects unknown or repeated ones.
    pub(crate) fn bind_args<'e>(
        &self,
        call: &'e ast::Expr,
        names: &[&str],
    ) -> PResult<Vec<Option<&'e ast::Expr>>> {
        let A::Call {
            func,
            args,
            keywords,
        } = &call.kind
        else {
            return err(call.span, "expected a call");
        };
        let fname = func.dotted_name().unwrap_or_default();
        if args.len() > names.len() {
            return err(
                args[names.len()].span,
                format!("too many arguments to `{fname}`"),
            );
        }
        let mut out: Vec<Option<&ast::Expr>> = vec![None; names.len()];
        for (i, a) in args.iter().enumerate() {
            out[i] = Some(a);
        }
        for k in keywords {
            let Some(i) = names.iter().position(|n| *n == k.name) else {
                return err(
                    k.span,
                    format!("unknown argument `{}` of `{fname}`", k.name),
                );
            };
            if out[i].is_some() {
                return err(k.span, format!("argument `{}` given twice", k.name));
            }
            out[i] = Some(&k.value);
        }
        Ok(out)
    }

    fn int_literal(&mut self, e: &ast::Expr) -> PResult<i64> {
        let v = self.expr(e)?;
        v.as_int()
            .ok_or_else(|| ParseError::new(e.span, "expected an integer constant"))
    }

    /// One buffer dimension: an expression, or a string holding one (TVM prints a composite
    /// symbolic dimension as `T.Buffer(("n + m", 3))`).
    fn dim(&mut self, e: &ast::Expr) -> PResult<PrimExpr> {
        let A::Str(s) = &e.kind else {
            return self.expr(e);
        };
        let parsed = crate::syntax::parse_expr(s).map_err(|inner| {
            ParseError::new(e.span, format!("in dimension {s:?}: {}", inner.message))
        })?;
        self.expr(&parsed).map_err(|inner| {
            ParseError::new(e.span, format!("in dimension {s:?}: {}", inner.message))
        })
    }

    fn str_literal(e: &ast::Expr) -> PResult<String> {
        match &e.kind {
            A::Str(s) => Ok(s.clone()),
            _ => err(e.span, format!("expected a string, found {}", e.describe())),
        }
    }

    pub(crate) fn expr_list(&mut self, e: &ast::Expr) -> PResult<Vec<PrimExpr>> {
        match &e.kind {
            A::Tuple(elts) | A::List(elts) => elts.iter().map(|x| self.expr(x)).collect(),
            _ => Ok(vec![self.expr(e)?]),
        }
    }

    /// `T.Buffer(shape, dtype, data=, strides=, elem_offset=, scope=, align=, offset_factor=)`
    /// and the same arguments of `T.sblock_alloc_buffer` / `T.match_buffer` / `T.decl_buffer`
    /// (after `skip` leading positional arguments that the caller handles).
    fn buffer_decl(
        &mut self,
        name: &str,
        call: &ast::Expr,
        default_scope: &str,
        skip: usize,
    ) -> PResult<Buffer> {
        const NAMES: &[&str] = &[
            "shape",
            "dtype",
            "data",
            "strides",
            "elem_offset",
            "scope",
            "align",
            "offset_factor",
            "buffer_type",
            "axis_separators",
        ];
        let mut names: Vec<&str> = vec!["__skip"; skip];
        names.extend_from_slice(NAMES);
        let args = self.bind_args(call, &names)?;
        let args = &args[skip..];
        let Some(shape_e) = args[0] else {
            return err(call.span, "missing buffer shape");
        };
        let dim_exprs = match &shape_e.kind {
            A::Tuple(x) | A::List(x) => x.iter().collect::<Vec<_>>(),
            _ => vec![shape_e],
        };
        let shape = dim_exprs
            .iter()
            .map(|e| self.dim(e))
            .collect::<PResult<Vec<_>>>()?;
        for (s, e) in shape.iter().zip(dim_exprs) {
            if !s.dtype().is_int_or_uint() {
                return err(e.span, "buffer dimensions must be integers");
            }
        }
        let dtype = match args[1] {
            Some(d) => self.dtype_string(d)?,
            None => DataType::FLOAT32,
        };
        let data = match args[2] {
            None => Var::new(name, DataType::HANDLE),
            Some(d) => match self.expr(d)?.as_var() {
                Some(v) if v.dtype().is_handle() => v.clone(),
                _ => return err(d.span, "`data=` must be a `handle` variable"),
            },
        };
        let strides = match args[3] {
            Some(s) if !matches!(s.kind, A::None) => self.expr_list(s)?,
            _ => Vec::new(),
        };
        let index_type = shape.first().map(|e| e.dtype()).unwrap_or(DataType::INT32);
        let elem_offset = match args[4] {
            Some(e) if !matches!(e.kind, A::None) => self.expr(e)?,
            _ => PrimExpr::int(index_type, 0),
        };
        let scope = match args[5] {
            Some(s) => Self::str_literal(s)?,
            None => default_scope.to_string(),
        };
        let data_alignment = match args[6] {
            Some(a) => self.int_literal(a)?,
            None => 0,
        };
        let offset_factor = match args[7] {
            Some(a) => self.int_literal(a)?,
            None => 0,
        };
        if let Some(bt) = args[8] {
            let s = Self::str_literal(bt)?;
            if s != "default" && !s.is_empty() {
                return err(bt.span, format!("buffer_type {s:?} is not supported"));
            }
        }
        if let Some(ax) = args[9]
            && !matches!(&ax.kind, A::None)
            && !matches!(&ax.kind, A::List(v) | A::Tuple(v) if v.is_empty())
        {
            return err(ax.span, "axis_separators are not supported");
        }
        Ok(Buffer::new(BufferNode {
            name: name.to_string(),
            data,
            dtype,
            shape,
            strides,
            elem_offset,
            scope,
            data_alignment: if data_alignment <= 0 {
                DEFAULT_ALIGNMENT
            } else {
                data_alignment
            },
            offset_factor: if offset_factor == 0 { 1 } else { offset_factor },
        }))
    }

    // ----- statements -----

    /// Converts a block of statements, giving binding statements the rest of the block.
    fn seq(&mut self, stmts: &[ast::Stmt]) -> PResult<Vec<Stmt>> {
        let mut out = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            match self.stmt(s)? {
                Item::Stmt(st) => out.push(st),
                Item::Nothing => {}
                Item::Scoped(wrap) => {
                    let rest = self.seq(&stmts[i + 1..])?;
                    let body = if rest.is_empty() {
                        Stmt::no_op()
                    } else {
                        Stmt::seq(rest)
                    };
                    out.push(wrap(body));
                    return Ok(out);
                }
            }
        }
        Ok(out)
    }

    /// A nested body in its own name scope.
    fn body(&mut self, stmts: &[ast::Stmt]) -> PResult<Stmt> {
        self.scopes.push(HashMap::new());
        self.nesting += 1;
        let r = self.seq(stmts);
        self.nesting -= 1;
        self.scopes.pop();
        let v = r?;
        Ok(if v.is_empty() {
            Stmt::no_op()
        } else {
            Stmt::seq(v)
        })
    }

    fn stmt(&mut self, s: &ast::Stmt) -> PResult<Item> {
        match &s.kind {
            AS::Expr(e) => self.expr_stmt(e),
            AS::Assign { targets, value } => {
                if targets.len() != 1 {
                    return err(s.span, "chained assignment is not supported in TIR");
                }
                self.assign(&targets[0], value)
            }
            AS::AnnAssign {
                target,
                annotation,
                value,
            } => self.ann_assign(s, target, annotation, value.as_ref()),
            AS::AugAssign { target, op, value } => {
                if let Some(name) = target.as_name()
                    && let Some(buffer) = self.scalar_buffer(name)
                {
                    let indices = vec![PrimExpr::int(DataType::INT32, 0)];
                    let old = PrimExpr::load(buffer.clone(), indices);
                    let rhs = self.expr(value)?;
                    let new = self.binop(*op, old, rhs, s.span)?;
                    let value = self.store_value(&buffer, new, value.span)?;
                    return Ok(Item::Stmt(Self::scalar_store(buffer, value)));
                }
                let A::Subscript { value: buf, index } = &target.kind else {
                    return err(
                        target.span,
                        "augmented assignment needs a buffer element target",
                    );
                };
                let buffer = self.lookup_buffer(buf)?;
                let indices = self.indices(index)?;
                let old = PrimExpr::load(buffer.clone(), indices.clone());
                let rhs = self.expr(value)?;
                let new = self.binop(*op, old, rhs, s.span)?;
                let value = self.store_value(&buffer, new, value.span)?;
                Ok(Item::Stmt(Stmt::new(StmtKind::BufferStore {
                    buffer,
                    value,
                    indices,
                })))
            }
            AS::For {
                target,
                iter,
                body,
                orelse,
            } => {
                if let Some(e) = orelse.first() {
                    return err(e.span, "`for ... else` is not supported in TIR");
                }
                self.for_stmt(target, iter, body).map(Item::Stmt)
            }
            AS::With { items, body } => self.with_stmt(s, items, body),
            AS::If { test, body, orelse } => {
                let cond = self.expr(test)?;
                if !cond.dtype().is_bool() {
                    return err(test.span, "an `if` condition must be a bool expression");
                }
                let then_case = self.body(body)?;
                let else_case = if orelse.is_empty() {
                    None
                } else {
                    Some(self.body(orelse)?)
                };
                Ok(Item::Stmt(Stmt::new(StmtKind::IfThenElse {
                    cond,
                    then_case,
                    else_case,
                })))
            }
            AS::Assert { test, msg } => {
                let cond = self.expr(test)?;
                let message = match msg {
                    Some(m) => self.expr(m)?,
                    None => PrimExpr::string(""),
                };
                Ok(Item::Scoped(Box::new(move |body| {
                    Stmt::new(StmtKind::AssertStmt {
                        cond,
                        message,
                        body,
                    })
                })))
            }
            AS::Pass => Ok(Item::Nothing),
            AS::Return(_) => err(s.span, "`return` is not supported in prim_funcs"),
            AS::While { test, body, orelse } => {
                if let Some(e) = orelse.first() {
                    return err(e.span, "`while ... else` is not supported in TIR");
                }
                let cond = self.expr(test)?;
                if !cond.dtype().is_bool() {
                    return err(test.span, "a `while` condition must be a bool expression");
                }
                let body = self.body(body)?;
                Ok(Item::Stmt(Stmt::new(StmtKind::While { cond, body })))
            }
            AS::FunctionDef(_) | AS::ClassDef(_) => {
                err(s.span, "nested definitions are not supported in prim_funcs")
            }
            AS::Break | AS::Continue => {
                err(s.span, "`break` / `continue` are not supported in TIR")
            }
        }
    }

    /// `buffer` allocated for the statements after it (`Allocate` around its `DeclBuffer`).
    fn allocation(buffer: Buffer) -> Item {
        Item::Scoped(Box::new(move |body| Self::allocate(buffer, body)))
    }

    /// TVM's `AllocBuffer`: the memory of `buffer` for `body`.
    fn allocate(buffer: Buffer, body: Stmt) -> Stmt {
        Stmt::new(StmtKind::Allocate {
            buffer_var: buffer.data.clone(),
            dtype: buffer.dtype,
            extents: buffer.shape.clone(),
            scope: buffer.scope.clone(),
            condition: PrimExpr::bool(true),
            body: Stmt::new(StmtKind::DeclBuffer { buffer, body }),
        })
    }

    /// A mutable scalar local (TVM's `T.local_scalar` behind `x: T.float32 = v` and
    /// `x = v`): its allocation for the rest of the block, starting with the store of `init`.
    fn local_scalar(&mut self, name: &str, dtype: DataType, init: Option<PrimExpr>) -> Item {
        let buffer = Buffer::local_scalar(name, dtype);
        self.bind(name, Binding::Buffer(buffer.clone()));
        let Some(value) = init else {
            return Self::allocation(buffer);
        };
        let store = Self::scalar_store(buffer.clone(), value);
        Item::Scoped(Box::new(move |body| {
            Self::allocate(buffer, then(store, body))
        }))
    }

    fn scalar_store(buffer: Buffer, value: PrimExpr) -> Stmt {
        Stmt::new(StmtKind::BufferStore {
            buffer,
            value,
            indices: vec![PrimExpr::int(DataType::INT32, 0)],
        })
    }

    /// The buffer behind a name that TVMScript writes without an index: a local scalar, or
    /// any other one-element buffer of shape `(1,)`, which TVM prints the same way.
    fn scalar_buffer(&mut self, name: &str) -> Option<Buffer> {
        match self.lookup(name) {
            Some(Binding::Buffer(b)) if Self::is_scalar_buffer(&b) => Some(b),
            _ => None,
        }
    }

    pub(crate) fn is_scalar_buffer(b: &Buffer) -> bool {
        matches!(b.shape.as_slice(), [e] if e.is_one()) && b.strides.is_empty()
    }

    fn block_frame(&mut self, span: Span, what: &str) -> PResult<&mut BlockFrame> {
        match self.blocks.last_mut() {
            Some(f) => Ok(f),
            None => err(span, format!("`{what}` is only allowed inside `T.sblock`")),
        }
    }

    fn expr_stmt(&mut self, e: &ast::Expr) -> PResult<Item> {
        let name = e.call_name().unwrap_or_default();
        let A::Call { args, keywords, .. } = &e.kind else {
            let v = self.expr(e)?;
            return Ok(Item::Stmt(Stmt::new(StmtKind::Evaluate(v))));
        };
        match name.as_str() {
            "T.func_attr" => {
                if self.nesting > 0 || !self.blocks.is_empty() {
                    return err(
                        e.span,
                        "`T.func_attr` must be at the top of the function body",
                    );
                }
                let [d] = args.as_slice() else {
                    return err(e.span, "`T.func_attr` takes one dict");
                };
                let attrs = self.attr_dict(d)?;
                self.func_attrs.get_or_insert_with(Attrs::new).extend(attrs);
                Ok(Item::Nothing)
            }
            "T.reads" | "T.writes" => {
                let mut regions = Vec::new();
                for a in args {
                    match &a.kind {
                        A::List(xs) | A::Tuple(xs) => {
                            for x in xs {
                                regions.push(self.region(x)?);
                            }
                        }
                        _ => regions.push(self.region(a)?),
                    }
                }
                let frame = self.block_frame(e.span, &name)?;
                let slot = if name == "T.reads" {
                    &mut frame.reads
                } else {
                    &mut frame.writes
                };
                if slot.is_some() {
                    return err(e.span, format!("`{name}` given twice"));
                }
                *slot = Some(regions);
                Ok(Item::Nothing)
            }
            "T.sblock_attr" | "T.block_attr" => {
                let [d] = args.as_slice() else {
                    return err(e.span, "`T.sblock_attr` takes one dict");
                };
                let attrs = self.attr_dict(d)?;
                let frame = self.block_frame(e.span, &name)?;
                frame
                    .annotations
                    .get_or_insert_with(Attrs::new)
                    .extend(attrs);
                Ok(Item::Nothing)
            }
            "T.where" => {
                let [c] = args.as_slice() else {
                    return err(e.span, "`T.where` takes one condition");
                };
                let cond = self.expr(c)?;
                let frame = self.block_frame(e.span, &name)?;
                frame.predicate = Some(cond);
                Ok(Item::Nothing)
            }
            "T.attr" => self.attr_stmt(e, args, keywords).map(Item::Scoped),
            "T.evaluate" => {
                let [v] = args.as_slice() else {
                    return err(e.span, "`T.evaluate` takes one expression");
                };
                let v = self.expr(v)?;
                Ok(Item::Stmt(Stmt::new(StmtKind::Evaluate(v))))
            }
            _ => {
                let v = self.expr(e)?;
                Ok(Item::Stmt(Stmt::new(StmtKind::Evaluate(v))))
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn attr_stmt(
        &mut self,
        e: &ast::Expr,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
    ) -> PResult<Box<dyn FnOnce(Stmt) -> Stmt>> {
        if let Some(k) = keywords.first() {
            return err(k.span, "`T.attr` takes no keyword arguments");
        }
        match args {
            [d] => {
                let A::Dict(items) = &d.kind else {
                    return err(d.span, "expected `T.attr({key: value})`");
                };
                let mut pairs = Vec::new();
                for (k, v) in items {
                    pairs.push((Self::str_literal(k)?, self.expr(v)?));
                }
                Ok(Box::new(move |mut body| {
                    for (key, value) in pairs.into_iter().rev() {
                        body = Stmt::new(StmtKind::AttrStmt {
                            node: None,
                            key,
                            value,
                            body,
                        });
                    }
                    body
                }))
            }
            [n, k, v] => {
                let node = self.expr(n)?;
                let key = Self::str_literal(k)?;
                let value = self.expr(v)?;
                Ok(Box::new(move |body| {
                    Stmt::new(StmtKind::AttrStmt {
                        node: Some(node),
                        key,
                        value,
                        body,
                    })
                }))
            }
            _ => err(
                e.span,
                "expected `T.attr(node, key, value)` or `T.attr({key: value})`",
            ),
        }
    }

    /// A dict of attributes: string keys; values are bools, ints, floats, strings, lists, dicts
    /// or TIR expressions.
    pub(crate) fn attr_dict(&mut self, d: &ast::Expr) -> PResult<Attrs> {
        let A::Dict(items) = &d.kind else {
            return err(d.span, "expected a dict `{\"key\": value}`");
        };
        let mut out = Attrs::new();
        for (k, v) in items {
            let key = Self::str_literal(k)?;
            let value = self.attr_value(v)?;
            out.insert(key, value);
        }
        Ok(out)
    }

    fn attr_value(&mut self, v: &ast::Expr) -> PResult<AttrValue> {
        Ok(match &v.kind {
            A::Bool(b) => AttrValue::Bool(*b),
            A::Int(i) => AttrValue::Int(
                i64::try_from(*i).map_err(|_| ParseError::new(v.span, "integer too large"))?,
            ),
            A::Float(f) => AttrValue::Float(*f),
            A::Str(s) => AttrValue::Str(s.clone()),
            A::UnaryOp {
                op: ast::UnaryOp::Neg,
                operand,
            } if matches!(operand.kind, A::Int(_) | A::Float(_)) => match &operand.kind {
                A::Int(i) => AttrValue::Int(
                    i64::try_from(-*i).map_err(|_| ParseError::new(v.span, "integer too large"))?,
                ),
                A::Float(f) => AttrValue::Float(-*f),
                _ => return err(v.span, "unexpected attribute value"),
            },
            A::List(xs) => AttrValue::List(
                xs.iter()
                    .map(|x| self.attr_value(x))
                    .collect::<PResult<Vec<_>>>()?,
            ),
            A::Dict(_) => AttrValue::Map(self.attr_dict(v)?),
            // TVM's legalized attention names buffers as values
            // (`"layout_free_placeholders": [T_reshape_1]`).
            A::Name(n) if matches!(self.lookup(n), Some(Binding::Buffer(_))) => {
                AttrValue::Buffer(self.lookup_buffer(v)?)
            }
            _ => AttrValue::Expr(self.expr(v)?),
        })
    }

    /// A buffer region in `T.reads` / `T.writes`: `A[i, 0:n]`, `A[()]`, or a whole buffer `A`.
    fn region(&mut self, e: &ast::Expr) -> PResult<BufferRegion> {
        match &e.kind {
            A::Subscript { value, index } => {
                let buffer = self.lookup_buffer(value)?;
                let parts: Vec<&ast::Expr> = match &index.kind {
                    A::Tuple(xs) => xs.iter().collect(),
                    _ => vec![index],
                };
                if parts.len() != buffer.ndim() {
                    return err(
                        index.span,
                        format!(
                            "buffer `{}` has {} dimensions, region gives {}",
                            buffer.name,
                            buffer.ndim(),
                            parts.len()
                        ),
                    );
                }
                let mut region = Vec::new();
                for (d, p) in parts.into_iter().enumerate() {
                    match &p.kind {
                        A::Slice { lower, upper, step } => {
                            if let Some(s) = step {
                                return err(s.span, "region slices take no step");
                            }
                            let index_type = buffer.shape[d].dtype();
                            let lo = match lower {
                                Some(l) => self.expr(l)?,
                                None => PrimExpr::int(index_type, 0),
                            };
                            let hi = match upper {
                                Some(u) => self.expr(u)?,
                                None => buffer.shape[d].clone(),
                            };
                            let (lo, hi) = super::expr::match_types(lo, hi);
                            region.push(Range::new(
                                lo.clone(),
                                super::expr::extent_between(&lo, &hi),
                            ));
                        }
                        _ => {
                            let i = self.expr(p)?;
                            let one = PrimExpr::int(i.dtype(), 1);
                            region.push(Range::new(i, one));
                        }
                    }
                }
                Ok(BufferRegion { buffer, region })
            }
            A::Name(_) => {
                let buffer = self.lookup_buffer(e)?;
                let region = buffer
                    .shape
                    .iter()
                    .map(|s| Range::from_extent(s.clone()))
                    .collect();
                Ok(BufferRegion { buffer, region })
            }
            _ => err(e.span, "expected a buffer region such as `A[i, 0:4]`"),
        }
    }

    pub(crate) fn indices(&mut self, index: &ast::Expr) -> PResult<Vec<PrimExpr>> {
        let parts: Vec<&ast::Expr> = match &index.kind {
            A::Tuple(xs) => xs.iter().collect(),
            _ => vec![index],
        };
        let mut out = Vec::new();
        for p in parts {
            if matches!(p.kind, A::Slice { .. }) {
                return err(p.span, "slices are only allowed in `T.reads` / `T.writes`");
            }
            let i = self.expr(p)?;
            if !i.dtype().is_int_or_uint() {
                return err(
                    p.span,
                    format!("buffer index must be an integer, not {}", i.dtype()),
                );
            }
            out.push(i);
        }
        Ok(out)
    }

    fn store_value(&mut self, buffer: &Buffer, v: PrimExpr, span: Span) -> PResult<PrimExpr> {
        let want = buffer.dtype;
        let v = super::expr::fold_cast_imm(want, v);
        if v.dtype().element() != want.element() {
            return err(
                span,
                format!(
                    "cannot store a {} value into buffer `{}` of {}",
                    v.dtype(),
                    buffer.name,
                    want
                ),
            );
        }
        Ok(v)
    }

    fn assign(&mut self, target: &ast::Expr, value: &ast::Expr) -> PResult<Item> {
        let call = value.call_name().unwrap_or_default();
        if let A::Subscript { value: buf, index } = &target.kind {
            let buffer = self.lookup_buffer(buf)?;
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
            let v = self.expr(value)?;
            let v = self.store_value(&buffer, v, value.span)?;
            return Ok(Item::Stmt(Stmt::new(StmtKind::BufferStore {
                buffer,
                value: v,
                indices,
            })));
        }
        if let A::Tuple(targets) = &target.kind {
            if call == "T.axis.remap" {
                return self.axis_remap(targets, value).map(|_| Item::Nothing);
            }
            // `n, m = T.int64(), T.int64()`: declarations side by side, each as if alone.
            if let A::Tuple(values) = &value.kind
                && values.len() == targets.len()
            {
                for (t, v) in targets.iter().zip(values) {
                    match self.assign(t, v)? {
                        Item::Nothing => {}
                        _ => {
                            return err(
                                t.span,
                                "a tuple assignment may only declare (variables, buffers, \
                                 axes); assign values one per line",
                            );
                        }
                    }
                }
                return Ok(Item::Nothing);
            }
            return err(
                target.span,
                "tuple assignment is only supported with `T.axis.remap` or a tuple of \
                 declarations (`n, m = T.int64(), T.int64()`)",
            );
        }
        let Some(name) = target.as_name() else {
            return err(target.span, "expected a name or a buffer element as target");
        };
        if call == "T.axis.remap" {
            return self
                .axis_remap(std::slice::from_ref(target), value)
                .map(|_| Item::Nothing);
        }
        match call.as_str() {
            "T.alloc_buffer" | "T.alloc_local" | "T.alloc_shared" => {
                // TVM's statement-level allocation (`AllocBuffer`): memory for the rest of the
                // enclosing body, one per execution of it (per iteration inside a loop).
                let scope = match call.as_str() {
                    "T.alloc_local" => "local",
                    "T.alloc_shared" => "shared",
                    _ => "global",
                };
                let buffer = self.buffer_decl(name, value, scope, 0)?;
                self.bind(name, Binding::Buffer(buffer.clone()));
                Ok(Self::allocation(buffer))
            }
            "T.sblock_alloc_buffer" => {
                let buffer = self.buffer_decl(name, value, "global", 0)?;
                match self.blocks.last_mut() {
                    Some(f) => f.alloc_buffers.push(buffer.clone()),
                    None if self.nesting == 0 => self.root_allocs.push(buffer.clone()),
                    None => {
                        return err(
                            value.span,
                            "`T.sblock_alloc_buffer` outside a block must be at function level",
                        );
                    }
                }
                self.bind(name, Binding::Buffer(buffer));
                Ok(Item::Nothing)
            }
            "T.match_buffer" => {
                let A::Call { args, .. } = &value.kind else {
                    return err(value.span, "expected a call");
                };
                let Some(param) = args.first() else {
                    return err(value.span, "`T.match_buffer` needs a parameter");
                };
                let handle = match param.as_name().and_then(|n| self.lookup(n)) {
                    Some(Binding::Var(v)) if v.dtype().is_handle() && self.params.contains(&v) => v,
                    _ => return err(param.span, "expected a `T.handle` parameter"),
                };
                if self.buffer_map.iter().any(|(p, _)| *p == handle) {
                    return err(param.span, "parameter already matched to a buffer");
                }
                if self.nesting > 0 || !self.blocks.is_empty() {
                    return err(value.span, "`T.match_buffer` must be at function level");
                }
                let buffer = self.buffer_decl(name, value, "global", 1)?;
                self.buffer_map.push((handle, buffer.clone()));
                self.bind(name, Binding::Buffer(buffer));
                Ok(Item::Nothing)
            }
            "T.axis.spatial" | "T.axis.reduce" | "T.axis.scan" | "T.axis.opaque" => {
                self.axis_single(name, target.span, &call, value)?;
                Ok(Item::Nothing)
            }
            "T.allocate" => {
                let args = self.bind_args(value, &["extents", "dtype", "scope", "condition"])?;
                let (Some(ext), Some(dt)) = (args[0], args[1]) else {
                    return err(
                        value.span,
                        "`T.allocate(extents, dtype, scope)` needs extents and dtype",
                    );
                };
                let extents = self.expr_list(ext)?;
                let dtype = self.dtype_string(dt)?;
                let scope = match args[2] {
                    Some(s) => Self::str_literal(s)?,
                    None => "global".to_string(),
                };
                let condition = match args[3] {
                    Some(c) => self.expr(c)?,
                    None => PrimExpr::bool(true),
                };
                let buffer_var = Var::new(name, DataType::HANDLE);
                self.bind(name, Binding::Var(buffer_var.clone()));
                Ok(Item::Scoped(Box::new(move |body| {
                    Stmt::new(StmtKind::Allocate {
                        buffer_var,
                        dtype,
                        extents,
                        scope,
                        condition,
                        body,
                    })
                })))
            }
            "T.decl_buffer" | "T.Buffer" => {
                let has_data = self.bind_args(value, &["shape", "dtype", "data"])
                    .map(|a| a[2].is_some())
                    .unwrap_or_else(|_| matches!(&value.kind, A::Call { keywords, .. } if keywords.iter().any(|k| k.name == "data")));
                let buffer = self.buffer_decl(name, value, "global", 0)?;
                self.bind(name, Binding::Buffer(buffer.clone()));
                if has_data {
                    Ok(Item::Scoped(Box::new(move |body| {
                        Stmt::new(StmtKind::DeclBuffer { buffer, body })
                    })))
                } else {
                    Ok(Self::allocation(buffer))
                }
            }
            _ => {
                // `n = T.int64()`: a symbolic variable.
                if let A::Call {
                    func,
                    args,
                    keywords,
                } = &value.kind
                    && args.is_empty()
                    && keywords.is_empty()
                    && let Some(t) = func
                        .dotted_name()
                        .as_deref()
                        .and_then(|n| n.strip_prefix("T."))
                        .and_then(DataType::parse)
                {
                    let v = Var::new(name, t);
                    self.bind(name, Binding::Var(v));
                    return Ok(Item::Nothing);
                }
                // `x = T.bind(e)`: an immutable binding (TVM's `Bind`, printed `x: T.let[..]`).
                // `x = e` on a scalar: a store; on a new name: a new mutable scalar of the
                // value's type, or for a pointer an immutable binding.
                let v = if matches!(call.as_str(), "T.bind" | "T.Bind") {
                    let args = self.bind_args(value, &["value", "type_annotation"])?;
                    let Some(e) = args[0] else {
                        return err(value.span, format!("`{call}(value)` needs a value"));
                    };
                    let v = self.expr(e)?;
                    if let Some(t) = args[1] {
                        let dtype = self.dtype_annotation(t)?;
                        if dtype != v.dtype() {
                            return err(
                                t.span,
                                format!(
                                    "`{name}` is bound as {dtype} but its value is {}",
                                    v.dtype()
                                ),
                            );
                        }
                    }
                    let var = Var::new(name, v.dtype());
                    self.bind(name, Binding::Var(var.clone()));
                    return Ok(Item::Scoped(Box::new(move |body| {
                        Stmt::new(StmtKind::LetStmt {
                            var,
                            value: v,
                            body,
                        })
                    })));
                } else {
                    self.expr(value)?
                };
                if let Some(buffer) = self.scalar_buffer(name) {
                    let v = self.store_value(&buffer, v, value.span)?;
                    return Ok(Item::Stmt(Self::scalar_store(buffer, v)));
                }
                if !v.dtype().is_handle() {
                    return Ok(self.local_scalar(name, v.dtype(), Some(v)));
                }
                let var = Var::new(name, v.dtype());
                self.bind(name, Binding::Var(var.clone()));
                Ok(Item::Scoped(Box::new(move |body| {
                    Stmt::new(StmtKind::LetStmt {
                        var,
                        value: v,
                        body,
                    })
                })))
            }
        }
    }

    fn ann_assign(
        &mut self,
        s: &ast::Stmt,
        target: &ast::Expr,
        annotation: &ast::Expr,
        value: Option<&ast::Expr>,
    ) -> PResult<Item> {
        let Some(name) = target.as_name() else {
            return err(target.span, "expected a name");
        };
        // `T.let[T.float32]`: an immutable binding (TVM's `Bind`); `T.float32`: a mutable
        // scalar, with or without its first value.
        let (dtype, is_let) = match &annotation.kind {
            A::Subscript { value: l, index } if l.dotted_name().as_deref() == Some("T.let") => {
                (self.dtype_annotation(index)?, true)
            }
            _ => (self.dtype_annotation(annotation)?, false),
        };
        let Some(value) = value else {
            if is_let || dtype.is_handle() || dtype == DataType::VOID {
                return err(s.span, format!("`{name}` needs a value"));
            }
            return Ok(self.local_scalar(name, dtype, None));
        };
        let v = self.expr(value)?;
        let v = super::expr::fold_cast_imm(dtype, v);
        if v.dtype() != dtype {
            return err(
                value.span,
                format!(
                    "`{name}` is declared {dtype} but its value is {}",
                    v.dtype()
                ),
            );
        }
        if !is_let && !dtype.is_handle() {
            return Ok(self.local_scalar(name, dtype, Some(v)));
        }
        let var = Var::new(name, dtype);
        self.bind(name, Binding::Var(var.clone()));
        Ok(Item::Scoped(Box::new(move |body| {
            Stmt::new(StmtKind::LetStmt {
                var,
                value: v,
                body,
            })
        })))
    }

    fn axis_single(
        &mut self,
        name: &str,
        span: Span,
        call: &str,
        value: &ast::Expr,
    ) -> PResult<()> {
        let args = self.bind_args(value, &["dom", "binding", "dtype"])?;
        let (Some(dom_e), Some(bind_e)) = (args[0], args[1]) else {
            return err(
                value.span,
                format!("`{call}(dom, binding)` needs both arguments"),
            );
        };
        let dom = match &dom_e.kind {
            A::Tuple(xs) | A::List(xs) if xs.len() == 2 => {
                let lo = self.expr(&xs[0])?;
                let hi = self.expr(&xs[1])?;
                let (lo, hi) = super::expr::match_types(lo, hi);
                let ext = super::expr::extent_between(&lo, &hi);
                Range::new(lo, ext)
            }
            _ => Range::from_extent(self.expr(dom_e)?),
        };
        let binding = self.expr(bind_e)?;
        let dtype = match args[2] {
            Some(d) => self.dtype_string(d)?,
            None => dom.extent.dtype(),
        };
        let binding = super::expr::fold_cast_imm(dtype, binding);
        let kind = match call {
            "T.axis.spatial" => IterVarKind::Spatial,
            "T.axis.reduce" => IterVarKind::Reduce,
            "T.axis.scan" => IterVarKind::Scan,
            _ => IterVarKind::Opaque,
        };
        let var = Var::new(name, dtype);
        let frame = self.block_frame(span, call)?;
        frame.iter_vars.push(IterVar {
            var: var.clone(),
            dom,
            kind,
        });
        frame.iter_values.push(binding);
        self.bind(name, Binding::Var(var));
        Ok(())
    }

    fn axis_remap(&mut self, targets: &[ast::Expr], value: &ast::Expr) -> PResult<()> {
        let args = self.bind_args(value, &["kinds", "bindings"])?;
        let (Some(kinds_e), Some(binds_e)) = (args[0], args[1]) else {
            return err(
                value.span,
                "`T.axis.remap(kinds, bindings)` needs both arguments",
            );
        };
        let kinds = Self::str_literal(kinds_e)?;
        // A list of loop variables, or the name `for iters in T.grid(...)` bound to them.
        let bound_vars: Vec<(PrimExpr, Span)> = match &binds_e.kind {
            A::List(xs) | A::Tuple(xs) => xs
                .iter()
                .map(|b| Ok((self.expr(b)?, b.span)))
                .collect::<PResult<_>>()?,
            A::Name(n) => match self.lookup(n) {
                Some(Binding::Vars(vs)) => vs
                    .iter()
                    .map(|v| (PrimExpr::from(v), binds_e.span))
                    .collect(),
                _ => return err(binds_e.span, "expected a list of loop variables"),
            },
            _ => return err(binds_e.span, "expected a list of loop variables"),
        };
        let binds = bound_vars;
        if kinds.chars().count() != targets.len() || binds.len() != targets.len() {
            return err(
                value.span,
                format!(
                    "`T.axis.remap` defines {} variables but has {} kinds and {} bindings",
                    targets.len(),
                    kinds.chars().count(),
                    binds.len()
                ),
            );
        }
        let mut kind_list = Vec::new();
        for k in kinds.chars() {
            kind_list.push(match k {
                'S' => IterVarKind::Spatial,
                'R' => IterVarKind::Reduce,
                _ => {
                    return err(
                        kinds_e.span,
                        format!("unknown iteration kind {k:?} (use S or R)"),
                    );
                }
            });
        }
        for ((t, kind), (bound, at)) in targets.iter().zip(kind_list).zip(binds) {
            let Some(name) = t.as_name() else {
                return err(t.span, "expected a name");
            };
            let Some(loop_var) = bound.as_var() else {
                return err(at, "`T.axis.remap` binds loop variables only");
            };
            let Some((_, dom)) = self.loops.iter().rev().find(|(v, _)| v == loop_var) else {
                return err(
                    at,
                    format!("`{}` is not an enclosing loop variable", loop_var.name()),
                );
            };
            let dom = dom.clone();
            let var = Var::new(name, loop_var.dtype());
            let frame = self.block_frame(value.span, "T.axis.remap")?;
            frame.iter_vars.push(IterVar {
                var: var.clone(),
                dom,
                kind,
            });
            frame.iter_values.push(bound);
            self.bind(name, Binding::Var(var));
        }
        Ok(())
    }

    fn for_stmt(
        &mut self,
        target: &ast::Expr,
        iter: &ast::Expr,
        body: &[ast::Stmt],
    ) -> PResult<Stmt> {
        let name = iter.call_name().unwrap_or_default();
        let A::Call { args, .. } = &iter.kind else {
            return err(
                iter.span,
                "expected `range(...)`, `T.grid(...)`, `T.serial(...)`, ...",
            );
        };
        let mut grid_list: Option<String> = None;
        let mut target_names: Vec<(&str, Span)> = match &target.kind {
            A::Name(n) => vec![(n.as_str(), target.span)],
            A::Tuple(xs) => xs
                .iter()
                .map(|x| {
                    x.as_name()
                        .map(|n| (n, x.span))
                        .ok_or_else(|| ParseError::new(x.span, "expected a loop variable name"))
                })
                .collect::<PResult<_>>()?,
            _ => return err(target.span, "expected a loop variable name"),
        };
        // (min, extent, kind, thread, annotations) per loop, outermost first.
        let mut loops: Vec<(PrimExpr, PrimExpr, ForKind, Option<String>, Attrs)> = Vec::new();
        match name.as_str() {
            "T.grid" => {
                // Extents, `(min, extent)` pairs (TVM's `Grid` takes both) and `*A.shape`.
                for a in args {
                    match &a.kind {
                        A::Starred(inner) => {
                            let buffer = match &inner.kind {
                                A::Attribute { value, attr } if attr == "shape" => {
                                    self.lookup_buffer(value)?
                                }
                                _ => {
                                    return err(
                                        a.span,
                                        "a `*` argument of `T.grid` must be a buffer's shape (`*A.shape`)",
                                    );
                                }
                            };
                            for ext in &buffer.shape {
                                let zero = PrimExpr::int(ext.dtype(), 0);
                                loops.push((
                                    zero,
                                    ext.clone(),
                                    ForKind::Serial,
                                    None,
                                    Attrs::new(),
                                ));
                            }
                        }
                        A::Tuple(pair) if pair.len() == 2 => {
                            let (min, ext) = (self.expr(&pair[0])?, self.expr(&pair[1])?);
                            loops.push((min, ext, ForKind::Serial, None, Attrs::new()));
                        }
                        _ => {
                            let ext = self.expr(a)?;
                            let zero = PrimExpr::int(ext.dtype(), 0);
                            loops.push((zero, ext, ForKind::Serial, None, Attrs::new()));
                        }
                    }
                }
                // `for iters in T.grid(...)` binds one name to all the loop variables (named
                // `v`, as TVM names them).
                if let (A::Name(n), true) = (&target.kind, loops.len() != 1) {
                    grid_list = Some(n.clone());
                    target_names = vec![("v", target.span); loops.len()];
                }
                if loops.len() != target_names.len() {
                    return err(
                        iter.span,
                        format!(
                            "`T.grid` has {} extents for {} loop variables",
                            loops.len(),
                            target_names.len()
                        ),
                    );
                }
            }
            "range" | "T.serial" | "T.parallel" | "T.vectorized" | "T.unroll"
            | "T.thread_binding" => {
                if target_names.len() != 1 {
                    return err(target.span, format!("`{name}` defines one loop variable"));
                }
                let a = self.bind_args(iter, &["start", "stop", "thread", "annotations"])?;
                let a = if name == "range" {
                    if a[2].is_some() || a[3].is_some() {
                        return err(iter.span, "`range` takes only start and stop");
                    }
                    a
                } else {
                    a
                };
                let Some(first) = a[0] else {
                    return err(iter.span, format!("`{name}` needs an extent"));
                };
                let (min, ext) = match a[1] {
                    None => {
                        let ext = self.expr(first)?;
                        (PrimExpr::int(ext.dtype(), 0), ext)
                    }
                    Some(stop) => {
                        let lo = self.expr(first)?;
                        let hi = self.expr(stop)?;
                        let (lo, hi) = super::expr::match_types(lo, hi);
                        let ext = super::expr::extent_between(&lo, &hi);
                        (lo, ext)
                    }
                };
                if !ext.dtype().is_int_or_uint() {
                    return err(iter.span, "loop bounds must be integers");
                }
                let kind = match name.as_str() {
                    "T.parallel" => ForKind::Parallel,
                    "T.vectorized" => ForKind::Vectorized,
                    "T.unroll" => ForKind::Unrolled,
                    "T.thread_binding" => ForKind::ThreadBinding,
                    _ => ForKind::Serial,
                };
                let thread = match a[2] {
                    Some(t) if kind == ForKind::ThreadBinding => Some(Self::str_literal(t)?),
                    Some(t) => return err(t.span, "`thread=` is only for `T.thread_binding`"),
                    None if kind == ForKind::ThreadBinding => {
                        return err(iter.span, "`T.thread_binding` needs `thread=`");
                    }
                    None => None,
                };
                let annotations = match a[3] {
                    Some(d) if !matches!(d.kind, A::None) => self.attr_dict(d)?,
                    _ => Attrs::new(),
                };
                loops.push((min, ext, kind, thread, annotations));
            }
            _ => {
                return err(
                    iter.span,
                    format!(
                        "unsupported loop iterator `{name}`; expected `range`, `T.grid`, `T.serial`, `T.parallel`, `T.vectorized`, `T.unroll` or `T.thread_binding`"
                    ),
                );
            }
        }
        self.scopes.push(HashMap::new());
        let mut vars = Vec::new();
        for ((n, _), (min, ext, ..)) in target_names.iter().zip(&loops) {
            let (min, ext) = super::expr::match_types(min.clone(), ext.clone());
            let v = Var::new(*n, ext.dtype());
            self.bind(n, Binding::Var(v.clone()));
            self.loops.push((v.clone(), Range::new(min, ext)));
            vars.push(v);
        }
        if let Some(list) = &grid_list {
            self.bind(list, Binding::Vars(vars.clone()));
        }
        let inner = self.body(body);
        for _ in &vars {
            self.loops.pop();
        }
        self.scopes.pop();
        let mut stmt = inner?;
        for (v, (min, ext, kind, thread, annotations)) in vars.into_iter().zip(loops).rev() {
            let (min, ext) = super::expr::match_types(min, ext);
            stmt = Stmt::new(StmtKind::For(For {
                loop_var: v,
                min,
                extent: ext,
                kind,
                thread_binding: thread,
                annotations,
                body: stmt,
            }));
        }
        Ok(stmt)
    }

    fn with_stmt(
        &mut self,
        s: &ast::Stmt,
        items: &[ast::WithItem],
        body: &[ast::Stmt],
    ) -> PResult<Item> {
        let [item] = items else {
            return err(s.span, "`with` takes one context in TIR");
        };
        let ctx = &item.context;
        let name = ctx.call_name().unwrap_or_default();
        match name.as_str() {
            "T.sblock" | "T.block" => {
                let args = self.bind_args(ctx, &["name", "no_realize"])?;
                let block_name = match args[0] {
                    Some(n) => Self::str_literal(n)?,
                    None => String::new(),
                };
                if let Some(v) = &item.vars {
                    return err(v.span, "`T.sblock` binds no name");
                }
                self.blocks.push(BlockFrame::default());
                let inner = self.body(body);
                let frame = self.blocks.pop().unwrap_or_default();
                let body = inner?;
                Ok(Item::Stmt(self.finish_block(block_name, frame, body)))
            }
            "T.init" => {
                if self.blocks.is_empty() {
                    return err(ctx.span, "`T.init` is only allowed inside `T.sblock`");
                }
                let init = self.body(body)?;
                let frame = self.block_frame(ctx.span, "T.init")?;
                if frame.init.is_some() {
                    return err(ctx.span, "a block has at most one `T.init`");
                }
                frame.init = Some(init);
                Ok(Item::Nothing)
            }
            "T.attr" => {
                let A::Call { args, keywords, .. } = &ctx.kind else {
                    return err(ctx.span, "expected a call");
                };
                let wrap = self.attr_stmt(ctx, args, keywords)?;
                let inner = self.body(body)?;
                Ok(Item::Stmt(wrap(inner)))
            }
            "T.allocate" | "T.decl_buffer" => {
                let Some(target) = item.vars.as_ref().filter(|v| v.as_name().is_some()) else {
                    return err(ctx.span, format!("expected `with {name}(...) as name:`"));
                };
                self.push_scope();
                let item = self.assign(target, ctx);
                let inner = match item {
                    Ok(Item::Scoped(wrap)) => self.body(body).map(wrap),
                    Ok(_) => err(ctx.span, format!("`{name}` does not open a scope")),
                    Err(e) => Err(e),
                };
                self.pop_scope();
                Ok(Item::Stmt(inner?))
            }
            "T.Assert" => {
                let args = self.bind_args(ctx, &["condition", "message"])?;
                let (Some(c), Some(m)) = (args[0], args[1]) else {
                    return err(ctx.span, "expected `T.Assert(condition, message)`");
                };
                let cond = self.expr(c)?;
                let message = self.expr(m)?;
                let inner = self.body(body)?;
                Ok(Item::Stmt(Stmt::new(StmtKind::AssertStmt {
                    cond,
                    message,
                    body: inner,
                })))
            }
            "T.LetStmt" => {
                let args = self.bind_args(ctx, &["value", "var"])?;
                let Some(value_e) = args[0] else {
                    return err(ctx.span, "`T.LetStmt(value)` needs a value");
                };
                let Some(target) = item.vars.as_ref().and_then(|v| v.as_name()) else {
                    return err(ctx.span, "expected `with T.LetStmt(value) as x:`");
                };
                let value = self.expr(value_e)?;
                let var = Var::new(target, value.dtype());
                self.scopes.push(HashMap::new());
                self.bind(target, Binding::Var(var.clone()));
                let inner = self.body(body);
                self.scopes.pop();
                let inner = inner?;
                // TVM 0.27's `Bind` is flat: the binding reaches to the end of the enclosing
                // body, the form it prints (`z: T.let[T.int32] = v`). The statements after the
                // block cannot name the variable, so extending its scope over them keeps the
                // meaning and makes printing and reading it back a fixed point.
                Ok(Item::Scoped(Box::new(move |rest| {
                    Stmt::new(StmtKind::LetStmt {
                        var,
                        value,
                        body: then(inner, rest),
                    })
                })))
            }
            _ => err(
                ctx.span,
                format!(
                    "unsupported `with` context `{}`; expected `T.sblock`, `T.init`, `T.attr`, `T.LetStmt`, `T.allocate`, `T.decl_buffer` or `T.Assert`",
                    if name.is_empty() {
                        ctx.describe().to_string()
                    } else {
                        name
                    }
                ),
            ),
        }
    }

    fn finish_block(&mut self, name: String, frame: BlockFrame, body: Stmt) -> Stmt {
        let (reads, writes) = match (frame.reads, frame.writes) {
            (Some(r), Some(w)) => (r, w),
            (r, w) => {
                let (ir, iw) = infer_regions(&body, frame.init.as_ref(), &frame.alloc_buffers);
                (r.unwrap_or(ir), w.unwrap_or(iw))
            }
        };
        Stmt::new(StmtKind::SBlockRealize(SBlockRealize {
            iter_values: frame.iter_values,
            predicate: frame.predicate.unwrap_or_else(|| PrimExpr::bool(true)),
            block: SBlock {
                name,
                iter_vars: frame.iter_vars,
                reads,
                writes,
                init: frame.init,
                alloc_buffers: frame.alloc_buffers,
                annotations: frame.annotations.unwrap_or_default(),
                body,
            },
        }))
    }
}

/// `first` followed by `rest`, the rest of a block as [`Reader::seq`] gives it to a scoped
/// statement (a no-op when the block ends there).
fn then(first: Stmt, rest: Stmt) -> Stmt {
    let mut out = match first.kind() {
        StmtKind::Seq(xs) => xs.clone(),
        _ => vec![first],
    };
    match rest.kind() {
        StmtKind::Seq(xs) => out.extend(xs.iter().cloned()),
        StmtKind::Evaluate(e) if e.is_zero() => {}
        _ => out.push(rest),
    }
    Stmt::seq(out)
}

/// Read and write regions of a block that declares none: each access whose indices use only
/// block iteration variables (and outer variables) becomes a point region; a buffer accessed
/// in more than one way, or with indices using variables bound inside the block, gets its whole
/// shape. Buffers allocated by the block are left out, and a reduction's written buffers are not
/// also listed as read (TVM's convention).
fn infer_regions(
    body: &Stmt,
    init: Option<&Stmt>,
    allocs: &[Buffer],
) -> (Vec<BufferRegion>, Vec<BufferRegion>) {
    let mut inner_vars = std::collections::HashSet::new();
    // Buffers declared inside the body (local scalars, `T.alloc_buffer` statements) are, like
    // the block's own allocations, not accessed from outside it.
    let mut inner_buffers: Vec<Buffer> = allocs.to_vec();
    let mut reads: Vec<(Buffer, Vec<PrimExpr>)> = Vec::new();
    let mut writes: Vec<(Buffer, Vec<PrimExpr>)> = Vec::new();
    let mut walk = |s: &Stmt| {
        s.visit(&mut |st| {
            match st.kind() {
                StmtKind::For(f) => {
                    inner_vars.insert(f.loop_var.id());
                }
                StmtKind::LetStmt { var, .. } => {
                    inner_vars.insert(var.id());
                }
                StmtKind::DeclBuffer { buffer, .. } => inner_buffers.push(buffer.clone()),
                StmtKind::SBlockRealize(r) => {
                    for iv in &r.block.iter_vars {
                        inner_vars.insert(iv.var.id());
                    }
                }
                StmtKind::BufferStore {
                    buffer, indices, ..
                } => writes.push((buffer.clone(), indices.clone())),
                _ => {}
            }
            for e in st.exprs() {
                e.visit(&mut |x| {
                    if let ExprKind::BufferLoad { buffer, indices } = x.kind() {
                        reads.push((buffer.clone(), indices.clone()));
                    }
                });
            }
        });
    };
    walk(body);
    if let Some(i) = init {
        walk(i);
    }
    let to_regions = |accesses: Vec<(Buffer, Vec<PrimExpr>)>| -> Vec<BufferRegion> {
        let mut out: Vec<(Buffer, Option<Vec<PrimExpr>>)> = Vec::new();
        for (b, idx) in accesses {
            if inner_buffers.iter().any(|a| a.same_as(&b)) {
                continue;
            }
            let point = !idx
                .iter()
                .any(|i| i.uses_var(&|v: &Var| inner_vars.contains(&v.id())));
            let idx = if point { Some(idx) } else { None };
            match out.iter_mut().find(|(x, _)| x.same_as(&b)) {
                Some((_, existing)) => {
                    let same = match (existing.as_ref(), idx.as_ref()) {
                        (Some(a), Some(c)) => {
                            a.len() == c.len()
                                && a.iter().zip(c).all(|(p, q)| super::expr::expr_same(p, q))
                        }
                        _ => false,
                    };
                    if !same {
                        *existing = None;
                    }
                }
                None => out.push((b, idx)),
            }
        }
        out.into_iter()
            .map(|(buffer, idx)| {
                let region = match idx {
                    Some(idx) => idx
                        .into_iter()
                        .map(|i| {
                            let one = PrimExpr::int(i.dtype(), 1);
                            Range::new(i, one)
                        })
                        .collect(),
                    None => buffer
                        .shape
                        .iter()
                        .map(|s| Range::from_extent(s.clone()))
                        .collect(),
                };
                BufferRegion { buffer, region }
            })
            .collect()
    };
    let has_init = init.is_some();
    let written: Vec<Buffer> = writes.iter().map(|(b, _)| b.clone()).collect();
    let reads = if has_init {
        reads
            .into_iter()
            .filter(|(b, _)| !written.iter().any(|w| w.same_as(b)))
            .collect()
    } else {
        reads
    };
    (to_regions(reads), to_regions(writes))
}
