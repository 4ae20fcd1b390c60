# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def avg_pool2d(x: T.Buffer((T.int64(1), T.int64(4), T.int64(5), T.int64(4)), "float32"), pool_avg: T.Buffer((T.int64(1), T.int64(4), T.int64(1), T.int64(2)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(4), T.int64(7), T.int64(6)))
        pool_sum = T.sblock_alloc_buffer((T.int64(1), T.int64(4), T.int64(1), T.int64(2)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(7), T.int64(6)):
            with T.sblock("pad_temp"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(x[v_ax0, v_ax1, v_ax2 - T.int64(1), v_ax3 - T.int64(2)])
                T.writes(pad_temp[v_ax0, v_ax1, v_ax2, v_ax3])
                pad_temp[v_ax0, v_ax1, v_ax2, v_ax3] = T.if_then_else(T.int64(1) <= v_ax2 and v_ax2 < T.int64(6) and T.int64(2) <= v_ax3, x[v_ax0, v_ax1, v_ax2 - T.int64(1), v_ax3 - T.int64(2)], T.float32(0.0))
        for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(T.int64(1), T.int64(4), T.int64(1), T.int64(2), T.int64(4), T.int64(2)):
            with T.sblock("pool_sum"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
                T.reads(pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0 * T.int64(2), v_ax3 * T.int64(3) + v_rv1])
                T.writes(pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                with T.init():
                    pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32(0.0)
                pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] = pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] + pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0 * T.int64(2), v_ax3 * T.int64(3) + v_rv1]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(4), T.int64(1), T.int64(2)):
            with T.sblock("pool_avg"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                T.writes(pool_avg[v_ax0, v_ax1, v_ax2, v_ax3])
                T.sblock_attr({"schedule_rule": "meta_schedule.pool_avg"})
                pool_avg[v_ax0, v_ax1, v_ax2, v_ax3] = pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] / T.Cast("float32", T.max((T.Div(T.min(T.int64(5), T.int64(4) - v_ax2 * T.int64(2)) + T.int64(1) - T.max(T.int64(1) - v_ax2, T.int64(0)) * T.int64(2), T.int64(2)) + T.int64(1)) * (T.min(v_ax3 * T.int64(3) - T.int64(1), T.int64(3)) + T.int64(3) - T.max(T.int64(2) - v_ax3 * T.int64(3), T.int64(0)) - v_ax3 * T.int64(3)), T.int64(1)))

    @R.function
    def main(x: R.Tensor((1, 4, 5, 4), dtype="float32")) -> R.Tensor((1, 4, 1, 2), dtype="float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.avg_pool2d, (x,), out_ty=R.Tensor((1, 4, 1, 2), dtype="float32"))
            R.output(y)
        return y
