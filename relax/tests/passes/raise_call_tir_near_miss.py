# passes: RaiseCallTIR
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def conv2d_kernel_flipped(x: T.Buffer((T.int64(1), T.int64(3), T.int64(6), T.int64(6)), "float32"), w: T.Buffer((T.int64(4), T.int64(3), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(1), T.int64(4), T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(6), T.int64(6)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(3), T.int64(6), T.int64(6)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, v_i2, v_i3])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = x[v_i0, v_i1, v_i2, v_i3]
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(4), T.int64(4), T.int64(4), T.int64(3), T.int64(3), T.int64(3)):
            with T.sblock("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], w[v_ff, v_rc, v_rx, v_ry])
                T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * w[v_ff, v_rc, v_rx, v_ry]

    @T.prim_func(private=True, s_tir=True)
    def conv2d_pad_one(x: T.Buffer((T.int64(1), T.int64(3), T.int64(7), T.int64(7)), "float32"), w: T.Buffer((T.int64(4), T.int64(3), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(1), T.int64(4), T.int64(7), T.int64(7)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(9), T.int64(9)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(3), T.int64(9), T.int64(9)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(8) and T.int64(1) <= v_i3 and v_i3 < T.int64(8), x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)], T.float32(1.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(4), T.int64(7), T.int64(7), T.int64(3), T.int64(3), T.int64(3)):
            with T.sblock("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], w[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * w[v_ff, v_rc, v_ry, v_rx]

    @T.prim_func(private=True, s_tir=True)
    def conv2d_pad_test_wide(x: T.Buffer((T.int64(1), T.int64(3), T.int64(7), T.int64(7)), "float32"), w: T.Buffer((T.int64(4), T.int64(3), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(1), T.int64(4), T.int64(7), T.int64(7)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(9), T.int64(9)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(3), T.int64(9), T.int64(9)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(8) and v_i3 < T.int64(8), x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)], T.float32(0.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(4), T.int64(7), T.int64(7), T.int64(3), T.int64(3), T.int64(3)):
            with T.sblock("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], w[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * w[v_ff, v_rc, v_ry, v_rx]

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul_add(a: T.Buffer((T.int64(3), T.int64(4)), "float32"), b: T.Buffer((T.int64(4), T.int64(5)), "float32"), c: T.Buffer((T.int64(5),), "float32"), T_add_intermediate: T.Buffer((T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        matmul_intermediate = T.sblock_alloc_buffer((T.int64(3), T.int64(5)))
        for i0, i1, k in T.grid(T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_i0, v_k], b[v_k, v_i1])
                T.writes(matmul_intermediate[v_i0, v_i1])
                with T.init():
                    matmul_intermediate[v_i0, v_i1] = T.float32(0.0)
                matmul_intermediate[v_i0, v_i1] = matmul_intermediate[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1]
        for ax0, ax1 in T.grid(T.int64(3), T.int64(5)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(matmul_intermediate[v_ax0, v_ax1], c[v_ax1])
                T.writes(T_add_intermediate[v_ax0, v_ax1])
                T_add_intermediate[v_ax0, v_ax1] = matmul_intermediate[v_ax0, v_ax1] + c[v_ax1]

    @T.prim_func(private=True, s_tir=True)
    def matmul_cast(a: T.Buffer((T.int64(3), T.int64(4)), "float16"), b: T.Buffer((T.int64(4), T.int64(5)), "float16"), matmul: T.Buffer((T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_i0, v_k], b[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + T.Cast("float32", a[v_i0, v_k]) * T.Cast("float32", b[v_k, v_i1])

    @T.prim_func(private=True, s_tir=True)
    def matmul_init_one(a: T.Buffer((T.int64(3), T.int64(4)), "float32"), b: T.Buffer((T.int64(4), T.int64(5)), "float32"), matmul: T.Buffer((T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_i0, v_k], b[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(1.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def matmul_int32(a: T.Buffer((T.int64(3), T.int64(4)), "int32"), b: T.Buffer((T.int64(4), T.int64(5)), "int32"), matmul: T.Buffer((T.int64(3), T.int64(5)), "int32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_i0, v_k], b[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = 0
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def matmul_scaled(a: T.Buffer((T.int64(3), T.int64(4)), "float32"), b: T.Buffer((T.int64(4), T.int64(5)), "float32"), matmul: T.Buffer((T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_i0, v_k], b[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1] * T.float32(2.0)

    @T.prim_func(private=True, s_tir=True)
    def matmul_static(a: T.Buffer((T.int64(3), T.int64(4)), "float32"), b: T.Buffer((T.int64(4), T.int64(5)), "float32"), matmul: T.Buffer((T.int64(3), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(3), T.int64(5), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_i0, v_k], b[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a[v_i0, v_k] * b[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def matmul_transposed_a(a: T.Buffer((T.int64(4), T.int64(4)), "float32"), b: T.Buffer((T.int64(4), T.int64(4)), "float32"), matmul: T.Buffer((T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(4), T.int64(4), T.int64(4)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a[v_k, v_i0], b[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a[v_k, v_i0] * b[v_k, v_i1]

    @R.function
    def main(a: R.Tensor((3, 4), dtype="float32"), b: R.Tensor((4, 5), dtype="float32"), c: R.Tensor((5,), dtype="float32"), a16: R.Tensor((3, 4), dtype="float16"), b16: R.Tensor((4, 5), dtype="float16"), ai: R.Tensor((3, 4), dtype="int32"), bi: R.Tensor((4, 5), dtype="int32"), sq: R.Tensor((4, 4), dtype="float32"), an: R.Tensor((n, 4), dtype="float32"), x: R.Tensor((1, 3, 6, 6), dtype="float32"), x7: R.Tensor((1, 3, 7, 7), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32")) -> R.Tuple(R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 5), dtype="int32"), R.Tensor((3, 5), dtype="float32"), R.Tensor((4, 4), dtype="float32"), R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 5), dtype="float32"), R.Tensor((1, 4, 4, 4), dtype="float32"), R.Tensor((1, 4, 7, 7), dtype="float32"), R.Tensor((1, 4, 7, 7), dtype="float32")):
        cls = Module
        with R.dataflow():
            init_one = R.call_tir(cls.matmul_init_one, (a, b), out_ty=R.Tensor((3, 5), dtype="float32"))
            scaled = R.call_tir(cls.matmul_scaled, (a, b), out_ty=R.Tensor((3, 5), dtype="float32"))
            integer = R.call_tir(cls.matmul_int32, (ai, bi), out_ty=R.Tensor((3, 5), dtype="int32"))
            cast = R.call_tir(cls.matmul_cast, (a16, b16), out_ty=R.Tensor((3, 5), dtype="float32"))
            transposed = R.call_tir(cls.matmul_transposed_a, (sq, sq), out_ty=R.Tensor((4, 4), dtype="float32"))
            fused = R.call_tir(cls.fused_matmul_add, (a, b, c), out_ty=R.Tensor((3, 5), dtype="float32"))
            symbolic_arg = R.call_tir(cls.matmul_static, (an, b), out_ty=R.Tensor((3, 5), dtype="float32"))
            flipped = R.call_tir(cls.conv2d_kernel_flipped, (x, w), out_ty=R.Tensor((1, 4, 4, 4), dtype="float32"))
            pad_one = R.call_tir(cls.conv2d_pad_one, (x7, w), out_ty=R.Tensor((1, 4, 7, 7), dtype="float32"))
            pad_wide = R.call_tir(cls.conv2d_pad_test_wide, (x7, w), out_ty=R.Tensor((1, 4, 7, 7), dtype="float32"))
            gv = (init_one, scaled, integer, cast, transposed, fused, symbolic_arg, flipped, pad_one, pad_wide)
            R.output(gv)
        return gv
