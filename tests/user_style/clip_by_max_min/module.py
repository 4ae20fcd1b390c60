from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), "float32")):
        return R.maximum(R.minimum(R.multiply(x, R.const(3.0, "float32")), R.const(1.0, "float32")), R.const(-1.0, "float32"))
