from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):
        if c:
            r = (x, R.exp(x))
        else:
            r = (x, x)
        return R.add(r[0], r[1])
