# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def concatenate(gv: T.Buffer((T.int64(2), T.int64(3)), "float32"), gv1: T.Buffer((T.int64(4), T.int64(3)), "float32"), gv2: T.Buffer((T.int64(1), T.int64(3)), "float32"), T_concat: T.Buffer((T.int64(7), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(7), T.int64(3)):
            with T.sblock("T_concat"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(gv2[v_ax0 - T.int64(6), v_ax1], gv1[v_ax0 - T.int64(2), v_ax1], gv[v_ax0, v_ax1])
                T.writes(T_concat[v_ax0, v_ax1])
                T_concat[v_ax0, v_ax1] = T.if_then_else(T.int64(6) <= v_ax0, gv2[v_ax0 - T.int64(6), v_ax1], T.if_then_else(T.int64(2) <= v_ax0, gv1[v_ax0 - T.int64(2), v_ax1], gv[v_ax0, v_ax1]))

    @R.function
    def main(a0: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((4, 3), dtype="float32"), R.Tensor((1, 3), dtype="float32"))) -> R.Tensor((7, 3), dtype="float32"):
        cls = Module
        gv: R.Tensor((2, 3), dtype="float32") = a0[0]
        gv1: R.Tensor((4, 3), dtype="float32") = a0[1]
        gv2: R.Tensor((1, 3), dtype="float32") = a0[2]
        gv_1 = R.call_tir(cls.concatenate, (gv, gv1, gv2), out_ty=R.Tensor((7, 3), dtype="float32"))
        return gv_1
