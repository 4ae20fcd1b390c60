# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def matmul(a0: T.Buffer((T.int64(9), T.int64(16)), "float64"), a1: T.Buffer((T.int64(16), T.int64(5)), "float64"), matmul: T.Buffer((T.int64(9), T.int64(5)), "float64")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(T.int64(9), T.int64(5), T.int64(16)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(a0[v_i0, v_k], a1[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float64(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + a0[v_i0, v_k] * a1[v_k, v_i1]

    @R.function
    def main(a0: R.Tensor((9, 16), dtype="float64"), a1: R.Tensor((16, 5), dtype="float64")) -> R.Tensor((9, 5), dtype="float64"):
        cls = Module
        gv = R.call_tir(cls.matmul, (a0, a1), out_ty=R.Tensor((9, 5), dtype="float64"))
        return gv
