from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), "float32")):
        n = T.int64()
        a: R.Tensor((n, 3), "float32") = R.exp(R.negative(x))
        b = R.add(a, x)
        c: R.Tensor((n, 3), "float32") = R.multiply(b, a)
        return c
