# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def repeat(a0: T.Buffer((T.int64(2), T.int64(3)), "float32"), T_repeat: T.Buffer((T.int64(4), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(3)):
            with T.sblock("T_repeat"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0 // T.int64(2), v_ax1])
                T.writes(T_repeat[v_ax0, v_ax1])
                T_repeat[v_ax0, v_ax1] = a0[v_ax0 // T.int64(2), v_ax1]

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.repeat, (a0,), out_ty=R.Tensor((4, 3), dtype="float32"))
        return gv
