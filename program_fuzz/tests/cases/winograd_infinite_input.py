# finding: Winograd conv2d spread an infinite input element over its 6x6 tile's outputs (inf - inf = NaN), where the TIR path keeps it to the windows that read it
# opfuzz: conv2d, seed 277
# arg: float32 [1, 18, 15, 15]
# const: float32 [64, 18, 3, 3]
# inputs: seed 6788212800134059, integers, special
# compare: reduction 162
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 18, 15, 15), dtype="float32")):
        with R.dataflow():
            t0 = R.nn.conv2d(x, metadata["ir.GenericConst"][0], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            t1 = R.nn.relu(t0)
            t2 = R.add(t1, R.const(0.5, "float32"))
            y = t2
            R.output(y)
        return y
