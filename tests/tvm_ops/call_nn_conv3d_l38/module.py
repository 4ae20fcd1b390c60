# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 4, 6, 7, 8), dtype="float32"), a1: R.Tensor((8, 4, 3, 3, 3), dtype="float32")) -> R.Tensor((1, 8, 6, 7, 8), dtype="float32"):
        gv: R.Tensor((1, 8, 6, 7, 8), dtype="float32") = R.nn.conv3d(a0, a1, strides=[1, 1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], groups=1, data_layout="NCDHW", kernel_layout="OIDHW", out_layout="NCDHW", out_dtype=None)
        return gv
