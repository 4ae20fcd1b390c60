# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((n, 1), dtype="bool"), a1: R.Tensor((1, 4), dtype="float32"), a2: R.Tensor((), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        gv: R.Tensor((n, 4), dtype="float32") = R.where(a0, a1, a2)
        return gv
