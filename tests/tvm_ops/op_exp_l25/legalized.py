# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def tir_exp(a0: T.Buffer((n, m), "float32"), compute: T.Buffer((n, m), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(n, m):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(a0[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.exp(a0[v_i0, v_i1])

    @R.function
    def main(a0: R.Tensor((n, m), dtype="float32")) -> R.Tensor((n, m), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.tir_exp, (a0,), out_ty=R.Tensor((n, m), dtype="float32"))
        return gv
