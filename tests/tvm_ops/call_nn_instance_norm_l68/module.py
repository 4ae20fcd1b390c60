# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 4, 6, 6), dtype="float32"), a1: R.Tensor((4,), dtype="float32"), a2: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 4, 6, 6), dtype="float32"):
        gv: R.Tensor((2, 4, 6, 6), dtype="float32") = R.nn.instance_norm(a0, a1, a2, channel_axis=1, axes=[2, 3], epsilon=1.0000000000000001e-05, center=True, scale=True)
        return gv
