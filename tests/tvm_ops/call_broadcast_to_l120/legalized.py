# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def broadcast_to(a0: T.Buffer((T.int64(3), T.int64(1)), "float32"), T_broadcast_to: T.Buffer((T.int64(2), T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(3), T.int64(5)):
            with T.sblock("T_broadcast_to"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(a0[v_ax1, T.int64(0)])
                T.writes(T_broadcast_to[v_ax0, v_ax1, v_ax2])
                T_broadcast_to[v_ax0, v_ax1, v_ax2] = a0[v_ax1, T.int64(0)]

    @R.function
    def main(a0: R.Tensor((3, 1), dtype="float32")) -> R.Tensor((2, 3, 5), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.broadcast_to, (a0,), out_ty=R.Tensor((2, 3, 5), dtype="float32"))
        return gv
