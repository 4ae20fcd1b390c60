//! Vectorization of innermost loops: 128-bit lanes (`f32x4`, `i32x4`, `f64x2`, `i64x2`) with a
//! scalar tail.
//!
//! A loop is vectorized when its body is a sequence of stores whose index advances by exactly
//! one element per iteration, and every value that depends on the loop variable ("varying") is
//! built from contiguous loads, arithmetic with a vector lowering, selects on lane-wise
//! comparisons, same-width casts and the inline math functions. Everything that does not
//! depend on the loop variable ("uniform") is computed as a scalar and splatted. A buffer both
//! stored and loaded in the loop may only be loaded at exactly the stored index, so no lane reads
//! what another lane writes (or at indices a constant ≥ 4 away, which no lane of the same
//! vector iteration touches; stores to one buffer obey the same rule); distinct parameters must
//! be declared non-overlapping
//! (`tirx.noalias`). Anything else keeps the scalar loop, so the plan only ever trades speed,
//! never meaning: results are lane-for-lane those of the scalar code.
//!
//! The vector loop runs `floor(n / lanes)` times; the scalar loop finishes the rest from where
//! it stopped. A vector access is bounds-checked at its first and last lane unless the interval
//! analysis proves the whole loop in bounds.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, Type, Value};
use tir::transform::{flatten_seq, has_load};
use tir::{BinaryOp, DataType, ExprKind, PrimExpr, Stmt, StmtKind, TypeCode, Var};

use super::{Translator, cl_type, flags, inline_math, mem_bytes, unsupported};
use crate::error::Result;
use crate::kernel::abi::ERR_BOUNDS;
use crate::math;

/// Lanes of a 128-bit vector of `dt`, for the element types vector code handles.
fn lanes_of(dt: DataType) -> Option<u16> {
    if dt.lanes != 1 || dt.is_bool() {
        return None;
    }
    match (dt.code, dt.bits) {
        (TypeCode::Float | TypeCode::Int | TypeCode::UInt, 32) => Some(4),
        (TypeCode::Float | TypeCode::Int | TypeCode::UInt, 64) => Some(2),
        _ => None,
    }
}

/// The vector type of `dt`'s lanes.
fn vec_type(dt: DataType) -> Result<Type> {
    let t = cl_type(dt)?;
    match lanes_of(dt).and_then(|l| t.by(l as u32)) {
        Some(v) => Ok(v),
        None => unsupported(format!("no vector type for {dt}")),
    }
}

fn uses(e: &PrimExpr, v: &Var) -> bool {
    e.uses_var(&|x| x == v)
}

// The coefficient of `v` in `e` if `e` is affine in `v` (shared with the loop interchange).
pub(super) use tir::transform::affine_coef as coef;

/// The statically checked shape of a loop body.
struct Plan<'a> {
    var: &'a Var,
    lanes: Option<u16>,
    /// Stored buffers (by data variable) and the index they are stored at.
    stores: Vec<(tir::VarId, PrimExpr)>,
}

/// The most lanes any vector type has here: two accesses of one buffer whose indices differ by
/// at least this much never touch the same element within one vector iteration.
const MAX_LANES: i64 = 4;

/// Whether two contiguous accesses of one buffer in the same loop body may be vectorized
/// together: the same index, or indices a constant at least [`MAX_LANES`] apart (then an
/// element is touched by both only in different vector iterations, in the scalar order).
fn compatible(a: &PrimExpr, b: &PrimExpr) -> bool {
    if a == b {
        return true;
    }
    let d = tir::arith::simplify(&PrimExpr::binary(BinaryOp::Sub, a.clone(), b.clone()));
    d.as_int()
        .is_some_and(|d| d.checked_abs().is_some_and(|d| d >= MAX_LANES))
}

impl Plan<'_> {
    fn lanes(&mut self, dt: DataType) -> Option<()> {
        let l = lanes_of(dt)?;
        match self.lanes {
            None => self.lanes = Some(l),
            Some(x) if x == l => {}
            Some(_) => return None,
        }
        Some(())
    }

    /// Loads of a stored buffer must be at a stored index or clear of every stored one.
    fn load_ok(&self, buffer: &tir::Buffer, index: &PrimExpr) -> bool {
        let id = buffer.data.id();
        self.stores
            .iter()
            .filter(|(b, _)| *b == id)
            .all(|(_, i)| compatible(i, index))
    }

    /// Whether a uniform expression may be hoisted out of the lanes: it reads no buffer that
    /// the loop writes.
    fn uniform_ok(&self, e: &PrimExpr) -> bool {
        let mut ok = true;
        e.visit(&mut |x| {
            if let ExprKind::BufferLoad { buffer, .. } = x.kind() {
                ok &= !self.stores.iter().any(|(b, _)| *b == buffer.data.id());
            }
        });
        ok
    }

    /// Checks a varying (or uniform) value expression.
    fn value(&mut self, e: &PrimExpr) -> Option<()> {
        if !uses(e, self.var) {
            return self.uniform_ok(e).then_some(());
        }
        match e.kind() {
            ExprKind::BufferLoad { buffer, indices } => {
                let [index] = indices.as_slice() else {
                    return None;
                };
                if coef(index, self.var)? != 1 || has_load(index) || !self.load_ok(buffer, index) {
                    return None;
                }
                self.lanes(buffer.dtype)
            }
            ExprKind::Binary { op, a, b } => {
                let dt = a.dtype();
                self.lanes(dt)?;
                let ok = if dt.code == TypeCode::Float {
                    matches!(
                        op,
                        BinaryOp::Add
                            | BinaryOp::Sub
                            | BinaryOp::Mul
                            | BinaryOp::Div
                            | BinaryOp::Min
                            | BinaryOp::Max
                    )
                } else if dt.bits == 32 {
                    matches!(
                        op,
                        BinaryOp::Add
                            | BinaryOp::Sub
                            | BinaryOp::Mul
                            | BinaryOp::Min
                            | BinaryOp::Max
                    )
                } else {
                    matches!(op, BinaryOp::Add | BinaryOp::Sub)
                };
                if !ok {
                    return None;
                }
                self.value(a)?;
                self.value(b)
            }
            ExprKind::Select {
                cond,
                true_value,
                false_value,
            } => {
                let ExprKind::Cmp { a, b, .. } = cond.kind() else {
                    return None;
                };
                // The mask has the comparison's lane width; the values must match it.
                let (cd, vd) = (a.dtype(), true_value.dtype());
                if cd.bits != vd.bits {
                    return None;
                }
                self.lanes(cd)?;
                self.lanes(vd)?;
                self.value(a)?;
                self.value(b)?;
                self.value(true_value)?;
                self.value(false_value)
            }
            ExprKind::Cast { dtype, value } => {
                let from = value.dtype();
                let ok = from == *dtype
                    || (from.bits == 32
                        && dtype.bits == 32
                        && from.lanes == 1
                        && dtype.lanes == 1
                        && (from.code == TypeCode::Float) != (dtype.code == TypeCode::Float)
                        && (from.is_int() || dtype.is_int()));
                if !ok {
                    return None;
                }
                self.lanes(*dtype)?;
                self.value(value)
            }
            ExprKind::Call { op, args, dtype } => {
                if dtype.code != TypeCode::Float || !(inline_math(op).is_some() || op == "pow") {
                    return None;
                }
                self.lanes(*dtype)?;
                args.iter().try_for_each(|a| self.value(a))
            }
            _ => None,
        }
    }
}

impl Translator<'_, '_> {
    /// The number of lanes if `f` can run as vector code (see the module doc).
    pub(super) fn vector_plan(&self, f: &tir::For) -> Option<u16> {
        if !self.vectorize || !self.no_alias {
            return None;
        }
        let mut body = Vec::new();
        flatten_seq(&f.body, &mut body);
        let mut plan = Plan {
            var: &f.loop_var,
            lanes: None,
            stores: Vec::new(),
        };
        let mut stores = Vec::new();
        for s in &body {
            let StmtKind::BufferStore {
                buffer,
                value,
                indices,
            } = s.kind()
            else {
                return None;
            };
            let [index] = indices.as_slice() else {
                return None;
            };
            if coef(index, &f.loop_var)? != 1 || has_load(index) {
                return None;
            }
            plan.lanes(buffer.dtype)?;
            let id = buffer.data.id();
            if !plan
                .stores
                .iter()
                .all(|(b, i)| *b != id || compatible(i, index))
            {
                return None;
            }
            plan.stores.push((id, index.clone()));
            stores.push(value);
        }
        for v in stores {
            plan.value(v)?;
        }
        let lanes = plan.lanes?;
        if f.extent.as_int().is_some_and(|n| n < lanes as i64) {
            return None;
        }
        Some(lanes)
    }

    /// Emits `f` as a vector loop of `lanes` followed by the scalar loop for the remainder.
    pub(super) fn vector_loop(
        &mut self,
        f: &tir::For,
        lanes: u16,
        min: Value,
        ext: Value,
    ) -> Result<()> {
        self.meta.vector_loops += 1;
        let ty = self.b.func.dfg.value_type(min);
        let zero = self.b.ins().iconst(ty, 0);
        let n = self.b.ins().smax(ext, zero);
        let vn = self.b.ins().band_imm_s(n, !(lanes as i64 - 1));
        let vend = self.b.ins().iadd(min, vn);
        let end = self.b.ins().iadd(min, n);
        self.define(&f.loop_var, min)?;
        let var = self.var_of(&f.loop_var)?;
        let header = self.b.create_block();
        let body = self.b.create_block();
        let exit = self.b.create_block();
        // Uniform operands are computed once, in a preheader that runs only if the vector loop
        // does (so nothing is evaluated that the loop would not have evaluated).
        let pre = self.b.create_block();
        let runs = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, vn, 0);
        self.b.ins().brif(runs, pre, &[], exit, &[]);
        self.b.switch_to_block(pre);
        let mut stmts = Vec::new();
        flatten_seq(&f.body, &mut stmts);
        self.hoist_uniforms(&stmts, &f.loop_var)?;
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        let i = self.b.use_var(var);
        let c = self.b.ins().icmp(IntCC::SignedLessThan, i, vend);
        self.b.ins().brif(c, body, &[], exit, &[]);
        self.b.switch_to_block(body);
        let id = f.loop_var.id();
        let prev = self.ranges.remove(&id);
        if let (Some(lo), Some(n)) = (f.min.as_int(), f.extent.as_int())
            && n > 0
            && let Some(hi) = lo.checked_add(n - 1)
        {
            self.ranges.insert(id, (lo, hi));
        }
        self.loops.push(super::symbolic::LoopRange {
            var: f.loop_var.clone(),
            min: f.min.clone(),
            extent: f.extent.clone(),
        });
        let r = self.vector_body(&stmts, f, lanes);
        self.loops.pop();
        r?;
        self.ranges.remove(&id);
        if let Some(p) = prev {
            self.ranges.insert(id, p);
        }
        let i = self.b.use_var(var);
        let next = self.b.ins().iadd_imm_s(i, lanes as i64);
        self.b.def_var(var, next);
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(exit);
        self.hoisted.clear();
        // The loop variable is at `vend` (or `min` if the vector loop did not run): the scalar
        // loop does the remaining iterations.
        self.serial_loop(f, end)
    }

    /// Computes and splats the maximal uniform operands of the stored values (the vector plan
    /// checked that they read no buffer the loop writes), for [`Self::vexpr`] to reuse.
    fn hoist_uniforms(&mut self, stmts: &[Stmt], v: &Var) -> Result<()> {
        fn collect(e: &PrimExpr, v: &Var, out: &mut Vec<PrimExpr>) {
            if !uses(e, v) {
                if !matches!(
                    e.kind(),
                    ExprKind::IntImm { .. } | ExprKind::FloatImm { .. }
                ) {
                    out.push(e.clone());
                }
                return;
            }
            match e.kind() {
                ExprKind::Binary { a, b, .. } => {
                    collect(a, v, out);
                    collect(b, v, out);
                }
                ExprKind::Select {
                    cond,
                    true_value,
                    false_value,
                } => {
                    if let ExprKind::Cmp { a, b, .. } = cond.kind() {
                        collect(a, v, out);
                        collect(b, v, out);
                    }
                    collect(true_value, v, out);
                    collect(false_value, v, out);
                }
                ExprKind::Cast { value, .. } => collect(value, v, out),
                ExprKind::Call { args, .. } => args.iter().for_each(|a| collect(a, v, out)),
                _ => {}
            }
        }
        let mut uniforms = Vec::new();
        for s in stmts {
            if let StmtKind::BufferStore { value, .. } = s.kind() {
                collect(value, v, &mut uniforms);
            }
        }
        for e in uniforms {
            if self.hoisted.contains_key(&e) {
                continue;
            }
            let x = self.expr(&e)?;
            let vt = vec_type(e.dtype())?;
            let splat = self.b.ins().splat(vt, x);
            self.hoisted.insert(e, splat);
        }
        Ok(())
    }

    /// The stores of one vector iteration.
    fn vector_body(&mut self, stmts: &[Stmt], f: &tir::For, lanes: u16) -> Result<()> {
        for s in stmts {
            if let StmtKind::BufferStore {
                buffer,
                value,
                indices,
            } = s.kind()
            {
                let v = self.vexpr(value, &f.loop_var, lanes)?;
                let addr = self.vaddress(buffer, &indices[0], lanes)?;
                self.b.ins().store(flags(), v, addr, 0);
            }
        }
        Ok(())
    }

    /// The address of the first lane of a contiguous access, checked at both ends.
    fn vaddress(&mut self, buffer: &tir::Buffer, index: &PrimExpr, lanes: u16) -> Result<Value> {
        let Some(extent) = buffer.shape.first() else {
            return unsupported(format!("buffer `{}` without an extent", buffer.name));
        };
        let idx = self.expr(index)?;
        let idx = self.int_to_i64(idx, index.dtype());
        let proven = self.proven_in_bounds(index, extent);
        if !proven {
            let site = self.meta.sites.len() as i64;
            self.meta.sites.push(buffer.name.clone());
            let ext = self.expr(extent)?;
            let ext = self.int_to_i64(ext, extent.dtype());
            let last = self.b.ins().iadd_imm_s(idx, lanes as i64 - 1);
            let first_ok = self.b.ins().icmp(IntCC::UnsignedLessThan, idx, ext);
            let last_ok = self.b.ins().icmp(IntCC::UnsignedLessThan, last, ext);
            let ok = self.b.ins().band(first_ok, last_ok);
            self.guard(ok, |t| {
                let bad = t.b.ins().select(first_ok, last, idx);
                t.fail(ERR_BOUNDS, site, 0, ext, bad)
            });
        }
        let dv = self.var_of(&buffer.data)?;
        let ptr = self.b.use_var(dv);
        let off = self.b.ins().imul_imm_s(idx, mem_bytes(buffer.dtype));
        Ok(self.b.ins().iadd(ptr, off))
    }

    fn mask_flags() -> MemFlagsData {
        MemFlagsData::new().with_endianness(Endianness::Little)
    }

    /// Lane-wise `m ? a : b` for a comparison mask `m`.
    fn vselect(&mut self, m: Value, a: Value, b: Value) -> Value {
        let vt = self.b.func.dfg.value_type(a);
        let m = if self.b.func.dfg.value_type(m) == vt {
            m
        } else {
            self.b.ins().bitcast(vt, Self::mask_flags(), m)
        };
        self.b.ins().bitselect(m, a, b)
    }

    /// The vector value of `e` (a uniform `e` is computed once as a scalar and splatted).
    fn vexpr(&mut self, e: &PrimExpr, v: &Var, lanes: u16) -> Result<Value> {
        if !uses(e, v) {
            if let Some(x) = self.hoisted.get(e) {
                return Ok(*x);
            }
            let s = self.expr(e)?;
            let vt = vec_type(e.dtype())?;
            return Ok(self.b.ins().splat(vt, s));
        }
        let dt = e.dtype();
        match e.kind() {
            ExprKind::BufferLoad { buffer, indices } => {
                let addr = self.vaddress(buffer, &indices[0], lanes)?;
                let vt = vec_type(buffer.dtype)?;
                Ok(self.b.ins().load(vt, flags(), addr, 0))
            }
            ExprKind::Binary { op, a, b } => {
                if self.contract
                    && let Some((x, y, z)) = super::mul_add_operands(*op, a, b)
                {
                    let x = self.vexpr(x, v, lanes)?;
                    let y = self.vexpr(y, v, lanes)?;
                    let z = self.vexpr(z, v, lanes)?;
                    return Ok(self.b.ins().fma(x, y, z));
                }
                let x = self.vexpr(a, v, lanes)?;
                let y = self.vexpr(b, v, lanes)?;
                let ins = self.b.ins();
                Ok(if dt.code == TypeCode::Float {
                    match op {
                        BinaryOp::Add => ins.fadd(x, y),
                        BinaryOp::Sub => ins.fsub(x, y),
                        BinaryOp::Mul => ins.fmul(x, y),
                        BinaryOp::Div => ins.fdiv(x, y),
                        BinaryOp::Min | BinaryOp::Max => {
                            let cc = if *op == BinaryOp::Min {
                                FloatCC::LessThan
                            } else {
                                FloatCC::GreaterThan
                            };
                            let m = ins.fcmp(cc, x, y);
                            self.vselect(m, x, y)
                        }
                        _ => return unsupported(format!("vector {op:?}")),
                    }
                } else {
                    let signed = dt.is_int();
                    match op {
                        BinaryOp::Add => ins.iadd(x, y),
                        BinaryOp::Sub => ins.isub(x, y),
                        BinaryOp::Mul => ins.imul(x, y),
                        BinaryOp::Min if signed => ins.smin(x, y),
                        BinaryOp::Max if signed => ins.smax(x, y),
                        BinaryOp::Min => ins.umin(x, y),
                        BinaryOp::Max => ins.umax(x, y),
                        _ => return unsupported(format!("vector {op:?}")),
                    }
                })
            }
            ExprKind::Select {
                cond,
                true_value,
                false_value,
            } => {
                let ExprKind::Cmp { op, a, b } = cond.kind() else {
                    return unsupported("vector select without a comparison");
                };
                let cd = a.dtype();
                let x = self.vexpr(a, v, lanes)?;
                let y = self.vexpr(b, v, lanes)?;
                let m =
                    super::emit_compare(self.b, *op, cd.code == TypeCode::Float, cd.is_int(), x, y);
                let t = self.vexpr(true_value, v, lanes)?;
                let f = self.vexpr(false_value, v, lanes)?;
                Ok(self.vselect(m, t, f))
            }
            ExprKind::Cast { dtype, value } => {
                let x = self.vexpr(value, v, lanes)?;
                let from = value.dtype();
                let vt = vec_type(*dtype)?;
                Ok(if from == *dtype {
                    x
                } else if dtype.code == TypeCode::Float && from.is_int() {
                    self.b.ins().fcvt_from_sint(vt, x)
                } else if dtype.code == TypeCode::Float {
                    self.b.ins().fcvt_from_uint(vt, x)
                } else if dtype.is_int() {
                    self.b.ins().fcvt_to_sint_sat(vt, x)
                } else {
                    self.b.ins().fcvt_to_uint_sat(vt, x)
                })
            }
            ExprKind::Call { op, args, .. } => {
                let vt = vec_type(dt)?;
                let x = self.vexpr(&args[0], v, lanes)?;
                if op == "pow" {
                    let y = self.vexpr(&args[1], v, lanes)?;
                    return math::emit_pow(self.b, x, y, vt, &self.host);
                }
                match inline_math(op) {
                    Some(f) => math::emit_unary(self.b, f, x, vt, &self.host),
                    None => unsupported(format!("vector `T.{op}`")),
                }
            }
            _ => unsupported(format!("vector expression {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affine_coefficients() {
        let i = Var::new("i", DataType::INT64);
        let j = Var::new("j", DataType::INT64);
        let e = |k| PrimExpr::from(&k);
        let add = |a, b| PrimExpr::binary(BinaryOp::Add, a, b);
        let mul = |a, b| PrimExpr::binary(BinaryOp::Mul, a, b);
        assert_eq!(
            coef(&add(mul(e(j.clone()), PrimExpr::i64(8)), e(i.clone())), &i),
            Some(1)
        );
        assert_eq!(coef(&mul(e(i.clone()), PrimExpr::i64(3)), &i), Some(3));
        assert_eq!(coef(&mul(e(i.clone()), e(j.clone())), &i), None);
        assert_eq!(coef(&e(j), &i), Some(0));
        let fd = PrimExpr::binary(BinaryOp::FloorDiv, e(i.clone()), PrimExpr::i64(2));
        assert_eq!(coef(&fd, &i), None);
    }
}
