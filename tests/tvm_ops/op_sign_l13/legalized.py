# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def tir_sign(a0: T.Buffer((T.int64(3),), "float32"), T_sign: T.Buffer((T.int64(3),), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0 in range(T.int64(3)):
            with T.sblock("T_sign"):
                v_ax0 = T.axis.spatial(T.int64(3), ax0)
                T.reads(a0[v_ax0])
                T.writes(T_sign[v_ax0])
                T_sign[v_ax0] = T.Select(T.float32(0.0) < a0[v_ax0], T.float32(1.0), T.Select(a0[v_ax0] < T.float32(0.0), T.float32(-1.0), T.float32(0.0)))

    @R.function
    def main(a0: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.tir_sign, (a0,), out_ty=R.Tensor((3,), dtype="float32"))
        return gv
