# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def log_add_exp(a0: T.Buffer((T.int64(4),), "float32"), a1: T.Buffer((T.int64(4),), "float32"), T_log_add_exp: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0 in range(T.int64(4)):
            with T.sblock("T_log_add_exp"):
                v_ax0 = T.axis.spatial(T.int64(4), ax0)
                T.reads(a0[v_ax0], a1[v_ax0])
                T.writes(T_log_add_exp[v_ax0])
                T_log_add_exp[v_ax0] = T.log(T.exp(a0[v_ax0]) + T.exp(a1[v_ax0]))

    @R.function
    def main(a0: R.Tensor((4,), dtype="float32"), a1: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.log_add_exp, (a0, a1), out_ty=R.Tensor((4,), dtype="float32"))
        return gv
