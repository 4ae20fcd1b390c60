# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def nll_loss_without_weight(a0: T.Buffer((T.int64(2), T.int64(3)), "float32"), a1: T.Buffer((T.int64(2),), "int64"), nll_loss: T.Buffer((T.int64(2),), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        T_full = T.sblock_alloc_buffer((T.int64(3),))
        for ax0 in range(T.int64(3)):
            with T.sblock("T_full"):
                v_ax0 = T.axis.spatial(T.int64(3), ax0)
                T.reads()
                T.writes(T_full[v_ax0])
                T_full[v_ax0] = T.float32(1.0)
        for ax0 in range(T.int64(2)):
            with T.sblock("nll_loss"):
                v_ax0 = T.axis.spatial(T.int64(2), ax0)
                T.reads(a1[v_ax0], a0[v_ax0, a1[v_ax0]], T_full[a1[v_ax0]])
                T.writes(nll_loss[v_ax0])
                nll_loss[v_ax0] = T.Select(a1[v_ax0] != T.int64(-100), (T.float32(0.0) - a0[v_ax0, a1[v_ax0]]) * T_full[a1[v_ax0]], T.float32(0.0))

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32"), a1: R.Tensor((2,), dtype="int64")) -> R.Tensor((2,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.nll_loss_without_weight, (a0, a1), out_ty=R.Tensor((2,), dtype="float32"))
        return gv
