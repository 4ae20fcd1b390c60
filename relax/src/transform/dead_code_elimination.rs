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
use crate::ir::visit::Visitor;
use crate::ir::{
    BaseFunc, Binding, BindingBlock, Callee, Expr, ExprKind, Function, IRModule, If, SeqExpr, Var,
    VarId,
};

pub fn dead_code_elimination(module: &IRModule) -> Result<IRModule> {
    // Bindings first, so that a function only a dead binding called goes too.
    let mut module = module.clone();
    for f in module.functions.values_mut() {
        if let BaseFunc::Relax(func) = f {
            *func = remove_unread_bindings(func);
        }
    }
    let mut live: HashSet<String> = HashSet::new();
    let mut work: Vec<String> = module
        .functions
        .iter()
        .filter(|(_, f)| match f {
            BaseFunc::Relax(f) => !f.private,
            BaseFunc::Tir(f) => !f.private,
        })
        .map(|(n, _)| n.clone())
        .collect();
    while let Some(name) = work.pop() {
        if !live.insert(name.clone()) {
            continue;
        }
        if let Some(f) = module.relax_function(&name) {
            let mut refs = Vec::new();
            seq_refs(&f.body, &mut refs);
            work.extend(refs);
        }
    }
    module.functions.retain(|n, _| live.contains(n));
    Ok(module)
}

/// `f` without the dataflow bindings nothing reads, to a fixed point.
fn remove_unread_bindings(f: &Function) -> Function {
    let mut f = f.clone();
    loop {
        let mut reads = Reads::default();
        reads.visit_function(&f);
        let mut removed = false;
        f.body = prune_seq(&f.body, &reads.0, &mut removed);
        if !removed {
            return f;
        }
    }
}

/// The variables a function reads anywhere (nested functions and branches included).
#[derive(Default)]
struct Reads(HashSet<VarId>);

impl Visitor for Reads {
    fn visit_var_use(&mut self, v: &Var) {
        self.0.insert(v.id());
    }
}

fn prune_seq(s: &SeqExpr, reads: &HashSet<VarId>, removed: &mut bool) -> SeqExpr {
    let mut blocks = Vec::with_capacity(s.blocks.len());
    for block in &s.blocks {
        let mut bindings = Vec::with_capacity(block.bindings.len());
        for b in &block.bindings {
            if block.dataflow && matches!(b, Binding::Var { .. }) && !reads.contains(&b.var().id())
            {
                *removed = true;
                continue;
            }
            bindings.push(match b {
                Binding::Var { var, value } => Binding::Var {
                    var: var.clone(),
                    value: prune_expr(value, reads, removed),
                },
                other => other.clone(),
            });
        }
        if bindings.is_empty() && block.dataflow {
            continue;
        }
        blocks.push(BindingBlock {
            bindings,
            dataflow: block.dataflow,
        });
    }
    SeqExpr {
        blocks,
        body: prune_expr(&s.body, reads, removed),
    }
}

/// `e` with the sequences it holds (an `if`'s branches, a nested function's body) pruned.
fn prune_expr(e: &Expr, reads: &HashSet<VarId>, removed: &mut bool) -> Expr {
    match e.kind() {
        ExprKind::If(i) => Expr::new(ExprKind::If(If {
            cond: i.cond.clone(),
            then_branch: prune_seq(&i.then_branch, reads, removed),
            else_branch: prune_seq(&i.else_branch, reads, removed),
        })),
        ExprKind::Seq(s) => Expr::new(ExprKind::Seq(prune_seq(s, reads, removed))),
        ExprKind::Function(f) => {
            let mut f = (**f).clone();
            f.body = prune_seq(&f.body, reads, removed);
            Expr::new(ExprKind::Function(Box::new(f)))
        }
        _ => e.clone(),
    }
}

fn seq_refs(s: &SeqExpr, out: &mut Vec<String>) {
    for block in &s.blocks {
        for b in &block.bindings {
            refs(b.value(), out);
        }
    }
    refs(&s.body, out);
}

fn refs(e: &Expr, out: &mut Vec<String>) {
    match e.kind() {
        ExprKind::GlobalVar(g) => out.push(g.clone()),
        ExprKind::Tuple(items) => items.iter().for_each(|i| refs(i, out)),
        ExprKind::TupleGetItem(t, _) => refs(t, out),
        ExprKind::Call(c) => {
            match &c.callee {
                Callee::Global(g) => out.push(g.clone()),
                Callee::Expr(f) => refs(f, out),
                _ => {}
            }
            c.args.iter().for_each(|a| refs(a, out));
        }
        ExprKind::If(i) => {
            refs(&i.cond, out);
            seq_refs(&i.then_branch, out);
            seq_refs(&i.else_branch, out);
        }
        ExprKind::Seq(s) => seq_refs(s, out),
        ExprKind::Function(f) => seq_refs(&f.body, out),
        _ => {}
    }
}
