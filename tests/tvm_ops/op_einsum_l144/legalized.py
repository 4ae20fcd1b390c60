# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def einsum(gv: T.Buffer((T.int64(2), T.int64(3)), "float32"), gv1: T.Buffer((T.int64(3), T.int64(4)), "float32"), T_einsum: T.Buffer((T.int64(2), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, j in T.grid(T.int64(2), T.int64(4), T.int64(3)):
            with T.sblock("T_einsum"):
                v_ax0, v_ax1, v_j = T.axis.remap("SSR", [ax0, ax1, j])
                T.reads(gv[v_ax0, v_j], gv1[v_j, v_ax1])
                T.writes(T_einsum[v_ax0, v_ax1])
                with T.init():
                    T_einsum[v_ax0, v_ax1] = T.float32(0.0)
                T_einsum[v_ax0, v_ax1] = T_einsum[v_ax0, v_ax1] + gv[v_ax0, v_j] * gv1[v_j, v_ax1]

    @R.function
    def main(a0: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3, 4), dtype="float32"))) -> R.Tensor((2, 4), dtype="float32"):
        cls = Module
        gv: R.Tensor((2, 3), dtype="float32") = a0[0]
        gv1: R.Tensor((3, 4), dtype="float32") = a0[1]
        gv_1 = R.call_tir(cls.einsum, (gv, gv1), out_ty=R.Tensor((2, 4), dtype="float32"))
        return gv_1
