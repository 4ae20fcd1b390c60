# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def double(A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32")):
        # with T.sblock("root"):
        for i in range(n):
            with T.sblock("B"):
                vi = T.axis.spatial(n, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
        cls = Module
        gv: R.Tensor((n,), dtype="float32") = R.abs(x)
        y = R.call_tir(cls.double, (gv,), out_ty=R.Tensor((n,), dtype="float32"))
        gv2: R.Tensor((n,), dtype="float32") = R.add(y, x)
        return gv2
