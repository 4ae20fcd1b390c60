# finding: the TIR path of max_pool2d in ceil mode with a row stride of 2^62 computed a negative padded size (the extra padding overflowed)
# opfuzz: pool2d, seed 206726
# arg: float32 [2, 1, 5, 9]
# inputs: seed 1502184305922021, integers
# compare: exact
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 1, 5, 9), dtype="float32")):
        with R.dataflow():
            t0 = R.nn.max_pool2d(x, pool_size=[3, 4], strides=[4611686018427387904, 1], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=True, layout="NCHW", out_layout="NCHW")
            y = t0
            R.output(y)
        return y
