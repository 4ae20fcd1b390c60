from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), "float32")):
        return R.add(R.multiply(x, R.const(2.0, "float32")), R.const(1.0, "float32"))
