# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def literals(A: T.Buffer((4,), "float32"), B: T.Buffer((6,), "int64"), n: T.int8, m: T.int64, k: T.int16, u: T.uint32):
        for i in range(4):
            A[i] = T.Cast("float32", T.Cast("int64", i) + T.int64(4294967296))
            A[i] = T.Cast("float32", T.int64(4294967296) + T.Cast("int64", i))
            A[i] = T.Cast("float32", i + -2147483648)
            A[0] = T.Cast("float32", T.Cast("int64", i) + T.int64(5))
            A[1] = T.Cast("float32", T.Cast("int32", n) + 1)
            A[2] = T.Cast("float32", T.Cast("int32", n) + 300)
            A[3] = T.Cast("float32", T.Cast("int64", n) + T.int64(4294967296))
            A[0] = T.Cast("float32", m + T.int64(1))
            A[0] = T.Cast("float32", T.Cast("int32", k) + 70000)
            A[0] = T.Cast("float32", T.Cast("int64", u) + T.int64(4294967296))
            A[0] = T.Cast("float32", u + T.uint32(5))
            A[0] = T.Cast("float32", T.int64(5) + T.Cast("int64", i))
            A[0] = T.Cast("float32", T.Cast("int64", i) * T.int64(4294967296) < T.int64(3))
            A[0] = T.Cast("float32", T.max(T.Cast("int64", i), T.int64(4294967296)))
            A[0] = T.Cast("float32", i + 3)
        for j in range(T.int64(4294967296)):
            A[0] = T.float32(1.0)
        B[0] = T.int64(2147483647)
        B[1] = T.int64(2147483648)
        B[2] = T.int64(-2147483648)
        B[3] = T.int64(-2147483649)
