# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def adaptive_avg_pool1d(a0: T.Buffer((T.int64(1), T.int64(2), T.int64(8)), "float32"), adaptive_pool_avg: T.Buffer((T.int64(1), T.int64(2), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        adaptive_pool_sum = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(1)))
        for ax0, ax1, ax2, rv0 in T.grid(T.int64(1), T.int64(2), T.int64(1), T.int64(8)):
            with T.sblock("adaptive_pool_sum"):
                v_ax0, v_ax1, v_ax2, v_rv0 = T.axis.remap("SSSR", [ax0, ax1, ax2, rv0])
                T.reads(a0[v_ax0, v_ax1, v_ax2 * T.int64(8) + v_rv0])
                T.writes(adaptive_pool_sum[v_ax0, v_ax1, v_ax2])
                with T.init():
                    adaptive_pool_sum[v_ax0, v_ax1, v_ax2] = T.float32(0.0)
                adaptive_pool_sum[v_ax0, v_ax1, v_ax2] = adaptive_pool_sum[v_ax0, v_ax1, v_ax2] + a0[v_ax0, v_ax1, v_ax2 * T.int64(8) + v_rv0]
        for ax0, ax1, ax2 in T.grid(T.int64(1), T.int64(2), T.int64(1)):
            with T.sblock("adaptive_pool_avg"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(adaptive_pool_sum[v_ax0, v_ax1, v_ax2])
                T.writes(adaptive_pool_avg[v_ax0, v_ax1, v_ax2])
                T.sblock_attr({"schedule_rule": "meta_schedule.adaptive_pool_avg"})
                adaptive_pool_avg[v_ax0, v_ax1, v_ax2] = adaptive_pool_sum[v_ax0, v_ax1, v_ax2] / T.float32(8.0)

    @R.function
    def main(a0: R.Tensor((1, 2, 8), dtype="float32")) -> R.Tensor((1, 2, 1), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.adaptive_avg_pool1d, (a0,), out_ty=R.Tensor((1, 2, 1), dtype="float32"))
        return gv
