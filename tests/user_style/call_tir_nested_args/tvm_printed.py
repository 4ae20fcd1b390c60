# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def add_one(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
        # with T.sblock("root"):
        for i, j in T.grid(4, 4):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        cls = Module
        gv: R.Tensor((4, 4), dtype="float32") = R.exp(x)
        y = R.call_tir(cls.add_one, (gv,), out_ty=R.Tensor((4, 4), dtype="float32"))
        gv2 = R.call_tir(cls.add_one, (y,), out_ty=R.Tensor((4, 4), dtype="float32"))
        gv3: R.Tensor((4, 4), dtype="float32") = R.multiply(y, gv2)
        return gv3
