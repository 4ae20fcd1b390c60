# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def argmax(a0: T.Buffer((T.int64(4), T.int64(9)), "float32"), a0_red: T.Buffer((T.int64(4),), "int64")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        a0_red_temp_v0 = T.sblock_alloc_buffer((T.int64(4),), "int64")
        a0_red_temp_v1 = T.sblock_alloc_buffer((T.int64(4),))
        for ax0, k1 in T.grid(T.int64(4), T.int64(9)):
            with T.sblock("a0_red_temp"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(a0[v_ax0, v_k1])
                T.writes(a0_red_temp_v0[v_ax0], a0_red_temp_v1[v_ax0])
                with T.init():
                    a0_red_temp_v0[v_ax0] = T.int64(-1)
                    a0_red_temp_v1[v_ax0] = T.float32(-340282346638528859811704183484516925440.0)
                v_a0_red_temp_v0: T.let[T.int64] = T.Select(a0_red_temp_v1[v_ax0] > a0[v_ax0, v_k1] or a0_red_temp_v1[v_ax0] == a0[v_ax0, v_k1] and a0_red_temp_v0[v_ax0] < v_k1, a0_red_temp_v0[v_ax0], v_k1)
                v_a0_red_temp_v1: T.let[T.float32] = T.Select(a0_red_temp_v1[v_ax0] > a0[v_ax0, v_k1], a0_red_temp_v1[v_ax0], a0[v_ax0, v_k1])
                a0_red_temp_v0[v_ax0] = v_a0_red_temp_v0
                a0_red_temp_v1[v_ax0] = v_a0_red_temp_v1
        for ax0 in range(T.int64(4)):
            with T.sblock("a0_red"):
                v_ax0 = T.axis.spatial(T.int64(4), ax0)
                T.reads(a0_red_temp_v0[v_ax0])
                T.writes(a0_red[v_ax0])
                a0_red[v_ax0] = a0_red_temp_v0[v_ax0]

    @R.function
    def main(a0: R.Tensor((4, 9), dtype="float32")) -> R.Tensor((4,), dtype="int64"):
        cls = Module
        gv = R.call_tir(cls.argmax, (a0,), out_ty=R.Tensor((4,), dtype="int64"))
        return gv
