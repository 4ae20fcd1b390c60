# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 8, 10), dtype="float32"), a1: R.Tensor((8, 4, 4), dtype="float32")) -> R.Tensor((1, 4, 20), dtype="float32"):
        gv: R.Tensor((1, 4, 20), dtype="float32") = R.nn.conv1d_transpose(a0, a1, strides=[2], padding=[1, 1], output_padding=[0], dilation=[1], groups=1, data_layout="NCW", kernel_layout="IOW", out_layout="NCW", out_dtype=None)
        return gv
