# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def tir_sinh(a0: T.Buffer((T.int64(3),), "float32"), compute: T.Buffer((T.int64(3),), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0 in range(T.int64(3)):
            with T.sblock("compute"):
                v_i0 = T.axis.spatial(T.int64(3), i0)
                T.reads(a0[v_i0])
                T.writes(compute[v_i0])
                compute[v_i0] = T.sinh(a0[v_i0])

    @R.function
    def main(a0: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.tir_sinh, (a0,), out_ty=R.Tensor((3,), dtype="float32"))
        return gv
