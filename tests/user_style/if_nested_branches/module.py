from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), c: R.Tensor((), "bool")):
        s = R.sigmoid(x)
        if c:
            r = R.add(R.exp(x), s)
        else:
            r = s
        return r
