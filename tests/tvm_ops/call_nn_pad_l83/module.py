# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 5), dtype="int32")) -> R.Tensor((3, 12), dtype="int32"):
        gv: R.Tensor((3, 12), dtype="int32") = R.nn.pad(a0, pad_width=[1, 0, 3, 4], pad_value=0.0, pad_mode="reflect")
        return gv
