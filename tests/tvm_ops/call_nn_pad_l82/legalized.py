# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def circular_pad(a0: T.Buffer((T.int64(1), T.int64(3), T.int64(4), T.int64(4)), "float32"), CircularPadInput: T.Buffer((T.int64(1), T.int64(3), T.int64(7), T.int64(7)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(3), T.int64(7), T.int64(7)):
            with T.sblock("CircularPadInput"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(a0[T.int64(0), v_i1 % T.int64(3), (v_i2 + T.int64(3)) % T.int64(4), (v_i3 + T.int64(2)) % T.int64(4)])
                T.writes(CircularPadInput[v_i0, v_i1, v_i2, v_i3])
                CircularPadInput[v_i0, v_i1, v_i2, v_i3] = a0[T.int64(0), v_i1 % T.int64(3), (v_i2 + T.int64(3)) % T.int64(4), (v_i3 + T.int64(2)) % T.int64(4)]

    @R.function
    def main(a0: R.Tensor((1, 3, 4, 4), dtype="float32")) -> R.Tensor((1, 3, 7, 7), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.circular_pad, (a0,), out_ty=R.Tensor((1, 3, 7, 7), dtype="float32"))
        return gv
