//! [`PrimFunc`]: a TIR function — parameters, the buffers bound to them, a body and attributes.

use std::fmt;

use std::collections::HashSet;

use crate::ir::{AttrValue, Attrs, Buffer, ExprKind, PrimExpr, Stmt, StmtKind, Var, VarId};

/// A TIR function (`@T.prim_func def name(...)`).
///
/// A plain owned struct: a function is built once by the parser or a pass and then read; its body
/// is the shared statement tree.
#[derive(Clone, Debug)]
pub struct PrimFunc {
    /// The function's name in its module.
    pub name: String,
    /// Parameters in order: `handle` variables for buffer parameters, scalar variables otherwise.
    pub params: Vec<Var>,
    /// The buffer bound to each `handle` parameter (`A: T.Buffer(...)` / `T.match_buffer`), in
    /// parameter order.
    pub buffer_map: Vec<(Var, Buffer)>,
    /// The body.
    pub body: Stmt,
    /// `T.func_attr({...})`: `op_pattern`, `tirx.noalias`, `tirx.is_host_func`, `global_symbol`...
    pub attrs: Attrs,
    /// `@T.prim_func(private=True)`: the function has no global symbol.
    pub private: bool,
    /// `@T.prim_func(s_tir=True)`: the function is schedulable TIR (uses `T.sblock`).
    pub s_tir: bool,
}

impl PrimFunc {
    /// The buffer bound to parameter `param`, if any.
    pub fn buffer_of(&self, param: &Var) -> Option<&Buffer> {
        self.buffer_map
            .iter()
            .find(|(p, _)| p == param)
            .map(|(_, b)| b)
    }

    /// The symbol under which the function is exported: the `global_symbol` attribute, or the
    /// name for a public function, or `None` for a private one.
    pub fn global_symbol(&self) -> Option<&str> {
        if let Some(AttrValue::Str(s)) = self.attrs.get("global_symbol") {
            return Some(s);
        }
        (!self.private).then_some(self.name.as_str())
    }

    /// The integer `op_pattern` attribute (TVM's `OpPatternKind`), if set.
    pub fn op_pattern(&self) -> Option<i64> {
        self.attrs.get("op_pattern").and_then(AttrValue::as_int)
    }

    /// Whether `tirx.noalias` is set: buffer parameters never alias.
    pub fn no_alias(&self) -> bool {
        self.attrs
            .get("tirx.noalias")
            .and_then(AttrValue::as_bool)
            .unwrap_or(false)
    }

    /// Whether `tirx.is_host_func` is set (shape functions run on the host).
    pub fn is_host_func(&self) -> bool {
        self.attrs
            .get("tirx.is_host_func")
            .and_then(AttrValue::as_bool)
            .unwrap_or(false)
    }
}

impl PrimFunc {
    /// Variables used but bound nowhere in the function (not a parameter, loop, block, let or
    /// allocation variable, nor a buffer's data pointer): the symbolic shape variables that a
    /// module declares with `n = TypeVar("n")`. In order of first use.
    pub fn free_vars(&self) -> Vec<Var> {
        let mut fv = FreeVars::default();
        for p in &self.params {
            fv.bound.insert(p.id());
        }
        for (_, b) in &self.buffer_map {
            fv.buffer(b);
        }
        fv.stmt(&self.body);
        fv.free
    }
}

#[derive(Default)]
struct FreeVars {
    bound: HashSet<VarId>,
    seen: HashSet<VarId>,
    free: Vec<Var>,
    buffers: HashSet<usize>,
    pending: Vec<Buffer>,
}

impl FreeVars {
    fn buffer(&mut self, b: &Buffer) {
        if !self.buffers.insert(b.identity()) {
            return;
        }
        self.bound.insert(b.data.id());
        for e in b.shape.iter().chain(&b.strides).chain([&b.elem_offset]) {
            self.expr(e);
        }
    }

    fn expr(&mut self, e: &PrimExpr) {
        e.visit(&mut |x| match x.kind() {
            ExprKind::Var(v) if !self.bound.contains(&v.id()) && self.seen.insert(v.id()) => {
                self.free.push(v.clone());
            }
            ExprKind::Let { var, .. } => {
                self.bound.insert(var.id());
            }
            ExprKind::BufferLoad { buffer, .. } => {
                let b = buffer.clone();
                self.pending.push(b);
            }
            _ => {}
        });
        while let Some(b) = self.pending.pop() {
            self.buffer(&b);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s.kind() {
            StmtKind::For(f) => {
                self.bound.insert(f.loop_var.id());
            }
            StmtKind::SBlockRealize(r) => {
                for iv in &r.block.iter_vars {
                    self.bound.insert(iv.var.id());
                    self.expr(&iv.dom.min);
                    self.expr(&iv.dom.extent);
                }
                for b in &r.block.alloc_buffers {
                    self.buffer(b);
                }
                for region in r.block.reads.iter().chain(&r.block.writes) {
                    self.buffer(&region.buffer);
                    for rg in &region.region {
                        self.expr(&rg.min);
                        self.expr(&rg.extent);
                    }
                }
            }
            StmtKind::LetStmt { var, .. } => {
                self.bound.insert(var.id());
            }
            StmtKind::Allocate { buffer_var, .. } => {
                self.bound.insert(buffer_var.id());
            }
            StmtKind::DeclBuffer { buffer, .. } | StmtKind::BufferStore { buffer, .. } => {
                self.buffer(buffer);
            }
            _ => {}
        }
        for e in s.exprs() {
            self.expr(e);
        }
        for c in s.children() {
            self.stmt(c);
        }
    }
}

impl fmt::Display for PrimFunc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::script::print_prim_func(self))
    }
}
