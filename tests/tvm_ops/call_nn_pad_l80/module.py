# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 3, 4, 4), dtype="float32")) -> R.Tensor((1, 3, 7, 7), dtype="float32"):
        gv: R.Tensor((1, 3, 7, 7), dtype="float32") = R.nn.pad(a0, pad_width=[0, 0, 0, 0, 1, 2, 2, 1], pad_value=0.0, pad_mode="reflect")
        return gv
