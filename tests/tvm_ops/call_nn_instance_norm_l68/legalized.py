# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def instance_norm(a0: T.Buffer((T.int64(2), T.int64(4), T.int64(6), T.int64(6)), "float32"), a1: T.Buffer((T.int64(4),), "float32"), a2: T.Buffer((T.int64(4),), "float32"), T_instance_norm: T.Buffer((T.int64(2), T.int64(4), T.int64(6), T.int64(6)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        a0_red_temp_v0 = T.sblock_alloc_buffer((T.int64(2), T.int64(4)))
        a0_red_temp_v1 = T.sblock_alloc_buffer((T.int64(2), T.int64(4)))
        for ax0, ax1, k2, k3 in T.grid(T.int64(2), T.int64(4), T.int64(6), T.int64(6)):
            with T.sblock("a0_red_temp"):
                v_ax0, v_ax1, v_k2, v_k3 = T.axis.remap("SSRR", [ax0, ax1, k2, k3])
                T.reads(a0[v_ax0, v_ax1, v_k2, v_k3])
                T.writes(a0_red_temp_v0[v_ax0, v_ax1], a0_red_temp_v1[v_ax0, v_ax1])
                with T.init():
                    a0_red_temp_v0[v_ax0, v_ax1] = T.float32(0.0)
                    a0_red_temp_v1[v_ax0, v_ax1] = T.float32(0.0)
                v_a0_red_temp_v0: T.let[T.float32] = a0_red_temp_v0[v_ax0, v_ax1] + a0[v_ax0, v_ax1, v_k2, v_k3]
                v_a0_red_temp_v1: T.let[T.float32] = a0_red_temp_v1[v_ax0, v_ax1] + a0[v_ax0, v_ax1, v_k2, v_k3] * a0[v_ax0, v_ax1, v_k2, v_k3]
                a0_red_temp_v0[v_ax0, v_ax1] = v_a0_red_temp_v0
                a0_red_temp_v1[v_ax0, v_ax1] = v_a0_red_temp_v1
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(4), T.int64(6), T.int64(6)):
            with T.sblock("T_instance_norm"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a0[v_ax0, v_ax1, v_ax2, v_ax3], a0_red_temp_v0[v_ax0, v_ax1], a0_red_temp_v1[v_ax0, v_ax1], a1[v_ax1], a2[v_ax1])
                T.writes(T_instance_norm[v_ax0, v_ax1, v_ax2, v_ax3])
                T_instance_norm[v_ax0, v_ax1, v_ax2, v_ax3] = (a0[v_ax0, v_ax1, v_ax2, v_ax3] - a0_red_temp_v0[v_ax0, v_ax1] / T.float32(36.0)) * T.rsqrt(a0_red_temp_v1[v_ax0, v_ax1] / T.float32(36.0) - a0_red_temp_v0[v_ax0, v_ax1] / T.float32(36.0) * (a0_red_temp_v0[v_ax0, v_ax1] / T.float32(36.0)) + T.float32(1.0000000000000001e-05)) * a1[v_ax1] + a2[v_ax1]

    @R.function
    def main(a0: R.Tensor((2, 4, 6, 6), dtype="float32"), a1: R.Tensor((4,), dtype="float32"), a2: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 4, 6, 6), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.instance_norm, (a0, a1, a2), out_ty=R.Tensor((2, 4, 6, 6), dtype="float32"))
        return gv
