# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def einsum(gv: T.Buffer((T.int64(2), T.int64(3)), "float32"), T_einsum: T.Buffer((T.int64(3), T.int64(2)), "float32")):
        T.func_attr({"op_pattern": 2, "tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(2)):
            with T.sblock("T_einsum"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(gv[v_ax1, v_ax0])
                T.writes(T_einsum[v_ax0, v_ax1])
                T_einsum[v_ax0, v_ax1] = gv[v_ax1, v_ax0]

    @R.function
    def main(a0: R.Tuple(R.Tensor((2, 3), dtype="float32"))) -> R.Tensor((3, 2), dtype="float32"):
        cls = Module
        gv: R.Tensor((2, 3), dtype="float32") = a0[0]
        gv_1 = R.call_tir(cls.einsum, (gv,), out_ty=R.Tensor((3, 2), dtype="float32"))
        return gv_1
