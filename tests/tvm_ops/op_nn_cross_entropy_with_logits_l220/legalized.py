# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def cross_entropy_with_logits(a0: T.Buffer((T.int64(2), T.int64(3)), "float32"), a1: T.Buffer((T.int64(2), T.int64(3)), "float32"), T_divide: T.Buffer((), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_multiply = T.sblock_alloc_buffer((T.int64(2), T.int64(3)))
        T_multiply_red = T.sblock_alloc_buffer(())
        T_multiply_1 = T.sblock_alloc_buffer(())
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[v_ax0, v_ax1], a1[v_ax0, v_ax1])
                T.writes(T_multiply[v_ax0, v_ax1])
                T_multiply[v_ax0, v_ax1] = a0[v_ax0, v_ax1] * a1[v_ax0, v_ax1]
        for k0, k1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_multiply_red"):
                v_k0, v_k1 = T.axis.remap("RR", [k0, k1])
                T.reads(T_multiply[v_k0, v_k1])
                T.writes(T_multiply_red[()])
                with T.init():
                    T_multiply_red[()] = T.float32(0.0)
                T_multiply_red[()] = T_multiply_red[()] + T_multiply[v_k0, v_k1]
        with T.sblock("T_multiply_1"):
            vi = T.axis.spatial(T.int64(1), T.int64(0))
            T.reads(T_multiply_red[()])
            T.writes(T_multiply_1[()])
            T_multiply_1[()] = T_multiply_red[()] * T.float32(-1.0)
        with T.sblock("T_divide"):
            vi = T.axis.spatial(T.int64(1), T.int64(0))
            T.reads(T_multiply_1[()])
            T.writes(T_divide[()])
            T_divide[()] = T_multiply_1[()] / T.float32(2.0)

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32"), a1: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.cross_entropy_with_logits, (a0, a1), out_ty=R.Tensor((), dtype="float32"))
        return gv
