# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((3, 16), dtype="float32"), a1: R.Tensor((16, 8), dtype="float32")) -> R.Tensor((3, 8), dtype="float64"):
        gv: R.Tensor((3, 8), dtype="float64") = R.matmul(a0, a1, out_dtype="float64")
        return gv
