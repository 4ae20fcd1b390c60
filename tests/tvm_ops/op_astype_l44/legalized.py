# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def cast(a0: T.Buffer((n,), "int64"), compute: T.Buffer((n,), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0 in range(n):
            with T.sblock("compute"):
                v_i0 = T.axis.spatial(n, i0)
                T.reads(a0[v_i0])
                T.writes(compute[v_i0])
                compute[v_i0] = T.Cast("float32", a0[v_i0])

    @R.function
    def main(a0: R.Tensor((n,), dtype="int64")) -> R.Tensor((n,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.cast, (a0,), out_ty=R.Tensor((n,), dtype="float32"))
        return gv
