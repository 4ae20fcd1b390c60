# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((4, 5), dtype="int64"), a1: R.Tensor((5,), dtype="int64")) -> R.Tensor((4, 5), dtype="int64"):
        gv: R.Tensor((4, 5), dtype="int64") = R.minimum(a0, a1)
        return gv
