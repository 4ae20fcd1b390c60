# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def bitwise_and(a0: T.Buffer((T.int64(4), T.int64(5)), "int32"), a1: T.Buffer((T.int64(4), T.int64(5)), "int32"), T_bitwise_and: T.Buffer((T.int64(4), T.int64(5)), "int32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(5)):
            with T.sblock("T_bitwise_and"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1], a1[v_ax0, v_ax1])
                T.writes(T_bitwise_and[v_ax0, v_ax1])
                T_bitwise_and[v_ax0, v_ax1] = a0[v_ax0, v_ax1] & a1[v_ax0, v_ax1]

    @R.function
    def main(a0: R.Tensor((4, 5), dtype="int32"), a1: R.Tensor((4, 5), dtype="int32")) -> R.Tensor((4, 5), dtype="int32"):
        cls = Module
        gv = R.call_tir(cls.bitwise_and, (a0, a1), out_ty=R.Tensor((4, 5), dtype="int32"))
        return gv
