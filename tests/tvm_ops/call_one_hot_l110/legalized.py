# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def one_hot(a0: T.Buffer((T.int64(5),), "int32"), T_one_hot: T.Buffer((T.int64(5), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(5), T.int64(4)):
            with T.sblock("T_one_hot"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0])
                T.writes(T_one_hot[v_ax0, v_ax1])
                T_one_hot[v_ax0, v_ax1] = T.Select(T.Cast("int64", a0[v_ax0]) == v_ax1, T.float32(1.0), T.float32(0.0))

    @R.function
    def main(a0: R.Tensor((5,), dtype="int32")) -> R.Tensor((5, 4), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.one_hot, (a0,), out_ty=R.Tensor((5, 4), dtype="float32"))
        return gv
