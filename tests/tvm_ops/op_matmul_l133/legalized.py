# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def matmul(a0: T.Buffer((T.int64(3),), "float32"), a1: T.Buffer((T.int64(3),), "float32"), matmul: T.Buffer((), "float32")):
        T.func_attr({"op_pattern": 3, "tirx.noalias": True})
        # with T.sblock("root"):
        for k in range(T.int64(3)):
            with T.sblock("matmul"):
                v_k = T.axis.reduce(T.int64(3), k)
                T.reads(a0[v_k], a1[v_k])
                T.writes(matmul[()])
                with T.init():
                    matmul[()] = T.float32(0.0)
                matmul[()] = matmul[()] + a0[v_k] * a1[v_k]

    @R.function
    def main(a0: R.Tensor((3,), dtype="float32"), a1: R.Tensor((3,), dtype="float32")) -> R.Tensor((), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.matmul, (a0, a1), out_ty=R.Tensor((), dtype="float32"))
        return gv
