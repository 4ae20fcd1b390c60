# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 2, 10), dtype="float32")) -> R.Tensor((2, 3, 1, 3), dtype="float32"):
        with R.dataflow():
            t0: R.Tensor((2, 3, 1, 3), dtype="float32") = R.nn.max_pool2d(x, pool_size=[1, 3], strides=[5, 4], dilation=[1, 1], padding=[0, 1, 0, 1], ceil_mode=True, count_include_pad=False, layout="NCHW", out_layout="NCHW")
            y: R.Tensor((2, 3, 1, 3), dtype="float32") = t0
            R.output(y)
        return y
