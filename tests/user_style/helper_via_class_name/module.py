from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function(private=True)
    def square(a: R.Tensor(("n",), "float32")):
        return R.multiply(a, a)

    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        s = Module.square(R.negative(x))
        return (s, Module.square(s))
