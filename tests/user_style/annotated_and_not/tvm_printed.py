# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 3), dtype="float32")) -> R.Tensor((n, 3), dtype="float32"):
        gv: R.Tensor((n, 3), dtype="float32") = R.negative(x)
        a: R.Tensor((n, 3), dtype="float32") = R.exp(gv)
        b: R.Tensor((n, 3), dtype="float32") = R.add(a, x)
        c: R.Tensor((n, 3), dtype="float32") = R.multiply(b, a)
        return c
