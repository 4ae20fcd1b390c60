# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((5,), dtype="int32")) -> R.Tensor((5, 4), dtype="float32"):
        gv: R.Tensor((5, 4), dtype="float32") = R.one_hot(a0, T.float32(1.0), T.float32(0.0), depth=4, axis=-1)
        return gv
