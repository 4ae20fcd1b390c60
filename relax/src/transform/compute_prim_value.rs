//! ComputePrimValue: replaces `R.prim_value(expr)` whose value is a symbolic expression of a
//! dtype other than `int64` (a `bool` condition over shape variables, an `int32` or float
//! expression) with a call of a generated PrimFunc `compute_symbolic_expr` that takes the
//! expression's free variables as scalar parameters and returns the value with `T.ret`, as
//! TVM's pass of the same name does.
//!
//! Deviations from TVM, on purpose: `int64` expressions stay, because VMShapeLower computes
//! them on the shape heap without a kernel call (TVM would generate a function for them too);
//! constants (`IntImm`, `FloatImm`) and plain variables stay, as constants need no computation.
//!
//! Invariants: a generated function is private, has fresh parameters and one `T.ret`;
//! structurally equal functions are shared; the call's struct info is the prim value's.

use std::collections::HashMap;

use tir::transform::mutator::substitute;
use tir::{ExprKind as TExpr, PrimExpr, PrimFunc, Stmt, StmtKind};

use crate::Result;
use crate::ir::{Attrs, BaseFunc, Binding, Callee, Expr, ExprKind, IRModule, If, SeqExpr};
use crate::transform::{Emitter, rewrite_seq};

pub fn compute_prim_value(module: &IRModule) -> Result<IRModule> {
    let mut out = module.clone();
    let funcs: Vec<(String, crate::ir::Function)> = module
        .relax_functions()
        .map(|(n, f)| (n.clone(), f.clone()))
        .collect();
    for (name, f) in funcs {
        let mut added: Vec<(String, PrimFunc)> = Vec::new();
        let body = rewrite_seq(
            &f.body,
            &Default::default(),
            &name,
            &mut |b: Binding, em: &mut Emitter| {
                let b = match b {
                    Binding::Var { var, value } => Binding::Var {
                        value: rewrite(&value, &mut out, &mut added),
                        var,
                    },
                    Binding::MatchCast {
                        var,
                        value,
                        struct_info,
                    } => Binding::MatchCast {
                        value: rewrite(&value, &mut out, &mut added),
                        var,
                        struct_info,
                    },
                };
                em.push(b);
                Ok(())
            },
        )?;
        let body = SeqExpr {
            body: rewrite(&body.body, &mut out, &mut added),
            ..body
        };
        out.functions.insert(
            name,
            BaseFunc::Relax(crate::ir::Function { body, ..f.clone() }),
        );
    }
    Ok(out)
}

fn needs_function(p: &PrimExpr) -> bool {
    !matches!(
        p.kind(),
        TExpr::IntImm { .. } | TExpr::FloatImm { .. } | TExpr::Var(_)
    ) && p.dtype() != tir::DataType::INT64
}

/// `e` with its computed prim values (also inside tuples and call arguments) replaced.
fn rewrite(e: &Expr, module: &mut IRModule, added: &mut Vec<(String, PrimFunc)>) -> Expr {
    match e.kind() {
        ExprKind::PrimValue(p) if needs_function(p) => call_for(p, module, added),
        ExprKind::Tuple(items) => {
            Expr::tuple(items.iter().map(|i| rewrite(i, module, added)).collect())
        }
        ExprKind::Call(c) => Expr::call(
            c.callee.clone(),
            c.args.iter().map(|a| rewrite(a, module, added)).collect(),
            c.attrs.clone(),
            c.ty_args.clone(),
        ),
        ExprKind::If(i) => Expr::new(ExprKind::If(If {
            cond: rewrite(&i.cond, module, added),
            then_branch: i.then_branch.clone(),
            else_branch: i.else_branch.clone(),
        })),
        _ => e.clone(),
    }
}

fn call_for(p: &PrimExpr, module: &mut IRModule, added: &mut Vec<(String, PrimFunc)>) -> Expr {
    let mut free: Vec<tir::Var> = Vec::new();
    p.visit(&mut |x| {
        if let TExpr::Var(v) = x.kind()
            && !free.contains(v)
        {
            free.push(v.clone());
        }
    });
    let params: Vec<tir::Var> = free.iter().map(tir::Var::fresh_copy).collect();
    let map: HashMap<tir::VarId, PrimExpr> = free
        .iter()
        .zip(&params)
        .map(|(o, n)| (o.id(), PrimExpr::from(n)))
        .collect();
    let value = substitute(p, &map);
    let body = Stmt::new(StmtKind::Evaluate(PrimExpr::call(
        value.dtype(),
        "ret",
        vec![value],
    )));
    let func = PrimFunc {
        name: "compute_symbolic_expr".to_string(),
        params,
        buffer_map: Vec::new(),
        body,
        attrs: Default::default(),
        private: true,
        s_tir: false,
    };
    let name = match added.iter().find(|(_, f)| tir::structural_equal(f, &func)) {
        Some((n, _)) => n.clone(),
        None => {
            let mut name = func.name.clone();
            let mut k = 1;
            while module.functions.contains_key(&name) {
                name = format!("compute_symbolic_expr{k}");
                k += 1;
            }
            let func = PrimFunc {
                name: name.clone(),
                ..func
            };
            module.add(name.clone(), BaseFunc::Tir(func.clone()));
            added.push((name.clone(), func));
            name
        }
    };
    Expr::call(
        Callee::Global(name),
        free.into_iter()
            .map(|v| Expr::prim(PrimExpr::from(v)))
            .collect(),
        Attrs::new(),
        Vec::new(),
    )
}
