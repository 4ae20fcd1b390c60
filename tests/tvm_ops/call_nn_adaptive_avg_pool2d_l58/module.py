# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 8, 10, 9), dtype="float32")) -> R.Tensor((1, 8, 3, 4), dtype="float32"):
        gv: R.Tensor((1, 8, 3, 4), dtype="float32") = R.nn.adaptive_avg_pool2d(a0, output_size=[3, 4], layout="NCHW", out_layout="NCHW")
        return gv
