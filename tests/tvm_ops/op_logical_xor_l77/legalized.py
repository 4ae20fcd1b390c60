# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def logical_xor(a0: T.Buffer((T.int64(4),), "bool"), a1: T.Buffer((T.int64(4),), "bool"), T_logical_xor: T.Buffer((T.int64(4),), "bool")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0 in range(T.int64(4)):
            with T.sblock("T_logical_xor"):
                v_ax0 = T.axis.spatial(T.int64(4), ax0)
                T.reads(a0[v_ax0], a1[v_ax0])
                T.writes(T_logical_xor[v_ax0])
                T_logical_xor[v_ax0] = a0[v_ax0] ^ a1[v_ax0]

    @R.function
    def main(a0: R.Tensor((4,), dtype="bool"), a1: R.Tensor((4,), dtype="bool")) -> R.Tensor((4,), dtype="bool"):
        cls = Module
        gv = R.call_tir(cls.logical_xor, (a0, a1), out_ty=R.Tensor((4,), dtype="bool"))
        return gv
