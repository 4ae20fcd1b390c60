# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def tir_logical_not(a0: T.Buffer((T.int64(2), T.int64(4)), "bool"), T_logical_not: T.Buffer((T.int64(2), T.int64(4)), "bool")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(4)):
            with T.sblock("T_logical_not"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1])
                T.writes(T_logical_not[v_ax0, v_ax1])
                T_logical_not[v_ax0, v_ax1] = not a0[v_ax0, v_ax1]

    @R.function
    def main(a0: R.Tensor((2, 4), dtype="bool")) -> R.Tensor((2, 4), dtype="bool"):
        cls = Module
        gv = R.call_tir(cls.tir_logical_not, (a0,), out_ty=R.Tensor((2, 4), dtype="bool"))
        return gv
