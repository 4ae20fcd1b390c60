# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def conv3d(a0: T.Buffer((T.int64(1), T.int64(4), T.int64(6), T.int64(7), T.int64(8)), "float32"), a1: T.Buffer((T.int64(8), T.int64(4), T.int64(3), T.int64(3), T.int64(3)), "float32"), conv3d_ncdhw: T.Buffer((T.int64(1), T.int64(8), T.int64(6), T.int64(7), T.int64(8)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(9), T.int64(10)))
        for i0, i1, i2, i3, i4 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(9), T.int64(10)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2, v_i3, v_i4 = T.axis.remap("SSSSS", [i0, i1, i2, i3, i4])
                T.reads(a0[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1), v_i4 - T.int64(1)])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3, v_i4])
                pad_temp[v_i0, v_i1, v_i2, v_i3, v_i4] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(7) and T.int64(1) <= v_i3 and v_i3 < T.int64(8) and T.int64(1) <= v_i4 and v_i4 < T.int64(9), a0[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1), v_i4 - T.int64(1)], T.float32(0.0))
        for nn, ff, yy, xx, zz, rc, ry, rx, rz in T.grid(T.int64(1), T.int64(8), T.int64(6), T.int64(7), T.int64(8), T.int64(4), T.int64(3), T.int64(3), T.int64(3)):
            with T.sblock("conv3d_ncdhw"):
                v_nn, v_ff, v_yy, v_xx, v_zz, v_rc, v_ry, v_rx, v_rz = T.axis.remap("SSSSSRRRR", [nn, ff, yy, xx, zz, rc, ry, rx, rz])
                T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx, v_zz + v_rz], a1[v_ff, v_rc, v_ry, v_rx, v_rz])
                T.writes(conv3d_ncdhw[v_nn, v_ff, v_yy, v_xx, v_zz])
                with T.init():
                    conv3d_ncdhw[v_nn, v_ff, v_yy, v_xx, v_zz] = T.float32(0.0)
                conv3d_ncdhw[v_nn, v_ff, v_yy, v_xx, v_zz] = conv3d_ncdhw[v_nn, v_ff, v_yy, v_xx, v_zz] + pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx, v_zz + v_rz] * a1[v_ff, v_rc, v_ry, v_rx, v_rz]

    @R.function
    def main(a0: R.Tensor((1, 4, 6, 7, 8), dtype="float32"), a1: R.Tensor((8, 4, 3, 3, 3), dtype="float32")) -> R.Tensor((1, 8, 6, 7, 8), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.conv3d, (a0, a1), out_ty=R.Tensor((1, 8, 6, 7, 8), dtype="float32"))
        return gv
