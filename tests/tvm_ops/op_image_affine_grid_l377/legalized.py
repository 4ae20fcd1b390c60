# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def affine_grid(a0: T.Buffer((T.int64(2), T.int64(2), T.int64(3)), "float32"), compute: T.Buffer((T.int64(2), T.int64(2), T.int64(4), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for n, dim, i0, i1 in T.grid(T.int64(2), T.int64(2), T.int64(4), T.int64(5)):
            with T.sblock("compute"):
                v_n, v_dim, v_i0, v_i1 = T.axis.remap("SSSS", [n, dim, i0, i1])
                T.reads(a0[v_n, v_dim, T.int64(0):T.int64(3)])
                T.writes(compute[v_n, v_dim, v_i0, v_i1])
                compute[v_n, v_dim, v_i0, v_i1] = a0[v_n, v_dim, T.int64(2)] + a0[v_n, v_dim, T.int64(1)] * (T.float32(-1.0) + T.Cast("float32", v_i0) * T.float32(0.66666663333333331)) + a0[v_n, v_dim, T.int64(0)] * (T.float32(-1.0) + T.Cast("float32", v_i1) * T.float32(0.49999997499999999))

    @R.function
    def main(a0: R.Tensor((2, 2, 3), dtype="float32")) -> R.Tensor((2, 2, 4, 5), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.affine_grid, (a0,), out_ty=R.Tensor((2, 2, 4, 5), dtype="float32"))
        return gv
