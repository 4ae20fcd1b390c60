# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, m), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((n, m), dtype="float32") = R.multiply(x, x)
            s: R.Tensor((n,), dtype="float32") = R.sum(lv, axis=[1], keepdims=False)
            R.output(s)
        gv: R.Tensor((n,), dtype="float32") = R.sqrt(s)
        return gv
