//! Structural equality of Relax modules modulo variable renaming (alpha-equivalence).
//!
//! Two modules are equal when they hold the same global names with equal functions. Relax
//! functions are equal when every Relax variable and every symbolic (TIR) variable of one
//! corresponds to exactly one of the other, consistently everywhere (a bijection built on first
//! encounter, as in `tir::structural_eq`); names of variables do not matter, names of functions,
//! operators, attributes and packed functions do. Float constants and attributes compare by bit
//! pattern; tensor constants by dtype, shape and bytes (not by their metadata index). PrimFuncs
//! are compared with [`tir::structural_diff`].

use std::collections::HashMap;

use tir::PrimExpr;

use crate::ir::*;

/// Whether `a` and `b` are the same module up to renaming of variables.
pub fn structural_equal(a: &IRModule, b: &IRModule) -> bool {
    structural_diff(a, b).is_none()
}

/// The modules' `I.module_global_infos`, in order.
fn global_infos(a: &[(String, Vec<VDevice>)], b: &[(String, Vec<VDevice>)]) -> Result<(), String> {
    let names = |g: &[(String, Vec<VDevice>)]| -> Vec<(String, usize)> {
        g.iter().map(|(n, v)| (n.clone(), v.len())).collect()
    };
    if names(a) != names(b) {
        return Err(format!(
            "module global infos differ: {:?} vs {:?}",
            names(a),
            names(b)
        ));
    }
    for ((name, xs), (_, ys)) in a.iter().zip(b) {
        for (i, (x, y)) in xs.iter().zip(ys).enumerate() {
            let path = format!("module.global_infos[{name:?}][{i}]");
            if (x.vdevice_id, &x.memory_scope) != (y.vdevice_id, &y.memory_scope) {
                return Err(format!("{path}: {x:?} vs {y:?}"));
            }
            EqCtx::default().attrs(&format!("{path}.target"), &x.target, &y.target)?;
        }
    }
    Ok(())
}

/// What kind of module function `f` is, for messages.
fn kind(f: &BaseFunc) -> &'static str {
    match f {
        BaseFunc::Relax(_) => "a Relax function",
        BaseFunc::Tir(_) => "a PrimFunc",
        BaseFunc::Extern(_) => "an extern function",
    }
}

/// `None` if the modules are structurally equal, otherwise the first difference with its path
/// (`main.body.blocks[0].bindings[2].value.args[1]: ...`).
pub fn structural_diff(a: &IRModule, b: &IRModule) -> Option<String> {
    let names_a: Vec<&String> = a.functions.keys().collect();
    let names_b: Vec<&String> = b.functions.keys().collect();
    if names_a != names_b {
        return Some(format!("functions differ: {names_a:?} vs {names_b:?}"));
    }
    if let Err(e) = EqCtx::default().attrs("module.attrs", &a.attrs, &b.attrs) {
        return Some(e);
    }
    if let Err(e) = global_infos(&a.global_infos, &b.global_infos) {
        return Some(e);
    }
    for (name, fa) in &a.functions {
        let fb = b.functions.get(name)?;
        let r = match (fa, fb) {
            (BaseFunc::Relax(x), BaseFunc::Relax(y)) => EqCtx::default().function(name, x, y),
            (BaseFunc::Tir(x), BaseFunc::Tir(y)) => match tir::structural_diff(x, y) {
                Some(d) => Err(format!("{name}: {d}")),
                None => Ok(()),
            },
            (BaseFunc::Extern(x), BaseFunc::Extern(y)) => {
                if x.global_symbol != y.global_symbol {
                    Err(format!(
                        "{name}: extern symbols {:?} vs {:?}",
                        x.global_symbol, y.global_symbol
                    ))
                } else if !struct_info_identical(&x.struct_info, &y.struct_info) {
                    Err(format!("{name}: extern function types differ"))
                } else {
                    Ok(())
                }
            }
            _ => Err(format!("{name}: {} vs {}", kind(fa), kind(fb))),
        };
        if let Err(e) = r {
            return Some(e);
        }
    }
    None
}

/// `None` if two Relax functions are structurally equal, otherwise the first difference.
pub fn function_diff(a: &Function, b: &Function) -> Option<String> {
    EqCtx::default().function(&a.name, a, b).err()
}

/// Whether two struct infos are equal with variables compared by identity (no renaming): the
/// check the printer uses to leave out annotations that repeat what a call declares.
pub fn struct_info_identical(a: &StructInfo, b: &StructInfo) -> bool {
    let mut cx = EqCtx {
        identity: true,
        ..EqCtx::default()
    };
    cx.si("", a, b).is_ok()
}

type Diff = Result<(), String>;

fn fail<T>(path: &str, what: impl std::fmt::Display) -> Result<T, String> {
    Err(format!("{path}: {what}"))
}

#[derive(Default)]
struct EqCtx {
    vars: HashMap<VarId, VarId>,
    vars_rev: HashMap<VarId, VarId>,
    syms: HashMap<tir::VarId, tir::VarId>,
    syms_rev: HashMap<tir::VarId, tir::VarId>,
    /// Compare variables by identity instead of building a correspondence.
    identity: bool,
}

impl EqCtx {
    fn function(&mut self, path: &str, a: &Function, b: &Function) -> Diff {
        if a.name != b.name {
            return fail(path, format!("name {} vs {}", a.name, b.name));
        }
        if a.is_pure != b.is_pure || a.private != b.private {
            return fail(path, "purity / privacy differ");
        }
        self.attrs(&format!("{path}.attrs"), &a.attrs, &b.attrs)?;
        if a.params.len() != b.params.len() {
            return fail(
                path,
                format!("{} vs {} parameters", a.params.len(), b.params.len()),
            );
        }
        for (i, (x, y)) in a.params.iter().zip(&b.params).enumerate() {
            self.var(&format!("{path}.params[{i}]"), x, y)?;
        }
        self.si(
            &format!("{path}.ret"),
            &a.ret_struct_info,
            &b.ret_struct_info,
        )?;
        self.seq(&format!("{path}.body"), &a.body, &b.body)
    }

    fn var(&mut self, path: &str, a: &Var, b: &Var) -> Diff {
        if self.identity {
            return if a == b {
                Ok(())
            } else {
                fail(path, format!("{a:?} vs {b:?}"))
            };
        }
        match (self.vars.get(&a.id()), self.vars_rev.get(&b.id())) {
            (Some(m), _) if *m == b.id() => Ok(()),
            (None, None) => {
                if a.is_dataflow() != b.is_dataflow() {
                    return fail(path, format!("{a:?} vs {b:?}: dataflow vs non-dataflow"));
                }
                self.vars.insert(a.id(), b.id());
                self.vars_rev.insert(b.id(), a.id());
                self.si(
                    &format!("{path}.struct_info"),
                    a.struct_info(),
                    b.struct_info(),
                )
            }
            _ => fail(path, format!("{a:?} vs {b:?} do not correspond")),
        }
    }

    fn sym(&mut self, path: &str, a: &tir::Var, b: &tir::Var) -> Diff {
        if a.dtype() != b.dtype() {
            return fail(path, format!("{a:?} vs {b:?}: types differ"));
        }
        if self.identity {
            return if a == b {
                Ok(())
            } else {
                fail(path, format!("{a:?} vs {b:?}"))
            };
        }
        match (self.syms.get(&a.id()), self.syms_rev.get(&b.id())) {
            (Some(m), _) if *m == b.id() => Ok(()),
            (None, None) => {
                self.syms.insert(a.id(), b.id());
                self.syms_rev.insert(b.id(), a.id());
                Ok(())
            }
            _ => fail(path, format!("{a:?} vs {b:?} do not correspond")),
        }
    }

    fn seq(&mut self, path: &str, a: &SeqExpr, b: &SeqExpr) -> Diff {
        if a.blocks.len() != b.blocks.len() {
            return fail(
                path,
                format!("{} vs {} blocks", a.blocks.len(), b.blocks.len()),
            );
        }
        for (i, (x, y)) in a.blocks.iter().zip(&b.blocks).enumerate() {
            let p = format!("{path}.blocks[{i}]");
            if x.dataflow != y.dataflow {
                return fail(&p, "dataflow vs plain block");
            }
            if x.bindings.len() != y.bindings.len() {
                return fail(
                    &p,
                    format!("{} vs {} bindings", x.bindings.len(), y.bindings.len()),
                );
            }
            for (j, (u, v)) in x.bindings.iter().zip(&y.bindings).enumerate() {
                self.binding(&format!("{p}.bindings[{j}]"), u, v)?;
            }
        }
        self.expr(&format!("{path}.result"), &a.body, &b.body)
    }

    fn binding(&mut self, path: &str, a: &Binding, b: &Binding) -> Diff {
        match (a, b) {
            (Binding::Var { var: va, value: xa }, Binding::Var { var: vb, value: xb }) => {
                // Values first: a binding's variable is not in scope in its own value, except
                // for recursive inner functions, which refer to it by identity either way.
                self.expr(&format!("{path}.value"), xa, xb)?;
                self.var(&format!("{path}.var"), va, vb)
            }
            (
                Binding::MatchCast {
                    var: va,
                    value: xa,
                    struct_info: sa,
                },
                Binding::MatchCast {
                    var: vb,
                    value: xb,
                    struct_info: sb,
                },
            ) => {
                self.expr(&format!("{path}.value"), xa, xb)?;
                self.si(&format!("{path}.struct_info"), sa, sb)?;
                self.var(&format!("{path}.var"), va, vb)
            }
            _ => fail(path, "var binding vs match_cast"),
        }
    }

    fn exprs(&mut self, path: &str, a: &[Expr], b: &[Expr]) -> Diff {
        if a.len() != b.len() {
            return fail(path, format!("{} vs {} elements", a.len(), b.len()));
        }
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            self.expr(&format!("{path}[{i}]"), x, y)?;
        }
        Ok(())
    }

    fn expr(&mut self, path: &str, a: &Expr, b: &Expr) -> Diff {
        use ExprKind as E;
        match (a.kind(), b.kind()) {
            (E::Var(x), E::Var(y)) => self.var(path, x, y),
            (E::Constant(x), E::Constant(y)) => {
                let (tx, ty) = (&x.data, &y.data);
                if tx.dtype() != ty.dtype() || tx.shape() != ty.shape() {
                    return fail(path, "constants of different dtype or shape");
                }
                if !tx.content_eq(ty) {
                    return fail(path, "constants with different data");
                }
                self.si(path, &x.struct_info, &y.struct_info)
            }
            (E::ShapeExpr(x), E::ShapeExpr(y)) => self.prims(path, x, y),
            (E::PrimValue(x), E::PrimValue(y)) => self.prim(path, x, y),
            (E::StringImm(x), E::StringImm(y)) if x == y => Ok(()),
            (E::DataTypeImm(x), E::DataTypeImm(y)) if x == y => Ok(()),
            (E::Tuple(x), E::Tuple(y)) => self.exprs(path, x, y),
            (E::TupleGetItem(x, i), E::TupleGetItem(y, j)) if i == j => self.expr(path, x, y),
            (E::Call(x), E::Call(y)) => self.call(path, x, y),
            (E::If(x), E::If(y)) => {
                self.expr(&format!("{path}.cond"), &x.cond, &y.cond)?;
                self.seq(&format!("{path}.then"), &x.then_branch, &y.then_branch)?;
                self.seq(&format!("{path}.else"), &x.else_branch, &y.else_branch)
            }
            (E::Seq(x), E::Seq(y)) => self.seq(path, x, y),
            (E::Function(x), E::Function(y)) => self.function(path, x, y),
            (E::GlobalVar(x), E::GlobalVar(y)) if x == y => Ok(()),
            (E::ExternFunc(x), E::ExternFunc(y)) if x.global_symbol == y.global_symbol => {
                if struct_info_identical(&x.struct_info, &y.struct_info) {
                    Ok(())
                } else {
                    fail(
                        path,
                        format!("types of extern function {:?} differ", x.global_symbol),
                    )
                }
            }
            _ => fail(path, format!("{a:?} vs {b:?}")),
        }
    }

    fn call(&mut self, path: &str, a: &Call, b: &Call) -> Diff {
        match (&a.callee, &b.callee) {
            (Callee::Op(x), Callee::Op(y))
            | (Callee::Global(x), Callee::Global(y))
            | (Callee::Extern(x), Callee::Extern(y))
                if x == y => {}
            (Callee::Expr(x), Callee::Expr(y)) => self.expr(&format!("{path}.callee"), x, y)?,
            (x, y) => return fail(path, format!("callee {x:?} vs {y:?}")),
        }
        self.exprs(&format!("{path}.args"), &a.args, &b.args)?;
        self.attrs(&format!("{path}.attrs"), &a.attrs, &b.attrs)?;
        if a.ty_args.len() != b.ty_args.len() {
            return fail(path, "different number of ty_args");
        }
        for (i, (x, y)) in a.ty_args.iter().zip(&b.ty_args).enumerate() {
            self.si(&format!("{path}.ty_args[{i}]"), x, y)?;
        }
        Ok(())
    }

    fn attrs(&mut self, path: &str, a: &Attrs, b: &Attrs) -> Diff {
        if a.0.len() != b.0.len() {
            return fail(path, format!("{} vs {} attributes", a.0.len(), b.0.len()));
        }
        for ((ka, va), (kb, vb)) in a.iter().zip(b.iter()) {
            if ka != kb {
                return fail(path, format!("attribute `{ka}` vs `{kb}`"));
            }
            self.attr(&format!("{path}.{ka}"), va, vb)?;
        }
        Ok(())
    }

    fn attr(&mut self, path: &str, a: &AttrValue, b: &AttrValue) -> Diff {
        use AttrValue as V;
        match (a, b) {
            (V::None, V::None) => Ok(()),
            (V::Bool(x), V::Bool(y)) if x == y => Ok(()),
            (V::Int(x), V::Int(y)) if x == y => Ok(()),
            (V::Float(x), V::Float(y)) if x.to_bits() == y.to_bits() => Ok(()),
            (V::Str(x), V::Str(y)) if x == y => Ok(()),
            (V::DType(x), V::DType(y)) if x == y => Ok(()),
            (V::Expr(x), V::Expr(y)) | (V::PrimValue(x), V::PrimValue(y)) => self.prim(path, x, y),
            (V::IndexMap(x), V::IndexMap(y))
                if x.params.len() == y.params.len() && x.results.len() == y.results.len() =>
            {
                // The parameters are bound by the map: compare `y` renamed to `x`'s parameters.
                for (i, (p, q)) in x.params.iter().zip(&y.params).enumerate() {
                    if p.dtype() != q.dtype() {
                        return fail(&format!("{path}.params[{i}]"), format!("{p:?} vs {q:?}"));
                    }
                }
                let own: Vec<PrimExpr> = x.params.iter().map(PrimExpr::from).collect();
                for (i, (u, v)) in x.results.iter().zip(y.apply(&own)).enumerate() {
                    self.prim(&format!("{path}.results[{i}]"), u, &v)?;
                }
                Ok(())
            }
            (V::List(x), V::List(y)) if x.len() == y.len() => {
                for (i, (u, v)) in x.iter().zip(y).enumerate() {
                    self.attr(&format!("{path}[{i}]"), u, v)?;
                }
                Ok(())
            }
            (V::Map(x), V::Map(y)) if x.len() == y.len() => {
                for ((ku, u), (kv, v)) in x.iter().zip(y) {
                    if ku != kv {
                        return fail(path, format!("key `{ku}` vs `{kv}`"));
                    }
                    self.attr(&format!("{path}.{ku}"), u, v)?;
                }
                Ok(())
            }
            _ => fail(path, format!("{a:?} vs {b:?}")),
        }
    }

    fn si(&mut self, path: &str, a: &StructInfo, b: &StructInfo) -> Diff {
        use StructInfo as S;
        match (a, b) {
            (S::Any, S::Any) => Ok(()),
            (
                S::Prim {
                    dtype: da,
                    value: va,
                },
                S::Prim {
                    dtype: db,
                    value: vb,
                },
            ) if da == db => match (va, vb) {
                (None, None) => Ok(()),
                (Some(x), Some(y)) => self.prim(path, x, y),
                _ => fail(path, "prim value known vs unknown"),
            },
            (
                S::Shape {
                    values: va,
                    ndim: na,
                },
                S::Shape {
                    values: vb,
                    ndim: nb,
                },
            ) if na == nb => self.opt_prims(path, va.as_deref(), vb.as_deref()),
            (
                S::Tensor {
                    shape: sa,
                    dtype: da,
                    ndim: na,
                    vdevice: xa,
                },
                S::Tensor {
                    shape: sb,
                    dtype: db,
                    ndim: nb,
                    vdevice: xb,
                },
            ) if da == db && na == nb && xa == xb => {
                self.opt_prims(path, sa.as_deref(), sb.as_deref())
            }
            (S::Tuple(x), S::Tuple(y)) if x.len() == y.len() => {
                for (i, (u, v)) in x.iter().zip(y).enumerate() {
                    self.si(&format!("{path}[{i}]"), u, v)?;
                }
                Ok(())
            }
            (
                S::Func {
                    params: pa,
                    ret: ra,
                    pure: ua,
                },
                S::Func {
                    params: pb,
                    ret: rb,
                    pure: ub,
                },
            ) if ua == ub => {
                match (pa, pb) {
                    (None, None) => {}
                    (Some(x), Some(y)) if x.len() == y.len() => {
                        for (i, (u, v)) in x.iter().zip(y).enumerate() {
                            self.si(&format!("{path}.params[{i}]"), u, v)?;
                        }
                    }
                    _ => return fail(path, "callable parameters differ"),
                }
                self.si(&format!("{path}.ret"), ra, rb)
            }
            _ => fail(path, format!("struct info {a:?} vs {b:?}")),
        }
    }

    fn opt_prims(&mut self, path: &str, a: Option<&[PrimExpr]>, b: Option<&[PrimExpr]>) -> Diff {
        match (a, b) {
            (None, None) => Ok(()),
            (Some(x), Some(y)) => self.prims(path, x, y),
            _ => fail(path, "known vs unknown shape"),
        }
    }

    fn prims(&mut self, path: &str, a: &[PrimExpr], b: &[PrimExpr]) -> Diff {
        if a.len() != b.len() {
            return fail(path, format!("{} vs {} dimensions", a.len(), b.len()));
        }
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            self.prim(&format!("{path}[{i}]"), x, y)?;
        }
        Ok(())
    }

    fn prim(&mut self, path: &str, a: &PrimExpr, b: &PrimExpr) -> Diff {
        use tir::ExprKind as P;
        let mismatch = || fail(path, format!("{a} vs {b}"));
        if a.dtype() != b.dtype() {
            return mismatch();
        }
        match (a.kind(), b.kind()) {
            (P::IntImm { value: x, .. }, P::IntImm { value: y, .. }) if x == y => Ok(()),
            (P::FloatImm { value: x, .. }, P::FloatImm { value: y, .. })
                if x.to_bits() == y.to_bits() =>
            {
                Ok(())
            }
            (P::StringImm(x), P::StringImm(y)) if x == y => Ok(()),
            (P::Var(x), P::Var(y)) => self.sym(path, x, y),
            (P::Binary { op: oa, .. }, P::Binary { op: ob, .. }) if oa != ob => mismatch(),
            (P::Cmp { op: oa, .. }, P::Cmp { op: ob, .. }) if oa != ob => mismatch(),
            (P::Call { op: oa, .. }, P::Call { op: ob, .. }) if oa != ob => mismatch(),
            (P::Ramp { lanes: la, .. }, P::Ramp { lanes: lb, .. })
            | (P::Broadcast { lanes: la, .. }, P::Broadcast { lanes: lb, .. })
                if la != lb =>
            {
                mismatch()
            }
            (P::BufferLoad { buffer: x, .. }, P::BufferLoad { buffer: y, .. })
                if x.name != y.name =>
            {
                mismatch()
            }
            (P::Let { var: x, .. }, P::Let { var: y, .. }) => {
                self.sym(path, x, y)?;
                self.children(path, a, b)
            }
            (P::IntImm { .. }, _)
            | (P::FloatImm { .. }, _)
            | (P::StringImm(_), _)
            | (P::Var(_), _) => mismatch(),
            _ if std::mem::discriminant(a.kind()) == std::mem::discriminant(b.kind()) => {
                self.children(path, a, b)
            }
            _ => mismatch(),
        }
    }

    fn children(&mut self, path: &str, a: &PrimExpr, b: &PrimExpr) -> Diff {
        let (ca, cb) = (a.children(), b.children());
        if ca.len() != cb.len() {
            return fail(path, format!("{a} vs {b}"));
        }
        for (x, y) in ca.into_iter().zip(cb) {
            self.prim(path, x, y)?;
        }
        Ok(())
    }
}
