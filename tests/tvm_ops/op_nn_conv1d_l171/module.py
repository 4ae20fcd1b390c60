# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 2, 8), dtype="float32"), a1: R.Tensor((4, 2, 3), dtype="float32")) -> R.Tensor((1, 4, 8), dtype="float32"):
        gv: R.Tensor((1, 4, 8), dtype="float32") = R.nn.conv1d(a0, a1, strides=[1], padding=[1, 1], dilation=[1], groups=1, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype=None)
        return gv
