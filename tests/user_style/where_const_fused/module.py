from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32")):
        with R.dataflow():
            c = R.greater(x, R.const(0.5, "float32"))
            y = R.where(c, R.exp(x), R.const(0.0, "float32"))
            z = R.multiply(y, R.const(2.0, "float32"))
            R.output(z)
        return z
