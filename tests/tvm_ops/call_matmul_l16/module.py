# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((8, 12), dtype="float16"), a1: R.Tensor((12, 6), dtype="float16")) -> R.Tensor((8, 6), dtype="float16"):
        gv: R.Tensor((8, 6), dtype="float16") = R.matmul(a0, a1, out_dtype=None)
        return gv
