# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def floor_mod(a0: T.Buffer((T.int64(3),), "float32"), a1: T.Buffer((T.int64(3),), "float32"), T_floor_mod: T.Buffer((T.int64(3),), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0 in range(T.int64(3)):
            with T.sblock("T_floor_mod"):
                v_ax0 = T.axis.spatial(T.int64(3), ax0)
                T.reads(a0[v_ax0], a1[v_ax0])
                T.writes(T_floor_mod[v_ax0])
                T_floor_mod[v_ax0] = a0[v_ax0] - T.floor(a0[v_ax0] / a1[v_ax0]) * a1[v_ax0]

    @R.function
    def main(a0: R.Tensor((3,), dtype="float32"), a1: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.floor_mod, (a0, a1), out_ty=R.Tensor((3,), dtype="float32"))
        return gv
