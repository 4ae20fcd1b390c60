from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), "float32"), y: R.Tensor(ndim=2, dtype="float32")):
        n = T.int64()
        a = R.shape_to_tensor(R.shape_of(x))
        b = R.shape_to_tensor(R.shape_of(y))
        c = R.shape_to_tensor(R.shape([n * 2, 7]))
        return (a, b, c)
