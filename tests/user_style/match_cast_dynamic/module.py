from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")):
        k = T.int64()
        y = R.match_cast(x, R.Tensor((k, 4), "float32"))
        return R.add(y, R.exp(y))
