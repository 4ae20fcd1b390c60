# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def where(a0: T.Buffer((n, T.int64(1)), "bool"), a1: T.Buffer((T.int64(1), T.int64(4)), "float32"), a2: T.Buffer((), "float32"), T_where: T.Buffer((n, T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(n, T.int64(4)):
            with T.sblock("T_where"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, T.int64(0)], a1[T.int64(0), v_ax1], a2[()])
                T.writes(T_where[v_ax0, v_ax1])
                T_where[v_ax0, v_ax1] = T.Select(T.int64(0) < T.Cast("int64", a0[v_ax0, T.int64(0)]), a1[T.int64(0), v_ax1], a2[()])

    @R.function
    def main(a0: R.Tensor((n, 1), dtype="bool"), a1: R.Tensor((1, 4), dtype="float32"), a2: R.Tensor((), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.where, (a0, a1, a2), out_ty=R.Tensor((n, 4), dtype="float32"))
        return gv
