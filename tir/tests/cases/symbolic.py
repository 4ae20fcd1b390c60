# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func
    def sym(A: T.Buffer((n, 4), "float32"), B: T.Buffer((n * T.int64(4),), "float32", strides=(1,), elem_offset=m, align=16, offset_factor=4)):
        for i, j in T.grid(n, 4):
            B[i * T.int64(4) + T.Cast("int64", j)] = A[i, j]

    @T.prim_func
    def sym2(A: T.Buffer((n,), "float32")):
        for i in range(n - T.int64(1)):
            A[i] = A[i + T.int64(1)]
