# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def loops(A: T.Buffer((16, 4), "float32"), B: T.Buffer((16,), "float32"), n: T.int32):
        for i in T.parallel(16):
            for j in T.vectorized(4):
                A[i, j] = T.float32(0.0)
        for i in T.unroll(2, 6):
            B[i] = T.float32(1.0)
        for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 16}):
            B[i] = B[i] + T.float32(1.0)
        for i in range(2, n):
            B[i] = T.float32(3.5)
        for i in range(n):
            for j in range(i):
                A[i, j] = T.float32(4.0)
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            B[tx % 16] = T.float32(2.0)
