# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((7,), dtype="int64")) -> R.Tuple(R.Tensor(dtype="int64", ndim=1), R.Tensor(dtype="int64", ndim=1), R.Tensor(dtype="int64", ndim=1), R.Tensor(dtype="int64", ndim=1)):
        with R.dataflow():
            gv: R.Tuple(R.Tensor(dtype="int64", ndim=1), R.Tensor(dtype="int64", ndim=1), R.Tensor(dtype="int64", ndim=1), R.Tensor(dtype="int64", ndim=1)) = R.unique(x, T.bool(False), T.bool(True), T.bool(True), T.bool(True))
            R.output(gv)
        return gv
