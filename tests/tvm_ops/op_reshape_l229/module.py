# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((n, 4), dtype="float32")) -> R.Tensor(("n * 2", 2), dtype="float32"):
        gv: R.Tensor((n * 2, 2), dtype="float32") = R.reshape(a0, R.shape([n * 2, 2]))
        return gv
