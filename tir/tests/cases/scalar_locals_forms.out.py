# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def forms(A: T.Buffer((8,), "float32"), B: T.Buffer((1,), "float32")):
        s: T.float32 = T.float32(0.0)
        k: T.int32 = 3
        for i in range(8):
            x: T.let[T.float32] = A[i] * T.float32(2.0)
            y: T.let[T.float32] = x + T.float32(1.0)
            s = s + y
            k = k + 1
        h: T.let[T.float32] = T.float32(0.5)
        s = s * h
        B[0] = s + T.Cast("float32", k) + B[0]
