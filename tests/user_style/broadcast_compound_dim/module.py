from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor(("n",), "float32")):
        n = T.int64()
        # the output dimension is a compound expression of n, bound by no input buffer
        return R.broadcast_to(x, R.shape([T.max(n, 3)]))
