# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 64, 1000), dtype="float32"), w: R.Tensor((64, 32, 4), dtype="float32")) -> R.Tensor((1, 32, 2000), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((1, 32, 2000), dtype="float32") = R.nn.conv1d_transpose(x, w, strides=[2], padding=[1, 1], output_padding=[0], dilation=[1], groups=1, data_layout="NCW", kernel_layout="IOW", out_layout="NCW", out_dtype="void")
            R.output(y)
        return y
