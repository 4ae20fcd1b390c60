# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def quantize(a0: T.Buffer((T.int64(2), T.int64(4)), "float32"), a1: T.Buffer((), "float32"), a2: T.Buffer((), "int8"), quantized: T.Buffer((T.int64(2), T.int64(4)), "int8")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(2), T.int64(4)):
            with T.sblock("quantized"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(a0[v_i0, v_i1], a1[()], a2[()])
                T.writes(quantized[v_i0, v_i1])
                quantized[v_i0, v_i1] = T.Cast("int8", T.max(T.min(T.round(a0[v_i0, v_i1] / a1[()]) + T.Cast("float32", a2[()]), T.float32(127.0)), T.float32(-128.0)))

    @R.function
    def main(a0: R.Tensor((2, 4), dtype="float32"), a1: R.Tensor((), dtype="float32"), a2: R.Tensor((), dtype="int8")) -> R.Tensor((2, 4), dtype="int8"):
        cls = Module
        gv = R.call_tir(cls.quantize, (a0, a1, a2), out_ty=R.Tensor((2, 4), dtype="int8"))
        return gv
