# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 8, 11, 11), dtype="float32")) -> R.Tensor((1, 8, 6, 6), dtype="float32"):
        gv: R.Tensor((1, 8, 6, 6), dtype="float32") = R.nn.avg_pool2d(a0, pool_size=[3, 3], strides=[2, 2], dilation=[1, 1], padding=[1, 1, 1, 1], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
        return gv
