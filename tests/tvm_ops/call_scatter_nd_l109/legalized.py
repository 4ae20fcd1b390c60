# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

elem_offset = TypeVar("elem_offset")
elem_offset_1 = TypeVar("elem_offset_1")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scatter_nd(a0: T.Buffer((T.int64(4), T.int64(5)), "float32", elem_offset=elem_offset_1), a1: T.Buffer((T.int64(3), T.int64(1)), "int64"), a2: T.Buffer((T.int64(3), T.int64(5)), "float32", elem_offset=elem_offset), out_buf: T.Buffer((T.int64(4), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        # with T.sblock("root"):
        T_transpose = T.sblock_alloc_buffer((T.int64(1), T.int64(3)), "int64")
        for ax0, ax1 in T.grid(T.int64(1), T.int64(3)):
            with T.sblock("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(a1[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = a1[v_ax1, v_ax0]
        with T.sblock("scatter_nd_generic"):
            T.reads()
            T.writes()
            T.attr({"pragma_scope": "seq"})
            for v in range(T.int64(20)):
                out_buf[v // T.int64(5), v % T.int64(5)] = a0[v // T.int64(5), v % T.int64(5)]
            for v in range(T.int64(3)):
                for v_1 in T.parallel(T.int64(5)):
                    out_buf[(v_1 + T.int64(5) * T_transpose[v // T.int64(3), v % T.int64(3)]) // T.int64(5), (v_1 + T.int64(5) * T_transpose[v // T.int64(3), v % T.int64(3)]) % T.int64(5)] = a2[(v * T.int64(5) + v_1) // T.int64(5), (v * T.int64(5) + v_1) % T.int64(5)]

    @R.function
    def main(a0: R.Tensor((4, 5), dtype="float32"), a1: R.Tensor((3, 1), dtype="int64"), a2: R.Tensor((3, 5), dtype="float32")) -> R.Tensor((4, 5), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.scatter_nd, (a0, a1, a2), out_ty=R.Tensor((4, 5), dtype="float32"))
        return gv
