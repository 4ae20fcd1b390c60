# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((4, 5), dtype="float32")) -> R.Tensor((4, 5), dtype="float32"):
        gv: R.Tensor((4, 5), dtype="float32") = R.clip(a0, T.float64(-0.5), T.float64(0.5))
        return gv
