# passes: RaiseCallTIR, DeadCodeElimination
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def conv2d(x: T.Buffer((T.int64(1), T.int64(3), T.int64(6), T.int64(6)), "float32"), w: T.Buffer((T.int64(4), T.int64(3), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(1), T.int64(4), T.int64(4), T.int64(4)), "float32")):
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
                T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], w[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * w[v_ff, v_rc, v_ry, v_rx]

    @T.prim_func(private=True, s_tir=True)
    def conv2d1(x: T.Buffer((T.int64(1), T.int64(3), T.int64(7), T.int64(7)), "float32"), w: T.Buffer((T.int64(4), T.int64(3), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(1), T.int64(4), T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(9), T.int64(9)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(3), T.int64(9), T.int64(9)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(8) and T.int64(1) <= v_i3 and v_i3 < T.int64(8), x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)], T.float32(0.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(4), T.int64(4), T.int64(4), T.int64(3), T.int64(3), T.int64(3)):
            with T.sblock("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_rc, v_yy * T.int64(2) + v_ry, v_xx * T.int64(2) + v_rx], w[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy * T.int64(2) + v_ry, v_xx * T.int64(2) + v_rx] * w[v_ff, v_rc, v_ry, v_rx]

    @T.prim_func(private=True, s_tir=True)
    def conv2d2(x: T.Buffer((T.int64(1), T.int64(2), T.int64(6), T.int64(6)), "float32"), w: T.Buffer((T.int64(3), T.int64(2), T.int64(3), T.int64(2)), "float32"), conv2d_nchw: T.Buffer((T.int64(1), T.int64(3), T.int64(3), T.int64(6)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(7), T.int64(8)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(2), T.int64(7), T.int64(8)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, v_i2, v_i3 - T.int64(2)])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(0) <= v_i2 and v_i2 < T.int64(6) and T.int64(2) <= v_i3 and v_i3 < T.int64(8), x[v_i0, v_i1, v_i2, v_i3 - T.int64(2)], T.float32(0.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(3), T.int64(3), T.int64(6), T.int64(2), T.int64(3), T.int64(2)):
            with T.sblock("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry * T.int64(2), v_xx + v_rx * T.int64(2)], w[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy + v_ry * T.int64(2), v_xx + v_rx * T.int64(2)] * w[v_ff, v_rc, v_ry, v_rx]

    @T.prim_func(private=True, s_tir=True)
    def conv2d3(x: T.Buffer((T.int64(1), T.int64(4), T.int64(5), T.int64(5)), "float32"), w: T.Buffer((T.int64(6), T.int64(2), T.int64(3), T.int64(3)), "float32"), group_conv2d_nchw: T.Buffer((T.int64(1), T.int64(6), T.int64(5), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(4), T.int64(7), T.int64(7)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(4), T.int64(7), T.int64(7)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(6) and T.int64(1) <= v_i3 and v_i3 < T.int64(6), x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)], T.float32(0.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(6), T.int64(5), T.int64(5), T.int64(2), T.int64(3), T.int64(3)):
            with T.sblock("group_conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_ff // T.int64(3) * T.int64(2) + v_rc, v_yy + v_ry, v_xx + v_rx], w[v_ff, v_rc, v_ry, v_rx])
                T.writes(group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_ff // T.int64(3) * T.int64(2) + v_rc, v_yy + v_ry, v_xx + v_rx] * w[v_ff, v_rc, v_ry, v_rx]

    @T.prim_func(private=True, s_tir=True)
    def conv2d4(x: T.Buffer((T.int64(1), T.int64(3), T.int64(6), T.int64(6)), "float32"), w: T.Buffer((T.int64(3), T.int64(1), T.int64(3), T.int64(3)), "float32"), group_conv2d_nchw: T.Buffer((T.int64(1), T.int64(3), T.int64(6), T.int64(6)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(3), T.int64(8), T.int64(8)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(3), T.int64(8), T.int64(8)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(7) and T.int64(1) <= v_i3 and v_i3 < T.int64(7), x[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)], T.float32(0.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(3), T.int64(6), T.int64(6), T.int64(1), T.int64(3), T.int64(3)):
            with T.sblock("group_conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_ff + v_rc, v_yy + v_ry, v_xx + v_rx], w[v_ff, v_rc, v_ry, v_rx])
                T.writes(group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_ff + v_rc, v_yy + v_ry, v_xx + v_rx] * w[v_ff, v_rc, v_ry, v_rx]

    @T.prim_func(private=True, s_tir=True)
    def conv2d5(x: T.Buffer((T.int64(1), T.int64(2), T.int64(5), T.int64(5)), "float32"), w: T.Buffer((T.int64(4), T.int64(1), T.int64(3), T.int64(3)), "float32"), group_conv2d_nchw: T.Buffer((T.int64(1), T.int64(4), T.int64(3), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(5), T.int64(5)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(2), T.int64(5), T.int64(5)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, v_i2, v_i3])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = x[v_i0, v_i1, v_i2, v_i3]
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(4), T.int64(3), T.int64(3), T.int64(1), T.int64(3), T.int64(3)):
            with T.sblock("group_conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_ff // T.int64(2) + v_rc, v_yy + v_ry, v_xx + v_rx], w[v_ff, v_rc, v_ry, v_rx])
                T.writes(group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = group_conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_ff // T.int64(2) + v_rc, v_yy + v_ry, v_xx + v_rx] * w[v_ff, v_rc, v_ry, v_rx]

    @R.function
    def main(x: R.Tensor((1, 3, 6, 6), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32"), x7: R.Tensor((1, 3, 7, 7), dtype="float32"), x2: R.Tensor((1, 2, 6, 6), dtype="float32"), w2: R.Tensor((3, 2, 3, 2), dtype="float32"), x4: R.Tensor((1, 4, 5, 5), dtype="float32"), wg: R.Tensor((6, 2, 3, 3), dtype="float32"), wd: R.Tensor((3, 1, 3, 3), dtype="float32"), x5: R.Tensor((1, 2, 5, 5), dtype="float32"), wm: R.Tensor((4, 1, 3, 3), dtype="float32")) -> R.Tuple(R.Tensor((1, 4, 4, 4), dtype="float32"), R.Tensor((1, 4, 4, 4), dtype="float32"), R.Tensor((1, 3, 3, 6), dtype="float32"), R.Tensor((1, 6, 5, 5), dtype="float32"), R.Tensor((1, 3, 6, 6), dtype="float32"), R.Tensor((1, 4, 3, 3), dtype="float32")):
        cls = Module
        with R.dataflow():
            plain = R.call_tir(cls.conv2d, (x, w), out_ty=R.Tensor((1, 4, 4, 4), dtype="float32"))
            strided = R.call_tir(cls.conv2d1, (x7, w), out_ty=R.Tensor((1, 4, 4, 4), dtype="float32"))
            dilated = R.call_tir(cls.conv2d2, (x2, w2), out_ty=R.Tensor((1, 3, 3, 6), dtype="float32"))
            grouped = R.call_tir(cls.conv2d3, (x4, wg), out_ty=R.Tensor((1, 6, 5, 5), dtype="float32"))
            depthwise = R.call_tir(cls.conv2d4, (x, wd), out_ty=R.Tensor((1, 3, 6, 6), dtype="float32"))
            multiplier = R.call_tir(cls.conv2d5, (x5, wm), out_ty=R.Tensor((1, 4, 3, 3), dtype="float32"))
            gv = (plain, strided, dilated, grouped, depthwise, multiplier)
            R.output(gv)
        return gv
