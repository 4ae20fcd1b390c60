//! RemovePurityChecking: marks every pure function `relax.force_pure` and unwraps the
//! purity-asserting forms, `R.call_pure_packed(f, args)` into `R.call_packed(f, args)` and
//! `R.invoke_pure_closure` into `R.invoke_closure`; after it no call needs to be checked for
//! purity.

use crate::Result;
use crate::ir::{AttrValue, Binding, Call, Callee, Expr, ExprKind, ExternFunc, IRModule};
use crate::transform::{Subst, map_functions, rewrite_seq};

pub fn remove_purity_checking(module: &IRModule) -> Result<IRModule> {
    map_functions(module, |name, f| {
        let body = rewrite_seq(&f.body, &Subst::new(), name, &mut |b, em| {
            let b = match b {
                Binding::Var { var, value } => Binding::Var {
                    var,
                    value: unwrap(&value),
                },
                // `R.match_cast(R.call_pure_packed(...), ...)`: the value is a call too (the
                // frontends name the data-dependent shape of `R.nonzero` so).
                Binding::MatchCast {
                    var,
                    value,
                    struct_info,
                } => Binding::MatchCast {
                    var,
                    value: unwrap(&value),
                    struct_info,
                },
            };
            em.push(b);
            Ok(())
        })?;
        let mut f = f.clone();
        f.body = body;
        if f.is_pure {
            f.attrs.set("relax.force_pure", AttrValue::Bool(true));
        }
        Ok(f)
    })
}

fn unwrap(value: &Expr) -> Expr {
    let Some(call) = value.as_call() else {
        return value.clone();
    };
    match call.op() {
        Some("relax.call_pure_packed") => match call.args.first().map(|a| a.kind()) {
            Some(ExprKind::ExternFunc(ExternFunc {
                global_symbol: name,
                ..
            }))
            | Some(ExprKind::StringImm(name)) => Expr::new(ExprKind::Call(Call {
                callee: Callee::Extern(name.clone()),
                args: call.args[1..].to_vec(),
                attrs: call.attrs.clone(),
                ty_args: call.ty_args.clone(),
            })),
            _ => value.clone(),
        },
        Some("relax.invoke_pure_closure") => Expr::new(ExprKind::Call(Call {
            callee: Callee::Op("relax.invoke_closure".into()),
            ..call.clone()
        })),
        _ => value.clone(),
    }
}
