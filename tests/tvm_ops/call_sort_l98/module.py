# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((4, 9), dtype="float32")) -> R.Tensor((4, 9), dtype="float32"):
        gv: R.Tensor((4, 9), dtype="float32") = R.sort(a0, axis=0, descending=True)
        return gv
