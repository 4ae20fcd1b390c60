//! VMCodeGen: lowers every Relax function of a fully lowered module (after VMShapeLower and
//! AttachGlobalSymbol) to VM bytecode through a [`vm::ExecBuilder`], as TVM's `CodeGenVM`
//! (`src/relax/backend/vm/codegen_vm.cc`) does, so that `as_text()` of the result reads like
//! TVM's listing of the same module.
//!
//! Per function: parameter `i` is register `i`; every binding gets the [`Arg`] of its value
//! (a new register for calls, an immediate or constant for literals), except alias bindings
//! (`y = x`), which copy into a new register with `vm.builtin.copy` so that `kill_object` acts
//! like Python's `del`. Calls whose struct info is `R.Tuple()` write `%void`. Register numbers
//! are sequential here and renumbered by [`vm::ExecBuilder::get`] (TVM's Formalize).
//!
//! Functions are emitted in the module's order; packed functions enter the function table when
//! first named (a callee is named before its arguments), constants when first used and are
//! de-duplicated, exactly as in TVM, which is what makes the listings comparable byte for byte.
//! Constructs that earlier passes should have removed (nested functions, `call_tir`, symbolic
//! shapes) are [`Error::Unsupported`] naming the function and binding.

use std::collections::HashMap;

use tir::PrimExpr;
use vm::bytecode::{Arg, ArgKind, ExecWord};
use vm::{ExecBuilder, FuncKind, Value};

use crate::ir::{
    AttrValue, BaseFunc, Binding, Call, Callee, Constant, Expr, ExprKind, Function, IRModule,
    SeqExpr, StructInfo, VarId,
};
use crate::{Error, Result};

/// Compiles every Relax function of `module` into a new executable. Returns it together with the
/// module's remaining (TIR) functions, which the caller compiles and links.
pub fn codegen(module: &IRModule) -> Result<(vm::Executable, IRModule)> {
    let mut builder = ExecBuilder::new();
    let rest = codegen_into(&mut builder, module)?;
    let exec = builder.get().map_err(vm_error)?;
    Ok((exec, rest))
}

/// Compiles every Relax function of `module` into `builder` (TVM's `relax.VMCodeGen(builder,
/// mod)`) and returns the module without them.
pub fn codegen_into(builder: &mut ExecBuilder, module: &IRModule) -> Result<IRModule> {
    let mut rest = IRModule {
        functions: Default::default(),
        attrs: module.attrs.clone(),
        global_infos: module.global_infos.clone(),
    };
    for (name, f) in &module.functions {
        match f {
            BaseFunc::Relax(func) => {
                let mut cg = CodeGenVM {
                    builder: &mut *builder,
                    module,
                    func_name: name,
                    vars: HashMap::new(),
                    next_reg: 0,
                    binding: None,
                };
                cg.function(name, func)?;
            }
            BaseFunc::Tir(_) => {
                rest.functions.insert(name.clone(), f.clone());
            }
            // Calls of it name its packed function (`global`); nothing to emit.
            BaseFunc::Extern(_) => {}
        }
    }
    Ok(rest)
}

/// The symbol a Relax function is emitted under: its `global_symbol` attribute, else its
/// module name unless it is private (TVM requires the attribute; AttachGlobalSymbol sets it
/// from the name, so a public function's name is what TVM would use).
pub fn global_symbol(name: &str, func: &Function) -> Option<String> {
    match func.attrs.get("global_symbol") {
        Some(AttrValue::Str(s)) => Some(s.clone()),
        _ => (!func.private).then(|| name.to_string()),
    }
}

fn vm_error(e: vm::Error) -> Error {
    Error::Internal(format!("VMCodeGen: {e}"))
}

/// Converts a TIR data type to the VM's (both follow DLPack's code/bits/lanes).
pub(crate) fn vm_dtype(dt: tir::DataType) -> Result<vm::DataType> {
    dt.to_string()
        .parse::<vm::DataType>()
        .map_err(|_| Error::Unsupported(format!("data type `{dt}` in the VM")))
}

struct CodeGenVM<'a> {
    builder: &'a mut ExecBuilder,
    module: &'a IRModule,
    func_name: &'a str,
    vars: HashMap<VarId, Arg>,
    next_reg: i64,
    /// The variable of the binding being compiled, for error messages.
    binding: Option<String>,
}

impl CodeGenVM<'_> {
    fn new_register(&mut self) -> Arg {
        let r = self.next_reg;
        self.next_reg += 1;
        Arg::register(r)
    }

    fn where_(&self) -> String {
        match &self.binding {
            Some(v) => format!("in function `{}`, binding `{v}`", self.func_name),
            None => format!("in function `{}`", self.func_name),
        }
    }

    fn unsupported(&self, what: impl std::fmt::Display) -> Error {
        Error::Unsupported(format!("{what} {}", self.where_()))
    }

    fn function(&mut self, name: &str, func: &Function) -> Result<()> {
        let symbol = global_symbol(name, func).ok_or_else(|| {
            Error::Unsupported(format!(
                "function `{name}` has no global symbol in VM codegen; did you forget to apply \
                 LambdaLift or AttachGlobalSymbol?"
            ))
        })?;
        let param_names: Vec<&str> = func.params.iter().map(|p| p.name()).collect();
        self.builder
            .emit_function(&symbol, func.params.len() as i64, &param_names)
            .map_err(vm_error)?;
        for p in &func.params {
            let r = self.new_register();
            self.vars.insert(p.id(), r);
        }
        let ret = self.seq(&func.body)?;
        self.binding = None;
        let ret = self.ensure_reg(ret)?;
        self.builder.emit_ret(ret).map_err(vm_error)?;
        self.builder.end_function(&symbol).map_err(vm_error)
    }

    fn ensure_reg(&mut self, arg: Arg) -> Result<Arg> {
        if arg.kind() == Some(ArgKind::Register) {
            return Ok(arg);
        }
        let dst = self.new_register();
        self.emit("vm.builtin.copy", &[arg], dst)?;
        Ok(dst)
    }

    fn emit(&mut self, name: &str, args: &[Arg], dst: Arg) -> Result<()> {
        self.builder.emit_call(name, args, dst).map_err(vm_error)
    }

    fn seq(&mut self, seq: &SeqExpr) -> Result<Arg> {
        for block in &seq.blocks {
            for binding in &block.bindings {
                let var = binding.var();
                self.binding = Some(var.name().to_string());
                let value = binding.value();
                let void = match binding {
                    Binding::Var { var, .. } => var.struct_info().is_void(),
                    Binding::MatchCast { struct_info, .. } => struct_info.is_void(),
                };
                let mut arg = self.expr(value, void)?;
                if matches!(value.kind(), ExprKind::Var(_)) {
                    let dst = self.new_register();
                    self.emit("vm.builtin.copy", &[arg], dst)?;
                    arg = dst;
                }
                self.vars.insert(var.id(), arg);
            }
        }
        self.expr(&seq.body, false)
    }

    /// Compiles `e`; `void` says that the binding it is the value of has type `R.Tuple()`.
    fn expr(&mut self, e: &Expr, void: bool) -> Result<Arg> {
        match e.kind() {
            ExprKind::Var(v) => self.vars.get(&v.id()).copied().ok_or_else(|| {
                self.unsupported(format_args!("use of the unbound variable `{}`", v.name()))
            }),
            ExprKind::Constant(c) => self.constant(c),
            ExprKind::ShapeExpr(dims) => {
                let mut shape = Vec::with_capacity(dims.len());
                for d in dims {
                    match d.as_int() {
                        Some(v) => shape.push(v),
                        None => {
                            return Err(self.unsupported(format_args!(
                                "the symbolic shape R.shape([..., {d}, ...]) (VMShapeLower must \
                                 run before codegen)"
                            )));
                        }
                    }
                }
                self.constant_value(Value::Shape(vm::ShapeTuple::new(shape)))
            }
            ExprKind::PrimValue(p) => self.prim_value(p),
            ExprKind::StringImm(s) => self.constant_value(Value::str(s.as_str())),
            ExprKind::DataTypeImm(dt) => {
                let dt = vm_dtype(*dt)?;
                self.constant_value(Value::DType(dt))
            }
            ExprKind::Tuple(fields) => {
                let mut args = Vec::with_capacity(fields.len());
                for f in fields {
                    args.push(self.expr(f, false)?);
                }
                let dst = self.new_register();
                self.emit("vm.builtin.make_tuple", &args, dst)?;
                Ok(dst)
            }
            ExprKind::TupleGetItem(t, i) => {
                let t = self.expr(t, false)?;
                let i = self.constant_value(Value::Int(*i as i64))?;
                let dst = self.new_register();
                self.emit("vm.builtin.tuple_getitem", &[t, i], dst)?;
                Ok(dst)
            }
            ExprKind::Call(call) => self.call(call, void),
            ExprKind::If(ife) => {
                let cond = self.expr(&ife.cond, false)?;
                let cond_reg = self.new_register();
                self.emit("vm.builtin.read_if_cond", &[cond], cond_reg)?;
                let if_offset = self.builder.num_instructions();
                self.builder.emit_if(cond_reg, 3).map_err(vm_error)?;
                let num_instr = self.builder.num_instructions();
                let true_value = self.seq(&ife.then_branch)?;
                let merge = self.new_register();
                self.emit("vm.builtin.copy", &[true_value], merge)?;
                let goto_offset = self.builder.num_instructions();
                self.builder.emit_goto(1);
                let false_offset = self.builder.num_instructions() - num_instr + 1;
                let false_value = self.seq(&ife.else_branch)?;
                self.emit("vm.builtin.copy", &[false_value], merge)?;
                self.builder
                    .set_instruction_data(if_offset, 2, false_offset as ExecWord)
                    .map_err(vm_error)?;
                let pc_offset = self.builder.num_instructions() - goto_offset;
                self.builder
                    .set_instruction_data(goto_offset, 1, pc_offset as ExecWord)
                    .map_err(vm_error)?;
                Ok(merge)
            }
            ExprKind::Seq(seq) => self.seq(seq),
            ExprKind::Function(f) => Err(self.unsupported(format_args!(
                "the nested function `{}` (apply LambdaLift before codegen)",
                f.name
            ))),
            ExprKind::GlobalVar(name) => self.global(name),
            ExprKind::ExternFunc(f) => self.packed(&f.global_symbol),
        }
    }

    fn constant(&mut self, c: &Constant) -> Result<Arg> {
        if c.is_placeholder() {
            return Err(Error::Unsupported(format!(
                "constant `metadata[\"ir.GenericConst\"][{}]` has no value: the module was read without its metadata table (ReadOptions::metadata)",
                c.metadata_index.unwrap_or_default()
            )));
        }
        let arg = self.constant_value(Value::Tensor(c.data.clone()))?;
        if let StructInfo::Tensor {
            vdevice: Some(vdev),
            ..
        } = &c.struct_info
        {
            // `"llvm:1"` names a vdevice of the module's global infos; only its memory scope
            // matters to the VM, and without global infos it is the default.
            let scope = vdev.split(':').nth(2).unwrap_or("global");
            if scope != "global" {
                self.builder
                    .save_memory_scope(arg, scope)
                    .map_err(vm_error)?;
            }
        }
        Ok(arg)
    }

    fn constant_value(&mut self, v: Value) -> Result<Arg> {
        self.builder.convert_constant(v).map_err(vm_error)
    }

    fn prim_value(&mut self, p: &PrimExpr) -> Result<Arg> {
        match p.kind() {
            tir::ExprKind::IntImm { value, .. } => self.constant_value(Value::Int(*value)),
            tir::ExprKind::FloatImm { value, .. } => self.constant_value(Value::Float(*value)),
            _ => Err(self.unsupported(format_args!(
                "the symbolic prim value `{p}` (VMShapeLower must run before codegen)"
            ))),
        }
    }

    /// The function-table argument of a module function referred to as a value or callee.
    fn global(&mut self, name: &str) -> Result<Arg> {
        let (symbol, kind) = match self.module.get(name) {
            Some(BaseFunc::Relax(f)) => (
                global_symbol(name, f).unwrap_or_else(|| name.to_string()),
                FuncKind::VMFunc,
            ),
            Some(BaseFunc::Tir(p)) => (
                p.global_symbol().unwrap_or(name).to_string(),
                FuncKind::PackedFunc,
            ),
            Some(BaseFunc::Extern(e)) => (e.global_symbol.clone(), FuncKind::PackedFunc),
            None => (name.to_string(), FuncKind::PackedFunc),
        };
        let i = self
            .builder
            .declare_function(&symbol, kind)
            .map_err(vm_error)?;
        Ok(Arg::func_idx(i as i64))
    }

    fn packed(&mut self, name: &str) -> Result<Arg> {
        let i = self
            .builder
            .declare_function(name, FuncKind::PackedFunc)
            .map_err(vm_error)?;
        Ok(Arg::func_idx(i as i64))
    }

    fn args(&mut self, args: &[Expr]) -> Result<Vec<Arg>> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            out.push(self.expr(a, false)?);
        }
        Ok(out)
    }

    fn call(&mut self, call: &Call, void: bool) -> Result<Arg> {
        let void = void || call_is_void(call);
        match &call.callee {
            Callee::Op(op) => self.op_call(op, call, void),
            Callee::Global(name) => {
                let dst = self.dst(void);
                let f = self.global(name)?;
                let args = self.args(&call.args)?;
                self.builder
                    .emit_call_func(f, &args, dst)
                    .map_err(vm_error)?;
                Ok(dst)
            }
            Callee::Extern(name) => {
                let dst = self.dst(void);
                let f = self.packed(name)?;
                let args = self.args(&call.args)?;
                self.builder
                    .emit_call_func(f, &args, dst)
                    .map_err(vm_error)?;
                Ok(dst)
            }
            Callee::Expr(callee) => {
                let dst = self.dst(void);
                let f = self.expr(callee, false)?;
                let args = self.args(&call.args)?;
                if f.kind() == Some(ArgKind::FuncIdx) {
                    self.builder
                        .emit_call_func(f, &args, dst)
                        .map_err(vm_error)?;
                } else {
                    let mut all = vec![Arg::vm(), f];
                    all.extend(args);
                    self.emit("vm.builtin.invoke_closure", &all, dst)?;
                }
                Ok(dst)
            }
        }
    }

    fn dst(&mut self, void: bool) -> Arg {
        if void {
            Arg::void()
        } else {
            self.new_register()
        }
    }

    fn op_call(&mut self, op: &str, call: &Call, void: bool) -> Result<Arg> {
        match op {
            "relax.null_value" => Ok(Arg::void()),
            "relax.call_builtin_with_ctx" => {
                let dst = self.dst(void);
                let (Some(func), Some(tuple)) = (call.args.first(), call.args.get(1)) else {
                    return Err(self.unsupported("R.call_builtin_with_ctx without (func, args)"));
                };
                let f = match func.kind() {
                    ExprKind::StringImm(name) => self.packed(name)?,
                    ExprKind::ExternFunc(f) => self.packed(&f.global_symbol)?,
                    _ => self.expr(func, false)?,
                };
                let ExprKind::Tuple(fields) = tuple.kind() else {
                    return Err(self.unsupported(
                        "R.call_builtin_with_ctx whose arguments are not a tuple literal",
                    ));
                };
                let mut args = vec![Arg::vm()];
                args.extend(self.args(fields)?);
                if f.kind() != Some(ArgKind::FuncIdx) {
                    return Err(self.unsupported("R.call_builtin_with_ctx of a non-function"));
                }
                self.builder
                    .emit_call_func(f, &args, dst)
                    .map_err(vm_error)?;
                Ok(dst)
            }
            "relax.vm.alloc_storage" => {
                let dst = self.dst(void);
                if call.args.len() != 4 {
                    return Err(self.unsupported(format_args!(
                        "R.vm.alloc_storage with {} arguments (expected 4)",
                        call.args.len()
                    )));
                }
                let mut args = vec![Arg::vm()];
                args.extend(self.args(&call.args)?);
                self.emit("vm.builtin.alloc_storage", &args, dst)?;
                Ok(dst)
            }
            "relax.vm.alloc_tensor" => {
                let dst = self.dst(void);
                if call.args.len() != 5 {
                    return Err(self.unsupported(format_args!(
                        "R.vm.alloc_tensor with {} arguments (expected 5)",
                        call.args.len()
                    )));
                }
                let args = self.args(&call.args[..4])?;
                // The fifth argument indexes the module's vdevices; without global infos
                // there is no memory scope to pass.
                self.emit("vm.builtin.alloc_tensor", &args, dst)?;
                Ok(dst)
            }
            "relax.vm.kill_object" => {
                let [obj] = call.args.as_slice() else {
                    return Err(self.unsupported("R.vm.kill_object without exactly one argument"));
                };
                let reg = self.expr(obj, false)?;
                if reg.kind() != Some(ArgKind::Register) {
                    return Err(self.unsupported("R.vm.kill_object of a value not in a register"));
                }
                self.emit("vm.builtin.null_value", &[], reg)?;
                Ok(reg)
            }
            _ => Err(self.unsupported(format_args!(
                "the operator `{op}` (VMCodeGen handles only lowered VM intrinsics; the \
                 pipeline must lower it first)"
            ))),
        }
    }
}

/// Whether a call's own struct info is `R.Tuple()` (independently of what its binding says):
/// `R.call_packed(..., ty_args=(R.Tuple,))` and the kill intrinsics.
fn call_is_void(call: &Call) -> bool {
    match &call.callee {
        Callee::Op(op) if op == "relax.vm.kill_object" => true,
        _ => matches!(call.ty_args.as_slice(), [t] if t.is_void()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Attrs, BindingBlock, If, Var};
    use tir::DataType;

    fn tensor(shape: &[i64]) -> StructInfo {
        StructInfo::tensor(
            shape.iter().map(|&d| PrimExpr::i64(d)).collect(),
            DataType::FLOAT32,
        )
    }

    fn bind(var: &Var, value: Expr) -> Binding {
        Binding::Var {
            var: var.clone(),
            value,
        }
    }

    fn packed(name: &str, args: Vec<Expr>) -> Expr {
        Expr::call(
            Callee::Extern(name.into()),
            args,
            Attrs::new(),
            vec![StructInfo::void()],
        )
    }

    fn func(name: &str, params: Vec<Var>, bindings: Vec<Binding>, ret: Expr) -> BaseFunc {
        BaseFunc::Relax(Function {
            name: name.into(),
            params,
            body: SeqExpr {
                blocks: vec![BindingBlock {
                    bindings,
                    dataflow: false,
                }],
                body: ret,
            },
            ret_struct_info: StructInfo::Any,
            is_pure: true,
            private: false,
            attrs: Attrs::new(),
        })
    }

    /// `if_else_calls_functions`' `main` without its parameter checks.
    #[test]
    fn if_else_with_merge_register() {
        let c = Var::new("c", StructInfo::tensor(vec![], DataType::BOOL));
        let x = Var::new("x", tensor(&[2, 3]));
        let r_then = Var::new("r_then", tensor(&[2, 3]));
        let r_else = Var::new("r_else", tensor(&[2, 3]));
        let r = Var::new("r", tensor(&[2, 3]));
        let branch = |v: &Var, f: &str| SeqExpr {
            blocks: vec![BindingBlock {
                bindings: vec![bind(
                    v,
                    Expr::call(
                        Callee::Global(f.into()),
                        vec![Expr::var(&x)],
                        Attrs::new(),
                        vec![],
                    ),
                )],
                dataflow: false,
            }],
            body: Expr::var(v),
        };
        let ife = Expr::new(ExprKind::If(If {
            cond: Expr::var(&c),
            then_branch: branch(&r_then, "branch_a"),
            else_branch: branch(&r_else, "branch_b"),
        }));
        let mut m = IRModule::new();
        let y = Var::new("y", tensor(&[2, 3]));
        m.add(
            "branch_a",
            func("branch_a", vec![y.clone()], vec![], Expr::var(&y)),
        );
        let z = Var::new("z", tensor(&[2, 3]));
        m.add(
            "branch_b",
            func("branch_b", vec![z.clone()], vec![], Expr::var(&z)),
        );
        m.add(
            "main",
            func("main", vec![c, x], vec![bind(&r, ife)], Expr::var(&r)),
        );
        let (exec, rest) = codegen(&m).unwrap();
        assert!(rest.functions.is_empty());
        let text = exec.as_text();
        let main = &text[text.find("@main:").unwrap()..];
        assert_eq!(
            main,
            "@main:
  call  vm.builtin.read_if_cond in: %0           dst: %2
  If    %2, 4
  call  branch_a         in: %1           dst: %3
  call  vm.builtin.copy  in: %3           dst: %4
  goto  3
  call  branch_b         in: %1           dst: %5
  call  vm.builtin.copy  in: %5           dst: %4
  ret   %4

@vm.builtin.read_if_cond packed_func;

@vm.builtin.copy packed_func;

"
        );
    }

    /// Constants, void calls, kill_object, alias copies and `EnsureReg` on a constant result.
    #[test]
    fn constants_kill_alias_and_ensure_reg() {
        let x = Var::new("x", tensor(&[3]));
        let s = Var::new("storage", StructInfo::Any);
        let a = Var::new("alloc", tensor(&[3]));
        let k = Var::new("_", StructInfo::void());
        let k2 = Var::new("_", StructInfo::void());
        let alias = Var::new("y", tensor(&[3]));
        let bindings = vec![
            bind(
                &k,
                packed(
                    "vm.builtin.check_tensor_info",
                    vec![
                        Expr::var(&x),
                        Expr::prim(PrimExpr::i64(1)),
                        Expr::new(ExprKind::DataTypeImm(DataType::FLOAT32)),
                        Expr::new(ExprKind::StringImm("ctx".into())),
                    ],
                ),
            ),
            bind(
                &s,
                Expr::op(
                    "relax.vm.alloc_storage",
                    vec![
                        Expr::shape(vec![PrimExpr::i64(12)]),
                        Expr::prim(PrimExpr::i64(0)),
                        Expr::new(ExprKind::DataTypeImm(DataType::UINT8)),
                        Expr::new(ExprKind::StringImm("global".into())),
                    ],
                ),
            ),
            bind(
                &a,
                Expr::op(
                    "relax.vm.alloc_tensor",
                    vec![
                        Expr::var(&s),
                        Expr::prim(PrimExpr::i64(0)),
                        Expr::shape(vec![PrimExpr::i64(3)]),
                        Expr::new(ExprKind::DataTypeImm(DataType::FLOAT32)),
                        Expr::prim(PrimExpr::i64(0)),
                    ],
                ),
            ),
            bind(&k2, Expr::op("relax.vm.kill_object", vec![Expr::var(&s)])),
            bind(&alias, Expr::var(&a)),
        ];
        let mut m = IRModule::new();
        m.add(
            "main",
            func(
                "main",
                vec![x],
                bindings,
                Expr::prim(PrimExpr::i64(1 << 60)),
            ),
        );
        let (exec, _) = codegen(&m).unwrap();
        assert_eq!(
            exec.as_text(),
            "@main:
  call  vm.builtin.check_tensor_info in: %0, i1, c[0], c[1] dst: %void
  call  vm.builtin.alloc_storage in: %vm, c[2], i0, c[3], c[4] dst: %1
  call  vm.builtin.alloc_tensor in: %1, i0, c[5], c[0] dst: %2
  call  vm.builtin.null_value in:              dst: %1
  call  vm.builtin.copy  in: %2           dst: %3
  call  vm.builtin.copy  in: c[6]         dst: %4
  ret   %4

@vm.builtin.check_tensor_info packed_func;

@vm.builtin.alloc_storage packed_func;

@vm.builtin.alloc_tensor packed_func;

@vm.builtin.null_value packed_func;

@vm.builtin.copy packed_func;

"
        );
    }

    #[test]
    fn nested_function_is_an_error_naming_it() {
        let x = Var::new("x", tensor(&[3]));
        let inner = Function {
            name: "inner".into(),
            params: vec![],
            body: SeqExpr::just(Expr::var(&x)),
            ret_struct_info: StructInfo::Any,
            is_pure: true,
            private: false,
            attrs: Attrs::new(),
        };
        let f = Var::new("f", StructInfo::Any);
        let mut m = IRModule::new();
        m.add(
            "main",
            func(
                "main",
                vec![x],
                vec![bind(&f, Expr::new(ExprKind::Function(Box::new(inner))))],
                Expr::var(&f),
            ),
        );
        let err = codegen(&m).unwrap_err().to_string();
        assert!(
            err.contains("inner") && err.contains("`main`") && err.contains("`f`"),
            "{err}"
        );
    }
}
