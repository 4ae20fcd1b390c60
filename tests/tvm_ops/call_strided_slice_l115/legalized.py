# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def strided_slice(a0: T.Buffer((T.int64(6), T.int64(8)), "float32"), T_strided_slice_with_axes: T.Buffer((T.int64(2), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(4)):
            with T.sblock("T_strided_slice_with_axes"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0 * T.int64(2) + T.int64(1), T.int64(7) - v_ax1 * T.int64(2)])
                T.writes(T_strided_slice_with_axes[v_ax0, v_ax1])
                T_strided_slice_with_axes[v_ax0, v_ax1] = a0[v_ax0 * T.int64(2) + T.int64(1), T.int64(7) - v_ax1 * T.int64(2)]

    @R.function
    def main(a0: R.Tensor((6, 8), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.strided_slice, (a0,), out_ty=R.Tensor((2, 4), dtype="float32"))
        return gv
