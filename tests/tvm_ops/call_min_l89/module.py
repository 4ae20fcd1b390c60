# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((4, 5, 6), dtype="int32")) -> R.Tensor((5, 6), dtype="int32"):
        gv: R.Tensor((5, 6), dtype="int32") = R.min(a0, axis=[0], keepdims=False)
        return gv
