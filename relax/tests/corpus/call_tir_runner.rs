//! Running a legalized `main` without the VM: when `main` is nothing but `call_tir` bindings,
//! tuples, tuple indexing and constants, its PrimFuncs run in the reference interpreter
//! (`tir::interp`) on case.json inputs, and the result is compared with TVM's `expected`.
//! Shared by the LegalizeOps and optimize corpus tests.

#![allow(dead_code)]

use std::collections::HashMap;

use relax::{Binding, Expr, ExprKind, IRModule, StructInfo};
use relaxjit_relax as relax;
use serde_json::Value as Json;
pub use support::case::{RawTensor as Tensor, RawValue as Value};
use tir::interp::InterpArg;
use tir::{DataType, PrimExpr};

// ----- values ------------------------------------------------------------------------------

/// A corpus value (`{"tensor": …}` or `{"tuple": …}`) read by the shared case format.
pub fn value_from_json(v: &Json) -> Result<Value, String> {
    Value::from_json(v).map_err(|e| e.to_string())
}

pub fn vm_tensor_from_json(v: &Json) -> Option<vm::Tensor> {
    match support::case::value_from_json(v) {
        Ok(vm::Value::Tensor(t)) => Some(t),
        _ => None,
    }
}

/// Compares with the corpus's rules.
pub fn compare(got: &Value, want: &Json, rtol: f64, atol: f64) -> Result<(), String> {
    support::case::compare_raw(got, want, rtol, atol)
}

// ----- evaluation of a call_tir-only `main` ------------------------------------------------

/// Why `main` is not covered by the evaluation.
pub fn coverage(module: &IRModule) -> Result<(), String> {
    let main = module.relax_function("main").ok_or("no main")?;
    for p in &main.params {
        if p.struct_info().tensor_shape().is_none() {
            return Err(format!(
                "parameter `{}` is not a tensor of known shape",
                p.name()
            ));
        }
    }
    let mut calls = 0;
    for b in &main.body.blocks {
        for bind in &b.bindings {
            let Binding::Var { value, .. } = bind else {
                return Err("main has a match_cast".into());
            };
            match value.kind() {
                ExprKind::Call(c) if c.op() == Some("relax.call_tir") => calls += 1,
                ExprKind::Call(c) => {
                    return Err(format!("main calls {:?}", c.callee));
                }
                ExprKind::Var(_)
                | ExprKind::Tuple(_)
                | ExprKind::TupleGetItem(..)
                | ExprKind::Constant(_) => {}
                other => return Err(format!("main binds {other:?}")),
            }
        }
    }
    if calls == 0 {
        return Err("main calls no prim_func".into());
    }
    Ok(())
}

pub fn eval_dim(e: &PrimExpr, syms: &HashMap<tir::VarId, i64>) -> Result<i64, String> {
    let bindings: Vec<(tir::Var, tir::arith::scalar::Scalar)> = Vec::new();
    let mut subst = e.clone();
    let mut fv = Vec::new();
    e.visit(&mut |x| {
        if let Some(v) = x.as_var() {
            fv.push(v.clone());
        }
    });
    let mut bindings = bindings;
    for v in fv {
        let val = syms
            .get(&v.id())
            .ok_or_else(|| format!("unbound shape variable `{}`", v.name()))?;
        bindings.push((v, tir::arith::scalar::Scalar::Int(*val)));
    }
    subst = tir::arith::simplify(&subst);
    match tir::interp::eval_expr(&subst, &bindings).map_err(|e| e.to_string())? {
        tir::arith::scalar::Scalar::Int(v) => Ok(v),
        tir::arith::scalar::Scalar::Float(_) => Err("float shape".into()),
    }
}

pub struct Eval<'m> {
    module: &'m IRModule,
    env: HashMap<relax::VarId, Value>,
    syms: HashMap<tir::VarId, i64>,
}

impl Eval<'_> {
    fn expr(&self, e: &Expr) -> Result<Value, String> {
        match e.kind() {
            ExprKind::Var(v) => self
                .env
                .get(&v.id())
                .cloned()
                .ok_or_else(|| format!("unbound `{}`", v.name())),
            ExprKind::Constant(c) => Ok(Value::Tensor(Tensor {
                dtype: DataType::parse(&c.data.dtype().to_string()).ok_or("constant dtype")?,
                shape: c.data.shape().to_vec(),
                data: c.data.to_bytes(),
            })),
            ExprKind::Tuple(items) => items
                .iter()
                .map(|i| self.expr(i))
                .collect::<Result<_, _>>()
                .map(Value::Tuple),
            ExprKind::TupleGetItem(t, i) => match self.expr(t)? {
                Value::Tuple(mut items) if *i < items.len() => Ok(items.swap_remove(*i)),
                _ => Err("bad tuple index".into()),
            },
            ExprKind::Call(c) if c.op() == Some("relax.call_tir") => self.call_tir(c),
            other => Err(format!("cannot evaluate {other:?}")),
        }
    }

    fn alloc(&self, si: &StructInfo) -> Result<Vec<Tensor>, String> {
        match si {
            StructInfo::Tensor {
                shape: Some(s),
                dtype: Some(d),
                ..
            } => {
                let shape: Vec<i64> = s
                    .iter()
                    .map(|e| eval_dim(e, &self.syms))
                    .collect::<Result<_, _>>()?;
                let n: i64 = shape.iter().product();
                Ok(vec![Tensor {
                    dtype: *d,
                    data: vec![0u8; n.max(0) as usize * d.bytes()],
                    shape,
                }])
            }
            StructInfo::Tuple(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.extend(self.alloc(i)?);
                }
                Ok(out)
            }
            _ => Err("output of unknown shape".into()),
        }
    }

    fn call_tir(&self, c: &relax::Call) -> Result<Value, String> {
        let ExprKind::GlobalVar(name) = c.args[0].kind() else {
            return Err("call_tir of a non-global".into());
        };
        let func = self
            .module
            .prim_func(name)
            .ok_or_else(|| format!("no prim_func `{name}`"))?;
        let ExprKind::Tuple(args) = c.args[1].kind() else {
            return Err("call_tir without an argument tuple".into());
        };
        let mut inputs = Vec::new();
        for a in args {
            match self.expr(a)? {
                Value::Tensor(t) => inputs.push(t),
                Value::Tuple(_) => return Err("tuple argument to call_tir".into()),
            }
        }
        let out_si = c.ty_args.first().ok_or("call_tir without out_ty")?;
        let mut outputs = self.alloc(out_si)?;
        let mut scalars = Vec::new();
        if let Some(tv) = c.args.get(2) {
            let ExprKind::ShapeExpr(dims) = tv.kind() else {
                return Err("tir_vars is not a shape".into());
            };
            for d in dims {
                scalars.push(eval_dim(d, &self.syms)?);
            }
        }
        {
            let mut iargs: Vec<InterpArg<'_>> = Vec::new();
            for t in inputs.iter_mut().chain(outputs.iter_mut()) {
                iargs.push(InterpArg::Buffer {
                    data: &mut t.data,
                    shape: t.shape.clone(),
                    dtype: t.dtype,
                });
            }
            for s in scalars {
                iargs.push(InterpArg::Int(s));
            }
            tir::interp::run(func, &mut iargs).map_err(|e| e.to_string())?;
        }
        if matches!(out_si, StructInfo::Tuple(_)) {
            Ok(Value::Tuple(
                outputs.into_iter().map(Value::Tensor).collect(),
            ))
        } else {
            outputs
                .pop()
                .map(Value::Tensor)
                .ok_or_else(|| "no output".into())
        }
    }
}

/// Runs `main` on `inputs`: `Err` for argument mismatches and evaluation errors.
pub fn run_main(module: &IRModule, inputs: &[Value]) -> Result<Value, String> {
    let main = module.relax_function("main").ok_or("no main")?;
    if main.params.len() != inputs.len() {
        return Err("arity mismatch".into());
    }
    let mut ev = Eval {
        module,
        env: HashMap::new(),
        syms: HashMap::new(),
    };
    for (p, v) in main.params.iter().zip(inputs) {
        let Value::Tensor(t) = v else {
            return Err(format!("`{}` expects a tensor", p.name()));
        };
        let si = p.struct_info();
        if si.tensor_dtype() != Some(t.dtype) {
            return Err(format!("`{}`: dtype mismatch", p.name()));
        }
        let shape = si.tensor_shape().ok_or("unknown shape")?;
        if shape.len() != t.shape.len() {
            return Err(format!("`{}`: rank mismatch", p.name()));
        }
        for (d, &n) in shape.iter().zip(&t.shape) {
            if let Some(v) = d.as_var() {
                match ev.syms.get(&v.id()) {
                    Some(&old) if old != n => return Err("symbolic dim mismatch".into()),
                    _ => {
                        ev.syms.insert(v.id(), n);
                    }
                }
            }
        }
        for (d, &n) in shape.iter().zip(&t.shape) {
            if eval_dim(d, &ev.syms)? != n {
                return Err(format!("`{}`: shape mismatch", p.name()));
            }
        }
        ev.env.insert(p.id(), v.clone());
    }
    for b in &main.body.blocks {
        for bind in &b.bindings {
            let v = ev.expr(bind.value())?;
            ev.env.insert(bind.var().id(), v);
        }
    }
    ev.expr(&main.body.body)
}

/// Runs every call of `main` in case.json (`json`) on `module` and returns the calls whose
/// result differs from TVM's `expected` (within the case's tolerances), or that succeeded where
/// TVM raised: `(call index, what differs)`.
pub fn check_main_calls(module: &IRModule, json: &Json) -> Vec<(usize, String)> {
    let (rtol, atol) = (
        json["rtol"].as_f64().unwrap_or(0.0),
        json["atol"].as_f64().unwrap_or(0.0),
    );
    let mut wrong = Vec::new();
    for (k, call) in json["calls"].as_array().into_iter().flatten().enumerate() {
        if call["function"].as_str() != Some("main") {
            continue;
        }
        let inputs: Result<Vec<Value>, String> = call["inputs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(value_from_json)
            .collect();
        let result = inputs.and_then(|i| run_main(module, &i));
        let verdict = if call["expect_error"].as_bool() == Some(true) {
            match result {
                Err(_) => Ok(()),
                Ok(_) => Err("expected an error".to_string()),
            }
        } else {
            result.and_then(|got| compare(&got, &call["expected"], rtol, atol))
        };
        if let Err(m) = verdict {
            wrong.push((k, m));
        }
    }
    wrong
}
