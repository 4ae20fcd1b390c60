# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 2, 3, 2), dtype="float32"), w: R.Tensor((2, 2, 3, 2, 3), dtype="float32")) -> R.Tensor((1, 2, 5, 3, 3), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((1, 2, 5, 3, 3), dtype="float32") = R.nn.conv3d_transpose(x, w, strides=[2, 1, 2], padding=[1, 0, 1, 0, 1, 1], output_padding=[1, 0, 0], dilation=[1, 1, 1], groups=1, data_layout="NCDHW", kernel_layout="IODHW", out_layout="NCDHW", out_dtype=None)
            R.output(gv)
        return gv
