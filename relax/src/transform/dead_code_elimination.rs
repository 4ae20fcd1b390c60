//! DeadCodeElimination, as TVM's: removes the private functions that no public function
//! reaches (through calls, `cls.f` values or `call_tir` callees) — public functions are the
//! entry points and are kept — and, in every function, the bindings of dataflow blocks whose
//! variables nothing reads. Dataflow bindings are pure, so an unread one computes nothing
//! anyone sees (a dead `R.matmul` a user left in cost its time at every call before);
//! removing one can leave others unread, so this repeats until none goes. `R.match_cast`
//! bindings stay (their check can fail at run time), and so does everything outside dataflow
//! blocks, where calls may have effects.

use std::collections::HashSet;

use crate::Result;
use crate::ir::visit::{Visitor, walk_expr};
use crate::ir::{BaseFunc, Binding, Callee, Expr, ExprKind, Function, IRModule, SeqExpr, VarId};
use crate::transform::{Subst, rewrite_seq};

pub fn dead_code_elimination(module: &IRModule) -> Result<IRModule> {
    // Bindings first, so that a function only a dead binding called goes too.
    let mut module = module.clone();
    for (name, f) in module.functions.iter_mut() {
        if let BaseFunc::Relax(func) = f {
            *func = remove_unread_bindings(func, name)?;
        }
    }
    let mut live: HashSet<String> = HashSet::new();
    let mut work: Vec<String> = module
        .functions
        .iter()
        .filter(|(_, f)| match f {
            BaseFunc::Relax(f) => !f.private,
            BaseFunc::Tir(f) => !f.private,
            // Kept while a live function calls it.
            BaseFunc::Extern(_) => false,
        })
        .map(|(n, _)| n.clone())
        .collect();
    while let Some(name) = work.pop() {
        if !live.insert(name.clone()) {
            continue;
        }
        if let Some(f) = module.relax_function(&name) {
            let mut refs = GlobalRefs::default();
            refs.visit_function(f);
            work.extend(refs.0);
        }
    }
    module.functions.retain(|n, _| live.contains(n));
    Ok(module)
}

/// `f` without the dataflow bindings nothing reads, to a fixed point.
fn remove_unread_bindings(f: &Function, name: &str) -> Result<Function> {
    let mut f = f.clone();
    loop {
        let mut reads = Reads::default();
        reads.visit_function(&f);
        let mut removed = false;
        f.body = prune(&f.body, &reads.0, name, &mut removed)?;
        if !removed {
            return Ok(f);
        }
    }
}

/// The variables a function reads anywhere (nested functions and branches included).
#[derive(Default)]
struct Reads(HashSet<VarId>);

impl Visitor for Reads {
    fn visit_var_use(&mut self, v: &crate::ir::Var) {
        self.0.insert(v.id());
    }
}

/// The functions of the module that an expression names: global variables, global callees
/// (calls and `call_tir` callees, which are global variables among the arguments).
#[derive(Default)]
struct GlobalRefs(Vec<String>);

impl Visitor for GlobalRefs {
    fn visit_expr(&mut self, e: &Expr) {
        match e.kind() {
            ExprKind::GlobalVar(g) => self.0.push(g.clone()),
            ExprKind::Call(c) => {
                if let Callee::Global(g) = &c.callee {
                    self.0.push(g.clone());
                }
            }
            _ => {}
        }
        walk_expr(self, e);
    }
}

/// `s` without its unread dataflow bindings (in `if` branches and nested functions too),
/// setting `removed` if one went.
fn prune(s: &SeqExpr, reads: &HashSet<VarId>, func: &str, removed: &mut bool) -> Result<SeqExpr> {
    rewrite_seq(s, &Subst::new(), func, &mut |b, em| {
        if em.dataflow && matches!(b, Binding::Var { .. }) && !reads.contains(&b.var().id()) {
            *removed = true;
            return Ok(());
        }
        if let Binding::Var { var, value } = &b
            && let ExprKind::Function(inner) = value.kind()
        {
            let mut inner = (**inner).clone();
            inner.body = prune(&inner.body, reads, func, removed)?;
            em.push(Binding::Var {
                var: var.clone(),
                value: Expr::new(ExprKind::Function(Box::new(inner))),
            });
            return Ok(());
        }
        em.push(b);
        Ok(())
    })
}
