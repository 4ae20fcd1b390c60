# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def stack(gv: T.Buffer((T.int64(2), T.int64(3)), "float32"), gv1: T.Buffer((T.int64(2), T.int64(3)), "float32"), T_stack: T.Buffer((T.int64(2), T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(2), T.int64(3)):
            with T.sblock("T_stack"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(gv1[v_ax0, v_ax2], gv[v_ax0, v_ax2])
                T.writes(T_stack[v_ax0, v_ax1, v_ax2])
                T_stack[v_ax0, v_ax1, v_ax2] = T.if_then_else(v_ax1 == T.int64(1), gv1[v_ax0, v_ax2], gv[v_ax0, v_ax2])

    @R.function
    def main(a0: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"))) -> R.Tensor((2, 2, 3), dtype="float32"):
        cls = Module
        gv: R.Tensor((2, 3), dtype="float32") = a0[0]
        gv1: R.Tensor((2, 3), dtype="float32") = a0[1]
        gv_1 = R.call_tir(cls.stack, (gv, gv1), out_ty=R.Tensor((2, 2, 3), dtype="float32"))
        return gv_1
