//! LambdaLift: in TVM, lifts local functions and closures to module functions (captured
//! variables become trailing parameters, closures `R.make_closure`). Lifting is not
//! implemented yet: a module without local functions passes unchanged, and one with a local
//! function is rejected here with the function and binding that hold it, rather than failing
//! later.

use crate::ir::{Binding, ExprKind, IRModule, SeqExpr};
use crate::{Error, Result};

pub fn lambda_lift(module: &IRModule) -> Result<IRModule> {
    for (name, f) in module.relax_functions() {
        check(&f.body, name)?;
    }
    Ok(module.clone())
}

fn check(s: &SeqExpr, func: &str) -> Result<()> {
    for block in &s.blocks {
        for b in &block.bindings {
            let Binding::Var { var, value } = b else {
                continue;
            };
            match value.kind() {
                ExprKind::Function(inner) => {
                    return Err(Error::Unsupported(format!(
                        "lifting the local function `{}` in function `{func}`, binding `{}`",
                        inner.name,
                        var.name()
                    )));
                }
                ExprKind::If(i) => {
                    check(&i.then_branch, func)?;
                    check(&i.else_branch, func)?;
                }
                _ => {}
            }
        }
    }
    Ok(())
}
