# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def te_layout_transform(a0: T.Buffer((T.int64(1), T.int64(8), T.int64(4), T.int64(4)), "float32"), te_layout_transform: T.Buffer((T.int64(1), T.int64(2), T.int64(4), T.int64(4), T.int64(4)), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        for self, i0, i1, i2 in T.grid(T.int64(1), T.int64(8), T.int64(4), T.int64(4)):
            with T.sblock("te_layout_transform"):
                v_self, v_i0, v_i1, v_i2 = T.axis.remap("SSSS", [self, i0, i1, i2])
                T.reads(a0[v_self, v_i0, v_i1, v_i2])
                T.writes(te_layout_transform[v_self, v_i0 // T.int64(4), v_i1, v_i2, v_i0 % T.int64(4)])
                te_layout_transform[v_self, v_i0 // T.int64(4), v_i1, v_i2, v_i0 % T.int64(4)] = a0[v_self, v_i0, v_i1, v_i2]

    @R.function
    def main(a0: R.Tensor((1, 8, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4, 4), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.te_layout_transform, (a0,), out_ty=R.Tensor((1, 2, 4, 4, 4), dtype="float32"))
        return gv
