# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((), dtype="float32")) -> R.Tensor((1,), dtype="float32"):
        gv: R.Tensor((1,), dtype="float32") = R.flatten(a0)
        return gv
