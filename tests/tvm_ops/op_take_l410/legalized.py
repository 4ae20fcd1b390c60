# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def take(a0: T.Buffer((T.int64(5),), "float32"), a1: T.Buffer((T.int64(2), T.int64(3)), "int64"), T_take: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_take"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[a1[v_ax0, v_ax1] % T.int64(5)], a1[v_ax0, v_ax1])
                T.writes(T_take[v_ax0, v_ax1])
                T_take[v_ax0, v_ax1] = a0[a1[v_ax0, v_ax1] % T.int64(5)]

    @R.function
    def main(a0: R.Tensor((5,), dtype="float32"), a1: R.Tensor((2, 3), dtype="int64")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.take, (a0, a1), out_ty=R.Tensor((2, 3), dtype="float32"))
        return gv
