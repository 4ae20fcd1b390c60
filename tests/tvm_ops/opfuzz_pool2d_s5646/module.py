# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 5, 4), dtype="float32")) -> R.Tensor((1, 4, 1, 2), dtype="float32"):
        with R.dataflow():
            t0: R.Tensor((1, 4, 1, 2), dtype="float32") = R.nn.avg_pool2d(x, pool_size=[4, 2], strides=[2, 3], dilation=[2, 1], padding=[1, 2, 1, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
            y: R.Tensor((1, 4, 1, 2), dtype="float32") = t0
            R.output(y)
        return y
