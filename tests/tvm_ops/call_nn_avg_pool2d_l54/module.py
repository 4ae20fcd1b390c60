# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 8, 12, 12), dtype="float32")) -> R.Tensor((1, 8, 1, 1), dtype="float32"):
        gv: R.Tensor((1, 8, 1, 1), dtype="float32") = R.nn.avg_pool2d(a0, pool_size=[12, 12], strides=[1, 1], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
        return gv
