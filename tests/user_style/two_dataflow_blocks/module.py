from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 3), "float32")):
        with R.dataflow():
            a = R.exp(R.negative(x))
            R.output(a)
        b = R.add(a, R.const(1.0, "float32"))
        with R.dataflow():
            c = R.divide(R.const(1.0, "float32"), b)
            R.output(c)
        return c
