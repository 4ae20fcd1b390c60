# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((n,), dtype="int64")) -> R.Tensor((n,), dtype="float32"):
        gv: R.Tensor((n,), dtype="float32") = R.astype(a0, dtype="float32")
        return gv
