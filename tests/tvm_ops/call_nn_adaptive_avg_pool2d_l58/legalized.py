# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def adaptive_avg_pool2d(a0: T.Buffer((T.int64(1), T.int64(8), T.int64(10), T.int64(9)), "float32"), adaptive_pool_avg: T.Buffer((T.int64(1), T.int64(8), T.int64(3), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        adaptive_pool_sum = T.sblock_alloc_buffer((T.int64(1), T.int64(8), T.int64(3), T.int64(4)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(8), T.int64(3), T.int64(4)):
            with T.sblock("adaptive_pool_sum_l1"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a0[v_ax0, v_ax1, v_ax2 * T.int64(10) // T.int64(3):v_ax2 * T.int64(10) // T.int64(3) + ((v_ax2 % T.int64(3) + T.int64(10)) // T.int64(3) + T.int64(1)), v_ax3 * T.int64(9) // T.int64(4):v_ax3 * T.int64(9) // T.int64(4) + ((v_ax3 % T.int64(4) + T.int64(9)) // T.int64(4) + T.int64(1))])
                T.writes(adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                for rv0, rv1 in T.grid(T.Select((v_ax2 * T.int64(10) + T.int64(1)) % T.int64(3) == T.int64(0), (v_ax2 * T.int64(10) + T.int64(10)) // T.int64(3), (v_ax2 * T.int64(10) + T.int64(10)) // T.int64(3) + T.int64(1)) - v_ax2 * T.int64(10) // T.int64(3), T.Select((v_ax3 * T.int64(9) + T.int64(1)) % T.int64(4) == T.int64(0), (v_ax3 * T.int64(9) + T.int64(9)) // T.int64(4), (v_ax3 * T.int64(9) + T.int64(9)) // T.int64(4) + T.int64(1)) - v_ax3 * T.int64(9) // T.int64(4)):
                    with T.sblock("adaptive_pool_sum"):
                        v_ax0_1 = T.axis.spatial((v_ax0, v_ax0 + T.int64(1)), v_ax0)
                        v_ax1_1 = T.axis.spatial((v_ax1, v_ax1 + T.int64(1)), v_ax1)
                        v_ax2_1 = T.axis.spatial((v_ax2, v_ax2 + (T.int64(1) - v_ax2)), v_ax2)
                        v_ax3_1 = T.axis.spatial((v_ax3, v_ax3 + (T.int64(1) - v_ax3)), v_ax3)
                        v_rv0, v_rv1 = T.axis.remap("RR", [rv0, rv1])
                        T.reads(a0[v_ax0_1, v_ax1_1, v_ax2_1 * T.int64(10) // T.int64(3) + v_rv0, v_ax3_1 * T.int64(9) // T.int64(4) + v_rv1])
                        T.writes(adaptive_pool_sum[v_ax0_1, v_ax1_1, v_ax2_1, v_ax3_1])
                        with T.init():
                            adaptive_pool_sum[v_ax0_1, v_ax1_1, v_ax2_1, v_ax3_1] = T.float32(0.0)
                        adaptive_pool_sum[v_ax0_1, v_ax1_1, v_ax2_1, v_ax3_1] = adaptive_pool_sum[v_ax0_1, v_ax1_1, v_ax2_1, v_ax3_1] + a0[v_ax0_1, v_ax1_1, v_ax2_1 * T.int64(10) // T.int64(3) + v_rv0, v_ax3_1 * T.int64(9) // T.int64(4) + v_rv1]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(8), T.int64(3), T.int64(4)):
            with T.sblock("adaptive_pool_avg"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                T.writes(adaptive_pool_avg[v_ax0, v_ax1, v_ax2, v_ax3])
                T.sblock_attr({"schedule_rule": "meta_schedule.adaptive_pool_avg"})
                adaptive_pool_avg[v_ax0, v_ax1, v_ax2, v_ax3] = adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] / (T.Cast("float32", T.Cast("int32", T.Select((v_ax2 * T.int64(10) + T.int64(1)) % T.int64(3) == T.int64(0), (T.Cast("int64", v_ax2) * T.int64(10) + T.int64(10)) // T.int64(3), (T.Cast("int64", v_ax2) * T.int64(10) + T.int64(10)) // T.int64(3) + T.int64(1)) - T.Cast("int64", v_ax2) * T.int64(10) // T.int64(3))) * T.Cast("float32", T.Cast("int32", T.Select((v_ax3 * T.int64(9) + T.int64(1)) % T.int64(4) == T.int64(0), (T.Cast("int64", v_ax3) * T.int64(9) + T.int64(9)) // T.int64(4), (T.Cast("int64", v_ax3) * T.int64(9) + T.int64(9)) // T.int64(4) + T.int64(1)) - T.Cast("int64", v_ax3) * T.int64(9) // T.int64(4))))

    @R.function
    def main(a0: R.Tensor((1, 8, 10, 9), dtype="float32")) -> R.Tensor((1, 8, 3, 4), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.adaptive_avg_pool2d, (a0,), out_ty=R.Tensor((1, 8, 3, 4), dtype="float32"))
        return gv
