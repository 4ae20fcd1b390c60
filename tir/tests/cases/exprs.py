# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def exprs(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "bool"), D: T.Buffer((), "float16")):
        for i in range(8):
            A[i] = T.Div(A[i], 3) + T.truncmod(A[i], 3) + i // 2 + i % 2 + T.min(i, 4) - T.max(i, 2)
            A[i] = A[i] & 7 | A[i] ^ i << 2 >> 1
            B[i] = T.exp(B[i]) * T.log(B[i]) / T.sqrt(B[i]) - T.pow(B[i], T.float32(2.0))
            B[i] = T.Select(C[i], B[i], T.float32("inf")) + T.if_then_else(not C[i], T.float32("-inf"), T.float32(-0.0))
            C[i] = B[i] < T.float32(1.0) and (i < 2 or i > 4) or T.isnan(B[i])
            B[i] = T.Cast("float32", A[i]) + T.float32(1.0000000000000001e-05)
            A[i] = T.Let(x + x, where={x: A[i] * 2})
            A[i] = T.call_extern("int32", "my_func", A[i], 1)
            A[i] = (A[i] - 1) * (2 - A[i]) - (1 - A[i]) - -3
            A[i] = T.Cast("int32", T.int64(3) + T.Cast("int64", i))
            C[i] = not A[i] == 1 and (A[i] < 2) == (A[i] > 3)
            D[()] = T.float16(0.5) * T.Cast("float16", B[i]) + T.float16(-65504.0)
            B[i] = T.float32(-340282346638528859811704183484516925440.0) + B[i] * T.float32(0.10000000000000001)
            T.call_packed("tvm.contrib.sort.sort", T.tvm_stack_make_shape(T.int64(8)), T.bool(True))
