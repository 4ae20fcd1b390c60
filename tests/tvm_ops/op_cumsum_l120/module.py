# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 3), dtype="int32")) -> R.Tensor((6,), dtype="int32"):
        gv: R.Tensor((6,), dtype="int32") = R.cumsum(a0, axis=None, dtype=None, exclusive=False)
        return gv
