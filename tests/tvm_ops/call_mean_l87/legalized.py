# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def mean(a0: T.Buffer((T.int64(4), T.int64(5), T.int64(6)), "float32"), T_divide: T.Buffer((T.int64(4), T.int64(6)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        a0_red = T.sblock_alloc_buffer((T.int64(4), T.int64(6)))
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(6), T.int64(5)):
            with T.sblock("a0_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(a0[v_ax0, v_k1, v_ax1])
                T.writes(a0_red[v_ax0, v_ax1])
                with T.init():
                    a0_red[v_ax0, v_ax1] = T.float32(0.0)
                a0_red[v_ax0, v_ax1] = a0_red[v_ax0, v_ax1] + a0[v_ax0, v_k1, v_ax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(6)):
            with T.sblock("T_divide"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0_red[v_ax0, v_ax1])
                T.writes(T_divide[v_ax0, v_ax1])
                T_divide[v_ax0, v_ax1] = a0_red[v_ax0, v_ax1] / T.float32(5.0)

    @R.function
    def main(a0: R.Tensor((4, 5, 6), dtype="float32")) -> R.Tensor((4, 6), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.mean, (a0,), out_ty=R.Tensor((4, 6), dtype="float32"))
        return gv
