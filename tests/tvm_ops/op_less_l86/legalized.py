# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def less(a0: T.Buffer((n,), "float32"), a1: T.Buffer((n,), "float32"), T_less: T.Buffer((n,), "bool")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0 in range(n):
            with T.sblock("T_less"):
                v_ax0 = T.axis.spatial(n, ax0)
                T.reads(a0[v_ax0], a1[v_ax0])
                T.writes(T_less[v_ax0])
                T_less[v_ax0] = a0[v_ax0] < a1[v_ax0]

    @R.function
    def main(a0: R.Tensor((n,), dtype="float32"), a1: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="bool"):
        cls = Module
        gv = R.call_tir(cls.less, (a0, a1), out_ty=R.Tensor((n,), dtype="bool"))
        return gv
