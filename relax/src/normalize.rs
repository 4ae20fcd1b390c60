//! Struct-info inference for every kind of Relax expression (TVM's `Normalizer` /
//! `InferStructInfo`): variables carry their own; constants, shapes and prim values describe
//! themselves; operator calls go through the operator registry; calls of module functions,
//! closures and packed functions derive their result from the callee's signature or `ty_args`;
//! an `If` unifies its branches by [`lca`].
//!
//! Inference never panics: a malformed program (wrong argument kinds, an unknown global, an
//! absurdly deep expression) gives `Error::TypeInference`.

use std::collections::HashMap;

use tir::DataType;

use crate::Result;
use crate::error::Error;
use crate::ir::{BaseFunc, Call, Callee, Expr, ExprKind, IRModule, StructInfo};
use crate::op;
use crate::struct_info_ops::{bind_symbolic, describe, lca, substitute_struct_info};

/// Expressions nested deeper than this are rejected rather than risking the stack.
const MAX_DEPTH: usize = 256;

/// Infers struct info, knowing the signatures of the module's global functions.
#[derive(Clone, Debug, Default)]
pub struct Normalizer {
    /// Global function name → its struct info as a value (`R.Callable`).
    globals: HashMap<String, StructInfo>,
}

/// The struct info of a module function as a value.
pub fn base_func_struct_info(f: &BaseFunc) -> StructInfo {
    match f {
        BaseFunc::Relax(f) => f.struct_info(),
        // TVM gives a PrimFunc the opaque struct info of its (void) return: calling one
        // directly, as lowered code does, gives the empty tuple.
        BaseFunc::Tir(_) => StructInfo::Func {
            params: None,
            ret: Box::new(StructInfo::void()),
            pure: false,
        },
        BaseFunc::Extern(e) => e.struct_info.clone(),
    }
}

impl Normalizer {
    /// A normalizer for expressions of `module`.
    pub fn new(module: &IRModule) -> Normalizer {
        Normalizer {
            globals: module
                .functions
                .iter()
                .map(|(n, f)| (n.clone(), base_func_struct_info(f)))
                .collect(),
        }
    }

    /// A normalizer that knows no global functions.
    pub fn empty() -> Normalizer {
        Normalizer::default()
    }

    /// Declares (or redeclares) the signature of global `name`: lets a function being built
    /// call itself or functions not yet added.
    pub fn declare(&mut self, name: impl Into<String>, struct_info: StructInfo) {
        self.globals.insert(name.into(), struct_info);
    }

    /// The declared struct info of global `name`.
    pub fn global(&self, name: &str) -> Option<&StructInfo> {
        self.globals.get(name)
    }

    /// The struct info of `expr`.
    pub fn infer(&self, expr: &Expr) -> Result<StructInfo> {
        self.infer_at(expr, 0)
    }

    fn infer_at(&self, expr: &Expr, depth: usize) -> Result<StructInfo> {
        if depth > MAX_DEPTH {
            return Err(Error::TypeInference(format!(
                "expression nested more than {MAX_DEPTH} levels deep"
            )));
        }
        let d = depth + 1;
        Ok(match expr.kind() {
            ExprKind::Var(v) => v.struct_info().clone(),
            ExprKind::Constant(c) => c.struct_info.clone(),
            ExprKind::ShapeExpr(dims) => {
                if let Some(bad) = dims.iter().find(|e| !e.dtype().is_int_or_uint()) {
                    return Err(Error::TypeInference(format!(
                        "R.shape: dimension {bad} has dtype {}, expected an integer",
                        bad.dtype()
                    )));
                }
                StructInfo::shape(dims.clone())
            }
            ExprKind::PrimValue(v) => StructInfo::Prim {
                dtype: v.dtype(),
                value: Some(v.clone()),
            },
            ExprKind::StringImm(_) | ExprKind::DataTypeImm(_) => StructInfo::Any,
            ExprKind::Tuple(fields) => StructInfo::Tuple(
                fields
                    .iter()
                    .map(|f| self.infer_at(f, d))
                    .collect::<Result<_>>()?,
            ),
            ExprKind::TupleGetItem(t, i) => match self.infer_at(t, d)? {
                StructInfo::Tuple(fields) => fields.get(*i).cloned().ok_or_else(|| {
                    Error::TypeInference(format!(
                        "tuple index {i} is out of range for a tuple of {} fields",
                        fields.len()
                    ))
                })?,
                other => {
                    return Err(Error::TypeInference(format!(
                        "indexing [{i}] needs a tuple, got {}",
                        describe(&other)
                    )));
                }
            },
            ExprKind::Call(call) => self.infer_call(call, d)?,
            ExprKind::If(ife) => {
                let c = self.infer_at(&ife.cond, d)?;
                let ok = match &c {
                    StructInfo::Prim { dtype, .. } => dtype.is_bool(),
                    StructInfo::Tensor { dtype, ndim, .. } => {
                        dtype.is_none_or(DataType::is_bool) && (*ndim == 0 || *ndim == -1)
                    }
                    _ => false,
                };
                if !ok {
                    return Err(Error::TypeInference(format!(
                        "the condition of `if` must be a bool scalar, got {}",
                        describe(&c)
                    )));
                }
                let t = self.infer_at(&ife.then_branch.body, d)?;
                let e = self.infer_at(&ife.else_branch.body, d)?;
                lca(&t, &e)
            }
            ExprKind::Seq(seq) => self.infer_at(&seq.body, d)?,
            ExprKind::Function(f) => f.struct_info(),
            ExprKind::GlobalVar(name) => self.globals.get(name).cloned().ok_or_else(|| {
                Error::TypeInference(format!("reference to undefined global function `{name}`"))
            })?,
            ExprKind::ExternFunc(f) => f.struct_info.clone(),
        })
    }

    fn infer_call(&self, call: &Call, depth: usize) -> Result<StructInfo> {
        let args: Vec<StructInfo> = call
            .args
            .iter()
            .map(|a| self.infer_at(a, depth))
            .collect::<Result<_>>()?;
        match &call.callee {
            Callee::Op(_) => op::infer_call(call, &args),
            Callee::Extern(_) => Ok(from_ty_args(&call.ty_args)),
            Callee::Global(name) => {
                let f = self.globals.get(name).ok_or_else(|| {
                    Error::TypeInference(format!("call to undefined global function `{name}`"))
                })?;
                derive_call_ret(&format!("cls.{name}"), f, &args, &call.ty_args)
            }
            Callee::Expr(e) => {
                let f = self.infer_at(e, depth)?;
                derive_call_ret("the callee", &f, &args, &call.ty_args)
            }
        }
    }
}

fn from_ty_args(ty_args: &[StructInfo]) -> StructInfo {
    match ty_args {
        [] => StructInfo::Any,
        [one] => one.clone(),
        many => StructInfo::Tuple(many.to_vec()),
    }
}

/// The result of calling a value of struct info `f` with arguments `args` (TVM's
/// `DeriveCallRetStructInfo`): symbolic variables of the parameters are bound to the
/// arguments' dimensions and substituted into the return struct info; variables that remain
/// unbound are erased.
pub fn derive_call_ret(
    what: &str,
    f: &StructInfo,
    args: &[StructInfo],
    ty_args: &[StructInfo],
) -> Result<StructInfo> {
    match f {
        StructInfo::Func { params, ret, .. } => {
            let Some(params) = params else {
                return Ok(if ty_args.is_empty() {
                    (**ret).clone()
                } else {
                    from_ty_args(ty_args)
                });
            };
            if params.len() != args.len() {
                return Err(Error::TypeInference(format!(
                    "{what} takes {} arguments, got {}",
                    params.len(),
                    args.len()
                )));
            }
            let mut map = HashMap::new();
            for (p, a) in params.iter().zip(args) {
                bind_symbolic(p, a, &mut map);
            }
            // Variables that the parameters define are replaced; others (free in the
            // callee's signature) are kept only if they cannot be confused: TVM keeps them.
            Ok(substitute_struct_info(ret, &map, &|_| true))
        }
        StructInfo::Any => Ok(from_ty_args(ty_args)),
        other => Err(Error::TypeInference(format!(
            "{what} is not callable: it is {}",
            describe(other)
        ))),
    }
}

/// The struct info of `expr` in `module` (a convenience over [`Normalizer`]).
pub fn infer_struct_info(expr: &Expr, module: &IRModule) -> Result<StructInfo> {
    Normalizer::new(module).infer(expr)
}

/// Whether `e` may stand as an operand as it is (TVM's `IsLeafOrTuple`): variables,
/// constants, shape/prim/string/dtype immediates, global and extern function references,
/// and tuples (whose fields are normalized in turn).
pub fn is_leaf_or_tuple(e: &Expr) -> bool {
    !matches!(
        e.kind(),
        ExprKind::Call(_)
            | ExprKind::TupleGetItem(..)
            | ExprKind::If(_)
            | ExprKind::Seq(_)
            | ExprKind::Function(_)
    )
}

/// `operand` normalized as an operand: its own operands normalized, then, unless it is
/// [`is_leaf_or_tuple`], handed to `emit` (see [`normalize_operands`]).
pub fn normalize_operand<E>(
    operand: &Expr,
    emit: &mut dyn FnMut(Expr) -> std::result::Result<Expr, E>,
) -> std::result::Result<Expr, E> {
    let n = normalize_operands(operand, emit)?;
    if is_leaf_or_tuple(&n) { Ok(n) } else { emit(n) }
}

/// Puts the operands of `expr` in A-normal form, as TVM's `BlockBuilder::Normalize` does for
/// a binding value: every operand (call argument, callee expression, tuple field, indexed
/// tuple, `if` condition) that is not [`is_leaf_or_tuple`] is normalized first and then handed
/// to `emit`, which binds it and returns the expression (a variable) standing for it. Operands
/// are visited left to right, depth first, so `emit` sees them in TVM's order. `expr` itself is
/// not emitted; nodes whose operands did not change are returned as they are.
pub fn normalize_operands<E>(
    expr: &Expr,
    emit: &mut dyn FnMut(Expr) -> std::result::Result<Expr, E>,
) -> std::result::Result<Expr, E> {
    let operand = normalize_operand::<E>;
    Ok(match expr.kind() {
        ExprKind::Call(c) => {
            let callee = match &c.callee {
                Callee::Expr(f) => Callee::Expr(operand(f, emit)?),
                other => other.clone(),
            };
            let args = c
                .args
                .iter()
                .map(|a| operand(a, emit))
                .collect::<std::result::Result<Vec<_>, E>>()?;
            let same = args.iter().zip(&c.args).all(|(a, b)| a.ptr_eq(b))
                && match (&callee, &c.callee) {
                    (Callee::Expr(a), Callee::Expr(b)) => a.ptr_eq(b),
                    _ => true,
                };
            if same {
                expr.clone()
            } else {
                Expr::new(ExprKind::Call(Call {
                    callee,
                    args,
                    attrs: c.attrs.clone(),
                    ty_args: c.ty_args.clone(),
                }))
            }
        }
        ExprKind::Tuple(fields) => {
            let out = fields
                .iter()
                .map(|f| operand(f, emit))
                .collect::<std::result::Result<Vec<_>, E>>()?;
            if out.iter().zip(fields).all(|(a, b)| a.ptr_eq(b)) {
                expr.clone()
            } else {
                Expr::tuple(out)
            }
        }
        ExprKind::TupleGetItem(t, i) => {
            let n = operand(t, emit)?;
            if n.ptr_eq(t) {
                expr.clone()
            } else {
                Expr::new(ExprKind::TupleGetItem(n, *i))
            }
        }
        ExprKind::If(ife) => {
            let cond = operand(&ife.cond, emit)?;
            if cond.ptr_eq(&ife.cond) {
                expr.clone()
            } else {
                Expr::new(ExprKind::If(crate::ir::If {
                    cond,
                    then_branch: ife.then_branch.clone(),
                    else_branch: ife.else_branch.clone(),
                }))
            }
        }
        _ => expr.clone(),
    })
}
