# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 8, 5, 5), dtype="float32"), a1: R.Tensor((8,), dtype="float32"), a2: R.Tensor((8,), dtype="float32")) -> R.Tensor((2, 8, 5, 5), dtype="float32"):
        gv: R.Tensor((2, 8, 5, 5), dtype="float32") = R.nn.group_norm(a0, a1, a2, num_groups=4, channel_axis=1, axes=[2, 3], epsilon=1.0000000000000001e-05, center=True, scale=True)
        return gv
