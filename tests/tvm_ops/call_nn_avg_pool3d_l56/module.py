# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 2, 6, 6, 6), dtype="float32")) -> R.Tensor((1, 2, 3, 3, 3), dtype="float32"):
        gv: R.Tensor((1, 2, 3, 3, 3), dtype="float32") = R.nn.avg_pool3d(a0, pool_size=[2, 2, 2], strides=[2, 2, 2], dilation=[1, 1, 1], padding=[0, 0, 0, 0, 0, 0], ceil_mode=False, count_include_pad=True, layout="NCDHW", out_layout="NCDHW")
        return gv
