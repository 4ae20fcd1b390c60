# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

elem_offset = TypeVar("elem_offset")
elem_offset_1 = TypeVar("elem_offset_1")
elem_offset_2 = TypeVar("elem_offset_2")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scatter_elements(a0: T.Buffer((T.int64(4), T.int64(5)), "float32", elem_offset=elem_offset_2), a1: T.Buffer((T.int64(2), T.int64(5)), "int64", elem_offset=elem_offset_1), a2: T.Buffer((T.int64(2), T.int64(5)), "float32", elem_offset=elem_offset), out_buf: T.Buffer((T.int64(4), T.int64(5)), "float32")):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        with T.sblock("scatter_elements_generic"):
            T.reads()
            T.writes()
            T.attr({"pragma_scope": "seq"})
            for v in T.parallel(T.int64(20)):
                out_buf[v // T.int64(5), v % T.int64(5)] = a0[v // T.int64(5), v % T.int64(5)]
            for v in T.parallel(T.int64(5)):
                for v_1 in range(T.int64(2)):
                    out_buf[(v // T.int64(5) * T.int64(20) + v % T.int64(5) + (a1[(v // T.int64(5) * T.int64(10) + v % T.int64(5) + v_1 * T.int64(5)) // T.int64(5), (v // T.int64(5) * T.int64(10) + v % T.int64(5) + v_1 * T.int64(5)) % T.int64(5)] + T.Cast("int64", a1[(v // T.int64(5) * T.int64(10) + v % T.int64(5) + v_1 * T.int64(5)) // T.int64(5), (v // T.int64(5) * T.int64(10) + v % T.int64(5) + v_1 * T.int64(5)) % T.int64(5)] < T.int64(0)) * T.int64(4)) * T.int64(5)) // T.int64(5), (v // T.int64(5) * T.int64(20) + v % T.int64(5) + (a1[(v // T.int64(5) * T.int64(10) + v % T.int64(5) + v_1 * T.int64(5)) // T.int64(5), (v // T.int64(5) * T.int64(10) + v % T.int64(5) + v_1 * T.int64(5)) % T.int64(5)] + T.Cast("int64", a1[(v // T.int64(5) * T.int64(10) + v % T.int64(5) + v_1 * T.int64(5)) // T.int64(5), (v // T.int64(5) * T.int64(10) + v % T.int64(5) + v_1 * T.int64(5)) % T.int64(5)] < T.int64(0)) * T.int64(4)) * T.int64(5)) % T.int64(5)] = a2[(v // T.int64(5) * T.int64(10) + v % T.int64(5) + v_1 * T.int64(5)) // T.int64(5), (v // T.int64(5) * T.int64(10) + v % T.int64(5) + v_1 * T.int64(5)) % T.int64(5)]

    @R.function
    def main(a0: R.Tensor((4, 5), dtype="float32"), a1: R.Tensor((2, 5), dtype="int64"), a2: R.Tensor((2, 5), dtype="float32")) -> R.Tensor((4, 5), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.scatter_elements, (a0, a1, a2), out_ty=R.Tensor((4, 5), dtype="float32"))
        return gv
