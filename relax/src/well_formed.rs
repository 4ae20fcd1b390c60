//! The well-formedness checker for Relax functions in a module (TVM's `WellFormed`).
//!
//! Invariants checked, per Relax function:
//! * every variable is defined before use (parameters, earlier bindings, enclosing scopes
//!   of inner functions), and defined once;
//! * dataflow variables are defined only inside dataflow blocks and used only inside the block
//!   that defines them (never in a later block or in the function's result);
//! * the struct info of each binding is consistent with the struct info inferred for its value
//!   (an annotation may be more specific about symbolic dimensions, never contradictory), and
//!   the value's struct info can be inferred at all;
//! * the function's result is consistent with its declared return struct info;
//! * calls and references to global functions name functions of the module;
//! * symbolic shape variables are defined (by a parameter's struct info or an earlier
//!   `R.match_cast`) before a binding's annotation uses them.

use std::collections::HashSet;

use crate::Result;
use crate::error::Error;
use crate::ir::{
    Binding, BindingBlock, Callee, Expr, ExprKind, Function, IRModule, SeqExpr, StructInfo, VarId,
};
use crate::normalize::Normalizer;
use crate::struct_info_ops::{Compatibility, compatibility, describe, visit_symbolic_vars};

/// Checks `module`; the first violation is the error.
pub fn check(module: &IRModule) -> Result<()> {
    match diagnostics(module).into_iter().next() {
        Some(msg) => Err(Error::WellFormed(msg)),
        None => Ok(()),
    }
}

/// Every violation in `module`, each message naming the function and the variable.
pub fn diagnostics(module: &IRModule) -> Vec<String> {
    let mut c = Checker {
        module,
        normalizer: Normalizer::new(module),
        errors: Vec::new(),
        func: String::new(),
        defined: Vec::new(),
        ever: HashSet::new(),
        dataflow_scope: None,
        sym: HashSet::new(),
    };
    for (name, f) in module.relax_functions() {
        c.func = name.clone();
        c.defined.clear();
        c.ever.clear();
        c.sym.clear();
        c.function(f);
    }
    c.errors
}

struct Checker<'m> {
    module: &'m IRModule,
    normalizer: Normalizer,
    errors: Vec<String>,
    func: String,
    /// Variables in scope (a stack: scopes truncate it when they end).
    defined: Vec<VarId>,
    /// Every variable defined anywhere in the function, for "defined twice".
    ever: HashSet<VarId>,
    /// The position in `defined` where the open dataflow block starts.
    dataflow_scope: Option<usize>,
    /// Defined symbolic variables.
    sym: HashSet<tir::VarId>,
}

impl Checker<'_> {
    fn error(&mut self, msg: String) {
        self.errors.push(format!("in `{}`: {msg}", self.func));
    }

    fn define(&mut self, v: &crate::ir::Var) {
        if !self.ever.insert(v.id()) {
            self.error(format!("variable `{}` is defined more than once", v.name()));
        }
        self.defined.push(v.id());
    }

    fn define_symbolic(&mut self, si: &StructInfo) {
        visit_symbolic_vars(si, &mut |v| {
            self.sym.insert(v.id());
        });
    }

    fn check_symbolic(&mut self, si: &StructInfo, what: &str) {
        let mut missing = Vec::new();
        visit_symbolic_vars(si, &mut |v| {
            if !self.sym.contains(&v.id()) && !missing.contains(&v.name().to_string()) {
                missing.push(v.name().to_string());
            }
        });
        for m in missing {
            self.error(format!(
                "symbolic variable `{m}` in the struct info of {what} is not defined by a parameter or an earlier R.match_cast"
            ));
        }
    }

    fn function(&mut self, f: &Function) {
        let saved_df = self.dataflow_scope.take();
        let mark = self.defined.len();
        for p in &f.params {
            if p.is_dataflow() {
                self.error(format!("parameter `{}` is a dataflow variable", p.name()));
            }
            self.define(p);
            self.define_symbolic(p.struct_info());
        }
        self.seq(&f.body);
        // The declared return struct info against the body's.
        match self.normalizer.infer(&f.body.body) {
            Ok(si) => {
                if compatibility(&f.ret_struct_info, &si) == Compatibility::No {
                    self.error(format!(
                        "the result has {} but the function is declared to return {}",
                        describe(&si),
                        describe(&f.ret_struct_info)
                    ));
                }
            }
            Err(e) => self.error(format!("the result: {e}")),
        }
        self.defined.truncate(mark);
        self.dataflow_scope = saved_df;
    }

    fn seq(&mut self, s: &SeqExpr) {
        let mark = self.defined.len();
        for b in &s.blocks {
            self.block(b);
        }
        self.expr(&s.body);
        self.defined.truncate(mark);
    }

    fn block(&mut self, b: &BindingBlock) {
        let start = self.defined.len();
        if b.dataflow {
            self.dataflow_scope = Some(start);
        }
        for binding in &b.bindings {
            let var = binding.var();
            self.expr(binding.value());
            if var.is_dataflow() && !b.dataflow {
                self.error(format!(
                    "dataflow variable `{}` is defined outside a dataflow block",
                    var.name()
                ));
            }
            let what = format!("`{}`", var.name());
            match binding {
                Binding::Var { var, value } => {
                    match self.normalizer.infer(value) {
                        Ok(si) => {
                            if compatibility(var.struct_info(), &si) == Compatibility::No {
                                self.error(format!(
                                    "`{}` is annotated {} but its value has {}",
                                    var.name(),
                                    describe(var.struct_info()),
                                    describe(&si)
                                ));
                            }
                        }
                        Err(e) => self.error(format!("the value of `{}`: {e}", var.name())),
                    }
                    if !matches!(value.kind(), ExprKind::Function(_)) {
                        self.check_symbolic(var.struct_info(), &what);
                    }
                }
                Binding::MatchCast {
                    struct_info, value, ..
                } => {
                    if let Err(e) = self.normalizer.infer(value) {
                        self.error(format!("the value of `{}`: {e}", var.name()));
                    }
                    self.define_symbolic(struct_info);
                }
            }
            self.define(var);
        }
        if b.dataflow {
            // Dataflow variables go out of scope with their block; outputs stay.
            let keep: Vec<VarId> = self.defined[start..].to_vec();
            self.defined.truncate(start);
            for b2 in &b.bindings {
                let v = b2.var();
                if !v.is_dataflow() && keep.contains(&v.id()) {
                    self.defined.push(v.id());
                }
            }
            self.dataflow_scope = None;
        }
    }

    fn use_var(&mut self, v: &crate::ir::Var) {
        if self.defined.contains(&v.id()) {
            return;
        }
        if v.is_dataflow() && self.ever.contains(&v.id()) {
            self.error(format!(
                "dataflow variable `{}` is used outside the dataflow block that defines it",
                v.name()
            ));
        } else {
            self.error(format!("variable `{}` is used but not defined", v.name()));
        }
    }

    fn global(&mut self, name: &str) {
        if self.module.get(name).is_none() {
            self.error(format!("reference to undefined global function `{name}`"));
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e.kind() {
            ExprKind::Var(v) => self.use_var(v),
            ExprKind::Constant(_)
            | ExprKind::ShapeExpr(_)
            | ExprKind::PrimValue(_)
            | ExprKind::StringImm(_)
            | ExprKind::DataTypeImm(_)
            | ExprKind::ExternFunc(_) => {}
            ExprKind::GlobalVar(name) => self.global(name),
            ExprKind::Tuple(fields) => fields.iter().for_each(|f| self.expr(f)),
            ExprKind::TupleGetItem(t, _) => self.expr(t),
            ExprKind::Call(c) => {
                match &c.callee {
                    Callee::Global(name) => self.global(name),
                    Callee::Expr(x) => self.expr(x),
                    Callee::Op(name) => {
                        if crate::op::lookup(name).is_none() {
                            self.error(format!("call of unknown operator `{name}`"));
                        }
                    }
                    Callee::Extern(_) => {}
                }
                c.args.iter().for_each(|a| self.expr(a));
            }
            ExprKind::If(ife) => {
                self.expr(&ife.cond);
                let df = self.dataflow_scope.take();
                self.seq(&ife.then_branch);
                self.seq(&ife.else_branch);
                self.dataflow_scope = df;
            }
            ExprKind::Seq(s) => self.seq(s),
            ExprKind::Function(f) => {
                let saved_sym = self.sym.clone();
                self.function(f);
                self.sym = saved_sym;
            }
        }
    }
}
