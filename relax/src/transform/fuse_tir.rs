//! FuseTIR: merges each Relax function with the `Primitive` attribute (made by FuseOps) into one
//! PrimFunc of the same name and turns its calls into `call_tir` (TVM's
//! `src/relax/transform/fuse_tir.cc`).
//!
//! The fused PrimFunc takes one buffer per Relax parameter (named after it), then one per
//! output. The callees' root blocks are concatenated in binding order, each with fresh
//! definitions (loop and block variables, allocated buffers), its parameter buffers replaced by
//! the fused function's buffers and its symbolic shape variables by the matching dimensions. A
//! `call_tir` output inside the group becomes a root-block allocation named
//! `<output param>_intermediate` (`T.sblock_alloc_buffer`), unless it is an output of the
//! group, which becomes a parameter; allocations of the callees are kept. Attributes are
//! `tirx.noalias` only (no `op_pattern`, as in TVM).
//!
//! A `Primitive` function whose bindings this pass cannot merge (see [`fuse_function`]'s
//! `Unsupported` errors) loses the attribute and stays a Relax function, called as before.
//!
//! Invariants: every `Primitive` function is replaced (or, unmergeable, no longer `Primitive`)
//! and no longer called as a group; PrimFuncs that are no longer called are left for
//! DeadCodeElimination; the calls keep their binding variables.

use std::collections::HashMap;

use tir::transform::mutator::{Mutator, walk_expr, walk_stmt};
use tir::{
    AttrValue as TAttr, Buffer, BufferNode, BufferRegion, ExprKind as TExpr, For, IterVar,
    PrimExpr, PrimFunc, Range, SBlock, SBlockRealize, Stmt, StmtKind,
};

use crate::ir::{
    Attrs, BaseFunc, Binding, Callee, Expr, ExprKind, Function, IRModule, StructInfo, VarId,
};
use crate::transform::rewrite_module;
use crate::{Error, Result};

pub fn fuse_tir(module: &IRModule) -> Result<IRModule> {
    let mut out = module.clone();
    let primitive: Vec<(String, Function)> = module
        .relax_functions()
        .filter(|(_, f)| f.attrs.get("Primitive").is_some())
        .map(|(n, f)| (n.clone(), f.clone()))
        .collect();
    if primitive.is_empty() {
        return Ok(out);
    }
    let mut fused: HashMap<String, StructInfo> = HashMap::new();
    for (name, f) in &primitive {
        match fuse_function(name, f, module) {
            Ok(pf) => {
                out.functions.insert(name.clone(), BaseFunc::Tir(pf));
                fused.insert(name.clone(), f.ret_struct_info.clone());
            }
            // A group this pass cannot merge (one written by hand or printed after TVM's
            // FuseOps, with bindings FuseOps here never groups: `call_tir_inplace`, tuple
            // outputs of unknown shape, …) stays a Relax function, called as it was: the
            // same results, unfused.
            Err(Error::Unsupported(_)) => {
                let mut plain = f.clone();
                plain.attrs.0.retain(|(k, _)| k != "Primitive");
                out.functions.insert(name.clone(), BaseFunc::Relax(plain));
            }
            Err(e) => return Err(e),
        }
    }
    rewrite_module(&out.clone(), |b, em| {
        if let Binding::Var { var, value } = &b
            && let ExprKind::Call(c) = value.kind()
            && let Callee::Global(g) = &c.callee
            && fused.contains_key(g)
        {
            let call = Expr::call(
                Callee::Op("relax.call_tir".to_string()),
                vec![
                    Expr::new(ExprKind::GlobalVar(g.clone())),
                    Expr::tuple(c.args.clone()),
                ],
                Attrs::new(),
                vec![var.struct_info().clone()],
            );
            em.push(Binding::Var {
                var: var.clone(),
                value: call,
            });
            return Ok(());
        }
        em.push(b);
        Ok(())
    })
}

fn unsupported(func: &str, what: impl std::fmt::Display) -> Error {
    Error::Unsupported(format!("FuseTIR of `{func}`: {what}"))
}

/// A compact buffer of a tensor struct info.
fn tensor_buffer(name: &str, si: &StructInfo, func: &str) -> Result<Buffer> {
    match si {
        StructInfo::Tensor {
            shape: Some(shape),
            dtype: Some(dtype),
            ..
        } => Ok(Buffer::simple(name, *dtype, shape.clone())),
        other => Err(unsupported(
            func,
            format!("`{name}` is not a tensor of known shape and dtype ({other:?})"),
        )),
    }
}

fn tensor_fields(si: &StructInfo) -> Vec<&StructInfo> {
    match si {
        StructInfo::Tuple(items) => items.iter().flat_map(tensor_fields).collect(),
        other => vec![other],
    }
}

fn fuse_function(name: &str, f: &Function, module: &IRModule) -> Result<PrimFunc> {
    let mut bufs: HashMap<VarId, Vec<Buffer>> = HashMap::new();
    let mut params = Vec::new();
    let mut buffer_map = Vec::new();
    for p in &f.params {
        let b = tensor_buffer(p.name(), p.struct_info(), name)?;
        let v = tir::Var::new(p.name(), tir::DataType::HANDLE);
        params.push(v.clone());
        buffer_map.push((v, b.clone()));
        bufs.insert(p.id(), vec![b]);
    }
    let mut allocs: Vec<Buffer> = Vec::new();
    let mut bodies: Vec<Stmt> = Vec::new();
    let lookup = |e: &Expr, bufs: &HashMap<VarId, Vec<Buffer>>| -> Result<Vec<Buffer>> {
        match e.kind() {
            ExprKind::Var(v) => bufs
                .get(&v.id())
                .cloned()
                .ok_or_else(|| unsupported(name, format!("no buffers for `{}`", v.name()))),
            ExprKind::Tuple(items) => {
                let mut out = Vec::new();
                for i in items {
                    match i.kind() {
                        ExprKind::Var(v) => {
                            out.extend(bufs.get(&v.id()).cloned().ok_or_else(|| {
                                unsupported(name, format!("no buffers for `{}`", v.name()))
                            })?)
                        }
                        _ => return Err(unsupported(name, "a non-variable tuple field")),
                    }
                }
                Ok(out)
            }
            _ => Err(unsupported(name, "a non-variable value")),
        }
    };
    for block in &f.body.blocks {
        for b in &block.bindings {
            let Binding::Var { var, value } = b else {
                return Err(unsupported(name, "a match_cast"));
            };
            let out_bufs = match value.kind() {
                ExprKind::Call(c) if c.op() == Some("relax.call_tir") && c.args.len() == 2 => {
                    let Some(ExprKind::GlobalVar(g)) = c.args.first().map(|a| a.kind()) else {
                        return Err(unsupported(name, "call_tir of a non-global"));
                    };
                    let pf = module
                        .prim_func(g)
                        .ok_or_else(|| unsupported(name, format!("no PrimFunc `{g}`")))?;
                    let inputs = lookup(&c.args[1], &bufs)?;
                    let out_si = c
                        .ty_args
                        .first()
                        .ok_or_else(|| unsupported(name, "call_tir without out_ty"))?;
                    inline_call(name, pf, &inputs, out_si, &mut allocs, &mut bodies)?
                }
                ExprKind::TupleGetItem(t, i) => {
                    let all = lookup(t, &bufs)?;
                    let si = crate::transform::struct_info_of(t, module);
                    let StructInfo::Tuple(items) = si else {
                        return Err(unsupported(name, "indexing a non-tuple"));
                    };
                    let start: usize = items.iter().take(*i).map(|s| tensor_fields(s).len()).sum();
                    let len = items.get(*i).map(|s| tensor_fields(s).len()).unwrap_or(0);
                    all.get(start..start + len)
                        .map(<[Buffer]>::to_vec)
                        .ok_or_else(|| unsupported(name, "tuple index out of range"))?
                }
                ExprKind::Var(_) | ExprKind::Tuple(_) => lookup(value, &bufs)?,
                _ => {
                    return Err(unsupported(
                        name,
                        format!("the binding of `{}`", var.name()),
                    ));
                }
            };
            bufs.insert(var.id(), out_bufs);
        }
    }
    let outputs = lookup(&f.body.body, &bufs)?;
    for o in &outputs {
        let v = tir::Var::new(o.name.clone(), tir::DataType::HANDLE);
        params.push(v.clone());
        buffer_map.push((v, o.clone()));
    }
    allocs.retain(|a| !outputs.iter().any(|o| o.same_as(a)));
    let root = SBlock {
        name: "root".to_string(),
        iter_vars: Vec::new(),
        reads: Vec::new(),
        writes: Vec::new(),
        init: None,
        alloc_buffers: allocs,
        annotations: Default::default(),
        body: Stmt::seq(bodies),
    };
    let mut attrs = tir::Attrs::new();
    attrs.insert("tirx.noalias".to_string(), TAttr::Bool(true));
    Ok(PrimFunc {
        name: name.to_string(),
        params,
        buffer_map,
        body: Stmt::new(StmtKind::SBlockRealize(SBlockRealize {
            iter_values: Vec::new(),
            predicate: PrimExpr::bool(true),
            block: root,
        })),
        attrs,
        private: true,
        s_tir: true,
    })
}

/// Appends the body of `pf` (called on `inputs`) to `bodies` with fresh definitions; returns
/// the buffers that hold its outputs (new allocations).
fn inline_call(
    fname: &str,
    pf: &PrimFunc,
    inputs: &[Buffer],
    out_si: &StructInfo,
    allocs: &mut Vec<Buffer>,
    bodies: &mut Vec<Stmt>,
) -> Result<Vec<Buffer>> {
    let StmtKind::SBlockRealize(root) = pf.body.kind() else {
        return Err(unsupported(
            fname,
            format!("`{}` has no root block", pf.name),
        ));
    };
    let out_fields = tensor_fields(out_si);
    if pf.params.len() != inputs.len() + out_fields.len() {
        return Err(unsupported(
            fname,
            format!("`{}` takes {} parameters", pf.name, pf.params.len()),
        ));
    }
    let mut r = Renew::default();
    let param_buf = |i: usize| -> Result<&Buffer> {
        pf.buffer_of(&pf.params[i])
            .ok_or_else(|| unsupported(fname, format!("`{}` has a scalar parameter", pf.name)))
    };
    for (i, target) in inputs.iter().enumerate() {
        let b = param_buf(i)?;
        r.match_shape(&b.shape, &target.shape);
        r.bufs.insert(b.identity(), target.clone());
    }
    let mut outs = Vec::new();
    for (k, si) in out_fields.iter().enumerate() {
        let i = inputs.len() + k;
        let b = param_buf(i)?;
        let shape = si.tensor_shape().map(<[PrimExpr]>::to_vec).ok_or_else(|| {
            unsupported(fname, format!("output {k} of `{}` has no shape", pf.name))
        })?;
        r.match_shape(&b.shape, &shape);
        let nb = Buffer::new(BufferNode {
            name: format!("{}_intermediate", pf.params[i].name()),
            data: tir::Var::new(
                format!("{}_intermediate", pf.params[i].name()),
                tir::DataType::HANDLE,
            ),
            shape,
            ..(**b).clone()
        });
        r.bufs.insert(b.identity(), nb.clone());
        outs.push(nb);
    }
    for a in &root.block.alloc_buffers {
        let nb = r.renew_buffer(a);
        allocs.push(nb);
    }
    allocs.extend(outs.iter().cloned());
    bodies.push(r.stmt(&root.block.body));
    Ok(outs)
}

/// Fresh definitions and buffer/variable substitution (TVM's `RenewDefs` plus
/// `FuseTIRBufferSubstitutor`).
#[derive(Default)]
struct Renew {
    vars: HashMap<tir::VarId, PrimExpr>,
    bufs: HashMap<usize, Buffer>,
}

impl Renew {
    fn match_shape(&mut self, from: &[PrimExpr], to: &[PrimExpr]) {
        for (a, b) in from.iter().zip(to) {
            if let Some(v) = a.as_var()
                && !self.vars.contains_key(&v.id())
            {
                self.vars.insert(v.id(), b.clone());
            }
        }
    }

    fn renew_buffer(&mut self, b: &Buffer) -> Buffer {
        let shape = b.shape.iter().map(|d| self.expr(d)).collect();
        let nb = Buffer::new(BufferNode {
            data: b.data.fresh_copy(),
            shape,
            ..(**b).clone()
        });
        self.bufs.insert(b.identity(), nb.clone());
        nb
    }

    fn buffer(&self, b: &Buffer) -> Buffer {
        self.bufs
            .get(&b.identity())
            .cloned()
            .unwrap_or_else(|| b.clone())
    }

    fn region(&mut self, r: &BufferRegion) -> BufferRegion {
        BufferRegion {
            buffer: self.buffer(&r.buffer),
            region: r
                .region
                .iter()
                .map(|rg| Range::new(self.expr(&rg.min), self.expr(&rg.extent)))
                .collect(),
        }
    }
}

impl Mutator for Renew {
    fn expr(&mut self, e: &PrimExpr) -> PrimExpr {
        if let TExpr::Var(v) = e.kind()
            && let Some(r) = self.vars.get(&v.id())
        {
            return r.clone();
        }
        walk_expr(self, e)
    }

    fn access(&mut self, buffer: &Buffer, indices: Vec<PrimExpr>) -> (Buffer, Vec<PrimExpr>) {
        (self.buffer(buffer), indices)
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::For(f) => {
                let nv = f.loop_var.fresh_copy();
                let (min, extent) = (self.expr(&f.min), self.expr(&f.extent));
                self.vars.insert(f.loop_var.id(), PrimExpr::from(&nv));
                Stmt::new(StmtKind::For(For {
                    loop_var: nv,
                    min,
                    extent,
                    kind: f.kind,
                    thread_binding: f.thread_binding.clone(),
                    annotations: f.annotations.clone(),
                    body: self.stmt(&f.body),
                }))
            }
            StmtKind::SBlockRealize(r) => {
                let iter_values = r.iter_values.iter().map(|v| self.expr(v)).collect();
                let predicate = self.expr(&r.predicate);
                let b = &r.block;
                let iter_vars = b
                    .iter_vars
                    .iter()
                    .map(|iv| {
                        let nv = iv.var.fresh_copy();
                        let dom = Range::new(self.expr(&iv.dom.min), self.expr(&iv.dom.extent));
                        self.vars.insert(iv.var.id(), PrimExpr::from(&nv));
                        IterVar {
                            var: nv,
                            dom,
                            kind: iv.kind,
                        }
                    })
                    .collect();
                let alloc_buffers = b
                    .alloc_buffers
                    .iter()
                    .map(|a| self.renew_buffer(a))
                    .collect();
                let reads = b.reads.iter().map(|r| self.region(r)).collect();
                let writes = b.writes.iter().map(|r| self.region(r)).collect();
                let init = b.init.as_ref().map(|i| self.stmt(i));
                let body = self.stmt(&b.body);
                Stmt::new(StmtKind::SBlockRealize(SBlockRealize {
                    iter_values,
                    predicate,
                    block: SBlock {
                        name: b.name.clone(),
                        iter_vars,
                        reads,
                        writes,
                        init,
                        alloc_buffers,
                        annotations: b.annotations.clone(),
                        body,
                    },
                }))
            }
            _ => walk_stmt(self, s),
        }
    }
}
