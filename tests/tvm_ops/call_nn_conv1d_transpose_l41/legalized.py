# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def conv1d_transpose(a0: T.Buffer((T.int64(1), T.int64(8), T.int64(10)), "float32"), a1: T.Buffer((T.int64(8), T.int64(4), T.int64(4)), "float32"), compute: T.Buffer((T.int64(1), T.int64(4), T.int64(20)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        data_dilate = T.sblock_alloc_buffer((T.int64(1), T.int64(8), T.int64(19)))
        data_pad = T.sblock_alloc_buffer((T.int64(1), T.int64(8), T.int64(23)))
        kernel = T.sblock_alloc_buffer((T.int64(4), T.int64(8), T.int64(4)))
        for i0, i1, i2 in T.grid(T.int64(1), T.int64(8), T.int64(19)):
            with T.sblock("data_dilate"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(a0[v_i0, v_i1, v_i2 // T.int64(2)])
                T.writes(data_dilate[v_i0, v_i1, v_i2])
                data_dilate[v_i0, v_i1, v_i2] = T.if_then_else(v_i2 % T.int64(2) == T.int64(0), a0[v_i0, v_i1, v_i2 // T.int64(2)], T.float32(0.0))
        for i0, i1, i2 in T.grid(T.int64(1), T.int64(8), T.int64(23)):
            with T.sblock("data_pad"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(data_dilate[v_i0, v_i1, v_i2 - T.int64(2)])
                T.writes(data_pad[v_i0, v_i1, v_i2])
                data_pad[v_i0, v_i1, v_i2] = T.if_then_else(T.int64(2) <= v_i2 and v_i2 < T.int64(21), data_dilate[v_i0, v_i1, v_i2 - T.int64(2)], T.float32(0.0))
        for o, i, w in T.grid(T.int64(4), T.int64(8), T.int64(4)):
            with T.sblock("kernel"):
                v_o, v_i, v_w = T.axis.remap("SSS", [o, i, w])
                T.reads(a1[v_i, v_o, T.int64(3) - v_w])
                T.writes(kernel[v_o, v_i, v_w])
                kernel[v_o, v_i, v_w] = a1[v_i, v_o, T.int64(3) - v_w]
        for b, c, w, dc, dw in T.grid(T.int64(1), T.int64(4), T.int64(20), T.int64(8), T.int64(4)):
            with T.sblock("compute"):
                v_b, v_c, v_w, v_dc, v_dw = T.axis.remap("SSSRR", [b, c, w, dc, dw])
                T.reads(data_pad[v_b, v_dc, v_w + v_dw], kernel[v_c, v_dc, v_dw])
                T.writes(compute[v_b, v_c, v_w])
                with T.init():
                    compute[v_b, v_c, v_w] = T.float32(0.0)
                compute[v_b, v_c, v_w] = compute[v_b, v_c, v_w] + data_pad[v_b, v_dc, v_w + v_dw] * kernel[v_c, v_dc, v_dw]

    @R.function
    def main(a0: R.Tensor((1, 8, 10), dtype="float32"), a1: R.Tensor((8, 4, 4), dtype="float32")) -> R.Tensor((1, 4, 20), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.conv1d_transpose, (a0, a1), out_ty=R.Tensor((1, 4, 20), dtype="float32"))
        return gv
