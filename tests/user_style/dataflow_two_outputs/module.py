from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        with R.dataflow():
            a = R.add(R.exp(x), y)
            b = R.multiply(a, R.negative(y))
            R.output(a, b)
        return R.subtract(b, a)
