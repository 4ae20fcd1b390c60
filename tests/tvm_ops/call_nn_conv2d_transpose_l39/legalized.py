# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def conv2d_transpose(a0: T.Buffer((T.int64(1), T.int64(16), T.int64(7), T.int64(7)), "float32"), a1: T.Buffer((T.int64(16), T.int64(8), T.int64(4), T.int64(4)), "float32"), compute: T.Buffer((T.int64(1), T.int64(8), T.int64(14), T.int64(14)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        data_dilate = T.sblock_alloc_buffer((T.int64(1), T.int64(16), T.int64(13), T.int64(13)))
        data_pad = T.sblock_alloc_buffer((T.int64(1), T.int64(16), T.int64(17), T.int64(17)))
        kernel_transform = T.sblock_alloc_buffer((T.int64(8), T.int64(16), T.int64(4), T.int64(4)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(16), T.int64(13), T.int64(13)):
            with T.sblock("data_dilate"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(a0[v_i0, v_i1, v_i2 // T.int64(2), v_i3 // T.int64(2)])
                T.writes(data_dilate[v_i0, v_i1, v_i2, v_i3])
                data_dilate[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(v_i2 % T.int64(2) == T.int64(0) and v_i3 % T.int64(2) == T.int64(0), a0[v_i0, v_i1, v_i2 // T.int64(2), v_i3 // T.int64(2)], T.float32(0.0))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(16), T.int64(17), T.int64(17)):
            with T.sblock("data_pad"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(data_dilate[v_i0, v_i1, v_i2 - T.int64(2), v_i3 - T.int64(2)])
                T.writes(data_pad[v_i0, v_i1, v_i2, v_i3])
                data_pad[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(2) <= v_i2 and v_i2 < T.int64(15) and T.int64(2) <= v_i3 and v_i3 < T.int64(15), data_dilate[v_i0, v_i1, v_i2 - T.int64(2), v_i3 - T.int64(2)], T.float32(0.0))
        for o, i, h, w in T.grid(T.int64(8), T.int64(16), T.int64(4), T.int64(4)):
            with T.sblock("kernel_transform"):
                v_o, v_i, v_h, v_w = T.axis.remap("SSSS", [o, i, h, w])
                T.reads(a1[v_i, v_o, T.int64(3) - v_h, T.int64(3) - v_w])
                T.writes(kernel_transform[v_o, v_i, v_h, v_w])
                kernel_transform[v_o, v_i, v_h, v_w] = a1[v_i, v_o, T.int64(3) - v_h, T.int64(3) - v_w]
        for b, c, h, w, dc, dh, dw in T.grid(T.int64(1), T.int64(8), T.int64(14), T.int64(14), T.int64(16), T.int64(4), T.int64(4)):
            with T.sblock("compute"):
                v_b, v_c, v_h, v_w, v_dc, v_dh, v_dw = T.axis.remap("SSSSRRR", [b, c, h, w, dc, dh, dw])
                T.reads(data_pad[v_b, v_dc, v_h + v_dh, v_w + v_dw], kernel_transform[v_c, v_dc, v_dh, v_dw])
                T.writes(compute[v_b, v_c, v_h, v_w])
                with T.init():
                    compute[v_b, v_c, v_h, v_w] = T.float32(0.0)
                compute[v_b, v_c, v_h, v_w] = compute[v_b, v_c, v_h, v_w] + data_pad[v_b, v_dc, v_h + v_dh, v_w + v_dw] * kernel_transform[v_c, v_dc, v_dh, v_dw]

    @R.function
    def main(a0: R.Tensor((1, 16, 7, 7), dtype="float32"), a1: R.Tensor((16, 8, 4, 4), dtype="float32")) -> R.Tensor((1, 8, 14, 14), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.conv2d_transpose, (a0, a1), out_ty=R.Tensor((1, 8, 14, 14), dtype="float32"))
        return gv
