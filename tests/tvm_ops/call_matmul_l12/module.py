# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((1, 5, 8), dtype="float32"), a1: R.Tensor((3, 8, 7), dtype="float32")) -> R.Tensor((3, 5, 7), dtype="float32"):
        gv: R.Tensor((3, 5, 7), dtype="float32") = R.matmul(a0, a1, out_dtype=None)
        return gv
