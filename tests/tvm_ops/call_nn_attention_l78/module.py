# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 6, 4, 8), dtype="float32"), a1: R.Tensor((2, 6, 4, 8), dtype="float32"), a2: R.Tensor((2, 6, 4, 8), dtype="float32")) -> R.Tensor((2, 6, 4, 8), dtype="float32"):
        gv: R.Tensor((2, 6, 4, 8), dtype="float32") = R.nn.attention(a0, a1, a2, scale=None, causal_mask="TopLeft", window_size=None)
        return gv
