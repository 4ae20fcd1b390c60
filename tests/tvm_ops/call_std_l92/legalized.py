# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def std(a0: T.Buffer((T.int64(4), T.int64(9)), "float32"), compute: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        a0_red = T.sblock_alloc_buffer((T.int64(4), T.int64(1)))
        T_divide = T.sblock_alloc_buffer((T.int64(4), T.int64(1)))
        T_subtract = T.sblock_alloc_buffer((T.int64(4), T.int64(9)))
        T_multiply = T.sblock_alloc_buffer((T.int64(4), T.int64(9)))
        T_multiply_red = T.sblock_alloc_buffer((T.int64(4),))
        T_divide_1 = T.sblock_alloc_buffer((T.int64(4),))
        for ax0, ax1, k1 in T.grid(T.int64(4), T.int64(1), T.int64(9)):
            with T.sblock("a0_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(a0[v_ax0, v_k1])
                T.writes(a0_red[v_ax0, v_ax1])
                with T.init():
                    a0_red[v_ax0, v_ax1] = T.float32(0.0)
                a0_red[v_ax0, v_ax1] = a0_red[v_ax0, v_ax1] + a0[v_ax0, v_k1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(1)):
            with T.sblock("T_divide"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0_red[v_ax0, v_ax1])
                T.writes(T_divide[v_ax0, v_ax1])
                T_divide[v_ax0, v_ax1] = a0_red[v_ax0, v_ax1] / T.float32(9.0)
        for ax0, ax1 in T.grid(T.int64(4), T.int64(9)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1], T_divide[v_ax0, T.int64(0)])
                T.writes(T_subtract[v_ax0, v_ax1])
                T_subtract[v_ax0, v_ax1] = a0[v_ax0, v_ax1] - T_divide[v_ax0, T.int64(0)]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(9)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_subtract[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = T_subtract[v_ax0, v_ax1] * T_subtract[v_ax0, v_ax1]
        for ax0, k1 in T.grid(T.int64(4), T.int64(9)):
            with T.sblock("T_multiply_red"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(T_multiply[v_ax0, v_k1])
                T.writes(T_multiply_red[v_ax0])
                with T.init():
                    T_multiply_red[v_ax0] = T.float32(0.0)
                T_multiply_red[v_ax0] = T_multiply_red[v_ax0] + T_multiply[v_ax0, v_k1]
        for ax0 in range(T.int64(4)):
            with T.sblock("T_divide_1"):
                v_ax0 = T.axis.spatial(T.int64(4), ax0)
                T.reads(T_multiply_red[v_ax0])
                T.writes(T_divide_1[v_ax0])
                T_divide_1[v_ax0] = T_multiply_red[v_ax0] / T.float32(9.0)
        for i0 in range(T.int64(4)):
            with T.sblock("compute"):
                v_i0 = T.axis.spatial(T.int64(4), i0)
                T.reads(T_divide_1[v_i0])
                T.writes(compute[v_i0])
                compute[v_i0] = T.sqrt(T_divide_1[v_i0])

    @R.function
    def main(a0: R.Tensor((4, 9), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.std, (a0,), out_ty=R.Tensor((4,), dtype="float32"))
        return gv
