# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def silu(a0: T.Buffer((T.int64(4), T.int64(33)), "float32"), T_multiply: T.Buffer((T.int64(4), T.int64(33)), "float32")):
        T.func_attr({"op_pattern": 0, "tirx.noalias": True})
        # with T.sblock("root"):
        compute = T.sblock_alloc_buffer((T.int64(4), T.int64(33)))
        for i0, i1 in T.grid(T.int64(4), T.int64(33)):
            with T.sblock("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(a0[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.sigmoid(a0[v_i0, v_i1])
        for ax0, ax1 in T.grid(T.int64(4), T.int64(33)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1], compute[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = a0[v_ax0, v_ax1] * compute[v_ax0, v_ax1]

    @R.function
    def main(a0: R.Tensor((4, 33), dtype="float32")) -> R.Tensor((4, 33), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.silu, (a0,), out_ty=R.Tensor((4, 33), dtype="float32"))
        return gv
