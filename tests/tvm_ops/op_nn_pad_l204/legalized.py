# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def pad(a0: T.Buffer((T.int64(2), T.int64(3)), "float32"), PadInput: T.Buffer((T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1 in T.grid(T.int64(3), T.int64(5)):
            with T.sblock("PadInput"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(a0[v_i0 - T.int64(1), v_i1])
                T.writes(PadInput[v_i0, v_i1])
                PadInput[v_i0, v_i1] = T.if_then_else(T.int64(1) <= v_i0 and v_i0 < T.int64(3) and T.int64(0) <= v_i1 and v_i1 < T.int64(3), a0[v_i0 - T.int64(1), v_i1], T.float32(0.0))

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((3, 5), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.pad, (a0,), out_ty=R.Tensor((3, 5), dtype="float32"))
        return gv
