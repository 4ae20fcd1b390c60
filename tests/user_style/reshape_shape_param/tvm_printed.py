# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

a = TypeVar("a")
b = TypeVar("b")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), s: R.Shape([a, b])) -> R.Tensor((a, b), dtype="float32"):
        gv: R.Tensor((3, 4), dtype="float32") = R.exp(x)
        gv1: R.Tensor((a, b), dtype="float32") = R.reshape(gv, R.shape([a, b]))
        return gv1
