# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def where(a0: T.Buffer((T.int64(4), T.int64(5)), "bool"), a1: T.Buffer((T.int64(4), T.int64(5)), "float32"), a2: T.Buffer((T.int64(1), T.int64(5)), "float32"), T_where: T.Buffer((T.int64(4), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(4), T.int64(5)):
            with T.sblock("T_where"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1], a1[v_ax0, v_ax1], a2[T.int64(0), v_ax1])
                T.writes(T_where[v_ax0, v_ax1])
                T_where[v_ax0, v_ax1] = T.Select(T.int64(0) < T.Cast("int64", a0[v_ax0, v_ax1]), a1[v_ax0, v_ax1], a2[T.int64(0), v_ax1])

    @R.function
    def main(a0: R.Tensor((4, 5), dtype="bool"), a1: R.Tensor((4, 5), dtype="float32"), a2: R.Tensor((1, 5), dtype="float32")) -> R.Tensor((4, 5), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.where, (a0, a1, a2), out_ty=R.Tensor((4, 5), dtype="float32"))
        return gv
