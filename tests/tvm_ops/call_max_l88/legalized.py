# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def max(a0: T.Buffer((T.int64(4), T.int64(5), T.int64(6)), "float32"), a0_red: T.Buffer((T.int64(4), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, k2 in T.grid(T.int64(4), T.int64(5), T.int64(6)):
            with T.sblock("a0_red"):
                v_ax0, v_ax1, v_k2 = T.axis.remap("SSR", [ax0, ax1, k2])
                T.reads(a0[v_ax0, v_ax1, v_k2])
                T.writes(a0_red[v_ax0, v_ax1])
                with T.init():
                    a0_red[v_ax0, v_ax1] = T.float32(-340282346638528859811704183484516925440.0)
                a0_red[v_ax0, v_ax1] = T.max(a0_red[v_ax0, v_ax1], a0[v_ax0, v_ax1, v_k2])

    @R.function
    def main(a0: R.Tensor((4, 5, 6), dtype="float32")) -> R.Tensor((4, 5), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.max, (a0,), out_ty=R.Tensor((4, 5), dtype="float32"))
        return gv
