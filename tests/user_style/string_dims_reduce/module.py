from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")):
        with R.dataflow():
            s = R.sum(R.multiply(x, x), axis=1)
            R.output(s)
        return R.sqrt(s)
