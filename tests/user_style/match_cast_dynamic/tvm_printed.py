# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=2):
        k = T.int64()
        y: R.Tensor((k, 4), dtype="float32") = R.match_cast(x, R.Tensor((k, 4), dtype="float32"))
        gv1: R.Tensor((k, 4), dtype="float32") = R.exp(y)
        gv2: R.Tensor((k, 4), dtype="float32") = R.add(y, gv1)
        return gv2
