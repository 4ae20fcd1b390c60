#!/usr/bin/env python3
"""onnxruntime's time per node of one model, to set beside relaxjit's per-callee times
(`cargo run --release -p relaxjit-bench --example rows -- --sequence --calls N ROW`).

    python bench/ort_profile.py tests/models/resnet50/model.onnx [--threads 2] [--calls 30]

Runs the model as `bench/peers.py` does (the same session options: `--threads` intra-op
threads, all graph optimizations), warms it up, then runs `--calls` calls with onnxruntime's
profiler on and prints, in execution order, each node's median kernel time over the calls,
its operator and its tensors' shapes, and the sum of the medians. The input is uniform random
in [0, 1) (the light-zoo models' outputs do not depend on it in any way that matters for
time). Needs numpy and onnxruntime (`pip install numpy onnxruntime`).
"""

import argparse
import collections
import json
import os
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--calls", type=int, default=30)
    a = ap.parse_args()
    try:
        import numpy as np
        import onnxruntime as ort
    except ImportError as e:
        sys.exit(f"ort_profile.py needs numpy and onnxruntime ({e}): pip install numpy onnxruntime")

    def session(profile_prefix=None):
        so = ort.SessionOptions()
        so.intra_op_num_threads = a.threads
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.log_severity_level = 3
        if profile_prefix:
            so.enable_profiling = True
            so.profile_file_prefix = profile_prefix
        return ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])

    with tempfile.TemporaryDirectory() as tmp:
        s = session(os.path.join(tmp, "ort"))
        feeds = {}
        for i in s.get_inputs():
            shape = [d if isinstance(d, int) else 1 for d in i.shape]
            feeds[i.name] = np.random.default_rng(0).random(shape, dtype=np.float32)
        for _ in range(10):
            s.run(None, feeds)
        events = None
        # The profile covers the session's whole life; only the last `calls` runs count.
        for _ in range(a.calls):
            s.run(None, feeds)
        with open(s.end_profiling()) as f:
            events = json.load(f)
    times = collections.defaultdict(list)
    info = {}
    order = []
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        name = e["name"]
        if name not in info:
            order.append(name)
            args = e.get("args", {})
            shapes = [list(t.values())[0] for t in args.get("input_type_shape", [])]
            info[name] = (args.get("op_name", "?"), shapes)
        times[name].append(e["dur"])
    total = 0
    print(f"{'median':>10}  node [input shapes]   ({a.threads} threads, median of the last {a.calls} calls)")
    for name in order:
        v = sorted(times[name][-a.calls:])
        med = v[len(v) // 2]
        total += med
        op, shapes = info[name]
        print(f"{med:8d}us  {op} {shapes}")
    print(f"{total:8d}us  sum of the medians")


if __name__ == "__main__":
    main()
