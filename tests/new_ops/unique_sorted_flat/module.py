# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 5), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        with R.dataflow():
            gv: R.Tensor(dtype="float32", ndim=1) = R.unique(x, T.bool(True), T.bool(False), T.bool(False), T.bool(False))
            R.output(gv)
        return gv
