# finding: the TIR path of max_pool2d in ceil mode with a row stride of 2^31 padded its input out to the second window's start and failed to allocate 618 GB
# opfuzz: pool2d, seed 202814
# arg: float64 [1, 4, 36, 5]
# inputs: seed 8965571847868836, integers
# compare: exact
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 36, 5), dtype="float64")):
        with R.dataflow():
            t0 = R.nn.max_pool2d(x, pool_size=[4, 4], strides=[2147483648, 1], dilation=[1, 1], padding=[3, 1, 1, 3], ceil_mode=True, layout="NCHW", out_layout="NCHW")
            y = t0
            R.output(y)
        return y
