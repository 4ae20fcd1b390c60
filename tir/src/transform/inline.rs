//! Inlining of elementwise producers (TVM's `compute_inline`), for the fused PrimFuncs FuseTIR
//! builds: one loop nest per fused operator, each writing a whole intermediate buffer that the
//! next nest reads. Every intermediate costs an allocation, a pass over memory to write it and
//! one to read it back; inlined, a chain of elementwise operators is one pass.
//!
//! A producer is inlined when all of this holds (otherwise the function is left as it is):
//! * it is a statement of the root block's body: serial loops around one block whose iteration
//!   values are those loops' variables, with no `T.where`, no init, no buffers of its own, only
//!   spatial iteration variables, and whose body is one store `B[v0, …, vn] = value` of its
//!   iteration variables in order, with domains `[0, B.shape[k])` — so it defines every element
//!   of `B` as `value` of its index;
//! * `B` is an intermediate (allocated by the root block), written by no other statement and
//!   read by none before the producer;
//! * no later statement writes a buffer `value` reads (so reading it later reads the same
//!   values), and the function is `noalias` (no parameter is another's memory);
//! * no statement hands a pointer to `B` or to a buffer `value` reads to a call
//!   (`T.tvm_stack_make_array(B.data, …)`): what the call reads and writes is not seen;
//! * every later statement reading `B` reads it at most once in its text, iterates over no
//!   more points than `B` has elements (static extents; symbolic ones: loops over exactly
//!   `B`'s dimensions) and reads it with its innermost
//!   iteration variable as the last index: inlining computes each element at most as often as
//!   it was read (never an `exp` per element of a broadcast), walking the operands in the
//!   producer's order (not across rows, as a transpose would);
//! * a value that calls a function (`exp`, `tanh`) has one reading statement (softmax's
//!   exponentials, read by the sum and by the division, stay computed once), and so has a
//!   value of more than [`COPY_NODES`] tree nodes (copies into several readers, inlined
//!   again into theirs, would grow exponentially with a chain of such diamonds).
//!
//! Values are unchanged: the inlined expression is the stored one, of `B`'s dtype, evaluated
//! on the same operands in the same order.

use std::collections::HashMap;

use crate::ir::{
    Buffer, ExprKind, ForKind, IterVarKind, PrimExpr, PrimFunc, SBlock, Stmt, StmtKind, VarId,
};
use crate::transform::mutator::{
    COPY_NODES, Mutator, larger_than, substitute, walk_expr, walk_stmt,
};

/// `func` with its elementwise intermediates inlined into their readers, repeatedly (a chain
/// inlines producer by producer).
pub fn inline_elementwise(func: &PrimFunc) -> PrimFunc {
    if !func.no_alias() {
        return func.clone();
    }
    let StmtKind::SBlockRealize(root) = func.body.kind() else {
        return func.clone();
    };
    let StmtKind::Seq(stmts) = root.block.body.kind() else {
        return func.clone();
    };
    let mut stmts = stmts.clone();
    // What each statement loads and stores, kept beside it: recomputed only for the statements
    // an inlining rewrites, so that a chain of n producers costs n walks, not n² (a fused
    // chain of a few hundred elementwise operators took seconds).
    let mut accesses: Vec<Accesses> = stmts.iter().map(Accesses::of).collect();
    let mut allocs = root.block.alloc_buffers.clone();
    let mut p = 0;
    while p < stmts.len() {
        match try_inline(&stmts, &accesses, p, &allocs) {
            Some((readers, buffer)) => {
                for (i, s) in readers {
                    accesses[i] = Accesses::of(&s);
                    stmts[i] = s;
                }
                stmts.remove(p);
                accesses.remove(p);
                allocs.retain(|b| b.data.id() != buffer);
            }
            None => p += 1,
        }
    }
    if stmts.len() == seq_len(&root.block.body) {
        return func.clone();
    }
    let mut realize = root.clone();
    realize.block = SBlock {
        alloc_buffers: allocs,
        body: Stmt::seq(stmts),
        ..root.block.clone()
    };
    PrimFunc {
        body: Stmt::new(StmtKind::SBlockRealize(realize)),
        ..func.clone()
    }
}

fn seq_len(s: &Stmt) -> usize {
    match s.kind() {
        StmtKind::Seq(v) => v.len(),
        _ => 1,
    }
}

/// A producer statement: the buffer it defines, its block's iteration variables, the value.
struct Producer {
    buffer: Buffer,
    vars: Vec<VarId>,
    value: PrimExpr,
    /// The number of elements of `buffer`, when static.
    elements: Option<i64>,
}

/// The statements after `p` that read statement `p`'s buffer, by index, each with `p` inlined
/// into it, and the inlined buffer (statement `p` is then dropped); `None` when `p` is not an
/// inlinable producer. `accesses[i]` is what `stmts[i]` loads and stores.
fn try_inline(
    stmts: &[Stmt],
    accesses: &[Accesses],
    p: usize,
    allocs: &[Buffer],
) -> Option<(Vec<(usize, Stmt)>, VarId)> {
    let prod = producer(&stmts[p])?;
    let id = prod.buffer.data.id();
    if !allocs.iter().any(|b| b.data.id() == id) {
        return None;
    }
    // Read by nothing before, written by nothing after; its operands unchanged after.
    let mut operands = Accesses::default();
    operands.expr(&prod.value);
    if operands.loads.contains_key(&id) {
        return None;
    }
    if accesses[..p]
        .iter()
        .any(|a| a.loads.contains_key(&id) || a.stores.contains(&id))
    {
        return None;
    }
    // A pointer to `B`, or to a buffer the value reads, handed to a call anywhere: the call
    // may read or write them, which no index analysis sees.
    if accesses.iter().any(|a| {
        a.escapes.contains(&id) || a.escapes.iter().any(|v| operands.loads.contains_key(v))
    }) {
        return None;
    }
    // An expensive value (a call: `exp`, `tanh`, …) is computed once per element, as
    // before: a single reading statement. Arithmetic is cheap enough to repeat in each.
    let readers = accesses[p + 1..]
        .iter()
        .filter(|a| a.loads.contains_key(&id))
        .count();
    // A value read by several statements is copied into each: a large one stays computed
    // once, or chains of diamonds (`t1 = t0 * 2 + t0 * 3`, `t2 = t1 * 2 + t1 * 3`, …) would
    // double the tree at every step.
    if readers > 1 && (calls(&prod.value) || larger_than(&prod.value, COPY_NODES)) {
        return None;
    }
    let mut inlined = Vec::with_capacity(readers);
    for (i, (s, a)) in stmts.iter().zip(accesses).enumerate().skip(p + 1) {
        if a.stores.contains(&id) || a.stores.iter().any(|b| operands.loads.contains_key(b)) {
            return None;
        }
        if let Some(&n) = a.loads.get(&id) {
            if n > 1 || !no_more_points(s, &prod) || !streams(s, id) {
                return None;
            }
            inlined.push((i, Inliner { prod: &prod }.stmt(s)));
        }
    }
    Some((inlined, id))
}

fn producer(s: &Stmt) -> Option<Producer> {
    let mut loops = Vec::new();
    let mut cur = s;
    while let StmtKind::For(f) = cur.kind() {
        if f.kind != ForKind::Serial || !f.min.is_zero() {
            return None;
        }
        loops.push(f.loop_var.id());
        cur = &f.body;
    }
    let StmtKind::SBlockRealize(r) = cur.kind() else {
        return None;
    };
    let b = &r.block;
    if b.init.is_some()
        || !b.alloc_buffers.is_empty()
        || r.predicate.as_int() != Some(1) && !is_true(&r.predicate)
        || r.iter_values.len() != b.iter_vars.len()
    {
        return None;
    }
    // Each iteration value is a distinct enclosing loop variable.
    let mut seen = Vec::new();
    for v in &r.iter_values {
        let var = v.as_var()?.id();
        if !loops.contains(&var) || seen.contains(&var) {
            return None;
        }
        seen.push(var);
    }
    let StmtKind::BufferStore {
        buffer,
        value,
        indices,
    } = b.body.kind()
    else {
        return None;
    };
    if indices.len() != b.iter_vars.len() || buffer.shape.len() != indices.len() {
        return None;
    }
    let mut elements = Some(1i64);
    for ((iv, index), dim) in b.iter_vars.iter().zip(indices).zip(&buffer.shape) {
        if iv.kind != IterVarKind::Spatial
            || index.as_var().map(|v| v.id()) != Some(iv.var.id())
            || !iv.dom.min.is_zero()
            || !same(&iv.dom.extent, dim)
        {
            return None;
        }
        elements = match (elements, dim.as_int()) {
            (Some(e), Some(d)) => e.checked_mul(d),
            _ => None,
        };
    }
    // The value reads the block's iteration variables, never its loops' directly.
    let mut vars = Vars::default();
    vars.expr(value);
    if vars.0.iter().any(|v| loops.contains(v)) {
        return None;
    }
    Some(Producer {
        buffer: buffer.clone(),
        vars: b.iter_vars.iter().map(|iv| iv.var.id()).collect(),
        value: value.clone(),
        elements,
    })
}

fn is_true(e: &PrimExpr) -> bool {
    matches!(e.kind(), ExprKind::IntImm { value: 1, .. })
}

/// Two extents that are the same constant or the same variable.
fn same(a: &PrimExpr, b: &PrimExpr) -> bool {
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => x == y,
        _ => match (a.as_var(), b.as_var()) {
            (Some(x), Some(y)) => x.id() == y.id(),
            _ => false,
        },
    }
}

/// Whether the loops of `s` run no more block instances than the producer's buffer has
/// elements: compared as numbers when both are static, else when the loops' extents are the
/// buffer's dimensions one by one (symbolic ones the same variables).
fn no_more_points(s: &Stmt, prod: &Producer) -> bool {
    if let (Some(points), Some(elements)) = (iteration_points(s), prod.elements) {
        return points <= elements;
    }
    let mut extents = Vec::new();
    let mut cur = s;
    while let StmtKind::For(f) = cur.kind() {
        extents.push(f.extent.clone());
        cur = &f.body;
    }
    matches!(cur.kind(), StmtKind::SBlockRealize(_))
        && extents.len() == prod.buffer.shape.len()
        && extents
            .iter()
            .zip(&prod.buffer.shape)
            .all(|(a, b)| same(a, b))
}

/// How many block instances the loops of `s` run, when every extent is static.
fn iteration_points(s: &Stmt) -> Option<i64> {
    match s.kind() {
        StmtKind::For(f) => f.extent.as_int()?.checked_mul(iteration_points(&f.body)?),
        // Reduction iteration variables are bound to loops too, counted above.
        StmtKind::SBlockRealize(r) => iteration_points(&r.block.body),
        StmtKind::While { .. } => None,
        StmtKind::Seq(v) => v
            .iter()
            .map(iteration_points)
            .try_fold(0i64, |acc, n| acc.checked_add(n?)),
        _ => Some(1),
    }
}

/// Whether every block of `s` that loads `buffer` does so with its last iteration variable
/// as the last index: the consumer walks the producer's operands in the order the producer
/// did (elementwise, broadcast, a reduction over the last axis). A transposing consumer does
/// not, and an inlined producer would then read its operands across rows.
fn streams(s: &Stmt, buffer: VarId) -> bool {
    struct Check {
        buffer: VarId,
        last: Vec<Option<VarId>>,
        ok: bool,
    }
    impl Mutator for Check {
        fn stmt(&mut self, s: &Stmt) -> Stmt {
            if let StmtKind::SBlockRealize(r) = s.kind() {
                self.last
                    .push(r.block.iter_vars.last().map(|iv| iv.var.id()));
                let out = walk_stmt(self, s);
                self.last.pop();
                return out;
            }
            walk_stmt(self, s)
        }
        fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
            if let ExprKind::BufferLoad { buffer, indices } = e.kind()
                && buffer.data.id() == self.buffer
            {
                let last = indices.last().and_then(PrimExpr::as_var).map(|v| v.id());
                let block_last = self.last.last().copied().flatten();
                self.ok &= last.is_some() && last == block_last;
            }
            walk_expr(self, e)
        }
    }
    let mut c = Check {
        buffer,
        last: Vec::new(),
        ok: true,
    };
    c.stmt(s);
    c.ok
}

/// The buffers a statement loads (with how many loads of each appear in its text) and stores.
#[derive(Default)]
struct Accesses {
    loads: HashMap<VarId, usize>,
    stores: Vec<VarId>,
    /// Pointers used as values: a buffer's `data` handed to a call (`T.call_packed(…,
    /// T.tvm_stack_make_array(B.data, …))`), which may read and write `B` in any order.
    escapes: Vec<VarId>,
}

impl Accesses {
    fn of(s: &Stmt) -> Accesses {
        let mut a = Accesses::default();
        a.stmt(s);
        a
    }
}

impl Mutator for Accesses {
    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        if let ExprKind::BufferLoad { buffer, .. } = e.kind() {
            *self.loads.entry(buffer.data.id()).or_insert(0) += 1;
        }
        if let Some(v) = e.as_var()
            && v.dtype().is_handle()
        {
            self.escapes.push(v.id());
        }
        walk_expr(self, e)
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        if let StmtKind::BufferStore { buffer, .. } = s.kind() {
            self.stores.push(buffer.data.id());
        }
        walk_stmt(self, s)
    }
}

/// Whether `e` calls anything (a math function, an intrinsic).
fn calls(e: &PrimExpr) -> bool {
    #[derive(Default)]
    struct Calls(bool);
    impl Mutator for Calls {
        fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
            self.0 |= matches!(e.kind(), ExprKind::Call { .. });
            walk_expr(self, e)
        }
    }
    let mut c = Calls::default();
    c.expr(e);
    c.0
}

/// The variables an expression reads.
#[derive(Default)]
struct Vars(Vec<VarId>);

impl Mutator for Vars {
    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        if let Some(v) = e.as_var() {
            self.0.push(v.id());
        }
        walk_expr(self, e)
    }
}

/// Replaces the loads of the producer's buffer by its value at the loaded index.
struct Inliner<'p> {
    prod: &'p Producer,
}

impl Mutator for Inliner<'_> {
    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        let e = walk_expr(self, e);
        match e.kind() {
            ExprKind::BufferLoad { buffer, indices }
                if buffer.data.id() == self.prod.buffer.data.id() =>
            {
                let map: HashMap<VarId, PrimExpr> = self
                    .prod
                    .vars
                    .iter()
                    .copied()
                    .zip(indices.iter().cloned())
                    .collect();
                substitute(&self.prod.value, &map)
            }
            _ => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::script::{parse_module_prim_funcs, print_module_prim_funcs};

    /// TVM's legalized NMS: a copy into `s`, whose pointer a `T.call_packed` then takes. No
    /// load of `s` follows, but the call reads it: the copy must stay (inlined into no reader,
    /// the allocation was dropped and the call named a buffer that no longer existed). The
    /// same copy read by a plain load inlines.
    #[test]
    fn a_buffer_handed_to_a_call_is_not_inlined() {
        let src = |use_s: &str| {
            format!(
                r#"@I.ir_module
class Module:
    @T.prim_func
    def f(x: T.Buffer((T.int64(2), T.int64(5)), "float32"), y: T.Buffer((T.int64(2), T.int64(5)), "int32"), z: T.Buffer((T.int64(2), T.int64(5)), "float32")):
        T.func_attr({{"tirx.noalias": True}})
        s = T.sblock_alloc_buffer((T.int64(2), T.int64(5)))
        for i, j in T.grid(T.int64(2), T.int64(5)):
            with T.sblock("copy"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                s[v_i, v_j] = x[v_i, v_j]
{use_s}"#
            )
        };
        let call = r#"        with T.sblock("sort"):
            T.reads()
            T.writes()
            T.call_packed("tvm.contrib.sort.argsort", T.tvm_stack_make_array(s.data, T.tvm_stack_make_shape(T.int64(2), T.int64(5)), 0, 2, T.float32(0.0), T.int64(0)), T.tvm_stack_make_array(y.data, T.tvm_stack_make_shape(T.int64(2), T.int64(5)), 0, 2, 0, T.int64(0)), 1, T.bool(False))
"#;
        let load = r#"        for i, j in T.grid(T.int64(2), T.int64(5)):
            with T.sblock("read"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                z[v_i, v_j] = s[v_i, v_j]
"#;
        let inlined = |text: String| {
            let funcs = parse_module_prim_funcs(&text).unwrap();
            let f = super::inline_elementwise(&funcs[0]);
            print_module_prim_funcs(&[f])
        };
        let printed = inlined(src(call));
        assert!(printed.contains("sblock_alloc_buffer"), "{printed}");
        assert!(printed.contains("s[v_i, v_j] = x[v_i, v_j]"), "{printed}");
        let printed = inlined(src(load));
        assert!(!printed.contains("sblock_alloc_buffer"), "{printed}");
    }
}
