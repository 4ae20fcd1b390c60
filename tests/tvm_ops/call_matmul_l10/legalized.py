# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def matmul(a0: T.Buffer((T.int64(2), T.int64(3), T.int64(17), T.int64(24)), "float32"), a1: T.Buffer((T.int64(24), T.int64(9)), "float32"), matmul: T.Buffer((T.int64(2), T.int64(3), T.int64(17), T.int64(9)), "float32")):
        T.func_attr({"op_pattern": 4, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2, i3, k in T.grid(T.int64(2), T.int64(3), T.int64(17), T.int64(9), T.int64(24)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_i2, v_i3, v_k = T.axis.remap("SSSSR", [i0, i1, i2, i3, k])
                T.reads(a0[v_i0, v_i1, v_i2, v_k], a1[v_k, v_i3])
                T.writes(matmul[v_i0, v_i1, v_i2, v_i3])
                with T.init():
                    matmul[v_i0, v_i1, v_i2, v_i3] = T.float32(0.0)
                matmul[v_i0, v_i1, v_i2, v_i3] = matmul[v_i0, v_i1, v_i2, v_i3] + a0[v_i0, v_i1, v_i2, v_k] * a1[v_k, v_i3]

    @R.function
    def main(a0: R.Tensor((2, 3, 17, 24), dtype="float32"), a1: R.Tensor((24, 9), dtype="float32")) -> R.Tensor((2, 3, 17, 9), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.matmul, (a0, a1), out_ty=R.Tensor((2, 3, 17, 9), dtype="float32"))
        return gv
