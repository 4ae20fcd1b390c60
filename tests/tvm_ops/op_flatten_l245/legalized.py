# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def reshape(a0: T.Buffer((T.int64(2), T.int64(3)), "float32"), T_reshape: T.Buffer((T.int64(6),), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0 in range(T.int64(6)):
            with T.sblock("T_reshape"):
                v_ax0 = T.axis.spatial(T.int64(6), ax0)
                T.reads(a0[v_ax0 % T.int64(6) // T.int64(3), v_ax0 % T.int64(3)])
                T.writes(T_reshape[v_ax0])
                T_reshape[v_ax0] = a0[v_ax0 % T.int64(6) // T.int64(3), v_ax0 % T.int64(3)]

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((6,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.reshape, (a0,), out_ty=R.Tensor((6,), dtype="float32"))
        return gv
