# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def expand_dims(a0: T.Buffer((T.int64(2), T.int64(3)), "float32"), expand_dims: T.Buffer((T.int64(2), T.int64(3), T.int64(1)), "float32")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, i2 in T.grid(T.int64(2), T.int64(3), T.int64(1)):
            with T.sblock("expand_dims"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(a0[v_i0, v_i1])
                T.writes(expand_dims[v_i0, v_i1, v_i2])
                expand_dims[v_i0, v_i1, v_i2] = a0[v_i0, v_i1]

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3, 1), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.expand_dims, (a0,), out_ty=R.Tensor((2, 3, 1), dtype="float32"))
        return gv
