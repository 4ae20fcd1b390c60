# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((4, 5), dtype="float32")) -> R.Tensor((4, 5), dtype="int32"):
        gv: R.Tensor((4, 5), dtype="int32") = R.astype(a0, dtype="int32")
        return gv
