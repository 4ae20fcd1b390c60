# constants written with numpy, as people write them
import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), i: R.Tensor((2, 3), "int32")):
        w = R.const(np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], dtype="float32"))
        b = R.const(np.array([1.0, 2.0, 3.0]))  # float64 narrowed to float32, as TVM does
        k = R.const(np.array([[1, 2, 3], [4, 5, 6]]))  # int64 narrowed to int32
        z = R.const(np.zeros((2, 3), dtype=np.float32))
        o = R.const(np.ones((3,), "float32"))
        f = R.const(np.full((2, 3), 7, dtype="int32"))
        t = R.const(np.array([1.7, -2.7, 3.5]), "int32")  # truncated like numpy's astype
        s = R.const(np.float32(0.5))
        y = R.multiply(R.add(R.add(R.multiply(x, w), b), z), R.multiply(o, s))
        j = R.add(R.add(R.multiply(i, k), f), t)
        return (y, j)
