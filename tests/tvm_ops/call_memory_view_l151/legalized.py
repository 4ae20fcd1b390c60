# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((8, 8), dtype="float32")) -> R.Tensor((64,), dtype="float32"):
        gv: R.Any = R.null_value()
        gv_1: R.Tensor((64,), dtype="float32") = R.memory.view(a0, R.shape([64]), gv, R.tuple())
        return gv_1
