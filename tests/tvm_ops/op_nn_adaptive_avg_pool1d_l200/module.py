# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 2, 8), dtype="float32")) -> R.Tensor((1, 2, 1), dtype="float32"):
        gv: R.Tensor((1, 2, 1), dtype="float32") = R.nn.adaptive_avg_pool1d(a0, output_size=[1], layout="NCW", out_layout="NCW")
        return gv
