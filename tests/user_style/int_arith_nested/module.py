from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((5,), "int32"), b: R.Tensor((5,), "int32")):
        return R.add(R.multiply(a, b), R.subtract(a, R.const(3, "int32")))
