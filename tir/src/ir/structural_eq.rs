//! Structural equality of TIR modulo variable and buffer identity (alpha-equivalence).
//!
//! Two functions are equal when they have the same shape and every variable (buffer) of one
//! corresponds to exactly one variable (buffer) of the other, consistently everywhere: the
//! correspondence is a bijection built on first encounter, so binding positions (parameters,
//! loop variables, block iteration variables, lets, allocations) line up. Names of variables and
//! buffers do not matter (they are hints that the printer makes unique: `A`, `A_1`); names of
//! functions and blocks do. Float constants compare by bit pattern, so `-0.0 != 0.0` and a NaN
//! equals the same NaN.

use std::collections::HashMap;

use crate::ir::*;

/// Whether `a` and `b` are the same function up to renaming of variables and buffers.
pub fn structural_equal(a: &PrimFunc, b: &PrimFunc) -> bool {
    structural_diff(a, b).is_none()
}

/// `None` if `a` and `b` are structurally equal, otherwise a description of the first
/// difference with its path (`body.seq[2].for.body.block(T_add).body.store.value`).
pub fn structural_diff(a: &PrimFunc, b: &PrimFunc) -> Option<String> {
    let mut cx = EqCtx::default();
    cx.func(a, b).err()
}

type Diff = Result<(), String>;

#[derive(Default)]
struct EqCtx {
    vars: HashMap<VarId, VarId>,
    vars_rev: HashMap<VarId, VarId>,
    bufs: HashMap<usize, usize>,
    bufs_rev: HashMap<usize, usize>,
    // Keeps the compared buffers alive so that their addresses stay unique keys.
    keep: Vec<(Buffer, Buffer)>,
}

fn fail<T>(path: &str, what: impl std::fmt::Display) -> Result<T, String> {
    Err(format!("{path}: {what}"))
}

impl EqCtx {
    fn func(&mut self, a: &PrimFunc, b: &PrimFunc) -> Diff {
        if a.name != b.name {
            return fail("name", format!("{} vs {}", a.name, b.name));
        }
        if a.private != b.private || a.s_tir != b.s_tir {
            return fail("decorator", "private / s_tir flags differ");
        }
        self.attrs("attrs", &a.attrs, &b.attrs)?;
        if a.params.len() != b.params.len() {
            return fail("params", "different number of parameters");
        }
        for (i, (pa, pb)) in a.params.iter().zip(&b.params).enumerate() {
            let path = format!("params[{i}]");
            self.var(&path, pa, pb)?;
            match (a.buffer_of(pa), b.buffer_of(pb)) {
                (Some(ba), Some(bb)) => self.buffer(&path, ba, bb)?,
                (None, None) => {}
                _ => return fail(&path, "buffer parameter vs scalar parameter"),
            }
        }
        if a.buffer_map.len() != b.buffer_map.len() {
            return fail("buffer_map", "different sizes");
        }
        self.stmt("body", &a.body, &b.body)
    }

    fn var(&mut self, path: &str, a: &Var, b: &Var) -> Diff {
        if a.dtype() != b.dtype() {
            return fail(path, format!("var {a:?} vs {b:?}: types differ"));
        }
        match (self.vars.get(&a.id()), self.vars_rev.get(&b.id())) {
            (Some(m), _) if *m == b.id() => Ok(()),
            (None, None) => {
                self.vars.insert(a.id(), b.id());
                self.vars_rev.insert(b.id(), a.id());
                Ok(())
            }
            _ => fail(path, format!("var {a:?} vs {b:?} do not correspond")),
        }
    }

    fn buffer(&mut self, path: &str, a: &Buffer, b: &Buffer) -> Diff {
        let (ka, kb) = (a.identity(), b.identity());
        match (self.bufs.get(&ka), self.bufs_rev.get(&kb)) {
            (Some(m), _) if *m == kb => return Ok(()),
            (None, None) => {}
            _ => {
                return fail(
                    path,
                    format!("buffer {} vs {} do not correspond", a.name, b.name),
                );
            }
        }
        self.bufs.insert(ka, kb);
        self.bufs_rev.insert(kb, ka);
        self.keep.push((a.clone(), b.clone()));
        let path = format!("{path}.buffer({})", a.name);
        if a.dtype != b.dtype {
            return fail(&path, format!("dtype {} vs {}", a.dtype, b.dtype));
        }
        if a.scope != b.scope
            || a.data_alignment != b.data_alignment
            || a.offset_factor != b.offset_factor
        {
            return fail(&path, "scope / alignment / offset_factor differ");
        }
        self.var(&format!("{path}.data"), &a.data, &b.data)?;
        self.exprs(&format!("{path}.shape"), &a.shape, &b.shape)?;
        self.exprs(&format!("{path}.strides"), &a.strides, &b.strides)?;
        self.expr(
            &format!("{path}.elem_offset"),
            &a.elem_offset,
            &b.elem_offset,
        )
    }

    fn exprs(&mut self, path: &str, a: &[PrimExpr], b: &[PrimExpr]) -> Diff {
        if a.len() != b.len() {
            return fail(path, format!("lengths {} vs {}", a.len(), b.len()));
        }
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            self.expr(&format!("{path}[{i}]"), x, y)?;
        }
        Ok(())
    }

    fn expr(&mut self, path: &str, a: &PrimExpr, b: &PrimExpr) -> Diff {
        use ExprKind as E;
        let mismatch = || fail(path, format!("{a} vs {b}"));
        match (a.kind(), b.kind()) {
            (
                E::IntImm {
                    dtype: ta,
                    value: va,
                },
                E::IntImm {
                    dtype: tb,
                    value: vb,
                },
            ) => {
                if ta != tb || va != vb {
                    return mismatch();
                }
            }
            (
                E::FloatImm {
                    dtype: ta,
                    value: va,
                },
                E::FloatImm {
                    dtype: tb,
                    value: vb,
                },
            ) => {
                if ta != tb || va.to_bits() != vb.to_bits() {
                    return mismatch();
                }
            }
            (E::StringImm(x), E::StringImm(y)) => {
                if x != y {
                    return mismatch();
                }
            }
            (E::Var(x), E::Var(y)) => self.var(path, x, y)?,
            (
                E::Binary {
                    op: oa,
                    a: a1,
                    b: b1,
                },
                E::Binary {
                    op: ob,
                    a: a2,
                    b: b2,
                },
            ) => {
                if oa != ob {
                    return mismatch();
                }
                self.expr(path, a1, a2)?;
                self.expr(path, b1, b2)?;
            }
            (
                E::Cmp {
                    op: oa,
                    a: a1,
                    b: b1,
                },
                E::Cmp {
                    op: ob,
                    a: a2,
                    b: b2,
                },
            ) => {
                if oa != ob {
                    return mismatch();
                }
                self.expr(path, a1, a2)?;
                self.expr(path, b1, b2)?;
            }
            (E::And(a1, b1), E::And(a2, b2)) | (E::Or(a1, b1), E::Or(a2, b2)) => {
                self.expr(path, a1, a2)?;
                self.expr(path, b1, b2)?;
            }
            (E::Not(x), E::Not(y)) => self.expr(path, x, y)?,
            (
                E::Select {
                    cond: c1,
                    true_value: t1,
                    false_value: f1,
                },
                E::Select {
                    cond: c2,
                    true_value: t2,
                    false_value: f2,
                },
            ) => {
                self.expr(path, c1, c2)?;
                self.expr(path, t1, t2)?;
                self.expr(path, f1, f2)?;
            }
            (
                E::Cast {
                    dtype: ta,
                    value: x,
                },
                E::Cast {
                    dtype: tb,
                    value: y,
                },
            ) => {
                if ta != tb {
                    return mismatch();
                }
                self.expr(path, x, y)?;
            }
            (
                E::BufferLoad {
                    buffer: ba,
                    indices: ia,
                },
                E::BufferLoad {
                    buffer: bb,
                    indices: ib,
                },
            ) => {
                self.buffer(path, ba, bb)?;
                self.exprs(path, ia, ib)?;
            }
            (
                E::Call {
                    dtype: ta,
                    op: oa,
                    args: xa,
                },
                E::Call {
                    dtype: tb,
                    op: ob,
                    args: xb,
                },
            ) => {
                if ta != tb || oa != ob {
                    return mismatch();
                }
                self.exprs(path, xa, xb)?;
            }
            (
                E::Let {
                    var: va,
                    value: xa,
                    body: ba,
                },
                E::Let {
                    var: vb,
                    value: xb,
                    body: bb,
                },
            ) => {
                self.expr(path, xa, xb)?;
                self.var(path, va, vb)?;
                self.expr(path, ba, bb)?;
            }
            (
                E::Ramp {
                    base: ba,
                    stride: sa,
                    lanes: la,
                },
                E::Ramp {
                    base: bb,
                    stride: sb,
                    lanes: lb,
                },
            ) => {
                if la != lb {
                    return mismatch();
                }
                self.expr(path, ba, bb)?;
                self.expr(path, sa, sb)?;
            }
            (
                E::Broadcast {
                    value: x,
                    lanes: la,
                },
                E::Broadcast {
                    value: y,
                    lanes: lb,
                },
            ) => {
                if la != lb {
                    return mismatch();
                }
                self.expr(path, x, y)?;
            }
            _ => return mismatch(),
        }
        Ok(())
    }

    fn range(&mut self, path: &str, a: &Range, b: &Range) -> Diff {
        self.expr(path, &a.min, &b.min)?;
        self.expr(path, &a.extent, &b.extent)
    }

    fn regions(&mut self, path: &str, a: &[BufferRegion], b: &[BufferRegion]) -> Diff {
        if a.len() != b.len() {
            return fail(path, "different number of regions");
        }
        for (x, y) in a.iter().zip(b) {
            self.buffer(path, &x.buffer, &y.buffer)?;
            if x.region.len() != y.region.len() {
                return fail(path, "region ranks differ");
            }
            for (rx, ry) in x.region.iter().zip(&y.region) {
                self.range(path, rx, ry)?;
            }
        }
        Ok(())
    }

    fn attrs(&mut self, path: &str, a: &Attrs, b: &Attrs) -> Diff {
        if a.len() != b.len() || a.keys().ne(b.keys()) {
            return fail(path, "different attribute keys");
        }
        for ((k, x), y) in a.iter().zip(b.values()) {
            self.attr_value(&format!("{path}.{k}"), x, y)?;
        }
        Ok(())
    }

    fn attr_value(&mut self, path: &str, a: &AttrValue, b: &AttrValue) -> Diff {
        match (a, b) {
            (AttrValue::Bool(x), AttrValue::Bool(y)) if x == y => Ok(()),
            (AttrValue::Int(x), AttrValue::Int(y)) if x == y => Ok(()),
            (AttrValue::Float(x), AttrValue::Float(y)) if x.to_bits() == y.to_bits() => Ok(()),
            (AttrValue::Str(x), AttrValue::Str(y)) if x == y => Ok(()),
            (AttrValue::Expr(x), AttrValue::Expr(y)) => self.expr(path, x, y),
            (AttrValue::List(x), AttrValue::List(y)) if x.len() == y.len() => {
                for (p, q) in x.iter().zip(y) {
                    self.attr_value(path, p, q)?;
                }
                Ok(())
            }
            (AttrValue::Map(x), AttrValue::Map(y)) => self.attrs(path, x, y),
            (AttrValue::Buffer(x), AttrValue::Buffer(y)) => self.buffer(path, x, y),
            _ => fail(path, format!("attribute values {a:?} vs {b:?}")),
        }
    }

    fn stmt(&mut self, path: &str, a: &Stmt, b: &Stmt) -> Diff {
        use StmtKind as S;
        match (a.kind(), b.kind()) {
            (S::For(x), S::For(y)) => {
                let path = format!("{path}.for({})", x.loop_var.name());
                if x.kind != y.kind || x.thread_binding != y.thread_binding {
                    return fail(&path, "loop kinds differ");
                }
                self.expr(&path, &x.min, &y.min)?;
                self.expr(&path, &x.extent, &y.extent)?;
                self.var(&path, &x.loop_var, &y.loop_var)?;
                self.attrs(&path, &x.annotations, &y.annotations)?;
                self.stmt(&format!("{path}.body"), &x.body, &y.body)
            }
            (S::SBlockRealize(x), S::SBlockRealize(y)) => {
                let (ba, bb) = (&x.block, &y.block);
                let path = format!("{path}.block({})", ba.name);
                if ba.name != bb.name {
                    return fail(&path, format!("block names {} vs {}", ba.name, bb.name));
                }
                self.exprs(
                    &format!("{path}.iter_values"),
                    &x.iter_values,
                    &y.iter_values,
                )?;
                if ba.iter_vars.len() != bb.iter_vars.len() {
                    return fail(&path, "different number of iteration variables");
                }
                for (i, (va, vb)) in ba.iter_vars.iter().zip(&bb.iter_vars).enumerate() {
                    let p = format!("{path}.iter_vars[{i}]");
                    if va.kind != vb.kind {
                        return fail(&p, "iteration kinds differ");
                    }
                    self.range(&p, &va.dom, &vb.dom)?;
                    self.var(&p, &va.var, &vb.var)?;
                }
                self.expr(&format!("{path}.predicate"), &x.predicate, &y.predicate)?;
                if ba.alloc_buffers.len() != bb.alloc_buffers.len() {
                    return fail(&path, "different number of allocated buffers");
                }
                for (p, q) in ba.alloc_buffers.iter().zip(&bb.alloc_buffers) {
                    self.buffer(&format!("{path}.alloc_buffers"), p, q)?;
                }
                self.regions(&format!("{path}.reads"), &ba.reads, &bb.reads)?;
                self.regions(&format!("{path}.writes"), &ba.writes, &bb.writes)?;
                self.attrs(
                    &format!("{path}.annotations"),
                    &ba.annotations,
                    &bb.annotations,
                )?;
                match (&ba.init, &bb.init) {
                    (Some(p), Some(q)) => self.stmt(&format!("{path}.init"), p, q)?,
                    (None, None) => {}
                    _ => return fail(&path, "only one block has an init"),
                }
                self.stmt(&format!("{path}.body"), &ba.body, &bb.body)
            }
            (
                S::BufferStore {
                    buffer: ba,
                    value: va,
                    indices: ia,
                },
                S::BufferStore {
                    buffer: bb,
                    value: vb,
                    indices: ib,
                },
            ) => {
                let path = format!("{path}.store");
                self.buffer(&path, ba, bb)?;
                self.exprs(&format!("{path}.indices"), ia, ib)?;
                self.expr(&format!("{path}.value"), va, vb)
            }
            (
                S::LetStmt {
                    var: va,
                    value: xa,
                    body: ba,
                },
                S::LetStmt {
                    var: vb,
                    value: xb,
                    body: bb,
                },
            ) => {
                let path = format!("{path}.let({})", va.name());
                self.expr(&path, xa, xb)?;
                self.var(&path, va, vb)?;
                self.stmt(&path, ba, bb)
            }
            (
                S::IfThenElse {
                    cond: ca,
                    then_case: ta,
                    else_case: ea,
                },
                S::IfThenElse {
                    cond: cb,
                    then_case: tb,
                    else_case: eb,
                },
            ) => {
                let path = format!("{path}.if");
                self.expr(&path, ca, cb)?;
                self.stmt(&format!("{path}.then"), ta, tb)?;
                match (ea, eb) {
                    (Some(x), Some(y)) => self.stmt(&format!("{path}.else"), x, y),
                    (None, None) => Ok(()),
                    _ => fail(&path, "only one has an else branch"),
                }
            }
            (S::While { cond: ca, body: ba }, S::While { cond: cb, body: bb }) => {
                let path = format!("{path}.while");
                self.expr(&path, ca, cb)?;
                self.stmt(&path, ba, bb)
            }
            (S::Seq(xs), S::Seq(ys)) => {
                if xs.len() != ys.len() {
                    return fail(path, format!("sequences of {} vs {}", xs.len(), ys.len()));
                }
                for (i, (x, y)) in xs.iter().zip(ys).enumerate() {
                    self.stmt(&format!("{path}.seq[{i}]"), x, y)?;
                }
                Ok(())
            }
            (S::Evaluate(x), S::Evaluate(y)) => self.expr(&format!("{path}.evaluate"), x, y),
            (
                S::Allocate {
                    buffer_var: va,
                    dtype: ta,
                    extents: ea,
                    scope: sa,
                    condition: ca,
                    body: ba,
                },
                S::Allocate {
                    buffer_var: vb,
                    dtype: tb,
                    extents: eb,
                    scope: sb,
                    condition: cb,
                    body: bb,
                },
            ) => {
                let path = format!("{path}.allocate");
                if ta != tb || sa != sb {
                    return fail(&path, "dtype or scope differ");
                }
                self.exprs(&path, ea, eb)?;
                self.expr(&path, ca, cb)?;
                self.var(&path, va, vb)?;
                self.stmt(&path, ba, bb)
            }
            (
                S::DeclBuffer {
                    buffer: xa,
                    body: ba,
                },
                S::DeclBuffer {
                    buffer: xb,
                    body: bb,
                },
            ) => {
                let path = format!("{path}.decl_buffer");
                self.buffer(&path, xa, xb)?;
                self.stmt(&path, ba, bb)
            }
            (
                S::AssertStmt {
                    cond: ca,
                    message: ma,
                    body: ba,
                },
                S::AssertStmt {
                    cond: cb,
                    message: mb,
                    body: bb,
                },
            ) => {
                let path = format!("{path}.assert");
                self.expr(&path, ca, cb)?;
                self.expr(&path, ma, mb)?;
                self.stmt(&path, ba, bb)
            }
            (
                S::AttrStmt {
                    node: na,
                    key: ka,
                    value: va,
                    body: ba,
                },
                S::AttrStmt {
                    node: nb,
                    key: kb,
                    value: vb,
                    body: bb,
                },
            ) => {
                let path = format!("{path}.attr({ka})");
                if ka != kb {
                    return fail(&path, format!("keys {ka} vs {kb}"));
                }
                match (na, nb) {
                    (Some(x), Some(y)) => self.expr(&path, x, y)?,
                    (None, None) => {}
                    _ => return fail(&path, "only one has a node"),
                }
                self.expr(&path, va, vb)?;
                self.stmt(&path, ba, bb)
            }
            _ => fail(
                path,
                format!("statement kinds differ: {:.80?} vs {:.80?}", a, b),
            ),
        }
    }
}
