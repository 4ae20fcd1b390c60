# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def bucketize(b: T.Buffer((5,), "float32"), a: T.Buffer((6,), "float32"), out: T.Buffer((6,), "int64")):
    for v in range(6):
        lo = T.alloc_local((T.int64(1),), "int64")
        hi = T.alloc_local((T.int64(1),), "int64")
        lo[T.int64(0)] = T.int64(0)
        hi[T.int64(0)] = T.int64(5)
        while lo[T.int64(0)] < hi[T.int64(0)]:
            if b[lo[T.int64(0)] + (hi[T.int64(0)] - lo[T.int64(0)] >> T.int64(1))] <= a[v]:
                lo[T.int64(0)] = lo[T.int64(0)] + (hi[T.int64(0)] - lo[T.int64(0)] >> T.int64(1)) + T.int64(1)
            else:
                hi[T.int64(0)] = lo[T.int64(0)] + (hi[T.int64(0)] - lo[T.int64(0)] >> T.int64(1))
        out[v] = lo[T.int64(0)]
