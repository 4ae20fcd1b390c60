# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def matmul(a0: T.Buffer((T.int64(6), T.int64(7)), "int32"), a1: T.Buffer((T.int64(7), T.int64(5)), "int32"), matmul: T.Buffer((T.int64(6), T.int64(5)), "int32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(6), T.int64(5), T.int64(7)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a0[v_i0, v_k], a1[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = 0
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a0[v_i0, v_k] * a1[v_k, v_i1]

    @R.function
    def main(a0: R.Tensor((6, 7), dtype="int32"), a1: R.Tensor((7, 5), dtype="int32")) -> R.Tensor((6, 5), dtype="int32"):
        cls = Module
        gv = R.call_tir(cls.matmul, (a0, a1), out_ty=R.Tensor((6, 5), dtype="int32"))
        return gv
