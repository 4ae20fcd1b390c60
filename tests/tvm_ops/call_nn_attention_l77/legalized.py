# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def attention(a0: T.Buffer((T.int64(2), T.int64(6), T.int64(4), T.int64(8)), "float32"), a1: T.Buffer((T.int64(2), T.int64(6), T.int64(4), T.int64(8)), "float32"), a2: T.Buffer((T.int64(2), T.int64(6), T.int64(4), T.int64(8)), "float32"), T_transpose: T.Buffer((T.int64(2), T.int64(6), T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_transpose_1 = T.sblock_alloc_buffer((T.int64(2), T.int64(4), T.int64(6), T.int64(8)))
        T_reshape = T.sblock_alloc_buffer((T.int64(8), T.int64(6), T.int64(8)))
        T_transpose_2 = T.sblock_alloc_buffer((T.int64(2), T.int64(4), T.int64(6), T.int64(8)))
        T_reshape_1 = T.sblock_alloc_buffer((T.int64(8), T.int64(6), T.int64(8)))
        T_batch_matmul_NT = T.sblock_alloc_buffer((T.int64(8), T.int64(6), T.int64(6)))
        T_divide = T.sblock_alloc_buffer((T.int64(8), T.int64(6), T.int64(6)))
        T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(8), T.int64(6)))
        T_softmax_exp = T.sblock_alloc_buffer((T.int64(8), T.int64(6), T.int64(6)))
        T_softmax_expsum = T.sblock_alloc_buffer((T.int64(8), T.int64(6)))
        T_softmax_norm = T.sblock_alloc_buffer((T.int64(8), T.int64(6), T.int64(6)))
        T_transpose_3 = T.sblock_alloc_buffer((T.int64(2), T.int64(4), T.int64(6), T.int64(8)))
        T_reshape_2 = T.sblock_alloc_buffer((T.int64(8), T.int64(6), T.int64(8)))
        T_batch_matmul_NN = T.sblock_alloc_buffer((T.int64(8), T.int64(6), T.int64(8)))
        T_reshape_3 = T.sblock_alloc_buffer((T.int64(2), T.int64(4), T.int64(6), T.int64(8)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(4), T.int64(6), T.int64(8)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a0[v_ax0, v_ax2, v_ax1, v_ax3])
                T.writes(T_transpose_1[v_ax0, v_ax1, v_ax2, v_ax3])
                T_transpose_1[v_ax0, v_ax1, v_ax2, v_ax3] = a0[v_ax0, v_ax2, v_ax1, v_ax3]
        for ax0, ax1, ax2 in T.grid(T.int64(8), T.int64(6), T.int64(8)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_transpose_1[((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(8) // T.int64(4), ((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(4), (v_ax2 // T.int64(8) + v_ax1) % T.int64(6), v_ax2 % T.int64(8)])
                T.writes(T_reshape[v_ax0, v_ax1, v_ax2])
                T_reshape[v_ax0, v_ax1, v_ax2] = T_transpose_1[((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(8) // T.int64(4), ((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(4), (v_ax2 // T.int64(8) + v_ax1) % T.int64(6), v_ax2 % T.int64(8)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(4), T.int64(6), T.int64(8)):
            with T.sblock("T_transpose_1"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a1[v_ax0, v_ax2, v_ax1, v_ax3])
                T.writes(T_transpose_2[v_ax0, v_ax1, v_ax2, v_ax3])
                T_transpose_2[v_ax0, v_ax1, v_ax2, v_ax3] = a1[v_ax0, v_ax2, v_ax1, v_ax3]
        for ax0, ax1, ax2 in T.grid(T.int64(8), T.int64(6), T.int64(8)):
            with T.sblock("T_reshape_1"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_transpose_2[((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(8) // T.int64(4), ((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(4), (v_ax2 // T.int64(8) + v_ax1) % T.int64(6), v_ax2 % T.int64(8)])
                T.writes(T_reshape_1[v_ax0, v_ax1, v_ax2])
                T_reshape_1[v_ax0, v_ax1, v_ax2] = T_transpose_2[((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(8) // T.int64(4), ((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(4), (v_ax2 // T.int64(8) + v_ax1) % T.int64(6), v_ax2 % T.int64(8)]
        for b, i, j, k in T.grid(T.int64(8), T.int64(6), T.int64(6), T.int64(8)):
            with T.sblock("T_batch_matmul_NT"):
                v_b, v_i, v_j, v_k = T.axis.remap("SSSR", [b, i, j, k])
                T.reads(T_reshape[v_b, v_i, v_k], T_reshape_1[v_b, v_j, v_k])
                T.writes(T_batch_matmul_NT[v_b, v_i, v_j])
                T.sblock_attr({"layout_free_placeholders": [T_reshape_1]})
                with T.init():
                    T_batch_matmul_NT[v_b, v_i, v_j] = T.float32(0.0)
                T_batch_matmul_NT[v_b, v_i, v_j] = T_batch_matmul_NT[v_b, v_i, v_j] + T_reshape[v_b, v_i, v_k] * T_reshape_1[v_b, v_j, v_k]
        for ax0, ax1, ax2 in T.grid(T.int64(8), T.int64(6), T.int64(6)):
            with T.sblock("T_divide"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_batch_matmul_NT[v_ax0, v_ax1, v_ax2])
                T.writes(T_divide[v_ax0, v_ax1, v_ax2])
                T_divide[v_ax0, v_ax1, v_ax2] = T_batch_matmul_NT[v_ax0, v_ax1, v_ax2] / T.sqrt(T.float32(8.0))
        for i0, i1, k in T.grid(T.int64(8), T.int64(6), T.int64(6)):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(T_divide[v_i0, v_i1, v_k])
                T.writes(T_softmax_maxelem[v_i0, v_i1])
                with T.init():
                    T_softmax_maxelem[v_i0, v_i1] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0, v_i1] = T.max(T_softmax_maxelem[v_i0, v_i1], T_divide[v_i0, v_i1, v_k])
        for i0, i1, i2 in T.grid(T.int64(8), T.int64(6), T.int64(6)):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_divide[v_i0, v_i1, v_i2], T_softmax_maxelem[v_i0, v_i1])
                T.writes(T_softmax_exp[v_i0, v_i1, v_i2])
                T_softmax_exp[v_i0, v_i1, v_i2] = T.exp(T_divide[v_i0, v_i1, v_i2] - T_softmax_maxelem[v_i0, v_i1])
        for i0, i1, k in T.grid(T.int64(8), T.int64(6), T.int64(6)):
            with T.sblock("T_softmax_expsum"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(T_softmax_exp[v_i0, v_i1, v_k])
                T.writes(T_softmax_expsum[v_i0, v_i1])
                with T.init():
                    T_softmax_expsum[v_i0, v_i1] = T.float32(0.0)
                T_softmax_expsum[v_i0, v_i1] = T_softmax_expsum[v_i0, v_i1] + T_softmax_exp[v_i0, v_i1, v_k]
        for i0, i1, i2 in T.grid(T.int64(8), T.int64(6), T.int64(6)):
            with T.sblock("T_softmax_norm"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_softmax_exp[v_i0, v_i1, v_i2], T_softmax_expsum[v_i0, v_i1])
                T.writes(T_softmax_norm[v_i0, v_i1, v_i2])
                T.sblock_attr({"axis": 2})
                T_softmax_norm[v_i0, v_i1, v_i2] = T_softmax_exp[v_i0, v_i1, v_i2] / T_softmax_expsum[v_i0, v_i1]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(4), T.int64(6), T.int64(8)):
            with T.sblock("T_transpose_2"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a2[v_ax0, v_ax2, v_ax1, v_ax3])
                T.writes(T_transpose_3[v_ax0, v_ax1, v_ax2, v_ax3])
                T_transpose_3[v_ax0, v_ax1, v_ax2, v_ax3] = a2[v_ax0, v_ax2, v_ax1, v_ax3]
        for ax0, ax1, ax2 in T.grid(T.int64(8), T.int64(6), T.int64(8)):
            with T.sblock("T_reshape_2"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(T_transpose_3[((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(8) // T.int64(4), ((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(4), (v_ax2 // T.int64(8) + v_ax1) % T.int64(6), v_ax2 % T.int64(8)])
                T.writes(T_reshape_2[v_ax0, v_ax1, v_ax2])
                T_reshape_2[v_ax0, v_ax1, v_ax2] = T_transpose_3[((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(8) // T.int64(4), ((v_ax2 // T.int64(8) + v_ax1) // T.int64(6) + v_ax0) % T.int64(4), (v_ax2 // T.int64(8) + v_ax1) % T.int64(6), v_ax2 % T.int64(8)]
        for b, i, j, k in T.grid(T.int64(8), T.int64(6), T.int64(8), T.int64(6)):
            with T.sblock("T_batch_matmul_NN"):
                v_b, v_i, v_j, v_k = T.axis.remap("SSSR", [b, i, j, k])
                T.reads(T_softmax_norm[v_b, v_i, v_k], T_reshape_2[v_b, v_k, v_j])
                T.writes(T_batch_matmul_NN[v_b, v_i, v_j])
                T.sblock_attr({"layout_free_placeholders": [T_reshape_2]})
                with T.init():
                    T_batch_matmul_NN[v_b, v_i, v_j] = T.float32(0.0)
                T_batch_matmul_NN[v_b, v_i, v_j] = T_batch_matmul_NN[v_b, v_i, v_j] + T_softmax_norm[v_b, v_i, v_k] * T_reshape_2[v_b, v_k, v_j]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(4), T.int64(6), T.int64(8)):
            with T.sblock("T_reshape_3"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(T_batch_matmul_NN[(v_ax0 * T.int64(4) + (v_ax3 // T.int64(8) + v_ax2) // T.int64(6) + v_ax1) % T.int64(8), (v_ax3 // T.int64(8) + v_ax2) % T.int64(6), v_ax3 % T.int64(8)])
                T.writes(T_reshape_3[v_ax0, v_ax1, v_ax2, v_ax3])
                T_reshape_3[v_ax0, v_ax1, v_ax2, v_ax3] = T_batch_matmul_NN[(v_ax0 * T.int64(4) + (v_ax3 // T.int64(8) + v_ax2) // T.int64(6) + v_ax1) % T.int64(8), (v_ax3 // T.int64(8) + v_ax2) % T.int64(6), v_ax3 % T.int64(8)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(6), T.int64(4), T.int64(8)):
            with T.sblock("T_transpose_3"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(T_reshape_3[v_ax0, v_ax2, v_ax1, v_ax3])
                T.writes(T_transpose[v_ax0, v_ax1, v_ax2, v_ax3])
                T_transpose[v_ax0, v_ax1, v_ax2, v_ax3] = T_reshape_3[v_ax0, v_ax2, v_ax1, v_ax3]

    @R.function
    def main(a0: R.Tensor((2, 6, 4, 8), dtype="float32"), a1: R.Tensor((2, 6, 4, 8), dtype="float32"), a2: R.Tensor((2, 6, 4, 8), dtype="float32")) -> R.Tensor((2, 6, 4, 8), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.attention, (a0, a1, a2), out_ty=R.Tensor((2, 6, 4, 8), dtype="float32"))
        return gv
