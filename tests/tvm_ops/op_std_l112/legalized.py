# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def std(a0: T.Buffer((T.int64(2), T.int64(3)), "float32"), compute: T.Buffer((), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        a0_red = T.sblock_alloc_buffer((T.int64(1), T.int64(1)))
        T_divide = T.sblock_alloc_buffer((T.int64(1), T.int64(1)))
        T_subtract = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        T_multiply = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        T_multiply_red = T.sblock_alloc_buffer(())
        T_divide_1 = T.sblock_alloc_buffer(())
        for ax0, ax1, k0, k1 in T.grid(T.int64(1), T.int64(1), T.int64(2), T.int64(3)):
            with T.sblock("a0_red"):
                v_ax0, v_ax1, v_k0, v_k1 = T.axis.remap("SSRR", [ax0, ax1, k0, k1])
                T.reads(a0[v_k0, v_k1])
                T.writes(a0_red[v_ax0, v_ax1])
                with T.init():
                    a0_red[v_ax0, v_ax1] = T.float32(0.0)
                a0_red[v_ax0, v_ax1] = a0_red[v_ax0, v_ax1] + a0[v_k0, v_k1]
        for ax0, ax1 in T.grid(T.int64(1), T.int64(1)):
            with T.sblock("T_divide"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0_red[v_ax0, v_ax1])
                T.writes(T_divide[v_ax0, v_ax1])
                T_divide[v_ax0, v_ax1] = a0_red[v_ax0, v_ax1] / T.float32(6.0)
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1], T_divide[T.int64(0), T.int64(0)])
                T.writes(T_subtract[v_ax0, v_ax1])
                T_subtract[v_ax0, v_ax1] = a0[v_ax0, v_ax1] - T_divide[T.int64(0), T.int64(0)]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_subtract[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = T_subtract[v_ax0, v_ax1] * T_subtract[v_ax0, v_ax1]
        for k0, k1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_multiply_red"):
                v_k0, v_k1 = T.axis.remap("RR", [k0, k1])
                T.reads(T_multiply[v_k0, v_k1])
                T.writes(T_multiply_red[()])
                with T.init():
                    T_multiply_red[()] = T.float32(0.0)
                T_multiply_red[()] = T_multiply_red[()] + T_multiply[v_k0, v_k1]
        with T.sblock("T_divide_1"):
            vi = T.axis.spatial(T.int64(1), T.int64(0))
            T.reads(T_multiply_red[()])
            T.writes(T_divide_1[()])
            T_divide_1[()] = T_multiply_red[()] / T.float32(6.0)
        with T.sblock("compute"):
            vi = T.axis.spatial(T.int64(1), T.int64(0))
            T.reads(T_divide_1[()])
            T.writes(compute[()])
            compute[()] = T.sqrt(T_divide_1[()])

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.std, (a0,), out_ty=R.Tensor((), dtype="float32"))
        return gv
