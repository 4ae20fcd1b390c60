# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def bucketize(b: T.Buffer((T.int64(5),), "float32"), a: T.Buffer((T.int64(2), T.int64(3)), "float32"), out: T.Buffer((T.int64(2), T.int64(3)), "int64")):
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

    @T.prim_func
    def nested(A: T.Buffer((8,), "int32"), n: T.int32):
        k = T.alloc_shared((1,), "int32")
        k[0] = 0
        while k[0] < n and k[0] < 8:
            A[k[0]] = k[0] * 2
            while A[k[0]] > 3:
                A[k[0]] = A[k[0]] - 3
            k[0] = k[0] + 1
        if n < 0:
            while T.bool(False):
                T.evaluate(0)
        with T.decl_buffer((2,), "int32", scope="local") as t:
            t[0] = 1
        A[0] = A[0] + 1
