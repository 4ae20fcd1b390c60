# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 16, 9, 9), dtype="float32"), a1: R.Tensor((24, 4, 3, 3), dtype="float32")) -> R.Tensor((1, 24, 7, 7), dtype="float32"):
        gv: R.Tensor((1, 24, 7, 7), dtype="float32") = R.nn.conv2d(a0, a1, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=4, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
        return gv
