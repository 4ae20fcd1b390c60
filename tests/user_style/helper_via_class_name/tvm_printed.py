# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def square(a: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
        gv: R.Tensor((n,), dtype="float32") = R.multiply(a, a)
        return gv

    @R.function
    def main(x: R.Tensor((n,), dtype="float32")) -> R.Tuple(R.Tensor((n,), dtype="float32"), R.Tensor((n,), dtype="float32")):
        cls = Module
        gv: R.Tensor((n,), dtype="float32") = R.negative(x)
        s: R.Tensor((n,), dtype="float32") = cls.square(gv)
        gv2: R.Tensor((n,), dtype="float32") = cls.square(s)
        return (s, gv2)
