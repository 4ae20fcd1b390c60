# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func
    def sugar(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        # with T.sblock("root"):
        for i in range(4):
            B[i] = A[i] + T.float32(1.5)
        for i, j in T.grid(2, 2):
            with T.sblock("blk"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vj], A[0])
                T.writes(A[0:4])
                A[vi * 2 + vj] = (T.float32(0.0) - B[vj]) * T.float32(2.0)
                x: T.float32 = A[0]
                y: T.float32 = x + T.float32(1.0)
                A[1] = y
        A[2] = A[2] + T.float32(1.0)
        z: T.let[T.int32] = 3
        A[z] = T.float32(0.0)
        for i in range(3, 7):
            A[i - 3] = T.Cast("float32", i)

    @T.prim_func
    def sugar_symbolic(A: T.Buffer((n, m), "float32"), B: T.Buffer((n, m), "float32")):
        for i, j in T.grid(n, m):
            B[i, j] = A[i, j]
