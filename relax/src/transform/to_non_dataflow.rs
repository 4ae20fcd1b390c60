//! ToNonDataflow: turns every dataflow block into an ordinary block and every dataflow variable
//! into an ordinary variable (same name and struct info), so that later passes may move
//! bindings across block boundaries. Semantics are unchanged.

use crate::Result;
use crate::ir::{Binding, Expr, IRModule, Var};
use crate::transform::{Subst, map_functions, rewrite_seq};

pub fn to_non_dataflow(module: &IRModule) -> Result<IRModule> {
    map_functions(module, |name, f| {
        let mut body = rewrite_seq(&f.body, &Subst::new(), name, &mut |b, em| {
            let var = b.var();
            let b = if var.is_dataflow() {
                let new = Var::new(var.name(), var.struct_info().clone());
                em.replace(var, Expr::var(&new));
                match b {
                    Binding::Var { value, .. } => Binding::Var { var: new, value },
                    Binding::MatchCast {
                        value, struct_info, ..
                    } => Binding::MatchCast {
                        var: new,
                        value,
                        struct_info,
                    },
                }
            } else {
                b
            };
            em.push(b);
            Ok(())
        })?;
        for block in &mut body.blocks {
            block.dataflow = false;
        }
        let mut f = f.clone();
        f.body = body;
        Ok(f)
    })
}
