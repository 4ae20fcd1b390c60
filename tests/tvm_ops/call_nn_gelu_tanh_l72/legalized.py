# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def gelu_tanh(a0: T.Buffer((T.int64(4), T.int64(33)), "float32"), T_multiply: T.Buffer((T.int64(4), T.int64(33)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        T_multiply_1 = T.sblock_alloc_buffer((T.int64(4), T.int64(33)))
        T_multiply_2 = T.sblock_alloc_buffer((T.int64(4), T.int64(33)))
        T_multiply_3 = T.sblock_alloc_buffer((T.int64(4), T.int64(33)))
        T_multiply_4 = T.sblock_alloc_buffer((T.int64(4), T.int64(33)))
        T_add = T.sblock_alloc_buffer((T.int64(4), T.int64(33)))
        T_multiply_5 = T.sblock_alloc_buffer((T.int64(4), T.int64(33)))
        compute = T.sblock_alloc_buffer((T.int64(4), T.int64(33)))
        T_add_1 = T.sblock_alloc_buffer((T.int64(4), T.int64(33)))
        for ax0, ax1 in T.grid(T.int64(4), T.int64(33)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1])
                T.writes(T_multiply_1[v_ax0, v_ax1])
                T_multiply_1[v_ax0, v_ax1] = T.float32(0.5) * a0[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(33)):
            with T.sblock("T_multiply_1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1])
                T.writes(T_multiply_2[v_ax0, v_ax1])
                T_multiply_2[v_ax0, v_ax1] = T.float32(0.79788456080286541) * a0[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(33)):
            with T.sblock("T_multiply_2"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1])
                T.writes(T_multiply_3[v_ax0, v_ax1])
                T_multiply_3[v_ax0, v_ax1] = T.float32(0.044714999999999998) * a0[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(33)):
            with T.sblock("T_multiply_3"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_multiply_3[v_ax0, v_ax1], a0[v_ax0, v_ax1])
                T.writes(T_multiply_4[v_ax0, v_ax1])
                T_multiply_4[v_ax0, v_ax1] = T_multiply_3[v_ax0, v_ax1] * a0[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(33)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_multiply_4[v_ax0, v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = T.float32(1.0) + T_multiply_4[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(33)):
            with T.sblock("T_multiply_4"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_multiply_2[v_ax0, v_ax1], T_add[v_ax0, v_ax1])
                T.writes(T_multiply_5[v_ax0, v_ax1])
                T_multiply_5[v_ax0, v_ax1] = T_multiply_2[v_ax0, v_ax1] * T_add[v_ax0, v_ax1]
        for i0, i1 in T.grid(T.int64(4), T.int64(33)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_multiply_5[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.tanh(T_multiply_5[v_i0, v_i1])
        for ax0, ax1 in T.grid(T.int64(4), T.int64(33)):
            with T.sblock("T_add_1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(compute[v_ax0, v_ax1])
                T.writes(T_add_1[v_ax0, v_ax1])
                T_add_1[v_ax0, v_ax1] = T.float32(1.0) + compute[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(4), T.int64(33)):
            with T.sblock("T_multiply_5"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_multiply_1[v_ax0, v_ax1], T_add_1[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = T_multiply_1[v_ax0, v_ax1] * T_add_1[v_ax0, v_ax1]

    @R.function
    def main(a0: R.Tensor((4, 33), dtype="float32")) -> R.Tensor((4, 33), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.gelu_tanh, (a0,), out_ty=R.Tensor((4, 33), dtype="float32"))
        return gv
