#!/usr/bin/env python3
"""Writes onnx/tests/data/ops/: small single-purpose models at recent opsets, each with a
test_data_set_0 whose expected outputs onnxruntime computed, in the layout of onnx's backend
test data, so that `cargo test -p relaxjit-onnx --test backend` runs them like the others.

They cover what onnx's backend sets do not: opset 13–20 operator forms (axes as inputs,
Split's num_outputs, Pad's axes), symbolic dimensions (`dim_param`) with shape subgraphs,
negative Gather indices and Slice steps, and operators of the issue's list absent from the
light zoo and the pytorch sets.

    python3 onnx/scripts/gen_op_tests.py     # needs numpy, onnx, onnxruntime
"""

import os
import shutil

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "ops")
RNG = np.random.default_rng(7)
F = TensorProto.FLOAT
I64 = TensorProto.INT64


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def case(name, nodes, inputs, outputs, feeds, opset=18, inits=()):
    graph = helper.make_graph(
        nodes,
        name,
        [vi(n, e, s) for n, e, s in inputs],
        [vi(n, e, None) for n, e in outputs],
        initializer=[numpy_helper.from_array(v, n) for n, v in inits],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8

    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    outs = sess.run(None, {n: v for (n, _, _), v in zip(inputs, feeds)})
    d = os.path.join(ROOT, name)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    onnx.save(model, os.path.join(d, "model.onnx"))
    for k, v in enumerate(feeds):
        with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v).SerializeToString())
    for k, v in enumerate(outs):
        with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v).SerializeToString())


def unary(op, x=None, opset=18, **attrs):
    x = rand(2, 3, 4) if x is None else x
    case(
        f"test_op_{op.lower()}",
        [helper.make_node(op, ["x"], ["y"], **attrs)],
        [("x", F, list(x.shape))],
        [("y", F)],
        [x],
        opset,
    )


def transformer_layer():
    """A BERT-style encoder layer as exporters write it, with symbolic batch and sequence:
    heads split and merged by Reshapes whose shapes come from Shape/Gather/Concat, GELU
    through Erf, layer norms through ReduceMean, an additive attention mask."""
    h, nh = 16, 2
    hd = h // nh
    n = helper.make_node
    c = lambda name, v: (name, np.array(v, np.int64))
    inits = [
        ("wq", rand(h, h) * 0.3), ("wk", rand(h, h) * 0.3), ("wv", rand(h, h) * 0.3),
        ("wo", rand(h, h) * 0.3), ("bq", rand(h) * 0.1), ("w1", rand(h, 4 * h) * 0.3),
        ("w2", rand(4 * h, h) * 0.3), ("g", rand(h)), ("beta", rand(h)),
        ("scale", np.array(1 / np.sqrt(hd), np.float32)), ("half", np.array(0.5, np.float32)),
        ("one", np.array(1.0, np.float32)), ("rsqrt2", np.array(1 / np.sqrt(2), np.float32)),
        ("eps", np.array(1e-5, np.float32)), ("neg", np.array(-1e4, np.float32)),
        c("i0", 0), c("i1", 1), c("ax0", [0]), c("heads", [nh]), c("hd", [hd]), c("hid", [h]),
    ]
    nodes = [
        n("Shape", ["x"], ["s"]),
        n("Gather", ["s", "i0"], ["b"]), n("Gather", ["s", "i1"], ["t"]),
        n("Unsqueeze", ["b", "ax0"], ["b1"]), n("Unsqueeze", ["t", "ax0"], ["t1"]),
        n("Concat", ["b1", "t1", "heads", "hd"], ["split_shape"], axis=0),
        n("Concat", ["b1", "t1", "hid"], ["merge_shape"], axis=0),
        n("MatMul", ["x", "wq"], ["q0"]), n("Add", ["q0", "bq"], ["q1"]),
        n("MatMul", ["x", "wk"], ["k0"]), n("MatMul", ["x", "wv"], ["v0"]),
        n("Reshape", ["q1", "split_shape"], ["q2"]), n("Transpose", ["q2"], ["q"], perm=[0, 2, 1, 3]),
        n("Reshape", ["k0", "split_shape"], ["k2"]), n("Transpose", ["k2"], ["k"], perm=[0, 2, 3, 1]),
        n("Reshape", ["v0", "split_shape"], ["v2"]), n("Transpose", ["v2"], ["v"], perm=[0, 2, 1, 3]),
        n("MatMul", ["q", "k"], ["qk"]), n("Mul", ["qk", "scale"], ["qks"]),
        # mask (B, S) of 0/1 -> additive (B, 1, 1, S)
        n("Sub", ["one", "mask"], ["inv"]), n("Mul", ["inv", "neg"], ["madd"]),
        n("Unsqueeze", ["madd", "m_axes"], ["m4"]), n("Add", ["qks", "m4"], ["sc"]),
        n("Softmax", ["sc"], ["p"], axis=-1),
        n("MatMul", ["p", "v"], ["ctx0"]), n("Transpose", ["ctx0"], ["ctx1"], perm=[0, 2, 1, 3]),
        n("Reshape", ["ctx1", "merge_shape"], ["ctx"]), n("MatMul", ["ctx", "wo"], ["att"]),
        n("Add", ["x", "att"], ["r1"]),
        n("ReduceMean", ["r1", "last"], ["mu"]), n("Sub", ["r1", "mu"], ["d"]),
        n("Mul", ["d", "d"], ["d2"]), n("ReduceMean", ["d2", "last"], ["var"]),
        n("Add", ["var", "eps"], ["ve"]), n("Sqrt", ["ve"], ["sd"]), n("Div", ["d", "sd"], ["nrm"]),
        n("Mul", ["nrm", "g"], ["ng"]), n("Add", ["ng", "beta"], ["ln"]),
        n("MatMul", ["ln", "w1"], ["f1"]), n("Mul", ["f1", "rsqrt2"], ["f1s"]), n("Erf", ["f1s"], ["e"]),
        n("Add", ["e", "one"], ["e1"]), n("Mul", ["f1", "e1"], ["f2"]), n("Mul", ["f2", "half"], ["gelu"]),
        n("MatMul", ["gelu", "w2"], ["f3"]), n("Add", ["ln", "f3"], ["y"]),
    ]
    inits += [c("m_axes", [1, 2]), c("last", [-1])]
    inits = [(k, v.astype(np.float32) if v.dtype == np.float64 else v) for k, v in inits]
    mask = np.ones((2, 5), np.float32)
    mask[1, 3:] = 0
    case("test_op_transformer_layer_symbolic", nodes,
         [("x", F, ["batch", "seq", h]), ("mask", F, ["batch", "seq"])], [("y", F)],
         [rand(2, 5, h), mask], 18, inits=inits)


def main():
    if os.path.exists(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT)
    for op in ["Erf", "HardSigmoid", "HardSwish", "Softsign", "Softplus", "Reciprocal", "Floor",
               "Ceil", "Round", "Sin", "Cos", "Mish", "Celu", "ThresholdedRelu", "Elu", "Sign"]:
        unary(op)
    unary("Gelu", opset=20)
    case("test_op_gelu_tanh", [helper.make_node("Gelu", ["x"], ["y"], approximate="tanh")],
         [("x", F, [3, 5])], [("y", F)], [rand(3, 5)], 20)
    case("test_op_softmax_13_axis1", [helper.make_node("Softmax", ["x"], ["y"], axis=1)],
         [("x", F, [2, 3, 4])], [("y", F)], [rand(2, 3, 4)], 13)
    case("test_op_logsoftmax_11_axis1", [helper.make_node("LogSoftmax", ["x"], ["y"], axis=1)],
         [("x", F, [2, 3, 4])], [("y", F)], [rand(2, 3, 4)], 11)
    # Symbolic batch: Shape -> Gather -> Unsqueeze -> Concat -> Reshape keeps the batch symbolic.
    case(
        "test_op_symbolic_flatten",
        [
            helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
            helper.make_node("Unsqueeze", ["n", "zero1"], ["n1"]),
            helper.make_node("Concat", ["n1", "minus1"], ["shape"], axis=0),
            helper.make_node("Reshape", ["x", "shape"], ["y"]),
            helper.make_node("Relu", ["y"], ["z"]),
        ],
        [("x", F, ["N", 3, 4])],
        [("z", F)],
        [rand(5, 3, 4)],
        inits=[("zero", np.array(0, np.int64)), ("zero1", np.array([0], np.int64)),
               ("minus1", np.array([-1], np.int64))],
    )
    case(
        "test_op_symbolic_constant_of_shape",
        [
            helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("ConstantOfShape", ["s"], ["c"],
                             value=numpy_helper.from_array(np.array([2.0], np.float32))),
            helper.make_node("Mul", ["x", "c"], ["y"]),
        ],
        [("x", F, ["B", 4])],
        [("y", F)],
        [rand(3, 4)],
    )
    case("test_op_squeeze_13", [helper.make_node("Squeeze", ["x", "axes"], ["y"])],
         [("x", F, [2, 1, 3, 1])], [("y", F)], [rand(2, 1, 3, 1)], 13,
         inits=[("axes", np.array([1, -1], np.int64))])
    case("test_op_unsqueeze_13", [helper.make_node("Unsqueeze", ["x", "axes"], ["y"])],
         [("x", F, [2, 3])], [("y", F)], [rand(2, 3)], 13,
         inits=[("axes", np.array([0, 3], np.int64))])
    case("test_op_split_18_num_outputs",
         [helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3)],
         [("x", F, [2, 7])], [("a", F), ("b", F), ("c", F)], [rand(2, 7)], 18)
    case("test_op_split_13_sizes", [helper.make_node("Split", ["x", "s"], ["a", "b"], axis=0)],
         [("x", F, [5, 2])], [("a", F), ("b", F)], [rand(5, 2)], 13,
         inits=[("s", np.array([2, 3], np.int64))])
    case("test_op_reducemean_18_axes",
         [helper.make_node("ReduceMean", ["x", "axes"], ["y"], keepdims=0)],
         [("x", F, [2, 3, 4])], [("y", F)], [rand(2, 3, 4)], 18,
         inits=[("axes", np.array([-1, 0], np.int64))])
    for op in ["ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare",
               "ReduceLogSumExp"]:
        case(f"test_op_{op.lower()}_13", [helper.make_node(op, ["x"], ["y"], axes=[1])],
             [("x", F, [2, 3, 4])], [("y", F)], [rand(2, 3, 4)], 13)
    case("test_op_reducesum_13_noop",
         [helper.make_node("ReduceSum", ["x"], ["y"], noop_with_empty_axes=1)],
         [("x", F, [2, 3])], [("y", F)], [rand(2, 3)], 13)
    case("test_op_clip_13", [helper.make_node("Clip", ["x", "lo", "hi"], ["y"])],
         [("x", F, [3, 4])], [("y", F)], [rand(3, 4)], 13,
         inits=[("lo", np.array(-0.5, np.float32)), ("hi", np.array(0.3, np.float32))])
    case("test_op_gather_negative", [helper.make_node("Gather", ["x", "i"], ["y"], axis=1)],
         [("x", F, [3, 5])], [("y", F)], [rand(3, 5)], 13,
         inits=[("i", np.array([[-1, 0], [2, -5]], np.int64))])
    case("test_op_gather_runtime_indices", [helper.make_node("Gather", ["x", "i"], ["y"], axis=0)],
         [("x", F, [4, 3]), ("i", I64, [3])], [("y", F)],
         [rand(4, 3), np.array([3, -1, 0], np.int64)], 13)
    case("test_op_gather_elements", [helper.make_node("GatherElements", ["x", "i"], ["y"], axis=1)],
         [("x", F, [2, 3]), ("i", I64, [2, 2])], [("y", F)],
         [rand(2, 3), np.array([[0, 2], [1, 1]], np.int64)], 13)
    case("test_op_slice_negative_step",
         [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])],
         [("x", F, [4, 6])], [("y", F)], [rand(4, 6)], 13,
         inits=[("st", np.array([-1, 5], np.int64)), ("en", np.array([-10, 0], np.int64)),
                ("ax", np.array([0, 1], np.int64)), ("sp", np.array([-1, -2], np.int64))])
    case("test_op_slice_large_end", [helper.make_node("Slice", ["x", "st", "en"], ["y"])],
         [("x", F, [4, 6])], [("y", F)], [rand(4, 6)], 13,
         inits=[("st", np.array([1], np.int64)), ("en", np.array([2**62], np.int64))])
    for mode in ["constant", "reflect", "edge"]:
        case(f"test_op_pad_18_{mode}", [helper.make_node("Pad", ["x", "p", "v", "ax"], ["y"], mode=mode)],
             [("x", F, [2, 3, 4])], [("y", F)], [rand(2, 3, 4)], 18,
             inits=[("p", np.array([1, 2, 2, 1], np.int64)), ("v", np.array(0.5, np.float32)),
                    ("ax", np.array([1, 2], np.int64))])
    case("test_op_expand", [helper.make_node("Expand", ["x", "s"], ["y"])],
         [("x", F, [3, 1])], [("y", F)], [rand(3, 1)], 13,
         inits=[("s", np.array([2, 1, 4], np.int64))])
    case("test_op_where", [helper.make_node("Where", ["c", "x", "y"], ["z"])],
         [("c", TensorProto.BOOL, [3, 1]), ("x", F, [3, 4]), ("y", F, [4])], [("z", F)],
         [np.array([[True], [False], [True]]), rand(3, 4), rand(4)], 13)
    case("test_op_cast_compare",
         [helper.make_node("Greater", ["x", "y"], ["g"]),
          helper.make_node("Cast", ["g"], ["z"], to=TensorProto.FLOAT)],
         [("x", F, [3, 4]), ("y", F, [4])], [("z", F)], [rand(3, 4), rand(4)], 13)
    case("test_op_einsum", [helper.make_node("Einsum", ["a", "b"], ["c"], equation="bij,bjk->bik")],
         [("a", F, [2, 3, 4]), ("b", F, [2, 4, 5])], [("c", F)], [rand(2, 3, 4), rand(2, 4, 5)], 13)
    case("test_op_cumsum_reverse_exclusive",
         [helper.make_node("CumSum", ["x", "ax"], ["y"], exclusive=1, reverse=1)],
         [("x", F, [3, 4])], [("y", F)], [rand(3, 4)], 14,
         inits=[("ax", np.array(1, np.int64))])
    case("test_op_topk", [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1)],
         [("x", F, [3, 6])], [("v", F), ("i", I64)], [rand(3, 6)], 13,
         inits=[("k", np.array([2], np.int64))])
    case("test_op_argmax_keepdims", [helper.make_node("ArgMax", ["x"], ["y"], axis=-1)],
         [("x", F, [3, 5])], [("y", I64)], [rand(3, 5)], 13)
    case("test_op_argmin", [helper.make_node("ArgMin", ["x"], ["y"], axis=0, keepdims=0)],
         [("x", F, [3, 5])], [("y", I64)], [rand(3, 5)], 13)
    case("test_op_layer_norm", [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1, epsilon=1e-5)],
         [("x", F, [2, 3, 8])], [("y", F)], [rand(2, 3, 8)], 17,
         inits=[("g", rand(8)), ("b", rand(8))])
    case("test_op_instance_norm", [helper.make_node("InstanceNormalization", ["x", "g", "b"], ["y"])],
         [("x", F, [2, 3, 4, 5])], [("y", F)], [rand(2, 3, 4, 5)], 13,
         inits=[("g", rand(3)), ("b", rand(3))])
    case("test_op_batchnorm_15", [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])],
         [("x", F, [2, 3, 4, 4])], [("y", F)], [rand(2, 3, 4, 4)], 15,
         inits=[("s", rand(3)), ("b", rand(3)), ("m", rand(3)),
                ("v", RNG.uniform(0.5, 1.5, 3).astype(np.float32))])
    case("test_op_lrn", [helper.make_node("LRN", ["x"], ["y"], size=3, alpha=0.01, beta=0.6, bias=2.0)],
         [("x", F, [1, 6, 3, 3])], [("y", F)], [rand(1, 6, 3, 3)], 13)
    case("test_op_conv_same_upper",
         [helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2])],
         [("x", F, [1, 2, 7, 6])], [("y", F)], [rand(1, 2, 7, 6)], 13,
         inits=[("w", rand(3, 2, 3, 3))])
    case("test_op_conv_transpose_output_shape",
         [helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], output_shape=[8, 9])],
         [("x", F, [1, 2, 4, 4])], [("y", F)], [rand(1, 2, 4, 4)], 13,
         inits=[("w", rand(2, 3, 3, 3))])
    case("test_op_maxpool_ceil", [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)],
         [("x", F, [1, 2, 6, 6])], [("y", F)], [rand(1, 2, 6, 6)], 13)
    case("test_op_avgpool_pads_exclusive",
         [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
         [("x", F, [1, 2, 5, 5])], [("y", F)], [rand(1, 2, 5, 5)], 13)
    case("test_op_global_max_pool", [helper.make_node("GlobalMaxPool", ["x"], ["y"])],
         [("x", F, [2, 3, 4, 5])], [("y", F)], [rand(2, 3, 4, 5)], 13)
    case("test_op_gemm_trans", [helper.make_node("Gemm", ["a", "b", "c"], ["y"], alpha=0.5, beta=2.0, transA=1, transB=1)],
         [("a", F, [4, 3]), ("b", F, [5, 4]), ("c", F, [5])], [("y", F)],
         [rand(4, 3), rand(5, 4), rand(5)], 13)
    case("test_op_matmul_batched", [helper.make_node("MatMul", ["a", "b"], ["y"])],
         [("a", F, [2, 1, 3, 4]), ("b", F, [5, 4, 2])], [("y", F)], [rand(2, 1, 3, 4), rand(5, 4, 2)], 13)
    case("test_op_pow_int_exponent", [helper.make_node("Pow", ["x", "e"], ["y"])],
         [("x", F, [3, 4])], [("y", F)], [rand(3, 4)], 15, inits=[("e", np.array(3, np.int64))])
    case("test_op_mod_int", [helper.make_node("Mod", ["a", "b"], ["y"])],
         [("a", I64, [6]), ("b", I64, [6])], [("y", I64)],
         [np.array([7, -7, 7, -7, 5, 0], np.int64), np.array([3, 3, -3, -3, 5, 4], np.int64)], 13)
    case("test_op_tile", [helper.make_node("Tile", ["x", "r"], ["y"])],
         [("x", F, [2, 3])], [("y", F)], [rand(2, 3)], 13, inits=[("r", np.array([2, 3], np.int64))])
    case("test_op_range_float", [helper.make_node("Range", ["a", "b", "d"], ["y"])],
         [], [("y", F)], [], 13,
         inits=[("a", np.array(1.0, np.float32)), ("b", np.array(3.1, np.float32)),
                ("d", np.array(0.5, np.float32))])
    case("test_op_trilu_lower", [helper.make_node("Trilu", ["x", "k"], ["y"], upper=0)],
         [("x", F, [4, 5])], [("y", F)], [rand(4, 5)], 14, inits=[("k", np.array(1, np.int64))])
    case("test_op_transpose_default", [helper.make_node("Transpose", ["x"], ["y"])],
         [("x", F, [2, 3, 4])], [("y", F)], [rand(2, 3, 4)], 13)
    case("test_op_flatten_axis0", [helper.make_node("Flatten", ["x"], ["y"], axis=0)],
         [("x", F, [2, 3, 4])], [("y", F)], [rand(2, 3, 4)], 13)
    case("test_op_isinf_isnan",
         [helper.make_node("IsInf", ["x"], ["a"], detect_negative=0),
          helper.make_node("IsNaN", ["x"], ["b"])],
         [("x", F, [5])], [("a", TensorProto.BOOL), ("b", TensorProto.BOOL)],
         [np.array([1.0, np.inf, -np.inf, np.nan, 0.0], np.float32)], 13)
    case("test_op_size_shape_slice",
         [helper.make_node("Shape", ["x"], ["s"], start=1),
          helper.make_node("Size", ["x"], ["n"])],
         [("x", F, [2, 3, 4])], [("s", I64), ("n", I64)], [rand(2, 3, 4)], 15)
    x = rand(1, 2, 4, 5)
    for name, attrs, opset, scales, sizes in [
        ("nearest_half_pixel", dict(mode="nearest"), 13, [1, 1, 2.0, 1.5], None),
        ("nearest_asymmetric_floor", dict(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor"), 13, [1, 1, 0.5, 2.0], None),
        ("linear_half_pixel", dict(mode="linear"), 13, [1, 1, 2.0, 1.6], None),
        ("linear_align_corners_sizes", dict(mode="linear", coordinate_transformation_mode="align_corners"), 13, None, [1, 2, 7, 3]),
        ("linear_pytorch_half_pixel", dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"), 13, [1, 1, 0.6, 2.0], None),
        ("nearest_ceil_sizes_18_axes", dict(mode="nearest", nearest_mode="ceil", axes=[2, 3]), 18, None, [6, 8]),
    ]:
        inputs = ["x", "roi", "scales" if scales else ""] + (["sizes"] if sizes else [])
        inits = [("roi", np.array([], np.float32))]
        if scales:
            inits.append(("scales", np.array(scales, np.float32)))
        if sizes:
            inits.append(("sizes", np.array(sizes, np.int64)))
        case(f"test_op_resize_{name}", [helper.make_node("Resize", inputs, ["y"], **attrs)],
             [("x", F, [1, 2, 4, 5])], [("y", F)], [x], opset, inits=inits)
    case("test_op_upsample_9", [helper.make_node("Upsample", ["x", "s"], ["y"], mode="nearest")],
         [("x", F, [1, 2, 3, 3])], [("y", F)], [rand(1, 2, 3, 3)], 9,
         inits=[("s", np.array([1, 1, 2, 3], np.float32))])
    transformer_layer()
    found_by_fuzzing()
    nms_cases()
    print(f"wrote {len(os.listdir(ROOT))} tests to {os.path.normpath(ROOT)}")


def found_by_fuzzing():
    """Forms on which the importer once disagreed with onnxruntime (single-node models with
    random attributes): ceil-mode pools whose last window would start in the end padding
    (onnxruntime drops it), Flatten with a negative axis, GatherElements with negative run-time
    indices, TopK with K = 0, Split into one output, a backward Slice whose end is INT64_MAX."""
    case("test_op_maxpool_ceil_drops_last_window",
         [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[1, 2], strides=[1, 3], pads=[0, 1, 0, 1], ceil_mode=1)],
         [("x", F, [1, 1, 2, 8])], [("y", F)], [rand(1, 1, 2, 8)], 13)
    case("test_op_avgpool_ceil_drops_last_window",
         [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[1, 3], strides=[3, 2], pads=[0, 2, 0, 1], ceil_mode=1)],
         [("x", F, [2, 3, 2, 8])], [("y", F)], [rand(2, 3, 2, 8)], 13)
    case("test_op_avgpool_ceil_include_pad",
         [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1)],
         [("x", F, [1, 2, 5, 5])], [("y", F)], [rand(1, 2, 5, 5)], 13)
    case("test_op_flatten_negative_axis", [helper.make_node("Flatten", ["x"], ["y"], axis=-1)],
         [("x", F, [2, 3, 4])], [("y", F)], [rand(2, 3, 4)], 13)
    case("test_op_gather_elements_negative", [helper.make_node("GatherElements", ["x", "i"], ["y"], axis=1)],
         [("x", F, [3, 4]), ("i", I64, [3, 2])], [("y", F)],
         [rand(3, 4), np.array([[-1, 0], [-4, 3], [2, -2]], np.int64)], 13)
    case("test_op_topk_k0", [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=0)],
         [("x", F, [3, 6])], [("v", F), ("i", I64)], [rand(3, 6)], 13,
         inits=[("k", np.array([0], np.int64))])
    case("test_op_split_18_one_output", [helper.make_node("Split", ["x"], ["a"], axis=1, num_outputs=1)],
         [("x", F, [2, 5])], [("a", F)], [rand(2, 5)], 18)
    case("test_op_conv_transpose_same_kernel_below_stride",
         [helper.make_node("ConvTranspose", ["x", "w"], ["y"], kernel_shape=[2, 2], strides=[3, 2], auto_pad="SAME_LOWER", group=2)],
         [("x", F, [1, 2, 4, 3])], [("y", F)], [rand(1, 2, 4, 3)], 13,
         inits=[("w", rand(2, 1, 2, 2))])
    case("test_op_slice_backward_int64_max_end",
         [helper.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"])],
         [("x", F, [3, 5])], [("y", F)], [rand(3, 5)], 13,
         inits=[("s", np.array([-2], np.int64)), ("e", np.array([2**63 - 1], np.int64)),
                ("a", np.array([1], np.int64)), ("t", np.array([-1], np.int64))])


def nms_cases():
    """NonMaxSuppression as TVM imports it (R.vision.all_class_non_max_suppression): corner and
    center boxes, several batches and classes, a score threshold, a per-class limit given at run
    time. Overlapping clusters of boxes with distinct scores, no overlap equal to a threshold
    (onnxruntime suppresses above it, TVM at or above it)."""
    rng = np.random.default_rng(11)

    def boxes(b, n, center):
        c = np.array([[0.3, 0.3], [0.6, 0.65], [0.33, 0.28]])[rng.integers(0, 3, size=(b, n))]
        c = c + rng.uniform(-0.05, 0.05, size=(b, n, 2))
        wh = rng.uniform(0.2, 0.35, size=(b, n, 2))
        if center:
            return np.concatenate([c, wh], axis=2).astype(np.float32)
        return np.concatenate([c - wh / 2, c + wh / 2], axis=2).astype(np.float32)

    def scores(b, c, n):
        return rng.permutation(np.linspace(0.05, 0.95, b * c * n)).reshape(b, c, n).astype(np.float32)

    def nms(name, b, c, n, max_out, iou, score, center=0, runtime_max=False):
        inputs = [("boxes", F, [b, n, 4]), ("scores", F, [b, c, n])]
        feeds = [boxes(b, n, center), scores(b, c, n)]
        inits = [("iou", np.array([iou], np.float32))]
        if score is not None:
            inits.append(("score", np.array([score], np.float32)))
        if runtime_max:
            inputs.append(("max", I64, [1]))
            feeds.append(np.array([max_out], np.int64))
        else:
            inits.append(("max", np.array([max_out], np.int64)))
        names = ["boxes", "scores", "max", "iou"] + (["score"] if score is not None else [])
        case(name, [helper.make_node("NonMaxSuppression", names, ["selected"], center_point_box=center)],
             inputs, [("selected", I64)], feeds, 11, inits=inits)

    nms("test_op_nms_corners", 1, 2, 8, 3, 0.5, 0.0)
    nms("test_op_nms_center_point_box", 2, 1, 7, 4, 0.4, 0.0, center=1)
    nms("test_op_nms_score_threshold", 2, 3, 6, 2, 0.45, 0.5)
    nms("test_op_nms_no_score_threshold", 1, 2, 6, 5, 0.3, None)
    nms("test_op_nms_runtime_max", 2, 2, 6, 2, 0.5, 0.1, runtime_max=True)


if __name__ == "__main__":
    main()
