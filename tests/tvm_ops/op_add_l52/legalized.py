# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(a0: T.Buffer((T.int64(3), T.int64(1)), "int64"), a1: T.Buffer((T.int64(4),), "int64"), T_add: T.Buffer((T.int64(3), T.int64(4)), "int64")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, T.int64(0)], a1[v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = a0[v_ax0, T.int64(0)] + a1[v_ax1]

    @R.function
    def main(a0: R.Tensor((3, 1), dtype="int64"), a1: R.Tensor((4,), dtype="int64")) -> R.Tensor((3, 4), dtype="int64"):
        cls = Module
        gv = R.call_tir(cls.add, (a0, a1), out_ty=R.Tensor((3, 4), dtype="int64"))
        return gv
