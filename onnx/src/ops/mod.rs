//! Operator conversion: one function per ONNX operator (or family), dispatched by name.
//! Families: [`math`] (elementwise, reductions, matrix products), [`nn`] (convolutions,
//! pooling, normalizations, activations with parameters), [`shape`] (shape computation and
//! data movement, with the import-time folding of shape subgraphs), [`index`] (gathers,
//! scatters, one-hot, nonzero, depth/space rearrangement), [`quant`] (quantization, integer
//! matrix products), [`image`] (grid sampling, RoiAlign), [`contrib`] (onnxruntime's
//! `com.microsoft` operators).

mod contrib;
mod image;
mod index;
mod math;
mod nms;
mod nn;
mod quant;
mod shape;

use relax::ir::{AttrValue, Attrs};
use tir::PrimExpr;

use crate::error::Result;
use crate::importer::{Importer, Val};
use crate::node::Node;

/// Every ONNX operator (default domain) the importer converts.
pub const SUPPORTED_OPS: &[&str] = &[
    "Abs",
    "Acos",
    "Acosh",
    "Add",
    "AffineGrid",
    "AllClassNMS",
    "And",
    "ArgMax",
    "ArgMin",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "AveragePool",
    "BatchNormalization",
    "BitShift",
    "BitwiseAnd",
    "BitwiseNot",
    "BitwiseOr",
    "BitwiseXor",
    "Cast",
    "CastLike",
    "Ceil",
    "Celu",
    "Clip",
    "Compress",
    "Concat",
    "Constant",
    "ConstantOfShape",
    "Conv",
    "ConvTranspose",
    "Cos",
    "Cosh",
    "CumSum",
    "DepthToSpace",
    "DequantizeLinear",
    "Div",
    "Dropout",
    "DynamicQuantizeLinear",
    "Einsum",
    "Elu",
    "Equal",
    "Erf",
    "Exp",
    "Expand",
    "EyeLike",
    "Flatten",
    "Floor",
    "Gather",
    "GatherElements",
    "GatherND",
    "Gelu",
    "Gemm",
    "GlobalAveragePool",
    "GlobalLpPool",
    "GlobalMaxPool",
    "Greater",
    "GreaterOrEqual",
    "GridSample",
    "GroupNormalization",
    "HardSigmoid",
    "HardSwish",
    "Hardmax",
    "Identity",
    "InstanceNormalization",
    "IsInf",
    "IsNaN",
    "LRN",
    "LayerNormalization",
    "LeakyRelu",
    "Less",
    "LessOrEqual",
    "Log",
    "LogSoftmax",
    "LpPool",
    "MatMul",
    "MatMulInteger",
    "Max",
    "MaxPool",
    "MaxUnpool",
    "Mean",
    "MeanVarianceNormalization",
    "Min",
    "Mish",
    "Mod",
    "Mul",
    "Neg",
    "NonMaxSuppression",
    "NonZero",
    "Not",
    "OneHot",
    "Or",
    "PRelu",
    "Pad",
    "Pow",
    "QuantizeLinear",
    "Range",
    "Reciprocal",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSum",
    "ReduceSumSquare",
    "Relu",
    "Reshape",
    "Resize",
    "RoiAlign",
    "Round",
    "Scatter",
    "ScatterElements",
    "ScatterND",
    "Selu",
    "Shape",
    "Shrink",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Size",
    "Slice",
    "Softmax",
    "Softplus",
    "Softsign",
    "SpaceToDepth",
    "Split",
    "Sqrt",
    "Squeeze",
    "Sub",
    "Sum",
    "Tan",
    "Tanh",
    "ThresholdedRelu",
    "Tile",
    "TopK",
    "Transpose",
    "Trilu",
    "Unique",
    "Unsqueeze",
    "Upsample",
    "Where",
    "Xor",
];

pub use contrib::CONTRIB_OPS;

/// The domain of onnxruntime's contrib operators ([`CONTRIB_OPS`]).
pub const CONTRIB_DOMAIN: &str = "com.microsoft";

/// Converts `node`, returning its outputs in order (optional trailing outputs may be left
/// out).
pub(crate) fn convert(imp: &mut Importer, node: &mut Node) -> Result<Vec<Val>> {
    if node.proto.domain.as_deref() == Some(CONTRIB_DOMAIN) {
        return contrib::convert(imp, node);
    }
    if let Some(outs) = shape::fold(imp, node)? {
        return Ok(outs);
    }
    // Symbolic shape values become tensors only where an operator reads them at run time,
    // not where a converter reads their elements (a Reshape's target, a Slice's bounds…).
    let elems_only = |i: usize| match node.op {
        "ConstantOfShape" | "Range" => true,
        "Reshape" | "Expand" | "Tile" | "Slice" | "Squeeze" | "Unsqueeze" | "Split" | "Pad"
        | "TopK" | "CumSum" | "Trilu" | "Dropout" => i >= 1,
        op => op.starts_with("Reduce") && i >= 1,
    };
    for i in 0..node.inputs.len() {
        if let Some(v) = &node.inputs[i]
            && v.pending
            && !elems_only(i)
        {
            let m = imp.materialize(v)?;
            node.inputs[i] = Some(m);
        }
    }
    let node = &*node;
    let one = |v: Val| Ok(vec![v]);
    match node.op {
        "Identity" => one(node.input(0)?.clone()),
        "Dropout" => nn::dropout(node),
        "Constant" => one(shape::constant_node(node)?),
        "Relu" | "Sigmoid" | "Tanh" | "Exp" | "Log" | "Sqrt" | "Neg" | "Abs" | "Floor" | "Ceil"
        | "Round" | "Erf" | "Sign" | "Sin" | "Cos" | "Tan" | "Asin" | "Acos" | "Atan" | "Sinh"
        | "Cosh" | "Asinh" | "Acosh" | "Atanh" | "Not" | "IsNaN" | "BitwiseNot" => {
            one(math::unary(imp, node)?)
        }
        "Reciprocal" | "Softsign" | "Softplus" | "Elu" | "Selu" | "Celu" | "LeakyRelu"
        | "HardSigmoid" | "HardSwish" | "ThresholdedRelu" | "Gelu" | "Mish" | "Shrink"
        | "IsInf" => one(math::activation(imp, node)?),
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Equal" | "Less" | "Greater" | "LessOrEqual"
        | "GreaterOrEqual" | "And" | "Or" | "Xor" | "Mod" | "BitwiseAnd" | "BitwiseOr"
        | "BitwiseXor" | "BitShift" => one(math::binary(imp, node)?),
        "Sum" | "Max" | "Min" | "Mean" => one(math::variadic(imp, node)?),
        "PRelu" => one(math::prelu(imp, node)?),
        "Clip" => one(math::clip(imp, node)?),
        "Where" => one(math::where_(imp, node)?),
        "Cast" | "CastLike" => one(math::cast(imp, node)?),
        "MatMul" => one(math::matmul(imp, node)?),
        "Gemm" => one(math::gemm(imp, node)?),
        "Einsum" => one(math::einsum(imp, node)?),
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceSumSquare" | "ReduceLogSumExp" | "ReduceLogSum" => {
            one(math::reduce(imp, node)?)
        }
        "ArgMax" | "ArgMin" => one(math::argmax(imp, node)?),
        "CumSum" => one(math::cumsum(imp, node)?),
        "TopK" => math::topk(imp, node),
        "Softmax" | "LogSoftmax" => one(nn::softmax(imp, node)?),
        "Conv" => one(nn::conv(imp, node)?),
        "ConvTranspose" => one(nn::conv_transpose(imp, node)?),
        "MaxPool" | "AveragePool" | "LpPool" => one(nn::pool(imp, node)?),
        "GlobalAveragePool" | "GlobalMaxPool" => one(nn::global_pool(imp, node)?),
        "BatchNormalization" => nn::batch_norm(imp, node),
        "InstanceNormalization" => one(nn::instance_norm(imp, node)?),
        "LayerNormalization" => nn::layer_norm(imp, node),
        "LRN" => one(nn::lrn(imp, node)?),
        "Resize" | "Upsample" => one(nn::resize(imp, node)?),
        "Reshape" => one(shape::reshape(imp, node)?),
        "Flatten" => one(shape::flatten(imp, node)?),
        "Transpose" => one(shape::transpose(imp, node)?),
        "Squeeze" => one(shape::squeeze(imp, node)?),
        "Unsqueeze" => one(shape::unsqueeze(imp, node)?),
        "Concat" => one(shape::concat(imp, node)?),
        "Split" => shape::split(imp, node),
        "Slice" => one(shape::slice(imp, node)?),
        "Gather" => one(shape::gather(imp, node)?),
        "GatherElements" => one(shape::gather_elements(imp, node)?),
        "Expand" => one(shape::expand(imp, node)?),
        "Tile" => one(shape::tile(imp, node)?),
        "Pad" => one(shape::pad(imp, node)?),
        "Shape" => one(shape::shape(imp, node)?),
        "Size" => one(shape::size(imp, node)?),
        "ConstantOfShape" => one(shape::constant_of_shape(imp, node)?),
        "Range" => one(shape::range(imp, node)?),
        "Trilu" => one(shape::trilu(imp, node)?),
        "DepthToSpace" => one(index::depth_to_space(imp, node)?),
        "SpaceToDepth" => one(index::space_to_depth(imp, node)?),
        "GatherND" => one(index::gather_nd(imp, node)?),
        "ScatterND" | "ScatterElements" | "Scatter" => one(index::scatter(imp, node)?),
        "OneHot" => one(index::one_hot(imp, node)?),
        "EyeLike" => one(index::eye_like(imp, node)?),
        "NonZero" => one(index::nonzero(imp, node)?),
        "Compress" => one(index::compress(imp, node)?),
        "Unique" => index::unique(imp, node),
        "QuantizeLinear" => one(quant::quantize_linear(imp, node)?),
        "DequantizeLinear" => one(quant::dequantize_linear(imp, node)?),
        "DynamicQuantizeLinear" => quant::dynamic_quantize_linear(imp, node),
        "MatMulInteger" => one(quant::matmul_integer(imp, node)?),
        "GridSample" => one(image::grid_sample(imp, node)?),
        "AffineGrid" => one(image::affine_grid(imp, node)?),
        "RoiAlign" => one(image::roi_align(imp, node)?),
        "Hardmax" => one(nn::hardmax(imp, node)?),
        "MeanVarianceNormalization" => one(nn::mean_variance_norm(imp, node)?),
        "GroupNormalization" => one(nn::group_norm(imp, node)?),
        "GlobalLpPool" => one(nn::global_lp_pool(imp, node)?),
        "MaxUnpool" => one(nn::max_unpool(imp, node)?),
        "NonMaxSuppression" | "AllClassNMS" => one(nms::non_max_suppression(imp, node)?),
        _ => Err(node.unsupported("operator is not supported")),
    }
}

/// `AttrValue::List` of ints.
pub(crate) fn ints(v: &[i64]) -> AttrValue {
    AttrValue::List(v.iter().map(|&i| AttrValue::Int(i)).collect())
}

/// Attributes from pairs.
pub(crate) fn attrs(pairs: &[(&str, AttrValue)]) -> Attrs {
    let mut a = Attrs::new();
    for (k, v) in pairs {
        a.set(k, v.clone());
    }
    a
}

/// A normalized axis in `[0, ndim)`.
pub(crate) fn norm_axis(node: &Node, axis: i64, ndim: usize) -> Result<usize> {
    let n = ndim as i64;
    if axis < -n || axis >= n {
        return Err(node.invalid(format!("axis {axis} is out of range for rank {ndim}")));
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

/// The rank of input `i`, which must be known.
pub(crate) fn rank(node: &Node, v: &Val) -> Result<usize> {
    v.ndim()
        .ok_or_else(|| node.unsupported("an input of unknown rank"))
}

/// The shape of `v`, which must have a known rank.
pub(crate) fn shape_of(node: &Node, v: &Val) -> Result<Vec<PrimExpr>> {
    v.shape()
        .ok_or_else(|| node.unsupported("an input of unknown shape"))
}

/// The data type of `v`, which must be known.
pub(crate) fn dtype_of(node: &Node, v: &Val) -> Result<tir::DataType> {
    v.dtype()
        .ok_or_else(|| node.unsupported("an input of unknown data type"))
}

/// `Expr::shape` of dims.
pub(crate) fn shape_expr(dims: Vec<PrimExpr>) -> relax::Expr {
    relax::Expr::shape(dims)
}
