//! LegalizeOps: every call of a registered compute operator becomes
//! `R.call_tir(cls.<prim_func>, (args), out_ty=...)` to a PrimFunc with the semantics (and,
//! as far as we can, the exact TIR) that TVM 0.27's legalization generates.
//!
//! The PrimFuncs are built with a small tensor-expression builder ([`te`]), the analogue of
//! TVM's `bb.call_te(topi.*)`. Like TVM's `BlockBuilder::AddFunction`, a generated function
//! that is structurally equal to one already in the module is reused, and new names are made
//! unique with numeric suffixes (`add`, `add1`, ...). Rank-0 constant operands of binary
//! operators are inlined into the TIR as literals. A reduction whose extent may be zero is
//! decomposed into init and update blocks
//! ([`tir::transform::decompose_empty_reductions`]), so that over an empty axis its result is
//! the init (TVM's block form would leave the output unwritten); the only departure from
//! TVM's TIR.
//!
//! Operators that are not computations (`call_tir`, `shape_of`, closures, VM and memory
//! builtins) are left alone, as TVM leaves operators without a legalization. A compute operator
//! that cannot be legalized (no rule yet, or an argument of unknown shape) is an
//! [`Error::Unsupported`] naming the operator, the function and the bound variable.
//!
//! Families: [`elementwise`] (unary, binary, comparison, `where`, `clip`, `astype`), [`reduce`]
//! (sum/mean/max/min/prod/variance/std, argmax/argmin), [`matmul`], [`nn`] (softmax, norms,
//! convolutions, pools, pad, activations), [`manipulate`] (reshape and data movement),
//! [`create`] (full/zeros/ones/arange/tril/triu), [`sort`] (sort/argsort/topk/cumsum), [`image`]
//! (resize2d), [`qdq`] (quantize/dequantize), [`grad`] (the backward operators of `R.grad.*`),
//! [`scatter`] (index_put, slice_scatter), [`search`] (bucketize, multinomial_from_uniform, nonzero, unique), [`vision`] (roi_align, get_valid_counts, non_max_suppression, all_class_non_max_suppression, multibox_transform_loc).

mod create;
mod elementwise;
mod grad;
mod image;
mod manipulate;
mod matmul;
mod nn;
mod nn_extra;
mod qdq;
mod reduce;
mod scatter;
mod search;
mod sort;
pub(crate) mod te;
mod vision;

use std::collections::HashSet;

use tir::{DataType, PrimExpr, PrimFunc};

use crate::ir::{
    AttrValue, BaseFunc, Binding, BindingBlock, Call, Callee, Expr, ExprKind, Function, IRModule,
    If, SeqExpr, StructInfo, Var,
};
use crate::{Error, Result};

/// Runs LegalizeOps on every Relax function of `module`.
pub fn legalize_ops(module: &IRModule) -> Result<IRModule> {
    let mut out = module.clone();
    let names: HashSet<String> = module.functions.keys().cloned().collect();
    let mut cx = Legalizer {
        module: &mut out,
        names,
        func_name: String::new(),
        subst: Default::default(),
        cast: None,
    };
    let funcs: Vec<(String, Function)> = module
        .relax_functions()
        .map(|(n, f)| (n.clone(), f.clone()))
        .collect();
    for (name, f) in funcs {
        cx.func_name = name.clone();
        let nf = cx.function(&f)?;
        cx.module.add(name, BaseFunc::Relax(nf));
    }
    Ok(out)
}

struct Legalizer<'m> {
    module: &'m mut IRModule,
    names: HashSet<String>,
    func_name: String,
    /// Variables rebound by a [`Lowered::MatchCast`], replaced in the bindings after it.
    subst: crate::transform::Subst,
    /// Set by a [`Lowered::MatchCast`] for the binding being legalized.
    cast: Option<StructInfo>,
}

impl Legalizer<'_> {
    fn function(&mut self, f: &Function) -> Result<Function> {
        let body = self.seq(&f.body)?;
        Ok(Function { body, ..f.clone() })
    }

    fn seq(&mut self, s: &SeqExpr) -> Result<SeqExpr> {
        let mut blocks = Vec::new();
        for b in &s.blocks {
            let mut bindings = Vec::new();
            for bind in &b.bindings {
                let substituted;
                let bind = if self.subst.is_empty() {
                    bind
                } else {
                    substituted = crate::transform::substitute_binding(bind, &self.subst);
                    &substituted
                };
                let legalized = match bind {
                    Binding::Var { var, value } => {
                        self.cast = None;
                        let value = self.expr(value, Some(var.struct_info()), var.name())?;
                        if let Some(struct_info) = self.cast.take() {
                            // `var = value` becomes `var_dyn = value` and
                            // `var = R.match_cast(var_dyn, struct_info)`, a new `var` that
                            // later bindings use.
                            // Local to a dataflow block: only the match_cast reads it.
                            let name = format!("{}_dyn", var.name());
                            let dynamic = if b.dataflow {
                                Var::dataflow(name, var.struct_info().clone())
                            } else {
                                Var::new(name, var.struct_info().clone())
                            };
                            bindings.push(Binding::Var {
                                var: dynamic.clone(),
                                value,
                            });
                            let cast = like(var, var.name().to_string(), struct_info.clone());
                            self.subst.insert(var.id(), Expr::var(&cast));
                            Binding::MatchCast {
                                var: cast,
                                value: Expr::var(&dynamic),
                                struct_info,
                            }
                        } else if let Some(si) = self.refined(var.struct_info(), &value) {
                            // A shape found only now (the operands' dimensions named by an
                            // earlier match_cast): a new variable carries it to later
                            // bindings, as TVM's mutator re-emits a binding.
                            let refined = like(var, var.name().to_string(), si);
                            self.subst.insert(var.id(), Expr::var(&refined));
                            Binding::Var {
                                var: refined,
                                value,
                            }
                        } else {
                            Binding::Var {
                                var: var.clone(),
                                value,
                            }
                        }
                    }
                    Binding::MatchCast {
                        var,
                        value,
                        struct_info,
                    } => {
                        let legalized = self.expr(value, None, var.name())?;
                        self.no_cast(var.name())?;
                        // `R.match_cast(R.take(...), ...)`, `R.match_cast(R.nonzero(x), ...)`
                        // as TVM's frontends write them: the lowered call is bound to a
                        // variable of its own first, which the passes after this one (that
                        // rewrite calls in variable bindings) then see.
                        let value = if legalized.as_call().is_some() && !legalized.ptr_eq(value) {
                            let name = format!("{}_value", var.name());
                            let si = crate::transform::struct_info_of(&legalized, self.module);
                            let tmp = if b.dataflow {
                                Var::dataflow(name, si)
                            } else {
                                Var::new(name, si)
                            };
                            bindings.push(Binding::Var {
                                var: tmp.clone(),
                                value: legalized,
                            });
                            Expr::var(&tmp)
                        } else {
                            legalized
                        };
                        Binding::MatchCast {
                            var: var.clone(),
                            value,
                            struct_info: struct_info.clone(),
                        }
                    }
                };
                bindings.push(legalized);
            }
            blocks.push(BindingBlock {
                bindings,
                dataflow: b.dataflow,
            });
        }
        let body = crate::transform::substitute(&s.body, &self.subst);
        let body = self.expr(&body, None, "<result>")?;
        self.no_cast("<result>")?;
        Ok(SeqExpr { blocks, body })
    }

    /// The struct info of `value` where it gives a shape to `annotated`, a tensor whose shape
    /// is unknown (of the same rank and dtype where those are known); `None` otherwise.
    fn refined(&self, annotated: &StructInfo, value: &Expr) -> Option<StructInfo> {
        let StructInfo::Tensor {
            shape: None,
            dtype,
            ndim,
            ..
        } = annotated
        else {
            return None;
        };
        let found = crate::transform::struct_info_of(value, self.module);
        match &found {
            StructInfo::Tensor {
                shape: Some(shape),
                dtype: found_dtype,
                ..
            } if (*ndim < 0 || shape.len() as i64 == *ndim)
                && (dtype.is_none() || dtype == found_dtype) =>
            {
                Some(found)
            }
            _ => None,
        }
    }

    /// An error if the expression just legalized asked to be match_cast where it is not bound
    /// to a variable.
    fn no_cast(&mut self, var: &str) -> Result<()> {
        match self.cast.take() {
            None => Ok(()),
            Some(_) => Err(Error::Unsupported(format!(
                "LegalizeOps: `{var}` in function `{}`: an operator whose result shape is known \
                 only at run time must be bound to a variable of its own",
                self.func_name
            ))),
        }
    }

    fn expr(&mut self, e: &Expr, out: Option<&StructInfo>, var: &str) -> Result<Expr> {
        match e.kind() {
            ExprKind::Call(c) => self.call(e, c, out, var),
            ExprKind::If(i) => Ok(Expr::new(ExprKind::If(If {
                cond: i.cond.clone(),
                then_branch: self.seq(&i.then_branch)?,
                else_branch: self.seq(&i.else_branch)?,
            }))),
            ExprKind::Seq(s) => Ok(Expr::new(ExprKind::Seq(self.seq(s)?))),
            ExprKind::Function(f) => Ok(Expr::new(ExprKind::Function(Box::new(self.function(f)?)))),
            _ => Ok(e.clone()),
        }
    }

    fn call(&mut self, e: &Expr, c: &Call, out: Option<&StructInfo>, var: &str) -> Result<Expr> {
        let Callee::Op(op) = &c.callee else {
            return Ok(e.clone());
        };
        // A pass-through family's operator with a rule of its own (`stop_lift_params`, a
        // marker that runs as its argument) is legalized like any other.
        let rule = rule(op);
        if rule.is_none() && passes_through(op) {
            return Ok(e.clone());
        }
        let where_ = || format!("`{op}` (binding `{var}` in function `{}`)", self.func_name);
        // Arguments are variables, constants, shapes, prim values or tuples of them after
        // normalization: the passes' shared reading of struct info covers them.
        let arg_sinfo: Vec<StructInfo> = c
            .args
            .iter()
            .map(|a| crate::transform::struct_info_of(a, self.module))
            .collect();
        let out = match out {
            // An annotation without a shape where the operands give one (after a
            // match_cast to fresh dimensions): the inferred shape.
            Some(o @ StructInfo::Tensor { shape: None, .. }) => {
                match crate::op::infer_call(c, &arg_sinfo) {
                    Ok(si @ StructInfo::Tensor { shape: Some(_), .. }) => si,
                    _ => o.clone(),
                }
            }
            Some(o) if !matches!(o, StructInfo::Any) => o.clone(),
            _ => crate::op::infer_call(c, &arg_sinfo)?,
        };
        let oc = OpCall {
            call: c,
            sinfo: arg_sinfo,
            out,
            prim_args: Default::default(),
        };
        let lowered = match rule {
            Some(f) => f(&oc).map_err(|err| match err {
                Error::Unsupported(m) => {
                    Error::Unsupported(format!("LegalizeOps: {}: {m}", where_()))
                }
                other => other,
            })?,
            None => {
                return Err(Error::Unsupported(format!(
                    "LegalizeOps: no legalization for {}",
                    where_()
                )));
            }
        };
        match lowered {
            Lowered::CallTir {
                mut func,
                args,
                out,
            } => {
                // An operator has a result over an empty reduction axis too: its init.
                func.body = tir::transform::decompose_empty_reductions(&func.body);
                let name = self.add_func(func);
                let call_args = vec![Expr::new(ExprKind::GlobalVar(name)), Expr::tuple(args)];
                Ok(Expr::call(
                    Callee::Op("relax.call_tir".to_string()),
                    call_args,
                    crate::ir::Attrs::new(),
                    vec![out],
                ))
            }
            Lowered::Expr(e) => Ok(e),
            Lowered::MatchCast { value, struct_info } => {
                self.cast = Some(struct_info);
                Ok(value)
            }
        }
    }

    /// Adds `func` under a fresh name derived from its name, or returns the name of a
    /// structurally equal function already in the module.
    fn add_func(&mut self, mut func: PrimFunc) -> String {
        let hint = func.name.clone();
        for (name, existing) in self.module.prim_funcs() {
            if !name.starts_with(&hint) {
                continue;
            }
            func.name = existing.name.clone();
            if tir::structural_equal(&func, existing) {
                return name.clone();
            }
        }
        let mut name = hint.clone();
        let mut k = 1;
        while self.names.contains(&name) {
            name = format!("{hint}{k}");
            k += 1;
        }
        self.names.insert(name.clone());
        func.name = name.clone();
        self.module.add(name.clone(), BaseFunc::Tir(func));
        name
    }
}

/// A new variable named `name` with `si`, a dataflow variable if `var` is one (so that it stays
/// local to its dataflow block, as `var` was).
fn like(var: &Var, name: String, si: StructInfo) -> Var {
    if var.is_dataflow() {
        Var::dataflow(name, si)
    } else {
        Var::new(name, si)
    }
}

/// Operators that LegalizeOps leaves alone: calls, closures, shape values, runtime builtins.
fn passes_through(op: &str) -> bool {
    op.starts_with("relax.call_")
        || op.starts_with("relax.invoke_")
        || op.starts_with("relax.vm.")
        || op.starts_with("relax.memory.")
        || op.starts_with("relax.builtin.")
        || matches!(
            op,
            "relax.make_closure"
                | "relax.shape_of"
                | "relax.null_value"
                | "relax.print"
                | "relax.assert_op"
                | "relax.hint_on_device"
                | "relax.to_vdevice"
                | "relax.tensor_to_shape"
        )
}

/// What a legalization rule produces.
// One short-lived value per operator call: boxing the PrimFunc would buy nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Lowered {
    /// `R.call_tir(func, args, out_ty=out)`.
    CallTir {
        func: PrimFunc,
        args: Vec<Expr>,
        out: StructInfo,
    },
    /// A Relax expression that replaces the call without a PrimFunc (`R.size` of a tensor of
    /// known shape is a prim value).
    Expr(Expr),
    /// A Relax expression whose result is then match_cast to `struct_info`, which names
    /// fresh symbolic dimensions that the bindings after it use (TVM's legalization of
    /// `R.dynamic_strided_slice` does this with `bb.match_cast`). Only for a call bound to a
    /// variable; elsewhere it is an error.
    MatchCast {
        value: Expr,
        struct_info: StructInfo,
    },
}

/// One operator call being legalized.
pub(crate) struct OpCall<'a> {
    pub call: &'a Call,
    pub sinfo: Vec<StructInfo>,
    pub out: StructInfo,
    /// The scalar parameters [`OpCall::scalar`] made for arguments that are prim values
    /// known only at run time (an `R.Prim("float32")` parameter), with those arguments:
    /// [`OpCall::finish`] passes the argument for its parameter.
    prim_args: std::cell::RefCell<Vec<(tir::Var, Expr)>>,
}

/// A tensor argument as a TE placeholder.
#[derive(Clone)]
pub(crate) struct TArg {
    pub buf: tir::Buffer,
    pub expr: Expr,
}

impl TArg {
    pub(crate) fn shape(&self) -> &[PrimExpr] {
        &self.buf.shape
    }
    pub(crate) fn dtype(&self) -> DataType {
        self.buf.dtype
    }
    pub(crate) fn ndim(&self) -> usize {
        self.buf.shape.len()
    }
}

/// A number attribute: a literal or a `T.float32(…)`/`T.int64(…)` constant.
fn number(v: &AttrValue) -> Option<f64> {
    match v {
        AttrValue::Expr(e) => match e.kind() {
            tir::ExprKind::FloatImm { value, .. } => Some(*value),
            tir::ExprKind::IntImm { value, .. } => Some(*value as f64),
            _ => None,
        },
        v => v.as_float(),
    }
}

pub(crate) fn unsupported<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::Unsupported(msg.into()))
}

impl OpCall<'_> {
    /// Argument `i` as a tensor placeholder named after its variable.
    pub(crate) fn tensor(&self, i: usize) -> Result<TArg> {
        let Some(e) = self.call.args.get(i) else {
            return unsupported(format!("missing argument {i}"));
        };
        let (Some(shape), Some(dtype)) = (
            self.sinfo.get(i).and_then(StructInfo::tensor_shape),
            self.sinfo.get(i).and_then(StructInfo::tensor_dtype),
        ) else {
            return unsupported(format!(
                "argument {i} is not a tensor of known shape and dtype"
            ));
        };
        let name = match e.kind() {
            ExprKind::Var(v) => v.name().to_string(),
            _ => "rxplaceholder".to_string(),
        };
        Ok(TArg {
            buf: te::placeholder(&name, shape, dtype),
            expr: e.clone(),
        })
    }

    /// Argument `i` as a scalar literal if it is a rank-0 constant or a prim value (TVM
    /// inlines those into the TIR of binary operators).
    pub(crate) fn scalar(&self, i: usize) -> Option<PrimExpr> {
        let e = self.call.args.get(i)?;
        match e.kind() {
            ExprKind::Constant(c) => {
                if !c.data.shape().is_empty() {
                    return None;
                }
                let dt = self.sinfo.get(i)?.tensor_dtype()?;
                scalar_of(&c.data, dt)
            }
            ExprKind::PrimValue(p) => Some(p.clone()),
            // A prim value known only at run time: a scalar parameter of the kernel, as
            // TVM's `call_te` makes one.
            ExprKind::Var(v) => match self.sinfo.get(i)? {
                StructInfo::Prim {
                    value: Some(value), ..
                } => Some(value.clone()),
                StructInfo::Prim { dtype, value: None } => {
                    let param = tir::Var::new(v.name(), *dtype);
                    self.prim_args.borrow_mut().push((param.clone(), e.clone()));
                    Some(PrimExpr::from(&param))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The output tensor's shape and dtype.
    pub(crate) fn out_tensor(&self) -> Result<(Vec<PrimExpr>, DataType)> {
        match (self.out.tensor_shape(), self.out.tensor_dtype()) {
            (Some(s), Some(d)) => Ok((s.to_vec(), d)),
            _ => unsupported("the result is not a tensor of known shape and dtype"),
        }
    }

    pub(crate) fn attr(&self, name: &str) -> Option<&AttrValue> {
        self.call.attrs.get(name)
    }
    pub(crate) fn attr_int(&self, name: &str) -> Option<i64> {
        self.attr(name).and_then(AttrValue::as_int)
    }
    pub(crate) fn attr_ints(&self, name: &str) -> Option<Vec<i64>> {
        match self.attr(name)? {
            AttrValue::None => None,
            AttrValue::Int(v) => Some(vec![*v]),
            v => v.as_int_list(),
        }
    }
    pub(crate) fn attr_f64(&self, name: &str) -> Option<f64> {
        number(self.attr(name)?)
    }
    /// A list of numbers (`roi=[T.float32(0), …]`).
    pub(crate) fn attr_f64s(&self, name: &str) -> Option<Vec<f64>> {
        match self.attr(name)? {
            AttrValue::List(items) => items.iter().map(number).collect(),
            _ => None,
        }
    }
    pub(crate) fn attr_bool(&self, name: &str) -> Option<bool> {
        self.attr(name).and_then(AttrValue::as_bool)
    }
    pub(crate) fn attr_str(&self, name: &str) -> Option<&str> {
        self.attr(name).and_then(AttrValue::as_str)
    }
    /// Packs a built PrimFunc into a `call_tir` of `inputs` with `outputs` as the
    /// destination buffers.
    pub(crate) fn finish(
        &self,
        name: &str,
        te: te::Te,
        inputs: &[&TArg],
        outputs: &[tir::Buffer],
    ) -> Result<Lowered> {
        let mut params: Vec<tir::Buffer> = inputs.iter().map(|a| a.buf.clone()).collect();
        params.extend(outputs.iter().cloned());
        let mut func = te.build(name, &params);
        let mut args: Vec<Expr> = inputs.iter().map(|a| a.expr.clone()).collect();
        // Unbound variables become scalar parameters after the inputs, passed as prim values,
        // as TVM's `call_te` does (`T.max(n, 3)` as an output dimension binds no `n`).
        let prim_args = self.prim_args.borrow();
        for (k, v) in extra_vars(&func, &params).into_iter().enumerate() {
            func.params.insert(inputs.len() + k, v.clone());
            args.push(match prim_args.iter().find(|(p, _)| *p == v) {
                Some((_, arg)) => arg.clone(),
                None => Expr::prim(PrimExpr::from(&v)),
            });
        }
        Ok(Lowered::CallTir {
            func,
            args,
            out: self.out.clone(),
        })
    }
}

/// `lowered`'s kernel checking `cond` before anything else, failing with `message` (a
/// `T.Assert` at the top of its root block). The kernel is marked opaque, so that fusion never
/// merges the check into another kernel's loops.
pub(crate) fn assert_first(lowered: Lowered, cond: PrimExpr, message: String) -> Lowered {
    let Lowered::CallTir {
        mut func,
        args,
        out,
    } = lowered
    else {
        return lowered;
    };
    let check = |body: &tir::Stmt| {
        tir::Stmt::new(tir::StmtKind::AssertStmt {
            cond: cond.clone(),
            message: PrimExpr::string(message.clone()),
            body: body.clone(),
        })
    };
    func.body = match func.body.kind() {
        tir::StmtKind::SBlockRealize(root) => {
            let mut root = root.clone();
            root.block.body = check(&root.block.body);
            tir::Stmt::new(tir::StmtKind::SBlockRealize(root))
        }
        _ => check(&func.body),
    };
    func.attrs.insert(
        "op_pattern".to_string(),
        tir::AttrValue::Int(crate::transform::annotate_tir_op_pattern::OPAQUE),
    );
    Lowered::CallTir { func, args, out }
}

/// Symbolic variables of the kernel that no parameter buffer's shape binds (as a dimension
/// of its own), in first-use order. A variable that is a whole dimension of an input or an
/// output (`reshape` to an `R.Shape([a, b])` parameter) is bound from the tensor's shape at
/// the call, as TVM's `call_te` does.
fn extra_vars(func: &PrimFunc, params: &[tir::Buffer]) -> Vec<tir::Var> {
    let bound: Vec<tir::Var> = params
        .iter()
        .flat_map(|b| b.shape.iter().filter_map(|d| d.as_var().cloned()))
        .collect();
    func.free_vars()
        .into_iter()
        .filter(|v| !bound.contains(v))
        .collect()
}

/// The value of a rank-0 tensor as a literal of `dt`.
fn scalar_of(t: &vm::Tensor, dt: DataType) -> Option<PrimExpr> {
    let bytes = t.to_bytes();
    let mut raw = [0u8; 8];
    let n = dt.bytes().min(8);
    raw.get_mut(..n)?.copy_from_slice(bytes.get(..n)?);
    let bits = u64::from_le_bytes(raw);
    Some(match (dt.code, dt.bits) {
        (tir::TypeCode::Float, 64) => PrimExpr::float(dt, f64::from_bits(bits)),
        (tir::TypeCode::Float, 32) => PrimExpr::float(dt, f64::from(f32::from_bits(bits as u32))),
        (tir::TypeCode::Float, 16) => {
            PrimExpr::float(dt, half::f16::from_bits(bits as u16).to_f64())
        }
        (tir::TypeCode::BFloat, 16) => {
            PrimExpr::float(dt, half::bf16::from_bits(bits as u16).to_f64())
        }
        _ if dt.is_bool() => PrimExpr::bool(bits & 1 != 0),
        (tir::TypeCode::Int, b) if b < 64 => {
            let s = 64 - u32::from(b);
            PrimExpr::int(dt, ((bits << s) as i64) >> s)
        }
        _ => PrimExpr::int(dt, bits as i64),
    })
}

type Rule = fn(&OpCall) -> Result<Lowered>;

/// Whether LegalizeOps handles calls of `op`: it has a rule, or it is a call form or runtime
/// operator that passes through to the backend unchanged.
pub fn handles(op: &str) -> bool {
    passes_through(op) || rule(op).is_some()
}

/// The legalization rule of `op`, if there is one.
fn rule(op: &str) -> Option<Rule> {
    let name = op.strip_prefix("relax.")?;
    elementwise::rule(name)
        .or_else(|| reduce::rule(name))
        .or_else(|| matmul::rule(name))
        .or_else(|| nn::rule(name))
        .or_else(|| nn_extra::rule(name))
        .or_else(|| manipulate::rule(name))
        .or_else(|| create::rule(name))
        .or_else(|| sort::rule(name))
        .or_else(|| image::rule(name))
        .or_else(|| qdq::rule(name))
        .or_else(|| grad::rule(name))
        .or_else(|| scatter::rule(name))
        .or_else(|| search::rule(name))
        .or_else(|| vision::rule(name))
}
