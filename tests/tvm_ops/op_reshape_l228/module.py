# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tensor((6, 4), dtype="float32"):
        gv: R.Tensor((6, 4), dtype="float32") = R.reshape(a0, R.shape([6, 4]))
        return gv
