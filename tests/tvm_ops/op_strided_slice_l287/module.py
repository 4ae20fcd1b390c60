# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((n, 4), dtype="float32")) -> R.Tensor(("T.min(9223372036854775807, n) - T.min(1, n)", 4), dtype="float32"):
        gv: R.Tensor((T.min(9223372036854775807, n) - T.min(1, n), 4), dtype="float32") = R.strided_slice(a0, (0,), (1,), (9223372036854775807,), assume_inbound=False)
        return gv
