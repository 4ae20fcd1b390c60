# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((4, 5, 6), dtype="float32")) -> R.Tensor((1, 5, 1), dtype="float32"):
        gv: R.Tensor((1, 5, 1), dtype="float32") = R.sum(a0, axis=[0, 2], keepdims=True)
        return gv
