# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=1):
        n = T.int64()
        y: R.Tensor((n, 4), dtype="float32") = R.match_cast(x, R.Tensor((n, 4), dtype="float32"))
        gv1: R.Tensor((n, 4), dtype="float32") = R.add(y, y)
        gv2: R.Tensor((n * 4,), dtype="float32") = R.reshape(gv1, R.shape([n * 4]))
        return gv2
