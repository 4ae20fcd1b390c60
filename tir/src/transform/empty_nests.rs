//! Loop nests that do nothing are not iterated.
//!
//! A loop whose body is only loops (`for i in range(n): for j in range(m): ...`) does nothing
//! when every inner nest is empty, whatever its own extent: an elementwise kernel on a tensor
//! of shape `(2**62, 0)` would otherwise count to 2^62 around an empty inner loop. The same
//! holds for a body that is only a condition false for every iteration (a scan's
//! `for j in range(m): if n > 0: ...` over a tensor of shape `(0, 2**62)`). TVM relies
//! on LLVM to see that; here [`nest_guard`] states the condition under which such a body may
//! do anything (`m > 0`), [`skip_empty_nests`] drops nests whose condition is statically false
//! and wraps the others in `if cond:` (one test per entry into the nest, nothing per
//! iteration), and the reference interpreter skips a loop whose guard is false at run time.
//!
//! Only extents that the guard can evaluate up front without changing what the program does
//! take part: no loads (the nest may write what they read), no variable of a loop between
//! the guarded loop and the inner one, and nothing that can fail (integer division or modulo
//! by anything but a nonzero constant, calls). A loop with any other extent counts as "may do
//! something".

use crate::arith;
use crate::ir::{BinaryOp, CmpOp, ExprKind, For, PrimExpr, Stmt, StmtKind, VarId};
use crate::transform::mutator::{self, Mutator};

/// Whether `e` can be evaluated before the nest that contains it: built from constants and
/// variables not in `inner` by total arithmetic.
fn hoistable(e: &PrimExpr, inner: &[VarId]) -> bool {
    match e.kind() {
        ExprKind::IntImm { .. } => true,
        ExprKind::Var(v) => !inner.contains(&v.id()),
        ExprKind::Binary { op, a, b } => {
            let total = match op {
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Min | BinaryOp::Max => {
                    true
                }
                BinaryOp::Div | BinaryOp::Mod | BinaryOp::FloorDiv | BinaryOp::FloorMod => {
                    b.as_int().is_some_and(|c| c != 0)
                }
            };
            total && hoistable(a, inner) && hoistable(b, inner)
        }
        ExprKind::Cast { dtype, value } => {
            dtype.is_int() && value.dtype().is_int() && hoistable(value, inner)
        }
        ExprKind::Cmp { a, b, .. } | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            (a.dtype().is_int() || a.dtype().is_bool())
                && hoistable(a, inner)
                && hoistable(b, inner)
        }
        ExprKind::Not(a) => hoistable(a, inner),
        _ => false,
    }
}

/// The condition under which `s`, the body of a loop whose variable (and those of the loops
/// around `s` inside the nest) is in `inner`, may do anything; `None` when it may always.
fn body_guard(s: &Stmt, inner: &mut Vec<VarId>) -> Option<PrimExpr> {
    match s.kind() {
        StmtKind::For(g) => {
            if !g.extent.dtype().is_int() || !hoistable(&g.extent, inner) {
                return None;
            }
            let zero = PrimExpr::int(g.extent.dtype(), 0);
            let runs = PrimExpr::cmp(CmpOp::Gt, g.extent.clone(), zero);
            inner.push(g.loop_var.id());
            let deeper = body_guard(&g.body, inner);
            inner.pop();
            Some(match deeper {
                Some(d) => PrimExpr::new(ExprKind::And(runs, d)),
                None => runs,
            })
        }
        StmtKind::Seq(v) => {
            let mut any: Option<PrimExpr> = None;
            for c in v {
                let g = body_guard(c, inner)?;
                any = Some(match any {
                    Some(a) => PrimExpr::new(ExprKind::Or(a, g)),
                    None => g,
                });
            }
            Some(any.unwrap_or_else(|| PrimExpr::bool(false)))
        }
        StmtKind::IfThenElse {
            cond,
            then_case,
            else_case: None,
        } if hoistable(cond, inner) => Some(match body_guard(then_case, inner) {
            Some(d) => PrimExpr::new(ExprKind::And(cond.clone(), d)),
            None => cond.clone(),
        }),
        StmtKind::Evaluate(e) if e.as_int().is_some() => Some(PrimExpr::bool(false)),
        _ => None,
    }
}

/// The condition under which the body of `f` may do anything, when `f`'s body is only loops
/// (see the module doc); `None` when it may always. The condition uses no variable of the nest
/// and evaluates without failing wherever `f` itself could be entered.
pub fn nest_guard(f: &For) -> Option<PrimExpr> {
    body_guard(&f.body, &mut vec![f.loop_var.id()])
}

/// Drops loop nests that statically do nothing and puts the others behind their
/// [`nest_guard`] (see the module doc). Loops inside a guarded nest's chain of loops get no
/// guard of their own: the outer one already covers them. Idempotent, so that loop transforms
/// that build new nests (the reduction interchange) can be followed by it again.
pub fn skip_empty_nests(s: &Stmt) -> Stmt {
    struct Skip;
    impl Mutator for Skip {
        fn stmt(&mut self, s: &Stmt) -> Stmt {
            // A nest this pass guarded already keeps its one guard.
            if let StmtKind::IfThenElse {
                cond,
                then_case,
                else_case: None,
            } = s.kind()
                && let StmtKind::For(f) = then_case.kind()
                && nest_guard(f).is_some_and(|g| arith::simplify(&g) == *cond)
            {
                return Stmt::new(StmtKind::IfThenElse {
                    cond: cond.clone(),
                    then_case: Stmt::new(StmtKind::For(For {
                        body: below_chain(self, &f.body),
                        ..f.clone()
                    })),
                    else_case: None,
                });
            }
            let StmtKind::For(f) = s.kind() else {
                return mutator::walk_stmt(self, s);
            };
            if f.extent.as_int().is_some_and(|e| e <= 0) {
                return Stmt::no_op();
            }
            let Some(guard) = nest_guard(f) else {
                return mutator::walk_stmt(self, s);
            };
            let guard = arith::simplify(&guard);
            match guard.as_int() {
                Some(0) => Stmt::no_op(),
                Some(_) => mutator::walk_stmt(self, s),
                None => Stmt::new(StmtKind::IfThenElse {
                    cond: guard,
                    then_case: Stmt::new(StmtKind::For(For {
                        body: below_chain(self, &f.body),
                        ..f.clone()
                    })),
                    else_case: None,
                }),
            }
        }
    }
    /// Rewrites the statements below the loops (and conditions) of a guarded chain.
    fn below_chain(m: &mut Skip, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::IfThenElse {
                cond,
                then_case,
                else_case: None,
            } => Stmt::new(StmtKind::IfThenElse {
                cond: cond.clone(),
                then_case: below_chain(m, then_case),
                else_case: None,
            }),
            StmtKind::For(g) if g.extent.as_int().is_some_and(|e| e <= 0) => Stmt::no_op(),
            StmtKind::For(g) => Stmt::new(StmtKind::For(For {
                body: below_chain(m, &g.body),
                ..g.clone()
            })),
            StmtKind::Seq(v) => {
                Stmt::new(StmtKind::Seq(v.iter().map(|c| below_chain(m, c)).collect()))
            }
            _ => mutator::walk_stmt(m, s),
        }
    }
    Skip.stmt(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::lower;

    fn lowered(shape: &str) -> Stmt {
        let src = format!(
            r#"
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def add(var_a: T.handle, var_b: T.handle):
        n = T.int64()
        m = T.int64()
        a = T.match_buffer(var_a, {shape})
        b = T.match_buffer(var_b, {shape})
        for i, j in T.grid{shape}:
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                b[vi, vj] = a[vi, vj] + T.float32(1.0)
"#
        );
        let funcs = crate::script::parse_module_prim_funcs(&src).unwrap();
        lower(&funcs[0]).unwrap().body
    }

    fn loops(s: &Stmt) -> usize {
        let mut n = 0;
        s.visit(&mut |s| n += matches!(s.kind(), StmtKind::For(_)) as usize);
        n
    }

    #[test]
    fn a_statically_empty_nest_is_dropped() {
        let body = lowered("(T.int64(4611686018427387904), T.int64(0))");
        assert_eq!(loops(&body), 0, "{body:?}");
        let body = lowered("(T.int64(3), T.int64(2))");
        assert_eq!(loops(&body), 2, "{body:?}");
        assert!(!matches!(body.kind(), StmtKind::IfThenElse { .. }));
    }

    #[test]
    fn a_symbolic_nest_is_guarded_once() {
        let body = lowered("(n, m)");
        let StmtKind::IfThenElse {
            cond, then_case, ..
        } = body.kind()
        else {
            panic!("not guarded: {body:?}");
        };
        assert_eq!(cond.to_string(), "m > T.int64(0)");
        assert_eq!(loops(then_case), 2);
        let again = skip_empty_nests(&body);
        let mut ifs = 0;
        again.visit(&mut |s| ifs += matches!(s.kind(), StmtKind::IfThenElse { .. }) as usize);
        assert_eq!(ifs, 1, "{again:?}");
    }
}
