# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 64, 8, 28, 28), dtype="float32"), w: R.Tensor((64, 64, 3, 3, 3), dtype="float32")) -> R.Tensor((1, 64, 8, 28, 28), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((1, 64, 8, 28, 28), dtype="float32") = R.nn.conv3d(x, w, strides=[1, 1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], groups=1, data_layout="NCDHW", kernel_layout="OIDHW", out_layout="NCDHW", out_dtype="void")
            R.output(y)
        return y
