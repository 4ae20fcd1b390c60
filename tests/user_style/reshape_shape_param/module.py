from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), "float32"), s: R.Shape(["a", "b"])):
        a = T.int64()
        b = T.int64()
        return R.reshape(R.exp(x), R.shape([a, b]))
