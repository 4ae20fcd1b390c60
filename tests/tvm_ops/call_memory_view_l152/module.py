# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((8, 8), dtype="float32")) -> R.Tensor((16,), dtype="float16"):
        gv: R.Tensor((16,), dtype="float16") = R.memory.view(a0, R.shape([16]), R.dtype("float16"), 4)
        return gv
