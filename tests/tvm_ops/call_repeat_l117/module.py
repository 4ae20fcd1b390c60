# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        gv: R.Tensor((4, 3), dtype="float32") = R.repeat(a0, repeats=2, axis=0)
        return gv
