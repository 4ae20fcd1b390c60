//! StaticPlanBlockMemory: plans the storage of the tensors that `R.builtin.alloc_tensor`
//! creates inside a function, reusing a storage once every tensor in it is dead, as TVM's pass
//! does (`src/relax/transform/static_plan_block_memory.cc`).
//!
//! * A tensor is plannable when it is only passed to PrimFuncs and packed functions (which do
//!   not retain their arguments); one that reaches the function's result, a Relax function or
//!   closure call, or another scope (an `If` branch) is left to LowerAllocTensor.
//! * Each use as an argument counts a reference; after the call holding the last reference,
//!   the storage returns to a pool keyed by dtype.
//! * A request takes, for a constant size, the smallest free storage at least as large (within
//!   16×), else the largest smaller one (within 1/16, enlarged); for a symbolic size, a free
//!   storage whose size is provably equal.
//! * Each storage becomes `R.memory.alloc_storage(R.shape([bytes]), 0, "global", dtype)` right
//!   before the first tensor placed in it, and each tensor `R.memory.alloc_tensor(storage, 0,
//!   shape, dtype)`.
//!
//! A storage first allocated inside an `If` branch is never reused outside it or in the other
//! branch (TVM 0.27 does, and crashes; see the corpus' `skipped.txt`).
//!
//! Concatenation in place: a library `relaxjit.concat` whose inputs are each one contiguous
//! block of its output (every axis before the concat axis has extent 1, as in a batch-1 NCHW
//! channel concat) is removed, and its inputs are planned as views of the output's storage
//! (`R.memory.alloc_tensor(storage, offset, ...)`), so that their producers write straight
//! into their slice of it. This is done only when the output and all inputs are distinct
//! tensors this pass plans, of static size, in the same scope, the output is first written by
//! the concat, and no input is used after the concat (a later in-place write to an input would
//! otherwise change the concat's result); any other concat is left as a copy. The output of a
//! concat done in place may itself be an input of a later one (a chain, as in DenseNet's
//! blocks): the whole chain then shares the last output's storage.
//!
//! Outputs over their addends: a library convolution or matrix multiply whose addend of the
//! output's shape (a residual) is read for the last time by the call writes its output in the
//! addend's storage ([`LibraryKernel::in_place_addends`]: the kernel adds onto what the
//! output holds), as onnxruntime's fused Conv + Add writes over its `Z` input, so that the
//! residual is read and written in one pass. Only when both are distinct tensors this pass
//! plans, of one static shape and dtype, in the call's scope, the output is first written by
//! the call, and the addend is passed once; the output then shares the addend's storage
//! (ResNet's blocks chain: every block's output lies where its residual did). An addend that is
//! a slice of a concat done in place is left alone, and so is the residual of a convolution
//! whose output planes are small ([`LibraryKernel::places_over_addend`]).

use std::collections::{HashMap, HashSet};

use tir::{DataType, PrimExpr};

use crate::Result;
use crate::ir::BaseFunc;
use crate::ir::{
    Binding, BindingBlock, Callee, Expr, ExprKind, Function, IRModule, SeqExpr, StructInfo, Var,
    VarId,
};
use crate::transform::dispatch_library::{LibraryKernel, LibraryOp};
use crate::transform::{dtype_bytes, map_functions, op_call, prim_i64, str_imm};

pub fn static_plan_block_memory(module: &IRModule) -> Result<IRModule> {
    map_functions(module, |_, f| {
        let mut p = Planner {
            module,
            protos: Vec::new(),
            site: HashMap::new(),
            var_tokens: HashMap::new(),
            scope_counter: 0,
            storages: Vec::new(),
            proto_storage: HashMap::new(),
            storage_tokens: HashMap::new(),
            pool: Vec::new(),
            step: 0,
            concats: Vec::new(),
            placed: HashMap::new(),
            removed: HashSet::new(),
            groups: Vec::new(),
            in_place: Vec::new(),
        };
        p.init_seq(&f.body, 0);
        let mut out_tokens = Vec::new();
        p.tokens_of(&f.body.body, &mut out_tokens);
        for t in out_tokens {
            p.protos[t].discarded = true;
        }
        p.place_concats();
        p.place_in_place();
        p.scope_counter = 0;
        p.plan_seq(&f.body, 0);
        let mut emitted = HashSet::new();
        let body = p.rewrite(&f.body, &mut emitted);
        Ok(Function { body, ..f.clone() })
    })
}

#[derive(Clone, Debug)]
enum Tokens {
    Leaf(Vec<usize>),
    Tuple(Vec<Tokens>),
}

impl Tokens {
    fn flatten(&self, out: &mut Vec<usize>) {
        match self {
            Tokens::Leaf(v) => out.extend(v),
            Tokens::Tuple(items) => items.iter().for_each(|t| t.flatten(out)),
        }
    }
}

/// One `alloc_tensor` site.
#[derive(Clone, Debug)]
struct Proto {
    dims: Vec<PrimExpr>,
    size: PrimExpr,
    dtype: DataType,
    scope: usize,
    refs: i64,
    discarded: bool,
    /// The step (binding count, in walk order) of the last planning call that uses it.
    last_use: usize,
}

/// A `relaxjit.concat` call whose output and inputs are all plannable tensors.
#[derive(Clone, Debug)]
struct ConcatSite {
    /// The call's binding, removed when the concat is placed.
    binding: VarId,
    step: usize,
    scope: usize,
    inputs: Vec<usize>,
    out: usize,
    axis: usize,
}

/// A library call that may write its output over an addend of the output's shape
/// ([`LibraryKernel::in_place_addends`]).
#[derive(Clone, Debug)]
struct InPlaceSite {
    step: usize,
    scope: usize,
    addend: usize,
    out: usize,
}

#[derive(Clone, Debug)]
struct Storage {
    size: PrimExpr,
    dtype: DataType,
    refs: i64,
    var: Var,
}

struct Planner<'a> {
    module: &'a IRModule,
    protos: Vec<Proto>,
    /// alloc binding var → prototype.
    site: HashMap<VarId, usize>,
    /// Var → tokens (prototypes in the init pass).
    var_tokens: HashMap<VarId, Tokens>,
    scope_counter: usize,
    // planning state
    storages: Vec<Storage>,
    proto_storage: HashMap<usize, usize>,
    storage_tokens: HashMap<VarId, Tokens>,
    /// Free storages per dtype, in release order.
    pool: Vec<usize>,
    /// Bindings walked so far (init pass), to order uses.
    step: usize,
    concats: Vec<ConcatSite>,
    /// Prototype of a placed concat's output or input → (its group, byte offset in the
    /// output's storage).
    placed: HashMap<usize, (usize, i64)>,
    /// The bindings of placed concats.
    removed: HashSet<VarId>,
    /// Each group of prototypes sharing one storage (a placed concat, a chain of outputs
    /// written over their addends): its first prototype, whose size the storage has, and the
    /// storage once its first tensor is planned.
    groups: Vec<(usize, Option<usize>)>,
    in_place: Vec<InPlaceSite>,
}

fn alloc_parts(value: &Expr) -> Option<(&[PrimExpr], DataType)> {
    let call = value.as_call()?;
    if call.op() != Some("relax.builtin.alloc_tensor") {
        return None;
    }
    match (call.args.first()?.kind(), call.args.get(1)?.kind()) {
        (ExprKind::ShapeExpr(dims), ExprKind::DataTypeImm(dt)) => Some((dims, *dt)),
        _ => None,
    }
}

/// The bytes of a tensor of shape `dims`, built as TVM's `StorageAllocatorBaseVisitor` builds
/// a token's size: the constant dimensions and the element size folded into one coefficient
/// that multiplies the product of the symbolic dimensions from the left (`4 * n`, not `n * 4`).
/// VMShapeLower gives one heap slot per distinct expression, so the form decides how many
/// slots a function's shape heap has, as TVM's listing shows them.
fn size_of(dims: &[PrimExpr], dt: DataType) -> PrimExpr {
    let mut coeff = dtype_bytes(dt);
    let mut symbolic: Option<PrimExpr> = None;
    for d in dims {
        match d.as_int() {
            Some(c) => coeff = coeff.wrapping_mul(c),
            None => {
                symbolic = Some(match symbolic {
                    None => d.clone(),
                    Some(s) => PrimExpr::binary(tir::BinaryOp::Mul, s, d.clone()),
                })
            }
        }
    }
    match symbolic {
        None => PrimExpr::i64(coeff),
        Some(s) if coeff == 1 => s,
        Some(_) if coeff == 0 => PrimExpr::i64(0),
        Some(s) => PrimExpr::binary(tir::BinaryOp::Mul, PrimExpr::i64(coeff), s),
    }
}

impl Planner<'_> {
    fn new_scope(&mut self) -> usize {
        self.scope_counter += 1;
        self.scope_counter
    }

    /// The tokens an expression holds (init pass: prototypes; plan pass: storages).
    fn expr_tokens(&self, e: &Expr, map: &HashMap<VarId, Tokens>) -> Tokens {
        match e.kind() {
            ExprKind::Var(v) => map.get(&v.id()).cloned().unwrap_or(Tokens::Leaf(vec![])),
            ExprKind::Tuple(items) => {
                Tokens::Tuple(items.iter().map(|i| self.expr_tokens(i, map)).collect())
            }
            ExprKind::TupleGetItem(t, i) => match self.expr_tokens(t, map) {
                Tokens::Tuple(items) => items.get(*i).cloned().unwrap_or(Tokens::Leaf(vec![])),
                other => other,
            },
            _ => Tokens::Leaf(vec![]),
        }
    }

    fn tokens_of(&self, e: &Expr, out: &mut Vec<usize>) {
        self.expr_tokens(e, &self.var_tokens).flatten(out);
    }

    fn discard_in(&mut self, e: &Expr) {
        let mut ts = Vec::new();
        self.tokens_of(e, &mut ts);
        for t in ts {
            self.protos[t].discarded = true;
        }
    }

    fn is_planning_call(&self, value: &Expr) -> bool {
        match value.as_call().map(|c| &c.callee) {
            Some(Callee::Extern(_)) => true,
            Some(Callee::Global(g)) => matches!(self.module.get(g), Some(BaseFunc::Tir(_))),
            Some(Callee::Op(op)) => op == "relax.vm.call_tir_dyn",
            _ => false,
        }
    }

    fn call_args(value: &Expr) -> Vec<Expr> {
        match value.as_call() {
            Some(c) if c.op() == Some("relax.vm.call_tir_dyn") => {
                match c.args.get(1).map(|a| a.kind()) {
                    Some(ExprKind::Tuple(items)) => items.clone(),
                    _ => c.args.clone(),
                }
            }
            Some(c) => c.args.clone(),
            None => Vec::new(),
        }
    }

    fn init_seq(&mut self, s: &SeqExpr, scope: usize) {
        for block in &s.blocks {
            for b in &block.bindings {
                let var = b.var();
                let value = b.value();
                self.step += 1;
                if let Some((dims, dt)) = alloc_parts(value) {
                    let id = self.protos.len();
                    self.protos.push(Proto {
                        dims: dims.to_vec(),
                        last_use: self.step,
                        size: size_of(dims, dt),
                        dtype: dt,
                        scope,
                        refs: 0,
                        discarded: false,
                    });
                    self.site.insert(var.id(), id);
                    self.var_tokens.insert(var.id(), Tokens::Leaf(vec![id]));
                    continue;
                }
                match value.kind() {
                    ExprKind::Var(_) | ExprKind::Tuple(_) | ExprKind::TupleGetItem(..) => {
                        let t = self.expr_tokens(value, &self.var_tokens);
                        self.var_tokens.insert(var.id(), t);
                    }
                    ExprKind::If(i) => {
                        self.discard_in(&i.cond);
                        for br in [&i.then_branch, &i.else_branch] {
                            let sc = self.new_scope();
                            self.init_seq(br, sc);
                            self.discard_in(&br.body);
                        }
                    }
                    ExprKind::Call(_) if self.is_planning_call(value) => {
                        self.note_concat(var.id(), value, scope);
                        self.note_in_place(value, scope);
                        for a in Self::call_args(value) {
                            let mut ts = Vec::new();
                            self.tokens_of(&a, &mut ts);
                            for t in ts {
                                if self.protos[t].scope != scope {
                                    self.protos[t].discarded = true;
                                } else {
                                    self.protos[t].refs += 1;
                                    self.protos[t].last_use = self.step;
                                }
                            }
                        }
                    }
                    ExprKind::Call(c) => {
                        for a in c.args.clone() {
                            self.discard_in(&a);
                        }
                        if let Callee::Expr(f) = &c.callee {
                            self.discard_in(f);
                        }
                    }
                    _ => {
                        self.discard_in(value);
                    }
                }
                if let Binding::MatchCast { value, .. } = b {
                    let t = self.expr_tokens(value, &self.var_tokens);
                    self.var_tokens.insert(var.id(), t);
                }
            }
        }
    }

    /// The single prototype `e` holds, if that is all it holds.
    fn sole_proto(&self, e: &Expr) -> Option<usize> {
        match self.expr_tokens(e, &self.var_tokens) {
            Tokens::Leaf(v) if v.len() == 1 => Some(v[0]),
            _ => None,
        }
    }

    /// Records `value` if it is a `relaxjit.concat` of distinct planned tensors into a fresh
    /// one (called before its arguments are counted).
    fn note_concat(&mut self, binding: VarId, value: &Expr, scope: usize) {
        let Some(call) = value.as_call() else {
            return;
        };
        let Callee::Extern(name) = &call.callee else {
            return;
        };
        let is_concat = LibraryKernel::from_name(name).is_some_and(|k| k.op == LibraryOp::Concat);
        // The tensors, the axis, the output.
        let [tensors @ .., axis, out] = call.args.as_slice() else {
            return;
        };
        if !is_concat || tensors.len() < 2 {
            return;
        }
        let axis = match axis.kind() {
            ExprKind::PrimValue(p) => p.as_int().and_then(|x| usize::try_from(x).ok()),
            _ => None,
        };
        let inputs: Option<Vec<usize>> = tensors.iter().map(|t| self.sole_proto(t)).collect();
        let (Some(inputs), Some(out), Some(axis)) = (inputs, self.sole_proto(out), axis) else {
            return;
        };
        // Distinct inputs (one slice each), and a fresh output: nothing wrote or read it
        // before the concat.
        let distinct = inputs.iter().collect::<HashSet<_>>().len() == inputs.len();
        if !distinct || inputs.contains(&out) || self.protos[out].refs != 0 {
            return;
        }
        self.concats.push(ConcatSite {
            binding,
            step: self.step,
            scope,
            inputs,
            out,
            axis,
        });
    }

    /// Records `value` if it is a library call whose fresh output may be written over one of
    /// its addends (called before its arguments are counted): the first addend that is a
    /// planned tensor of the output's static shape and dtype, passed once.
    fn note_in_place(&mut self, value: &Expr, scope: usize) {
        let Some(call) = value.as_call() else {
            return;
        };
        let Callee::Extern(name) = &call.callee else {
            return;
        };
        let Some(kernel) = LibraryKernel::from_name(name) else {
            return;
        };
        let Some((out, args)) = call.args.split_last() else {
            return;
        };
        let Some(out) = self.sole_proto(out) else {
            return;
        };
        let o = &self.protos[out];
        if o.refs != 0 || o.size.as_int().is_none() {
            return;
        }
        if !kernel.places_over_addend(&o.dims) {
            return;
        }
        let mut tensors = Vec::new();
        for a in args {
            self.tokens_of(a, &mut tensors);
        }
        let addend = kernel
            .in_place_addends()
            .filter_map(|i| args.get(i).and_then(|a| self.sole_proto(a)))
            .find(|&a| {
                let p = &self.protos[a];
                p.dtype == o.dtype
                    && p.dims.len() == o.dims.len()
                    && p.dims
                        .iter()
                        .zip(&o.dims)
                        .all(|(x, y)| x.as_int().is_some() && x.as_int() == y.as_int())
                    && tensors.iter().filter(|&&t| t == a).count() == 1
                    && !tensors.contains(&out)
            });
        if let Some(addend) = addend {
            self.in_place.push(InPlaceSite {
                step: self.step,
                scope,
                addend,
                out,
            });
        }
    }

    /// Places each recorded output over its addend (in walk order, after the concats), where
    /// that is safe: both are plannable in the call's scope, the call is the addend's last
    /// use (nothing reads it after the output overwrites it), and the output is in no group
    /// of its own. The output joins the addend's group, which a chain continues (ResNet's
    /// blocks: each block's output is the next block's residual, all in one storage), if the
    /// addend covers its group's whole storage (a concat's output, or an earlier output
    /// written over its addend); an addend that is a slice of a concat's output is left
    /// alone, as the rest of that output may still be read.
    fn place_in_place(&mut self) {
        let sites = std::mem::take(&mut self.in_place);
        for site in sites {
            let (a, o) = (&self.protos[site.addend], &self.protos[site.out]);
            if a.discarded
                || o.discarded
                || a.scope != site.scope
                || o.scope != site.scope
                || a.last_use != site.step
                || self.placed.contains_key(&site.out)
            {
                continue;
            }
            let group = match self.placed.get(&site.addend) {
                None => {
                    let g = self.groups.len();
                    self.groups.push((site.addend, None));
                    self.placed.insert(site.addend, (g, 0));
                    g
                }
                Some(&(g, 0)) if self.protos[self.groups[g].0].size.as_int() == a.size.as_int() => {
                    g
                }
                Some(_) => continue,
            };
            self.placed.insert(site.out, (group, 0));
        }
    }

    /// Chooses the recorded concats to do in place (see the module comment) and the offsets of
    /// their inputs. A prototype takes part in at most one group, except that the output of a
    /// placed concat may be an input of a later one (DenseNet's blocks concatenate each layer's
    /// output onto the previous concatenation): its group then moves, offsets shifted, into
    /// the later concat's, so that the whole chain is one storage and no layer copies.
    fn place_concats(&mut self) {
        let sites = std::mem::take(&mut self.concats);
        for site in sites {
            // The group an input already heads, if it is the output of a placed concat.
            let heads = |planner: &Self, m: usize| match planner.placed.get(&m) {
                Some(&(g, 0)) if planner.groups[g].0 == m => Some(g),
                _ => None,
            };
            let members: Vec<usize> = [site.out].into_iter().chain(site.inputs.clone()).collect();
            let usable = members.iter().enumerate().all(|(j, &m)| {
                let p = &self.protos[m];
                !p.discarded
                    && p.scope == site.scope
                    && p.dtype == self.protos[site.out].dtype
                    && p.size.as_int().is_some()
                    && (!self.placed.contains_key(&m) || (j > 0 && heads(self, m).is_some()))
            });
            let out = &self.protos[site.out];
            let contiguous = out.dims.len() > site.axis
                && out.dims[..site.axis].iter().all(|d| d.as_int() == Some(1));
            let unused_after = site
                .inputs
                .iter()
                .all(|&i| self.protos[i].last_use == site.step);
            if !(usable && contiguous && unused_after) {
                continue;
            }
            let sizes: Vec<i64> = members
                .iter()
                .map(|&m| self.protos[m].size.as_int().unwrap_or(-1))
                .collect();
            if sizes[1..].iter().sum::<i64>() != sizes[0] {
                continue;
            }
            let group = self.groups.len();
            self.groups.push((site.out, None));
            self.placed.insert(site.out, (group, 0));
            let mut offset = 0;
            for (&input, &size) in site.inputs.iter().zip(&sizes[1..]) {
                match heads(self, input) {
                    Some(inner) => {
                        for (g, off) in self.placed.values_mut() {
                            if *g == inner {
                                *g = group;
                                *off += offset;
                            }
                        }
                    }
                    None => {
                        self.placed.insert(input, (group, offset));
                    }
                }
                offset += size;
            }
            self.removed.insert(site.binding);
        }
    }

    /// The storage of prototype `proto`: its placed concat's (requested for the whole group
    /// at its first tensor), or one of its own.
    fn storage_for(&mut self, proto: usize) -> usize {
        let Some(&(group, _)) = self.placed.get(&proto) else {
            let p = &self.protos[proto];
            return self.request(p.size.clone(), p.dtype, p.refs);
        };
        let (out, storage) = self.groups[group];
        if let Some(st) = storage {
            return st;
        }
        // The storage lives until the last reference to any of the group's tensors.
        let refs = self
            .placed
            .iter()
            .filter(|(_, (g, _))| *g == group)
            .map(|(&m, _)| self.protos[m].refs)
            .sum();
        let (size, dtype) = (self.protos[out].size.clone(), self.protos[out].dtype);
        let st = self.request(size, dtype, refs);
        self.groups[group].1 = Some(st);
        st
    }

    fn request(&mut self, size: PrimExpr, dtype: DataType, refs: i64) -> usize {
        if refs > 0 {
            let candidates: Vec<usize> = self
                .pool
                .iter()
                .copied()
                .filter(|&s| self.storages[s].dtype == dtype)
                .collect();
            let chosen = match size.as_int() {
                Some(bytes) => {
                    let sized: Vec<(i64, usize)> = candidates
                        .iter()
                        .filter_map(|&s| self.storages[s].size.as_int().map(|z| (z, s)))
                        .collect();
                    let above = sized
                        .iter()
                        .filter(|(z, _)| *z >= bytes && *z <= bytes.saturating_mul(16))
                        .min_by_key(|(z, _)| *z)
                        .map(|&(_, s)| s);
                    above.or_else(|| {
                        let below = sized
                            .iter()
                            .filter(|(z, _)| *z < bytes && *z >= bytes / 16)
                            .max_by_key(|(z, _)| *z)
                            .map(|&(_, s)| s);
                        if let Some(s) = below {
                            self.storages[s].size = PrimExpr::i64(bytes);
                        }
                        below
                    })
                }
                None => {
                    let analyzer = tir::arith::Analyzer::new();
                    candidates
                        .iter()
                        .copied()
                        .find(|&s| analyzer.prove_equal(&self.storages[s].size, &size))
                }
            };
            if let Some(s) = chosen {
                self.pool.retain(|&x| x != s);
                self.storages[s].refs = refs;
                return s;
            }
        }
        let name = if self.storages.is_empty() {
            "storage".to_string()
        } else {
            format!("storage{}", self.storages.len())
        };
        self.storages.push(Storage {
            size,
            dtype,
            refs,
            var: Var::new(name, StructInfo::Any),
        });
        self.storages.len() - 1
    }

    fn plan_seq(&mut self, s: &SeqExpr, scope: usize) {
        for block in &s.blocks {
            for b in &block.bindings {
                let var = b.var();
                let value = b.value();
                if let Some(&proto) = self.site.get(&var.id()) {
                    if !self.protos[proto].discarded {
                        let st = self.storage_for(proto);
                        self.proto_storage.insert(proto, st);
                        self.storage_tokens.insert(var.id(), Tokens::Leaf(vec![st]));
                    }
                    continue;
                }
                match value.kind() {
                    ExprKind::Var(_) | ExprKind::Tuple(_) | ExprKind::TupleGetItem(..) => {
                        let t = self.expr_tokens(value, &self.storage_tokens);
                        self.storage_tokens.insert(var.id(), t);
                    }
                    ExprKind::If(i) => {
                        let snapshot = self.pool.clone();
                        let before = self.storages.len();
                        let mut used = HashSet::new();
                        for br in [&i.then_branch, &i.else_branch] {
                            self.pool = snapshot.clone();
                            let sc = self.new_scope();
                            self.plan_seq(br, sc);
                            for (&p, &st) in &self.proto_storage {
                                if self.protos[p].scope == sc {
                                    used.insert(st);
                                }
                            }
                        }
                        self.pool = snapshot
                            .into_iter()
                            .filter(|s| !used.contains(s) && *s < before)
                            .collect();
                    }
                    ExprKind::Call(_) if self.is_planning_call(value) => {
                        for a in Self::call_args(value) {
                            let mut ts = Vec::new();
                            self.expr_tokens(&a, &self.storage_tokens).flatten(&mut ts);
                            for st in ts {
                                let s = &mut self.storages[st];
                                if s.refs > 0 {
                                    s.refs -= 1;
                                    if s.refs == 0 {
                                        self.pool.push(st);
                                    }
                                }
                            }
                        }
                    }
                    _ => {}
                }
                if let Binding::MatchCast { value, .. } = b {
                    let t = self.expr_tokens(value, &self.storage_tokens);
                    self.storage_tokens.insert(var.id(), t);
                }
                let _ = scope;
            }
        }
    }

    fn rewrite(&self, s: &SeqExpr, emitted: &mut HashSet<usize>) -> SeqExpr {
        let mut blocks = Vec::new();
        for block in &s.blocks {
            let mut out = Vec::new();
            for b in &block.bindings {
                let var = b.var();
                if let Some(&proto) = self.site.get(&var.id())
                    && let Some(&st) = self.proto_storage.get(&proto)
                    && let Some((dims, dt)) = alloc_parts(b.value())
                {
                    let storage = &self.storages[st];
                    let offset = self.placed.get(&proto).map_or(0, |&(_, off)| off);
                    if emitted.insert(st) {
                        out.push(Binding::Var {
                            var: storage.var.clone(),
                            value: op_call(
                                "relax.memory.alloc_storage",
                                vec![
                                    Expr::shape(vec![storage.size.clone()]),
                                    prim_i64(0),
                                    str_imm("global"),
                                    crate::transform::dtype_imm(storage.dtype),
                                ],
                                vec![],
                            ),
                        });
                    }
                    out.push(Binding::Var {
                        var: var.clone(),
                        value: op_call(
                            "relax.memory.alloc_tensor",
                            vec![
                                Expr::var(&storage.var),
                                prim_i64(offset),
                                Expr::shape(dims.to_vec()),
                                crate::transform::dtype_imm(dt),
                            ],
                            vec![],
                        ),
                    });
                    continue;
                }
                if self.removed.contains(&var.id()) {
                    continue;
                }
                let b = match b {
                    Binding::Var { var, value } if let ExprKind::If(i) = value.kind() => {
                        Binding::Var {
                            var: var.clone(),
                            value: Expr::new(ExprKind::If(crate::ir::If {
                                cond: i.cond.clone(),
                                then_branch: self.rewrite(&i.then_branch, emitted),
                                else_branch: self.rewrite(&i.else_branch, emitted),
                            })),
                        }
                    }
                    other => other.clone(),
                };
                out.push(b);
            }
            blocks.push(BindingBlock {
                bindings: out,
                dataflow: block.dataflow,
            });
        }
        SeqExpr {
            blocks,
            body: s.body.clone(),
        }
    }
}
