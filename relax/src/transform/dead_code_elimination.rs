//! DeadCodeElimination: removes the private functions that no public function reaches
//! (through calls, `cls.f` values or `call_tir` callees). Public functions are the entry
//! points and are kept; bindings are left alone (the corpus input is already free of dead
//! bindings, and VMCodeGen's output must keep TVM's).

use std::collections::HashSet;

use crate::Result;
use crate::ir::{BaseFunc, Callee, Expr, ExprKind, IRModule, SeqExpr};

pub fn dead_code_elimination(module: &IRModule) -> Result<IRModule> {
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
    let mut out = module.clone();
    out.functions.retain(|n, _| live.contains(n));
    Ok(out)
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
