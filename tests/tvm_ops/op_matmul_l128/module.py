# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((n, 784), dtype="float32"), a1: R.Tensor((784, 128), dtype="float32")) -> R.Tensor((n, 128), dtype="float32"):
        gv: R.Tensor((n, 128), dtype="float32") = R.matmul(a0, a1, out_dtype=None)
        return gv
