# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def strided_slice(a0: T.Buffer((n, T.int64(4)), "float32"), T_dynamic_strided_slice_with_axes: T.Buffer(("T.min(T.int64(9223372036854775807), n) - T.min(T.int64(1), n)", T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.min(T.int64(9223372036854775807), n) - T.min(T.int64(1), n), T.int64(4)):
            with T.sblock("T_dynamic_strided_slice_with_axes"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[T.min(T.int64(1), n) + v_ax0, v_ax1])
                T.writes(T_dynamic_strided_slice_with_axes[v_ax0, v_ax1])
                T_dynamic_strided_slice_with_axes[v_ax0, v_ax1] = a0[T.min(T.int64(1), n) + v_ax0, v_ax1]

    @R.function
    def main(a0: R.Tensor((n, 4), dtype="float32")) -> R.Tensor(("T.min(9223372036854775807, n) - T.min(1, n)", 4), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.strided_slice, (a0,), out_ty=R.Tensor((T.min(9223372036854775807, n) - T.min(1, n), 4), dtype="float32"))
        return gv
