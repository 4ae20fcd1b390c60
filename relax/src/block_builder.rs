//! [`BlockBuilder`]: builds Relax functions binding by binding, inferring the struct info of
//! every binding, as TVM's `relax.BlockBuilder` does.
//!
//! ```
//! use relaxjit_relax::block_builder::BlockBuilder;
//! use relaxjit_relax::{Expr, StructInfo, Var};
//! use tir::{DataType, PrimExpr};
//!
//! let n = tir::Var::new("n", DataType::INT64);
//! let x = Var::new("x", StructInfo::tensor(vec![n.clone().into(), PrimExpr::i64(4)], DataType::FLOAT32));
//! let mut bb = BlockBuilder::new();
//! bb.function("main", vec![x.clone()]).unwrap();
//! bb.dataflow().unwrap();
//! let y = bb.emit(Expr::op("relax.exp", vec![x.clone().into()])).unwrap();
//! let gv = bb.emit_output(Expr::op("relax.add", vec![y.into(), x.into()])).unwrap();
//! bb.end_dataflow().unwrap();
//! bb.emit_func_output(gv.into()).unwrap();
//! let module = bb.finalize();
//! assert!(module.relax_function("main").is_some());
//! ```
//!
//! Scopes are explicit (`function` … `emit_func_output`, `dataflow` … `end_dataflow`) where
//! Python uses `with` blocks. Arguments that are not leaves (a call inside a call) are bound
//! to fresh variables first, so what is built is in A-normal form like TVM's normalized IR.

use crate::Result;
use crate::error::Error;
use crate::ir::visit::operand_var_uses;
use crate::ir::{
    Attrs, BaseFunc, Binding, BindingBlock, Expr, Function, IRModule, SeqExpr, StructInfo, Var,
};
use crate::normalize::{Normalizer, normalize_operands};
use crate::struct_info_ops::{Compatibility, compatibility, describe};

struct FunctionFrame {
    name: String,
    params: Vec<Var>,
    blocks: Vec<BindingBlock>,
    /// The block being filled.
    current: BindingBlock,
    attrs: Attrs,
    pure: bool,
    private: bool,
}

/// Builds an [`IRModule`] function by function.
pub struct BlockBuilder {
    module: IRModule,
    normalizer: Normalizer,
    frame: Option<FunctionFrame>,
    next_lv: usize,
    next_gv: usize,
}

impl Default for BlockBuilder {
    fn default() -> Self {
        BlockBuilder::new()
    }
}

impl BlockBuilder {
    /// A builder for a new, empty module.
    pub fn new() -> BlockBuilder {
        BlockBuilder::with_module(IRModule::new())
    }

    /// A builder that adds to `module`.
    pub fn with_module(module: IRModule) -> BlockBuilder {
        BlockBuilder {
            normalizer: Normalizer::new(&module),
            module,
            frame: None,
            next_lv: 0,
            next_gv: 0,
        }
    }

    /// The module built so far.
    pub fn module(&self) -> &IRModule {
        &self.module
    }

    /// The module. A function still being built is dropped.
    pub fn finalize(self) -> IRModule {
        self.module
    }

    /// Adds a finished function (Relax or TIR) under `name`.
    pub fn add_func(&mut self, name: impl Into<String>, f: BaseFunc) {
        let name = name.into();
        self.normalizer
            .declare(name.clone(), crate::normalize::base_func_struct_info(&f));
        self.module.add(name, f);
    }

    /// Declares the signature of a global function before it exists (for recursion).
    pub fn declare_function(&mut self, name: impl Into<String>, struct_info: StructInfo) {
        self.normalizer.declare(name, struct_info);
    }

    /// The struct info of `expr` in the current module.
    pub fn infer(&self, expr: &Expr) -> Result<StructInfo> {
        self.normalizer.infer(expr)
    }

    fn frame(&mut self) -> Result<&mut FunctionFrame> {
        self.frame.as_mut().ok_or_else(|| {
            Error::WellFormed("no function is being built; call `function` first".into())
        })
    }

    /// Starts function `name` with parameters `params` (TVM's `with bb.function(name,
    /// params):`).
    pub fn function(&mut self, name: impl Into<String>, params: Vec<Var>) -> Result<()> {
        let name = name.into();
        if let Some(f) = &self.frame {
            return Err(Error::WellFormed(format!(
                "cannot start function `{name}` while `{}` is being built",
                f.name
            )));
        }
        if let Some(p) = params.iter().find(|p| p.is_dataflow()) {
            return Err(Error::WellFormed(format!(
                "parameter `{}` of `{name}` is a dataflow variable",
                p.name()
            )));
        }
        self.frame = Some(FunctionFrame {
            name,
            params,
            blocks: Vec::new(),
            current: BindingBlock::default(),
            attrs: Attrs::new(),
            pure: true,
            private: false,
        });
        Ok(())
    }

    /// Sets a function attribute of the function being built (`R.func_attr`).
    pub fn set_func_attr(&mut self, key: &str, value: crate::ir::AttrValue) -> Result<()> {
        self.frame()?.attrs.set(key, value);
        Ok(())
    }

    /// Marks the function being built as impure / private.
    pub fn set_purity(&mut self, pure: bool, private: bool) -> Result<()> {
        let f = self.frame()?;
        f.pure = pure;
        f.private = private;
        Ok(())
    }

    /// Starts a dataflow block (TVM's `with bb.dataflow():`).
    pub fn dataflow(&mut self) -> Result<()> {
        let f = self.frame()?;
        if f.current.dataflow {
            return Err(Error::WellFormed("dataflow blocks do not nest".into()));
        }
        let done = std::mem::take(&mut f.current);
        if !done.bindings.is_empty() {
            f.blocks.push(done);
        }
        f.current.dataflow = true;
        Ok(())
    }

    /// Ends the dataflow block.
    pub fn end_dataflow(&mut self) -> Result<()> {
        let f = self.frame()?;
        if !f.current.dataflow {
            return Err(Error::WellFormed("no dataflow block is open".into()));
        }
        let done = std::mem::take(&mut f.current);
        if !done.bindings.is_empty() {
            f.blocks.push(done);
        }
        Ok(())
    }

    /// Whether a dataflow block is open.
    pub fn in_dataflow(&self) -> bool {
        self.frame.as_ref().is_some_and(|f| f.current.dataflow)
    }

    fn fresh_name(&mut self, output: bool) -> String {
        if output || !self.in_dataflow() {
            self.next_gv += 1;
            format!("gv{}", self.next_gv - 1)
        } else {
            self.next_lv += 1;
            format!("lv{}", self.next_lv - 1)
        }
    }

    /// Binds operands that are not leaves (a call inside a call) to fresh variables.
    fn normalize_args(&mut self, expr: Expr) -> Result<Expr> {
        normalize_operands(&expr, &mut |x| self.emit(x).map(Expr::from))
    }

    fn push(&mut self, binding: Binding) -> Result<()> {
        self.frame()?.current.bindings.push(binding);
        Ok(())
    }

    /// Binds `expr` to a fresh variable (a dataflow variable inside a dataflow block) whose
    /// struct info is inferred.
    pub fn emit(&mut self, expr: Expr) -> Result<Var> {
        self.emit_impl(None, expr)
    }

    /// [`emit`](Self::emit) with a chosen variable name.
    pub fn emit_named(&mut self, name: &str, expr: Expr) -> Result<Var> {
        self.emit_impl(Some(name), expr)
    }

    fn emit_impl(&mut self, name: Option<&str>, expr: Expr) -> Result<Var> {
        self.frame()?;
        let expr = self.normalize_args(expr)?;
        let si = self.normalizer.infer(&expr)?;
        let name = match name {
            Some(n) => n.to_string(),
            None => self.fresh_name(false),
        };
        let var = if self.in_dataflow() {
            Var::dataflow(name, si)
        } else {
            Var::new(name, si)
        };
        self.push(Binding::Var {
            var: var.clone(),
            value: expr,
        })?;
        Ok(var)
    }

    /// Binds `expr` with an annotation, which must be consistent with the inferred struct
    /// info (it may be more specific about symbolic dimensions, as TVMScript allows).
    pub fn emit_annotated(
        &mut self,
        name: &str,
        expr: Expr,
        annotation: StructInfo,
    ) -> Result<Var> {
        self.frame()?;
        let expr = self.normalize_args(expr)?;
        let si = self.normalizer.infer(&expr)?;
        if compatibility(&annotation, &si) == Compatibility::No {
            return Err(Error::TypeInference(format!(
                "`{name}` is annotated {} but its value has {}",
                describe(&annotation),
                describe(&si)
            )));
        }
        let var = if self.in_dataflow() {
            Var::dataflow(name, annotation)
        } else {
            Var::new(name, annotation)
        };
        self.push(Binding::Var {
            var: var.clone(),
            value: expr,
        })?;
        Ok(var)
    }

    /// Binds `expr` to a variable visible after the dataflow block (`R.output`).
    pub fn emit_output(&mut self, expr: Expr) -> Result<Var> {
        self.emit_output_impl(None, expr)
    }

    /// [`emit_output`](Self::emit_output) with a chosen variable name.
    pub fn emit_output_named(&mut self, name: &str, expr: Expr) -> Result<Var> {
        self.emit_output_impl(Some(name), expr)
    }

    fn emit_output_impl(&mut self, name: Option<&str>, expr: Expr) -> Result<Var> {
        if !self.in_dataflow() {
            return Err(Error::WellFormed(
                "emit_output is only allowed inside a dataflow block".into(),
            ));
        }
        let expr = self.normalize_args(expr)?;
        let si = self.normalizer.infer(&expr)?;
        let name = match name {
            Some(n) => n.to_string(),
            None => self.fresh_name(true),
        };
        let var = Var::new(name, si);
        self.push(Binding::Var {
            var: var.clone(),
            value: expr,
        })?;
        Ok(var)
    }

    /// `var = R.match_cast(expr, struct_info)`: the variable gets `struct_info`, whose new
    /// symbolic variables become defined.
    pub fn match_cast(&mut self, expr: Expr, struct_info: StructInfo) -> Result<Var> {
        self.match_cast_impl(None, expr, struct_info)
    }

    /// [`match_cast`](Self::match_cast) with a chosen variable name.
    pub fn match_cast_named(
        &mut self,
        name: &str,
        expr: Expr,
        struct_info: StructInfo,
    ) -> Result<Var> {
        self.match_cast_impl(Some(name), expr, struct_info)
    }

    fn match_cast_impl(
        &mut self,
        name: Option<&str>,
        expr: Expr,
        struct_info: StructInfo,
    ) -> Result<Var> {
        self.frame()?;
        let expr = self.normalize_args(expr)?;
        let si = self.normalizer.infer(&expr)?;
        if compatibility(&struct_info, &si) == Compatibility::No {
            return Err(Error::TypeInference(format!(
                "R.match_cast: a value of {} can never match {}",
                describe(&si),
                describe(&struct_info)
            )));
        }
        let name = match name {
            Some(n) => n.to_string(),
            None => self.fresh_name(false),
        };
        let var = if self.in_dataflow() {
            Var::dataflow(name, struct_info.clone())
        } else {
            Var::new(name, struct_info.clone())
        };
        self.push(Binding::MatchCast {
            var: var.clone(),
            value: expr,
            struct_info,
        })?;
        Ok(var)
    }

    /// Finishes the function with result `output` (its return struct info is inferred) and
    /// adds it to the module. Returns the function's name.
    pub fn emit_func_output(&mut self, output: Expr) -> Result<String> {
        self.finish_function(output, None)
    }

    /// Finishes the function with a declared return struct info, which must be consistent
    /// with the inferred one.
    pub fn emit_func_output_with(&mut self, output: Expr, ret: StructInfo) -> Result<String> {
        self.finish_function(output, Some(ret))
    }

    fn finish_function(&mut self, output: Expr, ret: Option<StructInfo>) -> Result<String> {
        if self.in_dataflow() {
            return Err(Error::WellFormed(
                "end the dataflow block before emit_func_output".into(),
            ));
        }
        self.frame()?;
        let output = self.normalize_args(output)?;
        let inferred = self.normalizer.infer(&output)?;
        let mut uses_dataflow = None;
        operand_var_uses(&output, &mut |v| {
            if v.is_dataflow() && uses_dataflow.is_none() {
                uses_dataflow = Some(v.name().to_string());
            }
        });
        if let Some(v) = uses_dataflow {
            return Err(Error::WellFormed(format!(
                "the function result uses dataflow variable `{v}` outside its block; emit it with emit_output"
            )));
        }
        let ret = match ret {
            Some(r) => {
                if compatibility(&r, &inferred) == Compatibility::No {
                    return Err(Error::TypeInference(format!(
                        "the function returns {} but is declared to return {}",
                        describe(&inferred),
                        describe(&r)
                    )));
                }
                r
            }
            None => inferred,
        };
        let Some(mut f) = self.frame.take() else {
            return Err(Error::Internal("function frame vanished".into()));
        };
        let last = std::mem::take(&mut f.current);
        if !last.bindings.is_empty() {
            f.blocks.push(last);
        }
        let func = Function {
            name: f.name.clone(),
            params: f.params,
            body: SeqExpr {
                blocks: f.blocks,
                body: output,
            },
            ret_struct_info: ret,
            is_pure: f.pure,
            private: f.private,
            attrs: f.attrs,
        };
        self.add_func(f.name.clone(), BaseFunc::Relax(func));
        Ok(f.name)
    }
}
