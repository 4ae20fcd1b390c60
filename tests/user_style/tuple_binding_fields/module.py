from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        t = (R.exp(x), R.negative(x))
        u = R.add(t[0], t[1])
        return (u, t)
