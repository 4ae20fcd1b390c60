from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5), "float32")):
        with R.dataflow():
            v = R.mean(R.square(R.subtract(x, R.mean(x, axis=1, keepdims=True))), axis=1)
            R.output(v)
        return v
