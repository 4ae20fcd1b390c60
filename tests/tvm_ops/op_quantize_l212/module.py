# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, n), dtype="float16"), a1: R.Tensor((n,), dtype="float16"), a2: R.Tensor((n,), dtype="int8")) -> R.Tensor((2, n), dtype="uint8"):
        gv: R.Tensor((2, n), dtype="uint8") = R.quantize(a0, a1, a2, out_dtype="uint8", axis=1)
        return gv
