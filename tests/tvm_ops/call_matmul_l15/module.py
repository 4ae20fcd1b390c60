# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((9, 16), dtype="float64"), a1: R.Tensor((16, 5), dtype="float64")) -> R.Tensor((9, 5), dtype="float64"):
        gv: R.Tensor((9, 5), dtype="float64") = R.matmul(a0, a1, out_dtype=None)
        return gv
