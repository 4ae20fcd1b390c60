# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((64,), dtype="float32")) -> R.Tensor((64,), dtype="uint32"):
        gv: R.Tensor((64,), dtype="uint32") = R.memory.view(a0, R.tuple(), R.dtype("uint32"), R.tuple())
        return gv
