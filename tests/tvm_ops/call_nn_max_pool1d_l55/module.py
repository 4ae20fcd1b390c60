# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 4, 17), dtype="float32")) -> R.Tensor((2, 4, 9), dtype="float32"):
        gv: R.Tensor((2, 4, 9), dtype="float32") = R.nn.max_pool1d(a0, pool_size=[3], strides=[2], dilation=[1], padding=[1, 1], ceil_mode=False, count_include_pad=False, layout="NCW", out_layout="NCW")
        return gv
