# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def layer_norm(a0: T.Buffer((T.int64(6), T.int64(64)), "float32"), a1: T.Buffer((T.int64(64),), "float32"), a2: T.Buffer((T.int64(64),), "float32"), T_layer_norm: T.Buffer((T.int64(6), T.int64(64)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        a0_sum = T.sblock_alloc_buffer((T.int64(6),))
        a0_mean = T.sblock_alloc_buffer((T.int64(6),))
        a0_var_sum = T.sblock_alloc_buffer((T.int64(6),))
        for ax0, k1 in T.grid(T.int64(6), T.int64(64)):
            with T.sblock("a0_sum"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(a0[v_ax0, v_k1])
                T.writes(a0_sum[v_ax0])
                with T.init():
                    a0_sum[v_ax0] = T.float32(0.0)
                a0_sum[v_ax0] = a0_sum[v_ax0] + a0[v_ax0, v_k1]
        for ax0 in range(T.int64(6)):
            with T.sblock("a0_mean"):
                v_ax0 = T.axis.spatial(T.int64(6), ax0)
                T.reads(a0_sum[v_ax0])
                T.writes(a0_mean[v_ax0])
                a0_mean[v_ax0] = a0_sum[v_ax0] / T.float32(64.0)
        for ax0, k1 in T.grid(T.int64(6), T.int64(64)):
            with T.sblock("a0_var_sum"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(a0[v_ax0, v_k1], a0_mean[v_ax0])
                T.writes(a0_var_sum[v_ax0])
                with T.init():
                    a0_var_sum[v_ax0] = T.float32(0.0)
                a0_var_sum[v_ax0] = a0_var_sum[v_ax0] + (a0[v_ax0, v_k1] - a0_mean[v_ax0]) * (a0[v_ax0, v_k1] - a0_mean[v_ax0])
        for ax0, ax1 in T.grid(T.int64(6), T.int64(64)):
            with T.sblock("T_layer_norm"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1], a0_mean[v_ax0], a0_var_sum[v_ax0], a1[v_ax1], a2[v_ax1])
                T.writes(T_layer_norm[v_ax0, v_ax1])
                T_layer_norm[v_ax0, v_ax1] = (a0[v_ax0, v_ax1] - a0_mean[v_ax0]) * T.rsqrt(a0_var_sum[v_ax0] / T.float32(64.0) + T.float32(1.0000000000000001e-05)) * a1[v_ax1] + a2[v_ax1]

    @R.function
    def main(a0: R.Tensor((6, 64), dtype="float32"), a1: R.Tensor((64,), dtype="float32"), a2: R.Tensor((64,), dtype="float32")) -> R.Tensor((6, 64), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.layer_norm, (a0, a1, a2), out_ty=R.Tensor((6, 64), dtype="float32"))
        return gv
