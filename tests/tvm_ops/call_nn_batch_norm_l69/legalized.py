# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def batch_norm(a0: T.Buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(5)), "float32"), a1: T.Buffer((T.int64(8),), "float32"), a2: T.Buffer((T.int64(8),), "float32"), a3: T.Buffer((T.int64(8),), "float32"), a4: T.Buffer((T.int64(8),), "float32"), T_add: T.Buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(5)), "float32"), T_add_1: T.Buffer((T.int64(8),), "float32"), T_add_2: T.Buffer((T.int64(8),), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        a0_red = T.sblock_alloc_buffer((T.int64(8),))
        T_divide = T.sblock_alloc_buffer((T.int64(8),))
        T_reshape = T.sblock_alloc_buffer((T.int64(1), T.int64(8), T.int64(1), T.int64(1)))
        T_subtract = T.sblock_alloc_buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(5)))
        T_subtract_1 = T.sblock_alloc_buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(5)))
        T_subtract_2 = T.sblock_alloc_buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(5)))
        T_multiply = T.sblock_alloc_buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(5)))
        T_multiply_red = T.sblock_alloc_buffer((T.int64(8),))
        T_divide_1 = T.sblock_alloc_buffer((T.int64(8),))
        T_reshape_1 = T.sblock_alloc_buffer((T.int64(1), T.int64(8), T.int64(1), T.int64(1)))
        T_add_3 = T.sblock_alloc_buffer((T.int64(1), T.int64(8), T.int64(1), T.int64(1)))
        compute = T.sblock_alloc_buffer((T.int64(1), T.int64(8), T.int64(1), T.int64(1)))
        T_divide_2 = T.sblock_alloc_buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(5)))
        T_reshape_2 = T.sblock_alloc_buffer((T.int64(1), T.int64(8), T.int64(1), T.int64(1)))
        T_multiply_1 = T.sblock_alloc_buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(5)))
        T_reshape_3 = T.sblock_alloc_buffer((T.int64(1), T.int64(8), T.int64(1), T.int64(1)))
        T_multiply_2 = T.sblock_alloc_buffer((T.int64(8),))
        T_multiply_3 = T.sblock_alloc_buffer((T.int64(8),))
        T_multiply_4 = T.sblock_alloc_buffer((T.int64(8),))
        T_multiply_5 = T.sblock_alloc_buffer((T.int64(8),))
        for ax0, k0, k2, k3 in T.grid(T.int64(8), T.int64(2), T.int64(5), T.int64(5)):
            with T.sblock("a0_red"):
                v_ax0, v_k0, v_k2, v_k3 = T.axis.remap("SRRR", [ax0, k0, k2, k3])
                T.reads(a0[v_k0, v_ax0, v_k2, v_k3])
                T.writes(a0_red[v_ax0])
                with T.init():
                    a0_red[v_ax0] = T.float32(0.0)
                a0_red[v_ax0] = a0_red[v_ax0] + a0[v_k0, v_ax0, v_k2, v_k3]
        for ax0 in range(T.int64(8)):
            with T.sblock("T_divide"):
                v_ax0 = T.axis.spatial(T.int64(8), ax0)
                T.reads(a0_red[v_ax0])
                T.writes(T_divide[v_ax0])
                T_divide[v_ax0] = a0_red[v_ax0] / T.float32(50.0)
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(8), T.int64(1), T.int64(1)):
            with T.sblock("T_reshape"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(T_divide[(v_ax1 + v_ax2 + v_ax3) % T.int64(8)])
                T.writes(T_reshape[v_ax0, v_ax1, v_ax2, v_ax3])
                T_reshape[v_ax0, v_ax1, v_ax2, v_ax3] = T_divide[(v_ax1 + v_ax2 + v_ax3) % T.int64(8)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(5), T.int64(5)):
            with T.sblock("T_subtract"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a0[v_ax0, v_ax1, v_ax2, v_ax3], T_reshape[T.int64(0), v_ax1, T.int64(0), T.int64(0)])
                T.writes(T_subtract[v_ax0, v_ax1, v_ax2, v_ax3])
                T_subtract[v_ax0, v_ax1, v_ax2, v_ax3] = a0[v_ax0, v_ax1, v_ax2, v_ax3] - T_reshape[T.int64(0), v_ax1, T.int64(0), T.int64(0)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(5), T.int64(5)):
            with T.sblock("T_subtract_1"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a0[v_ax0, v_ax1, v_ax2, v_ax3], T_reshape[T.int64(0), v_ax1, T.int64(0), T.int64(0)])
                T.writes(T_subtract_1[v_ax0, v_ax1, v_ax2, v_ax3])
                T_subtract_1[v_ax0, v_ax1, v_ax2, v_ax3] = a0[v_ax0, v_ax1, v_ax2, v_ax3] - T_reshape[T.int64(0), v_ax1, T.int64(0), T.int64(0)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(5), T.int64(5)):
            with T.sblock("T_subtract_2"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a0[v_ax0, v_ax1, v_ax2, v_ax3], T_reshape[T.int64(0), v_ax1, T.int64(0), T.int64(0)])
                T.writes(T_subtract_2[v_ax0, v_ax1, v_ax2, v_ax3])
                T_subtract_2[v_ax0, v_ax1, v_ax2, v_ax3] = a0[v_ax0, v_ax1, v_ax2, v_ax3] - T_reshape[T.int64(0), v_ax1, T.int64(0), T.int64(0)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(5), T.int64(5)):
            with T.sblock("T_multiply"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(T_subtract_1[v_ax0, v_ax1, v_ax2, v_ax3], T_subtract_2[v_ax0, v_ax1, v_ax2, v_ax3])
                T.writes(T_multiply[v_ax0, v_ax1, v_ax2, v_ax3])
                T_multiply[v_ax0, v_ax1, v_ax2, v_ax3] = T_subtract_1[v_ax0, v_ax1, v_ax2, v_ax3] * T_subtract_2[v_ax0, v_ax1, v_ax2, v_ax3]
        for ax0, k0, k2, k3 in T.grid(T.int64(8), T.int64(2), T.int64(5), T.int64(5)):
            with T.sblock("T_multiply_red"):
                v_ax0, v_k0, v_k2, v_k3 = T.axis.remap("SRRR", [ax0, k0, k2, k3])
                T.reads(T_multiply[v_k0, v_ax0, v_k2, v_k3])
                T.writes(T_multiply_red[v_ax0])
                with T.init():
                    T_multiply_red[v_ax0] = T.float32(0.0)
                T_multiply_red[v_ax0] = T_multiply_red[v_ax0] + T_multiply[v_k0, v_ax0, v_k2, v_k3]
        for ax0 in range(T.int64(8)):
            with T.sblock("T_divide_1"):
                v_ax0 = T.axis.spatial(T.int64(8), ax0)
                T.reads(T_multiply_red[v_ax0])
                T.writes(T_divide_1[v_ax0])
                T_divide_1[v_ax0] = T_multiply_red[v_ax0] / T.float32(50.0)
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(8), T.int64(1), T.int64(1)):
            with T.sblock("T_reshape_1"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(T_divide_1[(v_ax1 + v_ax2 + v_ax3) % T.int64(8)])
                T.writes(T_reshape_1[v_ax0, v_ax1, v_ax2, v_ax3])
                T_reshape_1[v_ax0, v_ax1, v_ax2, v_ax3] = T_divide_1[(v_ax1 + v_ax2 + v_ax3) % T.int64(8)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(8), T.int64(1), T.int64(1)):
            with T.sblock("T_add"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(T_reshape_1[v_ax0, v_ax1, v_ax2, v_ax3])
                T.writes(T_add_3[v_ax0, v_ax1, v_ax2, v_ax3])
                T_add_3[v_ax0, v_ax1, v_ax2, v_ax3] = T_reshape_1[v_ax0, v_ax1, v_ax2, v_ax3] + T.float32(1.0000000000000001e-05)
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(8), T.int64(1), T.int64(1)):
            with T.sblock("compute"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(T_add_3[v_i0, v_i1, v_i2, v_i3])
                T.writes(compute[v_i0, v_i1, v_i2, v_i3])
                compute[v_i0, v_i1, v_i2, v_i3] = T.sqrt(T_add_3[v_i0, v_i1, v_i2, v_i3])
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(5), T.int64(5)):
            with T.sblock("T_divide_2"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(T_subtract[v_ax0, v_ax1, v_ax2, v_ax3], compute[T.int64(0), v_ax1, T.int64(0), T.int64(0)])
                T.writes(T_divide_2[v_ax0, v_ax1, v_ax2, v_ax3])
                T_divide_2[v_ax0, v_ax1, v_ax2, v_ax3] = T_subtract[v_ax0, v_ax1, v_ax2, v_ax3] / compute[T.int64(0), v_ax1, T.int64(0), T.int64(0)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(8), T.int64(1), T.int64(1)):
            with T.sblock("T_reshape_2"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a1[(v_ax1 + v_ax2 + v_ax3) % T.int64(8)])
                T.writes(T_reshape_2[v_ax0, v_ax1, v_ax2, v_ax3])
                T_reshape_2[v_ax0, v_ax1, v_ax2, v_ax3] = a1[(v_ax1 + v_ax2 + v_ax3) % T.int64(8)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(5), T.int64(5)):
            with T.sblock("T_multiply_1"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(T_divide_2[v_ax0, v_ax1, v_ax2, v_ax3], T_reshape_2[T.int64(0), v_ax1, T.int64(0), T.int64(0)])
                T.writes(T_multiply_1[v_ax0, v_ax1, v_ax2, v_ax3])
                T_multiply_1[v_ax0, v_ax1, v_ax2, v_ax3] = T_divide_2[v_ax0, v_ax1, v_ax2, v_ax3] * T_reshape_2[T.int64(0), v_ax1, T.int64(0), T.int64(0)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(8), T.int64(1), T.int64(1)):
            with T.sblock("T_reshape_3"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(a2[(v_ax1 + v_ax2 + v_ax3) % T.int64(8)])
                T.writes(T_reshape_3[v_ax0, v_ax1, v_ax2, v_ax3])
                T_reshape_3[v_ax0, v_ax1, v_ax2, v_ax3] = a2[(v_ax1 + v_ax2 + v_ax3) % T.int64(8)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(5), T.int64(5)):
            with T.sblock("T_add_1"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(T_multiply_1[v_ax0, v_ax1, v_ax2, v_ax3], T_reshape_3[T.int64(0), v_ax1, T.int64(0), T.int64(0)])
                T.writes(T_add[v_ax0, v_ax1, v_ax2, v_ax3])
                T_add[v_ax0, v_ax1, v_ax2, v_ax3] = T_multiply_1[v_ax0, v_ax1, v_ax2, v_ax3] + T_reshape_3[T.int64(0), v_ax1, T.int64(0), T.int64(0)]
        for ax0 in range(T.int64(8)):
            with T.sblock("T_multiply_2"):
                v_ax0 = T.axis.spatial(T.int64(8), ax0)
                T.reads(a3[v_ax0])
                T.writes(T_multiply_2[v_ax0])
                T_multiply_2[v_ax0] = T.float32(0.90000000000000002) * a3[v_ax0]
        for ax0 in range(T.int64(8)):
            with T.sblock("T_multiply_3"):
                v_ax0 = T.axis.spatial(T.int64(8), ax0)
                T.reads(T_divide[v_ax0])
                T.writes(T_multiply_3[v_ax0])
                T_multiply_3[v_ax0] = T.float32(0.10000000000000001) * T_divide[v_ax0]
        for ax0 in range(T.int64(8)):
            with T.sblock("T_add_2"):
                v_ax0 = T.axis.spatial(T.int64(8), ax0)
                T.reads(T_multiply_2[v_ax0], T_multiply_3[v_ax0])
                T.writes(T_add_1[v_ax0])
                T_add_1[v_ax0] = T_multiply_2[v_ax0] + T_multiply_3[v_ax0]
        for ax0 in range(T.int64(8)):
            with T.sblock("T_multiply_4"):
                v_ax0 = T.axis.spatial(T.int64(8), ax0)
                T.reads(a4[v_ax0])
                T.writes(T_multiply_4[v_ax0])
                T_multiply_4[v_ax0] = T.float32(0.90000000000000002) * a4[v_ax0]
        for ax0 in range(T.int64(8)):
            with T.sblock("T_multiply_5"):
                v_ax0 = T.axis.spatial(T.int64(8), ax0)
                T.reads(T_divide_1[v_ax0])
                T.writes(T_multiply_5[v_ax0])
                T_multiply_5[v_ax0] = T.float32(0.10000000000000001) * T_divide_1[v_ax0]
        for ax0 in range(T.int64(8)):
            with T.sblock("T_add_3"):
                v_ax0 = T.axis.spatial(T.int64(8), ax0)
                T.reads(T_multiply_4[v_ax0], T_multiply_5[v_ax0])
                T.writes(T_add_2[v_ax0])
                T_add_2[v_ax0] = T_multiply_4[v_ax0] + T_multiply_5[v_ax0]

    @R.function
    def main(a0: R.Tensor((2, 8, 5, 5), dtype="float32"), a1: R.Tensor((8,), dtype="float32"), a2: R.Tensor((8,), dtype="float32"), a3: R.Tensor((8,), dtype="float32"), a4: R.Tensor((8,), dtype="float32")) -> R.Tuple(R.Tensor((2, 8, 5, 5), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")):
        cls = Module
        gv = R.call_tir(cls.batch_norm, (a0, a1, a2, a3, a4), out_ty=[R.Tensor((2, 8, 5, 5), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")])
        return gv
