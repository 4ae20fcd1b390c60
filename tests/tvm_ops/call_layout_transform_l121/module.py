# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 8, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4, 4), dtype="float32"):
        gv: R.Tensor((1, 2, 4, 4, 4), dtype="float32") = R.layout_transform(a0, index_map=T.index_map(lambda n, c, h, w: (n, c // 4, h, w, c % 4)), pad_value=None)
        return gv
