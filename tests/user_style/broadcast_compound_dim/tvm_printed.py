# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), y: R.Tensor((n,), dtype="float32")) -> R.Tensor(("T.max(n, 3)",), dtype="float32"):
        gv: R.Tensor((T.max(n, 3),), dtype="float32") = R.broadcast_to(x, R.shape([T.max(n, 3)]))
        return gv
