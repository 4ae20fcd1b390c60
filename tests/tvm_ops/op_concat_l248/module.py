# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tuple(R.Tensor((n, 3), dtype="float32"), R.Tensor((m, 3), dtype="float32"))) -> R.Tensor(("n + m", 3), dtype="float32"):
        gv: R.Tensor((n + m, 3), dtype="float32") = R.concat(a0, axis=0)
        return gv
