# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 8, 30), dtype="float32"), a1: R.Tensor((16, 8, 5), dtype="float32")) -> R.Tensor((2, 16, 15), dtype="float32"):
        gv: R.Tensor((2, 16, 15), dtype="float32") = R.nn.conv1d(a0, a1, strides=[2], padding=[2, 2], dilation=[1], groups=1, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype=None)
        return gv
