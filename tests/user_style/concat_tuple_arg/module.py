from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            y = R.concat((R.exp(x), R.sin(x), x), axis=0)
            R.output(y)
        return y
