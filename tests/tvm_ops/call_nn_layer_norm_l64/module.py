# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((6, 64), dtype="float32"), a1: R.Tensor((64,), dtype="float32"), a2: R.Tensor((64,), dtype="float32")) -> R.Tensor((6, 64), dtype="float32"):
        gv: R.Tensor((6, 64), dtype="float32") = R.nn.layer_norm(a0, a1, a2, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)
        return gv
