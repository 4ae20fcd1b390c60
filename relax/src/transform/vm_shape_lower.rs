//! VMShapeLower: lowers symbolic shapes to the VM's shape heap, as TVM's pass does
//! (`src/relax/backend/vm/vm_shape_lower.cc`).
//!
//! * Every non-constant int64 expression of the parameters' struct info, the body's
//!   `R.shape([...])` and prim values, `R.match_cast` targets and the return struct info gets a
//!   heap slot (in order of first appearance). With slots, the function starts with
//!   `shape_heap = call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (K,))`; without, with
//!   `shape_heap = R.null_value()`.
//! * Each parameter is checked (`vm.builtin.check_{tensor,shape,prim_value,tuple,func}_info`)
//!   and its shape matched (`vm.builtin.match_shape`: assert-equal to an immediate, store a
//!   first-seen variable, assert-equal to a stored one). Compound expressions are computed by
//!   a generated host PrimFunc `shape_func(H)` once their variables are known.
//! * In the body, symbolic `R.shape` becomes `vm.builtin.make_shape(heap, n, code, value, …)`,
//!   symbolic prim values `vm.builtin.make_prim_value`; `R.match_cast` is checked and matched
//!   like a parameter; the result is checked against the return struct info unless its static
//!   struct info already guarantees it.
//!
//! Error messages carry TVM's exact `ErrorContext(fn=…, loc=…, …) ` strings. Invariant
//! afterwards: every `R.shape` and prim value in the module is constant.

use std::collections::HashMap;

use tir::{DataType, PrimExpr};

use crate::ir::visit::{Visitor, walk_expr};
use crate::ir::{
    Attrs, BaseFunc, Binding, BindingBlock, Callee, Expr, ExprKind, Function, IRModule, SeqExpr,
    StructInfo, Var,
};
use crate::struct_info_ops::is_base_of;
use crate::transform::{call_packed, dtype_imm, op_call, prim_i64, str_imm, struct_info_of};
use crate::{Error, Result};

const MATCH_ASSERT_IMM: i64 = 0;
const MATCH_STORE: i64 = 1;
const MATCH_NOOP: i64 = 2;
const MATCH_ASSERT_LOAD: i64 = 3;
const MAKE_USE_IMM: i64 = 0;
const MAKE_LOAD: i64 = 1;

pub fn vm_shape_lower(module: &IRModule) -> Result<IRModule> {
    let mut out = module.clone();
    let mut new_funcs: Vec<(String, tir::PrimFunc)> = Vec::new();
    for (name, f) in &module.functions {
        let BaseFunc::Relax(func) = f else { continue };
        let mut lower = Lower {
            module,
            func_name: name.clone(),
            slots: Vec::new(),
            slot_map: HashMap::new(),
            heap: None,
            out: Vec::new(),
            new_funcs: &mut new_funcs,
            ready: Vec::new(),
            eager_match: false,
        };
        let new = lower.function(func)?;
        out.functions.insert(name.clone(), BaseFunc::Relax(new));
    }
    for (name, pf) in new_funcs {
        out.functions.insert(name, BaseFunc::Tir(pf));
    }
    Ok(out)
}

struct Slot {
    expr: PrimExpr,
    index: i64,
    computed: bool,
    /// The variables a compound expression depends on (slot indexes).
    deps: Vec<usize>,
}

struct Todo {
    input: Expr,
    pattern: Vec<PrimExpr>,
    err: String,
    prim: bool,
}

struct Lower<'a> {
    module: &'a IRModule,
    func_name: String,
    slots: Vec<Slot>,
    slot_map: HashMap<PrimExpr, usize>,
    heap: Option<Var>,
    out: Vec<Binding>,
    new_funcs: &'a mut Vec<(String, tir::PrimFunc)>,
    ready: Vec<usize>,
    /// At the return, every value is already computed and TVM emits each field's match right
    /// after its tuple item is taken.
    eager_match: bool,
}

fn collect_vars(e: &PrimExpr, out: &mut Vec<tir::Var>) {
    e.visit(&mut |x| {
        if let tir::ExprKind::Var(v) = x.kind()
            && !out.contains(v)
        {
            out.push(v.clone());
        }
    });
}

/// Gives a slot to every symbolic value of a function body, in evaluation order: the shape and
/// prim values its expressions build and the struct info its `match_cast`s check.
struct SlotCollector<'l, 'a> {
    lower: &'l mut Lower<'a>,
    /// The first nested function met (LambdaLift should have lifted it).
    nested: Option<String>,
}

impl Visitor for SlotCollector<'_, '_> {
    fn visit_expr(&mut self, e: &Expr) {
        match e.kind() {
            ExprKind::ShapeExpr(dims) => dims.iter().for_each(|d| self.lower.visit_prim(d)),
            ExprKind::PrimValue(p) => self.lower.visit_prim(p),
            ExprKind::Function(f) => {
                self.nested.get_or_insert_with(|| f.name.clone());
            }
            _ => walk_expr(self, e),
        }
    }

    fn visit_binding(&mut self, b: &Binding) {
        match b {
            Binding::MatchCast { struct_info, .. } => self.lower.visit_si(struct_info),
            Binding::Var { value, .. } => self.visit_expr(value),
        }
    }
}

impl Lower<'_> {
    fn unsupported(&self, what: impl std::fmt::Display) -> Error {
        Error::Unsupported(format!("{what} in function `{}`", self.func_name))
    }

    // ----- slot collection -----

    fn visit_prim(&mut self, e: &PrimExpr) {
        if e.as_int().is_some() || e.dtype() != DataType::INT64 {
            return;
        }
        let k = e.clone();
        if self.slot_map.contains_key(&k) {
            return;
        }
        let idx = self.slots.len();
        self.slots.push(Slot {
            expr: e.clone(),
            index: idx as i64,
            computed: false,
            deps: Vec::new(),
        });
        self.slot_map.insert(k, idx);
        if e.as_var().is_none() {
            let mut vars = Vec::new();
            collect_vars(e, &mut vars);
            let mut deps = Vec::new();
            for v in vars {
                let ve = PrimExpr::from(&v);
                self.visit_prim(&ve);
                if let Some(&s) = self.slot_map.get(&ve) {
                    deps.push(s);
                }
            }
            self.slots[idx].deps = deps;
        }
    }

    fn visit_si(&mut self, si: &StructInfo) {
        match si {
            StructInfo::Tensor { shape: Some(s), .. }
            | StructInfo::Shape {
                values: Some(s), ..
            } => {
                for d in s {
                    self.visit_prim(d);
                }
            }
            StructInfo::Prim { value: Some(v), .. } => self.visit_prim(v),
            StructInfo::Tuple(items) => items.iter().for_each(|i| self.visit_si(i)),
            _ => {}
        }
    }

    // ----- emission -----

    fn emit(&mut self, name: &str, value: Expr, si: StructInfo) -> Var {
        let v = Var::new(name, si);
        self.out.push(Binding::Var {
            var: v.clone(),
            value,
        });
        v
    }

    fn emit_void(&mut self, value: Expr) {
        self.emit("_", value, StructInfo::void());
    }

    fn heap_expr(&self) -> Expr {
        match &self.heap {
            Some(h) => Expr::var(h),
            None => op_call("relax.null_value", vec![], vec![]),
        }
    }

    fn function(&mut self, func: &Function) -> Result<Function> {
        for p in &func.params {
            self.visit_si(p.struct_info());
        }
        let mut slots = SlotCollector {
            lower: self,
            nested: None,
        };
        slots.visit_seq(&func.body);
        if let Some(name) = slots.nested {
            return Err(self.unsupported(format_args!(
                "the nested function `{name}` (apply LambdaLift before VMShapeLower)"
            )));
        }
        self.visit_si(&func.ret_struct_info);

        let heap_value = if self.slots.is_empty() {
            (op_call("relax.null_value", vec![], vec![]), StructInfo::Any)
        } else {
            let ty = StructInfo::tensor_ndim(1, Some(DataType::INT64));
            (
                op_call(
                    "relax.call_builtin_with_ctx",
                    vec![
                        Expr::extern_func("vm.builtin.alloc_shape_heap"),
                        Expr::tuple(vec![prim_i64(self.slots.len() as i64)]),
                    ],
                    vec![ty.clone()],
                ),
                ty,
            )
        };
        let heap = self.emit("shape_heap", heap_value.0, heap_value.1);
        self.heap = Some(heap);

        let mut todos = Vec::new();
        for (i, p) in func.params.iter().enumerate() {
            let si = p.struct_info().clone();
            let err = format!(
                "ErrorContext(fn={}, loc=param[{i}], param={}, annotation={}) ",
                self.func_name,
                p.name(),
                annotation(&si)
            );
            self.check_match_cast(&si, Expr::var(p), true, &err, &mut todos)?;
        }
        let todos = self.run_match(todos, false)?;
        self.emit_outstanding()?;
        self.run_match(todos, true)?;
        let prologue = std::mem::take(&mut self.out);

        let mut body = self.seq(&func.body)?;
        // The return check goes at the end of the last block.
        let ret = body.body.clone();
        let err = format!(
            "ErrorContext(fn={}, loc=return, annotation={}) ",
            self.func_name,
            annotation(&func.ret_struct_info)
        );
        let mut todos = Vec::new();
        self.eager_match = true;
        self.check_match_cast(&func.ret_struct_info, ret, false, &err, &mut todos)?;
        self.eager_match = false;
        let todos = self.run_match(todos, true)?;
        self.emit_outstanding()?;
        let _ = todos;
        let epilogue = std::mem::take(&mut self.out);
        let mut blocks = vec![BindingBlock {
            bindings: prologue,
            dataflow: false,
        }];
        blocks.append(&mut body.blocks);
        if !epilogue.is_empty() {
            blocks.push(BindingBlock {
                bindings: epilogue,
                dataflow: false,
            });
        }
        body.blocks = blocks;
        Ok(Function {
            body,
            ..func.clone()
        })
    }

    fn seq(&mut self, s: &SeqExpr) -> Result<SeqExpr> {
        let saved = std::mem::take(&mut self.out);
        let mut subst = crate::transform::Subst::new();
        let mut blocks = Vec::new();
        for block in &s.blocks {
            for b in &block.bindings {
                let b = crate::transform::substitute_binding(b, &subst);
                match b {
                    Binding::MatchCast {
                        var,
                        value,
                        struct_info,
                    } => {
                        let err = format!(
                            "ErrorContext(match_cast, struct_info={}) ",
                            annotation(&struct_info)
                        );
                        let mut todos = Vec::new();
                        self.check_match_cast(
                            &struct_info,
                            value.clone(),
                            false,
                            &err,
                            &mut todos,
                        )?;
                        let todos = self.run_match(todos, false)?;
                        self.emit_outstanding()?;
                        self.run_match(todos, true)?;
                        self.out.push(Binding::MatchCast {
                            var,
                            value,
                            struct_info,
                        });
                    }
                    Binding::Var { var, value } => {
                        // A tuple or alias of rewritten variables takes their new (less precise)
                        // struct info, as TVM's re-normalization does.
                        if matches!(
                            value.kind(),
                            ExprKind::Tuple(_) | ExprKind::TupleGetItem(..) | ExprKind::Var(_)
                        ) && reads_any(&value, &subst)
                        {
                            let nv = Var::new(var.name(), struct_info_of(&value, self.module));
                            subst.insert(var.id(), Expr::var(&nv));
                            self.out.push(Binding::Var { var: nv, value });
                            continue;
                        }
                        // So does a call of one of the module's Relax functions: its result
                        // takes what the callee's signature gives for the new arguments, and
                        // dimensions bound from shapes that are no longer known are forgotten,
                        // so that the function's return check matches them at run time.
                        if let Some(si) = self.rederived_call(&value, &subst) {
                            let nv = Var::new(var.name(), si);
                            subst.insert(var.id(), Expr::var(&nv));
                            self.out.push(Binding::Var { var: nv, value });
                            continue;
                        }
                        let (new_value, changed) = self.rewrite_value(&value)?;
                        if changed && !matches!(value.kind(), ExprKind::If(_)) {
                            let si = match (var.struct_info(), value.as_call()) {
                                (StructInfo::Tensor { dtype, ndim, .. }, Some(_)) => {
                                    StructInfo::tensor_ndim(*ndim, *dtype)
                                }
                                (other, _) => other.clone(),
                            };
                            let nv = Var::new(var.name(), si);
                            subst.insert(var.id(), Expr::var(&nv));
                            self.out.push(Binding::Var {
                                var: nv,
                                value: new_value,
                            });
                        } else {
                            self.out.push(Binding::Var {
                                var,
                                value: new_value,
                            });
                        }
                    }
                }
            }
            blocks.push(BindingBlock {
                bindings: std::mem::take(&mut self.out),
                dataflow: block.dataflow,
            });
        }
        let body_expr = crate::transform::substitute(&s.body, &subst);
        let (body_expr, _) = self.rewrite_value(&body_expr)?;
        if !self.out.is_empty() {
            blocks.push(BindingBlock {
                bindings: std::mem::take(&mut self.out),
                dataflow: false,
            });
        }
        self.out = saved;
        Ok(SeqExpr {
            blocks,
            body: body_expr,
        })
    }

    /// The struct info of `value`, a call of a Relax function of the module whose arguments
    /// read rewritten variables, derived again from the arguments' new struct info (TVM's
    /// re-normalization); `None` for any other value.
    fn rederived_call(&self, value: &Expr, subst: &crate::transform::Subst) -> Option<StructInfo> {
        let call = value.as_call()?;
        let Callee::Global(g) = &call.callee else {
            return None;
        };
        let Some(BaseFunc::Relax(f)) = self.module.get(g) else {
            return None;
        };
        if !reads_any(value, subst) {
            return None;
        }
        let mut bound = HashMap::new();
        for (p, a) in f.params.iter().zip(&call.args) {
            crate::struct_info_ops::bind_symbolic(
                p.struct_info(),
                &struct_info_of(a, self.module),
                &mut bound,
            );
        }
        Some(crate::struct_info_ops::substitute_struct_info(
            &f.ret_struct_info,
            &bound,
            &|_| false,
        ))
    }

    /// Rewrites symbolic shapes and prim values inside a binding's value (emitting their
    /// computation before it); returns whether anything changed.
    fn rewrite_value(&mut self, e: &Expr) -> Result<(Expr, bool)> {
        match e.kind() {
            ExprKind::ShapeExpr(dims) if dims.iter().any(|d| d.as_int().is_none()) => {
                let mut args = vec![self.heap_expr(), prim_i64(dims.len() as i64)];
                for d in dims {
                    match d.as_int() {
                        Some(v) => {
                            args.push(prim_i64(MAKE_USE_IMM));
                            args.push(prim_i64(v));
                        }
                        None => {
                            let slot = self.slot_of(d)?;
                            args.push(prim_i64(MAKE_LOAD));
                            args.push(prim_i64(slot));
                        }
                    }
                }
                let si = StructInfo::Shape {
                    values: None,
                    ndim: dims.len() as i64,
                };
                let v = self.emit(
                    "gv",
                    call_packed("vm.builtin.make_shape", args, si.clone()),
                    si,
                );
                Ok((Expr::var(&v), true))
            }
            ExprKind::PrimValue(p) if p.as_int().is_none() && p.dtype() == DataType::INT64 => {
                let slot = self.slot_of(p)?;
                let si = StructInfo::prim(DataType::INT64);
                let v = self.emit(
                    "gv",
                    call_packed(
                        "vm.builtin.make_prim_value",
                        vec![self.heap_expr(), prim_i64(MAKE_LOAD), prim_i64(slot)],
                        si.clone(),
                    ),
                    si,
                );
                Ok((Expr::var(&v), true))
            }
            ExprKind::PrimValue(p)
                if p.as_int().is_none() && !matches!(p.kind(), tir::ExprKind::FloatImm { .. }) =>
            {
                Err(self.unsupported(format_args!("the symbolic prim value `{p}`")))
            }
            ExprKind::Tuple(items) => {
                let mut changed = false;
                let mut new = Vec::with_capacity(items.len());
                for i in items {
                    let (x, c) = self.rewrite_value(i)?;
                    changed |= c;
                    new.push(x);
                }
                Ok((if changed { Expr::tuple(new) } else { e.clone() }, changed))
            }
            ExprKind::Call(c) => {
                let mut changed = false;
                let mut args = Vec::with_capacity(c.args.len());
                for a in &c.args {
                    let (x, ch) = self.rewrite_value(a)?;
                    changed |= ch;
                    args.push(x);
                }
                if !changed {
                    return Ok((e.clone(), false));
                }
                let mut call = c.clone();
                call.args = args;
                Ok((Expr::new(ExprKind::Call(call)), true))
            }
            ExprKind::If(i) => {
                let then_branch = self.seq(&i.then_branch)?;
                let else_branch = self.seq(&i.else_branch)?;
                Ok((
                    Expr::new(ExprKind::If(crate::ir::If {
                        cond: i.cond.clone(),
                        then_branch,
                        else_branch,
                    })),
                    true,
                ))
            }
            ExprKind::Function(f) => Err(self.unsupported(format_args!(
                "the nested function `{}` (apply LambdaLift before VMShapeLower)",
                f.name
            ))),
            _ => Ok((e.clone(), false)),
        }
    }

    fn slot_of(&self, e: &PrimExpr) -> Result<i64> {
        match self.slot_map.get(e) {
            Some(&s) if self.slots[s].computed => Ok(self.slots[s].index),
            _ => Err(self.unsupported(format_args!(
                "the symbolic expression `{e}`, used before a parameter or match_cast defines it"
            ))),
        }
    }

    fn check_match_cast(
        &mut self,
        si: &StructInfo,
        value: Expr,
        always_check: bool,
        err: &str,
        todos: &mut Vec<Todo>,
    ) -> Result<()> {
        let value_si = struct_info_of(&value, self.module);
        if !always_check && is_base_of(si, &value_si) {
            return Ok(());
        }
        match si {
            StructInfo::Any => {}
            StructInfo::Prim { dtype, value: pv } => {
                if always_check || !is_base_of(&StructInfo::prim(*dtype), &value_si) {
                    self.emit_void(call_packed(
                        "vm.builtin.check_prim_value_info",
                        vec![value.clone(), dtype_imm(*dtype), str_imm(err)],
                        StructInfo::void(),
                    ));
                }
                if let Some(pv) = pv {
                    todos.push(Todo {
                        input: value,
                        pattern: vec![pv.clone()],
                        err: err.to_string(),
                        prim: true,
                    });
                }
                self.flush_eager(todos)?;
            }
            StructInfo::Shape { values, ndim } => {
                let base = StructInfo::Shape {
                    values: None,
                    ndim: *ndim,
                };
                if always_check || !is_base_of(&base, &value_si) {
                    self.emit_void(call_packed(
                        "vm.builtin.check_shape_info",
                        vec![value.clone(), prim_i64(*ndim), str_imm(err)],
                        StructInfo::void(),
                    ));
                }
                if let Some(values) = values {
                    todos.push(Todo {
                        input: value,
                        pattern: values.clone(),
                        err: err.to_string(),
                        prim: false,
                    });
                }
                self.flush_eager(todos)?;
            }
            StructInfo::Tensor {
                shape, dtype, ndim, ..
            } => {
                let base = StructInfo::tensor_ndim(*ndim, *dtype);
                if always_check || !is_base_of(&base, &value_si) {
                    let dt = match dtype {
                        Some(d) => dtype_imm(*d),
                        None => op_call("relax.null_value", vec![], vec![]),
                    };
                    self.emit_void(call_packed(
                        "vm.builtin.check_tensor_info",
                        vec![value.clone(), prim_i64(*ndim), dt, str_imm(err)],
                        StructInfo::void(),
                    ));
                }
                if let Some(shape) = shape {
                    todos.push(Todo {
                        input: value,
                        pattern: shape.clone(),
                        err: err.to_string(),
                        prim: false,
                    });
                }
                self.flush_eager(todos)?;
            }
            StructInfo::Tuple(fields) => {
                let value_is_tuple = matches!(value_si, StructInfo::Tuple(_));
                if always_check || !value_is_tuple {
                    self.emit_void(call_packed(
                        "vm.builtin.check_tuple_info",
                        vec![value.clone(), prim_i64(fields.len() as i64), str_imm(err)],
                        StructInfo::void(),
                    ));
                }
                for (i, f) in fields.iter().enumerate() {
                    let item = match (value.kind(), &value_si) {
                        (ExprKind::Tuple(items), _) => items.get(i).cloned().ok_or_else(|| {
                            self.unsupported("a tuple literal shorter than its struct info")
                        })?,
                        (_, StructInfo::Tuple(vf)) => {
                            let si = vf.get(i).cloned().unwrap_or(StructInfo::Any);
                            let v = self.emit(
                                "gv",
                                Expr::new(ExprKind::TupleGetItem(value.clone(), i)),
                                si,
                            );
                            Expr::var(&v)
                        }
                        _ => {
                            let v = self.emit(
                                "gv",
                                call_packed(
                                    "vm.builtin.tuple_getitem",
                                    vec![value.clone(), prim_i64(i as i64)],
                                    StructInfo::Any,
                                ),
                                StructInfo::Any,
                            );
                            Expr::var(&v)
                        }
                    };
                    self.check_match_cast(f, item, always_check, err, todos)?;
                }
            }
            StructInfo::Func { .. } => {
                if always_check || !matches!(value_si, StructInfo::Func { .. }) {
                    self.emit_void(call_packed(
                        "vm.builtin.check_func_info",
                        vec![value, str_imm(err)],
                        StructInfo::void(),
                    ));
                }
            }
        }
        Ok(())
    }

    fn flush_eager(&mut self, todos: &mut Vec<Todo>) -> Result<()> {
        if self.eager_match && !todos.is_empty() {
            let pending = std::mem::take(todos);
            *todos = self.run_match(pending, true)?;
        }
        Ok(())
    }

    fn run_match(&mut self, todos: Vec<Todo>, require_computed: bool) -> Result<Vec<Todo>> {
        let mut outstanding = Vec::new();
        for item in todos {
            let mut args = vec![item.input.clone(), self.heap_expr()];
            if !item.prim {
                args.push(prim_i64(item.pattern.len() as i64));
            }
            let mut all_nop = true;
            let mut any_nop = false;
            for e in &item.pattern {
                let (code, rvalue) = match e.as_int() {
                    Some(v) => (MATCH_ASSERT_IMM, v),
                    None => {
                        let s = *self.slot_map.get(e).ok_or_else(|| {
                            Error::Internal(format!("VMShapeLower: no slot for `{e}`"))
                        })?;
                        if self.slots[s].computed {
                            (MATCH_ASSERT_LOAD, self.slots[s].index)
                        } else if require_computed {
                            return Err(self.unsupported(format_args!(
                                "the symbolic expression `{e}` that no parameter or match_cast \
                                 defines"
                            )));
                        } else if e.as_var().is_some() {
                            self.slots[s].computed = true;
                            self.ready.push(s);
                            (MATCH_STORE, self.slots[s].index)
                        } else {
                            (MATCH_NOOP, 0)
                        }
                    }
                };
                args.push(prim_i64(code));
                args.push(prim_i64(rvalue));
                if code == MATCH_NOOP {
                    any_nop = true;
                } else {
                    all_nop = false;
                }
            }
            args.push(str_imm(&item.err));
            if !all_nop {
                let name = if item.prim {
                    "vm.builtin.match_prim_value"
                } else {
                    "vm.builtin.match_shape"
                };
                self.emit_void(call_packed(name, args, StructInfo::void()));
            }
            if any_nop {
                outstanding.push(item);
            }
        }
        Ok(outstanding)
    }

    fn emit_outstanding(&mut self) -> Result<()> {
        if self.ready.is_empty() {
            return Ok(());
        }
        self.ready.clear();
        let to_compute: Vec<usize> = (0..self.slots.len())
            .rev()
            .filter(|&s| {
                let slot = &self.slots[s];
                !slot.computed
                    && !slot.deps.is_empty()
                    && slot.deps.iter().all(|&d| self.slots[d].computed)
            })
            .collect();
        if to_compute.is_empty() {
            return Ok(());
        }
        let k = self.slots.len() as i64;
        let heap_buf = tir::Buffer::simple("H", DataType::INT64, vec![PrimExpr::i64(k)]);
        let mut stmts = Vec::new();
        for &s in &to_compute {
            let value = self.to_heap_loads(&self.slots[s].expr.clone(), &heap_buf)?;
            stmts.push(tir::Stmt::new(tir::StmtKind::BufferStore {
                buffer: heap_buf.clone(),
                value,
                indices: vec![PrimExpr::i64(self.slots[s].index)],
            }));
        }
        for &s in &to_compute {
            self.slots[s].computed = true;
        }
        let param = tir::Var::new("H", DataType::HANDLE);
        let mut attrs = tir::Attrs::new();
        attrs.insert("tirx.is_host_func".to_string(), tir::AttrValue::Bool(true));
        let mut pf = tir::PrimFunc {
            name: String::new(),
            params: vec![param.clone()],
            buffer_map: vec![(param, heap_buf)],
            body: tir::Stmt::seq(stmts),
            attrs,
            private: false,
            s_tir: true,
        };
        // A shape function equal to one already made (in this or another function) is that
        // one, as TVM's BlockBuilder::AddFunction deduplicates.
        let existing = self.new_funcs.iter().find_map(|(n, q)| {
            pf.name.clone_from(n);
            tir::structural_equal(&pf, q).then(|| n.clone())
        });
        let name = match existing {
            Some(name) => name,
            None => {
                let mut name = "shape_func".to_string();
                let mut n = 0;
                while self.module.get(&name).is_some()
                    || self.new_funcs.iter().any(|(x, _)| *x == name)
                {
                    n += 1;
                    name = format!("shape_func{n}");
                }
                pf.name.clone_from(&name);
                self.new_funcs.push((name.clone(), pf));
                name
            }
        };
        let heap = self.heap_expr();
        self.emit_void(Expr::call(
            Callee::Global(name),
            vec![heap],
            Attrs::new(),
            vec![],
        ));
        Ok(())
    }

    /// `e` with each variable replaced by its heap load `H[slot]`.
    fn to_heap_loads(&self, e: &PrimExpr, heap: &tir::Buffer) -> Result<PrimExpr> {
        use tir::ExprKind as K;
        Ok(match e.kind() {
            K::IntImm { .. } | K::FloatImm { .. } => e.clone(),
            K::Var(v) => {
                let s = self.slot_map.get(&PrimExpr::from(v)).ok_or_else(|| {
                    Error::Internal(format!("VMShapeLower: no slot for `{}`", v.name()))
                })?;
                PrimExpr::load(heap.clone(), vec![PrimExpr::i64(self.slots[*s].index)])
            }
            K::Binary { op, a, b } => PrimExpr::binary(
                *op,
                self.to_heap_loads(a, heap)?,
                self.to_heap_loads(b, heap)?,
            ),
            K::Cast { dtype, value } => PrimExpr::cast(*dtype, self.to_heap_loads(value, heap)?),
            _ => {
                return Err(self.unsupported(format_args!(
                    "the shape expression `{e}` (only arithmetic is computed on the shape heap)"
                )));
            }
        })
    }
}

/// Whether `e` reads a variable that `subst` replaced (checked on the replacement's result:
/// the replacements are fresh variables, so a substituted expression mentions them).
fn reads_any(e: &Expr, subst: &crate::transform::Subst) -> bool {
    let replaced: Vec<&Expr> = subst.values().collect();
    let mut vars = Vec::new();
    crate::transform::kill_after_last_use_uses(e, &mut vars);
    vars.iter()
        .any(|v| replaced.iter().any(|r| r.as_var().is_some_and(|x| x == v)))
}

/// TVM's printing of a struct info inside an error context.
fn annotation(si: &StructInfo) -> String {
    annotation_in(si, false)
}

fn dim(e: &PrimExpr, in_tuple: bool) -> String {
    match e.as_int() {
        Some(v) if in_tuple => format!("T.int64({v})"),
        Some(v) => v.to_string(),
        None => prim_text(e),
    }
}

fn prim_text(e: &PrimExpr) -> String {
    use tir::ExprKind as K;
    match e.kind() {
        K::Var(v) => v.name().to_string(),
        K::IntImm { value, .. } => value.to_string(),
        K::Binary { op, a, b } => {
            let sym = match op {
                tir::BinaryOp::Add => "+",
                tir::BinaryOp::Sub => "-",
                tir::BinaryOp::Mul => "*",
                tir::BinaryOp::FloorDiv => "//",
                tir::BinaryOp::FloorMod => "%",
                _ => return format!("{e}"),
            };
            format!("{} {sym} {}", prim_text(a), prim_text(b))
        }
        _ => format!("{e}"),
    }
}

fn annotation_in(si: &StructInfo, in_tuple: bool) -> String {
    match si {
        StructInfo::Any => "R.Object".to_string(),
        StructInfo::Prim { dtype, .. } => format!("R.Prim(\"{dtype}\")"),
        StructInfo::Shape {
            values: Some(v), ..
        } => format!(
            "R.Shape([{}])",
            v.iter()
                .map(|d| dim(d, in_tuple))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        StructInfo::Shape { ndim, .. } => format!("R.Shape(ndim={ndim})"),
        StructInfo::Tensor {
            shape, dtype, ndim, ..
        } => {
            let dt = dtype.map(|d| d.to_string()).unwrap_or_default();
            match shape {
                Some(s) => {
                    let dims: Vec<String> = s.iter().map(|d| dim(d, in_tuple)).collect();
                    let dims = if dims.len() == 1 {
                        format!("({},)", dims[0])
                    } else {
                        format!("({})", dims.join(", "))
                    };
                    format!("R.Tensor({dims}, dtype=\"{dt}\")")
                }
                None => format!("R.Tensor(dtype=\"{dt}\", ndim={ndim})"),
            }
        }
        StructInfo::Tuple(items) => format!(
            "T.Tuple({})",
            items
                .iter()
                .map(|i| annotation_in(i, true))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        StructInfo::Func { .. } => "R.Callable".to_string(),
    }
}
