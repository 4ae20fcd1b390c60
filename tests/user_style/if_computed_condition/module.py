from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        c = R.greater(R.sum(x), R.const(0.0, "float32"))
        if c:
            r = R.sqrt(R.abs(x))
        else:
            r = x
        return r
