# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((n, 3), dtype="int32")) -> R.Tensor((n, 3), dtype="int32"):
        gv: R.Tensor((n, 3), dtype="int32") = R.abs(a0)
        return gv
