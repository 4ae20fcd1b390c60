# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def nll_loss_without_weight(a0: T.Buffer((T.int64(2), T.int64(3)), "float32"), a1: T.Buffer((T.int64(2),), "int64"), T_divide: T.Buffer((), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        T_full = T.sblock_alloc_buffer((T.int64(3),))
        nll_loss = T.sblock_alloc_buffer((T.int64(2),))
        nll_loss_red = T.sblock_alloc_buffer(())
        nll_loss_1 = T.sblock_alloc_buffer((T.int64(2),))
        nll_loss_red_1 = T.sblock_alloc_buffer(())
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
        for k0 in range(T.int64(2)):
            with T.sblock("nll_loss_red"):
                v_k0 = T.axis.reduce(T.int64(2), k0)
                T.reads(nll_loss[v_k0])
                T.writes(nll_loss_red[()])
                with T.init():
                    nll_loss_red[()] = T.float32(0.0)
                nll_loss_red[()] = nll_loss_red[()] + nll_loss[v_k0]
        for ax0 in range(T.int64(2)):
            with T.sblock("nll_loss_1"):
                v_ax0 = T.axis.spatial(T.int64(2), ax0)
                T.reads(a1[v_ax0], T_full[a1[v_ax0]])
                T.writes(nll_loss_1[v_ax0])
                nll_loss_1[v_ax0] = T.Select(a1[v_ax0] != T.int64(-100), T_full[a1[v_ax0]], T.float32(0.0))
        for k0 in range(T.int64(2)):
            with T.sblock("nll_loss_red_1"):
                v_k0 = T.axis.reduce(T.int64(2), k0)
                T.reads(nll_loss_1[v_k0])
                T.writes(nll_loss_red_1[()])
                with T.init():
                    nll_loss_red_1[()] = T.float32(0.0)
                nll_loss_red_1[()] = nll_loss_red_1[()] + nll_loss_1[v_k0]
        with T.sblock("T_divide"):
            vi = T.axis.spatial(T.int64(1), T.int64(0))
            T.reads(nll_loss_red[()], nll_loss_red_1[()])
            T.writes(T_divide[()])
            T_divide[()] = nll_loss_red[()] / nll_loss_red_1[()]

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32"), a1: R.Tensor((2,), dtype="int64")) -> R.Tensor((), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.nll_loss_without_weight, (a0, a1), out_ty=R.Tensor((), dtype="float32"))
        return gv
