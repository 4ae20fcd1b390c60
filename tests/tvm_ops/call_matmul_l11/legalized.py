# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def matmul(a0: T.Buffer((T.int64(2), T.int64(5), T.int64(8)), "float32"), a1: T.Buffer((T.int64(2), T.int64(8), T.int64(7)), "float32"), matmul: T.Buffer((T.int64(2), T.int64(5), T.int64(7)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, k in T.grid(T.int64(2), T.int64(5), T.int64(7), T.int64(8)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(a0[v_i0, v_i1, v_k], a1[v_i0, v_k, v_i2])
                T.writes(matmul[v_i0, v_i1, v_i2])
                with T.init():
                    matmul[v_i0, v_i1, v_i2] = T.float32(0.0)
                matmul[v_i0, v_i1, v_i2] = matmul[v_i0, v_i1, v_i2] + a0[v_i0, v_i1, v_k] * a1[v_i0, v_k, v_i2]

    @R.function
    def main(a0: R.Tensor((2, 5, 8), dtype="float32"), a1: R.Tensor((2, 8, 7), dtype="float32")) -> R.Tensor((2, 5, 7), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.matmul, (a0, a1), out_ty=R.Tensor((2, 5, 7), dtype="float32"))
        return gv
