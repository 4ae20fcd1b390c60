# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(gv1: T.Buffer((T.int64(5), T.int64(16)), "float32"), a2: T.Buffer((T.int64(16),), "float32"), T_add: T.Buffer((T.int64(5), T.int64(16)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(5), T.int64(16)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(gv1[v_ax0, v_ax1], a2[v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = gv1[v_ax0, v_ax1] + a2[v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def matmul(a0: T.Buffer((T.int64(5), T.int64(32)), "float32"), gv: T.Buffer((T.int64(32), T.int64(16)), "float32"), matmul: T.Buffer((T.int64(5), T.int64(16)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(5), T.int64(16), T.int64(32)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a0[v_i0, v_k], gv[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a0[v_i0, v_k] * gv[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def transpose(a1: T.Buffer((T.int64(16), T.int64(32)), "float32"), T_transpose: T.Buffer((T.int64(32), T.int64(16)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(32), T.int64(16)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a1[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = a1[v_ax1, v_ax0]

    @R.function
    def main(a0: R.Tensor((5, 32), dtype="float32"), a1: R.Tensor((16, 32), dtype="float32"), a2: R.Tensor((16,), dtype="float32")) -> R.Tensor((5, 16), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.transpose, (a1,), out_ty=R.Tensor((32, 16), dtype="float32"))
        gv1 = R.call_tir(cls.matmul, (a0, gv), out_ty=R.Tensor((5, 16), dtype="float32"))
        gv_1 = R.call_tir(cls.add, (gv1, a2), out_ty=R.Tensor((5, 16), dtype="float32"))
        return gv_1
