# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 3, 32, 32), dtype="float32"), a1: R.Tensor((16, 3, 7, 7), dtype="float32")) -> R.Tensor((1, 16, 16, 16), dtype="float32"):
        gv: R.Tensor((1, 16, 16, 16), dtype="float32") = R.nn.conv2d(a0, a1, strides=[2, 2], padding=[3, 3, 3, 3], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
        return gv
