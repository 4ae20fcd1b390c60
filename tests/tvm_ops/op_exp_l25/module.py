# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((n, m), dtype="float32")) -> R.Tensor((n, m), dtype="float32"):
        gv: R.Tensor((n, m), dtype="float32") = R.exp(a0)
        return gv
