# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((4, 5), dtype="bool"), a1: R.Tensor((4, 5), dtype="bool")) -> R.Tensor((4, 5), dtype="bool"):
        gv: R.Tensor((4, 5), dtype="bool") = R.logical_and(a0, a1)
        return gv
