# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def reflect_pad(a0: T.Buffer((T.int64(1), T.int64(3), T.int64(4), T.int64(4)), "float32"), ReflectPadInput: T.Buffer((T.int64(1), T.int64(3), T.int64(7), T.int64(7)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(3), T.int64(7), T.int64(7)):
            with T.sblock("ReflectPadInput"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(a0[T.int64(0) - T.max(T.max(T.int64(0) - v_i0, v_i0), T.int64(0) - T.min(T.int64(0) - v_i0, v_i0)):T.int64(0) - T.max(T.max(T.int64(0) - v_i0, v_i0), T.int64(0) - T.min(T.int64(0) - v_i0, v_i0)) + (T.max(T.max(T.int64(0) - v_i0, v_i0), T.int64(0) - T.min(T.int64(0) - v_i0, v_i0)) + T.int64(1) - T.min(T.min(T.int64(0) - v_i0, v_i0), T.int64(0) - T.max(T.int64(0) - v_i0, v_i0))), T.int64(2) - T.max(T.max(T.int64(0) - v_i1, v_i1) - T.int64(2), T.int64(2) - T.min(T.int64(0) - v_i1, v_i1)):T.int64(2) - T.max(T.max(T.int64(0) - v_i1, v_i1) - T.int64(2), T.int64(2) - T.min(T.int64(0) - v_i1, v_i1)) + (T.max(T.max(T.int64(0) - v_i1, v_i1) - T.int64(2), T.int64(2) - T.min(T.int64(0) - v_i1, v_i1)) + T.int64(1) - T.min(T.min(T.int64(0) - v_i1, v_i1) - T.int64(2), T.int64(2) - T.max(T.int64(0) - v_i1, v_i1))), T.int64(3) - T.max(T.max(T.int64(1) - v_i2, v_i2 - T.int64(1)) - T.int64(3), T.int64(3) - T.min(T.int64(1) - v_i2, v_i2 - T.int64(1))):T.int64(3) - T.max(T.max(T.int64(1) - v_i2, v_i2 - T.int64(1)) - T.int64(3), T.int64(3) - T.min(T.int64(1) - v_i2, v_i2 - T.int64(1))) + (T.max(T.max(T.int64(1) - v_i2, v_i2 - T.int64(1)) - T.int64(3), T.int64(3) - T.min(T.int64(1) - v_i2, v_i2 - T.int64(1))) + T.int64(1) - T.min(T.min(T.int64(1) - v_i2, v_i2 - T.int64(1)) - T.int64(3), T.int64(3) - T.max(T.int64(1) - v_i2, v_i2 - T.int64(1)))), T.int64(3) - T.max(T.max(T.int64(2) - v_i3, v_i3 - T.int64(2)) - T.int64(3), T.int64(3) - T.min(T.int64(2) - v_i3, v_i3 - T.int64(2))):T.int64(3) - T.max(T.max(T.int64(2) - v_i3, v_i3 - T.int64(2)) - T.int64(3), T.int64(3) - T.min(T.int64(2) - v_i3, v_i3 - T.int64(2))) + (T.max(T.max(T.int64(2) - v_i3, v_i3 - T.int64(2)) - T.int64(3), T.int64(3) - T.min(T.int64(2) - v_i3, v_i3 - T.int64(2))) + T.int64(1) - T.min(T.min(T.int64(2) - v_i3, v_i3 - T.int64(2)) - T.int64(3), T.int64(3) - T.max(T.int64(2) - v_i3, v_i3 - T.int64(2))))])
                T.writes(ReflectPadInput[v_i0, v_i1, v_i2, v_i3])
                ReflectPadInput[v_i0, v_i1, v_i2, v_i3] = a0[T.int64(0) - T.Select(T.Select(T.int64(0) <= v_i0, v_i0, T.int64(0) - v_i0) <= T.int64(0), T.int64(0) - T.Select(T.int64(0) <= v_i0, v_i0, T.int64(0) - v_i0), T.Select(T.int64(0) <= v_i0, v_i0, T.int64(0) - v_i0)), T.int64(2) - T.Select(T.Select(T.int64(0) <= v_i1, v_i1, T.int64(0) - v_i1) <= T.int64(2), T.int64(2) - T.Select(T.int64(0) <= v_i1, v_i1, T.int64(0) - v_i1), T.Select(T.int64(0) <= v_i1, v_i1, T.int64(0) - v_i1) - T.int64(2)), T.int64(3) - T.Select(T.Select(T.int64(1) <= v_i2, v_i2 - T.int64(1), T.int64(1) - v_i2) <= T.int64(3), T.int64(3) - T.Select(T.int64(1) <= v_i2, v_i2 - T.int64(1), T.int64(1) - v_i2), T.Select(T.int64(1) <= v_i2, v_i2 - T.int64(1), T.int64(1) - v_i2) - T.int64(3)), T.int64(3) - T.Select(T.Select(T.int64(2) <= v_i3, v_i3 - T.int64(2), T.int64(2) - v_i3) <= T.int64(3), T.int64(3) - T.Select(T.int64(2) <= v_i3, v_i3 - T.int64(2), T.int64(2) - v_i3), T.Select(T.int64(2) <= v_i3, v_i3 - T.int64(2), T.int64(2) - v_i3) - T.int64(3))]

    @R.function
    def main(a0: R.Tensor((1, 3, 4, 4), dtype="float32")) -> R.Tensor((1, 3, 7, 7), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.reflect_pad, (a0,), out_ty=R.Tensor((1, 3, 7, 7), dtype="float32"))
        return gv
