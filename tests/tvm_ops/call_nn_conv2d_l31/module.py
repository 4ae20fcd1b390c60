# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 8, 11, 11), dtype="float32"), a1: R.Tensor((8, 8, 5, 5), dtype="float32")) -> R.Tensor((1, 8, 9, 10), dtype="float32"):
        gv: R.Tensor((1, 8, 9, 10), dtype="float32") = R.nn.conv2d(a0, a1, strides=[1, 1], padding=[2, 1, 0, 2], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
        return gv
