# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 64, 32, 32), dtype="float32"), w: R.Tensor((64, 16, 4, 4), dtype="float32")) -> R.Tensor((1, 64, 64, 64), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((1, 64, 64, 64), dtype="float32") = R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[0, 0], dilation=[1, 1], groups=4, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype="void")
            R.output(y)
        return y
