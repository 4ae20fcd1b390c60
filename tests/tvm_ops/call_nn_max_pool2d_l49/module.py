# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 8, 12, 12), dtype="float32")) -> R.Tensor((1, 8, 5, 5), dtype="float32"):
        gv: R.Tensor((1, 8, 5, 5), dtype="float32") = R.nn.max_pool2d(a0, pool_size=[2, 2], strides=[2, 2], dilation=[2, 2], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
        return gv
