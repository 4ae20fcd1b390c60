# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 8, 20), dtype="float32"), a1: R.Tensor((8, 1, 3), dtype="float32")) -> R.Tensor((1, 8, 20), dtype="float32"):
        gv: R.Tensor((1, 8, 20), dtype="float32") = R.nn.conv1d(a0, a1, strides=[1], padding=[1, 1], dilation=[1], groups=8, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype=None)
        return gv
