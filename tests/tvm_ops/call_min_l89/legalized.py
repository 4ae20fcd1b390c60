# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def min(a0: T.Buffer((T.int64(4), T.int64(5), T.int64(6)), "int32"), a0_red: T.Buffer((T.int64(5), T.int64(6)), "int32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, k0 in T.grid(T.int64(5), T.int64(6), T.int64(4)):
            with T.sblock("a0_red"):
                v_ax0, v_ax1, v_k0 = T.axis.remap("SSR", [ax0, ax1, k0])
                T.reads(a0[v_k0, v_ax0, v_ax1])
                T.writes(a0_red[v_ax0, v_ax1])
                with T.init():
                    a0_red[v_ax0, v_ax1] = 2147483647
                a0_red[v_ax0, v_ax1] = T.min(a0_red[v_ax0, v_ax1], a0[v_k0, v_ax0, v_ax1])

    @R.function
    def main(a0: R.Tensor((4, 5, 6), dtype="int32")) -> R.Tensor((5, 6), dtype="int32"):
        cls = Module
        gv = R.call_tir(cls.min, (a0,), out_ty=R.Tensor((5, 6), dtype="int32"))
        return gv
