#!/usr/bin/env python3
"""The rows of bench/benches/models.rs on the peers: onnxruntime (2 intra-op threads, all graph
optimizations) on ONNX graphs built here with the onnx package, and numpy where the workload is
plain numpy (matmul, MLP). Same shapes as bench/src/workloads.rs; weights are inputs, as there.
Prints the median, min and max of N calls per row (after a warm-up). Not used by any test.

    python3 bench/peers.py [--repeat N] [--threads T] [--only ROW]

Needs numpy, onnx and onnxruntime (`pip install numpy onnx onnxruntime`); SqueezeNet is read
from ../shared/models/squeezenet/model.onnx beside the workspace and skipped when absent.
"""
import argparse
import os
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timeit(fn, repeat, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2], times[0], times[-1]


def rnd(shape, seed):
    fan_in = shape[0] if shape else 1
    return (np.random.default_rng(seed).uniform(-1, 1, size=shape) / np.sqrt(fan_in)).astype(np.float32)


# ---- ONNX graphs ----

def ort_session(model, threads):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    data = model if isinstance(model, (bytes, str)) else model.SerializeToString()
    return ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])


def graph(nodes, inputs, output, out_shape, opset=20):
    from onnx import TensorProto, helper

    vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape)) for n, a in inputs]
    out = helper.make_tensor_value_info(output, TensorProto.FLOAT, out_shape)
    g = helper.make_graph(nodes, "g", vi, [out])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def const_i64(name, values):
    from onnx import helper, TensorProto

    return helper.make_node(
        "Constant", [], [name],
        value=helper.make_tensor(name + "_v", TensorProto.INT64, [len(values)], values))


def matmul_row(n=1024):
    from onnx import helper

    a, b = rnd((n, n), 1), rnd((n, n), 2)
    inputs = [("a", a), ("b", b)]
    m = graph([helper.make_node("MatMul", ["a", "b"], ["c"])], inputs, "c", [n, n])
    return "matmul", inputs, m, (lambda: np.matmul(a, b)), 2.0 * n**3


def mlp_row(batch):
    from onnx import helper

    x, w1, b1, w2, b2 = rnd((batch, 784), 1), rnd((784, 512), 2), rnd((512,), 3), rnd((512, 10), 4), rnd((10,), 5)
    inputs = [("x", x), ("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Add", ["h", "b1"], ["h1"]),
        helper.make_node("Relu", ["h1"], ["h2"]),
        helper.make_node("MatMul", ["h2", "w2"], ["o"]),
        helper.make_node("Add", ["o", "b2"], ["y"]),
    ]
    m = graph(nodes, inputs, "y", [batch, 10])

    def np_fn():
        h = x @ w1
        h += b1
        np.maximum(h, 0, out=h)
        return h @ w2 + b2

    return f"mlp_b{batch}", inputs, m, np_fn, 2.0 * batch * (784 * 512 + 512 * 10)


def transformer_row():
    from onnx import helper

    s, h, nh, hd, f = 128, 256, 4, 64, 1024
    names = ["x", "wq", "wk", "wv", "wo", "g1", "b1", "w_up", "b_up", "w_down", "b_down", "g2", "b2"]
    shapes = [(s, h), (h, h), (h, h), (h, h), (h, h), (h,), (h,), (h, f), (f,), (f, h), (h,), (h,), (h,)]
    arrays = [rnd(sh, i + 1) for i, sh in enumerate(shapes)]
    arrays[5] = np.ones(h, np.float32)
    arrays[11] = np.ones(h, np.float32)
    inputs = list(zip(names, arrays))
    N = helper.make_node
    nodes = [
        const_i64("shd", [s, nh, hd]), const_i64("sh", [s, h]),
        N("MatMul", ["x", "wq"], ["q"]), N("MatMul", ["x", "wk"], ["k"]), N("MatMul", ["x", "wv"], ["v"]),
        N("Reshape", ["q", "shd"], ["q3"]), N("Transpose", ["q3"], ["qh"], perm=[1, 0, 2]),
        N("Reshape", ["k", "shd"], ["k3"]), N("Transpose", ["k3"], ["kh"], perm=[1, 2, 0]),
        N("Reshape", ["v", "shd"], ["v3"]), N("Transpose", ["v3"], ["vh"], perm=[1, 0, 2]),
        N("MatMul", ["qh", "kh"], ["sc"]),
        helper.make_node("Constant", [], ["scale"], value_float=0.125),
        N("Mul", ["sc", "scale"], ["s1"]), N("Softmax", ["s1"], ["p"], axis=-1),
        N("MatMul", ["p", "vh"], ["a"]), N("Transpose", ["a"], ["a3"], perm=[1, 0, 2]),
        N("Reshape", ["a3", "sh"], ["a1"]), N("MatMul", ["a1", "wo"], ["o"]),
        N("Add", ["x", "o"], ["r1"]),
        N("LayerNormalization", ["r1", "g1", "b1"], ["n1"], axis=-1, epsilon=1e-5),
        N("MatMul", ["n1", "w_up"], ["l18"]), N("Add", ["l18", "b_up"], ["u"]),
        N("Gelu", ["u"], ["ug"]),
        N("MatMul", ["ug", "w_down"], ["l21"]), N("Add", ["l21", "b_down"], ["d"]),
        N("Add", ["n1", "d"], ["r2"]),
        N("LayerNormalization", ["r2", "g2", "b2"], ["y"], axis=-1, epsilon=1e-5),
    ]
    m = graph(nodes, inputs, "y", [s, h])
    flops = 2.0 * (4 * s * h * h + 2 * s * s * h + 2 * s * h * f)
    return "transformer", inputs, m, None, flops


def conv_row():
    from onnx import helper

    x, w, b = rnd((1, 64, 56, 56), 1), rnd((64, 64, 3, 3), 2), rnd((1, 64, 1, 1), 3)
    inputs = [("x", x), ("w", w), ("b", b)]
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c", "b"], ["c1"]),
        helper.make_node("Relu", ["c1"], ["c2"]),
        helper.make_node("MaxPool", ["c2"], ["y"], kernel_shape=[2, 2], strides=[2, 2]),
    ]
    m = graph(nodes, inputs, "y", [1, 64, 28, 28])
    return "conv_block", inputs, m, None, 2.0 * 64 * 64 * 9 * 56 * 56


def squeezenet_row():
    path = os.path.join(ROOT, "..", "shared", "models", "squeezenet", "model.onnx")
    if not os.path.exists(path):
        print(f"squeezenet: {path} not found, row skipped")
        return None
    import onnx

    m = onnx.load(path)
    weights = {i.name for i in m.graph.initializer}
    inp = next(i for i in m.graph.input if i.name not in weights)
    dims = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    return "squeezenet", [(inp.name, rnd(tuple(dims), 1))], m, None, 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only")
    args = ap.parse_args()
    rows = [matmul_row, lambda: mlp_row(1), lambda: mlp_row(64), transformer_row, conv_row, squeezenet_row]
    print(f"{'row':12} {'peer':12} {'median':>11} {'min':>11} {'max':>11} {'GFLOP/s':>8}")
    for make in rows:
        row = make()
        if row is None:
            continue
        name, inputs, model, np_fn, flops = row
        if args.only and args.only != name:
            continue
        repeat = max(5, args.repeat // 10) if name in ("matmul", "conv_block", "squeezenet") else args.repeat
        sess = ort_session(model, args.threads)
        feed = {n: a for n, a in inputs}
        peers = [("onnxruntime", lambda: sess.run(None, feed))]
        if np_fn is not None:
            peers.append(("numpy", np_fn))
        for peer, fn in peers:
            med, lo, hi = timeit(fn, repeat)
            gf = f"{flops / med / 1e9:8.1f}" if flops else f"{'':8}"
            print(f"{name:12} {peer:12} {med * 1e6:9.1f}us {lo * 1e6:9.1f}us {hi * 1e6:9.1f}us {gf}")


if __name__ == "__main__":
    main()
