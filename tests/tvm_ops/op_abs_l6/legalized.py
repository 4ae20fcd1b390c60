# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def tir_abs(a0: T.Buffer((n, T.int64(3)), "int32"), compute: T.Buffer((n, T.int64(3)), "int32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(n, T.int64(3)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(a0[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.Select(T.int64(0) <= T.Cast("int64", a0[v_i0, v_i1]), a0[v_i0, v_i1], 0 - a0[v_i0, v_i1])

    @R.function
    def main(a0: R.Tensor((n, 3), dtype="int32")) -> R.Tensor((n, 3), dtype="int32"):
        cls = Module
        gv = R.call_tir(cls.tir_abs, (a0,), out_ty=R.Tensor((n, 3), dtype="int32"))
        return gv
