# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def max_pool2d(a0: T.Buffer((T.int64(1), T.int64(16), T.int64(13), T.int64(13)), "float32"), pool_max: T.Buffer((T.int64(1), T.int64(16), T.int64(6), T.int64(6)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(T.int64(1), T.int64(16), T.int64(6), T.int64(6), T.int64(3), T.int64(3)):
            with T.sblock("pool_max"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
                T.reads(a0[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0, v_ax3 * T.int64(2) + v_rv1])
                T.writes(pool_max[v_ax0, v_ax1, v_ax2, v_ax3])
                T.sblock_attr({"schedule_rule": "meta_schedule.pool_max"})
                with T.init():
                    pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32(-340282346638528859811704183484516925440.0)
                pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.max(pool_max[v_ax0, v_ax1, v_ax2, v_ax3], a0[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0, v_ax3 * T.int64(2) + v_rv1])

    @R.function
    def main(a0: R.Tensor((1, 16, 13, 13), dtype="float32")) -> R.Tensor((1, 16, 6, 6), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.max_pool2d, (a0,), out_ty=R.Tensor((1, 16, 6, 6), dtype="float32"))
        return gv
