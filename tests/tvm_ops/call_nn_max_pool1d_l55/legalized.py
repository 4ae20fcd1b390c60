# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def max_pool1d(a0: T.Buffer((T.int64(2), T.int64(4), T.int64(17)), "float32"), pool_max: T.Buffer((T.int64(2), T.int64(4), T.int64(9)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(2), T.int64(4), T.int64(19)))
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(4), T.int64(19)):
            with T.sblock("pad_temp"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(a0[v_ax0, v_ax1, v_ax2 - T.int64(1)])
                T.writes(pad_temp[v_ax0, v_ax1, v_ax2])
                pad_temp[v_ax0, v_ax1, v_ax2] = T.if_then_else(T.int64(1) <= v_ax2 and v_ax2 < T.int64(18), a0[v_ax0, v_ax1, v_ax2 - T.int64(1)], T.float32(-340282346638528859811704183484516925440.0))
        for ax0, ax1, ax2, rv0 in T.grid(T.int64(2), T.int64(4), T.int64(9), T.int64(3)):
            with T.sblock("pool_max"):
                v_ax0, v_ax1, v_ax2, v_rv0 = T.axis.remap("SSSR", [ax0, ax1, ax2, rv0])
                T.reads(pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0])
                T.writes(pool_max[v_ax0, v_ax1, v_ax2])
                T.sblock_attr({"schedule_rule": "meta_schedule.pool_max"})
                with T.init():
                    pool_max[v_ax0, v_ax1, v_ax2] = T.float32(-340282346638528859811704183484516925440.0)
                pool_max[v_ax0, v_ax1, v_ax2] = T.max(pool_max[v_ax0, v_ax1, v_ax2], pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0])

    @R.function
    def main(a0: R.Tensor((2, 4, 17), dtype="float32")) -> R.Tensor((2, 4, 9), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.max_pool1d, (a0,), out_ty=R.Tensor((2, 4, 9), dtype="float32"))
        return gv
