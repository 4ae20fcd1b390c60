# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def prod(a0: T.Buffer((T.int64(3), T.int64(4)), "float32"), a0_red: T.Buffer((T.int64(3),), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, k1 in T.grid(T.int64(3), T.int64(4)):
            with T.sblock("a0_red"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(a0[v_ax0, v_k1])
                T.writes(a0_red[v_ax0])
                with T.init():
                    a0_red[v_ax0] = T.float32(1.0)
                a0_red[v_ax0] = a0_red[v_ax0] * a0[v_ax0, v_k1]

    @R.function
    def main(a0: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.prod, (a0,), out_ty=R.Tensor((3,), dtype="float32"))
        return gv
