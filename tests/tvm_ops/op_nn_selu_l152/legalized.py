# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def selu(a0: T.Buffer((T.int64(2), T.int64(3)), "float32"), T_multiply: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        T_maximum = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        compute = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        T_subtract = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        T_multiply_1 = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        T_minimum = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        T_add = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_maximum"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1])
                T.writes(T_maximum[v_ax0, v_ax1])
                T_maximum[v_ax0, v_ax1] = T.max(a0[v_ax0, v_ax1], T.float32(0.0))
        for i0, i1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(a0[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.exp(a0[v_i0, v_i1])
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(compute[v_ax0, v_ax1])
                T.writes(T_subtract[v_ax0, v_ax1])
                T_subtract[v_ax0, v_ax1] = compute[v_ax0, v_ax1] - T.float32(1.0)
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_subtract[v_ax0, v_ax1])
                T.writes(T_multiply_1[v_ax0, v_ax1])
                T_multiply_1[v_ax0, v_ax1] = T.float32(1.6732632423543772) * T_subtract[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_minimum"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_multiply_1[v_ax0, v_ax1])
                T.writes(T_minimum[v_ax0, v_ax1])
                T_minimum[v_ax0, v_ax1] = T.min(T.float32(0.0), T_multiply_1[v_ax0, v_ax1])
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_maximum[v_ax0, v_ax1], T_minimum[v_ax0, v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = T_maximum[v_ax0, v_ax1] + T_minimum[v_ax0, v_ax1]
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_multiply_1"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_add[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = T.float32(1.0507009873554805) * T_add[v_ax0, v_ax1]

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.selu, (a0,), out_ty=R.Tensor((2, 3), dtype="float32"))
        return gv
