//! The table of operators: names, parameters in TVM 0.27's order with the defaults TVM prints,
//! and the inference and canonicalization of each (implemented per family in the sibling
//! modules).

use super::{CanonicalizeFn, InferFn, OpDef, OpParam, ParamKind};
use super::{
    binary, call, create, grad, image, index, linalg, manipulate, nn, qdq, reduce, scatter, search,
    sort, unary, vision,
};
use crate::ir::AttrValue;

const fn e(name: &'static str) -> OpParam {
    OpParam {
        name,
        kind: ParamKind::Expr,
        default: None,
    }
}
/// An expression parameter with a default (`AttrValue::None`: omitted).
const fn ed(name: &'static str, default: fn() -> AttrValue) -> OpParam {
    OpParam {
        name,
        kind: ParamKind::Expr,
        default: Some(default),
    }
}
const fn var(name: &'static str) -> OpParam {
    OpParam {
        name,
        kind: ParamKind::VariadicExpr,
        default: None,
    }
}
const fn a(name: &'static str) -> OpParam {
    OpParam {
        name,
        kind: ParamKind::Attr,
        default: None,
    }
}
const fn ad(name: &'static str, default: fn() -> AttrValue) -> OpParam {
    OpParam {
        name,
        kind: ParamKind::Attr,
        default: Some(default),
    }
}
const fn ty(name: &'static str) -> OpParam {
    OpParam {
        name,
        kind: ParamKind::TyArgs,
        default: None,
    }
}
const fn tyd(name: &'static str) -> OpParam {
    OpParam {
        name,
        kind: ParamKind::TyArgs,
        default: Some(none),
    }
}

fn none() -> AttrValue {
    AttrValue::None
}
fn false_() -> AttrValue {
    AttrValue::Bool(false)
}
fn true_() -> AttrValue {
    AttrValue::Bool(true)
}
fn zero() -> AttrValue {
    AttrValue::Int(0)
}
fn one() -> AttrValue {
    AttrValue::Int(1)
}
fn minus_one() -> AttrValue {
    AttrValue::Int(-1)
}
fn list_minus_one() -> AttrValue {
    AttrValue::List(vec![AttrValue::Int(-1)])
}
fn eps() -> AttrValue {
    AttrValue::Float(1e-5)
}
fn ints(v: &[i64]) -> AttrValue {
    AttrValue::List(v.iter().map(|&i| AttrValue::Int(i)).collect())
}
fn s(v: &str) -> AttrValue {
    AttrValue::Str(v.to_string())
}

const fn op(
    name: &'static str,
    script_name: &'static str,
    params: &'static [OpParam],
    infer: InferFn,
) -> OpDef {
    OpDef {
        name,
        script_name,
        params,
        infer,
        canonicalize: None,
        pure: true,
    }
}
const fn opc(
    name: &'static str,
    script_name: &'static str,
    params: &'static [OpParam],
    infer: InferFn,
    canonicalize: CanonicalizeFn,
) -> OpDef {
    OpDef {
        name,
        script_name,
        params,
        infer,
        canonicalize: Some(canonicalize),
        pure: true,
    }
}
const fn impure(def: OpDef) -> OpDef {
    OpDef { pure: false, ..def }
}

const X: &[OpParam] = &[e("x")];
const DATA: &[OpParam] = &[e("data")];
const X1X2: &[OpParam] = &[e("x1"), e("x2")];
const STAT: &[OpParam] = &[e("x"), ad("axis", none), ad("keepdims", false_)];
const SCAN: &[OpParam] = &[
    e("data"),
    ad("axis", none),
    ad("dtype", none),
    ad("exclusive", false_),
];
const ARGMAX: &[OpParam] = &[e("x"), ad("axis", none), ad("keepdims", false_)];
const LIKE: &[OpParam] = &[e("x"), ad("dtype", none)];
const TRILU: &[OpParam] = &[e("x"), ed("k", zero)];

const CONV1D: &[OpParam] = &[
    e("data"),
    e("weight"),
    ad("strides", || ints(&[1])),
    ad("padding", || ints(&[0, 0])),
    ad("dilation", || ints(&[1])),
    ad("groups", one),
    ad("data_layout", || s("NCW")),
    ad("kernel_layout", || s("OIW")),
    ad("out_layout", none),
    ad("out_dtype", none),
];
const CONV2D: &[OpParam] = &[
    e("data"),
    e("weight"),
    ad("strides", || ints(&[1, 1])),
    ad("padding", || ints(&[0, 0, 0, 0])),
    ad("dilation", || ints(&[1, 1])),
    ad("groups", one),
    ad("data_layout", || s("NCHW")),
    ad("kernel_layout", || s("OIHW")),
    ad("out_layout", none),
    ad("out_dtype", none),
];
const CONV3D: &[OpParam] = &[
    e("data"),
    e("weight"),
    ad("strides", || ints(&[1, 1, 1])),
    ad("padding", || ints(&[0, 0, 0, 0, 0, 0])),
    ad("dilation", || ints(&[1, 1, 1])),
    ad("groups", one),
    ad("data_layout", || s("NCDHW")),
    ad("kernel_layout", || s("OIDHW")),
    ad("out_layout", none),
    ad("out_dtype", none),
];
const CONV1D_T: &[OpParam] = &[
    e("data"),
    e("weight"),
    ad("strides", || ints(&[1])),
    ad("padding", || ints(&[0, 0])),
    ad("output_padding", || ints(&[0])),
    ad("dilation", || ints(&[1])),
    ad("groups", one),
    ad("data_layout", || s("NCW")),
    ad("kernel_layout", || s("IOW")),
    ad("out_layout", none),
    ad("out_dtype", none),
];
const CONV2D_T: &[OpParam] = &[
    e("data"),
    e("weight"),
    ad("strides", || ints(&[1, 1])),
    ad("padding", || ints(&[0, 0, 0, 0])),
    ad("output_padding", || ints(&[0, 0])),
    ad("dilation", || ints(&[1, 1])),
    ad("groups", one),
    ad("data_layout", || s("NCHW")),
    ad("kernel_layout", || s("IOHW")),
    ad("out_layout", none),
    ad("out_dtype", none),
];
const CONV3D_T: &[OpParam] = &[
    e("data"),
    e("weight"),
    ad("strides", || ints(&[1, 1, 1])),
    ad("padding", || ints(&[0, 0, 0, 0, 0, 0])),
    ad("output_padding", || ints(&[0, 0, 0])),
    ad("dilation", || ints(&[1, 1, 1])),
    ad("groups", one),
    ad("data_layout", || s("NCDHW")),
    ad("kernel_layout", || s("IODHW")),
    ad("out_layout", none),
    ad("out_dtype", none),
];
const POOL1D_MAX: &[OpParam] = &[
    e("data"),
    ad("pool_size", || ints(&[1])),
    ad("strides", || ints(&[1])),
    ad("dilation", || ints(&[1])),
    ad("padding", || ints(&[0, 0])),
    ad("ceil_mode", false_),
    ad("count_include_pad", false_),
    ad("layout", || s("NCW")),
    ad("out_layout", none),
];
const POOL1D_AVG: &[OpParam] = &[
    e("data"),
    ad("pool_size", || ints(&[1])),
    ad("strides", || ints(&[1])),
    ad("dilation", || ints(&[1])),
    ad("padding", || ints(&[0, 0])),
    ad("ceil_mode", false_),
    ad("count_include_pad", true_),
    ad("layout", || s("NCW")),
    ad("out_layout", none),
];
const POOL2D: &[OpParam] = &[
    e("data"),
    ad("pool_size", || ints(&[1, 1])),
    ad("strides", || ints(&[1, 1])),
    ad("dilation", || ints(&[1, 1])),
    ad("padding", || ints(&[0, 0, 0, 0])),
    ad("ceil_mode", false_),
    ad("count_include_pad", false_),
    ad("layout", || s("NCHW")),
    ad("out_layout", none),
];
/// `R.grad.{max,avg}_pool2d_backward`: TVM's `Pool2DAttrs` in its printing order (`dilation`
/// before `padding`, unlike the Python signature: pass those two by keyword). Both default
/// `count_include_pad` to false, as TVM's Python functions do.
const POOL2D_BACKWARD: &[OpParam] = &[
    e("output_grad"),
    e("data"),
    ad("pool_size", || ints(&[1, 1])),
    ad("strides", || ints(&[1, 1])),
    ad("dilation", || ints(&[1, 1])),
    ad("padding", || ints(&[0, 0, 0, 0])),
    ad("ceil_mode", false_),
    ad("count_include_pad", false_),
    ad("layout", || s("NCHW")),
    ad("out_layout", none),
];
const POOL3D_MAX: &[OpParam] = &[
    e("data"),
    ad("pool_size", || ints(&[1, 1, 1])),
    ad("strides", || ints(&[1, 1, 1])),
    ad("dilation", || ints(&[1, 1, 1])),
    ad("padding", || ints(&[0, 0, 0, 0, 0, 0])),
    ad("ceil_mode", false_),
    ad("count_include_pad", false_),
    ad("layout", || s("NCDHW")),
    ad("out_layout", none),
];
const POOL3D_AVG: &[OpParam] = &[
    e("data"),
    ad("pool_size", || ints(&[1, 1, 1])),
    ad("strides", || ints(&[1, 1, 1])),
    ad("dilation", || ints(&[1, 1, 1])),
    ad("padding", || ints(&[0, 0, 0, 0, 0, 0])),
    ad("ceil_mode", false_),
    ad("count_include_pad", true_),
    ad("layout", || s("NCDHW")),
    ad("out_layout", none),
];
const ADAPTIVE1D: &[OpParam] = &[
    e("data"),
    ad("output_size", none),
    ad("layout", || s("NCW")),
    ad("out_layout", none),
];
const ADAPTIVE2D: &[OpParam] = &[
    e("data"),
    ad("output_size", none),
    ad("layout", || s("NCHW")),
    ad("out_layout", none),
];
const ADAPTIVE3D: &[OpParam] = &[
    e("data"),
    ad("output_size", none),
    ad("layout", || s("NCDHW")),
    ad("out_layout", none),
];
const SOFTMAX: &[OpParam] = &[e("data"), ad("axis", minus_one)];

/// Every operator; see the module docs of [`crate::op`] for the parameter conventions.
pub(super) static OPS: &[OpDef] = &[
    // ---- elementwise unary: arithmetic (any dtype) ----
    op("relax.abs", "R.abs", X, unary::infer_arith),
    op("relax.bitwise_not", "R.bitwise_not", X, unary::infer_arith),
    op("relax.ceil", "R.ceil", X, unary::infer_arith),
    op("relax.floor", "R.floor", X, unary::infer_arith),
    op("relax.logical_not", "R.logical_not", X, unary::infer_arith),
    op("relax.negative", "R.negative", X, unary::infer_arith),
    op("relax.round", "R.round", X, unary::infer_arith),
    op("relax.sign", "R.sign", X, unary::infer_arith),
    op("relax.square", "R.square", X, unary::infer_arith),
    op("relax.trunc", "R.trunc", X, unary::infer_arith),
    // ---- elementwise unary: float only ----
    op("relax.acos", "R.acos", X, unary::infer_float),
    op("relax.acosh", "R.acosh", X, unary::infer_float),
    op("relax.asin", "R.asin", X, unary::infer_float),
    op("relax.asinh", "R.asinh", X, unary::infer_float),
    op("relax.atan", "R.atan", X, unary::infer_float),
    op("relax.atanh", "R.atanh", X, unary::infer_float),
    op("relax.cos", "R.cos", X, unary::infer_float),
    op("relax.cosh", "R.cosh", X, unary::infer_float),
    op("relax.exp", "R.exp", X, unary::infer_float),
    op("relax.log", "R.log", X, unary::infer_float),
    op("relax.rsqrt", "R.rsqrt", X, unary::infer_float),
    op("relax.sigmoid", "R.sigmoid", X, unary::infer_float),
    op("relax.sin", "R.sin", X, unary::infer_float),
    op("relax.sinh", "R.sinh", X, unary::infer_float),
    op("relax.sqrt", "R.sqrt", X, unary::infer_float),
    op("relax.tan", "R.tan", X, unary::infer_float),
    op("relax.tanh", "R.tanh", X, unary::infer_float),
    op("relax.erf", "R.erf", X, unary::infer_float),
    // ---- elementwise unary: checks (bool result) ----
    op("relax.isfinite", "R.isfinite", X, unary::infer_check),
    op("relax.isinf", "R.isinf", X, unary::infer_check),
    op("relax.isnan", "R.isnan", X, unary::infer_check),
    op(
        "relax.clip",
        "R.clip",
        &[e("x"), e("min"), e("max")],
        unary::infer_clip,
    ),
    // ---- elementwise binary ----
    op("relax.add", "R.add", X1X2, binary::infer_arith),
    op("relax.divide", "R.divide", X1X2, binary::infer_arith),
    op(
        "relax.floor_divide",
        "R.floor_divide",
        X1X2,
        binary::infer_arith,
    ),
    op(
        "relax.log_add_exp",
        "R.log_add_exp",
        X1X2,
        binary::infer_arith,
    ),
    op("relax.multiply", "R.multiply", X1X2, binary::infer_arith),
    op("relax.power", "R.power", X1X2, binary::infer_arith),
    op("relax.atan2", "R.atan2", X1X2, binary::infer_arith),
    op("relax.subtract", "R.subtract", X1X2, binary::infer_arith),
    op("relax.mod", "R.mod", X1X2, binary::infer_arith),
    op("relax.floor_mod", "R.floor_mod", X1X2, binary::infer_arith),
    op("relax.maximum", "R.maximum", X1X2, binary::infer_arith),
    op("relax.minimum", "R.minimum", X1X2, binary::infer_arith),
    op(
        "relax.logical_and",
        "R.logical_and",
        X1X2,
        binary::infer_arith,
    ),
    op(
        "relax.logical_or",
        "R.logical_or",
        X1X2,
        binary::infer_arith,
    ),
    op(
        "relax.logical_xor",
        "R.logical_xor",
        X1X2,
        binary::infer_arith,
    ),
    op(
        "relax.bitwise_and",
        "R.bitwise_and",
        X1X2,
        binary::infer_arith,
    ),
    op(
        "relax.bitwise_or",
        "R.bitwise_or",
        X1X2,
        binary::infer_arith,
    ),
    op(
        "relax.bitwise_xor",
        "R.bitwise_xor",
        X1X2,
        binary::infer_arith,
    ),
    op(
        "relax.left_shift",
        "R.left_shift",
        X1X2,
        binary::infer_arith,
    ),
    op(
        "relax.right_shift",
        "R.right_shift",
        X1X2,
        binary::infer_arith,
    ),
    op("relax.equal", "R.equal", X1X2, binary::infer_cmp),
    op("relax.greater", "R.greater", X1X2, binary::infer_cmp),
    op(
        "relax.greater_equal",
        "R.greater_equal",
        X1X2,
        binary::infer_cmp,
    ),
    op("relax.less", "R.less", X1X2, binary::infer_cmp),
    op("relax.less_equal", "R.less_equal", X1X2, binary::infer_cmp),
    op("relax.not_equal", "R.not_equal", X1X2, binary::infer_cmp),
    op(
        "relax.where",
        "R.where",
        &[e("condition"), e("x1"), e("x2")],
        binary::infer_where,
    ),
    op(
        "relax.ewise_fma",
        "R.ewise_fma",
        &[e("x1"), e("x2"), e("x3")],
        binary::infer_fma,
    ),
    op(
        "relax.masked_fill",
        "R.masked_fill",
        &[e("x"), e("mask"), e("value")],
        binary::infer_masked_fill,
    ),
    op(
        "relax.astype",
        "R.astype",
        &[e("x"), a("dtype")],
        unary::infer_astype,
    ),
    op(
        "relax.wrap_param",
        "R.wrap_param",
        &[e("data"), ad("dtype", || s("float32"))],
        unary::infer_astype,
    ),
    // ---- statistical / search / scan ----
    opc(
        "relax.sum",
        "R.sum",
        STAT,
        reduce::infer_stat,
        reduce::canon_stat,
    ),
    opc(
        "relax.mean",
        "R.mean",
        STAT,
        reduce::infer_stat,
        reduce::canon_stat,
    ),
    opc(
        "relax.max",
        "R.max",
        STAT,
        reduce::infer_stat,
        reduce::canon_stat,
    ),
    opc(
        "relax.min",
        "R.min",
        STAT,
        reduce::infer_stat,
        reduce::canon_stat,
    ),
    opc(
        "relax.prod",
        "R.prod",
        STAT,
        reduce::infer_stat,
        reduce::canon_stat,
    ),
    opc(
        "relax.std",
        "R.std",
        STAT,
        reduce::infer_stat,
        reduce::canon_stat,
    ),
    opc(
        "relax.variance",
        "R.variance",
        STAT,
        reduce::infer_stat,
        reduce::canon_stat,
    ),
    opc(
        "relax.median",
        "R.median",
        STAT,
        reduce::infer_median,
        reduce::canon_stat,
    ),
    op("relax.argmax", "R.argmax", ARGMAX, reduce::infer_argmax),
    op("relax.argmin", "R.argmin", ARGMAX, reduce::infer_argmax),
    op("relax.cumsum", "R.cumsum", SCAN, reduce::infer_scan),
    op("relax.cumprod", "R.cumprod", SCAN, reduce::infer_scan),
    // ---- linear algebra ----
    op(
        "relax.matmul",
        "R.matmul",
        &[e("x1"), e("x2"), ad("out_dtype", none)],
        linalg::infer_matmul,
    ),
    op("relax.outer", "R.outer", X1X2, linalg::infer_outer),
    op(
        "relax.einsum",
        "R.einsum",
        &[e("operands"), a("subscripts")],
        linalg::infer_einsum,
    ),
    // ---- nn ----
    op("relax.nn.relu", "R.nn.relu", DATA, unary::infer_arith),
    op("relax.nn.relu6", "R.nn.relu6", DATA, unary::infer_arith),
    op("relax.nn.gelu", "R.nn.gelu", DATA, unary::infer_float),
    op(
        "relax.nn.gelu_tanh",
        "R.nn.gelu_tanh",
        DATA,
        unary::infer_float,
    ),
    op("relax.nn.selu", "R.nn.selu", DATA, unary::infer_float),
    op("relax.nn.silu", "R.nn.silu", DATA, unary::infer_float),
    op(
        "relax.nn.leakyrelu",
        "R.nn.leakyrelu",
        &[e("data"), ad("alpha", || AttrValue::Float(0.01))],
        unary::infer_float,
    ),
    op(
        "relax.nn.softplus",
        "R.nn.softplus",
        &[
            e("data"),
            ad("beta", || AttrValue::Float(1.0)),
            ad("threshold", || AttrValue::Float(20.0)),
        ],
        unary::infer_float,
    ),
    op(
        "relax.nn.softmax",
        "R.nn.softmax",
        SOFTMAX,
        nn::infer_softmax,
    ),
    op(
        "relax.nn.log_softmax",
        "R.nn.log_softmax",
        SOFTMAX,
        nn::infer_softmax,
    ),
    op(
        "relax.nn.prelu",
        "R.nn.prelu",
        &[e("data"), e("alpha"), ad("axis", one)],
        nn::infer_prelu,
    ),
    op(
        "relax.nn.dropout",
        "R.nn.dropout",
        &[e("data"), ad("rate", || AttrValue::Float(0.5))],
        nn::infer_dropout,
    ),
    op(
        "relax.nn.batch_norm",
        "R.nn.batch_norm",
        &[
            e("data"),
            e("gamma"),
            e("beta"),
            e("moving_mean"),
            e("moving_var"),
            a("axis"),
            ad("epsilon", eps),
            ad("center", true_),
            ad("scale", true_),
            ad("momentum", || AttrValue::Float(0.1)),
            ad("training", true_),
        ],
        nn::infer_batch_norm,
    ),
    opc(
        "relax.nn.layer_norm",
        "R.nn.layer_norm",
        &[
            e("data"),
            e("gamma"),
            e("beta"),
            a("axes"),
            ad("epsilon", eps),
            ad("center", true_),
            ad("scale", true_),
        ],
        nn::infer_layer_norm,
        nn::canon_axes,
    ),
    opc(
        "relax.nn.group_norm",
        "R.nn.group_norm",
        &[
            e("data"),
            e("gamma"),
            e("beta"),
            a("num_groups"),
            a("channel_axis"),
            a("axes"),
            ad("epsilon", eps),
            ad("center", true_),
            ad("scale", true_),
        ],
        nn::infer_group_norm,
        nn::canon_axes,
    ),
    opc(
        "relax.nn.instance_norm",
        "R.nn.instance_norm",
        &[
            e("data"),
            e("gamma"),
            e("beta"),
            a("channel_axis"),
            a("axes"),
            ad("epsilon", eps),
            ad("center", true_),
            ad("scale", true_),
        ],
        nn::infer_instance_norm,
        nn::canon_axes,
    ),
    opc(
        "relax.nn.rms_norm",
        "R.nn.rms_norm",
        &[
            e("data"),
            e("weight"),
            ad("axes", list_minus_one),
            ad("epsilon", eps),
        ],
        nn::infer_rms_norm,
        nn::canon_axes,
    ),
    opc(
        "relax.nn.conv1d",
        "R.nn.conv1d",
        CONV1D,
        nn::infer_conv,
        nn::canon_conv,
    ),
    opc(
        "relax.nn.conv2d",
        "R.nn.conv2d",
        CONV2D,
        nn::infer_conv,
        nn::canon_conv,
    ),
    opc(
        "relax.nn.conv3d",
        "R.nn.conv3d",
        CONV3D,
        nn::infer_conv,
        nn::canon_conv,
    ),
    opc(
        "relax.nn.conv1d_transpose",
        "R.nn.conv1d_transpose",
        CONV1D_T,
        nn::infer_conv_transpose,
        nn::canon_conv,
    ),
    opc(
        "relax.nn.conv2d_transpose",
        "R.nn.conv2d_transpose",
        CONV2D_T,
        nn::infer_conv_transpose,
        nn::canon_conv,
    ),
    opc(
        "relax.nn.conv3d_transpose",
        "R.nn.conv3d_transpose",
        CONV3D_T,
        nn::infer_conv_transpose,
        nn::canon_conv,
    ),
    opc(
        "relax.nn.max_pool1d",
        "R.nn.max_pool1d",
        POOL1D_MAX,
        nn::infer_pool,
        nn::canon_pool,
    ),
    opc(
        "relax.nn.max_pool2d",
        "R.nn.max_pool2d",
        POOL2D,
        nn::infer_pool,
        nn::canon_pool,
    ),
    opc(
        "relax.nn.max_pool3d",
        "R.nn.max_pool3d",
        POOL3D_MAX,
        nn::infer_pool,
        nn::canon_pool,
    ),
    opc(
        "relax.nn.avg_pool1d",
        "R.nn.avg_pool1d",
        POOL1D_AVG,
        nn::infer_pool,
        nn::canon_pool,
    ),
    opc(
        "relax.nn.avg_pool2d",
        "R.nn.avg_pool2d",
        POOL2D,
        nn::infer_pool,
        nn::canon_pool,
    ),
    opc(
        "relax.nn.avg_pool3d",
        "R.nn.avg_pool3d",
        POOL3D_AVG,
        nn::infer_pool,
        nn::canon_pool,
    ),
    opc(
        "relax.nn.adaptive_avg_pool1d",
        "R.nn.adaptive_avg_pool1d",
        ADAPTIVE1D,
        nn::infer_adaptive_pool,
        nn::canon_pool,
    ),
    opc(
        "relax.nn.adaptive_avg_pool2d",
        "R.nn.adaptive_avg_pool2d",
        ADAPTIVE2D,
        nn::infer_adaptive_pool,
        nn::canon_pool,
    ),
    opc(
        "relax.nn.adaptive_avg_pool3d",
        "R.nn.adaptive_avg_pool3d",
        ADAPTIVE3D,
        nn::infer_adaptive_pool,
        nn::canon_pool,
    ),
    op(
        "relax.quantize",
        "R.quantize",
        &[
            e("data"),
            e("scale"),
            e("zero_point"),
            ad("out_dtype", || AttrValue::DType(tir::DataType::INT8)),
            ad("axis", minus_one),
        ],
        qdq::infer_quantize,
    ),
    op(
        "relax.dequantize",
        "R.dequantize",
        &[
            e("data"),
            e("scale"),
            e("zero_point"),
            ad("out_dtype", || AttrValue::DType(tir::DataType::FLOAT32)),
            ad("axis", minus_one),
        ],
        qdq::infer_dequantize,
    ),
    op(
        "relax.image.resize2d",
        "R.image.resize2d",
        &[
            e("data"),
            e("size"),
            ad("roi", || {
                AttrValue::List(vec![
                    AttrValue::Expr(tir::PrimExpr::float(
                        tir::DataType::FLOAT32,
                        0.0
                    ));
                    4
                ])
            }),
            ad("layout", || s("NCHW")),
            ad("method", || s("linear")),
            ad("coordinate_transformation_mode", || s("half_pixel")),
            ad("rounding_method", || s("round")),
            ad("cubic_alpha", || AttrValue::Float(-0.5)),
            ad("cubic_exclude", zero),
            ad("extrapolation_value", || AttrValue::Float(0.0)),
            ad("out_dtype", none),
        ],
        image::infer_resize2d,
    ),
    opc(
        "relax.image.resize3d",
        "R.image.resize3d",
        &[
            e("data"),
            e("size"),
            ad("roi", || {
                AttrValue::List(vec![
                    AttrValue::Expr(tir::PrimExpr::float(
                        tir::DataType::FLOAT32,
                        0.0
                    ));
                    6
                ])
            }),
            ad("layout", || s("NCDHW")),
            ad("method", || s("linear")),
            ad("coordinate_transformation_mode", || s("half_pixel")),
            ad("rounding_method", || s("")),
            ad("cubic_alpha", || AttrValue::Float(-0.75)),
            ad("cubic_exclude", zero),
            ad("extrapolation_value", || AttrValue::Float(0.0)),
            ad("out_dtype", none),
        ],
        image::infer_resize3d,
        image::canon_resize3d,
    ),
    op(
        "relax.image.grid_sample",
        "R.image.grid_sample",
        &[
            e("data"),
            e("grid"),
            ad("method", || s("bilinear")),
            ad("layout", || s("NCHW")),
            ad("padding_mode", || s("zeros")),
            ad("align_corners", false_),
        ],
        image::infer_grid_sample,
    ),
    opc(
        "relax.image.affine_grid",
        "R.image.affine_grid",
        &[e("data"), e("size"), ad("align_corners", true_)],
        image::infer_affine_grid,
        image::canon_affine_grid,
    ),
    opc(
        "relax.vision.roi_align",
        "R.vision.roi_align",
        &[
            e("data"),
            e("rois"),
            a("pooled_size"),
            a("spatial_scale"),
            ad("sample_ratio", minus_one),
            ad("aligned", false_),
            ad("layout", || s("NCHW")),
            ad("mode", || s("avg")),
        ],
        vision::infer_roi_align,
        vision::canon_roi_align,
    ),
    op(
        "relax.vision.get_valid_counts",
        "R.vision.get_valid_counts",
        &[
            e("data"),
            ad("score_threshold", || AttrValue::Float(0.0)),
            ad("id_index", zero),
            ad("score_index", one),
        ],
        vision::infer_get_valid_counts,
    ),
    op(
        "relax.vision.non_max_suppression",
        "R.vision.non_max_suppression",
        &[
            e("data"),
            e("valid_count"),
            e("indices"),
            ad("max_output_size", minus_one),
            ad("iou_threshold", || AttrValue::Float(0.5)),
            ad("force_suppress", false_),
            ad("top_k", minus_one),
            ad("coord_start", || AttrValue::Int(2)),
            ad("score_index", one),
            ad("id_index", zero),
            ad("return_indices", true_),
            ad("invalid_to_bottom", false_),
            ad("soft_nms_sigma", || AttrValue::Float(0.0)),
            ad("score_threshold", || AttrValue::Float(0.0)),
        ],
        vision::infer_non_max_suppression,
    ),
    op(
        "relax.vision.all_class_non_max_suppression",
        "R.vision.all_class_non_max_suppression",
        &[
            e("boxes"),
            e("scores"),
            e("max_output_boxes_per_class"),
            e("iou_threshold"),
            e("score_threshold"),
            ad("output_format", || s("onnx")),
        ],
        vision::infer_all_class_non_max_suppression,
    ),
    op(
        "relax.vision.multibox_transform_loc",
        "R.vision.multibox_transform_loc",
        &[
            e("cls_pred"),
            e("loc_pred"),
            e("anchor"),
            ad("clip", false_),
            ad("threshold", || AttrValue::Float(0.0)),
            ad("variances", || {
                AttrValue::List(vec![AttrValue::Float(1.0); 4])
            }),
            ad("keep_background", true_),
            ad("apply_softmax", true_),
        ],
        vision::infer_multibox_transform_loc,
    ),
    op(
        "relax.nn.pad",
        "R.nn.pad",
        &[
            e("data"),
            a("pad_width"),
            ad("pad_value", || AttrValue::Float(0.0)),
            ad("pad_mode", || s("constant")),
        ],
        nn::infer_pad,
    ),
    op(
        "relax.nn.attention",
        "R.nn.attention",
        &[
            e("query"),
            e("key"),
            e("value"),
            ed("bias", none),
            ad("scale", none),
            ad("causal_mask", none),
            ad("window_size", none),
        ],
        nn::infer_attention,
    ),
    op(
        "relax.nn.cross_entropy_with_logits",
        "R.nn.cross_entropy_with_logits",
        &[e("predictions"), e("labels")],
        nn::infer_cross_entropy,
    ),
    op(
        "relax.nn.nll_loss",
        "R.nn.nll_loss",
        &[
            e("predictions"),
            e("targets"),
            ed("weights", none),
            ad("reduction", || s("mean")),
            ad("ignore_index", || AttrValue::Int(-100)),
        ],
        nn::infer_nll_loss,
    ),
    op(
        "relax.nn.batch_flatten",
        "R.nn.batch_flatten",
        DATA,
        nn::infer_batch_flatten,
    ),
    op(
        "relax.nn.pixel_shuffle",
        "R.nn.pixel_shuffle",
        &[e("data"), a("upscale_factor")],
        nn::infer_pixel_shuffle,
    ),
    // ---- shape manipulation and data movement ----
    op(
        "relax.reshape",
        "R.reshape",
        &[e("x"), e("shape")],
        manipulate::infer_reshape,
    ),
    op(
        "relax.permute_dims",
        "R.permute_dims",
        &[e("x"), ad("axes", none)],
        manipulate::infer_permute_dims,
    ),
    opc(
        "relax.expand_dims",
        "R.expand_dims",
        &[e("x"), a("axis")],
        manipulate::infer_expand_dims,
        manipulate::canon_axis_list,
    ),
    opc(
        "relax.squeeze",
        "R.squeeze",
        &[e("x"), ad("axis", none)],
        manipulate::infer_squeeze,
        manipulate::canon_axis_list,
    ),
    op("relax.flatten", "R.flatten", X, manipulate::infer_flatten),
    op(
        "relax.concat",
        "R.concat",
        &[e("tensors"), ad("axis", zero)],
        manipulate::infer_concat,
    ),
    op(
        "relax.stack",
        "R.stack",
        &[e("tensors"), ad("axis", zero)],
        manipulate::infer_stack,
    ),
    op(
        "relax.split",
        "R.split",
        &[e("x"), a("indices_or_sections"), ad("axis", zero)],
        manipulate::infer_split,
    ),
    op(
        "relax.broadcast_to",
        "R.broadcast_to",
        &[e("x"), e("shape")],
        manipulate::infer_broadcast_to,
    ),
    opc(
        "relax.tile",
        "R.tile",
        &[e("data"), a("repeats")],
        manipulate::infer_tile,
        manipulate::canon_repeats,
    ),
    op(
        "relax.repeat",
        "R.repeat",
        &[e("data"), a("repeats"), ad("axis", none)],
        manipulate::infer_repeat,
    ),
    op(
        "relax.flip",
        "R.flip",
        &[e("data"), a("axis")],
        manipulate::infer_flip,
    ),
    opc(
        "relax.layout_transform",
        "R.layout_transform",
        &[
            e("x"),
            a("index_map"),
            ad("pad_value", none),
            ad("axis_separators", || ints(&[])),
            ad("input_axis_separators", none),
        ],
        manipulate::infer_layout_transform,
        manipulate::canon_layout_transform,
    ),
    op(
        "relax.collapse_sum_like",
        "R.collapse_sum_like",
        &[e("data"), e("collapse_target")],
        manipulate::infer_collapse_sum_like,
    ),
    op(
        "relax.collapse_sum_to",
        "R.collapse_sum_to",
        &[e("data"), e("shape")],
        manipulate::infer_collapse_sum_to,
    ),
    op(
        "relax.reverse_sequence",
        "R.reverse_sequence",
        &[
            e("data"),
            e("seq_lengths"),
            ad("seq_axis", one),
            ad("batch_axis", zero),
        ],
        manipulate::infer_same_as_data,
    ),
    op(
        "relax.gather_elements",
        "R.gather_elements",
        &[e("data"), e("indices"), ad("axis", zero)],
        manipulate::infer_gather_elements,
    ),
    op(
        "relax.gather_nd",
        "R.gather_nd",
        &[e("data"), e("indices"), ad("batch_dims", zero)],
        manipulate::infer_gather_nd,
    ),
    op(
        "relax.scatter_elements",
        "R.scatter_elements",
        &[
            e("data"),
            e("indices"),
            e("updates"),
            ad("axis", zero),
            ad("reduction", || s("update")),
        ],
        manipulate::infer_scatter_elements,
    ),
    op(
        "relax.scatter_nd",
        "R.scatter_nd",
        &[
            e("data"),
            e("indices"),
            e("updates"),
            ad("reduction", || s("update")),
        ],
        manipulate::infer_same_as_data,
    ),
    op(
        "relax.one_hot",
        "R.one_hot",
        &[
            e("indices"),
            e("on_value"),
            e("off_value"),
            a("depth"),
            ad("axis", minus_one),
        ],
        manipulate::infer_one_hot,
    ),
    op(
        "relax.index_put",
        "R.index_put",
        &[
            e("data"),
            e("indices"),
            e("values"),
            ad("accumulate", false_),
        ],
        scatter::infer_index_put,
    ),
    op(
        "relax.slice_scatter",
        "R.slice_scatter",
        &[
            e("input_tensor"),
            e("src"),
            e("start"),
            e("end"),
            e("step"),
            ad("axis", zero),
        ],
        scatter::infer_slice_scatter,
    ),
    op(
        "relax.meshgrid",
        "R.meshgrid",
        &[e("tensors"), ad("indexing", || s("ij"))],
        manipulate::infer_meshgrid,
    ),
    op(
        "relax.bucketize",
        "R.bucketize",
        &[
            e("input_tensor"),
            e("boundaries"),
            ad("out_int32", false_),
            ad("right", false_),
        ],
        search::infer_bucketize,
    ),
    op("relax.nonzero", "R.nonzero", X, search::infer_nonzero),
    op(
        "relax.unique",
        "R.unique",
        &[
            e("x"),
            ed("sorted", true_),
            ed("return_index", false_),
            ed("return_inverse", false_),
            ed("return_counts", false_),
            ed("axis", none),
        ],
        search::infer_unique,
    ),
    op(
        "relax.multinomial_from_uniform",
        "R.multinomial_from_uniform",
        &[
            e("prob"),
            e("uniform_sample"),
            e("sample_indices"),
            ad("dtype", || s("int64")),
        ],
        search::infer_multinomial_from_uniform,
    ),
    // ---- indexing ----
    op(
        "relax.take",
        "R.take",
        &[
            e("x"),
            e("indices"),
            ad("axis", none),
            ad("mode", || s("fast")),
        ],
        index::infer_take,
    ),
    op(
        "relax.strided_slice",
        "R.strided_slice",
        &[
            e("x"),
            e("axes"),
            e("begin"),
            e("end"),
            ed("strides", none),
            ad("assume_inbound", false_),
        ],
        index::infer_strided_slice,
    ),
    op(
        "relax.dynamic_strided_slice",
        "R.dynamic_strided_slice",
        &[e("x"), e("begin"), e("end"), e("strides")],
        index::infer_dynamic_strided_slice,
    ),
    // ---- creation ----
    op(
        "relax.full",
        "R.full",
        &[e("shape"), e("fill_value"), ad("dtype", none)],
        create::infer_full,
    ),
    op(
        "relax.full_like",
        "R.full_like",
        &[e("x"), e("fill_value"), ad("dtype", none)],
        create::infer_like,
    ),
    op(
        "relax.ones",
        "R.ones",
        &[e("shape"), a("dtype")],
        create::infer_init,
    ),
    op(
        "relax.zeros",
        "R.zeros",
        &[e("shape"), a("dtype")],
        create::infer_init,
    ),
    op("relax.ones_like", "R.ones_like", LIKE, create::infer_like),
    op("relax.zeros_like", "R.zeros_like", LIKE, create::infer_like),
    opc(
        "relax.eye",
        "R.eye",
        &[
            e("n"),
            ed("m", none),
            ed("k", zero),
            ad("dtype", || s("float32")),
        ],
        create::infer_eye,
        create::canon_eye,
    ),
    op(
        "relax.eye_like",
        "R.eye_like",
        &[e("x"), ed("k", zero), ad("dtype", none)],
        create::infer_like,
    ),
    opc(
        "relax.arange",
        "R.arange",
        &[
            e("start"),
            ed("end", none),
            ed("step", one),
            ad("dtype", none),
        ],
        create::infer_arange,
        create::canon_arange,
    ),
    op("relax.tril", "R.tril", TRILU, create::infer_trilu),
    op("relax.triu", "R.triu", TRILU, create::infer_trilu),
    // ---- sorting ----
    op(
        "relax.sort",
        "R.sort",
        &[e("x"), ad("axis", minus_one), ad("descending", false_)],
        sort::infer_sort,
    ),
    op(
        "relax.argsort",
        "R.argsort",
        &[
            e("data"),
            ad("axis", minus_one),
            ad("descending", false_),
            ad("dtype", || s("int32")),
        ],
        sort::infer_argsort,
    ),
    op(
        "relax.topk",
        "R.topk",
        &[
            e("data"),
            ad("k", one),
            ad("axis", minus_one),
            ad("ret_type", || s("both")),
            ad("largest", true_),
            ad("dtype", || s("int32")),
        ],
        sort::infer_topk,
    ),
    // ---- calls ----
    op(
        "relax.call_tir",
        "R.call_tir",
        &[e("gvar"), e("args"), ty("out_ty"), ed("tir_vars", none)],
        call::infer_call_dps,
    ),
    op(
        "relax.call_tir_inplace",
        "R.call_tir_inplace",
        &[
            e("gvar"),
            e("args"),
            a("inplace_indices"),
            ty("out_ty"),
            ed("tir_vars", none),
        ],
        call::infer_call_dps,
    ),
    op(
        "relax.call_tir_with_grad",
        "R.call_tir_with_grad",
        &[
            e("gvar"),
            e("args"),
            ty("out_ty"),
            a("te_grad_name"),
            ad("te_grad_kwargs", || AttrValue::Map(Vec::new())),
            ed("tir_vars", none),
        ],
        call::infer_call_dps,
    ),
    op(
        "relax.call_dps_packed",
        "R.call_dps_packed",
        &[e("func"), e("args"), ty("out_ty")],
        call::infer_call_dps,
    ),
    op(
        "relax.call_pure_packed",
        "R.call_pure_packed",
        &[e("func"), var("args"), ty("ty_args")],
        call::infer_ty_args,
    ),
    op(
        "relax.call_inplace_packed",
        "R.call_inplace_packed",
        &[e("func"), var("args"), a("inplace_indices"), ty("ty_args")],
        call::infer_ty_args,
    ),
    impure(op(
        "relax.call_builtin_with_ctx",
        "R.call_builtin_with_ctx",
        &[e("func"), e("args"), tyd("ty_args")],
        call::infer_builtin_with_ctx,
    )),
    op(
        "relax.make_closure",
        "R.make_closure",
        &[e("func"), e("args")],
        call::infer_any,
    ),
    impure(op(
        "relax.invoke_closure",
        "R.invoke_closure",
        &[e("closure"), e("args"), ty("ty_args")],
        call::infer_ty_args,
    )),
    op(
        "relax.invoke_pure_closure",
        "R.invoke_pure_closure",
        &[e("closure"), e("args"), ty("ty_args")],
        call::infer_ty_args,
    ),
    op("relax.null_value", "R.null_value", &[], call::infer_any),
    op(
        "relax.shape_of",
        "R.shape_of",
        &[e("expr")],
        call::infer_shape_of,
    ),
    op("relax.size", "R.size", &[e("expr")], call::infer_size),
    op(
        "relax.tensor_to_shape",
        "R.tensor_to_shape",
        &[e("expr")],
        call::infer_tensor_to_shape,
    ),
    op(
        "relax.shape_to_tensor",
        "R.shape_to_tensor",
        &[e("expr")],
        call::infer_shape_to_tensor,
    ),
    impure(op(
        "relax.print",
        "R.print",
        &[var("values"), ad("format", || s(""))],
        call::infer_void,
    )),
    impure(op(
        "relax.assert_op",
        "R.assert_op",
        &[e("condition"), var("format_args"), ad("format", || s(""))],
        call::infer_void,
    )),
    op(
        "relax.to_vdevice",
        "R.to_vdevice",
        &[e("data"), a("dst_vdevice")],
        call::infer_same_as_arg0,
    ),
    op(
        "relax.hint_on_device",
        "R.hint_on_device",
        &[
            e("data"),
            a("dst_vdevice"),
            ad("memory_scope", || s("global")),
        ],
        call::infer_same_as_arg0,
    ),
    // ---- memory: R.vm.*, R.memory.*, R.builtin.* ----
    op(
        "relax.vm.alloc_storage",
        "R.vm.alloc_storage",
        &[
            e("shape"),
            e("runtime_device_index"),
            e("dtype"),
            ed("storage_scope", || s("global")),
        ],
        call::infer_any,
    ),
    op(
        "relax.vm.alloc_tensor",
        "R.vm.alloc_tensor",
        &[
            e("storage"),
            e("offset"),
            e("shape"),
            e("dtype"),
            ed("runtime_device_ind", zero),
        ],
        call::infer_alloc_tensor_vm,
    ),
    impure(op(
        "relax.vm.kill_object",
        "R.vm.kill_object",
        &[e("obj")],
        call::infer_void,
    )),
    impure(op(
        "relax.vm.call_tir_dyn",
        "R.vm.call_tir_dyn",
        &[e("func"), e("args")],
        call::infer_void,
    )),
    op(
        "relax.memory.alloc_storage",
        "R.memory.alloc_storage",
        &[
            e("size"),
            e("virtual_device_index"),
            e("storage_scope"),
            e("dtype"),
        ],
        call::infer_any,
    ),
    op(
        "relax.memory.alloc_tensor",
        "R.memory.alloc_tensor",
        &[
            e("storage"),
            e("offset"),
            e("shape"),
            e("dtype"),
            ed("runtime_device_ind", zero),
        ],
        call::infer_alloc_tensor_vm,
    ),
    impure(op(
        "relax.memory.kill_storage",
        "R.memory.kill_storage",
        &[e("storage")],
        call::infer_void,
    )),
    impure(op(
        "relax.memory.kill_tensor",
        "R.memory.kill_tensor",
        &[e("tensor")],
        call::infer_void,
    )),
    op(
        "relax.memory.view",
        "R.memory.view",
        &[
            e("data"),
            ed("shape", none),
            ed("dtype", none),
            ed("relative_byte_offset", none),
        ],
        call::infer_view,
    ),
    op(
        "relax.memory.ensure_zero_offset",
        "R.memory.ensure_zero_offset",
        &[e("data")],
        call::infer_same_as_arg0,
    ),
    op(
        "relax.builtin.alloc_tensor",
        "R.builtin.alloc_tensor",
        &[
            e("shape"),
            e("dtype"),
            e("runtime_device_index"),
            ed("storage_scope", || s("global")),
        ],
        call::infer_alloc_tensor_builtin,
    ),
    op(
        "relax.builtin.stop_lift_params",
        "R.builtin.stop_lift_params",
        &[e("x")],
        call::infer_same_as_arg0,
    ),
    // ---- R.grad.*: markers of the Gradient pass, the identity when run ----
    op(
        "relax.grad.start_checkpoint",
        "R.grad.start_checkpoint",
        &[e("input")],
        call::infer_same_as_arg0,
    ),
    op(
        "relax.grad.end_checkpoint",
        "R.grad.end_checkpoint",
        &[e("input")],
        call::infer_same_as_arg0,
    ),
    op(
        "relax.grad.no_grad",
        "R.grad.no_grad",
        &[e("input")],
        call::infer_same_as_arg0,
    ),
    // ---- R.grad.*: backward operators that the Gradient pass emits ----
    op(
        "relax.grad.nll_loss_backward",
        "R.grad.nll_loss_backward",
        &[
            e("output_grad"),
            e("predictions"),
            e("targets"),
            ed("weights", none),
            ad("reduction", || s("mean")),
            ad("ignore_index", || AttrValue::Int(-100)),
        ],
        grad::infer_nll_loss_backward,
    ),
    opc(
        "relax.grad.max_pool2d_backward",
        "R.grad.max_pool2d_backward",
        POOL2D_BACKWARD,
        grad::infer_pool2d_backward,
        grad::canon_pool2d_backward,
    ),
    opc(
        "relax.grad.avg_pool2d_backward",
        "R.grad.avg_pool2d_backward",
        POOL2D_BACKWARD,
        grad::infer_pool2d_backward,
        grad::canon_pool2d_backward,
    ),
    // TVM's constructor sets only `axis` of its `TakeAttrs`; `mode` keeps the empty string
    // (the reflection default "fast" applies only to attrs made through reflection), and the
    // printer prints it: `mode=""`.
    op(
        "relax.grad.take_backward",
        "R.grad.take_backward",
        &[
            e("output_grad"),
            e("x"),
            e("indices"),
            ad("axis", none),
            ad("mode", || s("")),
        ],
        grad::infer_take_backward,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_consistent() {
        let mut seen = std::collections::HashSet::new();
        for op in OPS {
            assert!(seen.insert(op.name), "duplicate {}", op.name);
            let suffix = op.name.strip_prefix("relax.").expect("relax. prefix");
            assert_eq!(op.script_name, format!("R.{suffix}"));
            // Variadic and ty-args parameters come after the fixed expression arguments.
            let mut fixed_done = false;
            for p in op.params {
                match p.kind {
                    ParamKind::Expr if fixed_done => panic!("{}: expr after variadic", op.name),
                    ParamKind::VariadicExpr => fixed_done = true,
                    _ => {}
                }
            }
        }
    }
}
