# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((6, 64), dtype="float32"), a1: R.Tensor((64,), dtype="float32")) -> R.Tensor((6, 64), dtype="float32"):
        gv: R.Tensor((6, 64), dtype="float32") = R.nn.rms_norm(a0, a1, axes=[-1], epsilon=1.0000000000000001e-05)
        return gv
