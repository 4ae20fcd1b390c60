# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def meshgrid(gv: T.Buffer((T.int64(3),), "float32"), gv1: T.Buffer((T.int64(4),), "float32"), T_meshgrid: T.Buffer((T.int64(3), T.int64(4)), "float32"), T_meshgrid_1: T.Buffer((T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_meshgrid"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(gv[v_ax0])
                T.writes(T_meshgrid[v_ax0, v_ax1])
                T_meshgrid[v_ax0, v_ax1] = gv[v_ax0]
        for ax0, ax1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("T_meshgrid_1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(gv1[v_ax1])
                T.writes(T_meshgrid_1[v_ax0, v_ax1])
                T_meshgrid_1[v_ax0, v_ax1] = gv1[v_ax1]

    @R.function
    def main(a0: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((4,), dtype="float32"))) -> R.Tuple(R.Tensor((3, 4), dtype="float32"), R.Tensor((3, 4), dtype="float32")):
        cls = Module
        gv: R.Tensor((3,), dtype="float32") = a0[0]
        gv1: R.Tensor((4,), dtype="float32") = a0[1]
        gv_1 = R.call_tir(cls.meshgrid, (gv, gv1), out_ty=[R.Tensor((3, 4), dtype="float32"), R.Tensor((3, 4), dtype="float32")])
        return gv_1
