# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def collapse_sum(a0: T.Buffer((T.int64(2), T.int64(3)), "float32"), a0_red: T.Buffer((T.int64(1), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, k0 in T.grid(T.int64(1), T.int64(3), T.int64(2)):
            with T.sblock("a0_red"):
                v_ax0, v_ax1, v_k0 = T.axis.remap("SSR", [ax0, ax1, k0])
                T.reads(a0[v_k0, v_ax1])
                T.writes(a0_red[v_ax0, v_ax1])
                with T.init():
                    a0_red[v_ax0, v_ax1] = T.float32(0.0)
                a0_red[v_ax0, v_ax1] = a0_red[v_ax0, v_ax1] + a0[v_k0, v_ax1]

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((1, 3), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.collapse_sum, (a0,), out_ty=R.Tensor((1, 3), dtype="float32"))
        return gv
