# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def outer(a0: T.Buffer((T.int64(3),), "float32"), a1: T.Buffer((T.int64(4),), "float32"), outer: T.Buffer((T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for i, j in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("outer"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(a0[v_i], a1[v_j])
                T.writes(outer[v_i, v_j])
                outer[v_i, v_j] = a0[v_i] * a1[v_j]

    @R.function
    def main(a0: R.Tensor((3,), dtype="float32"), a1: R.Tensor((4,), dtype="float32")) -> R.Tensor((3, 4), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.outer, (a0, a1), out_ty=R.Tensor((3, 4), dtype="float32"))
        return gv
