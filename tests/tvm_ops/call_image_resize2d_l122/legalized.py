# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def resize2d(a0: T.Buffer((T.int64(1), T.int64(3), T.int64(5), T.int64(7)), "float32"), resize: T.Buffer((T.int64(1), T.int64(3), T.int64(10), T.int64(14)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(3), T.int64(10), T.int64(14)):
            with T.sblock("resize"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(a0[v_i0, v_i1, T.max(T.min(T.Div(v_i2, T.int64(2)), T.int64(4)), T.int64(0)), T.max(T.min(T.Div(v_i3, T.int64(2)), T.int64(6)), T.int64(0))])
                T.writes(resize[v_i0, v_i1, v_i2, v_i3])
                resize[v_i0, v_i1, v_i2, v_i3] = a0[v_i0, v_i1, T.max(T.min(T.Div(v_i2, T.int64(2)), T.int64(4)), T.int64(0)), T.max(T.min(T.Div(v_i3, T.int64(2)), T.int64(6)), T.int64(0))]

    @R.function
    def main(a0: R.Tensor((1, 3, 5, 7), dtype="float32")) -> R.Tensor((1, 3, 10, 14), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.resize2d, (a0,), out_ty=R.Tensor((1, 3, 10, 14), dtype="float32"))
        return gv
