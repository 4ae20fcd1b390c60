# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 10, 10, 8), dtype="float32"), a1: R.Tensor((3, 3, 8, 12), dtype="float32")) -> R.Tensor((1, 10, 10, 12), dtype="float32"):
        gv: R.Tensor((1, 10, 10, 12), dtype="float32") = R.nn.conv2d(a0, a1, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NHWC", kernel_layout="HWIO", out_layout="NHWC", out_dtype=None)
        return gv
