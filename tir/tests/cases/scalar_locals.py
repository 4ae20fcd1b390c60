# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def absolute(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            v: T.float32 = A[i]
            if v < T.float32(0.0):
                v = T.float32(0.0) - v
            B[i] = v

    @T.prim_func
    def branch(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            lo: T.int64
            if A[i] < T.float32(0.0):
                lo = T.int64(2)
            else:
                lo = T.int64(5)
            B[i] = T.Cast("float32", lo)

    @T.prim_func
    def counter(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        n: T.int64 = T.int64(3)
        m: T.int32 = 4
        for i in range(8):
            B[i] = A[i] * T.Cast("float32", n) + T.Cast("float32", m)
            n = n + T.int64(1)

    @T.prim_func
    def lets(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            x: T.let[T.float32] = A[i] + T.float32(1.0)
            B[i] = x
            y: T.let[T.float32] = x * T.float32(2.0)
            B[i] = y + x
