//! KillAfterLastUse: drops each value right after its last use, so that the VM frees tensors
//! and storage as early as possible. After the binding that uses a variable last, it emits
//! `R.memory.kill_tensor` for tensors, then `R.memory.kill_storage` for storage (values of
//! `R.memory.alloc_storage`), then `R.vm.kill_object` for other objects, each group in binding
//! order (TVM's order).
//!
//! Bindings are canonicalized first (`CanonicalizeBindings`, as TVM's pass does).
//!
//! Never killed: parameters, prim values, variables bound to constants (they name an entry of
//! the constant pool, not a register), the result of a function or of an `If` branch, and
//! variables an `If` reads from an enclosing scope (its condition included), whose last use
//! depends on the branch taken.

use std::collections::{HashMap, HashSet};

use crate::Result;
use crate::ir::visit::Visitor;
use crate::ir::{
    Binding, BindingBlock, Expr, ExprKind, Function, IRModule, SeqExpr, StructInfo, Var, VarId,
};
use crate::transform::{map_functions, op_call};

pub fn kill_after_last_use(module: &IRModule) -> Result<IRModule> {
    // As TVM's pass does, canonicalize first: a field read of a tuple built here is the field
    // itself, so that field's last use is where the read was used.
    let module = crate::transform::canonicalize_bindings(module)?;
    map_functions(&module, |_, f| {
        let mut c = Collect::default();
        c.seq(&f.body);
        let mut kills: HashMap<usize, Vec<Var>> = HashMap::new();
        for (v, (pos, var)) in &c.last_use {
            if c.never.contains(v) || !c.bound.contains(v) {
                continue;
            }
            // As in TVM, only what lives in a VM register is killed: never a shape, a prim value
            // or a function (the VM keeps those elsewhere, or they are cheap to hold).
            if matches!(
                var.struct_info(),
                StructInfo::Prim { .. } | StructInfo::Shape { .. } | StructInfo::Func { .. }
            ) || var.struct_info().is_void()
            {
                continue;
            }
            kills.entry(*pos).or_default().push(var.clone());
        }
        for list in kills.values_mut() {
            list.sort_by_key(|v| {
                let group = if c.storage.contains(&v.id()) {
                    1
                } else if matches!(v.struct_info(), StructInfo::Tensor { .. }) {
                    0
                } else {
                    2
                };
                (group, c.order.get(&v.id()).copied().unwrap_or(usize::MAX))
            });
        }
        let mut counter = 0;
        let body = rewrite(&f.body, &kills, &mut counter);
        Ok(Function { body, ..f.clone() })
    })
}

#[derive(Default)]
struct Collect {
    counter: usize,
    /// Variable → (index of the binding that uses it last, the variable).
    last_use: HashMap<VarId, (usize, Var)>,
    never: HashSet<VarId>,
    bound: HashSet<VarId>,
    storage: HashSet<VarId>,
    order: HashMap<VarId, usize>,
}

impl Collect {
    fn seq(&mut self, s: &SeqExpr) {
        for block in &s.blocks {
            for b in &block.bindings {
                let pos = self.counter;
                self.counter += 1;
                let var = b.var();
                self.bound.insert(var.id());
                self.order.insert(var.id(), pos);
                if matches!(b.value().kind(), ExprKind::Constant(_)) {
                    self.never.insert(var.id());
                }
                if let Some(call) = b.value().as_call()
                    && call.op() == Some("relax.memory.alloc_storage")
                {
                    self.storage.insert(var.id());
                }
                match b.value().kind() {
                    ExprKind::If(i) => {
                        let mut inner = HashSet::new();
                        uses(&i.cond, &mut inner);
                        let before: HashSet<VarId> = self.bound.clone();
                        self.seq(&i.then_branch);
                        self.seq(&i.else_branch);
                        let mut branch_uses = HashSet::new();
                        seq_uses(&i.then_branch, &mut branch_uses);
                        seq_uses(&i.else_branch, &mut branch_uses);
                        for v in inner.into_iter().chain(branch_uses) {
                            if before.contains(&v) {
                                self.never.insert(v);
                            }
                        }
                    }
                    _ => {
                        let mut used = Vec::new();
                        uses_vars(b.value(), &mut used);
                        for v in used {
                            if v.id() != var.id() {
                                self.last_use.insert(v.id(), (pos, v));
                            }
                        }
                    }
                }
            }
        }
        let mut out = HashSet::new();
        uses(&s.body, &mut out);
        self.never.extend(out);
    }
}

fn uses(e: &Expr, out: &mut HashSet<VarId>) {
    let mut vs = Vec::new();
    uses_vars(e, &mut vs);
    out.extend(vs.iter().map(Var::id));
}

fn seq_uses(s: &SeqExpr, out: &mut HashSet<VarId>) {
    for block in &s.blocks {
        for b in &block.bindings {
            uses(b.value(), out);
        }
    }
    uses(&s.body, out);
}

/// The variables `e` reads, in order (with repetitions), also inside `if` branches; a nested
/// function reads what it captures (its free variables other than its parameters) where it
/// is defined.
pub(crate) fn uses_vars(e: &Expr, out: &mut Vec<Var>) {
    struct Uses<'o> {
        out: &'o mut Vec<Var>,
    }
    impl Visitor for Uses<'_> {
        fn visit_var_use(&mut self, v: &Var) {
            self.out.push(v.clone());
        }
        fn visit_function(&mut self, f: &Function) {
            let params: HashSet<VarId> = f.params.iter().map(Var::id).collect();
            let mut inner = Vec::new();
            Uses { out: &mut inner }.visit_seq(&f.body);
            self.out
                .extend(inner.into_iter().filter(|v| !params.contains(&v.id())));
        }
    }
    Uses { out }.visit_expr(e)
}

fn rewrite(s: &SeqExpr, kills: &HashMap<usize, Vec<Var>>, counter: &mut usize) -> SeqExpr {
    let mut blocks = Vec::new();
    for block in &s.blocks {
        let mut out = Vec::new();
        for b in &block.bindings {
            let pos = *counter;
            *counter += 1;
            let b = match b {
                Binding::Var { var, value } if let ExprKind::If(i) = value.kind() => {
                    let then_branch = rewrite(&i.then_branch, kills, counter);
                    let else_branch = rewrite(&i.else_branch, kills, counter);
                    Binding::Var {
                        var: var.clone(),
                        value: Expr::new(ExprKind::If(crate::ir::If {
                            cond: i.cond.clone(),
                            then_branch,
                            else_branch,
                        })),
                    }
                }
                other => other.clone(),
            };
            out.push(b);
            for v in kills.get(&pos).into_iter().flatten() {
                let op = if matches!(v.struct_info(), StructInfo::Tensor { .. }) {
                    "relax.memory.kill_tensor"
                } else {
                    "relax.vm.kill_object"
                };
                out.push(Binding::Var {
                    var: Var::new("_", StructInfo::void()),
                    value: op_call(op, vec![Expr::var(v)], vec![]),
                });
            }
        }
        blocks.push(BindingBlock {
            bindings: out,
            dataflow: block.dataflow,
        });
    }
    SeqExpr {
        blocks,
        body: s.body.clone(),
    }
}
