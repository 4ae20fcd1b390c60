# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def softmax(a0: T.Buffer((T.int64(3), T.int64(5), T.int64(7)), "float32"), T_softmax_norm: T.Buffer((T.int64(3), T.int64(5), T.int64(7)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(3), T.int64(7)))
        T_softmax_exp = T.sblock_alloc_buffer((T.int64(3), T.int64(5), T.int64(7)))
        T_softmax_expsum = T.sblock_alloc_buffer((T.int64(3), T.int64(7)))
        for i0, i1, k in T.grid(T.int64(3), T.int64(7), T.int64(5)):
            with T.sblock("T_softmax_maxelem"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a0[v_i0, v_k, v_i1])
                T.writes(T_softmax_maxelem[v_i0, v_i1])
                with T.init():
                    T_softmax_maxelem[v_i0, v_i1] = T.float32(-340282346638528859811704183484516925440.0)
                T_softmax_maxelem[v_i0, v_i1] = T.max(T_softmax_maxelem[v_i0, v_i1], a0[v_i0, v_k, v_i1])
        for i0, i1, i2 in T.grid(T.int64(3), T.int64(5), T.int64(7)):
            with T.sblock("T_softmax_exp"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(a0[v_i0, v_i1, v_i2], T_softmax_maxelem[v_i0, v_i2])
                T.writes(T_softmax_exp[v_i0, v_i1, v_i2])
                T_softmax_exp[v_i0, v_i1, v_i2] = T.exp(a0[v_i0, v_i1, v_i2] - T_softmax_maxelem[v_i0, v_i2])
        for i0, i1, k in T.grid(T.int64(3), T.int64(7), T.int64(5)):
            with T.sblock("T_softmax_expsum"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(T_softmax_exp[v_i0, v_k, v_i1])
                T.writes(T_softmax_expsum[v_i0, v_i1])
                with T.init():
                    T_softmax_expsum[v_i0, v_i1] = T.float32(0.0)
                T_softmax_expsum[v_i0, v_i1] = T_softmax_expsum[v_i0, v_i1] + T_softmax_exp[v_i0, v_k, v_i1]
        for i0, i1, i2 in T.grid(T.int64(3), T.int64(5), T.int64(7)):
            with T.sblock("T_softmax_norm"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(T_softmax_exp[v_i0, v_i1, v_i2], T_softmax_expsum[v_i0, v_i2])
                T.writes(T_softmax_norm[v_i0, v_i1, v_i2])
                T.sblock_attr({"axis": 1})
                T_softmax_norm[v_i0, v_i1, v_i2] = T_softmax_exp[v_i0, v_i1, v_i2] / T_softmax_expsum[v_i0, v_i2]

    @R.function
    def main(a0: R.Tensor((3, 5, 7), dtype="float32")) -> R.Tensor((3, 5, 7), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.softmax, (a0,), out_ty=R.Tensor((3, 5, 7), dtype="float32"))
        return gv
