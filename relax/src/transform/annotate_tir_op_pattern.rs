//! AnnotateTIROpPattern: sets the `op_pattern` attribute (TVM's `OpPatternKind`) of every
//! PrimFunc that has no non-zero one, computed from the body like TVM's
//! `PatternKindAnalyzer` (`src/relax/analysis/tir_op_pattern_kind.cc`).
//!
//! Each non-root block is classified from its single `BufferStore` and the loads of its body
//! (the `T.init()` is not looked at): equal index lists are elementwise, load indices found in
//! order among the store's are broadcast (unit dimensions indexed by 0 skipped), load indices
//! over the store's variables only are injective. A block with other loads is a reduction if
//! it has reduction iterators: a multiply-accumulate (matmul, conv) or a reduction whose loads
//! index reduction iterators other than directly (pooling) is out-elemwise-fusable, the rest
//! comm-reduce. A non-output block (writing no parameter buffer) makes the function at least
//! out-elemwise-fusable (softmax, layer norm). Anything else is opaque. The function's kind is
//! the maximum over its blocks. Index "sameness" is TVM's pointer identity: the same variable,
//! or the same node; two equal constants written twice are not the same.
//!
//! Invariants: only the `op_pattern` attribute changes; Relax functions are untouched.

use std::collections::HashSet;

use tir::{
    AttrValue, Buffer, ExprKind, IterVarKind, PrimExpr, PrimFunc, SBlock, Stmt, StmtKind, VarId,
};

use crate::Result;
use crate::ir::{BaseFunc, IRModule};

/// TVM's `OpPatternKind`.
pub const ELEM_WISE: i64 = 0;
pub const BROADCAST: i64 = 1;
pub const INJECTIVE: i64 = 2;
pub const COMM_REDUCE: i64 = 3;
pub const OUT_EWISE_FUSABLE: i64 = 4;
pub const TUPLE: i64 = 7;
pub const OPAQUE: i64 = 8;

pub fn annotate_tir_op_pattern(module: &IRModule) -> Result<IRModule> {
    let mut out = module.clone();
    for (name, f) in &module.functions {
        let BaseFunc::Tir(pf) = f else { continue };
        if pf.op_pattern().is_some_and(|k| k != 0) {
            continue;
        }
        let mut pf = pf.clone();
        let kind = analyze_op_pattern(&pf);
        pf.attrs
            .insert("op_pattern".to_string(), AttrValue::Int(kind));
        out.functions.insert(name.clone(), BaseFunc::Tir(pf));
    }
    Ok(out)
}

/// The `OpPatternKind` of a PrimFunc's body.
pub fn analyze_op_pattern(f: &PrimFunc) -> i64 {
    let mut a = Analyzer {
        params: f.buffer_map.iter().map(|(_, b)| b.identity()).collect(),
        store: None,
        loads: Vec::new(),
        kind: ELEM_WISE,
    };
    a.stmt(&f.body);
    a.kind
}

struct Analyzer {
    params: HashSet<usize>,
    store: Option<(Buffer, Vec<PrimExpr>)>,
    loads: Vec<(Buffer, Vec<PrimExpr>)>,
    kind: i64,
}

/// TVM's `same_as` on index expressions: one variable, or one node.
fn same(a: &PrimExpr, b: &PrimExpr) -> bool {
    match (a.as_var(), b.as_var()) {
        (Some(x), Some(y)) => x == y,
        _ => a.ptr_eq(b),
    }
}

fn same_array(a: &[PrimExpr], b: &[PrimExpr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

fn uses_var_not_in(e: &PrimExpr, vars: &HashSet<VarId>) -> bool {
    e.uses_var(&|v: &tir::Var| !vars.contains(&v.id()))
}

impl Analyzer {
    fn expr(&mut self, e: &PrimExpr) {
        e.visit(&mut |x| {
            if let ExprKind::BufferLoad { buffer, indices } = x.kind() {
                self.loads.push((buffer.clone(), indices.clone()));
            }
        });
    }

    fn stmt(&mut self, s: &Stmt) {
        match s.kind() {
            StmtKind::SBlockRealize(r) => {
                // Iteration values and predicates are visited by TVM too, but hold no loads in
                // legalized code; the block itself is what is classified.
                self.block(&r.block);
            }
            StmtKind::BufferStore {
                buffer,
                value,
                indices,
            } => {
                if let Some((_, idx)) = &self.store
                    && !same_array(indices, idx)
                {
                    self.kind = OPAQUE;
                    return;
                }
                self.store = Some((buffer.clone(), indices.clone()));
                self.expr(value);
                for i in indices {
                    self.expr(i);
                }
            }
            _ => {
                for e in s.exprs() {
                    self.expr(e);
                }
                for c in s.children() {
                    self.stmt(c);
                }
            }
        }
    }

    fn is_output_block(&self, b: &SBlock) -> bool {
        b.writes
            .iter()
            .any(|w| self.params.contains(&w.buffer.identity()))
    }

    fn block(&mut self, b: &SBlock) {
        if b.name == "root" {
            self.stmt(&b.body);
            return;
        }
        self.loads.clear();
        self.store = None;
        self.stmt(&b.body);
        let Some((sbuf, sidx)) = self.store.clone() else {
            self.kind = OPAQUE;
            return;
        };
        let mut pattern = ELEM_WISE;
        let mut has_elem_wise = false;
        for (lbuf, lidx) in &self.loads {
            if same_array(&sidx, lidx) {
                has_elem_wise = true;
            } else if is_broadcast(&sbuf, &sidx, lbuf, lidx) {
                pattern = pattern.max(BROADCAST);
            } else if is_injective(&sidx, lidx) {
                pattern = pattern.max(INJECTIVE);
            } else {
                pattern = OPAQUE;
                break;
            }
        }
        if pattern == BROADCAST && has_elem_wise {
            pattern = ELEM_WISE;
        }
        if pattern != OPAQUE {
            self.kind = if self.is_output_block(b) {
                self.kind.max(pattern)
            } else {
                self.kind.max(OUT_EWISE_FUSABLE)
            };
            return;
        }
        let reduce: Vec<tir::Var> = b
            .iter_vars
            .iter()
            .filter(|iv| iv.kind == IterVarKind::Reduce)
            .map(|iv| iv.var.clone())
            .collect();
        if reduce.is_empty() {
            self.kind = OPAQUE;
            return;
        }
        if is_fma(&b.body) {
            self.kind = self.kind.max(OUT_EWISE_FUSABLE);
            return;
        }
        for (_, lidx) in &self.loads {
            if !is_pure_reduce(&reduce, lidx) {
                self.kind = self.kind.max(OUT_EWISE_FUSABLE);
                return;
            }
        }
        self.kind = self.kind.max(COMM_REDUCE);
    }
}

fn is_const_int(e: &PrimExpr, v: i64) -> bool {
    e.as_int() == Some(v)
}

fn is_broadcast(sbuf: &Buffer, sidx: &[PrimExpr], lbuf: &Buffer, lidx: &[PrimExpr]) -> bool {
    let nstore = sbuf.shape.len().min(sidx.len());
    let mut j = 0;
    for (i, li) in lidx.iter().enumerate() {
        if lbuf.shape.get(i).is_some_and(|d| is_const_int(d, 1)) && is_const_int(li, 0) {
            continue;
        }
        while j < nstore && !same(&sidx[j], li) {
            j += 1;
        }
        if j == nstore {
            return false;
        }
    }
    true
}

fn is_injective(sidx: &[PrimExpr], lidx: &[PrimExpr]) -> bool {
    let mut vars = HashSet::new();
    for s in sidx {
        match s.as_var() {
            Some(v) => {
                vars.insert(v.id());
            }
            None => return false,
        }
    }
    !lidx.iter().any(|l| uses_var_not_in(l, &vars))
}

/// Some store index variable is not used by the load: the loaded data is reused along it.
fn is_allow_reuse(sidx: &[PrimExpr], lidx: &[PrimExpr]) -> bool {
    let mut vars = HashSet::new();
    for s in sidx {
        match s.as_var() {
            Some(v) => {
                vars.insert(v.id());
            }
            None => return false,
        }
    }
    for l in lidx {
        l.visit(&mut |x| {
            if let Some(v) = x.as_var() {
                vars.remove(&v.id());
            }
        });
    }
    !vars.is_empty()
}

/// `C[i, j] = C[i, j] + A[..] * B[..]` with both operands reusing data.
fn is_fma(body: &Stmt) -> bool {
    let StmtKind::BufferStore {
        buffer,
        value,
        indices,
    } = body.kind()
    else {
        return false;
    };
    let ExprKind::Binary {
        op: tir::BinaryOp::Add,
        a,
        b,
    } = value.kind()
    else {
        return false;
    };
    let ExprKind::BufferLoad {
        buffer: lb,
        indices: li,
    } = a.kind()
    else {
        return false;
    };
    let ExprKind::Binary {
        op: tir::BinaryOp::Mul,
        a: ma,
        b: mb,
    } = b.kind()
    else {
        return false;
    };
    let incremental = lb == buffer && same_array(indices, li);
    match (ma.kind(), mb.kind()) {
        (ExprKind::BufferLoad { indices: ai, .. }, ExprKind::BufferLoad { indices: bi, .. })
            if incremental =>
        {
            is_allow_reuse(indices, ai) && is_allow_reuse(indices, bi)
        }
        _ => false,
    }
}

fn is_pure_reduce(reduce: &[tir::Var], indices: &[PrimExpr]) -> bool {
    for e in indices {
        let mut id = None;
        e.visit(&mut |x| {
            if id.is_none()
                && let Some(v) = x.as_var()
            {
                id = reduce.iter().position(|r| r == v);
            }
        });
        if let Some(k) = id
            && e.as_var() != Some(&reduce[k])
        {
            return false;
        }
    }
    true
}

/// The `OpPatternKind` of a module function called by `call_tir`, or opaque.
pub(crate) fn pattern_of(module: &IRModule, name: &str) -> i64 {
    match module.prim_func(name) {
        Some(f) => f.op_pattern().unwrap_or(OPAQUE),
        None => OPAQUE,
    }
}
