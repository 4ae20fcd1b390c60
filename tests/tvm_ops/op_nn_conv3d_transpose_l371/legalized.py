# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def conv3d_transpose(a0: T.Buffer((T.int64(1), T.int64(2), T.int64(3), T.int64(3), T.int64(3)), "float32"), a1: T.Buffer((T.int64(2), T.int64(4), T.int64(3), T.int64(3), T.int64(3)), "float32"), compute: T.Buffer((T.int64(1), T.int64(4), T.int64(6), T.int64(6), T.int64(6)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        data_dilate = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(5), T.int64(5), T.int64(5)))
        data_pad = T.sblock_alloc_buffer((T.int64(1), T.int64(2), T.int64(8), T.int64(8), T.int64(8)))
        kernel_transform = T.sblock_alloc_buffer((T.int64(4), T.int64(2), T.int64(3), T.int64(3), T.int64(3)))
        for i0, i1, i2, i3, i4 in T.grid(T.int64(1), T.int64(2), T.int64(5), T.int64(5), T.int64(5)):
            with T.sblock("data_dilate"):
                v_i0, v_i1, v_i2, v_i3, v_i4 = T.axis.remap("SSSSS", [i0, i1, i2, i3, i4])
                T.reads(a0[v_i0, v_i1, v_i2 // T.int64(2), v_i3 // T.int64(2), v_i4 // T.int64(2)])
                T.writes(data_dilate[v_i0, v_i1, v_i2, v_i3, v_i4])
                data_dilate[v_i0, v_i1, v_i2, v_i3, v_i4] = T.if_then_else(v_i2 % T.int64(2) == T.int64(0) and v_i3 % T.int64(2) == T.int64(0) and v_i4 % T.int64(2) == T.int64(0), a0[v_i0, v_i1, v_i2 // T.int64(2), v_i3 // T.int64(2), v_i4 // T.int64(2)], T.float32(0.0))
        for i0, i1, i2, i3, i4 in T.grid(T.int64(1), T.int64(2), T.int64(8), T.int64(8), T.int64(8)):
            with T.sblock("data_pad"):
                v_i0, v_i1, v_i2, v_i3, v_i4 = T.axis.remap("SSSSS", [i0, i1, i2, i3, i4])
                T.reads(data_dilate[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1), v_i4 - T.int64(1)])
                T.writes(data_pad[v_i0, v_i1, v_i2, v_i3, v_i4])
                data_pad[v_i0, v_i1, v_i2, v_i3, v_i4] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(6) and T.int64(1) <= v_i3 and v_i3 < T.int64(6) and T.int64(1) <= v_i4 and v_i4 < T.int64(6), data_dilate[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1), v_i4 - T.int64(1)], T.float32(0.0))
        for o, i, d, h, w in T.grid(T.int64(4), T.int64(2), T.int64(3), T.int64(3), T.int64(3)):
            with T.sblock("kernel_transform"):
                v_o, v_i, v_d, v_h, v_w = T.axis.remap("SSSSS", [o, i, d, h, w])
                T.reads(a1[v_i, v_o, T.int64(2) - v_d, T.int64(2) - v_h, T.int64(2) - v_w])
                T.writes(kernel_transform[v_o, v_i, v_d, v_h, v_w])
                kernel_transform[v_o, v_i, v_d, v_h, v_w] = a1[v_i, v_o, T.int64(2) - v_d, T.int64(2) - v_h, T.int64(2) - v_w]
        for b, c, d, h, w, dc, dd, dh, dw in T.grid(T.int64(1), T.int64(4), T.int64(6), T.int64(6), T.int64(6), T.int64(2), T.int64(3), T.int64(3), T.int64(3)):
            with T.sblock("compute"):
                v_b, v_c, v_d, v_h, v_w, v_dc, v_dd, v_dh, v_dw = T.axis.remap("SSSSSRRRR", [b, c, d, h, w, dc, dd, dh, dw])
                T.reads(data_pad[v_b, v_dc, v_d + v_dd, v_h + v_dh, v_w + v_dw], kernel_transform[v_c, v_dc, v_dd, v_dh, v_dw])
                T.writes(compute[v_b, v_c, v_d, v_h, v_w])
                with T.init():
                    compute[v_b, v_c, v_d, v_h, v_w] = T.float32(0.0)
                compute[v_b, v_c, v_d, v_h, v_w] = compute[v_b, v_c, v_d, v_h, v_w] + data_pad[v_b, v_dc, v_d + v_dd, v_h + v_dh, v_w + v_dw] * kernel_transform[v_c, v_dc, v_dd, v_dh, v_dw]

    @R.function
    def main(a0: R.Tensor((1, 2, 3, 3, 3), dtype="float32"), a1: R.Tensor((2, 4, 3, 3, 3), dtype="float32")) -> R.Tensor((1, 4, 6, 6, 6), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.conv3d_transpose, (a0, a1), out_ty=R.Tensor((1, 4, 6, 6, 6), dtype="float32"))
        return gv
