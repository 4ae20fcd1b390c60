# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def group_norm(a0: T.Buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(5)), "float32"), a1: T.Buffer((T.int64(8),), "float32"), a2: T.Buffer((T.int64(8),), "float32"), T_reshape: T.Buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_reshape_1 = T.sblock_alloc_buffer((T.int64(2), T.int64(4), T.int64(2), T.int64(5), T.int64(5)))
        a0_red_temp_v0 = T.sblock_alloc_buffer((T.int64(2), T.int64(4)))
        a0_red_temp_v1 = T.sblock_alloc_buffer((T.int64(2), T.int64(4)))
        T_reshape_2 = T.sblock_alloc_buffer((T.int64(4), T.int64(2)))
        T_reshape_3 = T.sblock_alloc_buffer((T.int64(4), T.int64(2)))
        T_group_norm = T.sblock_alloc_buffer((T.int64(2), T.int64(4), T.int64(2), T.int64(5), T.int64(5)))
        for ax0, ax1, ax2, ax3, ax4 in T.grid(T.int64(2), T.int64(4), T.int64(2), T.int64(5), T.int64(5)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_ax4 = T.axis.remap("SSSSS", [ax0, ax1, ax2, ax3, ax4])
                T.reads(a0[((v_ax1 * T.int64(2) + (v_ax4 // T.int64(5) + v_ax3) // T.int64(5) + v_ax2) // T.int64(8) + v_ax0) % T.int64(2), (v_ax1 * T.int64(2) + (v_ax4 // T.int64(5) + v_ax3) // T.int64(5) + v_ax2) % T.int64(8), (v_ax4 // T.int64(5) + v_ax3) % T.int64(5), v_ax4 % T.int64(5)])
                T.writes(T_reshape_1[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4])
                T_reshape_1[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4] = a0[((v_ax1 * T.int64(2) + (v_ax4 // T.int64(5) + v_ax3) // T.int64(5) + v_ax2) // T.int64(8) + v_ax0) % T.int64(2), (v_ax1 * T.int64(2) + (v_ax4 // T.int64(5) + v_ax3) // T.int64(5) + v_ax2) % T.int64(8), (v_ax4 // T.int64(5) + v_ax3) % T.int64(5), v_ax4 % T.int64(5)]
        for ax0, ax1, k2, k3, k4 in T.grid(T.int64(2), T.int64(4), T.int64(2), T.int64(5), T.int64(5)):
            with T.sblock("a0_red_temp"):
                v_ax0, v_ax1, v_k2, v_k3, v_k4 = T.axis.remap("SSRRR", [ax0, ax1, k2, k3, k4])
                T.reads(T_reshape_1[v_ax0, v_ax1, v_k2, v_k3, v_k4])
                T.writes(a0_red_temp_v0[v_ax0, v_ax1], a0_red_temp_v1[v_ax0, v_ax1])
                with T.init():
                    a0_red_temp_v0[v_ax0, v_ax1] = T.float32(0.0)
                    a0_red_temp_v1[v_ax0, v_ax1] = T.float32(0.0)
                v_a0_red_temp_v0: T.let[T.float32] = a0_red_temp_v0[v_ax0, v_ax1] + T_reshape_1[v_ax0, v_ax1, v_k2, v_k3, v_k4]
                v_a0_red_temp_v1: T.let[T.float32] = a0_red_temp_v1[v_ax0, v_ax1] + T_reshape_1[v_ax0, v_ax1, v_k2, v_k3, v_k4] * T_reshape_1[v_ax0, v_ax1, v_k2, v_k3, v_k4]
                a0_red_temp_v0[v_ax0, v_ax1] = v_a0_red_temp_v0
                a0_red_temp_v1[v_ax0, v_ax1] = v_a0_red_temp_v1
        for ax0, ax1 in T.grid(T.int64(4), T.int64(2)):
            with T.sblock("T_reshape_1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a1[(v_ax0 * T.int64(2) + v_ax1) % T.int64(8)])
                T.writes(T_reshape_2[v_ax0, v_ax1])
                T_reshape_2[v_ax0, v_ax1] = a1[(v_ax0 * T.int64(2) + v_ax1) % T.int64(8)]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(2)):
            with T.sblock("T_reshape_2"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a2[(v_ax0 * T.int64(2) + v_ax1) % T.int64(8)])
                T.writes(T_reshape_3[v_ax0, v_ax1])
                T_reshape_3[v_ax0, v_ax1] = a2[(v_ax0 * T.int64(2) + v_ax1) % T.int64(8)]
        for ax0, ax1, ax2, ax3, ax4 in T.grid(T.int64(2), T.int64(4), T.int64(2), T.int64(5), T.int64(5)):
            with T.sblock("T_group_norm"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_ax4 = T.axis.remap("SSSSS", [ax0, ax1, ax2, ax3, ax4])
                T.reads(T_reshape_1[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4], a0_red_temp_v0[v_ax0, v_ax1], a0_red_temp_v1[v_ax0, v_ax1], T_reshape_2[v_ax1, v_ax2], T_reshape_3[v_ax1, v_ax2])
                T.writes(T_group_norm[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4])
                T_group_norm[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4] = (T_reshape_1[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4] - a0_red_temp_v0[v_ax0, v_ax1] / T.float32(50.0)) * T.rsqrt(a0_red_temp_v1[v_ax0, v_ax1] / T.float32(50.0) - a0_red_temp_v0[v_ax0, v_ax1] / T.float32(50.0) * (a0_red_temp_v0[v_ax0, v_ax1] / T.float32(50.0)) + T.float32(1.0000000000000001e-05)) * T_reshape_2[v_ax1, v_ax2] + T_reshape_3[v_ax1, v_ax2]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(5), T.int64(5)):
            with T.sblock("T_reshape_3"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(T_group_norm[(((v_ax3 // T.int64(5) + v_ax2) // T.int64(5) + v_ax1) // T.int64(8) + v_ax0) % T.int64(2), ((v_ax3 // T.int64(5) + v_ax2) // T.int64(5) + v_ax1) % T.int64(8) // T.int64(2), ((v_ax3 // T.int64(5) + v_ax2) // T.int64(5) + v_ax1) % T.int64(2), (v_ax3 // T.int64(5) + v_ax2) % T.int64(5), v_ax3 % T.int64(5)])
                T.writes(T_reshape[v_ax0, v_ax1, v_ax2, v_ax3])
                T_reshape[v_ax0, v_ax1, v_ax2, v_ax3] = T_group_norm[(((v_ax3 // T.int64(5) + v_ax2) // T.int64(5) + v_ax1) // T.int64(8) + v_ax0) % T.int64(2), ((v_ax3 // T.int64(5) + v_ax2) // T.int64(5) + v_ax1) % T.int64(8) // T.int64(2), ((v_ax3 // T.int64(5) + v_ax2) // T.int64(5) + v_ax1) % T.int64(2), (v_ax3 // T.int64(5) + v_ax2) % T.int64(5), v_ax3 % T.int64(5)]

    @R.function
    def main(a0: R.Tensor((2, 8, 5, 5), dtype="float32"), a1: R.Tensor((8,), dtype="float32"), a2: R.Tensor((8,), dtype="float32")) -> R.Tensor((2, 8, 5, 5), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.group_norm, (a0, a1, a2), out_ty=R.Tensor((2, 8, 5, 5), dtype="float32"))
        return gv
