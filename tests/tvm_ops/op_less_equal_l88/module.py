# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32"), a1: R.Tensor((3,), dtype="float32")) -> R.Tensor((2, 3), dtype="bool"):
        gv: R.Tensor((2, 3), dtype="bool") = R.less_equal(a0, a1)
        return gv
