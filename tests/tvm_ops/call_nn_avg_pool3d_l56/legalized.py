# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def avg_pool3d(a0: T.Buffer((T.int64(1), T.int64(2), T.int64(6), T.int64(6), T.int64(6)), "float32"), pool_avg: T.Buffer((T.int64(1), T.int64(2), T.int64(3), T.int64(3), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pool_sum = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(3), T.int64(3), T.int64(3)))
        for ax0, ax1, ax2, ax3, ax4, rv0, rv1, rv2 in T.grid(T.int64(1), T.int64(2), T.int64(3), T.int64(3), T.int64(3), T.int64(2), T.int64(2), T.int64(2)):
            with T.sblock("pool_sum"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_ax4, v_rv0, v_rv1, v_rv2 = T.axis.remap("SSSSSRRR", [ax0, ax1, ax2, ax3, ax4, rv0, rv1, rv2])
                T.reads(a0[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0, v_ax3 * T.int64(2) + v_rv1, v_ax4 * T.int64(2) + v_rv2])
                T.writes(pool_sum[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4])
                with T.init():
                    pool_sum[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4] = T.float32(0.0)
                pool_sum[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4] = pool_sum[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4] + a0[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0, v_ax3 * T.int64(2) + v_rv1, v_ax4 * T.int64(2) + v_rv2]
        for ax0, ax1, ax2, ax3, ax4 in T.grid(T.int64(1), T.int64(2), T.int64(3), T.int64(3), T.int64(3)):
            with T.sblock("pool_avg"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_ax4 = T.axis.remap("SSSSS", [ax0, ax1, ax2, ax3, ax4])
                T.reads(pool_sum[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4])
                T.writes(pool_avg[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4])
                T.sblock_attr({"schedule_rule": "meta_schedule.pool_avg"})
                pool_avg[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4] = pool_sum[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4] / T.Cast("float32", (T.min(T.int64(1), T.int64(5) - v_ax2 * T.int64(2)) + T.int64(1)) * (T.min(T.int64(1), T.int64(5) - v_ax3 * T.int64(2)) + T.int64(1)) * (T.min(T.int64(1), T.int64(5) - v_ax4 * T.int64(2)) + T.int64(1)))

    @R.function
    def main(a0: R.Tensor((1, 2, 6, 6, 6), dtype="float32")) -> R.Tensor((1, 2, 3, 3, 3), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.avg_pool3d, (a0,), out_ty=R.Tensor((1, 2, 3, 3, 3), dtype="float32"))
        return gv
