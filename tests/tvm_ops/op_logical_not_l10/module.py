# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 4), dtype="bool")) -> R.Tensor((2, 4), dtype="bool"):
        gv: R.Tensor((2, 4), dtype="bool") = R.logical_not(a0)
        return gv
