//! Parallel loops: an outermost loop with enough work is outlined into a function of its own
//! ([`crate::kernel::runtime::ParallelBody`]) and run over chunks of its range by the runtime's
//! parallel-for helper on rayon's pool.
//!
//! A top-level loop is outlined when it is a `T.parallel` loop (TVM's schedule declared its
//! iterations independent), or a serial loop whose iterations provably touch disjoint memory:
//! every index of every buffer it writes has the form `c * i + r` with `0 <= r < |c|` over the
//! constant ranges of the inner loops (so iteration `i` owns the slab `[c*i, c*i + |c|)`), and
//! it reads written buffers only at such indices with the same `c`. The slab is a fact about
//! the index over ℤ, so each such index must also be shown not to wrap around its type (see
//! [`slab_key`]): wrapped indices of two iterations could meet. Loops that allocate, assert
//! or call helpers stay serial.
//!
//! The kernel stores the values the loop uses (data pointers, symbolic sizes) in a stack array
//! and calls the helper with the outlined function's address — a PC-relative reference inside
//! the same code, so nothing absolute enters the machine code. When the iteration count times the
//! constant work of the inner loops is below [`MIN_PARALLEL_WORK`] at run time, the kernel calls
//! the outlined body directly on the whole range instead.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::{
    AbiParam, BlockArg, InstBuilder, Signature, StackSlotData, StackSlotKind, Value, types,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{FuncId, Module};
use tir::arith::{VarRanges, exact_int_bound, loop_var_range};
use tir::transform::mutator::substitute;
use tir::{ExprKind, For, ForKind, PrimExpr, Stmt, StmtKind, Var, VarId};

use super::simd::coef;
use super::symbolic;
use super::{Options, Translator, cl_type, flags};
use crate::error::{Error, Result};
use crate::kernel::abi::STATUS_OK;
use crate::kernel::meta::KernelMeta;
use crate::kernel::runtime::offsets;

/// Iterations × inner work below which a loop runs on the calling thread.
pub const MIN_PARALLEL_WORK: i64 = 1 << 16;

/// A loop body to compile as its own function.
pub(crate) struct Outline {
    /// The declared function.
    pub id: FuncId,
    /// The loop.
    pub f: For,
    /// Variables of the enclosing kernel the body uses, in context-array order.
    pub captured: Vec<Var>,
    /// The kernel's non-negative shape variables (for symbolic bounds proofs).
    pub shape_vars: HashSet<VarId>,
}

/// Why and how a loop runs in parallel.
pub(crate) struct ParPlan {
    /// Product of the constant extents of the inner loops (1 if none).
    inner_work: i64,
    /// The symbolic extents of the inner loops, when all are expressions of shape variables:
    /// their product is computed at run time instead of guessed.
    symbolic_extents: Option<Vec<PrimExpr>>,
}

/// The signature of outlined bodies (`ParallelBody`).
fn body_signature(call_conv: cranelift_codegen::isa::CallConv) -> Signature {
    let mut sig = Signature::new(call_conv);
    sig.params.extend([AbiParam::new(types::I64); 5]);
    sig.returns.push(AbiParam::new(types::I32));
    sig
}

/// Ranges of the inner loops with constant bounds, and the product of their extents.
fn inner_loops(s: &Stmt, ranges: &mut VarRanges, work: &mut i64) {
    s.visit(&mut |st| {
        if let StmtKind::For(f) = st.kind() {
            match loop_var_range(f) {
                Some(r) => {
                    ranges.insert(f.loop_var.id(), r);
                    *work = work.saturating_mul(r.1 - r.0 + 1);
                }
                // A symbolic inner extent: assume a modest amount of work per iteration.
                None => *work = work.saturating_mul(16),
            }
        }
    });
}

/// Statements executed by one run of `s` when every loop extent is a constant (stores and
/// evaluations count one; loops multiply): the work of one iteration of an outer loop.
fn statement_work(s: &Stmt) -> Option<i64> {
    Some(match s.kind() {
        StmtKind::For(f) => f
            .extent
            .as_int()?
            .max(0)
            .saturating_mul(statement_work(&f.body)?),
        StmtKind::Seq(v) => v
            .iter()
            .try_fold(0i64, |acc, x| Some(acc.saturating_add(statement_work(x)?)))?,
        StmtKind::IfThenElse {
            then_case,
            else_case,
            ..
        } => {
            let e = match else_case {
                Some(e) => statement_work(e)?,
                None => 0,
            };
            statement_work(then_case)?.max(e)
        }
        StmtKind::LetStmt { body, .. } | StmtKind::AttrStmt { body, .. } => {
            statement_work(body)?.saturating_add(1)
        }
        // Its iteration count is known only at run time.
        StmtKind::While { .. } => return None,
        _ => 1,
    })
}

/// The inner loops of `s` as ranges for [`symbolic`], and their symbolic extents if each is
/// an expression of shape variables and constants.
fn inner_ranges(
    s: &Stmt,
    shape_vars: &HashSet<VarId>,
) -> (Vec<symbolic::LoopRange>, Option<Vec<PrimExpr>>) {
    let mut loops = Vec::new();
    let mut exts = Some(Vec::new());
    s.visit(&mut |st| {
        if let StmtKind::For(f) = st.kind() {
            loops.push(symbolic::LoopRange {
                var: f.loop_var.clone(),
                min: f.min.clone(),
                extent: f.extent.clone(),
            });
            if f.extent.as_int().is_none() {
                let mut ok = true;
                f.extent.visit(&mut |x| match x.kind() {
                    ExprKind::Var(v) => ok &= shape_vars.contains(&v.id()),
                    ExprKind::BufferLoad { .. } | ExprKind::Call { .. } => ok = false,
                    _ => {}
                });
                match (&mut exts, ok) {
                    (Some(v), true) => v.push(f.extent.clone()),
                    _ => exts = None,
                }
            }
        }
    });
    (loops, exts)
}

/// The slab an access owns per iteration of `var`: a constant `c` (see [`slab`]) or a symbolic
/// stride ([`symbolic::slab`]), as a comparable key.
///
/// Both describe the index over ℤ; the key is returned only when the access's run-time index
/// also *is* that value (no wrap-around in its type), since two iterations whose indices wrap
/// onto the same element would race. That holds when the whole index has an exact bound over
/// the loop's constant range ([`tir::arith::exact_int_bound`]), or when the symbolic prover
/// shows it inside the buffer (an in-bounds index is the value of its polynomial).
fn slab_key(
    index: &PrimExpr,
    extent: &PrimExpr,
    f: &For,
    ranges: &VarRanges,
    inner: &[symbolic::LoopRange],
    shape_vars: &HashSet<VarId>,
) -> Option<SlabKey> {
    let var = &f.loop_var;
    let key = match slab(index, var, ranges) {
        Some(c) => SlabKey::Const(c),
        None => SlabKey::Symbolic(symbolic::slab(index, var, inner, shape_vars)?),
    };
    let mut with_outer = ranges.clone();
    let exact = match loop_var_range(f) {
        Some(r) => {
            with_outer.insert(var.id(), r);
            exact_int_bound(index, &with_outer).is_some()
        }
        None => false,
    };
    let mut loops = vec![symbolic::LoopRange {
        var: var.clone(),
        min: f.min.clone(),
        extent: f.extent.clone(),
    }];
    loops.extend(inner.iter().cloned());
    (exact || symbolic::in_bounds(index, extent, &loops, shape_vars)).then_some(key)
}

/// A slab per iteration: a constant, or a symbolic stride as [`symbolic::slab`]'s key (which
/// names variables by identity, never by name: two shape variables may share a name).
#[derive(Clone, PartialEq)]
enum SlabKey {
    Const(i64),
    Symbolic(String),
}

/// Whether `index` is `c * var + r` with `0 <= r < |c|` (exactly: `r` cannot wrap); returns `c`.
fn slab(index: &PrimExpr, var: &Var, ranges: &VarRanges) -> Option<i64> {
    let c = coef(index, var)?;
    if c == 0 {
        return None;
    }
    let map = HashMap::from([(var.id(), PrimExpr::int(var.dtype(), 0))]);
    let r = substitute(index, &map);
    let (lo, hi) = exact_int_bound(&r, ranges)?;
    (lo >= 0 && hi < c.checked_abs()?).then_some(c)
}

/// Loads and stores of a statement tree: (data variable, index, buffer extent, is_store).
fn accesses(s: &Stmt, out: &mut Vec<(VarId, PrimExpr, Option<PrimExpr>, bool)>) {
    s.visit(&mut |st| {
        if let StmtKind::BufferStore {
            buffer, indices, ..
        } = st.kind()
            && let [i] = indices.as_slice()
        {
            out.push((
                buffer.data.id(),
                i.clone(),
                buffer.shape.first().cloned(),
                true,
            ));
        }
        for e in st.exprs() {
            e.visit(&mut |x| {
                if let ExprKind::BufferLoad { buffer, indices } = x.kind()
                    && let [i] = indices.as_slice()
                {
                    out.push((
                        buffer.data.id(),
                        i.clone(),
                        buffer.shape.first().cloned(),
                        false,
                    ));
                }
            });
        }
    });
}

/// Variables used in `s` that it does not define itself, in first-use order.
fn free_vars(s: &Stmt, outer: &Var) -> Vec<Var> {
    let mut defined: HashSet<VarId> = HashSet::from([outer.id()]);
    s.visit(&mut |st| match st.kind() {
        StmtKind::For(f) => {
            defined.insert(f.loop_var.id());
        }
        StmtKind::LetStmt { var, .. } => {
            defined.insert(var.id());
        }
        _ => {}
    });
    let mut exprs: Vec<PrimExpr> = Vec::new();
    s.visit(&mut |st| {
        if let StmtKind::BufferStore { buffer, .. } = st.kind() {
            exprs.push(PrimExpr::from(&buffer.data));
            exprs.extend(buffer.shape.iter().cloned());
        }
        exprs.extend(st.exprs().into_iter().cloned());
    });
    for e in &exprs {
        e.visit(&mut |x| {
            if let ExprKind::Let { var, .. } = x.kind() {
                defined.insert(var.id());
            }
        });
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut use_var = |v: &Var, out: &mut Vec<Var>| {
        if !defined.contains(&v.id()) && seen.insert(v.id()) {
            out.push(v.clone());
        }
    };
    for e in &exprs {
        e.visit(&mut |x| match x.kind() {
            ExprKind::Var(v) => use_var(v, &mut out),
            ExprKind::BufferLoad { buffer, .. } => {
                use_var(&buffer.data, &mut out);
                for d in &buffer.shape {
                    d.visit(&mut |y| {
                        if let ExprKind::Var(v) = y.kind() {
                            use_var(v, &mut out);
                        }
                    });
                }
            }
            _ => {}
        });
    }
    out
}

impl<'a, 'b> Translator<'a, 'b> {
    /// Whether the top-level loop `f` runs in parallel (see the module doc).
    pub(super) fn parallel_plan(&self, f: &For) -> Option<ParPlan> {
        self.module.as_ref()?;
        if !matches!(f.kind, ForKind::Serial | ForKind::Parallel) {
            return None;
        }
        let mut simple = true;
        f.body.visit(&mut |s| match s.kind() {
            StmtKind::Allocate { .. }
            | StmtKind::DeclBuffer { .. }
            | StmtKind::AssertStmt { .. }
            | StmtKind::SBlockRealize(_) => simple = false,
            StmtKind::Evaluate(e) => simple &= e.as_int().is_some(),
            _ => {}
        });
        if !simple {
            return None;
        }
        let mut ranges = self.ranges.clone();
        let mut inner_work = 1i64;
        inner_loops(&f.body, &mut ranges, &mut inner_work);
        // Constant nests: count statements, so that four rows reduced in one loop count four.
        if let Some(w) = statement_work(&f.body) {
            inner_work = w.max(1);
        }
        let (inner, symbolic_extents) = inner_ranges(&f.body, &self.shape_vars);
        if f.kind != ForKind::Parallel {
            let mut acc = Vec::new();
            accesses(&f.body, &mut acc);
            let key = |index: &PrimExpr, extent: &Option<PrimExpr>| {
                slab_key(
                    index,
                    extent.as_ref()?,
                    f,
                    &ranges,
                    &inner,
                    &self.shape_vars,
                )
            };
            let mut slabs: HashMap<VarId, SlabKey> = HashMap::new();
            for (buf, index, extent, store) in &acc {
                if *store {
                    let c = key(index, extent)?;
                    if *slabs.entry(*buf).or_insert_with(|| c.clone()) != c {
                        return None;
                    }
                }
            }
            for (buf, index, extent, store) in &acc {
                if !*store
                    && let Some(c) = slabs.get(buf)
                    && key(index, extent).as_ref() != Some(c)
                {
                    return None;
                }
            }
        }
        if let Some(n) = f.extent.as_int()
            && n.saturating_mul(inner_work) < MIN_PARALLEL_WORK
        {
            return None;
        }
        let symbolic_extents = symbolic_extents.filter(|v| !v.is_empty());
        if symbolic_extents.is_some() {
            // Every `16` guessed for a symbolic extent is replaced by the real one at run time.
            inner_work = 1;
            f.body.visit(&mut |st| {
                if let StmtKind::For(l) = st.kind()
                    && let Some(n) = l.extent.as_int()
                {
                    inner_work = inner_work.saturating_mul(n.max(1));
                }
            });
        }
        Some(ParPlan {
            inner_work,
            symbolic_extents,
        })
    }

    /// Emits the call of the outlined body of `f` through the parallel-for helper.
    pub(super) fn parallel_loop(&mut self, f: &For, plan: ParPlan) -> Result<()> {
        let sig = body_signature(self.call_conv);
        let Some(module) = self.module.as_mut() else {
            return Err(Error::Unsupported("parallel loop without a module".into()));
        };
        let id = module.declare_anonymous_function(&sig)?;
        let fref = module.declare_func_in_func(id, self.b.func);
        let captured = free_vars(&f.body, &f.loop_var);
        let bytes = (captured.len().max(1) * 8) as u32;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            bytes,
            3,
        ));
        let ctx = self.b.ins().stack_addr(types::I64, slot, 0);
        for (k, v) in captured.iter().enumerate() {
            let var = self.var_of(v)?;
            let val = self.b.use_var(var);
            self.b.ins().store(flags(), val, ctx, k as i32 * 8);
        }
        let min = self.expr(&f.min)?;
        let min = self.int_to_i64(min, f.min.dtype());
        let ext = self.expr(&f.extent)?;
        let ext = self.int_to_i64(ext, f.extent.dtype());
        let zero = self.b.ins().iconst(types::I64, 0);
        let n = self.b.ins().smax(ext, zero);
        let hi = self.b.ins().iadd(min, n);
        let fptr = self.b.ins().func_addr(types::I64, fref);
        let min_iters = (MIN_PARALLEL_WORK / plan.inner_work.max(1)).max(2);
        let mut work = n;
        for e in plan.symbolic_extents.iter().flatten() {
            let x = self.expr(e)?;
            let x = self.int_to_i64(x, e.dtype());
            work = self.b.ins().imul(work, x);
        }
        let big = self.b.ins().icmp_imm_s(
            cranelift_codegen::ir::condcodes::IntCC::SignedGreaterThanOrEqual,
            work,
            min_iters,
        );
        // With symbolic extents `work` may be huge while `n` is 1; one iteration stays serial.
        let big = if plan.symbolic_extents.is_some() {
            let two = self.b.ins().icmp_imm_s(
                cranelift_codegen::ir::condcodes::IntCC::SignedGreaterThanOrEqual,
                n,
                2,
            );
            self.b.ins().band(big, two)
        } else {
            big
        };
        let par = self.b.create_block();
        let ser = self.b.create_block();
        let join = self.b.create_block();
        let status = self.b.append_block_param(join, types::I32);
        self.b.ins().brif(big, par, &[], ser, &[]);
        self.b.switch_to_block(par);
        let (rt, err) = (self.rt, self.err);
        let s = self.call_rt(
            offsets::PARALLEL_FOR,
            &[types::I64; 6],
            &[types::I32],
            &[fptr, ctx, min, hi, rt, err],
        )[0];
        self.b.ins().jump(join, &[BlockArg::Value(s)]);
        self.b.switch_to_block(ser);
        let sref = self.b.import_signature(sig);
        let call = self
            .b
            .ins()
            .call_indirect(sref, fptr, &[ctx, min, hi, rt, err]);
        let s = self.b.inst_results(call)[0];
        self.b.ins().jump(join, &[BlockArg::Value(s)]);
        self.b.switch_to_block(join);
        let ok = self.b.ins().icmp_imm_s(
            cranelift_codegen::ir::condcodes::IntCC::Equal,
            status,
            STATUS_OK as i64,
        );
        let cont = self.b.create_block();
        let bad = self.b.create_block();
        self.b.set_cold_block(bad);
        self.b.ins().brif(ok, cont, &[], bad, &[]);
        self.b.switch_to_block(bad);
        self.b.ins().jump(self.exit, &[BlockArg::Value(status)]);
        self.b.switch_to_block(cont);
        self.meta.parallel_loops += 1;
        self.outlines.push(Outline {
            id,
            f: f.clone(),
            captured,
            shape_vars: self.shape_vars.clone(),
        });
        Ok(())
    }

    /// Emits an outlined loop body: `(ctx, begin, end, rt, err) -> status` running iterations
    /// `[begin, end)` of `o.f`. Its failure sites extend `meta`, which it returns.
    pub(crate) fn translate_outline(
        b: &'a mut FunctionBuilder<'b>,
        o: &Outline,
        opts: Options<'a>,
        no_alias: bool,
        meta: KernelMeta,
    ) -> Result<KernelMeta> {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        let mut t = Translator::new(b, opts, no_alias, meta, &params);
        t.shape_vars = o.shape_vars.clone();
        let ctx = params[0];
        for (k, v) in o.captured.iter().enumerate() {
            let ty = cl_type(v.dtype())?;
            let val = t.b.ins().load(ty, flags(), ctx, k as i32 * 8);
            t.define(v, val)?;
        }
        let ty = cl_type(o.f.loop_var.dtype())?;
        let begin: Value = t.coerce_int(params[1], ty);
        let end: Value = t.coerce_int(params[2], ty);
        t.depth = 1;
        if let Some(lanes) = t.vector_plan(&o.f) {
            let n = t.b.ins().isub(end, begin);
            t.vector_loop(&o.f, lanes, begin, n)?;
        } else {
            t.define(&o.f.loop_var, begin)?;
            t.serial_loop(&o.f, end)?;
        }
        t.finish()?;
        Ok(t.meta)
    }
}

/// The signature outlined bodies are declared with.
pub(crate) fn outline_signature(call_conv: cranelift_codegen::isa::CallConv) -> Signature {
    body_signature(call_conv)
}
