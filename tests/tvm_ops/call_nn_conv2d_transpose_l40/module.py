# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 8, 5, 5), dtype="float32"), a1: R.Tensor((8, 4, 3, 3), dtype="float32")) -> R.Tensor((1, 4, 10, 10), dtype="float32"):
        gv: R.Tensor((1, 4, 10, 10), dtype="float32") = R.nn.conv2d_transpose(a0, a1, strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype=None)
        return gv
