# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def multibox_transform_loc(a0: T.Buffer((T.int64(1), T.int64(3), T.int64(5)), "float32"), a1: T.Buffer((T.int64(1), T.int64(20)), "float32"), a2: T.Buffer((T.int64(1), T.int64(5), T.int64(4)), "float32"), multibox_boxes: T.Buffer((T.int64(1), T.int64(5), T.int64(4)), "float32"), T_multiply: T.Buffer((T.int64(1), T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_reshape = T.sblock_alloc_buffer((T.int64(1), T.int64(5), T.int64(4)))
        T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(1), T.int64(5)))
        T_softmax_exp = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(5)))
        T_softmax_expsum = T.sblock_alloc_buffer((T.int64(1), T.int64(5)))
        T_softmax_norm = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(5)))
        T_greater_equal = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(5)), "bool")
        compute = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(5)))
        for ax0, ax1, ax2 in T.grid(T.int64(1), T.int64(5), T.int64(4)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(a1[T.int64(0), (v_ax1 * T.int64(4) + v_ax2) % T.int64(20)])
                T.writes(T_reshape[v_ax0, v_ax1, v_ax2])
                T_reshape[v_ax0, v_ax1, v_ax2] = a1[T.int64(0), (v_ax1 * T.int64(4) + v_ax2) % T.int64(20)]
        for b, a, k in T.grid(T.int64(1), T.int64(5), T.int64(4)):
            with T.sblock("multibox_boxes"):
                v_b, v_a, v_k = T.axis.remap("SSS", [b, a, k])
                T.reads(T_reshape[v_b, v_a, T.int64(0):T.int64(4)], a2[T.int64(0), v_a, T.int64(0):T.int64(4)])
                T.writes(multibox_boxes[v_b, v_a, v_k])
                multibox_boxes[v_b, v_a, v_k] = T.Select(v_k == T.int64(0), T_reshape[v_b, v_a, T.int64(1)] * (a2[T.int64(0), v_a, T.int64(3)] - a2[T.int64(0), v_a, T.int64(1)]) + (a2[T.int64(0), v_a, T.int64(1)] + a2[T.int64(0), v_a, T.int64(3)]) * T.float32(0.5) - T.float32(0.5) * T.exp(T_reshape[v_b, v_a, T.int64(3)]) * (a2[T.int64(0), v_a, T.int64(3)] - a2[T.int64(0), v_a, T.int64(1)]), T.Select(v_k == T.int64(1), T_reshape[v_b, v_a, T.int64(0)] * (a2[T.int64(0), v_a, T.int64(2)] - a2[T.int64(0), v_a, T.int64(0)]) + (a2[T.int64(0), v_a, T.int64(0)] + a2[T.int64(0), v_a, T.int64(2)]) * T.float32(0.5) - T.float32(0.5) * T.exp(T_reshape[v_b, v_a, T.int64(2)]) * (a2[T.int64(0), v_a, T.int64(2)] - a2[T.int64(0), v_a, T.int64(0)]), T.Select(v_k == T.int64(2), T_reshape[v_b, v_a, T.int64(1)] * (a2[T.int64(0), v_a, T.int64(3)] - a2[T.int64(0), v_a, T.int64(1)]) + (a2[T.int64(0), v_a, T.int64(1)] + a2[T.int64(0), v_a, T.int64(3)]) * T.float32(0.5) + T.float32(0.5) * T.exp(T_reshape[v_b, v_a, T.int64(3)]) * (a2[T.int64(0), v_a, T.int64(3)] - a2[T.int64(0), v_a, T.int64(1)]), T_reshape[v_b, v_a, T.int64(0)] * (a2[T.int64(0), v_a, T.int64(2)] - a2[T.int64(0), v_a, T.int64(0)]) + (a2[T.int64(0), v_a, T.int64(0)] + a2[T.int64(0), v_a, T.int64(2)]) * T.float32(0.5) + T.float32(0.5) * T.exp(T_reshape[v_b, v_a, T.int64(2)]) * (a2[T.int64(0), v_a, T.int64(2)] - a2[T.int64(0), v_a, T.int64(0)]))))
        for i0, i1, k in T.grid(T.int64(1), T.int64(5), T.int64(3)):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a0[v_i0, v_k, v_i1])
                T.writes(T_softmax_maxelem[v_i0, v_i1])
                with T.init():
                    T_softmax_maxelem[v_i0, v_i1] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0, v_i1] = T.max(T_softmax_maxelem[v_i0, v_i1], a0[v_i0, v_k, v_i1])
        for i0, i1, i2 in T.grid(T.int64(1), T.int64(3), T.int64(5)):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(a0[v_i0, v_i1, v_i2], T_softmax_maxelem[v_i0, v_i2])
                T.writes(T_softmax_exp[v_i0, v_i1, v_i2])
                T_softmax_exp[v_i0, v_i1, v_i2] = T.exp(a0[v_i0, v_i1, v_i2] - T_softmax_maxelem[v_i0, v_i2])
        for i0, i1, k in T.grid(T.int64(1), T.int64(5), T.int64(3)):
            with T.sblock("T_softmax_expsum"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(T_softmax_exp[v_i0, v_k, v_i1])
                T.writes(T_softmax_expsum[v_i0, v_i1])
                with T.init():
                    T_softmax_expsum[v_i0, v_i1] = T.float32(0.0)
                T_softmax_expsum[v_i0, v_i1] = T_softmax_expsum[v_i0, v_i1] + T_softmax_exp[v_i0, v_k, v_i1]
        for i0, i1, i2 in T.grid(T.int64(1), T.int64(3), T.int64(5)):
            with T.sblock("T_softmax_norm"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_softmax_exp[v_i0, v_i1, v_i2], T_softmax_expsum[v_i0, v_i2])
                T.writes(T_softmax_norm[v_i0, v_i1, v_i2])
                T.sblock_attr({"axis": 1})
                T_softmax_norm[v_i0, v_i1, v_i2] = T_softmax_exp[v_i0, v_i1, v_i2] / T_softmax_expsum[v_i0, v_i2]
        for ax0, ax1, ax2 in T.grid(T.int64(1), T.int64(3), T.int64(5)):
            with T.sblock("T_greater_equal"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_softmax_norm[v_ax0, v_ax1, v_ax2])
                T.writes(T_greater_equal[v_ax0, v_ax1, v_ax2])
                T_greater_equal[v_ax0, v_ax1, v_ax2] = T.float32(0.0) <= T_softmax_norm[v_ax0, v_ax1, v_ax2]
        for i0, i1, i2 in T.grid(T.int64(1), T.int64(3), T.int64(5)):
            with T.sblock("compute"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_greater_equal[v_i0, v_i1, v_i2])
                T.writes(compute[v_i0, v_i1, v_i2])
                compute[v_i0, v_i1, v_i2] = T.Cast("float32", T_greater_equal[v_i0, v_i1, v_i2])
        for ax0, ax1, ax2 in T.grid(T.int64(1), T.int64(3), T.int64(5)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_softmax_norm[v_ax0, v_ax1, v_ax2], compute[v_ax0, v_ax1, v_ax2])
                T.writes(T_multiply[v_ax0, v_ax1, v_ax2])
                T_multiply[v_ax0, v_ax1, v_ax2] = T_softmax_norm[v_ax0, v_ax1, v_ax2] * compute[v_ax0, v_ax1, v_ax2]

    @R.function
    def main(a0: R.Tensor((1, 3, 5), dtype="float32"), a1: R.Tensor((1, 20), dtype="float32"), a2: R.Tensor((1, 5, 4), dtype="float32")) -> R.Tuple(R.Tensor((1, 5, 4), dtype="float32"), R.Tensor((1, 3, 5), dtype="float32")):
        cls = Module
        gv = R.call_tir(cls.multibox_transform_loc, (a0, a1, a2), out_ty=[R.Tensor((1, 5, 4), dtype="float32"), R.Tensor((1, 3, 5), dtype="float32")])
        return gv
