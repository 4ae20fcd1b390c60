# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((n,), dtype="float16")) -> R.Tensor((n,), dtype="float16"):
        gv: R.Tensor((n,), dtype="float16") = R.grad.end_checkpoint(a0)
        return gv
