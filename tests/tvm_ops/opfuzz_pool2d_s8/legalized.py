# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def max_pool2d(x: T.Buffer((T.int64(2), T.int64(3), T.int64(2), T.int64(10)), "float32"), pool_max: T.Buffer((T.int64(2), T.int64(3), T.int64(1), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(2), T.int64(3), T.int64(6), T.int64(15)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(3), T.int64(6), T.int64(15)):
            with T.sblock("pad_temp"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(x[v_ax0, v_ax1, v_ax2, v_ax3 - T.int64(1)])
                T.writes(pad_temp[v_ax0, v_ax1, v_ax2, v_ax3])
                pad_temp[v_ax0, v_ax1, v_ax2, v_ax3] = T.if_then_else(v_ax2 < T.int64(2) and T.int64(1) <= v_ax3 and v_ax3 < T.int64(11), x[v_ax0, v_ax1, v_ax2, v_ax3 - T.int64(1)], T.float32(-340282346638528859811704183484516925440.0))
        for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(T.int64(2), T.int64(3), T.int64(1), T.int64(3), T.int64(1), T.int64(3)):
            with T.sblock("pool_max"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
                T.reads(pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(5) + v_rv0, v_ax3 * T.int64(4) + v_rv1])
                T.writes(pool_max[v_ax0, v_ax1, v_ax2, v_ax3])
                T.sblock_attr({"schedule_rule": "meta_schedule.pool_max"})
                with T.init():
                    pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32(-340282346638528859811704183484516925440.0)
                pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.max(pool_max[v_ax0, v_ax1, v_ax2, v_ax3], pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(5) + v_rv0, v_ax3 * T.int64(4) + v_rv1])

    @R.function
    def main(x: R.Tensor((2, 3, 2, 10), dtype="float32")) -> R.Tensor((2, 3, 1, 3), dtype="float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.max_pool2d, (x,), out_ty=R.Tensor((2, 3, 1, 3), dtype="float32"))
            R.output(y)
        return y
