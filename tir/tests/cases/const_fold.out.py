# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def const_fold(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float16"), n: T.int32, x: T.float32):
        A[6] = T.float32(1.0714285714285714)
        A[8] = T.float32(0.33333333333333331)
        A[T.int64(7)] = T.float32(0.3333333432674408)
        A[n] = x
        A[n] = x
        A[n] = T.float32(0.0)
        A[0] = x
        A[n] = T.float32(6.0)
        A[0] = T.float32(0.30000001192092896)
        B[2] = T.float16(1.0) / T.float16(3.0)
        A[T.Add(1, 2)] = T.float32(1.0)
        A[T.int64(0)] = T.float32(1.0)
        A[T.max(n, -2147483648)] = x
        A[3] = T.float32(3.0)
        A[7] = x
        A[0] = T.float32(0.0) - x
        A[0] = T.float32(0.0)
        A[T.Cast("int32", T.uint32(4))] = T.Cast("float32", T.bool(True))
        A[n - n] = T.Cast("float32", T.bool(True))
        A[T.Add(1, 2) + T.Mul(n, 1) + T.Sub(n, 0) + T.FloorDiv(n, 1) + T.FloorMod(n, 1)] = T.Cast("float32", T.LT(1, 2)) + T.Mul(x, T.float32(0.0))
