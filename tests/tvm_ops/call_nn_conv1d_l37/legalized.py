# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def conv1d(a0: T.Buffer((T.int64(1), T.int64(8), T.int64(20)), "float32"), a1: T.Buffer((T.int64(8), T.int64(1), T.int64(3)), "float32"), group_conv1d_ncw: T.Buffer((T.int64(1), T.int64(8), T.int64(20)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        pad_temp = T.sblock_alloc_buffer((T.int64(1), T.int64(8), T.int64(22)))
        for i0, i1, i2 in T.grid(T.int64(1), T.int64(8), T.int64(22)):
            with T.sblock("pad_temp"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(a0[v_i0, v_i1, v_i2 - T.int64(1)])
                T.writes(pad_temp[v_i0, v_i1, v_i2])
                pad_temp[v_i0, v_i1, v_i2] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(21), a0[v_i0, v_i1, v_i2 - T.int64(1)], T.float32(0.0))
        for nn, ff, yy, rc, ry in T.grid(T.int64(1), T.int64(8), T.int64(20), T.int64(1), T.int64(3)):
            with T.sblock("group_conv1d_ncw"):
                v_nn, v_ff, v_yy, v_rc, v_ry = T.axis.remap("SSSRR", [nn, ff, yy, rc, ry])
                T.reads(pad_temp[v_nn, v_ff + v_rc, v_yy + v_ry], a1[v_ff, v_rc, v_ry])
                T.writes(group_conv1d_ncw[v_nn, v_ff, v_yy])
                with T.init():
                    group_conv1d_ncw[v_nn, v_ff, v_yy] = T.float32(0.0)
                group_conv1d_ncw[v_nn, v_ff, v_yy] = group_conv1d_ncw[v_nn, v_ff, v_yy] + pad_temp[v_nn, v_ff + v_rc, v_yy + v_ry] * a1[v_ff, v_rc, v_ry]

    @R.function
    def main(a0: R.Tensor((1, 8, 20), dtype="float32"), a1: R.Tensor((8, 1, 3), dtype="float32")) -> R.Tensor((1, 8, 20), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.conv1d, (a0, a1), out_ty=R.Tensor((1, 8, 20), dtype="float32"))
        return gv
