# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def te_gather_nd(a0: T.Buffer((T.int64(4), T.int64(5), T.int64(6)), "float32"), a1: T.Buffer((T.int64(3), T.int64(2)), "int64"), T_gather_nd: T.Buffer((T.int64(3), T.int64(6)), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        T_transpose = T.sblock_alloc_buffer((T.int64(2), T.int64(3)), "int64")
        for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a1[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = a1[v_ax1, v_ax0]
        for ax0, ax1 in T.grid(T.int64(3), T.int64(6)):
            with T.sblock("T_gather_nd"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a0[T_transpose[T.int64(0), v_ax0], T_transpose[T.int64(1), v_ax0], v_ax1], T_transpose[T.int64(0):T.int64(2), v_ax0])
                T.writes(T_gather_nd[v_ax0, v_ax1])
                T_gather_nd[v_ax0, v_ax1] = a0[T_transpose[T.int64(0), v_ax0], T_transpose[T.int64(1), v_ax0], v_ax1]

    @R.function
    def main(a0: R.Tensor((4, 5, 6), dtype="float32"), a1: R.Tensor((3, 2), dtype="int64")) -> R.Tensor((3, 6), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.te_gather_nd, (a0, a1), out_ty=R.Tensor((3, 6), dtype="float32"))
        return gv
