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
    def searchsorted(a1: T.Buffer((T.int64(5),), "float32", elem_offset=elem_offset_2), a0: T.Buffer((T.int64(2), T.int64(3)), "float32", elem_offset=elem_offset_1), searchsorted: T.Buffer((T.int64(2), T.int64(3)), "int64", elem_offset=elem_offset)):
        T.func_attr({"op_pattern": 8, "tirx.noalias": True})
        with T.sblock("searchsorted"):
            T.reads()
            T.writes()
            for v in T.parallel(T.int64(6)):
                buffer = T.alloc_local((T.int64(1),), "int64")
                buffer_1 = T.alloc_local((T.int64(1),), "int64")
                buffer[T.int64(0)] = T.int64(0)
                buffer_1[T.int64(0)] = T.int64(5)
                while buffer[T.int64(0)] < buffer_1[T.int64(0)]:
                    if a1[buffer[T.int64(0)] + (buffer_1[T.int64(0)] - buffer[T.int64(0)] >> T.int64(1))] < a0[v // T.int64(3), v % T.int64(3)]:
                        buffer[T.int64(0)] = buffer[T.int64(0)] + (buffer_1[T.int64(0)] - buffer[T.int64(0)] >> T.int64(1)) + T.int64(1)
                    else:
                        buffer_1[T.int64(0)] = buffer[T.int64(0)] + (buffer_1[T.int64(0)] - buffer[T.int64(0)] >> T.int64(1))
                searchsorted[v // T.int64(3), v % T.int64(3)] = buffer[T.int64(0)]

    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32"), a1: R.Tensor((5,), dtype="float32")) -> R.Tensor((2, 3), dtype="int64"):
        cls = Module
        gv = R.call_tir(cls.searchsorted, (a1, a0), out_ty=R.Tensor((2, 3), dtype="int64"))
        return gv
