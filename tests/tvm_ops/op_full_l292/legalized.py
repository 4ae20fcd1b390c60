# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def full(a1: T.Buffer((), "float32"), T_full: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_full"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a1[()])
                T.writes(T_full[v_ax0, v_ax1])
                T_full[v_ax0, v_ax1] = a1[()]

    @R.function
    def main(a1: R.Tensor((), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.full, (a1,), out_ty=R.Tensor((2, 3), dtype="float32"))
        return gv
