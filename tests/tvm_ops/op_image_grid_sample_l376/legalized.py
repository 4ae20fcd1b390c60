# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def grid_sample(a0: T.Buffer((T.int64(2), T.int64(3), T.int64(4), T.int64(5), T.int64(6)), "float32"), a1: T.Buffer((T.int64(2), T.int64(3), T.int64(6), T.int64(7), T.int64(8)), "float32"), compute: T.Buffer((T.int64(2), T.int64(3), T.int64(6), T.int64(7), T.int64(8)), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        for n, c, d, h, w in T.grid(T.int64(2), T.int64(3), T.int64(6), T.int64(7), T.int64(8)):
            with T.sblock("compute"):
                v_n, v_c, v_d, v_h, v_w = T.axis.remap("SSSSS", [n, c, d, h, w])
                T.reads(a1[v_n, T.int64(0):T.int64(3), v_d, v_h, v_w], a0[v_n, v_c, T.int64(0):T.int64(4), T.int64(0):T.int64(5), T.int64(0):T.int64(6)])
                T.writes(compute[v_n, v_c, v_d, v_h, v_w])
                compute[v_n, v_c, v_d, v_h, v_w] = T.if_then_else(T.int64(0) <= T.Cast("int64", T.nearbyint(T.float32(-0.5) + (a1[v_n, T.int64(2), v_d, v_h, v_w] + T.float32(1.0)) * T.float32(4.0) / T.float32(2.0))) and T.int64(0) <= T.Cast("int64", T.nearbyint(T.float32(-0.5) + (a1[v_n, T.int64(1), v_d, v_h, v_w] + T.float32(1.0)) * T.float32(5.0) / T.float32(2.0))) and T.int64(0) <= T.Cast("int64", T.nearbyint(T.float32(-0.5) + (a1[v_n, T.int64(0), v_d, v_h, v_w] + T.float32(1.0)) * T.float32(6.0) / T.float32(2.0))) and T.Cast("int64", T.nearbyint(T.float32(-0.5) + (a1[v_n, T.int64(2), v_d, v_h, v_w] + T.float32(1.0)) * T.float32(4.0) / T.float32(2.0))) < T.int64(4) and T.Cast("int64", T.nearbyint(T.float32(-0.5) + (a1[v_n, T.int64(1), v_d, v_h, v_w] + T.float32(1.0)) * T.float32(5.0) / T.float32(2.0))) < T.int64(5) and T.Cast("int64", T.nearbyint(T.float32(-0.5) + (a1[v_n, T.int64(0), v_d, v_h, v_w] + T.float32(1.0)) * T.float32(6.0) / T.float32(2.0))) < T.int64(6), a0[v_n, v_c, T.Cast("int64", T.nearbyint(T.float32(-0.5) + (a1[v_n, T.int64(2), v_d, v_h, v_w] + T.float32(1.0)) * T.float32(4.0) / T.float32(2.0))), T.Cast("int64", T.nearbyint(T.float32(-0.5) + (a1[v_n, T.int64(1), v_d, v_h, v_w] + T.float32(1.0)) * T.float32(5.0) / T.float32(2.0))), T.Cast("int64", T.nearbyint(T.float32(-0.5) + (a1[v_n, T.int64(0), v_d, v_h, v_w] + T.float32(1.0)) * T.float32(6.0) / T.float32(2.0)))], T.float32(0.0))

    @R.function
    def main(a0: R.Tensor((2, 3, 4, 5, 6), dtype="float32"), a1: R.Tensor((2, 3, 6, 7, 8), dtype="float32")) -> R.Tensor((2, 3, 6, 7, 8), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.grid_sample, (a0, a1), out_ty=R.Tensor((2, 3, 6, 7, 8), dtype="float32"))
        return gv
