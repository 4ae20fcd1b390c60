# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((8, 5), dtype="float32"), a1: R.Tensor((2, 5), dtype="float32")) -> R.Tensor((8, 5), dtype="float32"):
        gv: R.Tensor((8, 5), dtype="float32") = R.slice_scatter(a0, a1, 2, 6, 2, axis=0)
        return gv
