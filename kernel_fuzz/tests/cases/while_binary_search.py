# TVM's bucketize kernel: a binary search as a `while` loop over per-iteration local counters,
# its condition re-read from memory on every iteration (random, unsorted boundaries).
@T.prim_func
def bucketize(b: T.Buffer((T.int64(5),), "float32"), a: T.Buffer((T.int64(2), T.int64(3)), "float32"), out: T.Buffer((T.int64(2), T.int64(3)), "int64")):
    T.func_attr({"tirx.noalias": True})
    for v in T.parallel(T.int64(6)):
        lo = T.alloc_local((T.int64(1),), "int64")
        hi = T.alloc_local((T.int64(1),), "int64")
        lo[T.int64(0)] = T.int64(0)
        hi[T.int64(0)] = T.int64(5)
        while lo[T.int64(0)] < hi[T.int64(0)]:
            if b[lo[T.int64(0)] + (hi[T.int64(0)] - lo[T.int64(0)] >> T.int64(1))] <= a[v // T.int64(3), v % T.int64(3)]:
                lo[T.int64(0)] = lo[T.int64(0)] + (hi[T.int64(0)] - lo[T.int64(0)] >> T.int64(1)) + T.int64(1)
            else:
                hi[T.int64(0)] = lo[T.int64(0)] + (hi[T.int64(0)] - lo[T.int64(0)] >> T.int64(1))
        out[v // T.int64(3), v % T.int64(3)] = lo[T.int64(0)]
# shapes: [[5], [2, 3], [2, 3]]
# input seed: 3
# expect: ok
