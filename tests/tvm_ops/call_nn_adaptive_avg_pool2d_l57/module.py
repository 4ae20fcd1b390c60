# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 16, 7, 7), dtype="float32")) -> R.Tensor((1, 16, 1, 1), dtype="float32"):
        gv: R.Tensor((1, 16, 1, 1), dtype="float32") = R.nn.adaptive_avg_pool2d(a0, output_size=[1, 1], layout="NCHW", out_layout="NCHW")
        return gv
