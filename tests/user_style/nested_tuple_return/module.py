from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        # a tuple inside a tuple, with calls in it
        return ((x, R.exp(x)), R.add(x, R.negative(x)))
