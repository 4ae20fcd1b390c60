//! A small tensor-expression builder, the analogue of TVM's `te.compute` + `te.create_prim_func`
//! as LegalizeOps uses them: compute definitions become one `T.sblock` per stage, with
//! `T.axis.remap` iteration variables, `T.reads`/`T.writes` collected from the body and
//! `T.init()` for reductions; stages that are not function parameters become
//! `T.sblock_alloc_buffer`s of the implicit root block.
//!
//! Expression helpers ([`add`], [`mul`], ...) fold constants the way TVM's operator overloads
//! do (`x + 0 → x`, `2 * 3 → 6`), so that the generated TIR prints like TVM's.

use tir::{
    Attrs as TAttrs, BinaryOp, Buffer, BufferRegion, CmpOp, DataType, ExprKind, For, ForKind,
    IterVar, IterVarKind, PrimExpr, PrimFunc, Range, SBlock, SBlockRealize, Stmt, StmtKind, Var,
};

/// One stage: a loop nest around one block.
struct Stage {
    block: String,
    /// Loop variables with their extents; block iteration variables are bound to them in order.
    loops: Vec<(Var, PrimExpr)>,
    iters: Vec<IterVar>,
    init: Option<Stmt>,
    body: Stmt,
    annotations: TAttrs,
    /// The buffer this stage defines (a stage output), for deciding what to allocate.
    outputs: Vec<Buffer>,
    /// An opaque block (no loops around it, explicit empty reads/writes).
    opaque: bool,
    /// Whether the block reads/writes are left empty (TVM's extern blocks).
    no_access: bool,
}

/// How a reduction combines values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Combiner {
    Sum,
    Prod,
    Max,
    Min,
}

/// The builder: stages in definition order.
#[derive(Default)]
pub(crate) struct Te {
    stages: Vec<Stage>,
}

/// Iteration axes created for a stage: loop variables and block variables.
pub(crate) struct Axes {
    loops: Vec<(Var, PrimExpr)>,
    iters: Vec<IterVar>,
}

impl Axes {
    fn new() -> Axes {
        Axes {
            loops: Vec::new(),
            iters: Vec::new(),
        }
    }
    fn push(&mut self, name: &str, extent: &PrimExpr, kind: IterVarKind) -> PrimExpr {
        let dt = extent.dtype();
        let lv = Var::new(name, dt);
        let bv = Var::new(format!("v_{name}"), dt);
        self.loops.push((lv, extent.clone()));
        self.iters.push(IterVar {
            var: bv.clone(),
            dom: Range::from_extent(extent.clone()),
            kind,
        });
        PrimExpr::from(bv)
    }
}

/// `prefix0, prefix1, ...` spatial axes over `shape`.
fn spatial(axes: &mut Axes, prefix: &str, shape: &[PrimExpr]) -> Vec<PrimExpr> {
    shape
        .iter()
        .enumerate()
        .map(|(i, e)| axes.push(&format!("{prefix}{i}"), e, IterVarKind::Spatial))
        .collect()
}

/// A compact buffer named `name`.
pub(crate) fn placeholder(name: &str, shape: &[PrimExpr], dtype: DataType) -> Buffer {
    Buffer::simple(name, dtype, shape.to_vec())
}

impl Te {
    pub(crate) fn new() -> Te {
        Te::default()
    }

    /// `te.compute(shape, f, name)`: a spatial stage with axes `prefix0, prefix1, ...`; the
    /// buffer (named `name`) has the dtype of `f`'s result.
    pub(crate) fn compute(
        &mut self,
        name: &str,
        prefix: &str,
        shape: &[PrimExpr],
        f: impl FnOnce(&[PrimExpr]) -> PrimExpr,
    ) -> Buffer {
        self.compute_attr(name, prefix, shape, TAttrs::new(), f)
    }

    /// [`Te::compute`] with block annotations (`T.sblock_attr`).
    pub(crate) fn compute_attr(
        &mut self,
        name: &str,
        prefix: &str,
        shape: &[PrimExpr],
        annotations: TAttrs,
        f: impl FnOnce(&[PrimExpr]) -> PrimExpr,
    ) -> Buffer {
        let mut axes = Axes::new();
        let idx = spatial(&mut axes, prefix, shape);
        let value = f(&idx);
        let out = placeholder(name, shape, value.dtype());
        let body = store(&out, idx, value);
        self.stages.push(Stage {
            block: name.to_string(),
            loops: axes.loops,
            iters: axes.iters,
            init: None,
            body,
            annotations,
            outputs: vec![out.clone()],
            opaque: false,
            no_access: false,
        });
        out
    }

    /// A reduction stage `name[ax] = combine over k of f(ax, k)`, spatial axes `ax0...`,
    /// reduction axes named by `raxes`.
    pub(crate) fn reduce(
        &mut self,
        name: &str,
        shape: &[PrimExpr],
        raxes: &[(String, PrimExpr)],
        combiner: Combiner,
        init: Option<PrimExpr>,
        f: impl FnOnce(&[PrimExpr], &[PrimExpr]) -> PrimExpr,
    ) -> Buffer {
        self.reduce_named(name, "ax", shape, raxes, combiner, init, f)
    }

    /// [`Te::reduce`] with another prefix for the spatial axes.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn reduce_named(
        &mut self,
        name: &str,
        prefix: &str,
        shape: &[PrimExpr],
        raxes: &[(String, PrimExpr)],
        combiner: Combiner,
        init: Option<PrimExpr>,
        f: impl FnOnce(&[PrimExpr], &[PrimExpr]) -> PrimExpr,
    ) -> Buffer {
        self.reduce_attr(name, prefix, shape, raxes, combiner, init, TAttrs::new(), f)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn reduce_attr(
        &mut self,
        name: &str,
        prefix: &str,
        shape: &[PrimExpr],
        raxes: &[(String, PrimExpr)],
        combiner: Combiner,
        init: Option<PrimExpr>,
        annotations: TAttrs,
        f: impl FnOnce(&[PrimExpr], &[PrimExpr]) -> PrimExpr,
    ) -> Buffer {
        let mut axes = Axes::new();
        let idx = spatial(&mut axes, prefix, shape);
        let ridx: Vec<PrimExpr> = raxes
            .iter()
            .map(|(n, e)| axes.push(n, e, IterVarKind::Reduce))
            .collect();
        let src = f(&idx, &ridx);
        let dt = src.dtype();
        let out = placeholder(name, shape, dt);
        let cur = PrimExpr::load(out.clone(), idx.clone());
        let value = match combiner {
            Combiner::Sum => PrimExpr::binary(BinaryOp::Add, cur, src),
            Combiner::Prod => PrimExpr::binary(BinaryOp::Mul, cur, src),
            Combiner::Max => PrimExpr::binary(BinaryOp::Max, cur, src),
            Combiner::Min => PrimExpr::binary(BinaryOp::Min, cur, src),
        };
        let init = init.unwrap_or_else(|| identity(combiner, dt));
        let init = store(&out, idx.clone(), init);
        let body = store(&out, idx, value);
        self.stages.push(Stage {
            block: name.to_string(),
            loops: axes.loops,
            iters: axes.iters,
            init: Some(init),
            body,
            annotations,
            outputs: vec![out.clone()],
            opaque: false,
            no_access: false,
        });
        out
    }

    /// A reduction stage with explicit spatial axis names (`nn, ff, yy, xx` in convolutions).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn reduce_names(
        &mut self,
        name: &str,
        names: &[&str],
        shape: &[PrimExpr],
        raxes: &[(String, PrimExpr)],
        combiner: Combiner,
        annotations: TAttrs,
        f: impl FnOnce(&[PrimExpr], &[PrimExpr]) -> PrimExpr,
    ) -> Buffer {
        let mut axes = Axes::new();
        let idx: Vec<PrimExpr> = shape
            .iter()
            .zip(names)
            .map(|(e, n)| axes.push(n, e, IterVarKind::Spatial))
            .collect();
        let ridx: Vec<PrimExpr> = raxes
            .iter()
            .map(|(n, e)| axes.push(n, e, IterVarKind::Reduce))
            .collect();
        let src = f(&idx, &ridx);
        let dt = src.dtype();
        let out = placeholder(name, shape, dt);
        let cur = PrimExpr::load(out.clone(), idx.clone());
        let value = match combiner {
            Combiner::Sum => PrimExpr::binary(BinaryOp::Add, cur, src),
            Combiner::Prod => PrimExpr::binary(BinaryOp::Mul, cur, src),
            Combiner::Max => PrimExpr::binary(BinaryOp::Max, cur, src),
            Combiner::Min => PrimExpr::binary(BinaryOp::Min, cur, src),
        };
        let init = store(&out, idx.clone(), identity(combiner, dt));
        let body = store(&out, idx, value);
        self.stages.push(Stage {
            block: name.to_string(),
            loops: axes.loops,
            iters: axes.iters,
            init: Some(init),
            body,
            annotations,
            outputs: vec![out.clone()],
            opaque: false,
            no_access: false,
        });
        out
    }

    /// A spatial stage with explicit axis names.
    pub(crate) fn compute_names(
        &mut self,
        name: &str,
        names: &[&str],
        shape: &[PrimExpr],
        f: impl FnOnce(&[PrimExpr]) -> PrimExpr,
    ) -> Buffer {
        let mut axes = Axes::new();
        let idx: Vec<PrimExpr> = shape
            .iter()
            .zip(names)
            .map(|(e, n)| axes.push(n, e, IterVarKind::Spatial))
            .collect();
        let value = f(&idx);
        let out = placeholder(name, shape, value.dtype());
        let body = store(&out, idx, value);
        self.stages.push(Stage {
            block: name.to_string(),
            loops: axes.loops,
            iters: axes.iters,
            init: None,
            body,
            annotations: TAttrs::new(),
            outputs: vec![out.clone()],
            opaque: false,
            no_access: false,
        });
        out
    }

    /// A general stage: the caller builds the block body (and init) from the axes; `outputs`
    /// are the buffers the stage defines.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn custom(
        &mut self,
        block: &str,
        prefix: &str,
        shape: &[PrimExpr],
        raxes: &[(String, PrimExpr)],
        outputs: Vec<Buffer>,
        f: impl FnOnce(&[PrimExpr], &[PrimExpr]) -> (Option<Stmt>, Stmt),
    ) {
        let mut axes = Axes::new();
        let idx = spatial(&mut axes, prefix, shape);
        let ridx: Vec<PrimExpr> = raxes
            .iter()
            .map(|(n, e)| axes.push(n, e, IterVarKind::Reduce))
            .collect();
        let (init, body) = f(&idx, &ridx);
        self.stages.push(Stage {
            block: block.to_string(),
            loops: axes.loops,
            iters: axes.iters,
            init,
            body,
            annotations: TAttrs::new(),
            outputs,
            opaque: false,
            no_access: false,
        });
    }

    /// An opaque block without iteration variables or loops around it, with empty
    /// `T.reads()`/`T.writes()` (TVM's extern ops: sort, cumsum).
    pub(crate) fn opaque(&mut self, block: &str, outputs: Vec<Buffer>, body: Stmt) {
        self.stages.push(Stage {
            block: block.to_string(),
            loops: Vec::new(),
            iters: Vec::new(),
            init: None,
            body,
            annotations: TAttrs::new(),
            outputs,
            opaque: true,
            no_access: true,
        });
    }

    /// `te.create_prim_func(params)`: parameters in order (inputs then outputs); every stage
    /// output that is not a parameter is allocated in the root block.
    pub(crate) fn build(self, name: &str, params: &[Buffer]) -> PrimFunc {
        let mut allocs = Vec::new();
        let mut stmts = Vec::new();
        let single_opaque = self.stages.len() == 1 && self.stages[0].opaque;
        let mut seen: Vec<String> = Vec::new();
        for mut st in self.stages {
            // Block names are unique within a function: `T_divide`, `T_divide_1`, ...
            let base = st.block.clone();
            let mut k = 0;
            while seen.contains(&st.block) {
                k += 1;
                st.block = format!("{base}_{k}");
            }
            seen.push(st.block.clone());
            for o in &st.outputs {
                if !params.iter().any(|p| p.same_as(o)) {
                    allocs.push(o.clone());
                }
            }
            stmts.push(st.into_stmt());
        }
        let mut body = Stmt::seq(stmts);
        if !(single_opaque && allocs.is_empty()) {
            body = Stmt::new(StmtKind::SBlockRealize(SBlockRealize {
                iter_values: Vec::new(),
                predicate: PrimExpr::bool(true),
                block: SBlock {
                    name: "root".to_string(),
                    iter_vars: Vec::new(),
                    reads: Vec::new(),
                    writes: Vec::new(),
                    init: None,
                    alloc_buffers: allocs,
                    annotations: TAttrs::new(),
                    body,
                },
            }));
        }
        let mut attrs = TAttrs::new();
        attrs.insert("tirx.noalias".to_string(), tir::AttrValue::Bool(true));
        let mut handles = Vec::new();
        let mut buffer_map = Vec::new();
        for b in params {
            let h = Var::new(b.name.clone(), DataType::HANDLE);
            handles.push(h.clone());
            buffer_map.push((h, b.clone()));
        }
        PrimFunc {
            name: name.to_string(),
            params: handles,
            buffer_map,
            body,
            attrs,
            private: true,
            s_tir: true,
        }
    }
}

impl Stage {
    fn into_stmt(self) -> Stmt {
        let (reads, writes) = if self.no_access {
            (Vec::new(), Vec::new())
        } else {
            accesses(&self.body, self.init.as_ref())
        };
        let mut iter_values: Vec<PrimExpr> =
            self.loops.iter().map(|(v, _)| PrimExpr::from(v)).collect();
        let mut iters = self.iters;
        if iters.is_empty() && !self.opaque {
            // A rank-0 stage still has one (unit) spatial iteration, as in TVM.
            iters.push(IterVar {
                var: Var::new("vi", DataType::INT64),
                dom: Range::from_extent(i64c(1)),
                kind: IterVarKind::Spatial,
            });
            iter_values.push(i64c(0));
        }
        let mut s = Stmt::new(StmtKind::SBlockRealize(SBlockRealize {
            iter_values,
            predicate: PrimExpr::bool(true),
            block: SBlock {
                name: self.block,
                iter_vars: iters,
                reads,
                writes,
                init: self.init,
                alloc_buffers: Vec::new(),
                annotations: self.annotations,
                body: self.body,
            },
        }));
        for (v, ext) in self.loops.into_iter().rev() {
            s = Stmt::new(StmtKind::For(For {
                loop_var: v,
                min: PrimExpr::int(ext.dtype(), 0),
                extent: ext,
                kind: ForKind::Serial,
                thread_binding: None,
                annotations: TAttrs::new(),
                body: s,
            }));
        }
        s
    }
}

/// `buffer[indices] = value`.
pub(crate) fn store(buffer: &Buffer, indices: Vec<PrimExpr>, value: PrimExpr) -> Stmt {
    Stmt::new(StmtKind::BufferStore {
        buffer: buffer.clone(),
        value,
        indices,
    })
}

/// A loop `for v in range(extent)` (or `T.parallel`).
pub(crate) fn for_loop(v: &Var, extent: PrimExpr, kind: ForKind, body: Stmt) -> Stmt {
    Stmt::new(StmtKind::For(For {
        loop_var: v.clone(),
        min: PrimExpr::int(extent.dtype(), 0),
        extent,
        kind,
        thread_binding: None,
        annotations: TAttrs::new(),
        body,
    }))
}

/// The identity element of a combiner.
pub(crate) fn identity(c: Combiner, dt: DataType) -> PrimExpr {
    match c {
        Combiner::Sum => zero(dt),
        Combiner::Prod => one(dt),
        Combiner::Max => PrimExpr::min_value(dt),
        Combiner::Min => PrimExpr::max_value(dt),
    }
}

/// Reads and writes of a block: every store's indices are a written region, every load of a
/// buffer that is not written a read region; several accesses of one buffer are unioned.
fn accesses(body: &Stmt, init: Option<&Stmt>) -> (Vec<BufferRegion>, Vec<BufferRegion>) {
    let mut writes: Vec<(Buffer, Vec<Vec<PrimExpr>>)> = Vec::new();
    let mut loads: Vec<(Buffer, Vec<Vec<PrimExpr>>)> = Vec::new();
    let record =
        |list: &mut Vec<(Buffer, Vec<Vec<PrimExpr>>)>, b: &Buffer, idx: &[PrimExpr]| match list
            .iter_mut()
            .find(|(x, _)| x.same_as(b))
        {
            Some((_, all)) => all.push(idx.to_vec()),
            None => list.push((b.clone(), vec![idx.to_vec()])),
        };
    let mut stmts = vec![body];
    if let Some(i) = init {
        stmts.push(i);
    }
    for s in stmts {
        s.visit(&mut |st| {
            if let StmtKind::BufferStore {
                buffer, indices, ..
            } = st.kind()
            {
                record(&mut writes, buffer, indices);
            }
            for e in st.exprs() {
                e.visit(&mut |x| {
                    if let ExprKind::BufferLoad { buffer, indices } = x.kind() {
                        record(&mut loads, buffer, indices);
                    }
                });
            }
        });
    }
    let region = |(b, all): (Buffer, Vec<Vec<PrimExpr>>)| BufferRegion {
        region: union(&b, &all),
        buffer: b,
    };
    let reads = loads
        .into_iter()
        .filter(|(b, _)| !writes.iter().any(|(w, _)| w.same_as(b)))
        .map(region)
        .collect();
    let writes = writes.into_iter().map(region).collect();
    (reads, writes)
}

/// The smallest region TVM's access analysis would give for a set of point accesses: per
/// dimension a point if all indices agree, `[base + lo, base + hi]` if they differ by
/// constants, the whole dimension otherwise.
fn union(b: &Buffer, all: &[Vec<PrimExpr>]) -> Vec<Range> {
    let first = &all[0];
    (0..first.len())
        .map(|d| {
            let idx: Vec<&PrimExpr> = all.iter().filter_map(|a| a.get(d)).collect();
            let one = PrimExpr::int(first[d].dtype(), 1);
            if idx.iter().all(|e| expr_eq(e, &first[d])) {
                return Range::new(first[d].clone(), one);
            }
            let offs: Option<Vec<i64>> = idx
                .iter()
                .map(|e| {
                    let diff = tir::arith::simplify(&sub((*e).clone(), first[d].clone()));
                    diff.as_int()
                })
                .collect();
            match offs {
                Some(o) => {
                    let lo = o.iter().copied().min().unwrap_or(0);
                    let hi = o.iter().copied().max().unwrap_or(0);
                    let dt = first[d].dtype();
                    Range::new(
                        add(first[d].clone(), PrimExpr::int(dt, lo)),
                        PrimExpr::int(dt, hi - lo + 1),
                    )
                }
                None => Range::from_extent(b.shape.get(d).cloned().unwrap_or(one)),
            }
        })
        .collect()
}

/// Syntactic equality of index expressions (variables by identity).
pub(crate) fn expr_eq(a: &PrimExpr, b: &PrimExpr) -> bool {
    if a.ptr_eq(b) {
        return true;
    }
    match (a.kind(), b.kind()) {
        (
            ExprKind::IntImm {
                dtype: d1,
                value: v1,
            },
            ExprKind::IntImm {
                dtype: d2,
                value: v2,
            },
        ) => d1 == d2 && v1 == v2,
        (
            ExprKind::FloatImm {
                dtype: d1,
                value: v1,
            },
            ExprKind::FloatImm {
                dtype: d2,
                value: v2,
            },
        ) => d1 == d2 && v1.to_bits() == v2.to_bits(),
        (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
        (
            ExprKind::Binary {
                op: o1,
                a: a1,
                b: b1,
            },
            ExprKind::Binary {
                op: o2,
                a: a2,
                b: b2,
            },
        ) => o1 == o2 && expr_eq(a1, a2) && expr_eq(b1, b2),
        (
            ExprKind::Cmp {
                op: o1,
                a: a1,
                b: b1,
            },
            ExprKind::Cmp {
                op: o2,
                a: a2,
                b: b2,
            },
        ) => o1 == o2 && expr_eq(a1, a2) && expr_eq(b1, b2),
        (
            ExprKind::Cast {
                dtype: d1,
                value: x,
            },
            ExprKind::Cast {
                dtype: d2,
                value: y,
            },
        ) => d1 == d2 && expr_eq(x, y),
        (
            ExprKind::BufferLoad {
                buffer: b1,
                indices: i1,
            },
            ExprKind::BufferLoad {
                buffer: b2,
                indices: i2,
            },
        ) => {
            b1.same_as(b2) && i1.len() == i2.len() && i1.iter().zip(i2).all(|(x, y)| expr_eq(x, y))
        }
        (
            ExprKind::Call {
                op: o1, args: a1, ..
            },
            ExprKind::Call {
                op: o2, args: a2, ..
            },
        ) => o1 == o2 && a1.len() == a2.len() && a1.iter().zip(a2).all(|(x, y)| expr_eq(x, y)),
        _ => false,
    }
}

// ----- expression helpers with TVM's constant folding ----------------------------------------

/// Makes both operands of a binary node one type, as TVM's `BinaryOpMatchTypes` does: a
/// literal is converted to the other operand's type; otherwise an integer meets a float as
/// that float, two floats or two integers meet as the wider (a signed and an unsigned integer
/// of one width: as the unsigned).
fn match_types(a: PrimExpr, b: PrimExpr) -> (PrimExpr, PrimExpr) {
    let (da, db) = (a.dtype(), b.dtype());
    if da == db {
        return (a, b);
    }
    let conv = |e: &PrimExpr, dt: DataType| -> Option<PrimExpr> {
        match e.kind() {
            ExprKind::IntImm { value, .. } if dt.is_float() => {
                Some(PrimExpr::float(dt, *value as f64))
            }
            ExprKind::IntImm { value, .. } => Some(PrimExpr::int(dt, *value)),
            ExprKind::FloatImm { value, .. } if dt.is_float() => Some(PrimExpr::float(dt, *value)),
            _ => None,
        }
    };
    if let Some(b2) = conv(&b, da) {
        return (a, b2);
    }
    if let Some(a2) = conv(&a, db) {
        return (a2, b);
    }
    let widen = |a: PrimExpr, b: PrimExpr| {
        if da.bits < db.bits || (da.bits == db.bits && db.is_uint()) {
            (PrimExpr::cast(db, a), b)
        } else {
            (a, PrimExpr::cast(da, b))
        }
    };
    match (da.is_float(), db.is_float()) {
        (true, false) if db.is_int_or_uint() => (a, PrimExpr::cast(da, b)),
        (false, true) if da.is_int_or_uint() => (PrimExpr::cast(db, a), b),
        (true, true) => widen(a, b),
        _ if da.is_int_or_uint() && db.is_int_or_uint() => widen(a, b),
        _ => (a, b),
    }
}

fn fold(op: BinaryOp, a: &PrimExpr, b: &PrimExpr) -> Option<PrimExpr> {
    let dt = a.dtype();
    match (a.kind(), b.kind()) {
        (ExprKind::IntImm { value: x, .. }, ExprKind::IntImm { value: y, .. }) => {
            tir::arith::scalar::int_binary(op, *x, *y, dt).map(|v| PrimExpr::int(dt, v))
        }
        _ => None,
    }
}

/// A binary node with constant folding and TVM's identities.
pub(crate) fn bin(op: BinaryOp, a: PrimExpr, b: PrimExpr) -> PrimExpr {
    let (a, b) = match_types(a, b);
    if let Some(v) = fold(op, &a, &b) {
        return v;
    }
    let int = a.dtype().is_int_or_uint();
    match op {
        BinaryOp::Add if b.is_zero() && int => return a,
        BinaryOp::Add if a.is_zero() && int => return b,
        BinaryOp::Sub if b.is_zero() && int => return a,
        BinaryOp::Mul if b.is_one() && int => return a,
        BinaryOp::Mul if a.is_one() && int => return b,
        BinaryOp::Mul if (a.is_zero() || b.is_zero()) && int => return PrimExpr::int(a.dtype(), 0),
        BinaryOp::FloorDiv | BinaryOp::Div if b.is_one() && int => return a,
        BinaryOp::FloorMod if b.is_one() && int => return PrimExpr::int(a.dtype(), 0),
        _ => {}
    }
    PrimExpr::binary(op, a, b)
}

pub(crate) fn add(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    bin(BinaryOp::Add, a, b)
}
pub(crate) fn sub(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    bin(BinaryOp::Sub, a, b)
}
pub(crate) fn mul(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    bin(BinaryOp::Mul, a, b)
}
pub(crate) fn div(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    bin(BinaryOp::Div, a, b)
}
pub(crate) fn floordiv(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    bin(BinaryOp::FloorDiv, a, b)
}
pub(crate) fn floormod(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    bin(BinaryOp::FloorMod, a, b)
}
pub(crate) fn max(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    bin(BinaryOp::Max, a, b)
}
pub(crate) fn min(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    bin(BinaryOp::Min, a, b)
}
pub(crate) fn cmp(op: CmpOp, a: PrimExpr, b: PrimExpr) -> PrimExpr {
    let (a, b) = match_types(a, b);
    PrimExpr::cmp(op, a, b)
}
pub(crate) fn and(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    PrimExpr::new(ExprKind::And(a, b))
}
pub(crate) fn or(a: PrimExpr, b: PrimExpr) -> PrimExpr {
    PrimExpr::new(ExprKind::Or(a, b))
}
pub(crate) fn not(a: PrimExpr) -> PrimExpr {
    PrimExpr::new(ExprKind::Not(a))
}
pub(crate) fn select(c: PrimExpr, t: PrimExpr, f: PrimExpr) -> PrimExpr {
    PrimExpr::new(ExprKind::Select {
        cond: c,
        true_value: t,
        false_value: f,
    })
}
/// `T.if_then_else(c, t, f)`.
pub(crate) fn if_then_else(c: PrimExpr, t: PrimExpr, f: PrimExpr) -> PrimExpr {
    let dt = t.dtype();
    PrimExpr::call(dt, "if_then_else", vec![c, t, f])
}
/// A cast that leaves values already of type `dt` alone and converts literals.
pub(crate) fn cast(dt: DataType, e: PrimExpr) -> PrimExpr {
    if e.dtype() == dt {
        return e;
    }
    match e.kind() {
        ExprKind::IntImm { value, .. } if dt.is_float() => PrimExpr::float(dt, *value as f64),
        ExprKind::IntImm { value, .. } if dt.is_int_or_uint() => PrimExpr::int(dt, *value),
        ExprKind::FloatImm { value, .. } if dt.is_float() => PrimExpr::float(dt, *value),
        _ => PrimExpr::cast(dt, e),
    }
}
/// An intrinsic call of the operand's type (`T.exp(x)`).
pub(crate) fn intrin(op: &str, args: Vec<PrimExpr>) -> PrimExpr {
    let dt = args
        .first()
        .map(PrimExpr::dtype)
        .unwrap_or(DataType::FLOAT32);
    PrimExpr::call(dt, op, args)
}
pub(crate) fn load(b: &Buffer, idx: Vec<PrimExpr>) -> PrimExpr {
    PrimExpr::load(b.clone(), idx)
}
pub(crate) fn i64c(v: i64) -> PrimExpr {
    PrimExpr::i64(v)
}
/// A constant of type `dt` (integer or float) with value `v`.
pub(crate) fn constf(dt: DataType, v: f64) -> PrimExpr {
    if dt.is_float() {
        PrimExpr::float(dt, v)
    } else {
        PrimExpr::int(dt, v as i64)
    }
}
pub(crate) fn zero(dt: DataType) -> PrimExpr {
    constf(dt, 0.0)
}
pub(crate) fn one(dt: DataType) -> PrimExpr {
    constf(dt, 1.0)
}
/// The product of extents, folded.
pub(crate) fn product(shape: &[PrimExpr]) -> PrimExpr {
    shape.iter().fold(i64c(1), |acc, e| mul(acc, e.clone()))
}
