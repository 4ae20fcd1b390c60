//! LambdaLift: lifts local functions (`@R.function` bound inside another function) to private
//! module functions named `<outer>_<binding>` like TVM's (`main_inner`).
//!
//! A local function that uses variables of the enclosing function (a closure) takes them as
//! *trailing* parameters (the VM calls closures as `[args..., captured...]`); its binding
//! becomes `R.make_closure(cls.lifted, (captured,))` of struct info `R.Any`, and its calls
//! `R.invoke_pure_closure(f, (args,), ty_args=(ret,))` (`R.invoke_closure` when impure). A
//! local function that captures nothing is replaced by the global function itself and its
//! calls become direct calls. Inner functions are lifted before the functions that hold them.
//!
//! Invariants: after the pass no function literal remains; the lifted function's body is the
//! local function's with each captured variable replaced by its new parameter. A local
//! function that refers to itself (a loop, recursion through its own binding) refers to its
//! lifted global: directly when it captures nothing, else through a closure over its captured
//! parameters made at the start of its body.

use std::collections::{HashMap, HashSet};

use crate::Result;
use crate::ir::visit::Visitor;
use crate::ir::{
    Attrs, BaseFunc, Binding, BindingBlock, Callee, Expr, ExprKind, Function, IRModule, If,
    SeqExpr, StructInfo, Var, VarId,
};
use crate::transform::{Subst, op_call, substitute};

pub fn lambda_lift(module: &IRModule) -> Result<IRModule> {
    let mut out = module.clone();
    let funcs: Vec<(String, Function)> = module
        .relax_functions()
        .map(|(n, f)| (n.clone(), f.clone()))
        .collect();
    for (name, f) in funcs {
        let mut lifter = Lifter {
            module: &mut out,
            outer: name.clone(),
            closures: HashMap::new(),
        };
        let body = lifter.seq(&f.body)?;
        out.functions
            .insert(name, BaseFunc::Relax(Function { body, ..f }));
    }
    Ok(out)
}

struct Lifter<'m> {
    module: &'m mut IRModule,
    outer: String,
    /// Variables bound to closures: their lifted function's return struct info and purity.
    closures: HashMap<VarId, (StructInfo, bool)>,
}

impl Lifter<'_> {
    fn seq(&mut self, s: &SeqExpr) -> Result<SeqExpr> {
        let mut subst = Subst::new();
        let mut blocks = Vec::new();
        for block in &s.blocks {
            let mut out = Vec::new();
            for b in &block.bindings {
                let b = crate::transform::substitute_binding(b, &subst);
                match b {
                    Binding::Var { var, value } => match value.kind() {
                        ExprKind::Function(inner) => {
                            let (name, captured) = self.lift(inner, &var)?;
                            if captured.is_empty() {
                                subst.insert(var.id(), Expr::new(ExprKind::GlobalVar(name)));
                            } else {
                                let nv = if var.is_dataflow() {
                                    Var::dataflow(var.name(), StructInfo::Any)
                                } else {
                                    Var::new(var.name(), StructInfo::Any)
                                };
                                self.closures.insert(
                                    nv.id(),
                                    (inner.ret_struct_info.clone(), inner.is_pure),
                                );
                                let clo = op_call(
                                    "relax.make_closure",
                                    vec![
                                        Expr::new(ExprKind::GlobalVar(name)),
                                        Expr::tuple(captured.iter().map(Expr::var).collect()),
                                    ],
                                    Vec::new(),
                                );
                                subst.insert(var.id(), Expr::var(&nv));
                                out.push(Binding::Var {
                                    var: nv,
                                    value: clo,
                                });
                            }
                        }
                        _ => {
                            let value = self.expr(&value)?;
                            out.push(Binding::Var { var, value });
                        }
                    },
                    Binding::MatchCast {
                        var,
                        value,
                        struct_info,
                    } => out.push(Binding::MatchCast {
                        var,
                        value: self.expr(&value)?,
                        struct_info,
                    }),
                }
            }
            blocks.push(BindingBlock {
                bindings: out,
                dataflow: block.dataflow,
            });
        }
        let body = self.expr(&substitute(&s.body, &subst))?;
        Ok(SeqExpr { blocks, body })
    }

    /// Rewrites calls of lifted functions and closures in `e`.
    fn expr(&mut self, e: &Expr) -> Result<Expr> {
        Ok(match e.kind() {
            ExprKind::Call(c) => match &c.callee {
                Callee::Expr(f) => match f.kind() {
                    ExprKind::GlobalVar(g) => Expr::call(
                        Callee::Global(g.clone()),
                        c.args.clone(),
                        c.attrs.clone(),
                        c.ty_args.clone(),
                    ),
                    ExprKind::Var(v) if self.closures.contains_key(&v.id()) => {
                        let (ret, pure) = self.closures[&v.id()].clone();
                        let op = if pure {
                            "relax.invoke_pure_closure"
                        } else {
                            "relax.invoke_closure"
                        };
                        Expr::call(
                            Callee::Op(op.to_string()),
                            vec![f.clone(), Expr::tuple(c.args.clone())],
                            Attrs::new(),
                            vec![ret],
                        )
                    }
                    _ => e.clone(),
                },
                _ => e.clone(),
            },
            ExprKind::If(i) => Expr::new(ExprKind::If(If {
                cond: i.cond.clone(),
                then_branch: self.seq(&i.then_branch)?,
                else_branch: self.seq(&i.else_branch)?,
            })),
            ExprKind::Seq(s) => Expr::new(ExprKind::Seq(self.seq(s)?)),
            _ => e.clone(),
        })
    }

    /// Lifts `inner` (bound to `var`); returns the new global's name and the captured
    /// variables, in order of first use.
    fn lift(&mut self, inner: &Function, var: &Var) -> Result<(String, Vec<Var>)> {
        let mut free = free_vars(inner);
        let outer_name = format!("{}_{}", self.outer, var.name());
        let mut name = outer_name.clone();
        let mut k = 1;
        while self.module.functions.contains_key(&name) {
            name = format!("{outer_name}{k}");
            k += 1;
        }
        // A function that refers to itself (a loop) refers to the lifted global instead: the
        // global itself when nothing is captured, else a closure over what it captured, made
        // at its start.
        let recursive = free.iter().any(|v| v == var);
        free.retain(|v| v != var);
        let mut sub = Lifter {
            module: self.module,
            outer: outer_name.clone(),
            closures: HashMap::new(),
        };
        let mut own_body = inner.body.clone();
        if recursive {
            // The name is taken before the functions inside are lifted, which take names too.
            sub.module.add(name.clone(), BaseFunc::Relax(inner.clone()));
            let mut own = Subst::new();
            if free.is_empty() {
                own.insert(var.id(), Expr::new(ExprKind::GlobalVar(name.clone())));
            } else {
                let closure = Var::new(var.name(), StructInfo::Any);
                sub.closures
                    .insert(closure.id(), (inner.ret_struct_info.clone(), inner.is_pure));
                own.insert(var.id(), Expr::var(&closure));
                own_body.blocks.insert(
                    0,
                    BindingBlock {
                        bindings: vec![Binding::Var {
                            var: closure,
                            value: op_call(
                                "relax.make_closure",
                                vec![
                                    Expr::new(ExprKind::GlobalVar(name.clone())),
                                    Expr::tuple(free.iter().map(Expr::var).collect()),
                                ],
                                Vec::new(),
                            ),
                        }],
                        dataflow: false,
                    },
                );
            }
            own_body = crate::transform::substitute_seq(&own_body, &own);
        }
        // Lift what the inner function holds first, under its own name.
        let body = sub.seq(&own_body)?;
        let mut subst = Subst::new();
        let mut params = inner.params.clone();
        for v in &free {
            let p = Var::new(v.name(), v.struct_info().clone());
            subst.insert(v.id(), Expr::var(&p));
            params.push(p);
        }
        let body = crate::transform::substitute_seq(&body, &subst);
        self.module.add(
            name.clone(),
            BaseFunc::Relax(Function {
                name: name.clone(),
                params,
                body,
                ret_struct_info: inner.ret_struct_info.clone(),
                is_pure: inner.is_pure,
                private: true,
                attrs: inner.attrs.clone(),
            }),
        );
        Ok((name, free))
    }
}

/// The variables `f` reads without binding them (its parameters, its bindings' variables and
/// those of functions inside it are bound), in order of first use.
fn free_vars(f: &Function) -> Vec<Var> {
    struct Free {
        bound: HashSet<VarId>,
        free: Vec<Var>,
    }
    impl Visitor for Free {
        fn visit_var_def(&mut self, v: &Var) {
            self.bound.insert(v.id());
        }
        fn visit_var_use(&mut self, v: &Var) {
            if !self.bound.contains(&v.id()) && !self.free.contains(v) {
                self.free.push(v.clone());
            }
        }
    }
    let mut walker = Free {
        bound: HashSet::new(),
        free: Vec::new(),
    };
    walker.visit_function(f);
    walker.free
}
