//! The Relax passes of the build pipeline, one file per pass, each a pure function from module
//! to module (TVM's `relax.transform.*` of the same name); `crate::pipeline` runs them in
//! TVM's `default_build_pipeline` order.
//!
//! This file holds what the passes share: variable substitution, a binding-by-binding rewriter
//! that also descends into `If` branches, the struct info of the expression forms the passes
//! create, and small constructors of the calls they emit.

pub mod annotate_tir_op_pattern;
mod attach_global_symbol;
mod call_tir_rewrite;
mod canonicalize_bindings;
mod compute_prim_value;
mod convert_layout;
mod dead_code_elimination;
pub mod dispatch_library;
mod elide_dropout;
mod fold_batchnorm_to_conv2d;
mod fold_constant;
mod fuse_ops;
mod fuse_tir;
mod kill_after_last_use;
mod lambda_lift;
mod lower_alloc_tensor;
mod lower_runtime_builtin;
pub mod raise_call_tir;
mod remove_purity_checking;
pub mod rewrite_dataflow_reshape;
mod static_plan_block_memory;
mod to_non_dataflow;
mod vm_shape_lower;

pub use annotate_tir_op_pattern::annotate_tir_op_pattern;
pub use attach_global_symbol::attach_global_symbol;
pub use call_tir_rewrite::call_tir_rewrite;
pub use canonicalize_bindings::canonicalize_bindings;
pub use compute_prim_value::compute_prim_value;
pub use convert_layout::convert_layout;
pub use dead_code_elimination::dead_code_elimination;
pub use dispatch_library::dispatch_library;
pub use elide_dropout::elide_dropout;
pub use fold_batchnorm_to_conv2d::{
    FactorArithmetic, batch_norm_factors, fold_batchnorm_to_conv2d,
};
pub use fold_constant::{DEFAULT_MAX_FOLD_BYTES, fold_constant, fold_constant_with_limit};
pub use fuse_ops::fuse_ops;
pub use fuse_tir::fuse_tir;
pub use kill_after_last_use::kill_after_last_use;
pub(crate) use kill_after_last_use::uses_vars as kill_after_last_use_uses;
pub use lambda_lift::lambda_lift;
pub use lower_alloc_tensor::lower_alloc_tensor;
pub use lower_runtime_builtin::lower_runtime_builtin;
pub use raise_call_tir::raise_call_tir;
pub use remove_purity_checking::remove_purity_checking;
pub use rewrite_dataflow_reshape::rewrite_dataflow_reshape;
pub use static_plan_block_memory::static_plan_block_memory;
pub use to_non_dataflow::to_non_dataflow;
pub use vm_shape_lower::vm_shape_lower;

use std::collections::HashMap;

use tir::{DataType, PrimExpr};

use crate::Result;
use crate::ir::visit::Visitor;
use crate::ir::{
    Attrs, BaseFunc, Binding, BindingBlock, Call, Callee, Expr, ExprKind, Function, IRModule, If,
    SeqExpr, StructInfo, Var, VarId,
};

/// Applies `f` to every Relax function of the module.
pub(crate) fn map_functions(
    module: &IRModule,
    mut f: impl FnMut(&str, &Function) -> Result<Function>,
) -> Result<IRModule> {
    let mut out = module.clone();
    for (name, func) in &module.functions {
        if let BaseFunc::Relax(func) = func {
            let new = f(name, func)?;
            out.functions.insert(name.clone(), BaseFunc::Relax(new));
        }
    }
    Ok(out)
}

/// A substitution of variables by expressions.
pub(crate) type Subst = HashMap<VarId, Expr>;

/// `e` with every variable of `subst` replaced (also inside `If` branches and nested
/// functions).
pub(crate) fn substitute(e: &Expr, subst: &Subst) -> Expr {
    if subst.is_empty() {
        return e.clone();
    }
    match e.kind() {
        ExprKind::Var(v) => subst.get(&v.id()).cloned().unwrap_or_else(|| e.clone()),
        ExprKind::Tuple(fields) => {
            Expr::tuple(fields.iter().map(|f| substitute(f, subst)).collect())
        }
        ExprKind::TupleGetItem(t, i) => Expr::new(ExprKind::TupleGetItem(substitute(t, subst), *i)),
        ExprKind::Call(c) => Expr::new(ExprKind::Call(Call {
            callee: match &c.callee {
                Callee::Expr(f) => Callee::Expr(substitute(f, subst)),
                other => other.clone(),
            },
            args: c.args.iter().map(|a| substitute(a, subst)).collect(),
            attrs: c.attrs.clone(),
            ty_args: c.ty_args.clone(),
        })),
        ExprKind::If(i) => Expr::new(ExprKind::If(If {
            cond: substitute(&i.cond, subst),
            then_branch: substitute_seq(&i.then_branch, subst),
            else_branch: substitute_seq(&i.else_branch, subst),
        })),
        ExprKind::Seq(s) => Expr::new(ExprKind::Seq(substitute_seq(s, subst))),
        ExprKind::Function(f) => {
            let mut f = (**f).clone();
            f.body = substitute_seq(&f.body, subst);
            Expr::new(ExprKind::Function(Box::new(f)))
        }
        _ => e.clone(),
    }
}

pub(crate) fn substitute_seq(s: &SeqExpr, subst: &Subst) -> SeqExpr {
    SeqExpr {
        blocks: s
            .blocks
            .iter()
            .map(|b| BindingBlock {
                dataflow: b.dataflow,
                bindings: b
                    .bindings
                    .iter()
                    .map(|b| substitute_binding(b, subst))
                    .collect(),
            })
            .collect(),
        body: substitute(&s.body, subst),
    }
}

pub(crate) fn substitute_binding(b: &Binding, subst: &Subst) -> Binding {
    match b {
        Binding::Var { var, value } => Binding::Var {
            var: var.clone(),
            value: substitute(value, subst),
        },
        Binding::MatchCast {
            var,
            value,
            struct_info,
        } => Binding::MatchCast {
            var: var.clone(),
            value: substitute(value, subst),
            struct_info: struct_info.clone(),
        },
    }
}

/// How many times each variable is read in `f`.
pub(crate) fn count_uses(f: &Function) -> HashMap<VarId, usize> {
    struct Count(HashMap<VarId, usize>);
    impl Visitor for Count {
        fn visit_var_use(&mut self, v: &Var) {
            *self.0.entry(v.id()).or_default() += 1;
        }
    }
    let mut c = Count(HashMap::new());
    c.visit_seq(&f.body);
    c.0
}

/// Calls `f` on every binding of `seq`, in order, the bindings of `If` branches right after
/// the binding of their `If`.
pub(crate) fn for_each_binding(seq: &SeqExpr, f: &mut dyn FnMut(&Binding)) {
    for block in &seq.blocks {
        for b in &block.bindings {
            f(b);
            if let ExprKind::If(i) = b.value().kind() {
                for_each_binding(&i.then_branch, f);
                for_each_binding(&i.else_branch, f);
            }
        }
    }
}

/// Where a rewriter puts the bindings that replace the one it is given.
pub(crate) struct Emitter {
    pub out: Vec<Binding>,
    pub subst: Subst,
    /// The name of the function being rewritten (for error messages).
    pub func: String,
    /// Whether the block being rewritten is a dataflow block.
    pub dataflow: bool,
}

impl Emitter {
    /// Emits `name = value` with struct info `si` and returns the new variable.
    pub fn emit(&mut self, name: &str, value: Expr, si: StructInfo) -> Var {
        let var = Var::new(name, si);
        self.out.push(Binding::Var {
            var: var.clone(),
            value,
        });
        var
    }
    /// Emits `name = value` with struct info `si` as a variable of the block's kind (a
    /// dataflow variable in a dataflow block) and returns it.
    pub fn emit_local(&mut self, name: &str, value: Expr, si: StructInfo) -> Var {
        let var = if self.dataflow {
            Var::dataflow(name, si)
        } else {
            Var::new(name, si)
        };
        self.out.push(Binding::Var {
            var: var.clone(),
            value,
        });
        var
    }
    /// Emits a call made for its effect (`_ = value` of type `R.Tuple()`).
    pub fn emit_void(&mut self, value: Expr) {
        self.emit("_", value, StructInfo::void());
    }
    pub fn push(&mut self, b: Binding) {
        self.out.push(b);
    }
    /// From now on, uses of `old` read `new`.
    pub fn replace(&mut self, old: &Var, new: Expr) {
        self.subst.insert(old.id(), new);
    }
}

/// Rewrites the bindings of a function body one by one: `rewrite` gets each binding with the
/// substitutions made so far applied (and, for an `If`, with its branches already rewritten)
/// and emits its replacement.
pub(crate) fn rewrite_seq(
    seq: &SeqExpr,
    em_subst: &Subst,
    func: &str,
    rewrite: &mut dyn FnMut(Binding, &mut Emitter) -> Result<()>,
) -> Result<SeqExpr> {
    let mut subst = em_subst.clone();
    let mut blocks = Vec::with_capacity(seq.blocks.len());
    for block in &seq.blocks {
        let mut em = Emitter {
            out: Vec::new(),
            subst,
            func: func.to_string(),
            dataflow: block.dataflow,
        };
        for b in &block.bindings {
            let mut b = substitute_binding(b, &em.subst);
            if let Binding::Var { var, value } = &b
                && let ExprKind::If(i) = value.kind()
            {
                let then_branch = rewrite_seq(&i.then_branch, &em.subst, func, rewrite)?;
                let else_branch = rewrite_seq(&i.else_branch, &em.subst, func, rewrite)?;
                b = Binding::Var {
                    var: var.clone(),
                    value: Expr::new(ExprKind::If(If {
                        cond: i.cond.clone(),
                        then_branch,
                        else_branch,
                    })),
                };
            }
            rewrite(b, &mut em)?;
        }
        subst = em.subst;
        // A block left empty is dropped, as TVM's normalizer drops it.
        if !em.out.is_empty() {
            blocks.push(BindingBlock {
                bindings: em.out,
                dataflow: block.dataflow,
            });
        }
    }
    Ok(SeqExpr {
        blocks,
        body: substitute(&seq.body, &subst),
    })
}

/// Rewrites every binding of every Relax function with `rewrite` (see [`rewrite_seq`]).
pub(crate) fn rewrite_module(
    module: &IRModule,
    mut rewrite: impl FnMut(Binding, &mut Emitter) -> Result<()>,
) -> Result<IRModule> {
    map_functions(module, |name, f| {
        let body = rewrite_seq(&f.body, &Subst::new(), name, &mut rewrite)?;
        Ok(Function { body, ..f.clone() })
    })
}

/// The struct info of an expression, from its parts (the forms the passes meet and build).
pub(crate) fn struct_info_of(e: &Expr, module: &IRModule) -> StructInfo {
    match e.kind() {
        ExprKind::Var(v) => v.struct_info().clone(),
        ExprKind::Constant(c) => c.struct_info.clone(),
        ExprKind::ShapeExpr(d) => StructInfo::shape(d.clone()),
        ExprKind::PrimValue(p) => StructInfo::Prim {
            dtype: p.dtype(),
            value: Some(p.clone()),
        },
        ExprKind::Tuple(items) => {
            StructInfo::Tuple(items.iter().map(|i| struct_info_of(i, module)).collect())
        }
        ExprKind::TupleGetItem(t, i) => match struct_info_of(t, module) {
            StructInfo::Tuple(items) => items.get(*i).cloned().unwrap_or(StructInfo::Any),
            _ => StructInfo::Any,
        },
        ExprKind::Function(f) => f.struct_info(),
        ExprKind::Seq(s) => struct_info_of(&s.body, module),
        // As the Normalizer does: the least common ancestor of the branches.
        ExprKind::If(i) => crate::struct_info_ops::lca(
            &struct_info_of(&i.then_branch.body, module),
            &struct_info_of(&i.else_branch.body, module),
        ),
        ExprKind::GlobalVar(g) => match module.get(g) {
            Some(f @ (BaseFunc::Relax(_) | BaseFunc::Extern(_))) => {
                crate::normalize::base_func_struct_info(f)
            }
            _ => StructInfo::Any,
        },
        ExprKind::Call(c) => {
            if let Some(t) = c.ty_args.first() {
                return t.clone();
            }
            match &c.callee {
                Callee::Global(g) => match module.get(g) {
                    Some(BaseFunc::Relax(f)) => f.ret_struct_info.clone(),
                    Some(BaseFunc::Tir(_)) => StructInfo::void(),
                    Some(BaseFunc::Extern(e)) => match &e.struct_info {
                        StructInfo::Func { ret, .. } => (**ret).clone(),
                        _ => StructInfo::Any,
                    },
                    None => StructInfo::Any,
                },
                Callee::Op(op) => match op.as_str() {
                    "relax.vm.kill_object"
                    | "relax.memory.kill_storage"
                    | "relax.memory.kill_tensor" => StructInfo::void(),
                    // The operator's own inference, as the Normalizer computes it; an operator
                    // it cannot infer (the VM-level builtins have no rows) stays `Any`.
                    _ => crate::normalize::infer_struct_info(e, module).unwrap_or(StructInfo::Any),
                },
                _ => StructInfo::Any,
            }
        }
        _ => StructInfo::Any,
    }
}

// ----- constructors -----

pub(crate) fn op_call(op: &str, args: Vec<Expr>, ty_args: Vec<StructInfo>) -> Expr {
    Expr::call(Callee::Op(op.to_string()), args, Attrs::new(), ty_args)
}

/// `R.call_packed(name, args..., ty_args=(si,))`.
pub(crate) fn call_packed(name: &str, args: Vec<Expr>, si: StructInfo) -> Expr {
    Expr::call(
        Callee::Extern(name.to_string()),
        args,
        Attrs::new(),
        vec![si],
    )
}

/// `R.call_pure_packed(name, args..., sinfo_args=(si,))`.
pub(crate) fn call_pure_packed(name: &str, args: Vec<Expr>, si: StructInfo) -> Expr {
    Expr::call(
        Callee::Op("relax.call_pure_packed".to_string()),
        std::iter::once(Expr::extern_func(name))
            .chain(args)
            .collect(),
        Attrs::new(),
        vec![si],
    )
}

pub(crate) fn prim_i64(v: i64) -> Expr {
    Expr::prim(PrimExpr::i64(v))
}

pub(crate) fn str_imm(s: &str) -> Expr {
    Expr::new(ExprKind::StringImm(s.to_string()))
}

pub(crate) fn dtype_imm(dt: DataType) -> Expr {
    Expr::new(ExprKind::DataTypeImm(dt))
}

/// The number of bytes of one element of `dt` (lanes included), as TVM computes it.
pub(crate) fn dtype_bytes(dt: DataType) -> i64 {
    (dt.bits as i64 + 7) / 8 * dt.lanes as i64
}
