#!/usr/bin/env python3
"""The rows of `cargo xtask bench` (bench/src/workloads.rs) on the peers: onnxruntime (2
intra-op threads, all graph optimizations) on ONNX graphs built here with the onnx package or
read from tests/models/NAME/model.onnx, and numpy where the workload is plain numpy (matmul,
MLP, the add chain). Same shapes as the Rust workloads; weights are inputs, as there. Not used
by any test.

    python3 bench/peers.py [--budget SECONDS] [--threads T] [--only ROW]   # a table
    python3 bench/peers.py --zoo [--budget SECONDS] [--threads T]           # the zoo rows
    python3 bench/peers.py --serve                                         # for cargo xtask bench

The zoo rows (`zoo_STEM`, workloads::ZOO) run onnx/tests/data/light/light_STEM.onnx on the input
relaxjit's side uses (element i of n is i / n, workloads::ramp_f32), so that the outputs compare.

With --serve it first prints one JSON line (versions, and which peers are missing), then reads
requests `{"row": NAME, "budget": SECONDS, "output": BOOL}` one per line from stdin and answers
each with one line `{"row": NAME, "peers": {PEER: {"samples": [seconds per call, ...]} |
{"skipped": WHY}}}`; with "output" true, onnxruntime's answer on a zoo row also holds its first
output, `"output": {"shape": [...], "data": [...]}` (the other rows' inputs are not relaxjit's).

Needs numpy, onnx and onnxruntime (`pip install numpy onnx onnxruntime`); a peer whose package
is missing is reported as skipped, row by row.
"""
import argparse
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "tests", "models")
LIGHT = os.path.join(ROOT, "onnx", "tests", "data", "light")


def missing_packages():
    out = []
    for pkg in ("numpy", "onnx", "onnxruntime"):
        try:
            __import__(pkg)
        except ImportError:
            out.append(pkg)
    return out


def sample(fn, budget, min_samples=5, max_samples=30, sample_target=0.1):
    """Per-call times of `fn`, one per sample; each sample times enough calls to last about
    `sample_target` seconds, and the samples together about `budget` seconds (the rule of
    support/src/timing.rs)."""
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    warm = []
    while len(warm) < 3 or (sum(warm) < 0.05 and len(warm) < 1000):
        t0 = time.perf_counter()
        fn()
        warm.append(time.perf_counter() - t0)
    per_call = max(sum(warm) / len(warm), 1e-9)
    k = max(1, int(math.ceil(sample_target / per_call)))
    n = int(budget / (k * per_call))
    n = max(min_samples, min(max_samples, n))
    out = []
    began = time.perf_counter()
    for i in range(n):
        if i >= min_samples and time.perf_counter() - began >= budget:
            break
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        out.append((time.perf_counter() - t0) / k)
    return out, first


def rnd(shape, seed):
    import numpy as np

    fan_in = shape[0] if shape else 1
    return (np.random.default_rng(seed).uniform(-1, 1, size=shape) / np.sqrt(fan_in)).astype(np.float32)


# ---- ONNX graphs ----

def ort_session(model, threads):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3  # errors only: the light-zoo files carry unused initializers
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


# Each row maker returns (inputs, onnx model or a path, numpy function or None).

def matmul_row(n=1024):
    from onnx import helper
    import numpy as np

    a, b = rnd((n, n), 1), rnd((n, n), 2)
    inputs = [("a", a), ("b", b)]
    m = graph([helper.make_node("MatMul", ["a", "b"], ["c"])], inputs, "c", [n, n])
    return inputs, m, (lambda: np.matmul(a, b))


def mlp_row(batch):
    from onnx import helper
    import numpy as np

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

    return inputs, m, np_fn


def transformer_row():
    from onnx import helper
    import numpy as np

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
    return inputs, graph(nodes, inputs, "y", [s, h]), None


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
    return inputs, graph(nodes, inputs, "y", [1, 64, 28, 28]), None


def model_row(name):
    path = os.path.join(MODELS, name, "model.onnx")
    if not os.path.exists(path):
        raise FileNotFoundError(f"tests/models/{name}/model.onnx not found")
    import onnx

    m = onnx.load(path)
    weights = {i.name for i in m.graph.initializer}
    inp = next(i for i in m.graph.input if i.name not in weights)
    dims = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    return [(inp.name, rnd(tuple(dims), 1))], m, None


def zoo_row(stem):
    """A light-zoo model on the ramp input (i / n), as workloads::zoo_model."""
    import numpy as np
    import onnx

    file = "bvlc_alexnet" if stem == "alexnet" else stem
    path = os.path.join(LIGHT, f"light_{file}.onnx")
    if not os.path.exists(path):
        raise FileNotFoundError(f"onnx/tests/data/light/light_{file}.onnx not found")
    m = onnx.load(path)
    weights = {i.name for i in m.graph.initializer}
    inputs = []
    for inp in m.graph.input:
        if inp.name in weights:
            continue
        dims = tuple(d.dim_value for d in inp.type.tensor_type.shape.dim)
        n = int(np.prod(dims))
        inputs.append((inp.name, (np.arange(n, dtype=np.float64) / n).astype(np.float32).reshape(dims)))
    return inputs, path, None


def add_chain_row(n=100):
    """`n` dependent adds of a (1,) tensor to itself, as workloads::add_chain (no fusion there;
    onnxruntime may fuse what it likes, numpy runs one ufunc call per add)."""
    from onnx import helper
    import numpy as np

    x = np.array([1.0], np.float32)
    inputs = [("x", x)]
    nodes = []
    prev = "x"
    for i in range(n):
        nodes.append(helper.make_node("Add", [prev, prev], [f"v{i}"]))
        prev = f"v{i}"

    def np_fn():
        v = x
        for _ in range(n):
            v = np.add(v, v)
        return v

    return inputs, graph(nodes, inputs, prev, [1]), np_fn


ROWS = {
    "mlp_b1": lambda: mlp_row(1),
    "mlp_b64": lambda: mlp_row(64),
    "matmul": matmul_row,
    "transformer": transformer_row,
    "conv_block": conv_row,
    "squeezenet": lambda: model_row("squeezenet"),
    "resnet50": lambda: model_row("resnet50"),
    "alexnet": lambda: model_row("alexnet"),
    "add_chain": add_chain_row,
}

ZOO = ["alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50", "shufflenet",
       "squeezenet", "vgg19", "zfnet512"]
ZOO_ROWS = {f"zoo_{stem}": (lambda stem=stem: zoo_row(stem)) for stem in ZOO}


def measure_row(name, budget, threads, output=False):
    """{peer: {"samples": [...], "first": s} | {"skipped": why}} for row `name`; with `output`,
    onnxruntime's answer on a zoo row holds its first output as {"shape", "data"}."""
    missing = missing_packages()
    makers = {**ROWS, **ZOO_ROWS}
    if name not in makers:
        return {"onnxruntime": {"skipped": f"peers.py has no row `{name}`"}}
    if "numpy" in missing or "onnx" in missing:
        why = f"{' and '.join(missing)} missing (pip install numpy onnx onnxruntime)"
        return {"onnxruntime": {"skipped": why}, "numpy": {"skipped": why}}
    try:
        inputs, model, np_fn = makers[name]()
    except FileNotFoundError as e:
        return {"onnxruntime": {"skipped": str(e)}}
    out = {}
    if "onnxruntime" in missing:
        out["onnxruntime"] = {"skipped": "onnxruntime missing (pip install onnxruntime)"}
    else:
        sess = ort_session(model, threads)
        feed = {n: a for n, a in inputs}
        samples, first = sample(lambda: sess.run(None, feed), budget)
        out["onnxruntime"] = {"samples": samples, "first": first}
        if output and name in ZOO_ROWS:
            y = sess.run(None, feed)[0]
            out["onnxruntime"]["output"] = {"shape": list(y.shape),
                                            "data": [float(v) for v in y.ravel()]}
    if np_fn is not None:
        samples, first = sample(np_fn, budget)
        out["numpy"] = {"samples": samples, "first": first}
    return out


def versions():
    out = {"python": sys.version.split()[0]}
    for pkg in ("numpy", "onnx", "onnxruntime"):
        try:
            out[pkg] = __import__(pkg).__version__
        except ImportError:
            pass
    return out


def serve(threads):
    print(json.dumps({"ready": True, "versions": versions(), "missing": missing_packages(),
                      "threads": threads}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            peers = measure_row(req["row"], float(req.get("budget", 3.0)), threads,
                                bool(req.get("output", False)))
        except Exception as e:  # one broken row must not end the run
            peers = {"onnxruntime": {"skipped": f"error: {type(e).__name__}: {e}"}}
        print(json.dumps({"row": req["row"], "peers": peers}), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=3.0, help="seconds of samples per row and peer")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only")
    ap.add_argument("--serve", action="store_true")
    ap.add_argument("--zoo", action="store_true", help="the light-zoo rows instead of the suite's")
    args = ap.parse_args()
    if args.serve:
        serve(args.threads)
        return
    print(f"{'row':12} {'peer':12} {'median':>11} {'min':>11} {'max':>11}")
    for name in (ZOO_ROWS if args.zoo else ROWS):
        if args.only and args.only != name:
            continue
        for peer, r in measure_row(name, args.budget, args.threads).items():
            if "skipped" in r:
                print(f"{name:12} {peer:12} skipped: {r['skipped']}")
                continue
            t = sorted(r["samples"])
            med = t[len(t) // 2]
            print(f"{name:12} {peer:12} {med * 1e6:9.1f}us {t[0] * 1e6:9.1f}us {t[-1] * 1e6:9.1f}us")


if __name__ == "__main__":
    main()
