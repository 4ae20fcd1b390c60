//! Walking Relax expressions: a [`Visitor`] whose `visit_*` methods descend by default (each
//! calls the matching `walk_*` function), so that a walker overrides only the nodes it cares
//! about, as TVM's `ExprVisitor`.
//!
//! Order is evaluation order: a call's callee, then its arguments left to right; a binding's
//! value before its variable; blocks in order, then a sequence's result; an `if`'s condition,
//! then its branches. Nested functions are walked (their parameters are definitions);
//! override [`Visitor::visit_function`] to stop at them.

use crate::ir::{Binding, Callee, Constant, Expr, ExprKind, Function, IRModule, SeqExpr, Var};

/// A read-only walk over Relax IR.
pub trait Visitor {
    fn visit_expr(&mut self, e: &Expr) {
        walk_expr(self, e)
    }
    /// A variable read by an expression.
    fn visit_var_use(&mut self, _v: &Var) {}
    /// A variable bound by a binding or a function parameter.
    fn visit_var_def(&mut self, _v: &Var) {}
    fn visit_constant(&mut self, _c: &Constant) {}
    fn visit_binding(&mut self, b: &Binding) {
        walk_binding(self, b)
    }
    fn visit_seq(&mut self, s: &SeqExpr) {
        walk_seq(self, s)
    }
    fn visit_function(&mut self, f: &Function) {
        walk_function(self, f)
    }
}

/// The children of `e`, in evaluation order.
pub fn walk_expr<V: Visitor + ?Sized>(v: &mut V, e: &Expr) {
    match e.kind() {
        ExprKind::Var(x) => v.visit_var_use(x),
        ExprKind::Constant(c) => v.visit_constant(c),
        ExprKind::Tuple(fields) => fields.iter().for_each(|f| v.visit_expr(f)),
        ExprKind::TupleGetItem(t, _) => v.visit_expr(t),
        ExprKind::Call(c) => {
            if let Callee::Expr(f) = &c.callee {
                v.visit_expr(f);
            }
            c.args.iter().for_each(|a| v.visit_expr(a));
        }
        ExprKind::If(i) => {
            v.visit_expr(&i.cond);
            v.visit_seq(&i.then_branch);
            v.visit_seq(&i.else_branch);
        }
        ExprKind::Seq(s) => v.visit_seq(s),
        ExprKind::Function(f) => v.visit_function(f),
        ExprKind::ShapeExpr(_)
        | ExprKind::PrimValue(_)
        | ExprKind::StringImm(_)
        | ExprKind::DataTypeImm(_)
        | ExprKind::GlobalVar(_)
        | ExprKind::ExternFunc(_) => {}
    }
}

/// A binding's value, then its variable.
pub fn walk_binding<V: Visitor + ?Sized>(v: &mut V, b: &Binding) {
    v.visit_expr(b.value());
    v.visit_var_def(b.var());
}

/// The bindings of every block in order, then the result.
pub fn walk_seq<V: Visitor + ?Sized>(v: &mut V, s: &SeqExpr) {
    for block in &s.blocks {
        for b in &block.bindings {
            v.visit_binding(b);
        }
    }
    v.visit_expr(&s.body);
}

/// The parameters (as definitions), then the body.
pub fn walk_function<V: Visitor + ?Sized>(v: &mut V, f: &Function) {
    for p in &f.params {
        v.visit_var_def(p);
    }
    v.visit_seq(&f.body);
}

/// Every Relax function of `module`, in the module's order.
pub fn walk_module<V: Visitor + ?Sized>(v: &mut V, module: &IRModule) {
    for f in module.functions.values() {
        if let crate::ir::BaseFunc::Relax(f) = f {
            v.visit_function(f);
        }
    }
}

/// Calls `f` on every variable that the operands of `e` read, in order, without entering
/// `if`s, sequences or functions (what a binding of normalized IR reads directly).
pub fn operand_var_uses(e: &Expr, f: &mut dyn FnMut(&Var)) {
    struct Operands<'f>(&'f mut dyn FnMut(&Var));
    impl Visitor for Operands<'_> {
        fn visit_expr(&mut self, e: &Expr) {
            if !matches!(
                e.kind(),
                ExprKind::If(_) | ExprKind::Seq(_) | ExprKind::Function(_)
            ) {
                walk_expr(self, e)
            }
        }
        fn visit_var_use(&mut self, v: &Var) {
            (self.0)(v)
        }
    }
    Operands(f).visit_expr(e)
}
