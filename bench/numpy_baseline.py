#!/usr/bin/env python3
"""numpy timings of the four kernels of bench/benches/kernels.rs, in the same units.

add (GB/s, 3*4*16M bytes), fused exp/sigmoid chain (GB/s, 2*4*16M bytes), row softmax
4096x1024 (GB/s, 2*4*4M bytes) and matmul 512^3 (GFLOP/s, 2*512^3 flops). Each is written the
way a numpy user would (temporaries allowed; `out=` where natural). Prints median, min and max
over repeats. Not used by any test.

    python3 bench/numpy_baseline.py [--repeat N]
"""
import argparse
import time

import numpy as np


def timeit(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2], times[0], times[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, (4096, 4096)).astype(np.float32)
    y = rng.uniform(-2, 2, (4096, 4096)).astype(np.float32)
    out = np.empty_like(x)
    s = rng.uniform(-2, 2, (4096, 1024)).astype(np.float32)
    a = rng.uniform(-2, 2, (512, 512)).astype(np.float32)
    b = rng.uniform(-2, 2, (512, 512)).astype(np.float32)
    c = np.empty((512, 512), np.float32)
    elems = 4096 * 4096

    def add():
        np.add(x, y, out=out)

    def fused():
        e = np.exp(x * np.float32(1.5) + np.float32(0.25))
        sig = np.float32(1) / (np.float32(1) + np.exp(-x))
        np.multiply(e, sig, out=out)

    def softmax():
        m = s.max(axis=1, keepdims=True)
        e = np.exp(s - m)
        return e / e.sum(axis=1, keepdims=True)

    def matmul():
        np.matmul(a, b, out=c)

    cases = [
        ("add_16M_f32", add, 3 * 4 * elems, "GB/s"),
        ("fused_exp_sigmoid_16M_f32", fused, 2 * 4 * elems, "GB/s"),
        ("softmax_4096x1024_f32", softmax, 2 * 4 * 4096 * 1024, "GB/s"),
        ("matmul_512_f32", matmul, 2 * 512**3, "GFLOP/s"),
    ]
    print(f"numpy {np.__version__}")
    for name, fn, work, unit in cases:
        med, lo, hi = timeit(fn, args.repeat)
        print(
            f"{name:28s} {work / med / 1e9:8.2f} {unit:8s}"
            f" (time median {med * 1e3:.2f} ms, min {lo * 1e3:.2f}, max {hi * 1e3:.2f})"
        )


if __name__ == "__main__":
    main()
