# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((6,), dtype="float32"):
        gv: R.Any = R.null_value()
        gv_1: R.Tensor((6,), dtype="float32") = R.memory.view(a0, R.shape([6]), gv, R.tuple())
        return gv_1
