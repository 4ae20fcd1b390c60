//! The graph walk: graph inputs and initializers become parameters and constants, each node
//! is converted by [`crate::ops`] inside one dataflow block, and the graph outputs become the
//! function's result.
//!
//! Every ONNX value is a [`Val`]: a Relax expression (a variable or a constant) with its
//! struct info, plus what is known of its elements at import time — the data of constants,
//! and the elements (as TIR expressions, possibly symbolic) of the small integer tensors that
//! shape subgraphs compute. Converters read those to fold shape computations.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use relax::block_builder::BlockBuilder;
use relax::ir::{Attrs, Constant, Expr, ExprKind, StructInfo};
use tir::PrimExpr;
use vm::Tensor;

use crate::error::{Error, Result};
use crate::node::Node;
use crate::proto::{GraphProto, ModelProto, TypeProto, ValueInfoProto};
use crate::tensor::{elem_type_name, tir_dtype, to_tensor, vm_dtype};
use crate::{ImportOptions, ImportedModel};

/// The oldest and newest default-domain opsets the importer accepts.
pub const MIN_OPSET: i64 = 7;
pub const MAX_OPSET: i64 = 21;

/// The most elements a tensor may have for the importer to compute it (shape subgraphs);
/// larger results are left to the compiled program.
pub(crate) const FOLD_LIMIT: usize = 1 << 16;

/// An ONNX value during import.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub expr: Expr,
    pub si: StructInfo,
    /// The value, if it is a constant.
    pub data: Option<Tensor>,
    /// For a rank-0 or rank-1 integer tensor computed from shapes: its elements, in the
    /// (int64) arithmetic of shape expressions. Constant elements are `IntImm`s.
    pub sym: Option<Vec<PrimExpr>>,
    /// A symbolic shape value not yet bound in Relax: `expr` is only its `R.shape` and
    /// [`Importer::materialize`] builds the tensor when an operator needs it at run time.
    pub pending: bool,
}

impl Val {
    pub fn new(expr: Expr, si: StructInfo) -> Val {
        Val {
            expr,
            si,
            data: None,
            sym: None,
            pending: false,
        }
    }

    /// The static-or-symbolic shape, if the rank is known.
    pub fn shape(&self) -> Option<Vec<PrimExpr>> {
        self.si.tensor_shape().map(<[PrimExpr]>::to_vec)
    }

    /// The shape if every dimension is a constant.
    pub fn static_shape(&self) -> Option<Vec<i64>> {
        self.si
            .tensor_shape()?
            .iter()
            .map(PrimExpr::as_int)
            .collect()
    }

    pub fn ndim(&self) -> Option<usize> {
        match &self.si {
            StructInfo::Tensor { ndim, .. } if *ndim >= 0 => Some(*ndim as usize),
            _ => None,
        }
    }

    pub fn dtype(&self) -> Option<tir::DataType> {
        self.si.tensor_dtype()
    }

    /// The elements of an integer tensor known at import time, as shape arithmetic.
    pub fn elems(&self) -> Option<Vec<PrimExpr>> {
        if let Some(s) = &self.sym {
            return Some(s.clone());
        }
        let d = self.data.as_ref()?;
        let dt = d.dtype();
        if !(dt.is_int() || dt.is_uint() || dt.is_bool()) || d.numel() > FOLD_LIMIT {
            return None;
        }
        (0..d.numel())
            .map(|i| d.get_i64(i).map(PrimExpr::i64))
            .collect()
    }

    /// The elements as integers, if all are known constants.
    pub fn ints(&self) -> Option<Vec<i64>> {
        self.elems()?.iter().map(PrimExpr::as_int).collect()
    }

    /// The elements as floats, if the value is a constant.
    pub fn floats(&self) -> Option<Vec<f64>> {
        if let Some(d) = &self.data {
            return (0..d.numel()).map(|i| d.get_f64(i)).collect();
        }
        self.ints()
            .map(|v| v.into_iter().map(|x| x as f64).collect())
    }
}

/// Builds the Relax function of one graph.
pub(crate) struct Importer {
    pub bb: BlockBuilder,
    /// Symbolic dimensions by `dim_param` name.
    dims: HashMap<String, tir::Var>,
    /// What node is being converted, for error messages from Relax.
    pub context: String,
    /// What is left of [`crate::ImportOptions::constant_fill_budget`].
    pub constant_fill_budget: usize,
}

impl Importer {
    /// Binds `expr` to a fresh variable.
    pub fn emit(&mut self, expr: Expr) -> Result<Val> {
        let var = self.bb.emit(expr).map_err(|e| self.relax_error(e))?;
        Ok(Val::new(Expr::var(&var), var.struct_info().clone()))
    }

    pub fn relax_error(&self, error: relax::Error) -> Error {
        Error::Relax {
            context: self.context.clone(),
            error,
        }
    }

    /// Calls operator `op` (`"relax.add"`) and binds the result.
    pub fn op(&mut self, op: &str, args: Vec<Expr>, attrs: Attrs) -> Result<Val> {
        let call =
            relax::op::make_call(op, args, attrs, Vec::new()).map_err(|e| self.relax_error(e))?;
        self.emit(call)
    }

    /// `op(args)` without attributes.
    pub fn op0(&mut self, op: &str, args: &[&Val]) -> Result<Val> {
        self.op(
            op,
            args.iter().map(|v| v.expr.clone()).collect(),
            Attrs::new(),
        )
    }

    /// `v` as a Relax tensor: a pending symbolic shape value becomes
    /// `R.shape_to_tensor(R.shape([...]))` (reshaped to rank 0 for a scalar).
    pub fn materialize(&mut self, v: &Val) -> Result<Val> {
        if !v.pending {
            return Ok(v.clone());
        }
        let elems = v.sym.clone().unwrap_or_default();
        let t = self.op(
            "relax.shape_to_tensor",
            vec![Expr::shape(elems.clone())],
            Attrs::new(),
        )?;
        let mut out = if v.ndim() == Some(0) {
            self.op(
                "relax.reshape",
                vec![t.expr.clone(), Expr::shape(Vec::new())],
                Attrs::new(),
            )?
        } else {
            t
        };
        if let Some(dt) = v.dtype()
            && dt != tir::DataType::INT64
        {
            out = self.op(
                "relax.astype",
                vec![out.expr.clone()],
                relax::ir::Attrs::new().with("dtype", relax::ir::AttrValue::DType(dt)),
            )?;
        }
        out.sym = v.sym.clone();
        Ok(out)
    }

    /// Takes `nbytes` from what is left of the constant budget for a constant the import makes
    /// itself; `false`, taking nothing, if that is more than is left.
    pub fn spend_constant_budget(&mut self, nbytes: usize) -> bool {
        match self.constant_fill_budget.checked_sub(nbytes) {
            Some(left) => {
                self.constant_fill_budget = left;
                true
            }
            None => false,
        }
    }

    /// A fresh symbolic dimension.
    pub fn fresh_dim(&mut self, hint: &str) -> tir::Var {
        let n = self.dims.len();
        let v = tir::Var::new(format!("{hint}{n}"), tir::DataType::INT64);
        self.dims.insert(format!("\0{n}"), v.clone());
        v
    }

    fn named_dim(&mut self, name: &str) -> tir::Var {
        if let Some(v) = self.dims.get(name) {
            return v.clone();
        }
        let v = tir::Var::new(sanitize(name), tir::DataType::INT64);
        self.dims.insert(name.to_string(), v.clone());
        v
    }
}

/// A constant value (not bound to a variable: constants are leaves in Relax).
pub(crate) fn constant(t: Tensor) -> Result<Val> {
    let dtype = tir_dtype(t.dtype())?;
    let shape: Vec<PrimExpr> = t.shape().iter().map(|&d| PrimExpr::i64(d)).collect();
    let si = StructInfo::tensor(shape, dtype);
    let expr = Expr::new(ExprKind::Constant(Constant {
        data: t.clone(),
        struct_info: si.clone(),
        metadata_index: None,
    }));
    Ok(Val {
        expr,
        si,
        data: Some(t),
        sym: None,
        pending: false,
    })
}

/// A rank-0 constant of `dtype` holding `v`.
pub(crate) fn scalar(v: f64, dtype: tir::DataType) -> Result<Val> {
    let vdt = crate::tensor::vm_of(dtype)?;
    let mut t = Tensor::zeros(&[], vdt).map_err(|e| Error::Invalid(e.to_string()))?;
    let bytes: Vec<u8> = match dtype.to_string().as_str() {
        "float32" => (v as f32).to_le_bytes().to_vec(),
        "float64" => v.to_le_bytes().to_vec(),
        "float16" => half::f16::from_f64(v).to_le_bytes().to_vec(),
        "bfloat16" => half::bf16::from_f64(v).to_le_bytes().to_vec(),
        "int64" => (v as i64).to_le_bytes().to_vec(),
        "int32" => (v as i32).to_le_bytes().to_vec(),
        "int16" => (v as i16).to_le_bytes().to_vec(),
        "int8" => (v as i8).to_le_bytes().to_vec(),
        "uint64" => (v as u64).to_le_bytes().to_vec(),
        "uint32" => (v as u32).to_le_bytes().to_vec(),
        "uint16" => (v as u16).to_le_bytes().to_vec(),
        "uint8" => (v as u8).to_le_bytes().to_vec(),
        "bool" => vec![(v != 0.0) as u8],
        other => {
            return Err(Error::Unsupported(format!(
                "a constant of data type {other}"
            )));
        }
    };
    t.copy_from_bytes(&bytes)
        .map_err(|e| Error::Invalid(e.to_string()))?;
    constant(t)
}

/// An int64 constant of `shape` with `values`.
pub(crate) fn int_tensor(shape: &[i64], values: &[i64]) -> Result<Val> {
    constant(Tensor::from_slice(shape, values).map_err(|e| Error::Invalid(e.to_string()))?)
}

/// A valid Relax identifier for an ONNX name (TVM's `_sanitize_name`: `.`, `/`, `:` and other
/// punctuation become `_`; a name not starting with a letter or `_` gets the prefix `input_`).
pub(crate) fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s = format!("input_{s}");
    }
    s
}

fn unique(name: String, used: &mut HashSet<String>) -> String {
    let mut n = name.clone();
    let mut k = 1;
    while !used.insert(n.clone()) {
        n = format!("{name}_{k}");
        k += 1;
    }
    n
}

impl Importer {
    /// The struct info of a graph input's type.
    fn input_struct_info(&mut self, vi: &ValueInfoProto) -> Result<StructInfo> {
        let name = vi.name.as_deref().unwrap_or("");
        let tt = match &vi.r#type {
            Some(TypeProto {
                tensor_type: Some(tt),
                ..
            }) => tt,
            _ => {
                return Err(Error::Unsupported(format!(
                    "graph input `{name}` is not a tensor (sequences, maps and optionals are not supported)"
                )));
            }
        };
        let code = tt.elem_type.unwrap_or(0);
        let dtype = tir_dtype(vm_dtype(code).map_err(|_| {
            Error::Unsupported(format!(
                "graph input `{name}` has element type {} ({code})",
                elem_type_name(code)
            ))
        })?)?;
        let Some(shape) = &tt.shape else {
            return Ok(StructInfo::tensor_ndim(-1, Some(dtype)));
        };
        let dims = shape
            .dim
            .iter()
            .map(|d| match (d.dim_value, d.dim_param.as_deref()) {
                (Some(v), _) if v >= 0 => PrimExpr::i64(v),
                (_, Some(p)) if !p.is_empty() => self.named_dim(p).into(),
                _ => self.fresh_dim("d").into(),
            })
            .collect();
        Ok(StructInfo::tensor(dims, dtype))
    }
}

/// The graph of `model`.
fn graph_of(model: &ModelProto) -> Result<&GraphProto> {
    model
        .graph
        .as_ref()
        .ok_or_else(|| Error::Invalid("the model has no graph".into()))
}

/// The parameters of `graph`'s inputs, each with the ONNX name and the Relax name it gets
/// (unique among `used_names`).
fn input_params(
    imp: &mut Importer,
    graph: &GraphProto,
    used_names: &mut HashSet<String>,
) -> Result<Vec<(relax::Var, String)>> {
    let initializer_names: HashSet<&str> = graph
        .initializer
        .iter()
        .filter_map(|t| t.name.as_deref())
        .collect();
    let mut params = Vec::new();
    // Graph inputs that are also initializers (IR version < 4 lists every weight as an
    // input) are weights, not inputs.
    for vi in &graph.input {
        let name = vi.name.clone().unwrap_or_default();
        if initializer_names.contains(name.as_str()) {
            continue;
        }
        let si = imp.input_struct_info(vi)?;
        let pname = unique(sanitize(&name), used_names);
        params.push((relax::Var::new(pname, si), name));
    }
    Ok(params)
}

/// The [`Signature`](crate::Signature) of `model`.
pub(crate) fn signature(model: &ModelProto) -> Result<crate::Signature> {
    let graph = graph_of(model)?;
    let mut imp = Importer {
        bb: BlockBuilder::new(),
        dims: HashMap::new(),
        context: String::new(),
        constant_fill_budget: 0,
    };
    let params = input_params(&mut imp, graph, &mut HashSet::new())?;
    let mut external_data: Vec<String> = Vec::new();
    for t in &graph.initializer {
        if let Some(location) = crate::tensor::external_location(t)
            && !external_data.contains(&location)
        {
            external_data.push(location);
        }
    }
    Ok(crate::Signature {
        inputs: params
            .iter()
            .map(|(v, name)| (name.clone(), v.name().to_string()))
            .collect(),
        params: params.into_iter().map(|(v, _)| v).collect(),
        external_data,
    })
}

/// Imports the main graph of `model`.
pub(crate) fn import_model(
    model: &ModelProto,
    base_dir: Option<&Path>,
    options: &ImportOptions,
) -> Result<ImportedModel> {
    let opset = default_opset(model)?;
    let graph = graph_of(model)?;
    let mut imp = Importer {
        bb: BlockBuilder::new(),
        dims: HashMap::new(),
        context: String::new(),
        constant_fill_budget: options.constant_fill_budget,
    };
    let mut values: HashMap<String, Val> = HashMap::new();
    let mut used_names = HashSet::new();
    let mut params = Vec::new();
    let mut inputs = Vec::new();
    for (var, name) in input_params(&mut imp, graph, &mut used_names)? {
        let si = var.struct_info().clone();
        values.insert(name.clone(), Val::new(Expr::var(&var), si));
        inputs.push((name, var.name().to_string()));
        params.push(var);
    }
    let mut kept = Vec::new();
    for init in &graph.initializer {
        let name = init.name.clone().unwrap_or_default();
        let t = to_tensor(init, base_dir)?;
        if options.keep_params_in_input {
            let si = constant(t.clone())?.si;
            let pname = unique(sanitize(&name), &mut used_names);
            let var = relax::Var::new(pname.clone(), si.clone());
            values.insert(name, Val::new(Expr::var(&var), si));
            params.push(var);
            kept.push((pname, t));
        } else {
            values.insert(name, constant(t)?);
        }
    }
    imp.bb
        .function(options.func_name.clone(), params)
        .map_err(|e| imp.relax_error(e))?;
    imp.bb.dataflow().map_err(|e| imp.relax_error(e))?;
    for node in &graph.node {
        let domain = node.domain.as_deref().unwrap_or("");
        let op = node.op_type.as_deref().unwrap_or("");
        let ins = node
            .input
            .iter()
            .map(|i| {
                if i.is_empty() {
                    return Ok(None);
                }
                values.get(i).cloned().map(Some).ok_or_else(|| {
                    Error::Invalid(format!(
                        "op `{op}` (node `{}`, opset {opset}): input `{i}` is not defined before it",
                        node.name.as_deref().unwrap_or("")
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut n = Node::new(node, opset, ins);
        let contrib = domain == crate::ops::CONTRIB_DOMAIN;
        if !(domain.is_empty() || domain == "ai.onnx" || contrib) {
            return Err(n.unsupported(format!("operator domain `{domain}`")));
        }
        if contrib && !crate::ops::CONTRIB_OPS.contains(&op) {
            return Err(n.unsupported(format!(
                "operator `{op}` of domain `{domain}` (the importer converts {} from it)",
                crate::ops::CONTRIB_OPS.join(", ")
            )));
        }
        n.reject_graph_attrs()?;
        imp.context = n.what();
        let outs = crate::ops::convert(&mut imp, &mut n)?;
        n.check_all_read()?;
        for (k, out_name) in node.output.iter().enumerate() {
            if out_name.is_empty() {
                continue;
            }
            match outs.get(k) {
                Some(v) => {
                    values.insert(out_name.clone(), v.clone());
                }
                // An optional output the converter does not compute (Dropout's mask,
                // BatchNormalization's running statistics) is an error only if used.
                None => {
                    values.remove(out_name);
                }
            }
        }
    }
    imp.context = "the graph outputs".into();
    let mut outputs = Vec::new();
    let mut results = Vec::new();
    for o in &graph.output {
        let name = o.name.clone().unwrap_or_default();
        let v = values.get(&name).cloned().ok_or_else(|| {
            Error::Unsupported(format!(
                "graph output `{name}` is not computed (an optional output the importer does not produce, or an undefined value)"
            ))
        })?;
        let v = imp.materialize(&v)?;
        let var = imp
            .bb
            .emit_output(v.expr.clone())
            .map_err(|e| imp.relax_error(e))?;
        results.push(Expr::var(&var));
        outputs.push(name);
    }
    imp.bb.end_dataflow().map_err(|e| imp.relax_error(e))?;
    let ret = match results.len() {
        1 => results.pop().unwrap_or_else(|| Expr::tuple(Vec::new())),
        _ => Expr::tuple(results),
    };
    imp.bb
        .emit_func_output(ret)
        .map_err(|e| imp.relax_error(e))?;
    Ok(ImportedModel {
        module: imp.bb.finalize(),
        inputs,
        outputs,
        params: kept,
    })
}

/// The default-domain opset, checked against the range the importer implements.
fn default_opset(model: &ModelProto) -> Result<i64> {
    let mut opset = None;
    for o in &model.opset_import {
        match o.domain.as_deref().unwrap_or("") {
            "" | "ai.onnx" => opset = o.version,
            _ => {}
        }
    }
    // IR version 3 models without an opset_import entry are opset 1 by the spec; treat a
    // missing entry as an error rather than guess.
    let opset = opset.ok_or_else(|| {
        Error::Invalid("the model imports no default-domain (ai.onnx) opset".into())
    })?;
    if !(MIN_OPSET..=MAX_OPSET).contains(&opset) {
        // Opsets 1–6 differ from 7 only in broadcasting flags and a few attributes that the
        // converters check per node; accept them, named in errors as their opset.
        if !(1..MIN_OPSET).contains(&opset) {
            return Err(Error::Unsupported(format!(
                "opset {opset} (the importer implements opsets {MIN_OPSET}–{MAX_OPSET})"
            )));
        }
    }
    Ok(opset)
}
