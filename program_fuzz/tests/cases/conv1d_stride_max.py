# finding: relaxjit.conv2d (conv1d as rows) with a stride of 2^63 - 1 gave 0 where x[0] * w[0] is -3: the valid-column range wrapped around
# opfuzz: conv1d, seed 200155
# arg: float32 [1, 1, 3]
# arg: float32 [1, 1, 1]
# inputs: seed 5038042692649374, integers
# compare: exact
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 1, 3), dtype="float32"), w: R.Tensor((1, 1, 1), dtype="float32")):
        with R.dataflow():
            t0 = R.nn.conv1d(x, w, strides=[9223372036854775807], padding=[0, 0], dilation=[1], groups=1, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype="void")
            y = t0
            R.output(y)
        return y
