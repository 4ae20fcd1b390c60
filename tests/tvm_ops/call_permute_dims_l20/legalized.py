# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def transpose(a0: T.Buffer((T.int64(32), T.int64(16)), "float32"), T_transpose: T.Buffer((T.int64(16), T.int64(32)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(16), T.int64(32)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = a0[v_ax1, v_ax0]

    @R.function
    def main(a0: R.Tensor((32, 16), dtype="float32")) -> R.Tensor((16, 32), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.transpose, (a0,), out_ty=R.Tensor((16, 32), dtype="float32"))
        return gv
