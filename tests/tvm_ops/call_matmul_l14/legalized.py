# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def matmul(a0: T.Buffer((T.int64(4), T.int64(24)), "float32"), a1: T.Buffer((T.int64(24),), "float32"), matmul: T.Buffer((T.int64(4),), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, k in T.grid(T.int64(4), T.int64(24)):
            with T.sblock("matmul"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                T.reads(a0[v_i0, v_k], a1[v_k])
                T.writes(matmul[v_i0])
                with T.init():
                    matmul[v_i0] = T.float32(0.0)
                matmul[v_i0] = matmul[v_i0] + a0[v_i0, v_k] * a1[v_k]

    @R.function
    def main(a0: R.Tensor((4, 24), dtype="float32"), a1: R.Tensor((24,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.matmul, (a0, a1), out_ty=R.Tensor((4,), dtype="float32"))
        return gv
