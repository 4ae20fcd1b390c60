# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 8, 10, 10), dtype="float16"), a1: R.Tensor((4, 8, 3, 3), dtype="float16")) -> R.Tensor((1, 4, 8, 8), dtype="float16"):
        gv: R.Tensor((1, 4, 8, 8), dtype="float16") = R.nn.conv2d(a0, a1, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
        return gv
