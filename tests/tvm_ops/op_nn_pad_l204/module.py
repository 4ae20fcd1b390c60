# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((3, 5), dtype="float32"):
        gv: R.Tensor((3, 5), dtype="float32") = R.nn.pad(a0, pad_width=[1, 0, 0, 2], pad_value=0.0, pad_mode="constant")
        return gv
