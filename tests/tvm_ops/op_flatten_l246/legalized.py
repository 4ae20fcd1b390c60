# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def reshape(a0: T.Buffer((), "float32"), T_reshape: T.Buffer((T.int64(1),), "float32")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0 in range(T.int64(1)):
            with T.sblock("T_reshape"):
                v_ax0 = T.axis.spatial(T.int64(1), ax0)
                T.reads(a0[()])
                T.writes(T_reshape[v_ax0])
                T_reshape[v_ax0] = a0[()]

    @R.function
    def main(a0: R.Tensor((), dtype="float32")) -> R.Tensor((1,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.reshape, (a0,), out_ty=R.Tensor((1,), dtype="float32"))
        return gv
