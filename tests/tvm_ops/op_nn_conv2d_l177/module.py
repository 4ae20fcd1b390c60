# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

h = TypeVar("h")
n = TypeVar("n")
w = TypeVar("w")
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((n, 3, h, w), dtype="float32"), a1: R.Tensor((8, 3, 3, 3), dtype="float32")) -> R.Tensor((n, 8, "h - 2", "w - 2"), dtype="float32"):
        gv: R.Tensor((n, 8, h - 2, w - 2), dtype="float32") = R.nn.conv2d(a0, a1, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
        return gv
