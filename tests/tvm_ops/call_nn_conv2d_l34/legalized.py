# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def conv2d(a0: T.Buffer((T.int64(1), T.int64(10), T.int64(10), T.int64(8)), "float32"), a1: T.Buffer((T.int64(3), T.int64(3), T.int64(8), T.int64(12)), "float32"), conv2d_nhwc: T.Buffer((T.int64(1), T.int64(10), T.int64(10), T.int64(12)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(12), T.int64(12), T.int64(8)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(12), T.int64(12), T.int64(8)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(a0[v_i0, v_i1 - T.int64(1), v_i2 - T.int64(1), v_i3])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i1 and v_i1 < T.int64(11) and T.int64(1) <= v_i2 and v_i2 < T.int64(11), a0[v_i0, v_i1 - T.int64(1), v_i2 - T.int64(1), v_i3], T.float32(0.0))
        for nn, yy, xx, ff, ry, rx, rc in T.grid(T.int64(1), T.int64(10), T.int64(10), T.int64(12), T.int64(3), T.int64(3), T.int64(8)):
            with T.sblock("conv2d_nhwc"):
                v_nn, v_yy, v_xx, v_ff, v_ry, v_rx, v_rc = T.axis.remap("SSSSRRR", [nn, yy, xx, ff, ry, rx, rc])
                T.reads(pad_temp[v_nn, v_yy + v_ry, v_xx + v_rx, v_rc], a1[v_ry, v_rx, v_rc, v_ff])
                T.writes(conv2d_nhwc[v_nn, v_yy, v_xx, v_ff])
                with T.init():
                    conv2d_nhwc[v_nn, v_yy, v_xx, v_ff] = T.float32(0.0)
                conv2d_nhwc[v_nn, v_yy, v_xx, v_ff] = conv2d_nhwc[v_nn, v_yy, v_xx, v_ff] + pad_temp[v_nn, v_yy + v_ry, v_xx + v_rx, v_rc] * a1[v_ry, v_rx, v_rc, v_ff]

    @R.function
    def main(a0: R.Tensor((1, 10, 10, 8), dtype="float32"), a1: R.Tensor((3, 3, 8, 12), dtype="float32")) -> R.Tensor((1, 10, 10, 12), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.conv2d, (a0, a1), out_ty=R.Tensor((1, 10, 10, 12), dtype="float32"))
        return gv
